//! HMAC-SHA256 (RFC 2104 with SHA-256) of short messages at two compressions each.
//!
//! The key's inner and outer padded blocks are compressed once, when the key is set; a
//! message of at most 55 bytes then costs one compression of the message's one padded
//! block and one of the inner digest's, with no copy of a hasher's state and no
//! buffering. Lookup tokens are computed once per get, so this is on the path of every
//! read by key. Longer messages go through the `hmac` crate. The compression function
//! is `sha2`'s (SHA-NI where the processor has it); only the padding is written here.
//! Checked against the `hmac` crate (proptest) and RFC 4231's vectors.

use sha2::Digest;
use sha2::block_api::compress256;
use zeroize::Zeroize;

/// SHA-256's initial state (FIPS 180-4, 5.3.3).
const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// The longest message that fits one padded block (64 bytes less the 0x80 byte and the
/// 8-byte length).
const SHORT: usize = 55;

/// An HMAC-SHA256 key, ready for messages.
#[derive(Clone)]
pub struct Hmac256 {
    /// The state after the key's inner block (key ^ 0x36...).
    inner: [u32; 8],
    /// The state after the key's outer block (key ^ 0x5c...).
    outer: [u32; 8],
    /// For messages longer than [`SHORT`].
    full: hmac::Hmac<sha2::Sha256>,
}

impl Hmac256 {
    /// A key of any length (one longer than a block is hashed first, as RFC 2104 says).
    pub fn new(key: &[u8]) -> Hmac256 {
        let mut block = [0u8; 64];
        if key.len() > 64 {
            block[..32].copy_from_slice(&sha2::Sha256::digest(key));
        } else {
            block[..key.len()].copy_from_slice(key);
        }
        let pad = |byte: u8, block: &[u8; 64]| {
            let mut b = [0u8; 64];
            for (o, k) in b.iter_mut().zip(block) {
                *o = k ^ byte;
            }
            let mut state = IV;
            compress256(&mut state, &[b]);
            b.zeroize();
            state
        };
        let (inner, outer) = (pad(0x36, &block), pad(0x5c, &block));
        block.zeroize();
        Hmac256 {
            inner,
            outer,
            full: <hmac::Hmac<sha2::Sha256> as hmac::KeyInit>::new_from_slice(key)
                .expect("any key length"),
        }
    }

    /// HMAC-SHA256(key, `msg`).
    #[inline]
    pub fn mac(&self, msg: &[u8]) -> [u8; 32] {
        if msg.len() > SHORT {
            use hmac::Mac;
            let mut m = self.full.clone();
            m.update(msg);
            return m.finalize().into_bytes().into();
        }
        // The inner hash: the message after the key's block, padded to one block.
        let mut block = [0u8; 64];
        block[..msg.len()].copy_from_slice(msg);
        block[msg.len()] = 0x80;
        block[56..].copy_from_slice(&((64 + msg.len() as u64) * 8).to_be_bytes());
        let mut state = self.inner;
        compress256(&mut state, &[block]);
        // The outer hash: the inner digest after the key's other block.
        let mut block = [0u8; 64];
        for (i, w) in state.iter().enumerate() {
            block[4 * i..4 * i + 4].copy_from_slice(&w.to_be_bytes());
        }
        block[32] = 0x80;
        block[56..].copy_from_slice(&((64u64 + 32) * 8).to_be_bytes());
        let mut state = self.outer;
        compress256(&mut state, &[block]);
        let mut out = [0u8; 32];
        for (i, w) in state.iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&w.to_be_bytes());
        }
        out
    }
}

impl Drop for Hmac256 {
    fn drop(&mut self) {
        self.inner.zeroize();
        self.outer.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hmac::Mac;
    use proptest::prelude::*;

    fn reference(key: &[u8], msg: &[u8]) -> [u8; 32] {
        let mut m = <hmac::Hmac<sha2::Sha256> as hmac::KeyInit>::new_from_slice(key).unwrap();
        m.update(msg);
        m.finalize().into_bytes().into()
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn rfc_4231_vectors() {
        // Test cases 1, 2, 4 and 6 (a key longer than a block; a message longer than
        // one block).
        let cases: [(Vec<u8>, Vec<u8>, &str); 4] = [
            (
                vec![0x0b; 20],
                b"Hi There".to_vec(),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe".to_vec(),
                b"what do ya want for nothing?".to_vec(),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                hex("0102030405060708090a0b0c0d0e0f10111213141516171819"),
                vec![0xcd; 50],
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
            ),
            (
                vec![0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
        ];
        for (key, msg, want) in cases {
            assert_eq!(Hmac256::new(&key).mac(&msg).to_vec(), hex(want));
        }
    }

    #[test]
    fn every_length_around_the_one_block_edge() {
        let h = Hmac256::new(b"key");
        for n in 0..=130 {
            let msg: Vec<u8> = (0..n as u8).collect();
            assert_eq!(h.mac(&msg), reference(b"key", &msg), "length {n}");
        }
    }

    proptest! {
        #[test]
        fn agrees_with_the_hmac_crate(
            key in proptest::collection::vec(any::<u8>(), 0..150),
            msg in proptest::collection::vec(any::<u8>(), 0..120),
        ) {
            prop_assert_eq!(Hmac256::new(&key).mac(&msg), reference(&key, &msg));
        }
    }
}
