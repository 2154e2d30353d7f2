//! Hex, the one implementation every module uses. Decoding for the hot paths (ids,
//! breach hashes): 16 digits per SSE2 vector on x86-64 (part of the baseline, so no
//! run-time detection), 8 per 64-bit word elsewhere, with the lookup table as the
//! reference; kept because `cargo bench --features bench --bench text_codecs` shows it faster than
//! `const-hex` on the 40-digit hashes of breach queries (6 ns against 10-13 ns) and on
//! par on 32-digit ids. Encoding is `const-hex`'s, which that benchmark shows faster.

/// The value of every byte as a hex digit, or 0xff.
pub(crate) static HEX_VALUES: [u8; 256] = {
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

/// Decodes 8 hex digits (either case) into a 32-bit value, first digit most significant,
/// or `None` if any byte is not a hex digit. SWAR: all eight at once in a 64-bit word.
#[cfg(test)]
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
pub(crate) fn hex16_words(a: u64, b: u64) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::hex16(a, b)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Some((u64::from(hex8_word(a)?) << 32) | u64::from(hex8_word(b)?))
    }
}

pub(crate) fn word_at(text: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(text[at..at + 8].try_into().expect("8 bytes"))
}

/// SSE2 (part of every x86-64 CPU): 16 hex digits per vector. The functions are safe
/// and always inlined (a `#[target_feature]` function is a call at each use, which cost
/// the ids stream a tenth of its time); each keeps its intrinsics in one `unsafe` block,
/// sound because this module is compiled for x86-64 only, where SSE2 is the baseline.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    #[inline(always)]
    pub(super) fn hex16(a: u64, b: u64) -> Option<u64> {
        // SAFETY: SSE2 is part of the x86-64 baseline; no memory is accessed.
        #[allow(unsafe_code)]
        let x = unsafe { _mm_set_epi64x(b as i64, a as i64) };
        hex16_vector(x)
    }

    /// The 16 hex digits (either case) in the bytes of `x`, first digit most
    /// significant, or `None` if one is not a hex digit.
    #[inline(always)]
    fn hex16_vector(x: __m128i) -> Option<u64> {
        // SAFETY: SSE2 is part of the x86-64 baseline; no memory is accessed.
        #[allow(unsafe_code)]
        unsafe {
            let splat = |c: u8| _mm_set1_epi8(c as i8);
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

    static DIGITS_A: [[u8; 16]; 4] = [
        bytes(0xff, 0, 8),
        bytes(0xff, 8, 12),
        bytes(0xff, 12, 14),
        bytes(0xff, 14, 16),
    ];
    static DIGITS_B: [[u8; 16]; 2] = [bytes(0xff, 0, 4), bytes(0xff, 4, 12)];

    /// The 16 bytes of a UUID's text (8-4-4-4-12 hex digits, either case), or `None`.
    #[inline(always)]
    pub(super) fn decode_uuid(text: &[u8; 36]) -> Option<[u8; 16]> {
        if text[8] != b'-' || text[13] != b'-' || text[18] != b'-' || text[23] != b'-' {
            return None;
        }
        // The digits closed up into two vectors, the inverse of `encode_uuid`:
        // a = c0..c7 c9..c12 c14..c17, b = c19..c22 c24..c35 (c: the text's bytes).
        // SAFETY: SSE2 is part of the x86-64 baseline; `text` is 36 readable bytes (16
        // loaded at 0 and at 16, unaligned), as are the 16-byte constants.
        #[allow(unsafe_code)]
        let (a, b) = unsafe {
            let vector = |m: &[u8; 16]| _mm_loadu_si128(m.as_ptr().cast());
            let x0 = _mm_loadu_si128(text.as_ptr().cast());
            let x1 = _mm_loadu_si128(text.as_ptr().add(16).cast());
            let tail = u32::from_le_bytes([text[32], text[33], text[34], text[35]]);
            let a = _mm_or_si128(
                _mm_or_si128(
                    _mm_and_si128(x0, vector(&DIGITS_A[0])),
                    _mm_and_si128(_mm_srli_si128(x0, 1), vector(&DIGITS_A[1])),
                ),
                _mm_or_si128(
                    _mm_and_si128(_mm_srli_si128(x0, 2), vector(&DIGITS_A[2])),
                    _mm_and_si128(_mm_slli_si128(x1, 14), vector(&DIGITS_A[3])),
                ),
            );
            let b = _mm_or_si128(
                _mm_or_si128(
                    _mm_and_si128(_mm_srli_si128(x1, 3), vector(&DIGITS_B[0])),
                    _mm_and_si128(_mm_srli_si128(x1, 4), vector(&DIGITS_B[1])),
                ),
                _mm_slli_si128(_mm_cvtsi32_si128(tail as i32), 12),
            );
            (a, b)
        };
        let (hi, lo) = (hex16_vector(a)?, hex16_vector(b)?);
        Some(((u128::from(hi) << 64) | u128::from(lo)).to_be_bytes())
    }

    /// The 32 lower-case hex digits of `v`, first byte first, in two vectors.
    #[inline(always)]
    fn digits(v: &[u8; 16]) -> (__m128i, __m128i) {
        // SAFETY: SSE2 is part of the x86-64 baseline; `v` is 16 readable bytes and the
        // load is unaligned.
        #[allow(unsafe_code)]
        nibbles_in(unsafe { _mm_loadu_si128(v.as_ptr().cast()) }, b'a')
    }

    /// The 32 hex digits of the 16 bytes of `x`, first byte first, in two vectors, with
    /// letters from `a` (`b'a'` or `b'A'`).
    #[inline(always)]
    fn nibbles_in(x: __m128i, a: u8) -> (__m128i, __m128i) {
        // SAFETY: SSE2 is part of the x86-64 baseline; no memory is touched.
        #[allow(unsafe_code)]
        unsafe {
            let low4 = _mm_set1_epi8(0x0f);
            let high = _mm_and_si128(_mm_srli_epi16(x, 4), low4);
            let low = _mm_and_si128(x, low4);
            // Nibble n becomes '0' + n, plus a - '0' - 10 (39 for 'a', 7 for 'A') when n > 9.
            let gap = _mm_set1_epi8((a - b'0' - 10) as i8);
            let ascii = |n: __m128i| {
                let letter = _mm_and_si128(_mm_cmpgt_epi8(n, _mm_set1_epi8(9)), gap);
                _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8(b'0' as i8)), letter)
            };
            (
                ascii(_mm_unpacklo_epi8(high, low)),
                ascii(_mm_unpackhi_epi8(high, low)),
            )
        }
    }

    /// [`encode_uuid`] with SSSE3's byte shuffles: the digits looked up sixteen at a
    /// time, and the dashes opened up by one shuffle per 16 bytes of text.
    ///
    /// # Safety
    /// The CPU must support SSSE3.
    #[target_feature(enable = "ssse3")]
    #[inline]
    #[allow(unsafe_code)]
    pub(super) unsafe fn encode_uuid_ssse3(v: &[u8; 16], out: &mut [u8; 36]) {
        // SAFETY: SSSE3 is enabled; `v` is 16 readable bytes and `out` 36 writable ones
        // (16 stored at 0, 16 at 16, 4 at 32); the constants are 16 readable bytes each;
        // every load and store is unaligned.
        #[allow(unsafe_code)]
        unsafe {
            let vector = |m: &[u8; 16]| _mm_loadu_si128(m.as_ptr().cast());
            let x = _mm_loadu_si128(v.as_ptr().cast());
            let low4 = _mm_set1_epi8(0x0f);
            let high = _mm_and_si128(_mm_srli_epi16(x, 4), low4);
            let low = _mm_and_si128(x, low4);
            let alphabet = vector(b"0123456789abcdef");
            // Digits d0..d15 and d16..d31.
            let a = _mm_shuffle_epi8(alphabet, _mm_unpacklo_epi8(high, low));
            let b = _mm_shuffle_epi8(alphabet, _mm_unpackhi_epi8(high, low));
            // d14 d15 d16..d29.
            let middle = _mm_alignr_epi8(b, a, 14);
            let first = _mm_or_si128(_mm_shuffle_epi8(a, vector(&SPREAD[0])), vector(&FIRST[3]));
            let second = _mm_or_si128(
                _mm_shuffle_epi8(middle, vector(&SPREAD[1])),
                vector(&SECOND[3]),
            );
            let last = _mm_cvtsi128_si32(_mm_srli_si128(b, 12)) as u32;
            _mm_storeu_si128(out.as_mut_ptr().cast(), first);
            _mm_storeu_si128(out.as_mut_ptr().add(16).cast(), second);
            out[32..36].copy_from_slice(&last.to_le_bytes());
        }
    }

    /// Where each byte of the text's first and second 16 comes from (0x80: a dash,
    /// zero until the dashes are ORed in): the first from d0..d15, the second from d14..d29.
    static SPREAD: [[u8; 16]; 2] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 0x80, 8, 9, 10, 11, 0x80, 12, 13],
        [0, 1, 0x80, 2, 3, 4, 5, 0x80, 6, 7, 8, 9, 10, 11, 12, 13],
    ];

    #[inline(always)]
    pub(super) fn encode16_lower(v: &[u8; 16], out: &mut [u8; 32]) {
        store32(digits(v), out)
    }

    #[inline(always)]
    pub(super) fn encode_u128_upper(v: u128, out: &mut [u8; 32]) {
        // SAFETY: SSE2 is part of the x86-64 baseline; the vector is made from
        // registers (no load: 16 bytes just stored in parts, read back as one, stalled
        // on store forwarding at every line).
        #[allow(unsafe_code)]
        let x = unsafe {
            _mm_set_epi64x(
                (v as u64).swap_bytes() as i64,
                ((v >> 64) as u64).swap_bytes() as i64,
            )
        };
        store32(nibbles_in(x, b'A'), out)
    }

    /// Stores two vectors into 32 bytes.
    #[inline(always)]
    fn store32((a, b): (__m128i, __m128i), out: &mut [u8; 32]) {
        // SAFETY: SSE2 is part of the x86-64 baseline; `out` is 32 writable bytes and
        // the stores are unaligned.
        #[allow(unsafe_code)]
        unsafe {
            _mm_storeu_si128(out.as_mut_ptr().cast(), a);
            _mm_storeu_si128(out.as_mut_ptr().add(16).cast(), b);
        }
    }

    /// 16 bytes with `c` in bytes `from..to` and zero elsewhere (a constant: built at
    /// run time, its bytes' stores and the vector's load stalled each other).
    const fn bytes(c: u8, from: usize, to: usize) -> [u8; 16] {
        let mut m = [0u8; 16];
        let mut i = from;
        while i < to {
            m[i] = c;
            i += 1;
        }
        m
    }

    const fn or(a: [u8; 16], b: [u8; 16]) -> [u8; 16] {
        let mut i = 0;
        let mut m = a;
        while i < 16 {
            m[i] |= b[i];
            i += 1;
        }
        m
    }

    static FIRST: [[u8; 16]; 4] = [
        bytes(0xff, 0, 8),
        bytes(0xff, 9, 13),
        bytes(0xff, 14, 16),
        or(bytes(b'-', 8, 9), bytes(b'-', 13, 14)),
    ];
    static SECOND: [[u8; 16]; 4] = [
        bytes(0xff, 0, 2),
        bytes(0xff, 3, 7),
        bytes(0xff, 8, 16),
        or(bytes(b'-', 2, 3), bytes(b'-', 7, 8)),
    ];

    #[inline(always)]
    pub(super) fn encode_uuid(v: &[u8; 16], out: &mut [u8; 36]) {
        // Digits a = d0..d15, b = d16..d31. The text is
        // [d0..d7 - d8..d11 - d12 d13 | d14 d15 - d16..d19 - d20..d27 | d28..d31].
        let (a, b) = digits(v);
        // SAFETY: SSE2 is part of the x86-64 baseline; the constants are 16 readable
        // bytes each, `out` is 36 writable bytes (16 stored at 0, 16 at 16), and the
        // loads and stores are unaligned.
        #[allow(unsafe_code)]
        unsafe {
            let vector = |m: &[u8; 16]| _mm_loadu_si128(m.as_ptr().cast());
            let first = _mm_or_si128(
                _mm_or_si128(
                    _mm_and_si128(a, vector(&FIRST[0])),
                    _mm_and_si128(_mm_slli_si128(a, 1), vector(&FIRST[1])),
                ),
                _mm_or_si128(
                    _mm_and_si128(_mm_slli_si128(a, 2), vector(&FIRST[2])),
                    vector(&FIRST[3]),
                ),
            );
            let second = _mm_or_si128(
                _mm_or_si128(
                    _mm_and_si128(_mm_srli_si128(a, 14), vector(&SECOND[0])),
                    _mm_and_si128(_mm_slli_si128(b, 3), vector(&SECOND[1])),
                ),
                _mm_or_si128(
                    _mm_and_si128(_mm_slli_si128(b, 4), vector(&SECOND[2])),
                    vector(&SECOND[3]),
                ),
            );
            let last = _mm_cvtsi128_si32(_mm_srli_si128(b, 12)) as u32;
            _mm_storeu_si128(out.as_mut_ptr().cast(), first);
            _mm_storeu_si128(out.as_mut_ptr().add(16).cast(), second);
            out[32..36].copy_from_slice(&last.to_le_bytes());
        }
    }
}

