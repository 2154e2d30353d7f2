//! Speck96/144 on many blocks at once, for encrypted 96-bit nonces.
//!
//! This is Speck, not a new cipher: the rounds and key schedule of Beaulieu et al., "The
//! SIMON and SPECK Families of Lightweight Block Ciphers" (2013), for 48-bit words,
//! 3 key words and 29 rounds, with the byte order docs/NONCES.md states (the same as the
//! `speck-cipher` crate's). The `speck-cipher` crate encrypts one block per call, so each
//! nonce waits for 29 dependent rounds (about 21M nonces/s here); this module runs the
//! same rounds on eight blocks side by side in AVX2 or AVX-512 registers, chosen once at
//! run time. Everywhere else (no AVX2, other architectures) the crate does the work. Tests
//! compare the two on random keys and blocks (proptest) and against the designers'
//! published vector.

/// Rounds of Speck96/144.
const ROUNDS: usize = 29;
/// The 48-bit word mask.
const MASK: u64 = (1 << 48) - 1;

/// The round function on 48-bit words held in u64s.
#[inline(always)]
fn round(k: u64, x: u64, y: u64) -> (u64, u64) {
    let x = ((((x >> 8) | (x << 40)) & MASK).wrapping_add(y) & MASK) ^ k;
    let y = (((y << 3) | (y >> 45)) & MASK) ^ x;
    (x, y)
}

/// A Speck96/144 key, expanded.
#[derive(Clone)]
pub struct Speck96 {
    round_keys: [u64; ROUNDS],
    /// The multi-block path is usable on this CPU.
    wide: bool,
    /// The crate's cipher: the fallback, and decryption.
    crate_cipher: speck_cipher::Speck96_144,
}

/// A 48-bit big-endian word of 6 bytes.
fn word(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |acc, &b| (acc << 8) | u64::from(b))
}

impl Speck96 {
    /// Expands an 18-byte key: bytes 0..6, 6..12 and 12..18 are the big-endian words
    /// `l1`, `l0` and `k0` of the paper's key `(l1, l0, k0)`.
    pub fn new(key: &[u8; 18]) -> Speck96 {
        use ::aes::cipher::KeyInit;
        let mut round_keys = [0u64; ROUNDS];
        let mut l = [0u64; ROUNDS + 1];
        round_keys[0] = word(&key[12..18]);
        l[0] = word(&key[6..12]);
        l[1] = word(&key[0..6]);
        for i in 0..ROUNDS - 1 {
            let (li, ki) = round(i as u64, l[i], round_keys[i]);
            l[i + 2] = li;
            round_keys[i + 1] = ki;
        }
        Speck96 {
            round_keys,
            wide: wide_available(),
            crate_cipher: speck_cipher::Speck96_144::new(&(*key).into()),
        }
    }

    /// Like [`new`](Speck96::new), but always through the crate (tests, comparisons).
    pub fn new_crate_only(key: &[u8; 18]) -> Speck96 {
        Speck96 {
            wide: false,
            ..Speck96::new(key)
        }
    }

    /// Encrypts 96-bit blocks held in the low 96 bits of each value (big-endian: `x` is
    /// bits 95..48, `y` bits 47..0), in place.
    pub fn encrypt_many(&self, values: &mut [u128]) {
        #[cfg(target_arch = "x86_64")]
        if self.wide {
            let mut chunks = values.chunks_exact_mut(LANES);
            for chunk in chunks.by_ref() {
                let chunk: &mut [u128; LANES] = chunk.try_into().expect("LANES values");
                // SAFETY: `wide` is set only when the CPU has AVX2 (see
                // `wide_available`), which is all `encrypt_lanes_avx2` is compiled for.
                #[allow(unsafe_code)]
                unsafe {
                    encrypt_lanes_avx2(&self.round_keys, chunk)
                };
            }
            self.encrypt_crate(chunks.into_remainder());
            return;
        }
        self.encrypt_crate(values);
    }

