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
                crate::hex::encode_uuid(v, (&mut out[..36]).try_into().expect("36 bytes"));
                36
            }
            Format::Hex => {
                crate::hex::encode16_lower(v, (&mut out[..32]).try_into().expect("32 bytes"));
                32
            }
            Format::Base32 => {
                crate::base32::encode(u128::from_be_bytes(*v), &mut out[..26]);
                26
            }
            Format::Base62 => {
                // The `base62` crate's digits (about 2.5x faster than ours were: `cargo
                // bench --bench text_codecs`), left-padded with `0` to the fixed width.
                let mut s = [0u8; 22];
                let n = base62::encode_bytes(u128::from_be_bytes(*v), &mut s)
                    .expect("22 digits hold any 128-bit number");
                out[..22 - n].fill(b'0');
                out[22 - n..22].copy_from_slice(&s[..n]);
                22
            }
        }
    }

    /// Writes each of `values` as a line, `prefix`, its text form and `\n`, at the start
    /// of `dst` (at least `values.len() * (prefix.len() + width + 1)` bytes), and returns
    /// the bytes written: a whole batch of lines in one loop, the UUID and hex digits
    /// written in place.
    pub fn write_lines(self, values: &[[u8; 16]], prefix: &[u8], dst: &mut [u8]) -> usize {
        #[cfg(target_arch = "x86_64")]
        if self == Format::Uuid && crate::hex::has_ssse3() {
            // SAFETY: the CPU has SSSE3 (checked just above).
            #[allow(unsafe_code)]
            return unsafe { write_uuid_lines_ssse3(values, prefix, dst) };
        }
        let (p, width) = (prefix.len(), self.width());
        let w = p + width + 1;
        let dst = &mut dst[..values.len() * w];
        for (v, line) in values.iter().zip(dst.chunks_exact_mut(w)) {
            if p > 0 {
                line[..p].copy_from_slice(prefix);
            }
            let text = &mut line[p..p + width];
            match self {
                Format::Uuid => crate::hex::encode_uuid(v, text.try_into().expect("36 bytes")),
                Format::Hex => crate::hex::encode16_lower(v, text.try_into().expect("32 bytes")),
                Format::Base32 | Format::Base62 => {
                    let mut s = [0u8; 36];
                    self.write_to(v, &mut s);
                    text.copy_from_slice(&s[..width]);
                }
            }
            line[p + width] = b'\n';
        }
        values.len() * w
    }

    /// Parses the text form (either case where the alphabet allows). A good UUID is read
    /// inline at the call (the decode stream reads one per line); every other form, and
    /// every error, in [`Format::parse_any`].
    #[inline(always)]
    pub fn parse(self, text: &[u8]) -> Result<[u8; 16], TextError> {
        if let (Format::Uuid, Ok(t)) = (self, <&[u8; 36]>::try_from(text))
            && let Some(v) = crate::hex::decode_uuid(t)
        {
            return Ok(v);
        }
        self.parse_any(text)
    }

    /// The rest of [`Format::parse`]: every form but UUID text that reads, and every
    /// error (a UUID reaches here only when its fast read failed).
    #[inline(never)]
    fn parse_any(self, text: &[u8]) -> Result<[u8; 16], TextError> {
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
                // `parse` read it already and failed: find the first bad character.
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
            Format::Base32 => match crate::base32::decode(text, u128::MAX) {
                Ok(x) => Ok(x.to_be_bytes()),
                Err(crate::base32::Error::Character(i)) => Err(bad(i)),
                Err(crate::base32::Error::TooLarge) => Err(TextError::TooLarge),
            },
            Format::Base62 => match base62::decode(text) {
                Ok(x) => Ok(x.to_be_bytes()),
                Err(base62::DecodeError::InvalidBase62Byte(_, i)) => Err(bad(i)),
                Err(base62::DecodeError::ArithmeticOverflow) => Err(TextError::TooLarge),
                Err(base62::DecodeError::EmptyInput) => Err(TextError::Empty),
            },
        }
    }
}

/// [`Format::write_lines`] for UUIDs, compiled with SSSE3 so that its shuffles are
/// inlined into the loop: the same bytes.
///
/// # Safety
/// The CPU must support SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
#[allow(unsafe_code)]
unsafe fn write_uuid_lines_ssse3(values: &[[u8; 16]], prefix: &[u8], dst: &mut [u8]) -> usize {
    let p = prefix.len();
    let w = p + 37;
    let dst = &mut dst[..values.len() * w];
    for (v, line) in values.iter().zip(dst.chunks_exact_mut(w)) {
        if p > 0 {
            line[..p].copy_from_slice(prefix);
        }
        let text: &mut [u8; 36] = (&mut line[p..p + 36]).try_into().expect("36 bytes");
        // SAFETY: this function has SSSE3 enabled.
        unsafe { crate::hex::encode_uuid_ssse3(v, text) };
        line[p + 36] = b'\n';
    }
    values.len() * w
}
