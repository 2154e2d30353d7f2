//! Decimal ids and nonces read from text: [`parse_decimal`], the definition, and
//! [`parse_decimal_in`], the same answer for a number inside a larger buffer, eight digits
//! at a time (the whole-line `encode` stream reads its ids with it: byte by byte, parsing
//! was a fifth of that command's time).

use super::text::TextError;

/// Parses a decimal number: ASCII digits only, leading zeros allowed (however many),
/// at most `u64::MAX`.
pub fn parse_decimal(text: &[u8]) -> Result<u64, TextError> {
    if text.is_empty() {
        return Err(TextError::Empty);
    }
    if text.len() > 20 {
        if !text.iter().all(u8::is_ascii_digit) {
            return Err(TextError::NotDecimal);
        }
        // Leading zeros are read as in a short number ("007" is 7), however many.
        let first = text
            .iter()
            .position(|&c| c != b'0')
            .unwrap_or(text.len() - 1);
        if text.len() - first > 20 {
            return Err(TextError::OutOfRange { max: u64::MAX });
        }
        return parse_decimal(&text[first..]);
    }
    let mut v: u64 = 0;
    for &c in text {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return Err(TextError::NotDecimal);
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or(TextError::OutOfRange { max: u64::MAX })?;
    }
    Ok(v)
}

/// [`parse_decimal`] of `buf[start..end]`, always the same answer. A number of 1 to 16
/// digits with at least 8 (or 16) bytes of `buf` ending where it ends is read from those
/// bytes as one (or two) 64-bit words; anything else, and every error, goes through
/// [`parse_decimal`].
#[inline(always)]
pub fn parse_decimal_in(buf: &[u8], start: usize, end: usize) -> Result<u64, TextError> {
    let len = end.wrapping_sub(start);
    if (1..=8).contains(&len) && end >= 8 && end <= buf.len() {
        if let Some(v) = last_digits(word_ending_at(buf, end), len) {
            return Ok(v);
        }
    } else if (9..=16).contains(&len) && end >= 16 && end <= buf.len() {
        let high = last_digits(word_ending_at(buf, end - 8), len - 8);
        let low = last_digits(word_ending_at(buf, end), 8);
        if let (Some(h), Some(l)) = (high, low) {
            // At most 16 digits: below 10^16, no overflow.
            return Ok(h * 100_000_000 + l);
        }
    }
    parse_decimal(&buf[start..end])
}

/// The 8 bytes of `buf` that end at `end`, as a little-endian word (the last byte is the
/// most significant).
#[inline(always)]
fn word_ending_at(buf: &[u8], end: usize) -> u64 {
    u64::from_le_bytes(buf[end - 8..end].try_into().expect("8 bytes"))
}

/// The value of the last `len` (1 to 8) bytes of the little-endian word `w` read as
/// decimal digits, or `None` if one of them is not a digit. SWAR: the bytes before the
/// number become `'0'`s (leading zeros), all eight are checked at once, then combined
/// in three multiplications (pairs, fours, eights).
#[inline(always)]
fn last_digits(w: u64, len: usize) -> Option<u64> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH_NIBBLES: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    debug_assert!((1..=8).contains(&len));
    let keep = u64::MAX << (8 * (8 - len) as u32);
    let w = (w & keep) | ((0x30 * ONES) & !keep);
    // A digit's high nibble is 3, and stays 3 when 6 is added (0x3a..0x3f become 0x4_).
    // A byte of 0xfa or above carries into the next byte when 6 is added, but it has
    // already failed the first test.
    if w & HIGH_NIBBLES != 0x30 * ONES || w.wrapping_add(6 * ONES) & HIGH_NIBBLES != 0x30 * ONES {
        return None;
    }
    // The first digit is in the lowest byte.
    let v = (w & (0x0f * ONES)).wrapping_mul(10 * 256 + 1) >> 8;
    let v = (v & 0x00ff_00ff_00ff_00ff).wrapping_mul(100 * 65_536 + 1) >> 16;
    Some((v & 0x0000_ffff_0000_ffff).wrapping_mul(10_000 * (1 << 32) + 1) >> 32)
}

