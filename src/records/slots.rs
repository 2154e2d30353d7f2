//! Key slots: the file's data key wrapped under each secret that may open the file
//! (keyring keys, passphrases), as they are written in header copies.

use super::RecordsError;
use super::codec::Cursor;
use super::crypto::random;
use crate::keys::{Keyring, MasterKey};
use aes_gcm_siv::Aes256GcmSiv;
use aes_gcm_siv::aead::{AeadInOut, KeyInit};
use zeroize::Zeroizing;

/// The most key slots of a file.
pub const MAX_SLOTS: usize = 16;
/// Bytes of one key slot in a format-1 header.
pub const SLOT_SIZE_V1: usize = 128;
/// Argon2id defaults (KiB, passes, lanes) of new passphrase slots.
pub const ARGON_DEFAULT: (u32, u32, u32) = (65_536, 3, 1);
/// The most Argon2id memory, passes and lanes a file may ask for.
pub const ARGON_CAP: (u32, u32, u32) = (1_048_576, 10, 4);

/// A key slot.
#[derive(Clone, PartialEq, Eq)]
pub enum Slot {
    /// Wrapped under a keyring key.
    Keyring {
        /// The key's id.
        key_id: u32,
        /// The key's fingerprint (`derive(key, "fingerprint", "", 8)`): slots are told
        /// apart by it, since two keyrings may hold keys with the same id.
        fingerprint: [u8; 8],
        /// Nonce and wrapped data key.
        wrapped: [u8; 60],
    },
    /// Wrapped under a passphrase through Argon2id.
    Passphrase {
        /// Memory (KiB), passes, lanes.
        params: (u32, u32, u32),
        /// Salt.
        salt: [u8; 16],
        /// Nonce and wrapped data key.
        wrapped: [u8; 60],
    },
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Slot({})", self.describe())
    }
}

