//! Text forms of ids: decimal input, and the 128-bit output as a UUID, hex, Crockford
//! base32 or base62, all fixed width.

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

/// The value of every byte as a hex digit, or 0xff.
static HEX_VALUES: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
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

/// Decodes 8 hex digits (either case) into a 32-bit value, first digit most significant,
/// or `None` if any byte is not a hex digit. SWAR: all eight at once in a 64-bit word.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn hex8(text: &[u8]) -> Option<u32> {
    hex8_word(u64::from_le_bytes(text[..8].try_into().expect("8 bytes")))
}

/// [`hex8`] on the 8 bytes of a little-endian word.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn hex8_word(word: u64) -> Option<u32> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Every byte must be ASCII; below 0x80 the per-byte sums below cannot carry into
    // the next byte (or out of the word).
    if word & HIGH != 0 {
        return None;
    }
    // Digits are checked as they are; letters after lower-casing (which maps only
    // A-F onto a-f within the a-f range).
    let x = word | (0x20 * ONES);
    let is_digit = (word + (0x80 - 0x30) * ONES) & !(word + (0x80 - 0x3a) * ONES);
    let is_af = (x + (0x80 - 0x61) * ONES) & !(x + (0x80 - 0x67) * ONES);
    if (is_digit | is_af) & HIGH != HIGH {
        return None;
    }
    // Nibble values: low 4 bits, plus 9 for letters (bit 6 set).
    let v = (x & (0x0f * ONES)) + 9 * ((x >> 6) & ONES);
    // Pairs of nibbles into bytes (first digit high), then bytes into a big-endian u32.
    let p = ((v & 0x000f_000f_000f_000f) << 4) | ((v >> 8) & 0x000f_000f_000f_000f);
    let r = (p | (p >> 8)) & 0x0000_ffff_0000_ffff;
    let r = ((r | (r >> 16)) & 0xffff_ffff) as u32;
    Some(r.swap_bytes())
}

/// Decodes 16 hex digits held in two little-endian words (`a` first) into a 64-bit
/// value, first digit most significant.
#[inline(always)]
fn hex16_words(a: u64, b: u64) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 CPU has it.
        #[allow(unsafe_code)]
        unsafe {
            sse2::hex16(a, b)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Some((u64::from(hex8_word(a)?) << 32) | u64::from(hex8_word(b)?))
    }
}

fn word_at(text: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(text[at..at + 8].try_into().expect("8 bytes"))
}

/// SSE2 (part of every x86-64 CPU): 16 hex digits per vector.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn hex16(a: u64, b: u64) -> Option<u64> {
        let x = _mm_set_epi64x(b as i64, a as i64);
        #[inline]
        #[target_feature(enable = "sse2")]
        fn splat(c: u8) -> __m128i {
            _mm_set1_epi8(c as i8)
        }
        // Signed compares: bytes >= 0x80 are negative, so they fail both ranges.
        let digit = _mm_and_si128(
            _mm_cmpgt_epi8(x, splat(b'0' - 1)),
            _mm_cmplt_epi8(x, splat(b'9' + 1)),
        );
        let lower = _mm_or_si128(x, splat(0x20));
        let letter = _mm_and_si128(
            _mm_cmpgt_epi8(lower, splat(b'a' - 1)),
            _mm_cmplt_epi8(lower, splat(b'f' + 1)),
        );
        if _mm_movemask_epi8(_mm_or_si128(digit, letter)) != 0xffff {
            return None;
        }
        // Nibble values: low 4 bits, plus 9 for letters.
        let v = _mm_add_epi8(
            _mm_and_si128(lower, splat(0x0f)),
            _mm_and_si128(letter, splat(9)),
        );
        // Each 16-bit lane holds (first, second) digit: first << 4 | second.
        let first = _mm_and_si128(v, _mm_set1_epi16(0x00ff));
        let second = _mm_srli_epi16(v, 8);
        let bytes = _mm_or_si128(_mm_slli_epi16(first, 4), second);
        let packed = _mm_packus_epi16(bytes, bytes);
        Some((_mm_cvtsi128_si64(packed) as u64).swap_bytes())
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The SWAR decoder against the table, on every byte in every position.
    #[test]
    fn hex8_agrees_with_the_table_on_every_byte() {
        for pos in 0..8 {
            for c in 0..=255u8 {
                let mut t = *b"0123abcD";
                t[pos] = c;
                let want = t.iter().try_fold(0u32, |acc, &c| {
                    let v = HEX_VALUES[c as usize];
                    (v != 0xff).then_some((acc << 4) | u32::from(v))
                });
                assert_eq!(hex8(&t), want, "byte {c:#x} at {pos}");
            }
        }
        assert_eq!(hex8(b"deadBEEF"), Some(0xdead_beef));
        // The vector decoder agrees with the word decoder on every byte.
        for pos in 0..16 {
            for c in 0..=255u8 {
                let mut t = *b"0123456789abcDEF";
                t[pos] = c;
                let (a, b) = (word_at(&t, 0), word_at(&t, 8));
                let want = hex8_word(a)
                    .zip(hex8_word(b))
                    .map(|(x, y)| (u64::from(x) << 32) | u64::from(y));
                assert_eq!(hex16_words(a, b), want, "byte {c:#x} at {pos}");
            }
        }
        assert_eq!(hex8(b"00000000"), Some(0));
        assert_eq!(hex8(b"ffffffff"), Some(u32::MAX));
    }
}
