//! age's X25519 recipients and identities (<https://age-encryption.org/v1>): their text
//! forms (`age1...`, `AGE-SECRET-KEY-1...`, Bech32), the files that hold them, and the
//! X25519 stanza that wraps a 16-byte file key, exactly as age computes it.
//!
//! ```text
//! share   = X25519(ephemeral, basepoint)
//! secret  = X25519(ephemeral, recipient)            (all-zero: refused)
//! key     = HKDF-SHA256(ikm = secret, salt = share ‖ recipient,
//!                       info = "age-encryption.org/v1/X25519", L = 32)
//! body    = ChaCha20-Poly1305(key, nonce = 0^12, file key)   (16 + 16 bytes)
//! ```

use bech32::Bech32;
use bech32::primitives::decode::CheckedHrpstring;
use chacha20poly1305::ChaCha20Poly1305;
use chacha20poly1305::aead::{AeadInOut, KeyInit};
use hkdf::Hkdf;
use sha2::Sha256;
use x25519_dalek::{PublicKey, StaticSecret};
use zeroize::Zeroizing;

const RECIPIENT_HRP: &str = "age";
const IDENTITY_HRP: &str = "age-secret-key-";
const STANZA_INFO: &[u8] = b"age-encryption.org/v1/X25519";

/// An age X25519 recipient: a public key.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Recipient(pub [u8; 32]);

/// An age X25519 identity: a secret scalar.
#[derive(Clone)]
pub struct Identity(StaticSecret);

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Identity({})", self.recipient())
    }
}

impl std::fmt::Debug for Recipient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

impl std::fmt::Display for Recipient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hrp = bech32::Hrp::parse(RECIPIENT_HRP).expect("a valid prefix");
        let s = bech32::encode::<Bech32>(hrp, &self.0).map_err(|_| std::fmt::Error)?;
        f.write_str(&s)
    }
}

/// Why a recipient or identity was refused. Never holds the text itself (an identity
/// is a secret).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgeError {
    /// Not Bech32, or a bad checksum.
    #[error("not a valid age {0} (Bech32 with a checksum)")]
    Malformed(&'static str),
    /// A known key of another kind.
    #[error("{0}")]
    Unsupported(&'static str),
}

fn decode(text: &str, hrp: &str, what: &'static str) -> Result<[u8; 32], AgeError> {
    // age writes recipients in lower case and identities in upper case; Bech32 allows
    // either, not a mix (the decoder checks).
    let s = CheckedHrpstring::new::<Bech32>(text).map_err(|_| AgeError::Malformed(what))?;
    if !s.hrp().as_str().eq_ignore_ascii_case(hrp) {
        return Err(AgeError::Malformed(what));
    }
    let bytes: Vec<u8> = s.byte_iter().collect();
    let out = <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| AgeError::Malformed(what))?;
    Ok(out)
}

impl Recipient {
    /// Parses `age1...`.
    pub fn parse(text: &str) -> Result<Recipient, AgeError> {
        let t = text.trim();
        if t.starts_with("ssh-") {
            return Err(AgeError::Unsupported(
                "SSH keys are not supported as recipients: use an age X25519 recipient (age1...), as age-keygen makes",
            ));
        }
        if t.starts_with("age1") && t.contains('1') && t.len() > 62 {
            return Err(AgeError::Unsupported(
                "only age X25519 recipients (age1... of 62 characters) are supported, not plugin or post-quantum ones",
            ));
        }
        // Bytes, not a str slice: a line may hold any text, and byte 15 need not end
        // a character (found by the age_files fuzz target).
        if t.len() > 15 && t.as_bytes()[..15].eq_ignore_ascii_case(b"AGE-SECRET-KEY-") {
            // Never echoed: it is a secret.
            return Err(AgeError::Unsupported(
                "this is an age identity (a secret key, AGE-SECRET-KEY-1...), not a recipient: give its public key (age1..., which `age-keygen -y IDENTITY_FILE` prints), and keep the identity secret",
            ));
        }
        let r = decode(t, RECIPIENT_HRP, "recipient").map(Recipient)?;
        // A low-order point shares no secret with anyone: nothing could be wrapped to it.
        // (A clamped scalar is a multiple of the cofactor, so any such point gives 0.)
        if !StaticSecret::from([1u8; 32])
            .diffie_hellman(&PublicKey::from(r.0))
            .was_contributory()
        {
            return Err(AgeError::Unsupported(
                "not a usable public key (a low-order point, which shares no secret with any identity)",
            ));
        }
        Ok(r)
    }
}

