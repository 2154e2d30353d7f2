//! Text forms of ids: decimal input, and the 128-bit output as a UUID, hex, Crockford
//! base32 or base62, all fixed width.

use crate::hex::{HEX_VALUES, hex16_words, word_at};

/// How a 128-bit encoded id is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `8-4-4-4-12` lower-case hex (36 characters).
    Uuid,
    /// 32 lower-case hex digits.
    Hex,
    /// 26 characters of Crockford's base32 alphabet, lower case.
    Base32,
    /// 22 characters of `0-9A-Za-z`.
    Base62,
}

/// What is wrong with a piece of text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// Nothing where a value was expected.
    #[error("empty")]
    Empty,
    /// Not a decimal number.
    #[error("not a decimal number")]
    NotDecimal,
    /// A decimal number too large for its field.
    #[error("out of range (at most {max})")]
    OutOfRange {
        /// The largest value allowed.
        max: u64,
    },
    /// The wrong number of characters.
    #[error("expected {expected} characters for {format}, found {found}")]
    Length {
        /// The format's width.
        expected: usize,
        /// The input's length.
        found: usize,
        /// The format's name.
        format: &'static str,
    },
    /// A character outside the format's alphabet.
    #[error("character {position} is not valid {format}")]
    Character {
        /// Its position, counted from 1.
        position: usize,
        /// The format's name.
        format: &'static str,
    },
    /// A value with more than 128 bits.
    #[error("value does not fit in 128 bits")]
    TooLarge,
}

const HEX: &[u8; 16] = b"0123456789abcdef";
const CROCKFORD: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Two hex digits for every byte value.
static HEX_PAIRS: [[u8; 2]; 256] = {
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [HEX[i >> 4], HEX[i & 15]];
        i += 1;
    }
    t
};

static CROCKFORD_VALUES: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 32 {
        let c = CROCKFORD[i];
        t[c as usize] = i as u8;
        t[c.to_ascii_uppercase() as usize] = i as u8;
        i += 1;
    }
    t
};

static BASE62_VALUES: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 62 {
        t[BASE62[i] as usize] = i as u8;
        i += 1;
    }
    t
};