/// Decodes `2 * out.len()` hex digits of either case into `out` (most significant digit
/// first). `false` (with `out` unspecified) when `text` has the wrong length or a
/// character that is not a hex digit.
#[inline]
pub fn decode(text: &[u8], out: &mut [u8]) -> bool {
    if text.len() != 2 * out.len() {
        return false;
    }
    let mut i = 0;
    while i + 16 <= text.len() {
        let Some(v) = hex16_words(word_at(text, i), word_at(text, i + 8)) else {
            return false;
        };
        out[i / 2..i / 2 + 8].copy_from_slice(&v.to_be_bytes());
        i += 16;
    }
    while i < text.len() {
        let (h, l) = (
            HEX_VALUES[text[i] as usize],
            HEX_VALUES[text[i + 1] as usize],
        );
        if (h | l) & 0x80 != 0 {
            return false;
        }
        out[i / 2] = (h << 4) | l;
        i += 2;
    }
    true
}

/// Writes `bytes` as upper-case hex into the start of `out` (at least twice as long).
/// The `const-hex` crate's encoder: about 3x faster than a table per byte
/// (`cargo bench --features bench --bench text_codecs`).
#[inline]
pub fn encode_upper(bytes: &[u8], out: &mut [u8]) {
    const_hex::encode_to_slice_upper(bytes, &mut out[..2 * bytes.len()])
        .expect("the output is twice the input");
}

