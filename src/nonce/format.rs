//! Text forms of nonces: hex, base64, Crockford base32, decimal, and raw bytes.

use super::Width;
use base64::Engine;

/// How nonces are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Lower-case hex, fixed width.
    Hex,
    /// RFC 4648 base64 with padding.
    Base64,
    /// Crockford's base32, lower case, fixed width.
    Base32,
    /// The integer in decimal.
    Decimal,
    /// Big-endian bytes, back to back.
    Binary,
}

/// Why a text could not be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a {width}-bit nonce in {format}")]
pub struct ParseError {
    width: u32,
    format: &'static str,
}

impl Format {
    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Hex => "hex",
            Format::Base64 => "base64",
            Format::Base32 => "base32",
            Format::Decimal => "decimal",
            Format::Binary => "binary",
        }
    }

    /// Appends value `v` of `width` (and, for text forms, a newline) to `out`.
    #[inline]
    pub fn write(self, width: Width, v: u128, out: &mut Vec<u8>) {
        let n = width.bytes();
        let bytes = v.to_be_bytes();
        let be = &bytes[16 - n..];
        match self {
            Format::Binary => return out.extend_from_slice(be),
            Format::Hex => {
                let mut s = [0u8; 32];
                crate::hex::encode_lower(be, &mut s);
                out.extend_from_slice(&s[..2 * n]);
            }
            Format::Base64 => {
                let mut s = [0u8; 24];
                let len = base64::engine::general_purpose::STANDARD
                    .encode_slice(be, &mut s)
                    .expect("24 bytes hold 16 encoded");
                out.extend_from_slice(&s[..len]);
            }
            Format::Base32 => {
                let digits = (width.bits() as usize).div_ceil(5);
                let mut s = [0u8; 26];
                crate::base32::encode(v, &mut s[..digits]);
                out.extend_from_slice(&s[..digits]);
            }
            Format::Decimal => {
                let mut buf = itoa::Buffer::new();
                out.extend_from_slice(buf.format(v).as_bytes());
            }
        }
        out.push(b'\n');
    }

    /// Appends many values (as [`write`](Format::write) does for each), with fixed-size
    /// writes into a buffer sized once for the common forms.
    pub fn write_many(self, width: Width, values: &[u128], out: &mut Vec<u8>) {
        let n = width.bytes();
        match self {
            Format::Binary => {
                let start = out.len();
                out.resize(start + values.len() * n, 0);
                for (dst, v) in out[start..].chunks_exact_mut(n).zip(values) {
                    dst.copy_from_slice(&v.to_be_bytes()[16 - n..]);
                }
            }
            Format::Hex => {
                let line = 2 * n + 1;
                let start = out.len();
                out.resize(start + values.len() * line, 0);
                for (dst, v) in out[start..].chunks_exact_mut(line).zip(values) {
                    crate::hex::encode_lower(&v.to_be_bytes()[16 - n..], dst);
                    dst[2 * n] = b'\n';
                }
            }
            _ => {
                for &v in values {
                    self.write(width, v, out);
                }
            }
        }
    }

    /// Reads one text form back (not binary).
    pub fn parse(self, width: Width, text: &[u8]) -> Result<u128, ParseError> {
        let err = ParseError {
            width: width.bits(),
            format: self.name(),
        };
        let n = width.bytes();
        let max = if width.bits() == 128 {
            u128::MAX
        } else {
            (1u128 << width.bits()) - 1
        };
        let v = match self {
            Format::Hex => {
                if text.len() != 2 * n {
                    return Err(err);
                }
                let mut b = [0u8; 16];
                if !crate::hex::decode(text, &mut b[16 - n..]) {
                    return Err(err);
                }
                u128::from_be_bytes(b)
            }
            Format::Base64 => {
                let mut b = [0u8; 18];
                let len = base64::engine::general_purpose::STANDARD
                    .decode_slice(text, &mut b)
                    .map_err(|_| err.clone())?;
                if len != n {
                    return Err(err);
                }
                let mut full = [0u8; 16];
                full[16 - n..].copy_from_slice(&b[..n]);
                u128::from_be_bytes(full)
            }
            Format::Base32 => {
                let digits = (width.bits() as usize).div_ceil(5);
                if text.len() != digits {
                    return Err(err);
                }
                crate::base32::decode(text, max).map_err(|_| err.clone())?
            }
            Format::Decimal => {
                let s = std::str::from_utf8(text).map_err(|_| err.clone())?;
                if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
                    return Err(err);
                }
                s.parse::<u128>().map_err(|_| err.clone())?
            }
            Format::Binary => return Err(err),
        };
        if v > max {
            return Err(err);
        }
        Ok(v)
    }
}