impl Format {
    /// The number of characters.
    pub fn width(self) -> usize {
        match self {
            Format::Uuid => 36,
            Format::Hex => 32,
            Format::Base32 => 26,
            Format::Base62 => 22,
        }
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Uuid => "uuid",
            Format::Hex => "hex",
            Format::Base32 => "base32",
            Format::Base62 => "base62",
        }
    }

    /// Appends the text form of `v` (big-endian bytes) to `out`.
    pub fn write(self, v: &[u8; 16], out: &mut Vec<u8>) {
        let mut s = [0u8; 36];
        let n = self.write_to(v, &mut s);
        out.extend_from_slice(&s[..n]);
    }

    /// Writes the text form of `v` to the start of `dst` (at least 36 bytes) and returns
    /// its width.
    #[inline]
    pub fn write_to(self, v: &[u8; 16], dst: &mut [u8]) -> usize {
        let out = &mut dst[..36];
        match self {
            Format::Uuid => {
                let mut s = [0u8; 36];
                let mut p = 0;
                for (i, b) in v.iter().enumerate() {
                    if matches!(i, 4 | 6 | 8 | 10) {
                        s[p] = b'-';
                        p += 1;
                    }
                    s[p..p + 2].copy_from_slice(&HEX_PAIRS[*b as usize]);
                    p += 2;
                }
                out.copy_from_slice(&s);
                36
            }
            Format::Hex => {
                let mut s = [0u8; 32];
                for (i, b) in v.iter().enumerate() {
                    s[2 * i..2 * i + 2].copy_from_slice(&HEX_PAIRS[*b as usize]);
                }
                out[..32].copy_from_slice(&s);
                32
            }
            Format::Base32 => {
                let x = u128::from_be_bytes(*v);
                let mut s = [0u8; 26];
                for (i, c) in s.iter_mut().enumerate() {
                    let shift = 125 - 5 * i as i32;
                    let digit = if shift >= 0 {
                        (x >> shift) & 31
                    } else {
                        (x << -shift) & 31
                    };
                    *c = CROCKFORD[digit as usize];
                }
                out[..26].copy_from_slice(&s);
                26
            }
            Format::Base62 => {
                // Two u128 divisions by 62^10, then cheap u64 arithmetic.
                const P10: u128 = 839_299_365_868_340_224; // 62^10
                let x = u128::from_be_bytes(*v);
                let (hi, lo) = (x / P10, (x % P10) as u64);
                let (top, mid) = ((hi / P10) as u64, (hi % P10) as u64);
                let mut s = [0u8; 22];
                let fill = |mut n: u64, digits: &mut [u8]| {
                    for c in digits.iter_mut().rev() {
                        *c = BASE62[(n % 62) as usize];
                        n /= 62;
                    }
                };
                fill(top, &mut s[..2]);
                fill(mid, &mut s[2..12]);
                fill(lo, &mut s[12..]);
                out[..22].copy_from_slice(&s);
                22
            }
        }
    }

    /// Parses the text form (either case where the alphabet allows).
    #[inline]
    pub fn parse(self, text: &[u8]) -> Result<[u8; 16], TextError> {
        if text.is_empty() {
            return Err(TextError::Empty);
        }
        if text.len() != self.width() {
            return Err(TextError::Length {
                expected: self.width(),
                found: text.len(),
                format: self.name(),
            });
        }
        let bad = |position: usize| TextError::Character {
            position: position + 1,
            format: self.name(),
        };
        match self {
            Format::Uuid => {
                let dashes =
                    text[8] == b'-' && text[13] == b'-' && text[18] == b'-' && text[23] == b'-';
                if dashes {
                    // 8-4-4-4-12: gather the middle 4-digit groups into 8-digit words,
                    // in registers.
                    let group = |at: usize| {
                        u64::from(u32::from_le_bytes(
                            text[at..at + 4].try_into().expect("4 bytes"),
                        ))
                    };
                    let m1 = group(9) | (group(14) << 32);
                    let m2 = group(19) | (group(24) << 32);
                    if let (Some(hi), Some(lo)) = (
                        hex16_words(word_at(text, 0), m1),
                        hex16_words(m2, word_at(text, 28)),
                    ) {
                        return Ok(((u128::from(hi) << 64) | u128::from(lo)).to_be_bytes());
                    }
                }
                // Find the first bad character for the message.
                let position = (0..36)
                    .find(|&i| {
                        if matches!(i, 8 | 13 | 18 | 23) {
                            text[i] != b'-'
                        } else {
                            HEX_VALUES[text[i] as usize] == 0xff
                        }
                    })
                    .unwrap_or(0);
                Err(bad(position))
            }
            Format::Hex => {
                if let (Some(hi), Some(lo)) = (
                    hex16_words(word_at(text, 0), word_at(text, 8)),
                    hex16_words(word_at(text, 16), word_at(text, 24)),
                ) {
                    return Ok(((u128::from(hi) << 64) | u128::from(lo)).to_be_bytes());
                }
                let position = text
                    .iter()
                    .position(|&c| HEX_VALUES[c as usize] == 0xff)
                    .unwrap_or(0);
                Err(bad(position))
            }
            Format::Base32 => {
                let mut x: u128 = 0;
                for (i, &c) in text.iter().enumerate() {
                    let d = CROCKFORD_VALUES[c as usize];
                    if d == 0xff {
                        return Err(bad(i));
                    }
                    if i == 0 && d > 7 {
                        return Err(TextError::TooLarge);
                    }
                    x = (x << 5) | u128::from(d);
                }
                Ok(x.to_be_bytes())
            }
            Format::Base62 => {
                let mut x: u128 = 0;
                for (i, &c) in text.iter().enumerate() {
                    let d = BASE62_VALUES[c as usize];
                    if d == 0xff {
                        return Err(bad(i));
                    }
                    x = x
                        .checked_mul(62)
                        .and_then(|x| x.checked_add(u128::from(d)))
                        .ok_or(TextError::TooLarge)?;
                }
                Ok(x.to_be_bytes())
            }
        }
    }
}