/// A secret that can open (or create) key slots.
pub enum Unlock<'a> {
    /// A keyring: its current key makes slots; any key opens them.
    Keyring(&'a Keyring),
    /// A passphrase, and the Argon2id parameters (memory KiB, passes, lanes) of the
    /// slots it creates (opening uses the slot's own).
    Passphrase(&'a [u8], (u32, u32, u32)),
}

/// A keyring key's fingerprint, as slots record it and `veilkit keys` shows it.
pub fn fingerprint(k: &MasterKey) -> [u8; 8] {
    k.fingerprint()
}

/// A fingerprint in hex, as messages show it.
pub fn fingerprint_hex(fp: &[u8; 8]) -> String {
    crate::hex::lower_string(fp)
}

fn slot_kek_keyring(k: &MasterKey, file_id: &[u8; 16]) -> Zeroizing<[u8; 32]> {
    let mut kek = Zeroizing::new([0u8; 32]);
    k.derive("records/slot", file_id, kek.as_mut());
    kek
}

fn slot_kek_passphrase(
    pass: &[u8],
    salt: &[u8; 16],
    (m, t, p): (u32, u32, u32),
) -> Result<Zeroizing<[u8; 32]>, RecordsError> {
    if m > ARGON_CAP.0 || t > ARGON_CAP.1 || p > ARGON_CAP.2 {
        return Err(RecordsError::ArgonLimits { m, t, p });
    }
    let params = argon2::Params::new(m, t, p, Some(32)).map_err(|_| RecordsError::ArgonLimits {
        m,
        t,
        p,
    })?;
    let argon = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
    let mut kek = Zeroizing::new([0u8; 32]);
    argon
        .hash_password_into(pass, salt, kek.as_mut())
        .map_err(|_| RecordsError::ArgonLimits { m, t, p })?;
    Ok(kek)
}

/// Bytes of a slot's parameters after its kind byte (in the 40-byte head).
fn params_len(kind: u8) -> Option<usize> {
    match kind {
        1 => Some(12),
        2 => Some(28),
        _ => None,
    }
}

impl Slot {
    /// The slot's 40-byte head (kind and parameters, zero-padded), bound into the
    /// wrapping: keyring `1 ‖ key id (u32) ‖ fingerprint (8)`, passphrase `2 ‖ m ‖ t ‖
    /// p (u32 each) ‖ salt (16)`.
    fn head(&self) -> [u8; 40] {
        let mut b = [0u8; 40];
        match self {
            Slot::Keyring {
                key_id,
                fingerprint,
                ..
            } => {
                b[0] = 1;
                b[1..5].copy_from_slice(&key_id.to_le_bytes());
                b[5..13].copy_from_slice(fingerprint);
            }
            Slot::Passphrase { params, salt, .. } => {
                b[0] = 2;
                b[1..5].copy_from_slice(&params.0.to_le_bytes());
                b[5..9].copy_from_slice(&params.1.to_le_bytes());
                b[9..13].copy_from_slice(&params.2.to_le_bytes());
                b[13..29].copy_from_slice(salt);
            }
        }
        b
    }

    fn wrapped(&self) -> &[u8; 60] {
        match self {
            Slot::Keyring { wrapped, .. } | Slot::Passphrase { wrapped, .. } => wrapped,
        }
    }

    /// The slot as a format-1 header holds it (128 bytes: head, then nonce and wrapped
    /// key at offset 40).
    pub fn encode_v1(&self) -> [u8; SLOT_SIZE_V1] {
        let mut b = [0u8; SLOT_SIZE_V1];
        b[..40].copy_from_slice(&self.head());
        b[40..100].copy_from_slice(self.wrapped());
        b
    }

    /// The slot as a format-2 header holds it: `kind (u8) ‖ body length (u16) ‖ body`,
    /// the body being the head's parameters then the nonce and wrapped key.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let head = self.head();
        let n = params_len(head[0]).expect("a known kind");
        out.push(head[0]);
        out.extend_from_slice(&((n + 60) as u16).to_le_bytes());
        out.extend_from_slice(&head[1..1 + n]);
        out.extend_from_slice(self.wrapped());
    }

    /// Reads a slot written by [`Slot::encode`].
    pub fn decode(c: &mut Cursor<'_>) -> Option<Slot> {
        let kind = c.u8()?;
        let len = usize::from(c.u16()?);
        let body = c.bytes(len)?;
        let n = params_len(kind)?;
        if len != n + 60 {
            return None;
        }
        let mut head = [0u8; 40];
        head[0] = kind;
        head[1..1 + n].copy_from_slice(&body[..n]);
        let mut b = [0u8; SLOT_SIZE_V1];
        b[..40].copy_from_slice(&head);
        b[40..100].copy_from_slice(&body[n..]);
        Slot::decode_v1(&b)
    }

    /// Reads a slot of a format-1 header.
    pub fn decode_v1(b: &[u8]) -> Option<Slot> {
        let wrapped: [u8; 60] = b.get(40..100)?.try_into().ok()?;
        match b[0] {
            1 => Some(Slot::Keyring {
                key_id: u32::from_le_bytes(b[1..5].try_into().ok()?),
                fingerprint: b[5..13].try_into().ok()?,
                wrapped,
            }),
            2 => Some(Slot::Passphrase {
                params: (
                    u32::from_le_bytes(b[1..5].try_into().ok()?),
                    u32::from_le_bytes(b[5..9].try_into().ok()?),
                    u32::from_le_bytes(b[9..13].try_into().ok()?),
                ),
                salt: b[13..29].try_into().ok()?,
                wrapped,
            }),
            _ => None,
        }
    }

    /// `AES-256-GCM-SIV(KEK, nonce, data key, AAD = "veilkit-records-slot" ‖ file id ‖
    /// head)`: nonce ‖ ciphertext ‖ tag.
    fn wrap(
        kek: &[u8; 32],
        head: [u8; 40],
        file_id: &[u8; 16],
        data_key: &[u8; 32],
    ) -> Result<[u8; 60], RecordsError> {
        let cipher = Aes256GcmSiv::new_from_slice(kek).expect("32-byte key");
        let mut nonce = [0u8; 12];
        random(&mut nonce)?;
        let mut buf = Zeroizing::new(*data_key);
        let aad = [&b"veilkit-records-slot"[..], file_id, &head].concat();
        let tag = cipher
            .encrypt_inout_detached(&nonce.into(), &aad, buf.as_mut_slice().into())
            .map_err(|_| RecordsError::TooLarge)?;
        let mut out = [0u8; 60];
        out[..12].copy_from_slice(&nonce);
        out[12..44].copy_from_slice(buf.as_ref());
        out[44..].copy_from_slice(&tag);
        Ok(out)
    }

    fn unwrap_with(&self, kek: &[u8; 32], file_id: &[u8; 16]) -> Option<Zeroizing<[u8; 32]>> {
        let cipher = Aes256GcmSiv::new_from_slice(kek).expect("32-byte key");
        let w = self.wrapped();
        let nonce: [u8; 12] = w[..12].try_into().ok()?;
        let tag: [u8; 16] = w[44..].try_into().ok()?;
        let mut buf = Zeroizing::new([0u8; 32]);
        buf.copy_from_slice(&w[12..44]);
        let aad = [&b"veilkit-records-slot"[..], file_id, &self.head()].concat();
        cipher
            .decrypt_inout_detached(&nonce.into(), &aad, buf.as_mut_slice().into(), &tag.into())
            .ok()?;
        Some(buf)
    }

    /// A new slot holding `data_key` for `unlock` (the keyring's current key, or the
    /// passphrase with its Argon2id parameters).
    pub fn create(
        unlock: &Unlock<'_>,
        file_id: &[u8; 16],
        data_key: &[u8; 32],
    ) -> Result<Slot, RecordsError> {
        match unlock {
            Unlock::Keyring(ring) => Slot::for_key(ring.current(), file_id, data_key),
            Unlock::Passphrase(pass, params) => {
                Slot::for_passphrase(pass, *params, file_id, data_key)
            }
        }
    }

    /// A new slot holding `data_key` under one keyring key.
    pub fn for_key(
        k: &MasterKey,
        file_id: &[u8; 16],
        data_key: &[u8; 32],
    ) -> Result<Slot, RecordsError> {
        let mut slot = Slot::Keyring {
            key_id: k.id(),
            fingerprint: fingerprint(k),
            wrapped: [0; 60],
        };
        let kek = slot_kek_keyring(k, file_id);
        let w = Slot::wrap(&kek, slot.head(), file_id, data_key)?;
        if let Slot::Keyring { wrapped, .. } = &mut slot {
            *wrapped = w;
        }
        Ok(slot)
    }

    /// A new slot holding `data_key` under a passphrase, with Argon2id `params`.
    pub fn for_passphrase(
        pass: &[u8],
        params: (u32, u32, u32),
        file_id: &[u8; 16],
        data_key: &[u8; 32],
    ) -> Result<Slot, RecordsError> {
        let (m, t, p) = params;
        if m > ARGON_CAP.0 || t > ARGON_CAP.1 || p > ARGON_CAP.2 || m < 8 * p || t == 0 || p == 0 {
            return Err(RecordsError::ArgonLimits { m, t, p });
        }
        let mut salt = [0u8; 16];
        random(&mut salt)?;
        let mut slot = Slot::Passphrase {
            params,
            salt,
            wrapped: [0; 60],
        };
        let kek = slot_kek_passphrase(pass, &salt, params)?;
        let w = Slot::wrap(&kek, slot.head(), file_id, data_key)?;
        if let Slot::Passphrase { wrapped, .. } = &mut slot {
            *wrapped = w;
        }
        Ok(slot)
    }

    /// Whether `unlock` is the kind of secret this slot needs (and, for a keyring,
    /// holds its key: same id and fingerprint).
    pub fn matches(&self, unlock: &Unlock<'_>) -> bool {
        match (self, unlock) {
            (
                Slot::Keyring {
                    key_id,
                    fingerprint: fp,
                    ..
                },
                Unlock::Keyring(ring),
            ) => ring.get(*key_id).is_some_and(|k| fingerprint(k) == *fp),
            (Slot::Passphrase { .. }, Unlock::Passphrase(..)) => true,
            _ => false,
        }
    }

    /// Whether this is the slot of keyring key `k` (same id and fingerprint).
    pub fn is_key(&self, k: &MasterKey) -> bool {
        matches!(self, Slot::Keyring { key_id, fingerprint: fp, .. }
            if *key_id == k.id() && *fp == fingerprint(k))
    }

    /// Unwraps the data key with `unlock`, if it opens this slot.
    pub fn open(
        &self,
        unlock: &Unlock<'_>,
        file_id: &[u8; 16],
    ) -> Result<Option<Zeroizing<[u8; 32]>>, RecordsError> {
        match (self, unlock) {
            (
                Slot::Keyring {
                    key_id,
                    fingerprint: fp,
                    ..
                },
                Unlock::Keyring(ring),
            ) => match ring.get(*key_id).filter(|k| fingerprint(k) == *fp) {
                Some(k) => Ok(self.unwrap_with(&slot_kek_keyring(k, file_id), file_id)),
                None => Ok(None),
            },
            (Slot::Passphrase { params, salt, .. }, Unlock::Passphrase(pass, _)) => {
                let kek = slot_kek_passphrase(pass, salt, *params)?;
                Ok(self.unwrap_with(&kek, file_id))
            }
            _ => Ok(None),
        }
    }

    /// The slot as `info` and messages show it: `keyring key 1 (fingerprint
    /// 3f2a...)`, `passphrase (Argon2id m=64 MiB, t=3, p=1)`.
    pub fn describe(&self) -> String {
        match self {
            Slot::Keyring {
                key_id,
                fingerprint,
                ..
            } => format!(
                "keyring key {key_id} (fingerprint {})",
                fingerprint_hex(fingerprint)
            ),
            Slot::Passphrase { params, .. } => format!(
                "passphrase (Argon2id m={} MiB, t={}, p={})",
                params.0 / 1024,
                params.1,
                params.2
            ),
        }
    }
}