impl Identity {
    /// Parses `AGE-SECRET-KEY-1...`.
    pub fn parse(text: &str) -> Result<Identity, AgeError> {
        let t = text.trim();
        if t.starts_with("AGE-PLUGIN-") {
            return Err(AgeError::Unsupported(
                "plugin identities are not supported: use an age X25519 identity (AGE-SECRET-KEY-1...)",
            ));
        }
        let b = Zeroizing::new(decode(t, IDENTITY_HRP, "identity")?);
        Ok(Identity(StaticSecret::from(*b)))
    }

    /// The identity's recipient (public key).
    pub fn recipient(&self) -> Recipient {
        Recipient(PublicKey::from(&self.0).to_bytes())
    }

    /// The file key of a stanza `(share, body)`, if the stanza is for this identity.
    pub fn unwrap(&self, share: &[u8; 32], body: &[u8; 32]) -> Option<Zeroizing<[u8; 16]>> {
        let secret = self.0.diffie_hellman(&PublicKey::from(*share));
        if !secret.was_contributory() {
            return None;
        }
        let key = stanza_key(secret.as_bytes(), share, &self.recipient().0);
        let cipher = ChaCha20Poly1305::new_from_slice(key.as_ref()).expect("32-byte key");
        let mut buf = Zeroizing::new([0u8; 16]);
        buf.copy_from_slice(&body[..16]);
        let tag: [u8; 16] = body[16..].try_into().expect("16 bytes");
        cipher
            .decrypt_inout_detached(
                &[0u8; 12].into(),
                &[],
                buf.as_mut_slice().into(),
                &tag.into(),
            )
            .ok()?;
        Some(buf)
    }
}

fn stanza_key(secret: &[u8; 32], share: &[u8; 32], recipient: &[u8; 32]) -> Zeroizing<[u8; 32]> {
    let salt = [&share[..], &recipient[..]].concat();
    let hk = Hkdf::<Sha256>::new(Some(&salt), secret);
    let mut key = Zeroizing::new([0u8; 32]);
    hk.expand(STANZA_INFO, key.as_mut())
        .expect("32 bytes is one hash block");
    key
}

/// Wraps `file_key` to `recipient` with the ephemeral secret `ephemeral`: `(share,
/// body)`. `None` when the recipient is a low-order point (no shared secret).
pub fn wrap_with(
    recipient: &Recipient,
    ephemeral: [u8; 32],
    file_key: &[u8; 16],
) -> Option<([u8; 32], [u8; 32])> {
    let e = StaticSecret::from(ephemeral);
    let share = PublicKey::from(&e).to_bytes();
    let secret = e.diffie_hellman(&PublicKey::from(recipient.0));
    if !secret.was_contributory() {
        return None;
    }
    let key = stanza_key(secret.as_bytes(), &share, &recipient.0);
    let cipher = ChaCha20Poly1305::new_from_slice(key.as_ref()).expect("32-byte key");
    let mut buf = Zeroizing::new(*file_key);
    let tag = cipher
        .encrypt_inout_detached(&[0u8; 12].into(), &[], buf.as_mut_slice().into())
        .ok()?;
    let mut body = [0u8; 32];
    body[..16].copy_from_slice(buf.as_ref());
    body[16..].copy_from_slice(&tag);
    Some((share, body))
}

/// One bad line of a recipients or identity file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {error}")]
pub struct LineError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub error: AgeError,
}

/// The items of a file as age reads recipients and identity files: one per line,
/// blank lines and lines starting with `#` skipped.
fn items<T>(text: &str, parse: impl Fn(&str) -> Result<T, AgeError>) -> Result<Vec<T>, LineError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        out.push(parse(t).map_err(|error| LineError { line: i + 1, error })?);
    }
    Ok(out)
}

/// The recipients of a recipients file (`age -R`).
pub fn parse_recipients(text: &str) -> Result<Vec<Recipient>, LineError> {
    items(text, Recipient::parse)
}

