//! The format-preserving Feistel network of Khuong's "Plan B for UUIDs", generalised to
//! any number of rounds and half widths (specified in `docs/IDS.md`).
//!
//! The round function is `F_k(x) = first 8 bytes, little-endian, of AES-128_k(LE64(x) ‖
//! LE64(tweak))`, masked to the width of the half it updates. Rounds are numbered; round
//! `a` updates the left half (`L ^= F(R)`) when `a` is odd and the right half
//! (`R ^= F(L)`) when `a` is even. The deterministic form runs rounds `0..n` from
//! `(id, 0)`; the stored-nonce form runs rounds `1..=n` from `(id, nonce)`. With two
//! rounds, 60- and 62-bit halves, tweak 0 and raw keys this is exactly the construction
//! of the post (`../shared/vectors/ids.txt`, sections 2 and 3).

use crate::block::Aes128;

/// A Feistel network: one AES-128 key per round, the number of the first round, the
/// tweak fed to every round function, and the widths of the halves.
#[derive(Clone)]
pub struct Network {
    keys: Vec<Aes128>,
    first: u32,
    tweak: u64,
    mask_l: u64,
    mask_r: u64,
}

/// The round function with the portable AES.
#[inline]
pub fn prf(key: &Aes128, x: u64, tweak: u64) -> u64 {
    key.encrypt_words(x, tweak).0
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl Network {
    /// A network with `keys.len()` rounds numbered from `first` (0: deterministic form,
    /// 1: stored-nonce form), halves of `l_bits` and `r_bits`.
    pub fn new(keys: Vec<Aes128>, first: u32, tweak: u64, l_bits: u32, r_bits: u32) -> Self {
        Network {
            keys,
            first,
            tweak,
            mask_l: mask(l_bits),
            mask_r: mask(r_bits),
        }
    }

    /// The number of rounds.
    pub fn rounds(&self) -> usize {
        self.keys.len()
    }

    /// True when every round key has an AES-NI schedule.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn accelerated(&self) -> bool {
        self.keys.iter().all(|k| k.ni().is_some())
    }

    #[inline]
    fn updates_left(&self, j: usize) -> bool {
        (self.first as usize + j) % 2 == 1
    }

    /// Runs the network forwards on one pair.
    #[inline]
    pub fn encrypt(&self, mut l: u64, mut r: u64) -> (u64, u64) {
        #[cfg(target_arch = "x86_64")]
        if self.accelerated() {
            // SAFETY: every key has an AES-NI schedule, so the CPU has AES-NI and SSE4.1.
            #[allow(unsafe_code)]
            return unsafe { fast::one(self, l, r, true) };
        }
        for (j, k) in self.keys.iter().enumerate() {
            if self.updates_left(j) {
                l ^= prf(k, r, self.tweak) & self.mask_l;
            } else {
                r ^= prf(k, l, self.tweak) & self.mask_r;
            }
        }
        (l, r)
    }

    /// Runs the network backwards on one pair.
    #[inline]
    pub fn decrypt(&self, mut l: u64, mut r: u64) -> (u64, u64) {
        #[cfg(target_arch = "x86_64")]
        if self.accelerated() {
            // SAFETY: as in `encrypt`.
            #[allow(unsafe_code)]
            return unsafe { fast::one(self, l, r, false) };
        }
        for (j, k) in self.keys.iter().enumerate().rev() {
            if self.updates_left(j) {
                l ^= prf(k, r, self.tweak) & self.mask_l;
            } else {
                r ^= prf(k, l, self.tweak) & self.mask_r;
            }
        }
        (l, r)
    }

    /// Runs the network forwards on many pairs, round by round, so that the AES work of
    /// one round is independent across pairs.
    pub fn encrypt_many(&self, ls: &mut [u64], rs: &mut [u64]) {
        debug_assert_eq!(ls.len(), rs.len());
        for j in 0..self.keys.len() {
            self.round_many(j, ls, rs);
        }
    }

    /// Runs the network backwards on many pairs.
    pub fn decrypt_many(&self, ls: &mut [u64], rs: &mut [u64]) {
        debug_assert_eq!(ls.len(), rs.len());
        for j in (0..self.keys.len()).rev() {
            self.round_many(j, ls, rs);
        }
    }

    fn round_many(&self, j: usize, ls: &mut [u64], rs: &mut [u64]) {
        let key = &self.keys[j];
        let (dst, src, m) = if self.updates_left(j) {
            (ls, &*rs, self.mask_l)
        } else {
            (rs, &*ls, self.mask_r)
        };
        #[cfg(target_arch = "x86_64")]
        if let Some(s) = key.ni() {
            // SAFETY: a schedule exists only when the CPU has AES-NI and SSE4.1.
            #[allow(unsafe_code)]
            unsafe {
                fast::xor_prf_many(s, self.tweak, m, src, dst)
            };
            return;
        }
        portable_xor_prf_many(key, self.tweak, m, src, dst);
    }

    /// Runs the network `n` times in a dependent chain and returns the last output
    /// folded into one word: the latency of one pass, for benchmarks. Each pass takes
    /// the previous output as input: the deterministic form (first round 0) starts from
    /// `(L ^ R, 0)`, the stored-nonce form from `(L, R)`, so every round of every pass is
    /// on the dependent path. Chooses the AES implementation once; with AES-NI the halves
    /// stay in vector registers throughout.
    pub fn chain(&self, start: u64, n: u64) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if let Some(scheds) = self.keys.iter().map(|k| k.ni()).collect::<Option<Vec<_>>>() {
            // SAFETY: schedules exist only when the CPU has AES-NI and SSE4.1.
            #[allow(unsafe_code)]
            return unsafe { fast::chain(self, &scheds, start, n) };
        }
        let det = self.first == 0;
        let (mut l, mut r) = (
            start & self.mask_l,
            if det { 0 } else { start & self.mask_r },
        );
        for _ in 0..n {
            (l, r) = self.encrypt(l, r);
            if det {
                (l, r) = ((l ^ r) & self.mask_l, 0);
            }
        }
        l ^ r
    }

    /// As [`chain`](Network::chain), through the network backwards (each pass takes
    /// the previous output's halves as input).
    pub fn chain_back(&self, start: u64, n: u64) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if let Some(scheds) = self.keys.iter().map(|k| k.ni()).collect::<Option<Vec<_>>>() {
            // SAFETY: schedules exist only when the CPU has AES-NI and SSE4.1.
            #[allow(unsafe_code)]
            return unsafe { fast::chain_back(self, &scheds, start, n) };
        }
        let (mut l, mut r) = (start & self.mask_l, start & self.mask_r);
        for _ in 0..n {
            (l, r) = self.decrypt(l, r);
            if self.first == 0 {
                // Round 0 (the check) must be on the dependent path as well.
                l = (l ^ r) & self.mask_l;
            }
        }
        l ^ r
    }
}