/// Tries every slot with every secret given; the data key of the first that opens.
pub fn open_any(
    slots: &[Slot],
    file_id: &[u8; 16],
    unlocks: &[Unlock<'_>],
) -> Result<Option<Zeroizing<[u8; 32]>>, RecordsError> {
    for u in unlocks {
        for s in slots {
            if s.matches(u)
                && let Some(dk) = s.open(u, file_id)?
            {
                return Ok(Some(dk));
            }
        }
    }
    Ok(None)
}

/// The slots of a new file for `unlocks`.
pub fn slots_for(
    unlocks: &[Unlock<'_>],
    file_id: &[u8; 16],
    data_key: &[u8; 32],
) -> Result<Vec<Slot>, RecordsError> {
    unlocks
        .iter()
        .map(|u| Slot::create(u, file_id, data_key))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_open_with_their_secret_only() {
        let ring = Keyring::generate().unwrap();
        let other = Keyring::generate().unwrap();
        let id = [1u8; 16];
        let dk = [42u8; 32];
        let s = Slot::create(&Unlock::Keyring(&ring), &id, &dk).unwrap();
        assert_eq!(*s.open(&Unlock::Keyring(&ring), &id).unwrap().unwrap(), dk);
        assert!(s.open(&Unlock::Keyring(&other), &id).unwrap().is_none());
        assert!(
            s.open(&Unlock::Keyring(&ring), &[2u8; 16])
                .unwrap()
                .is_none()
        );
        assert_eq!(Slot::decode_v1(&s.encode_v1()).unwrap(), s);
        let mut b = Vec::new();
        s.encode(&mut b);
        assert_eq!(b.len(), 3 + 72);
        assert_eq!(Slot::decode(&mut Cursor::new(&b)).unwrap(), s);
        let p = Slot::for_passphrase(b"pw", (8, 1, 1), &id, &dk).unwrap();
        let mut b = Vec::new();
        p.encode(&mut b);
        assert_eq!(b.len(), 3 + 88);
        assert_eq!(Slot::decode(&mut Cursor::new(&b)).unwrap(), p);
        // A hostile file cannot demand more than the caps.
        let hostile = Slot::Passphrase {
            params: (u32::MAX, 1, 1),
            salt: [0; 16],
            wrapped: [0; 60],
        };
        assert!(matches!(
            hostile.open(&Unlock::Passphrase(b"x", ARGON_DEFAULT), &id),
            Err(RecordsError::ArgonLimits { .. })
        ));
    }
}