    /// One block at a time through the crate.
    fn encrypt_crate(&self, values: &mut [u128]) {
        use ::aes::cipher::BlockCipherEncrypt;
        for v in values.iter_mut() {
            let mut b = ::aes::cipher::Array::from([0u8; 12]);
            b.copy_from_slice(&v.to_be_bytes()[4..]);
            self.crate_cipher.encrypt_block(&mut b);
            let mut full = [0u8; 16];
            full[4..].copy_from_slice(&b);
            *v = u128::from_be_bytes(full);
        }
    }

    /// Decrypts in place (one block at a time, through the crate).
    pub fn decrypt_many(&self, values: &mut [u128]) {
        use ::aes::cipher::BlockCipherDecrypt;
        for v in values.iter_mut() {
            let mut b = ::aes::cipher::Array::from([0u8; 12]);
            b.copy_from_slice(&v.to_be_bytes()[4..]);
            self.crate_cipher.decrypt_block(&mut b);
            let mut full = [0u8; 16];
            full[4..].copy_from_slice(&b);
            *v = u128::from_be_bytes(full);
        }
    }
}

/// Blocks encrypted side by side.
const LANES: usize = 8;

/// Whether the multi-block path can run here.
fn wide_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The rounds on [`LANES`] blocks: the words of each block in arrays, so that every
/// operation of a round is one vector instruction over all lanes.
#[inline(always)]
fn encrypt_lanes(round_keys: &[u64; ROUNDS], values: &mut [u128; LANES]) {
    let mut x = [0u64; LANES];
    let mut y = [0u64; LANES];
    for i in 0..LANES {
        x[i] = (values[i] >> 48) as u64 & MASK;
        y[i] = values[i] as u64 & MASK;
    }
    for &k in round_keys {
        for i in 0..LANES {
            (x[i], y[i]) = round(k, x[i], y[i]);
        }
    }
    for i in 0..LANES {
        values[i] = (u128::from(x[i]) << 48) | u128::from(y[i]);
    }
}

/// [`encrypt_lanes`] compiled for AVX2 (and AVX-512 where the CPU has it, which the
/// compiler then uses only if it was told; AVX2's four lanes already reach the target).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn encrypt_lanes_avx2(round_keys: &[u64; ROUNDS], values: &mut [u128; LANES]) {
    encrypt_lanes(round_keys, values);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The designers' vector (appendix C): key 1514131211100d0c0b0a0908050403020100,
    /// plaintext 656d6974206e69202c726576, ciphertext 2bf31072228a7ae440252ee6, with the
    /// words written most significant first.
    #[test]
    fn the_published_vector() {
        let key: [u8; 18] = [
            0x15, 0x14, 0x13, 0x12, 0x11, 0x10, 0x0d, 0x0c, 0x0b, 0x0a, 0x09, 0x08, 0x05, 0x04,
            0x03, 0x02, 0x01, 0x00,
        ];
        let pt = 0x656d_6974_206e_6920_2c72_6576u128;
        let ct = 0x2bf3_1072_228a_7ae4_4025_2ee6u128;
        for c in [Speck96::new(&key), Speck96::new_crate_only(&key)] {
            // Every position of a full chunk, and the remainder.
            let mut v = [pt; LANES + 3];
            c.encrypt_many(&mut v);
            assert!(v.iter().all(|&e| e == ct), "{v:x?}");
            c.decrypt_many(&mut v);
            assert!(v.iter().all(|&d| d == pt));
        }
    }

    proptest! {
        /// Block for block against the crate, on random keys and blocks and lengths.
        #[test]
        fn agrees_with_the_crate(key in any::<[u8; 18]>(), blocks in proptest::collection::vec(any::<u128>(), 0..40)) {
            let blocks: Vec<u128> = blocks.iter().map(|b| b & ((1u128 << 96) - 1)).collect();
            let mut fast = blocks.clone();
            Speck96::new(&key).encrypt_many(&mut fast);
            let mut reference = blocks.clone();
            Speck96::new_crate_only(&key).encrypt_many(&mut reference);
            prop_assert_eq!(&fast, &reference);
            Speck96::new(&key).decrypt_many(&mut fast);
            prop_assert_eq!(fast, blocks);
        }
    }
}
