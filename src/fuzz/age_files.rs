//! age recipients and identity files as users paste them (`--recipient`,
//! `--recipients-file`, `--identity`): no panic, no error that holds the line's text,
//! and whatever parses writes back (as age writes it) to text that parses the same.

use crate::records::age::{Identity, Recipient, parse_identities, parse_recipients};

/// One input.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_recipients(text) {
        Ok(recipients) => {
            for r in recipients {
                assert_eq!(Recipient::parse(&r.to_string()), Ok(r));
            }
        }
        Err(e) => assert_secret_free(&e.to_string(), text),
    }
    match parse_identities(text) {
        Ok(identities) => {
            for i in identities {
                let r = i.recipient();
                assert_eq!(Recipient::parse(&r.to_string()), Ok(r));
            }
        }
        Err(e) => assert_secret_free(&e.to_string(), text),
    }
    let _ = Recipient::parse(text);
    if let Err(e) = Identity::parse(text) {
        assert_secret_free(&e.to_string(), text);
    }
}

/// An error never repeats a line of the input that could be a key (an identity is a
/// secret): 30 characters or more without a space (no message has such a run).
fn assert_secret_free(error: &str, text: &str) {
    let key_like = |l: &&str| l.len() >= 30 && !l.contains(char::is_whitespace);
    for line in text.lines().map(str::trim).filter(key_like) {
        assert!(
            !error.contains(line),
            "the error repeats the input: {error}"
        );
    }
}
