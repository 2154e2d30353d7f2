//! AES-128 on single blocks and batches, with the processor's AES instructions used
//! directly where the hot paths need them.
//!
//! This is AES, not a new cipher: on x86-64 with AES-NI the rounds are the processor's
//! `aesenc`/`aesdec` instructions (key schedule by `aeskeygenassist`), called from
//! `#[target_feature]` code chosen once at run time; everywhere else (no AES-NI, ARM,
//! other targets) the RustCrypto `aes` crate does the work. Tests compare the two on
//! random keys and blocks, and against FIPS-197.
//!
//! Why not always the `aes` crate: it detects CPU features on every call, which costs
//! ~10 cycles per block in a dependent chain (51 instead of ~42 here) and prevents the
//! compiler from keeping round keys in registers across a batch.

use ::aes::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};

/// A 16-byte block.
pub type Block = [u8; 16];

/// True when this CPU has the AES instructions veilkit's fast paths use (x86-64 AES-NI
/// with SSE4.1). Detected once; later calls read a cached flag.
#[inline]
pub fn has_aesni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("sse4.1")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// An AES-128 key, expanded for encryption and decryption.
#[derive(Clone)]
pub struct Aes128 {
    #[cfg(target_arch = "x86_64")]
    ni: Option<ni::Schedule>,
    soft: ::aes::Aes128,
}

impl Aes128 {
    /// Expands `key`.
    pub fn new(key: &Block) -> Self {
        Aes128 {
            #[cfg(target_arch = "x86_64")]
            ni: if has_aesni() {
                // SAFETY: the CPU has AES-NI and SSE4.1 (checked just above).
                #[allow(unsafe_code)]
                Some(unsafe { ni::Schedule::new(key) })
            } else {
                None
            },
            soft: ::aes::Aes128::new(&Array::from(*key)),
        }
    }

    /// Like [`new`](Aes128::new), but never using the processor's AES instructions
    /// directly: the portable path, for tests and comparisons.
    pub fn new_portable(key: &Block) -> Self {
        Aes128 {
            #[cfg(target_arch = "x86_64")]
            ni: None,
            soft: ::aes::Aes128::new(&Array::from(*key)),
        }
    }