/// Writes `bytes` as lower-case hex into the start of `out` (at least twice as long).
#[inline]
pub fn encode_lower(bytes: &[u8], out: &mut [u8]) {
    const_hex::encode_to_slice(bytes, &mut out[..2 * bytes.len()])
        .expect("the output is twice the input");
}

/// Writes 16 bytes as 32 lower-case hex digits. On x86-64, one SSE2 vector of nibbles per
/// 16 digits (no call, no table: the ids stream writes one per line); elsewhere
/// [`encode_lower`].
#[inline(always)]
pub(crate) fn encode16_lower(v: &[u8; 16], out: &mut [u8; 32]) {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::encode16_lower(v, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    encode_lower(v, out)
}

/// Writes the 16 big-endian bytes of `v` as 32 upper-case hex digits: [`encode16_lower`]'s
/// way with capital letters, the vector made from the value's registers (the range
/// server's lines: 16 bytes stored as words and loaded back as one stalled on store
/// forwarding, half of a line's time).
#[inline(always)]
pub(crate) fn encode_u128_upper(v: u128, out: &mut [u8; 32]) {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::encode_u128_upper(v, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    encode_upper(&v.to_be_bytes(), out)
}

/// Writes 16 bytes as a UUID's text: 8-4-4-4-12 lower-case hex digits (36 bytes). On
/// x86-64 the dashes are opened up in the two vectors of digits, with shifts and masks.
#[inline(always)]
pub(crate) fn encode_uuid(v: &[u8; 16], out: &mut [u8; 36]) {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::encode_uuid(v, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    encode_uuid_bytes(v, out)
}

/// True when [`encode_uuid_ssse3`] can be called: the CPU has SSSE3 (x86-64 only).
/// Detected once; later calls read a cached flag.
#[inline]
pub(crate) fn has_ssse3() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("ssse3")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`encode_uuid`], the same bytes, with SSSE3's shuffles (for the loops of a batch,
/// compiled with SSSE3 themselves so that it is inlined).
///
/// # Safety
/// [`has_ssse3`] must be true.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
#[inline]
#[allow(unsafe_code)]
pub(crate) unsafe fn encode_uuid_ssse3(v: &[u8; 16], out: &mut [u8; 36]) {
    // SAFETY: the caller guarantees SSSE3.
    unsafe { sse2::encode_uuid_ssse3(v, out) }
}

/// The 16 bytes written as a UUID's text (8-4-4-4-12 hex digits, either case), or
/// `None` when `text` is not one. On x86-64 the digits are closed up in two vectors.
#[inline(always)]
pub(crate) fn decode_uuid(text: &[u8; 36]) -> Option<[u8; 16]> {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::decode_uuid(text)
    }
    #[cfg(not(target_arch = "x86_64"))]
    decode_uuid_bytes(text)
}

/// [`decode_uuid`] from the dashes' positions and [`decode`]: the reference the vector
/// code is tested against, and the code elsewhere.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn decode_uuid_bytes(text: &[u8; 36]) -> Option<[u8; 16]> {
    if [8, 13, 18, 23].iter().any(|&i| text[i] != b'-') {
        return None;
    }
    let digits: Vec<u8> = text.iter().copied().filter(|&c| c != b'-').collect();
    let mut out = [0u8; 16];
    (digits.len() == 32 && decode(&digits, &mut out)).then_some(out)
}

