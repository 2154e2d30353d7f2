//! Crockford's base32 of an unsigned number, fixed width, the one implementation that
//! ids (`--format base32`) and nonces (`--format base32`) share.
//!
//! Written: the number's digits, most significant first, from the lower-case alphabet
//! `0123456789abcdefghjkmnpqrstvwxyz`, left-padded with `0` to the width (so the first
//! digit of a 128-bit value in 26 digits holds its top 3 bits). Read: either case, and
//! Crockford's decoding aliases `I`, `i`, `L`, `l` for `1` and `O`, `o` for `0` (the
//! letters a person may read or type for those digits); `U` and any other byte are
//! errors, as are the check symbols and hyphens Crockford allows (never written here).

/// The alphabet, lower case.
pub const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// The value of every byte as a digit, or 0xff.
static VALUES: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 32 {
        let c = ALPHABET[i];
        t[c as usize] = i as u8;
        t[c.to_ascii_uppercase() as usize] = i as u8;
        i += 1;
    }
    t[b'i' as usize] = 1;
    t[b'I' as usize] = 1;
    t[b'l' as usize] = 1;
    t[b'L' as usize] = 1;
    t[b'o' as usize] = 0;
    t[b'O' as usize] = 0;
    t
};

/// Why a text is not a number in base32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// The byte at this position (from 0) is not a digit.
    Character(usize),
    /// The digits stand for a number above the largest the caller allows.
    TooLarge,
}

/// Writes the `out.len()` low digits of `v` into `out` (the caller chooses a width that
/// holds the value: 13 for 64 bits, 20 for 96, 26 for 128).
#[inline]
pub fn encode(v: u128, out: &mut [u8]) {
    let digits = out.len();
    for (i, c) in out.iter_mut().enumerate() {
        let shift = 5 * (digits - 1 - i);
        let d = if shift >= 128 { 0 } else { (v >> shift) & 31 };
        *c = ALPHABET[d as usize];
    }
}

/// Reads a number of at most `max`. Twelve digits (60 bits) at a time in a 64-bit word,
/// so that the 128-bit arithmetic runs once per twelve digits.
#[inline]
pub fn decode(text: &[u8], max: u128) -> Result<u128, Error> {
    let mut v: u128 = 0;
    for (k, chunk) in text.chunks(12).enumerate() {
        let mut w: u64 = 0;
        let mut seen = 0u8;
        for &c in chunk {
            let d = VALUES[c as usize];
            seen |= d;
            w = (w << 5) | u64::from(d & 31);
        }
        if seen & 0x80 != 0 {
            let i = chunk
                .iter()
                .position(|&c| VALUES[c as usize] == 0xff)
                .expect("a byte that is not a digit");
            return Err(Error::Character(12 * k + i));
        }
        let bits = 5 * chunk.len() as u32;
        if v >> (128 - bits) != 0 {
            return Err(Error::TooLarge);
        }
        v = (v << bits) | u128::from(w);
    }
    if v > max {
        return Err(Error::TooLarge);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference: repeated division, as the definition reads.
    fn reference(mut v: u128, digits: usize) -> Vec<u8> {
        let mut out = vec![b'0'; digits];
        for c in out.iter_mut().rev() {
            *c = ALPHABET[(v % 32) as usize];
            v /= 32;
        }
        out
    }

    proptest! {
        #[test]
        fn encode_matches_the_definition_and_decodes_back(v in any::<u128>(), bits in prop_oneof![Just(64u32), Just(96), Just(128)]) {
            let v = if bits == 128 { v } else { v & ((1u128 << bits) - 1) };
            let max = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
            let digits = (bits as usize).div_ceil(5);
            let mut out = vec![0u8; digits];
            encode(v, &mut out);
            prop_assert_eq!(&out, &reference(v, digits));
            prop_assert_eq!(decode(&out, max), Ok(v));
            prop_assert_eq!(decode(&out.to_ascii_uppercase(), max), Ok(v));
        }
    }

    #[test]
    fn aliases_and_errors() {
        assert_eq!(decode(b"1O", u128::MAX), Ok(32));
        assert_eq!(decode(b"il", u128::MAX), decode(b"11", u128::MAX));
        assert_eq!(decode(b"LO", u128::MAX), Ok(32));
        assert_eq!(decode(b"1u", u128::MAX), Err(Error::Character(1)));
        assert_eq!(decode(b"1-", u128::MAX), Err(Error::Character(1)));
        // 26 digits: the first holds 3 bits.
        assert_eq!(
            decode(b"7zzzzzzzzzzzzzzzzzzzzzzzzz", u128::MAX),
            Ok(u128::MAX)
        );
        assert_eq!(
            decode(b"8zzzzzzzzzzzzzzzzzzzzzzzzz", u128::MAX),
            Err(Error::TooLarge)
        );
        assert_eq!(decode(b"g", 15), Err(Error::TooLarge));
    }
}
