//! The breach index: Have I Been Pwned "Pwned Passwords" dumps built once into a compact
//! memory-mapped index (`docs/BREACH-FORMAT.md`), then answered in microseconds.

pub mod bodies;
pub mod build;
pub mod bytes;
pub mod checked;
pub mod common;
pub mod compact;
pub mod coverage;
pub mod download;
pub mod error;
pub mod filter;
pub mod format;
pub mod index;
pub mod query;
pub mod ranges;
pub mod serve;
pub mod tier;
pub mod tier_header;

use format::Wide;
use sha1::Digest;

/// The hash functions of the dumps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashKind {
    /// SHA-1 of the password's UTF-8 bytes (40 hex digits).
    Sha1,
    /// NTLM: MD4 of the password in UTF-16LE (32 hex digits).
    Ntlm,
}

/// A password that NTLM cannot hash (it needs text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not valid UTF-8 (NTLM hashes text as UTF-16)")]
pub struct NotUtf8;

impl HashKind {
    /// Bytes of a hash.
    pub fn len(self) -> usize {
        match self {
            HashKind::Sha1 => 20,
            HashKind::Ntlm => 16,
        }
    }

    /// Always false: hashes have a length (for clippy's `len_without_is_empty`).
    pub fn is_empty(self) -> bool {
        false
    }

    /// Hex digits of a hash.
    pub fn hex_len(self) -> usize {
        self.len() * 2
    }

    /// The kind as `--kind` spells it and `--json` output gives it: `sha1`, `ntlm`.
    pub fn id(self) -> &'static str {
        match self {
            HashKind::Sha1 => "sha1",
            HashKind::Ntlm => "ntlm",
        }
    }

    /// The name shown to users.
    pub fn name(self) -> &'static str {
        match self {
            HashKind::Sha1 => "SHA-1",
            HashKind::Ntlm => "NTLM",
        }
    }

    /// The code stored in index headers.
    pub fn code(self) -> u8 {
        match self {
            HashKind::Sha1 => 1,
            HashKind::Ntlm => 2,
        }
    }

    /// The kind of a header code.
    pub fn from_code(code: u8) -> Option<HashKind> {
        match code {
            1 => Some(HashKind::Sha1),
            2 => Some(HashKind::Ntlm),
            _ => None,
        }
    }

    /// The kind whose hashes have this many hex digits.
    pub fn from_hex_len(n: usize) -> Option<HashKind> {
        match n {
            40 => Some(HashKind::Sha1),
            32 => Some(HashKind::Ntlm),
            _ => None,
        }
    }

    /// Hashes a password (the exact bytes given) as the dumps do.
    pub fn hash_password(self, password: &[u8]) -> Result<Wide, NotUtf8> {
        match self {
            HashKind::Sha1 => Ok(Wide::from_be_prefix(&sha1::Sha1::digest(password))),
            HashKind::Ntlm => {
                let text = std::str::from_utf8(password).map_err(|_| NotUtf8)?;
                let mut h = md4::Md4::new();
                let mut buf = [0u8; 2];
                for unit in text.encode_utf16() {
                    buf.copy_from_slice(&unit.to_le_bytes());
                    h.update(buf);
                }
                Ok(Wide::from_be_prefix(&h.finalize()))
            }
        }
    }

    /// Parses a hash in hex (either case), straight into words.
    #[inline]
    pub fn parse_hex(self, text: &[u8]) -> Option<Wide> {
        use crate::hex::{hex16_words, word_at};
        if text.len() != self.hex_len() {
            return None;
        }
        let w0 = hex16_words(word_at(text, 0), word_at(text, 8))?;
        let w1 = hex16_words(word_at(text, 16), word_at(text, 24))?;
        let w2 = match self {
            // Digits 32..40: decode 24..40 (overlapping) and keep the low half.
            HashKind::Sha1 => {
                (hex16_words(word_at(text, 24), word_at(text, 32))? & 0xffff_ffff) << 32
            }
            HashKind::Ntlm => 0,
        };
        Some(Wide([w0, w1, w2]))
    }

    /// Writes a hash as upper-case hex into `out` (at least `hex_len` bytes).
    pub fn write_hex(self, hash: &Wide, out: &mut [u8]) {
        crate::hex::encode_upper(&hash.to_be_bytes()[..self.len()], out);
    }
}

#[cfg(test)]
mod query_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tier_open_tests;
#[cfg(test)]
mod tier_tests;