/// [`encode_uuid`] from the 32 digits, by copies: the reference the vector code is
/// tested against, and the code elsewhere.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn encode_uuid_bytes(v: &[u8; 16], out: &mut [u8; 36]) {
    let mut s = [0u8; 32];
    encode_lower(v, &mut s);
    out[..8].copy_from_slice(&s[..8]);
    out[9..13].copy_from_slice(&s[8..12]);
    out[14..18].copy_from_slice(&s[12..16]);
    out[19..23].copy_from_slice(&s[16..20]);
    out[24..36].copy_from_slice(&s[20..32]);
    for dash in [8, 13, 18, 23] {
        out[dash] = b'-';
    }
}

/// `bytes` as a lower-case hex string (fingerprints, checksums, messages).
pub fn lower_string(bytes: &[u8]) -> String {
    let mut out = vec![0u8; 2 * bytes.len()];
    encode_lower(bytes, &mut out);
    String::from_utf8(out).expect("hex digits are ASCII")
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
        assert_eq!(hex8(b"00000000"), Some(0));
        assert_eq!(hex8(b"ffffffff"), Some(u32::MAX));
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
    }

    /// The UUID reader against the reference, with every byte value in every position.
    #[test]
    fn uuid_reader_agrees_with_the_reference_on_every_byte() {
        let v: [u8; 16] = *b"\x01\x23\x45\x67\x89\xab\xcd\xef\xfe\xdc\xba\x98\x76\x54\x32\x10";
        let mut good = [0u8; 36];
        encode_uuid(&v, &mut good);
        assert_eq!(&good, b"01234567-89ab-cdef-fedc-ba9876543210");
        for at in 0..36 {
            for c in 0..=255u8 {
                let mut text = good;
                text[at] = c;
                assert_eq!(
                    decode_uuid(&text),
                    decode_uuid_bytes(&text),
                    "{c:#x} at {at}"
                );
            }
        }
    }

    proptest::proptest! {
        /// The 16-byte encoders against `const-hex` and the copying layout.
        #[test]
        fn sixteen_bytes_as_const_hex_writes_them(v in proptest::prelude::any::<[u8; 16]>()) {
            let mut want = [0u8; 32];
            const_hex::encode_to_slice(v, &mut want).unwrap();
            let mut got = [0u8; 32];
            encode16_lower(&v, &mut got);
            proptest::prop_assert_eq!(got, want);
            const_hex::encode_to_slice_upper(v, &mut want).unwrap();
            encode_u128_upper(u128::from_be_bytes(v), &mut got);
            proptest::prop_assert_eq!(got, want);
            let mut uuid = [0u8; 36];
            encode_uuid(&v, &mut uuid);
            let mut by_copies = [0u8; 36];
            encode_uuid_bytes(&v, &mut by_copies);
            proptest::prop_assert_eq!(uuid, by_copies);
            #[cfg(target_arch = "x86_64")]
            if has_ssse3() {
                let mut shuffled = [0u8; 36];
                // SAFETY: the CPU has SSSE3 (checked just above).
                #[allow(unsafe_code)]
                unsafe { encode_uuid_ssse3(&v, &mut shuffled) };
                proptest::prop_assert_eq!(uuid, shuffled);
            }
            let dashed = format!("{}-{}-{}-{}-{}", &const_hex::encode(&v[..4]), const_hex::encode(&v[4..6]),
                const_hex::encode(&v[6..8]), const_hex::encode(&v[8..10]), const_hex::encode(&v[10..]));
            proptest::prop_assert_eq!(&uuid[..], dashed.as_bytes());
        }

        /// The UUID reader against the reference, on any text with any byte changed.
        #[test]
        fn uuids_read_as_the_reference_reads_them(
            v in proptest::prelude::any::<[u8; 16]>(),
            at in 0usize..36,
            c in proptest::prelude::any::<u8>(),
            upper in proptest::prelude::any::<bool>(),
        ) {
            let mut text = [0u8; 36];
            encode_uuid(&v, &mut text);
            if upper {
                text.make_ascii_uppercase();
            }
            proptest::prop_assert_eq!(decode_uuid(&text), Some(v));
            text[at] = c;
            proptest::prop_assert_eq!(decode_uuid(&text), decode_uuid_bytes(&text));
        }

        #[test]
        fn decode_and_encode_round_trip(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..24)) {
            let mut text = vec![0u8; bytes.len() * 2];
            encode_upper(&bytes, &mut text);
            let mut back = vec![0u8; bytes.len()];
            proptest::prop_assert!(decode(&text, &mut back));
            proptest::prop_assert_eq!(&back, &bytes);
            proptest::prop_assert!(decode(&text.to_ascii_lowercase(), &mut back));
            proptest::prop_assert_eq!(&back, &bytes);
            if !text.is_empty() {
                let mut bad = text.clone();
                bad[text.len() / 2] = b'g';
                proptest::prop_assert!(!decode(&bad, &mut back));
            }
        }
    }
}