/// The identities of an identity file (`age-keygen` output; `age -i`).
pub fn parse_identities(text: &str) -> Result<Vec<Identity>, LineError> {
    items(text, |t| {
        // Bytes, not a str slice: byte 4 need not end a character (`AGEӰ...` panicked,
        // found by the age_files fuzz target).
        if t.len() > 4 && t.as_bytes()[..4].eq_ignore_ascii_case(b"age1") {
            return Err(AgeError::Unsupported(
                "this is an age recipient (a public key, age1...), not an identity: an identity starts AGE-SECRET-KEY-1 (age-keygen writes it, with its public key in a comment)",
            ));
        }
        if t.starts_with("age-encryption.org/") || t.starts_with("-----BEGIN AGE ENCRYPTED") {
            return Err(AgeError::Unsupported(
                "an encrypted identity file (age -p): decrypt it first, for example to a pipe with age -d",
            ));
        }
        if t.starts_with("-----BEGIN") || t.starts_with("ssh-") {
            return Err(AgeError::Unsupported(
                "SSH keys are not supported as identities: use an age X25519 identity (AGE-SECRET-KEY-1...)",
            ));
        }
        Identity::parse(t)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // An identity made by age-keygen (age 1.1.1), and its recipient as age-keygen
    // printed it.
    const ID: &str = "AGE-SECRET-KEY-1Q8THDLU2EMXLSGHEVG3YC0FVS8NZ5WJKSEYN0AKUDQ5V3K5MMGZQW6RHAA";
    const RECIPIENT: &str = "age1zrf9d64dh8gjtawge84mu733jx4x3q4naynyk8gzgrjmkw4m5seql9x34f";
    const OTHER: &str =
        "AGE-SECRET-KEY-1H9K9VTAQPFT74C7AKL6UM5NHYHTXPAALAA5C09P0PPHFTLFQ2A3SPRMS6G";

    #[test]
    fn recipients_and_identities_round_trip_and_wrap() {
        let id = Identity::parse(ID).unwrap();
        let r = id.recipient();
        assert_eq!(r.to_string(), RECIPIENT);
        assert_eq!(Recipient::parse(RECIPIENT).unwrap(), r);
        assert!(r.to_string().starts_with("age1"));
        assert_eq!(r.to_string().len(), 62);
        let fk = [7u8; 16];
        let (share, body) = wrap_with(&r, [9u8; 32], &fk).unwrap();
        assert_eq!(*id.unwrap(&share, &body).unwrap(), fk);
        let other = Identity::parse(OTHER).unwrap();
        assert!(other.unwrap(&share, &body).is_none());
        let mut bad = body;
        bad[0] ^= 1;
        assert!(id.unwrap(&share, &bad).is_none());
        // A low-order share gives no secret: refused, not a zero key.
        assert!(id.unwrap(&[0u8; 32], &body).is_none());
        assert!(wrap_with(&Recipient([0u8; 32]), [9u8; 32], &fk).is_none());
    }

    #[test]
    fn files_name_their_bad_lines() {
        let id = Identity::parse(ID).unwrap();
        let text = format!("# created: now\n# public key: {}\n\n{ID}\n", id.recipient());
        assert_eq!(parse_identities(&text).unwrap().len(), 1);
        let e = parse_identities("# c\nAGE-SECRET-KEY-1QQQ\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(!e.to_string().contains("QQQ"));
        let e = parse_recipients("age1abc\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse_recipients("\nssh-ed25519 AAAA x\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().contains("SSH"));
        // A recipient where an identity belongs, and the other way round.
        let r = id.recipient().to_string();
        assert!(parse_identities(&r).is_err());
        assert!(parse_recipients(ID).is_err());
    }

    /// Lines whose first bytes are not whole characters where the checks for a
    /// recipient or an identity look (the age_files fuzz target's finding: it panicked).
    #[test]
    fn lines_of_any_text_are_errors_not_panics() {
        for line in [
            "AGE\u{4f0}SECRET-KEY-1",
            "AGE-SECRET-KE\u{4f0}Y-1QQQ",
            "a\u{e9}e1xyz",
            "\u{1f600}\u{1f600}",
        ] {
            assert!(parse_identities(line).is_err(), "{line}");
            assert!(parse_recipients(line).is_err(), "{line}");
        }
    }
}