/// `dst[i] ^= F(src[i]) & m` with the portable AES, in batches of blocks.
fn portable_xor_prf_many(key: &Aes128, tweak: u64, m: u64, src: &[u64], dst: &mut [u64]) {
    const CHUNK: usize = 64;
    let mut blocks = [[0u8; 16]; CHUNK];
    let t = tweak.to_le_bytes();
    for (s, d) in src.chunks(CHUNK).zip(dst.chunks_mut(CHUNK)) {
        let blocks = &mut blocks[..s.len()];
        for (b, x) in blocks.iter_mut().zip(s) {
            b[..8].copy_from_slice(&x.to_le_bytes());
            b[8..].copy_from_slice(&t);
        }
        key.encrypt_blocks(blocks);
        for (b, y) in blocks.iter().zip(d) {
            *y ^= u64::from_le_bytes(b[..8].try_into().expect("8 bytes")) & m;
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod fast {
    //! The network in vector registers: each half lives in the low lane of an XMM
    //! register; a round is one XOR with a constant (the first round key folded with the
    //! tweak), ten AES rounds, a mask and an XOR, with no transfers to general registers.

    use super::Network;
    use crate::block::ni::{Schedule, enc_after_first};
    use std::arch::x86_64::*;

    /// `[k0.lo, k0.hi ^ tweak]`: the block `LE64(x) ‖ LE64(tweak)` XOR the first round key
    /// equals `x ^ this` when `x` holds zero in its high lane.
    #[inline(always)]
    unsafe fn fold(s: &Schedule, tweak: u64) -> __m128i {
        // SAFETY: the caller has SSE2 (x86-64 baseline) and AES-NI enabled.
        unsafe { _mm_xor_si128(s.first_key(), _mm_set_epi64x(tweak as i64, 0)) }
    }

    #[inline(always)]
    unsafe fn low_mask(m: u64) -> __m128i {
        // SAFETY: as for `fold`.
        unsafe { _mm_set_epi64x(0, m as i64) }
    }

    /// True when this CPU has the 256-bit AES instructions (VAES with AVX2) that
    /// [`xor_prf_many_vaes`] uses. Detected once; later calls read a cached flag.
    #[inline]
    pub(super) fn has_vaes() -> bool {
        std::arch::is_x86_feature_detected!("vaes") && std::arch::is_x86_feature_detected!("avx2")
    }

    /// `dst[i] ^= F(src[i]) & m` for every `i`: with VAES and AVX2 when the CPU has them
    /// (two blocks per instruction), otherwise one block per instruction.
    ///
    /// # Safety
    /// The CPU must support AES-NI and SSE4.1 (a schedule exists).
    #[inline]
    pub(super) unsafe fn xor_prf_many(
        s: &Schedule,
        tweak: u64,
        m: u64,
        src: &[u64],
        dst: &mut [u64],
    ) {
        assert_eq!(src.len(), dst.len());
        let done = if has_vaes() {
            // SAFETY: the CPU has VAES and AVX2 (checked just above).
            unsafe { xor_prf_many_vaes(s, tweak, m, src, dst) }
        } else {
            0
        };
        // SAFETY: the caller guarantees AES-NI and SSE4.1.
        unsafe { xor_prf_many_ni(s, tweak, m, &src[done..], &mut dst[done..]) }
    }

    /// Pairs in a 256-bit register per block pair: the words of `src` go to the low
    /// halves of the two lanes, zeros to the high halves, as in [`xor_prf_many_ni`].
    /// Handles whole groups of eight and returns how many words it did.
    #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
    unsafe fn xor_prf_many_vaes(
        s: &Schedule,
        tweak: u64,
        m: u64,
        src: &[u64],
        dst: &mut [u64],
    ) -> usize {
        assert_eq!(src.len(), dst.len());
        let groups = src.len() / 8;
        // SAFETY: this function has AES-NI, AVX2 and VAES enabled; every pointer below
        // is to words 8g..8g+8 of its slice with g < groups, read or written as 32 bytes
        // (unaligned).
        unsafe {
            let c = _mm256_broadcastsi128_si256(fold(s, tweak));
            let mv = _mm256_broadcastsi128_si256(low_mask(m));
            let k: [__m256i; 11] = std::array::from_fn(|i| _mm256_broadcastsi128_si256(s.enc[i]));
            let zero = _mm256_setzero_si256();
            let (sp, dp) = (src.as_ptr(), dst.as_mut_ptr());
            for g in 0..groups {
                let a = _mm256_loadu_si256(sp.add(8 * g).cast());
                let b = _mm256_loadu_si256(sp.add(8 * g + 4).cast());
                // [x0 x1 | x2 x3] -> [x0 0 | x2 0] and [x1 0 | x3 0].
                let mut x = [
                    _mm256_unpacklo_epi64(a, zero),
                    _mm256_unpackhi_epi64(a, zero),
                    _mm256_unpacklo_epi64(b, zero),
                    _mm256_unpackhi_epi64(b, zero),
                ];
                for v in &mut x {
                    *v = _mm256_xor_si256(*v, c);
                }
                for key in &k[1..10] {
                    for v in &mut x {
                        *v = _mm256_aesenc_epi128(*v, *key);
                    }
                }
                for v in &mut x {
                    *v = _mm256_and_si256(_mm256_aesenclast_epi128(*v, k[10]), mv);
                }
                // Back to [f0 f1 | f2 f3], and the same for the second four.
                let fa = _mm256_unpacklo_epi64(x[0], x[1]);
                let fb = _mm256_unpacklo_epi64(x[2], x[3]);
                let da = _mm256_loadu_si256(dp.add(8 * g).cast());
                let db = _mm256_loadu_si256(dp.add(8 * g + 4).cast());
                _mm256_storeu_si256(dp.add(8 * g).cast(), _mm256_xor_si256(da, fa));
                _mm256_storeu_si256(dp.add(8 * g + 4).cast(), _mm256_xor_si256(db, fb));
            }
        }
        groups * 8
    }

    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn xor_prf_many_ni(s: &Schedule, tweak: u64, m: u64, src: &[u64], dst: &mut [u64]) {
        assert_eq!(src.len(), dst.len());
        // SAFETY: this function has AES-NI and SSE4.1 enabled; every pointer below is
        // to element i < len of its slice, read or written as 8 bytes.
        unsafe {
            let c = fold(s, tweak);
            let mv = low_mask(m);
            let (sp, dp) = (src.as_ptr(), dst.as_mut_ptr());
            // Independent iterations: the processor overlaps the AES work of many pairs.
            for i in 0..src.len() {
                let x = _mm_loadl_epi64(sp.add(i).cast());
                let f = _mm_and_si128(enc_after_first(s, _mm_xor_si128(x, c)), mv);
                let d = _mm_loadl_epi64(dp.add(i).cast());
                _mm_storel_epi64(dp.add(i).cast(), _mm_xor_si128(d, f));
            }
        }
    }

    /// One pair through the network (`forwards`) or back, the halves in vector
    /// registers throughout. Every key must have a schedule (checked: panics otherwise,
    /// which [`Network::accelerated`] rules out).
    #[target_feature(enable = "aes,sse4.1")]
    pub(super) unsafe fn one(net: &Network, l: u64, r: u64, forwards: bool) -> (u64, u64) {
        // SAFETY: this function has AES-NI and SSE4.1 enabled.
        unsafe {
            let (ml, mr) = (low_mask(net.mask_l), low_mask(net.mask_r));
            let mut l = _mm_cvtsi64_si128(l as i64);
            let mut r = _mm_cvtsi64_si128(r as i64);
            let n = net.keys.len();
            for i in 0..n {
                let j = if forwards { i } else { n - 1 - i };
                let s = net.keys[j].ni().expect("accelerated network");
                let c = fold(s, net.tweak);
                if net.updates_left(j) {
                    let f = enc_after_first(s, _mm_xor_si128(r, c));
                    l = _mm_xor_si128(l, _mm_and_si128(f, ml));
                } else {
                    let f = enc_after_first(s, _mm_xor_si128(l, c));
                    r = _mm_xor_si128(r, _mm_and_si128(f, mr));
                }
            }
            (_mm_cvtsi128_si64(l) as u64, _mm_cvtsi128_si64(r) as u64)
        }
    }

    #[target_feature(enable = "aes,sse4.1")]
    pub(super) unsafe fn chain(net: &Network, scheds: &[&Schedule], start: u64, n: u64) -> u64 {
        // SAFETY: this function has AES-NI and SSE4.1 enabled.
        unsafe {
            let consts: Vec<__m128i> = scheds.iter().map(|s| fold(s, net.tweak)).collect();
            let (ml, mr) = (low_mask(net.mask_l), low_mask(net.mask_r));
            let det = net.first == 0;
            let mut l = _mm_and_si128(_mm_cvtsi64_si128(start as i64), ml);
            let mut r = if det {
                _mm_setzero_si128()
            } else {
                _mm_and_si128(_mm_cvtsi64_si128(start as i64), mr)
            };
            for _ in 0..n {
                for (j, s) in scheds.iter().enumerate() {
                    if net.updates_left(j) {
                        let f = enc_after_first(s, _mm_xor_si128(r, consts[j]));
                        l = _mm_xor_si128(l, _mm_and_si128(f, ml));
                    } else {
                        let f = enc_after_first(s, _mm_xor_si128(l, consts[j]));
                        r = _mm_xor_si128(r, _mm_and_si128(f, mr));
                    }
                }
                if det {
                    l = _mm_and_si128(_mm_xor_si128(l, r), ml);
                    r = _mm_setzero_si128();
                }
            }
            _mm_cvtsi128_si64(_mm_xor_si128(l, r)) as u64
        }
    }

    #[target_feature(enable = "aes,sse4.1")]
    pub(super) unsafe fn chain_back(
        net: &Network,
        scheds: &[&Schedule],
        start: u64,
        n: u64,
    ) -> u64 {
        // Decoding uses the forward cipher in every round too (a Feistel round is its
        // own inverse); only the order of rounds changes.
        // SAFETY: this function has AES-NI and SSE4.1 enabled.
        unsafe {
            let consts: Vec<__m128i> = scheds.iter().map(|s| fold(s, net.tweak)).collect();
            let (ml, mr) = (low_mask(net.mask_l), low_mask(net.mask_r));
            let mut l = _mm_and_si128(_mm_cvtsi64_si128(start as i64), ml);
            let mut r = _mm_and_si128(_mm_cvtsi64_si128(start as i64), mr);
            for _ in 0..n {
                for (j, s) in scheds.iter().enumerate().rev() {
                    if net.updates_left(j) {
                        let f = enc_after_first(s, _mm_xor_si128(r, consts[j]));
                        l = _mm_xor_si128(l, _mm_and_si128(f, ml));
                    } else {
                        let f = enc_after_first(s, _mm_xor_si128(l, consts[j]));
                        r = _mm_xor_si128(r, _mm_and_si128(f, mr));
                    }
                }
                if net.first == 0 {
                    // Round 0 (the check) must be on the dependent path as well.
                    l = _mm_and_si128(_mm_xor_si128(l, r), ml);
                }
            }
            _mm_cvtsi128_si64(_mm_xor_si128(l, r)) as u64
        }
    }
}
