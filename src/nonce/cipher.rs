//! Block ciphers of each nonce width, from well-kept crates: Blowfish (64 bits),
//! Speck96/144 (96 bits; eight blocks at a time where the CPU allows, see
//! [`speck`](super::speck)), AES-256 (128 bits).

use super::Width;
use crate::keys::MasterKey;
use ::aes::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use zeroize::Zeroizing;

/// A keyed permutation of one width's values.
#[derive(Clone)]
pub enum NonceCipher {
    /// Blowfish with a 16-byte key.
    Blowfish(Box<blowfish::Blowfish>),
    /// Speck96/144.
    Speck96(Box<super::speck::Speck96>),
    /// AES-256.
    Aes256(Box<::aes::Aes256>),
}

impl NonceCipher {
    /// The cipher of `width` under the subkey `key` derives for encrypted nonces.
    pub fn new(width: Width, key: &MasterKey) -> NonceCipher {
        match width {
            Width::W64 => {
                let mut k = Zeroizing::new([0u8; 16]);
                key.derive("nonces/blowfish-64", b"", k.as_mut());
                NonceCipher::Blowfish(Box::new(
                    blowfish::Blowfish::new_from_slice(k.as_ref()).expect("16-byte keys are valid"),
                ))
            }
            Width::W96 => {
                let mut k = Zeroizing::new([0u8; 18]);
                key.derive("nonces/speck-96", b"", k.as_mut());
                NonceCipher::Speck96(Box::new(super::speck::Speck96::new(&k)))
            }
            Width::W128 => {
                let mut k = Zeroizing::new([0u8; 32]);
                key.derive("nonces/aes-256", b"", k.as_mut());
                NonceCipher::Aes256(Box::new(::aes::Aes256::new(&Array::from(*k))))
            }
        }
    }

    /// The cipher with a raw key (test vectors).
    pub fn from_raw(width: Width, key: &[u8]) -> Option<NonceCipher> {
        Some(match width {
            Width::W64 => {
                NonceCipher::Blowfish(Box::new(blowfish::Blowfish::new_from_slice(key).ok()?))
            }
            Width::W96 => {
                NonceCipher::Speck96(Box::new(super::speck::Speck96::new(key.try_into().ok()?)))
            }
            Width::W128 => NonceCipher::Aes256(Box::new(::aes::Aes256::new_from_slice(key).ok()?)),
        })
    }

    /// Its width.
    pub fn width(&self) -> Width {
        match self {
            NonceCipher::Blowfish(_) => Width::W64,
            NonceCipher::Speck96(_) => Width::W96,
            NonceCipher::Aes256(_) => Width::W128,
        }
    }

    /// Encrypts values in place (big-endian blocks of the width).
    pub fn encrypt_many(&self, values: &mut [u128]) {
        match self {
            NonceCipher::Aes256(c) => {
                const CHUNK: usize = 64;
                let mut blocks = [Array::from([0u8; 16]); CHUNK];
                for vs in values.chunks_mut(CHUNK) {
                    let b = &mut blocks[..vs.len()];
                    for (blk, v) in b.iter_mut().zip(vs.iter()) {
                        *blk = Array::from(v.to_be_bytes());
                    }
                    c.encrypt_blocks(b);
                    for (blk, v) in b.iter().zip(vs.iter_mut()) {
                        *v = u128::from_be_bytes((*blk).into());
                    }
                }
            }
            NonceCipher::Speck96(c) => c.encrypt_many(values),
            NonceCipher::Blowfish(c) => {
                for v in values.iter_mut() {
                    let mut b = Array::from((*v as u64).to_be_bytes());
                    c.encrypt_block(&mut b);
                    *v = u128::from(u64::from_be_bytes(b.into()));
                }
            }
        }
    }

    /// Decrypts values in place.
    pub fn decrypt_many(&self, values: &mut [u128]) {
        match self {
            NonceCipher::Aes256(c) => {
                for v in values.iter_mut() {
                    let mut b = Array::from(v.to_be_bytes());
                    c.decrypt_block(&mut b);
                    *v = u128::from_be_bytes(b.into());
                }
            }
            NonceCipher::Speck96(c) => c.decrypt_many(values),
            NonceCipher::Blowfish(c) => {
                for v in values.iter_mut() {
                    let mut b = Array::from((*v as u64).to_be_bytes());
                    c.decrypt_block(&mut b);
                    *v = u128::from(u64::from_be_bytes(b.into()));
                }
            }
        }
    }
}
