//! Every text parser of the id codec, on arbitrary bytes: no panic, and whatever parses
//! writes back to the same text (modulo case, and in base32 modulo Crockford's decoding
//! aliases `i`/`l` for `1` and `o` for `0`, documented in docs/IDS.md).
use crate::ids::decimal::{parse_decimal, parse_decimal_in};
use crate::ids::text::Format;

/// One input.
pub fn run(data: &[u8]) {
    let _ = parse_decimal(data);
    // The word-at-a-time reading of a number inside a buffer agrees with the definition
    // for every slice ending at the buffer's end (the first byte chooses where it starts).
    if let Some((&first, rest)) = data.split_first() {
        let start = usize::from(first) % (rest.len() + 1);
        assert_eq!(
            parse_decimal_in(rest, start, rest.len()),
            parse_decimal(&rest[start..])
        );
    }
    for f in [Format::Uuid, Format::Hex, Format::Base32, Format::Base62] {
        if let Ok(v) = f.parse(data) {
            let mut out = Vec::new();
            f.write(&v, &mut out);
            let canonical: Vec<u8> = data
                .iter()
                .map(|&b| match (f, b.to_ascii_lowercase()) {
                    (Format::Base32, b'i' | b'l') => b'1',
                    (Format::Base32, b'o') => b'0',
                    _ => b,
                })
                .collect();
            assert!(out.eq_ignore_ascii_case(&canonical));
        }
    }
}