/// Writes `v` in decimal at the start of `dst` (at least 20 bytes; bytes after the
/// number may be overwritten) and returns its length. Below 10^8, one 8-byte store.
#[inline(always)]
pub fn write_decimal(v: u64, dst: &mut [u8]) -> usize {
    let dst = &mut dst[..20];
    if v < 100_000_000 {
        let (digits, len) = eight_digits(v as u32);
        dst[..8].copy_from_slice(&digits.to_le_bytes());
        return len;
    }
    write_long(v, dst)
}

static DIGIT_PAIRS: [[u8; 2]; 100] = {
    let mut t = [[0u8; 2]; 100];
    let mut i = 0;
    while i < 100 {
        t[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    t
};

/// The decimal digits of `n < 10^8` as ASCII in a little-endian word (first digit in the
/// lowest byte), and their number. SWAR: the eight digits are computed together.
#[inline(always)]
fn eight_digits(n: u32) -> (u64, usize) {
    debug_assert!(n < 100_000_000);
    // Two 4-digit halves in 32-bit lanes: [n / 10^4, n % 10^4].
    let x = u64::from(n / 10_000) | (u64::from(n % 10_000) << 32);
    // Each lane / 100 (exact below 43699): 16-bit lanes [hi/100, hi%100, lo/100, lo%100].
    let q = ((x * 5243) >> 19) & 0x0000_007f_0000_007f;
    let y = q | ((x - q * 100) << 16);
    // Each 16-bit lane / 10 (exact below 179): bytes, most significant digit first.
    let t = ((y * 103) >> 10) & 0x000f_000f_000f_000f;
    let z = t | ((y - t * 10) << 8);
    // Leading zero digits are the low zero bytes of z; "0" keeps one digit.
    let lead = ((z.trailing_zeros() / 8) as usize).min(7);
    let ascii = z + 0x3030_3030_3030_3030;
    (ascii >> (8 * lead), 8 - lead)
}

#[inline(never)]
fn write_long(v: u64, dst: &mut [u8]) -> usize {
    // Digits right-aligned in the middle of a scratch array, four per step, then one
    // fixed 20-byte copy from a variable offset; bytes past the number are
    // overwritten by later writes.
    let mut tmp = [0u8; 60];
    let mut i = 40;
    let mut n = v;
    while n >= 10_000 {
        let rem = (n % 10_000) as usize;
        n /= 10_000;
        tmp[i - 2..i].copy_from_slice(&DIGIT_PAIRS[rem % 100]);
        tmp[i - 4..i - 2].copy_from_slice(&DIGIT_PAIRS[rem / 100]);
        i -= 4;
    }
    let mut n = n as usize;
    if n >= 100 {
        tmp[i - 2..i].copy_from_slice(&DIGIT_PAIRS[n % 100]);
        n /= 100;
        i -= 2;
    }
    if n >= 10 {
        tmp[i - 2..i].copy_from_slice(&DIGIT_PAIRS[n]);
        i -= 2;
    } else {
        tmp[i - 1] = b'0' + n as u8;
        i -= 1;
    }
    dst[..20].copy_from_slice(&tmp[i..i + 20]);
    40 - i
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn decimals() {
        assert_eq!(parse_decimal(b"0"), Ok(0));
        assert_eq!(parse_decimal(b"007"), Ok(7));
        assert_eq!(parse_decimal(b"18446744073709551615"), Ok(u64::MAX));
        assert!(parse_decimal(b"18446744073709551616").is_err());
        assert!(parse_decimal(b"99999999999999999999999").is_err());
        assert_eq!(parse_decimal(b"000000000000000000000000007"), Ok(7));
        assert_eq!(parse_decimal(b"000000000000000000000000000"), Ok(0));
        assert_eq!(parse_decimal(b"0000018446744073709551615"), Ok(u64::MAX));
        assert!(parse_decimal(b"0000018446744073709551616").is_err());
        assert!(parse_decimal(b"00000000000000000000000x1").is_err());
        assert!(parse_decimal(b"-1").is_err());
        assert!(parse_decimal(b" 1").is_err());
        assert!(parse_decimal(b"").is_err());
        assert!(parse_decimal(b"1e3").is_err());
        // The bytes either side of the digits, inside a number, alone, and in the
        // leading-zeros path.
        for text in [
            &b"1:2"[..],
            b"1/2",
            b":",
            b"/",
            b"9:",
            b"/0",
            b"0000000000000000000000:",
        ] {
            assert_eq!(parse_decimal(text), Err(TextError::NotDecimal), "{text:?}");
        }
    }

    /// Every number of 1 to 16 digits at the end of a buffer, with every byte around it.
    #[test]
    fn words_read_what_bytes_read() {
        let check = |buf: &[u8], start: usize| {
            let end = buf.len();
            assert_eq!(
                parse_decimal_in(buf, start, end),
                parse_decimal(&buf[start..end]),
                "{:?}",
                String::from_utf8_lossy(&buf[start..])
            );
        };
        for len in 1..=16usize {
            for value in [
                0u64,
                1,
                9,
                10,
                99_999_999,
                100_000_000,
                1_234_567_890_123_456,
            ] {
                let digits = format!("{value:0len$}");
                if digits.len() != len {
                    continue;
                }
                for before in [b'\n', b'0', b'9', b' ', 0xff] {
                    let mut buf = vec![before; 16];
                    buf.extend_from_slice(digits.as_bytes());
                    check(&buf, 16);
                    // One byte of the number changed to each value a byte can have.
                    for at in 0..len {
                        for c in 0..=255u8 {
                            let mut bad = buf.clone();
                            bad[16 + at] = c;
                            check(&bad, 16);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn eight_digit_formatting_matches_itoa() {
        let check = |n: u32| {
            let (w, len) = eight_digits(n);
            let bytes = w.to_le_bytes();
            assert_eq!(&bytes[..len], n.to_string().as_bytes(), "{n}");
        };
        for n in (0..200_000).chain(99_800_000..100_000_000) {
            check(n);
        }
        let mut x = 0x9e37_79b9u32;
        for _ in 0..1_000_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            check(x % 100_000_000);
        }
        for p in 0..8 {
            check(10u32.pow(p));
            check(10u32.pow(p) - 1);
        }
    }

    #[test]
    fn long_decimals_are_written_whole() {
        for v in [0, 7, 99_999_999, 100_000_000, 123_456_789_012, u64::MAX] {
            let mut dst = [b'x'; 20];
            let n = write_decimal(v, &mut dst);
            assert_eq!(&dst[..n], v.to_string().as_bytes());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any slice of any buffer, mostly digits, reads as `parse_decimal` reads it.
        #[test]
        fn in_a_buffer_as_alone(
            buf in proptest::collection::vec(
                prop_oneof![8 => b'0'..=b'9', 1 => any::<u8>()], 0..40),
            a in 0usize..40,
            b in 0usize..40,
        ) {
            let (start, end) = (a.min(b).min(buf.len()), a.max(b).min(buf.len()));
            prop_assert_eq!(parse_decimal_in(&buf, start, end), parse_decimal(&buf[start..end]));
        }

        /// Mostly digits and the bytes next to them: read as the standard library reads
        /// a string of ASCII digits alone.
        #[test]
        fn as_the_standard_library_reads_digits(
            text in proptest::collection::vec(
                prop_oneof![8 => b'0'..=b'9', 1 => b'.'..=b'@'], 0..30),
        ) {
            let reference = if !text.is_empty() && text.iter().all(u8::is_ascii_digit) {
                std::str::from_utf8(&text).expect("digits").parse::<u64>().ok()
            } else {
                None
            };
            prop_assert_eq!(parse_decimal(&text).ok(), reference);
        }
    }
}
