//! Key slots: the file's data key wrapped under each secret that may open the file
//! (keyring keys, passphrases, age X25519 recipients), as they are written in header
//! copies.

use super::RecordsError;
use super::aead::GcmSiv;
use super::age::{Identity, Recipient};
use super::codec::Cursor;
use super::crypto::random;
use crate::keys::{Keyring, MasterKey};
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
    /// Wrapped to an age X25519 recipient: a random 16-byte file key in age's X25519
    /// stanza, and the data key under a key derived from that file key.
    Recipient {
        /// The recipient's public key.
        recipient: [u8; 32],
        /// The stanza's ephemeral share.
        share: [u8; 32],
        /// The stanza's body: the wrapped file key and its tag.
        body: [u8; 32],
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
    /// age identities: they open recipient slots.
    Identities(&'a [Identity]),
    /// An age recipient: it makes slots and opens none.
    Recipient(Recipient),
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

/// `derive(file key, 0, "records/slot-x25519", file id, 32)`: the key that wraps the
/// data key in a recipient slot.
fn slot_kek_recipient(file_key: &[u8; 16], file_id: &[u8; 16]) -> Zeroizing<[u8; 32]> {
    let mut kek = Zeroizing::new([0u8; 32]);
    crate::keys::derive(file_key, 0, "records/slot-x25519", file_id, kek.as_mut());
    kek
}

/// Bytes of a slot's parameters after its kind byte (in the 40-byte head).
fn params_len(kind: u8) -> Option<usize> {
    match kind {
        1 => Some(12),
        2 => Some(28),
        3 => Some(32),
        _ => None,
    }
}

/// Bytes of a slot's body in a format-2 header (parameters, the stanza of a recipient
/// slot, the wrapped key).
fn body_len(kind: u8) -> Option<usize> {
    Some(params_len(kind)? + if kind == 3 { 64 } else { 0 } + 60)
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
            Slot::Recipient { recipient, .. } => {
                b[0] = 3;
                b[1..33].copy_from_slice(recipient);
            }
        }
        b
    }

    fn wrapped(&self) -> &[u8; 60] {
        match self {
            Slot::Keyring { wrapped, .. }
            | Slot::Passphrase { wrapped, .. }
            | Slot::Recipient { wrapped, .. } => wrapped,
        }
    }

    /// The slot as a format-1 header holds it (128 bytes: head, then nonce and wrapped
    /// key at offset 40). Tests only: veilkit writes format-2 headers.
    #[cfg(test)]
    pub fn encode_v1(&self) -> [u8; SLOT_SIZE_V1] {
        let mut b = [0u8; SLOT_SIZE_V1];
        b[..40].copy_from_slice(&self.head());
        b[40..100].copy_from_slice(self.wrapped());
        b
    }

    /// The slot as a format-2 header holds it: `kind (u8) ‖ body length (u16) ‖ body`,
    /// the body being the head's parameters, a recipient slot's stanza (share, body),
    /// then the nonce and wrapped key.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let head = self.head();
        let n = params_len(head[0]).expect("a known kind");
        out.push(head[0]);
        out.extend_from_slice(&(body_len(head[0]).expect("a known kind") as u16).to_le_bytes());
        out.extend_from_slice(&head[1..1 + n]);
        if let Slot::Recipient { share, body, .. } = self {
            out.extend_from_slice(share);
            out.extend_from_slice(body);
        }
        out.extend_from_slice(self.wrapped());
    }

    /// The bytes [`Slot::encode`] writes.
    pub fn encoded_len(&self) -> usize {
        3 + body_len(self.head()[0]).expect("a known kind")
    }

    /// Reads a slot written by [`Slot::encode`]. `Err` carries the kind of a slot this
    /// veilkit does not know (written by a newer one); `Ok(None)`, a malformed slot.
    pub fn decode(c: &mut Cursor<'_>) -> Result<Option<Slot>, u8> {
        let (Some(kind), Some(len)) = (c.u8(), c.u16()) else {
            return Ok(None);
        };
        let Some(body) = c.bytes(usize::from(len)) else {
            return Ok(None);
        };
        let (Some(n), Some(want)) = (params_len(kind), body_len(kind)) else {
            return Err(kind);
        };
        if usize::from(len) != want {
            return Ok(None);
        }
        if kind == 3 {
            let part =
                |r: std::ops::Range<usize>| -> [u8; 32] { body[r].try_into().expect("32 bytes") };
            return Ok(Some(Slot::Recipient {
                recipient: part(0..32),
                share: part(32..64),
                body: part(64..96),
                wrapped: body[96..156].try_into().expect("60 bytes"),
            }));
        }
        let mut head = [0u8; 40];
        head[0] = kind;
        head[1..1 + n].copy_from_slice(&body[..n]);
        let mut b = [0u8; SLOT_SIZE_V1];
        b[..40].copy_from_slice(&head);
        b[40..100].copy_from_slice(&body[n..]);
        Ok(Slot::decode_v1(&b))
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
        let mut nonce = [0u8; 12];
        random(&mut nonce)?;
        Ok(Slot::wrap_nonce(kek, head, file_id, data_key, nonce))
    }

    fn wrap_nonce(
        kek: &[u8; 32],
        head: [u8; 40],
        file_id: &[u8; 16],
        data_key: &[u8; 32],
        nonce: [u8; 12],
    ) -> [u8; 60] {
        let mut buf = Zeroizing::new(*data_key);
        let aad = [&b"veilkit-records-slot"[..], file_id, &head].concat();
        let tag = GcmSiv::new(kek)
            .seal(&nonce, &aad, buf.as_mut_slice())
            .expect("32 bytes are far below the AEAD's limit");
        let mut out = [0u8; 60];
        out[..12].copy_from_slice(&nonce);
        out[12..44].copy_from_slice(buf.as_ref());
        out[44..].copy_from_slice(&tag);
        out
    }

    fn unwrap_with(&self, kek: &[u8; 32], file_id: &[u8; 16]) -> Option<Zeroizing<[u8; 32]>> {
        let w = self.wrapped();
        let nonce: [u8; 12] = w[..12].try_into().ok()?;
        let aad = [&b"veilkit-records-slot"[..], file_id, &self.head()].concat();
        let mut buf = Zeroizing::new([0u8; 32]);
        GcmSiv::new(kek)
            .open_into(&nonce, &aad, &w[12..60], buf.as_mut_slice())
            .then_some(buf)
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
            Unlock::Recipient(r) => Slot::for_recipient(r, file_id, data_key),
            // Identities seal for their recipients: [`slots_for`] makes one slot each.
            Unlock::Identities(ids) => match ids.first() {
                Some(id) => Slot::for_recipient(&id.recipient(), file_id, data_key),
                None => Err(RecordsError::SlotCount(0)),
            },
        }
    }

    /// A new slot holding `data_key` for an age X25519 recipient: a random file key
    /// wrapped in age's stanza under a random ephemeral secret.
    pub fn for_recipient(
        r: &Recipient,
        file_id: &[u8; 16],
        data_key: &[u8; 32],
    ) -> Result<Slot, RecordsError> {
        let mut file_key = Zeroizing::new([0u8; 16]);
        random(file_key.as_mut())?;
        let mut ephemeral = Zeroizing::new([0u8; 32]);
        random(ephemeral.as_mut())?;
        let (share, body) =
            super::age::wrap_with(r, *ephemeral, &file_key).ok_or(RecordsError::BadRecipient)?;
        Slot::for_recipient_with(r, share, body, &file_key, file_id, data_key)
    }

    /// A recipient slot from a stanza already made for `file_key`.
    fn for_recipient_with(
        r: &Recipient,
        share: [u8; 32],
        body: [u8; 32],
        file_key: &[u8; 16],
        file_id: &[u8; 16],
        data_key: &[u8; 32],
    ) -> Result<Slot, RecordsError> {
        let mut slot = Slot::Recipient {
            recipient: r.0,
            share,
            body,
            wrapped: [0; 60],
        };
        let kek = slot_kek_recipient(file_key, file_id);
        let w = Slot::wrap(&kek, slot.head(), file_id, data_key)?;
        if let Slot::Recipient { wrapped, .. } = &mut slot {
            *wrapped = w;
        }
        Ok(slot)
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
            (Slot::Recipient { recipient, .. }, Unlock::Identities(ids)) => {
                ids.iter().any(|i| i.recipient().0 == *recipient)
            }
            _ => false,
        }
    }

    /// Whether this is the slot of recipient `r`.
    pub fn is_recipient(&self, r: &Recipient) -> bool {
        matches!(self, Slot::Recipient { recipient, .. } if *recipient == r.0)
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
            (
                Slot::Recipient {
                    recipient,
                    share,
                    body,
                    ..
                },
                Unlock::Identities(ids),
            ) => {
                for id in ids.iter().filter(|i| i.recipient().0 == *recipient) {
                    if let Some(fk) = id.unwrap(share, body)
                        && let Some(dk) =
                            self.unwrap_with(&slot_kek_recipient(&fk, file_id), file_id)
                    {
                        return Ok(Some(dk));
                    }
                }
                Ok(None)
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
            Slot::Recipient { recipient, .. } => {
                format!("age recipient {}", Recipient(*recipient))
            }
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

/// The slots of a new file for `unlocks`: one for each (each identity's recipient
/// for identities), a recipient given twice once.
pub fn slots_for(
    unlocks: &[Unlock<'_>],
    file_id: &[u8; 16],
    data_key: &[u8; 32],
) -> Result<Vec<Slot>, RecordsError> {
    let mut out: Vec<Slot> = Vec::new();
    let mut recipients: Vec<Recipient> = Vec::new();
    for u in unlocks {
        match u {
            Unlock::Identities(ids) => recipients.extend(ids.iter().map(Identity::recipient)),
            Unlock::Recipient(r) => recipients.push(*r),
            _ => out.push(Slot::create(u, file_id, data_key)?),
        }
    }
    for (i, r) in recipients.iter().enumerate() {
        if !recipients[..i].contains(r) {
            out.push(Slot::for_recipient(r, file_id, data_key)?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        crate::hex::lower_string(b)
    }

    /// The recipient slot vector of docs/RECORDS-FORMAT.md.
    #[test]
    fn recipient_slot_vector() {
        let id = Identity::parse(
            "AGE-SECRET-KEY-1Q8THDLU2EMXLSGHEVG3YC0FVS8NZ5WJKSEYN0AKUDQ5V3K5MMGZQW6RHAA",
        )
        .unwrap();
        let r = id.recipient();
        let file_id = [0x01u8; 16];
        let dk = [0x2au8; 32];
        let file_key = [0x07u8; 16];
        let (share, body) = super::super::age::wrap_with(&r, [0x09u8; 32], &file_key).unwrap();
        let kek = slot_kek_recipient(&file_key, &file_id);
        let mut head = [0u8; 40];
        head[0] = 3;
        head[1..33].copy_from_slice(&r.0);
        let wrapped = Slot::wrap_nonce(&kek, head, &file_id, &dk, [0x0bu8; 12]);
        let slot = Slot::Recipient {
            recipient: r.0,
            share,
            body,
            wrapped,
        };
        let mut enc = Vec::new();
        slot.encode(&mut enc);
        let doc = include_str!("../../docs/RECORDS-FORMAT.md");
        let section = doc
            .split("#### Recipient slot test vector")
            .nth(1)
            .expect("the vector's section");
        let want = |field: &str| -> String {
            section
                .lines()
                .find_map(|l| l.strip_prefix(&format!("| {field} | `")))
                .and_then(|l| l.split('`').next())
                .unwrap_or_else(|| panic!("row {field}"))
                .to_string()
        };
        assert_eq!(r.to_string(), want("recipient"));
        assert_eq!(hex(&share), want("share"));
        assert_eq!(hex(&body), want("body"));
        assert_eq!(hex(kek.as_ref()), want("KEK"));
        assert_eq!(hex(&wrapped), want("wrapped"));
        assert_eq!(hex(&enc), want("slot"));
        assert_eq!(enc.len(), 3 + 156);
        let back = Slot::decode(&mut Cursor::new(&enc)).unwrap().unwrap();
        assert_eq!(back, slot);
        let ids = [id];
        let u = Unlock::Identities(&ids);
        assert!(back.matches(&u));
        assert_eq!(*back.open(&u, &file_id).unwrap().unwrap(), dk);
    }

    #[test]
    fn recipient_slots_open_with_their_identity_only() {
        let id = Identity::parse(
            "AGE-SECRET-KEY-1Q8THDLU2EMXLSGHEVG3YC0FVS8NZ5WJKSEYN0AKUDQ5V3K5MMGZQW6RHAA",
        )
        .unwrap();
        let other = Identity::parse(
            "AGE-SECRET-KEY-1H9K9VTAQPFT74C7AKL6UM5NHYHTXPAALAA5C09P0PPHFTLFQ2A3SPRMS6G",
        )
        .unwrap();
        let file_id = [3u8; 16];
        let dk = [5u8; 32];
        let s = Slot::for_recipient(&id.recipient(), &file_id, &dk).unwrap();
        let both = [other.clone(), id.clone()];
        assert_eq!(
            *s.open(&Unlock::Identities(&both), &file_id)
                .unwrap()
                .unwrap(),
            dk
        );
        let only_other = [other];
        assert!(!s.matches(&Unlock::Identities(&only_other)));
        assert!(
            s.open(&Unlock::Identities(&only_other), &file_id)
                .unwrap()
                .is_none()
        );
        // Another file's id, or a recipient slot claiming another recipient, fails.
        let one = [id.clone()];
        assert!(
            s.open(&Unlock::Identities(&one), &[4u8; 16])
                .unwrap()
                .is_none()
        );
        let ring = Keyring::generate().unwrap();
        assert!(s.open(&Unlock::Keyring(&ring), &file_id).unwrap().is_none());
        assert!(
            s.open(&Unlock::Passphrase(b"pw", (8, 1, 1)), &file_id)
                .unwrap()
                .is_none()
        );
        if let Slot::Recipient {
            mut share,
            recipient,
            body,
            wrapped,
        } = s.clone()
        {
            share[5] ^= 1;
            let forged = Slot::Recipient {
                recipient,
                share,
                body,
                wrapped,
            };
            assert!(
                forged
                    .open(&Unlock::Identities(&one), &file_id)
                    .unwrap()
                    .is_none()
            );
        }
        // An unknown kind is told apart from a malformed slot.
        assert_eq!(Slot::decode(&mut Cursor::new(&[9, 0, 0])), Err(9));
        assert_eq!(Slot::decode(&mut Cursor::new(&[3, 1, 0, 0])), Ok(None));
    }

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
        assert_eq!(Slot::decode(&mut Cursor::new(&b)).unwrap().unwrap(), s);
        let p = Slot::for_passphrase(b"pw", (8, 1, 1), &id, &dk).unwrap();
        let mut b = Vec::new();
        p.encode(&mut b);
        assert_eq!(b.len(), 3 + 88);
        assert_eq!(Slot::decode(&mut Cursor::new(&b)).unwrap().unwrap(), p);
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