    /// AES with arbitrary round keys (no key schedule), as Khuong's published code uses:
    /// only for checking the fast path against his vectors. `None` without AES-NI.
    #[cfg(test)]
    pub(crate) fn from_raw_round_keys(rk: &[u8; 176]) -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if has_aesni() {
            // SAFETY: the CPU has AES-NI and SSE4.1 (checked just above).
            #[allow(unsafe_code)]
            let s = unsafe { ni::Schedule::from_raw(rk) };
            return Some(Aes128 {
                ni: Some(s),
                soft: ::aes::Aes128::new(&Array::from([0u8; 16])),
            });
        }
        let _ = rk;
        None
    }

    /// The AES-NI schedule, when this key uses the fast path.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn ni(&self) -> Option<&ni::Schedule> {
        self.ni.as_ref()
    }

    /// True when this key uses the processor's AES instructions directly.
    pub fn is_accelerated(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            self.ni.is_some()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Encrypts one block.
    #[inline]
    pub fn encrypt_block(&self, block: &Block) -> Block {
        #[cfg(target_arch = "x86_64")]
        if let Some(s) = &self.ni {
            // SAFETY: a schedule exists only when the CPU has AES-NI and SSE4.1.
            #[allow(unsafe_code)]
            return unsafe { ni::encrypt_one(s, block) };
        }
        let mut b = Array::from(*block);
        self.soft.encrypt_block(&mut b);
        b.into()
    }

    /// Decrypts one block.
    #[inline]
    pub fn decrypt_block(&self, block: &Block) -> Block {
        #[cfg(target_arch = "x86_64")]
        if let Some(s) = &self.ni {
            // SAFETY: a schedule exists only when the CPU has AES-NI and SSE4.1.
            #[allow(unsafe_code)]
            return unsafe { ni::decrypt_one(s, block) };
        }
        let mut b = Array::from(*block);
        self.soft.decrypt_block(&mut b);
        b.into()
    }

    /// Encrypts the block `LE64(lo) ‖ LE64(hi)` and returns the output's two halves the
    /// same way: the same cipher as [`encrypt_block`](Aes128::encrypt_block), with the
    /// words moved straight into and out of a vector register (building a block in
    /// memory from two 8-byte stores and loading it as one costs a store-forwarding
    /// stall on the dependent path of a single call).
    #[inline]
    pub fn encrypt_words(&self, lo: u64, hi: u64) -> (u64, u64) {
        #[cfg(target_arch = "x86_64")]
        if let Some(s) = &self.ni {
            // SAFETY: a schedule exists only when the CPU has AES-NI and SSE4.1.
            #[allow(unsafe_code)]
            return unsafe { ni::encrypt_words(s, lo, hi) };
        }
        split(&self.encrypt_block(&join(lo, hi)))
    }

    /// The inverse of [`encrypt_words`](Aes128::encrypt_words).
    #[inline]
    pub fn decrypt_words(&self, lo: u64, hi: u64) -> (u64, u64) {
        #[cfg(target_arch = "x86_64")]
        if let Some(s) = &self.ni {
            // SAFETY: a schedule exists only when the CPU has AES-NI and SSE4.1.
            #[allow(unsafe_code)]
            return unsafe { ni::decrypt_words(s, lo, hi) };
        }
        split(&self.decrypt_block(&join(lo, hi)))
    }

    /// Encrypts `block` `n` times in a dependent chain and returns the result: with AES-NI
    /// the chain stays in registers, so this is the hardware floor of one AES-128 block's
    /// latency, the reference that benchmarks compare constructions with.
    pub fn chain(&self, block: &Block, n: u64) -> Block {
        #[cfg(target_arch = "x86_64")]
        if let Some(s) = &self.ni {
            // SAFETY: a schedule exists only when the CPU has AES-NI and SSE4.1.
            #[allow(unsafe_code)]
            return unsafe { ni::chain(s, block, n) };
        }
        let mut b = *block;
        for _ in 0..n {
            b = self.encrypt_block(&b);
        }
        b
    }

    /// Encrypts many blocks in place, with the independent blocks in flight together.
    pub fn encrypt_blocks(&self, blocks: &mut [Block]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(s) = &self.ni {
            // SAFETY: a schedule exists only when the CPU has AES-NI and SSE4.1.
            #[allow(unsafe_code)]
            unsafe {
                ni::encrypt_many(s, blocks)
            };
            return;
        }
        for b in blocks {
            let mut a = Array::from(*b);
            self.soft.encrypt_block(&mut a);
            *b = a.into();
        }
    }

    /// Decrypts many blocks in place.
    pub fn decrypt_blocks(&self, blocks: &mut [Block]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(s) = &self.ni {
            // SAFETY: a schedule exists only when the CPU has AES-NI and SSE4.1.
            #[allow(unsafe_code)]
            unsafe {
                ni::decrypt_many(s, blocks)
            };
            return;
        }
        for b in blocks {
            let mut a = Array::from(*b);
            self.soft.decrypt_block(&mut a);
            *b = a.into();
        }
    }
}

/// The block `LE64(lo) ‖ LE64(hi)`.
#[inline]
pub fn join(lo: u64, hi: u64) -> Block {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&lo.to_le_bytes());
    b[8..].copy_from_slice(&hi.to_le_bytes());
    b
}

/// The two little-endian halves of a block.
#[inline]
pub fn split(b: &Block) -> (u64, u64) {
    let (lo, hi) = b.split_at(8);
    (
        u64::from_le_bytes(lo.try_into().expect("8 bytes")),
        u64::from_le_bytes(hi.try_into().expect("8 bytes")),
    )
}

/// The AES-NI implementation (x86-64).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod ni {
    use super::Block;
    use std::arch::x86_64::*;

    /// Expanded round keys: 11 for encryption, 11 for the equivalent inverse cipher.
    #[derive(Clone)]
    #[repr(C, align(16))]
    pub(crate) struct Schedule {
        pub(crate) enc: [__m128i; 11],
        pub(crate) dec: [__m128i; 11],
    }

    macro_rules! expand_round {
        ($prev:expr, $rcon:literal) => {{
            let prev = $prev;
            let t = _mm_shuffle_epi32(_mm_aeskeygenassist_si128(prev, $rcon), 0xff);
            let mut k = prev;
            k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
            k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
            k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
            _mm_xor_si128(k, t)
        }};
    }

    impl Schedule {
        /// The FIPS-197 key expansion, by `aeskeygenassist`.
        ///
        /// # Safety
        /// The CPU must support AES-NI and SSE4.1.
        #[target_feature(enable = "aes,sse4.1")]
        pub(crate) unsafe fn new(key: &Block) -> Schedule {
            // SAFETY: reading 16 bytes from a 16-byte array; unaligned load.
            let k0 = unsafe { _mm_loadu_si128(key.as_ptr().cast()) };
            let k1 = expand_round!(k0, 0x01);
            let k2 = expand_round!(k1, 0x02);
            let k3 = expand_round!(k2, 0x04);
            let k4 = expand_round!(k3, 0x08);
            let k5 = expand_round!(k4, 0x10);
            let k6 = expand_round!(k5, 0x20);
            let k7 = expand_round!(k6, 0x40);
            let k8 = expand_round!(k7, 0x80);
            let k9 = expand_round!(k8, 0x1b);
            let k10 = expand_round!(k9, 0x36);
            let enc = [k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10];
            let mut dec = enc;
            dec[0] = enc[10];
            for i in 1..10 {
                dec[i] = _mm_aesimc_si128(enc[10 - i]);
            }
            dec[10] = enc[0];
            Schedule { enc, dec }
        }
    }

    impl Schedule {
        /// The first encryption round key, to fold into a caller's constant.
        #[inline(always)]
        pub(crate) fn first_key(&self) -> __m128i {
            self.enc[0]
        }

        /// The first decryption round key.
        #[inline(always)]
        pub(crate) fn first_dec_key(&self) -> __m128i {
            self.dec[0]
        }
    }

    impl Schedule {
        /// Round keys taken as they are (tests of Khuong's raw-key vectors only).
        ///
        /// # Safety
        /// The CPU must support AES-NI and SSE4.1.
        #[cfg(test)]
        #[target_feature(enable = "aes,sse4.1")]
        pub(crate) unsafe fn from_raw(rk: &[u8; 176]) -> Schedule {
            let mut enc = [_mm_setzero_si128(); 11];
            for (i, k) in enc.iter_mut().enumerate() {
                // SAFETY: 16 bytes within the 176-byte array; unaligned load.
                *k = unsafe { _mm_loadu_si128(rk[16 * i..].as_ptr().cast()) };
            }
            let mut dec = enc;
            dec[0] = enc[10];
            for i in 1..10 {
                dec[i] = _mm_aesimc_si128(enc[10 - i]);
            }
            dec[10] = enc[0];
            Schedule { enc, dec }
        }
    }

    /// One block through the cipher, as a register.
    ///
    /// # Safety
    /// Only for callers compiled with AES-NI enabled (`#[target_feature]` functions
    /// reached after detection); inlined into them.
    #[inline(always)]
    pub(crate) unsafe fn enc(s: &Schedule, b: __m128i) -> __m128i {
        // SAFETY: the caller guarantees AES-NI (see above).
        unsafe {
            let mut x = _mm_xor_si128(b, s.enc[0]);
            x = _mm_aesenc_si128(x, s.enc[1]);
            x = _mm_aesenc_si128(x, s.enc[2]);
            x = _mm_aesenc_si128(x, s.enc[3]);
            x = _mm_aesenc_si128(x, s.enc[4]);
            x = _mm_aesenc_si128(x, s.enc[5]);
            x = _mm_aesenc_si128(x, s.enc[6]);
            x = _mm_aesenc_si128(x, s.enc[7]);
            x = _mm_aesenc_si128(x, s.enc[8]);
            x = _mm_aesenc_si128(x, s.enc[9]);
            _mm_aesenclast_si128(x, s.enc[10])
        }
    }

    /// Rounds 1 to 10 of the cipher: for callers that fold the first round-key XOR
    /// into a constant of their own (see [`Schedule::first_key`]).
    ///
    /// # Safety
    /// As for [`enc`].
    #[inline(always)]
    pub(crate) unsafe fn enc_after_first(s: &Schedule, x: __m128i) -> __m128i {
        // SAFETY: the caller guarantees AES-NI (see above).
        unsafe {
            let mut x = _mm_aesenc_si128(x, s.enc[1]);
            x = _mm_aesenc_si128(x, s.enc[2]);
            x = _mm_aesenc_si128(x, s.enc[3]);
            x = _mm_aesenc_si128(x, s.enc[4]);
            x = _mm_aesenc_si128(x, s.enc[5]);
            x = _mm_aesenc_si128(x, s.enc[6]);
            x = _mm_aesenc_si128(x, s.enc[7]);
            x = _mm_aesenc_si128(x, s.enc[8]);
            x = _mm_aesenc_si128(x, s.enc[9]);
            _mm_aesenclast_si128(x, s.enc[10])
        }
    }

    /// Rounds 1 to 10 of the inverse cipher (first XOR folded by the caller).
    ///
    /// # Safety
    /// As for [`enc`].
    #[inline(always)]
    pub(crate) unsafe fn dec_after_first(s: &Schedule, x: __m128i) -> __m128i {
        // SAFETY: the caller guarantees AES-NI (see above).
        unsafe {
            let mut x = _mm_aesdec_si128(x, s.dec[1]);
            x = _mm_aesdec_si128(x, s.dec[2]);
            x = _mm_aesdec_si128(x, s.dec[3]);
            x = _mm_aesdec_si128(x, s.dec[4]);
            x = _mm_aesdec_si128(x, s.dec[5]);
            x = _mm_aesdec_si128(x, s.dec[6]);
            x = _mm_aesdec_si128(x, s.dec[7]);
            x = _mm_aesdec_si128(x, s.dec[8]);
            x = _mm_aesdec_si128(x, s.dec[9]);
            _mm_aesdeclast_si128(x, s.dec[10])
        }
    }

    /// One block through the inverse cipher, as a register.
    ///
    /// # Safety
    /// As for [`enc`].
    #[inline(always)]
    pub(crate) unsafe fn dec(s: &Schedule, b: __m128i) -> __m128i {
        // SAFETY: the caller guarantees AES-NI (see above).
        unsafe {
            let mut x = _mm_xor_si128(b, s.dec[0]);
            x = _mm_aesdec_si128(x, s.dec[1]);
            x = _mm_aesdec_si128(x, s.dec[2]);
            x = _mm_aesdec_si128(x, s.dec[3]);
            x = _mm_aesdec_si128(x, s.dec[4]);
            x = _mm_aesdec_si128(x, s.dec[5]);
            x = _mm_aesdec_si128(x, s.dec[6]);
            x = _mm_aesdec_si128(x, s.dec[7]);
            x = _mm_aesdec_si128(x, s.dec[8]);
            x = _mm_aesdec_si128(x, s.dec[9]);
            _mm_aesdeclast_si128(x, s.dec[10])
        }
    }

    /// Loads a block from memory.
    ///
    /// # Safety
    /// As for [`enc`] (SSE2 is always present on x86-64).
    #[inline(always)]
    pub(crate) unsafe fn load(b: &Block) -> __m128i {
        // SAFETY: 16 readable bytes; unaligned load.
        unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
    }

    /// Stores a block to memory.
    ///
    /// # Safety
    /// As for [`load`].
    #[inline(always)]
    pub(crate) unsafe fn store(x: __m128i, b: &mut Block) {
        // SAFETY: 16 writable bytes; unaligned store.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) }
    }

    #[target_feature(enable = "aes,sse4.1")]
    pub(crate) unsafe fn encrypt_one(s: &Schedule, b: &Block) -> Block {
        let mut out = [0u8; 16];
        // SAFETY: this function has AES-NI enabled.
        unsafe { store(enc(s, load(b)), &mut out) };
        out
    }

    #[target_feature(enable = "aes,sse4.1")]
    pub(crate) unsafe fn decrypt_one(s: &Schedule, b: &Block) -> Block {
        let mut out = [0u8; 16];
        // SAFETY: this function has AES-NI enabled.
        unsafe { store(dec(s, load(b)), &mut out) };
        out
    }

    /// The two words as one register (lo in bytes 0..8), without memory.
    #[inline(always)]
    fn from_words(lo: u64, hi: u64) -> __m128i {
        // SAFETY: SSE2 is always present on x86-64.
        unsafe { _mm_set_epi64x(hi as i64, lo as i64) }
    }

    /// The register's two words.
    ///
    /// # Safety
    /// SSE4.1 must be present (`pextrq`).
    #[inline(always)]
    unsafe fn to_words(x: __m128i) -> (u64, u64) {
        // SAFETY: the caller guarantees SSE4.1.
        unsafe {
            (
                _mm_cvtsi128_si64(x) as u64,
                _mm_extract_epi64::<1>(x) as u64,
            )
        }
    }

    #[target_feature(enable = "aes,sse4.1")]
    pub(crate) unsafe fn encrypt_words(s: &Schedule, lo: u64, hi: u64) -> (u64, u64) {
        // SAFETY: this function has AES-NI and SSE4.1 enabled.
        unsafe { to_words(enc(s, from_words(lo, hi))) }
    }

    #[target_feature(enable = "aes,sse4.1")]
    pub(crate) unsafe fn decrypt_words(s: &Schedule, lo: u64, hi: u64) -> (u64, u64) {
        // SAFETY: this function has AES-NI and SSE4.1 enabled.
        unsafe { to_words(dec(s, from_words(lo, hi))) }
    }

    #[target_feature(enable = "aes,sse4.1")]
    pub(crate) unsafe fn chain(s: &Schedule, b: &Block, n: u64) -> Block {
        // SAFETY: this function has AES-NI enabled.
        unsafe {
            let mut x = load(b);
            for _ in 0..n {
                x = enc(s, x);
            }
            let mut out = [0u8; 16];
            store(x, &mut out);
            out
        }
    }

    #[target_feature(enable = "aes,sse4.1")]
    pub(crate) unsafe fn encrypt_many(s: &Schedule, blocks: &mut [Block]) {
        // Independent iterations: the processor keeps several blocks in flight.
        for b in blocks {
            // SAFETY: this function has AES-NI enabled.
            unsafe { store(enc(s, load(b)), b) };
        }
    }

    #[target_feature(enable = "aes,sse4.1")]
    pub(crate) unsafe fn decrypt_many(s: &Schedule, blocks: &mut [Block]) {
        for b in blocks {
            // SAFETY: this function has AES-NI enabled.
            unsafe { store(dec(s, load(b)), b) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn unhex(s: &str) -> Block {
        let mut b = [0u8; 16];
        for i in 0..16 {
            b[i] = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        b
    }

    /// FIPS-197 appendix C.1.
    #[test]
    fn fips_197_vector() {
        let key = unhex("000102030405060708090a0b0c0d0e0f");
        let pt = unhex("00112233445566778899aabbccddeeff");
        let ct = unhex("69c4e0d86a7b0430d8cdb78070b4c55a");
        for aes in [Aes128::new(&key), Aes128::new_portable(&key)] {
            assert_eq!(aes.encrypt_block(&pt), ct);
            assert_eq!(aes.decrypt_block(&ct), pt);
            assert_eq!(aes.encrypt_words(split(&pt).0, split(&pt).1), split(&ct));
            assert_eq!(aes.decrypt_words(split(&ct).0, split(&ct).1), split(&pt));
            let mut many = [pt; 19];
            aes.encrypt_blocks(&mut many);
            assert!(many.iter().all(|b| *b == ct));
            aes.decrypt_blocks(&mut many);
            assert!(many.iter().all(|b| *b == pt));
        }
    }

    #[test]
    fn chains_agree() {
        let aes = Aes128::new(&[3; 16]);
        let portable = Aes128::new_portable(&[3; 16]);
        assert_eq!(aes.chain(&[9; 16], 100), portable.chain(&[9; 16], 100));
        let mut b = [9u8; 16];
        for _ in 0..100 {
            b = portable.encrypt_block(&b);
        }
        assert_eq!(aes.chain(&[9; 16], 100), b);
    }

    #[test]
    fn the_fast_path_is_taken_where_available() {
        let aes = Aes128::new(&[0; 16]);
        assert_eq!(aes.is_accelerated(), has_aesni());
    }

    proptest! {
        #[test]
        fn fast_path_matches_the_aes_crate(key in any::<[u8; 16]>(), block in any::<[u8; 16]>()) {
            let fast = Aes128::new(&key);
            let reference = Aes128::new_portable(&key);
            let ct = reference.encrypt_block(&block);
            prop_assert_eq!(fast.encrypt_block(&block), ct);
            prop_assert_eq!(fast.decrypt_block(&ct), block);
            prop_assert_eq!(fast.decrypt_block(&block), reference.decrypt_block(&block));
            // The word forms: the same block, halves little-endian.
            let (lo, hi) = split(&block);
            prop_assert_eq!(join(lo, hi), block);
            prop_assert_eq!(fast.encrypt_words(lo, hi), split(&ct));
            prop_assert_eq!(reference.encrypt_words(lo, hi), split(&ct));
            let (clo, chi) = split(&ct);
            prop_assert_eq!(fast.decrypt_words(clo, chi), (lo, hi));
            prop_assert_eq!(reference.decrypt_words(clo, chi), (lo, hi));
        }
    }
}
