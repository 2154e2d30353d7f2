//! The record file format, version 1 (`docs/RECORDS-FORMAT.md`): header copies, key
//! slots, the root, and page sealing.

use super::RecordsError;
use crate::keys::{Keyring, MasterKey};
use aes_gcm_siv::Aes256GcmSiv;
use aes_gcm_siv::aead::{AeadInOut, KeyInit};
use hmac::Mac;
use xxhash_rust::xxh3::xxh3_64;
use zeroize::Zeroizing;

/// Magic of a record file.
pub const MAGIC: &[u8; 8] = b"VKRECORD";
/// The format version this code writes and reads.
pub const VERSION: u32 = 1;
/// Size of one header copy.
pub const HEADER_SIZE: usize = 64 * 1024;
/// Bytes of one key slot.
pub const SLOT_SIZE: usize = 128;
/// The most key slots.
pub const MAX_SLOTS: usize = 16;
/// Where the root's length field starts.
pub const ROOT_AT: usize = 48 + MAX_SLOTS * SLOT_SIZE;
/// Bytes a page spends on its nonce and tag.
pub const PAGE_OVERHEAD: usize = 28;
/// Whether a page size is allowed: a power of two from 512 bytes to 1 MiB.
pub fn valid_page_size(p: u32) -> bool {
    p.is_power_of_two() && (512..=1 << 20).contains(&p)
}

/// The default page size.
pub const DEFAULT_PAGE_SIZE: u32 = 4096;
/// Argon2id defaults (KiB, passes, lanes) and the caps applied when reading.
pub const ARGON_DEFAULT: (u32, u32, u32) = (65_536, 3, 1);
/// The most Argon2id memory, passes and lanes a file may ask for.
pub const ARGON_CAP: (u32, u32, u32) = (1_048_576, 10, 4);

/// Page kinds, bound into each page's associated data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// Records.
    Data = 1,
    /// Token index.
    Index = 2,
    /// Directory of data pages.
    DataDir = 3,
    /// Directory of index pages.
    IndexDir = 4,
    /// The input's header row.
    Prefix = 5,
}

/// A reference to a page: where it is, the generation that wrote it, and a count (live
/// records of a data page; entries of a directory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PageRef {
    /// Physical page number.
    pub physical: u64,
    /// Generation that wrote it.
    pub generation: u64,
    /// Records or entries it holds.
    pub count: u64,
}

/// The input format recorded in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// One record per line; the key is the record number.
    Lines = 1,
    /// Comma-separated values.
    Csv = 2,
    /// Tab-separated values.
    Tsv = 3,
    /// JSON lines.
    Jsonl = 4,
}

impl InputFormat {
    fn from_code(c: u8) -> Option<InputFormat> {
        Some(match c {
            1 => InputFormat::Lines,
            2 => InputFormat::Csv,
            3 => InputFormat::Tsv,
            4 => InputFormat::Jsonl,
            _ => return None,
        })
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Lines => "lines",
            InputFormat::Csv => "csv",
            InputFormat::Tsv => "tsv",
            InputFormat::Jsonl => "jsonl",
        }
    }
}

/// The decrypted root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Live records.
    pub records: u64,
    /// The key of the next appended line (line files).
    pub next_number: u64,
    /// The last generation used.
    pub generation: u64,
    /// Physical pages allocated.
    pub allocated: u64,
    /// The input format.
    pub format: InputFormat,
    /// Whether the input had a header row.
    pub header_row: bool,
    /// The key field (number or name), empty for line files.
    pub key_field: String,
    /// Index buckets.
    pub buckets: u32,
    /// The header row's page.
    pub prefix: Option<PageRef>,
    /// Directory pages of the data pages.
    pub data_dirs: Vec<PageRef>,
    /// Directory pages of the index pages.
    pub index_dirs: Vec<PageRef>,
}

/// Appends a varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint at `*at`, advancing it.
pub fn get_varint(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn put_ref(out: &mut Vec<u8>, r: &PageRef) {
    out.extend_from_slice(&r.physical.to_le_bytes());
    out.extend_from_slice(&r.generation.to_le_bytes());
    out.extend_from_slice(&r.count.to_le_bytes());
}

/// A little reader over a byte slice.
pub struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// Reads from `b`.
    pub fn new(b: &'a [u8]) -> Self {
        Cursor { b, at: 0 }
    }
    /// `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    /// A u8.
    pub fn u8(&mut self) -> Option<u8> {
        Some(self.bytes(1)?[0])
    }
    /// A u16.
    pub fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.bytes(2)?.try_into().ok()?))
    }
    /// A u32.
    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.bytes(4)?.try_into().ok()?))
    }
    /// A u64.
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }
    /// A page ref.
    pub fn page_ref(&mut self) -> Option<PageRef> {
        Some(PageRef {
            physical: self.u64()?,
            generation: self.u64()?,
            count: self.u64()?,
        })
    }
    /// A varint.
    pub fn varint(&mut self) -> Option<u64> {
        get_varint(self.b, &mut self.at)
    }
}

impl Root {
    /// The root's plaintext.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(128 + 24 * (self.data_dirs.len() + self.index_dirs.len()));
        for v in [
            self.records,
            self.next_number,
            self.generation,
            self.allocated,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.push(self.format as u8);
        b.push(u8::from(self.header_row));
        b.extend_from_slice(&(self.key_field.len() as u32).to_le_bytes());
        b.extend_from_slice(self.key_field.as_bytes());
        b.extend_from_slice(&self.buckets.to_le_bytes());
        match &self.prefix {
            Some(r) => {
                b.push(1);
                put_ref(&mut b, r);
            }
            None => b.push(0),
        }
        for list in [&self.data_dirs, &self.index_dirs] {
            b.extend_from_slice(&(list.len() as u32).to_le_bytes());
            for r in list.iter() {
                put_ref(&mut b, r);
            }
        }
        b
    }

    /// Parses a decrypted root.
    pub fn decode(b: &[u8]) -> Option<Root> {
        let mut c = Cursor::new(b);
        let records = c.u64()?;
        let next_number = c.u64()?;
        let generation = c.u64()?;
        let allocated = c.u64()?;
        let format = InputFormat::from_code(c.u8()?)?;
        let header_row = c.u8()? == 1;
        let klen = c.u32()? as usize;
        let key_field = String::from_utf8(c.bytes(klen)?.to_vec()).ok()?;
        let buckets = c.u32()?;
        let prefix = match c.u8()? {
            0 => None,
            _ => Some(c.page_ref()?),
        };
        let mut lists = [Vec::new(), Vec::new()];
        for list in lists.iter_mut() {
            let n = c.u32()? as usize;
            if n > b.len() / 24 {
                return None;
            }
            for _ in 0..n {
                list.push(c.page_ref()?);
            }
        }
        let [data_dirs, index_dirs] = lists;
        Some(Root {
            records,
            next_number,
            generation,
            allocated,
            format,
            header_row,
            key_field,
            buckets,
            prefix,
            data_dirs,
            index_dirs,
        })
    }
}

/// The keys of an open file: pages, tokens.
pub struct FileKeys {
    pages: Aes256GcmSiv,
    tokens: hmac::Hmac<sha2::Sha256>,
    data_key: Zeroizing<[u8; 32]>,
}

impl FileKeys {
    /// Subkeys of a data key.
    pub fn new(data_key: &[u8; 32]) -> FileKeys {
        let mut pk = Zeroizing::new([0u8; 32]);
        crate::keys::derive(data_key, 0, "records/pages", b"", pk.as_mut());
        let mut tk = Zeroizing::new([0u8; 32]);
        crate::keys::derive(data_key, 0, "records/tokens", b"", tk.as_mut());
        FileKeys {
            pages: Aes256GcmSiv::new_from_slice(pk.as_ref()).expect("32-byte key"),
            tokens: <hmac::Hmac<sha2::Sha256> as hmac::KeyInit>::new_from_slice(tk.as_ref())
                .expect("any key length"),
            data_key: Zeroizing::new(*data_key),
        }
    }

    /// The data key (to wrap it into new slots).
    pub fn data_key(&self) -> &[u8; 32] {
        &self.data_key
    }

    /// The lookup token of a key.
    #[inline]
    pub fn token(&self, key: &[u8]) -> u64 {
        let mut m = self.tokens.clone();
        m.update(key);
        let out = m.finalize().into_bytes();
        u64::from_le_bytes(out[..8].try_into().expect("8 bytes"))
    }

    /// Seals a page: `out` gets nonce, ciphertext of `plain` padded to `page_size - 28`,
    /// and tag.
    #[allow(clippy::too_many_arguments)] // the page's place is five fields of its AAD
    pub fn seal_page(
        &self,
        file_id: &[u8; 16],
        kind: Kind,
        logical: u64,
        generation: u64,
        plain: &[u8],
        page_size: usize,
        out: &mut [u8],
    ) -> Result<(), RecordsError> {
        let body = page_size - PAGE_OVERHEAD;
        if plain.len() > body {
            return Err(RecordsError::TooLarge);
        }
        let mut nonce = [0u8; 12];
        getrandom::fill(&mut nonce).map_err(|e| RecordsError::Random(e.to_string()))?;
        out[..12].copy_from_slice(&nonce);
        let buf = &mut out[12..12 + body];
        buf[..plain.len()].copy_from_slice(plain);
        buf[plain.len()..].fill(0);
        let aad = page_aad(file_id, kind, logical, generation);
        let tag = self
            .pages
            .encrypt_inout_detached(&nonce.into(), &aad, buf.into())
            .map_err(|_| RecordsError::TooLarge)?;
        out[12 + body..page_size].copy_from_slice(&tag);
        Ok(())
    }

    /// Opens a sealed page in place; returns the plaintext body, or `None` when it does
    /// not authenticate.
    pub fn open_page<'a>(
        &self,
        file_id: &[u8; 16],
        kind: Kind,
        logical: u64,
        generation: u64,
        page: &'a mut [u8],
    ) -> Option<&'a [u8]> {
        let n = page.len();
        if n < PAGE_OVERHEAD {
            return None;
        }
        let (head, rest) = page.split_at_mut(12);
        let (body, tag) = rest.split_at_mut(n - PAGE_OVERHEAD);
        let nonce: [u8; 12] = head.try_into().ok()?;
        let tag: [u8; 16] = (&*tag).try_into().ok()?;
        let aad = page_aad(file_id, kind, logical, generation);
        self.pages
            .decrypt_inout_detached(&nonce.into(), &aad, (&mut *body).into(), &tag.into())
            .ok()?;
        Some(body)
    }

    /// Seals the root with the header bytes before it as associated data.
    fn seal_root(
        &self,
        header_before: &[u8],
        root: &[u8],
    ) -> Result<([u8; 12], Vec<u8>), RecordsError> {
        let mut nonce = [0u8; 12];
        getrandom::fill(&mut nonce).map_err(|e| RecordsError::Random(e.to_string()))?;
        let mut buf = root.to_vec();
        let aad = [&b"veilkit-records-root"[..], header_before].concat();
        let tag = self
            .pages
            .encrypt_inout_detached(&nonce.into(), &aad, buf.as_mut_slice().into())
            .map_err(|_| RecordsError::TooLarge)?;
        buf.extend_from_slice(&tag);
        Ok((nonce, buf))
    }

    fn open_root(&self, header_before: &[u8], nonce: &[u8; 12], sealed: &[u8]) -> Option<Vec<u8>> {
        if sealed.len() < 16 {
            return None;
        }
        let (ct, tag) = sealed.split_at(sealed.len() - 16);
        let mut buf = ct.to_vec();
        let tag: [u8; 16] = tag.try_into().ok()?;
        let aad = [&b"veilkit-records-root"[..], header_before].concat();
        self.pages
            .decrypt_inout_detached(
                &(*nonce).into(),
                &aad,
                buf.as_mut_slice().into(),
                &tag.into(),
            )
            .ok()?;
        Some(buf)
    }
}

fn page_aad(file_id: &[u8; 16], kind: Kind, logical: u64, generation: u64) -> [u8; 37] {
    let mut a = [0u8; 37];
    a[..4].copy_from_slice(b"VKRP");
    a[4..20].copy_from_slice(file_id);
    a[20] = kind as u8;
    a[21..29].copy_from_slice(&logical.to_le_bytes());
    a[29..37].copy_from_slice(&generation.to_le_bytes());
    a
}

/// A key slot.
#[derive(Clone, PartialEq, Eq)]
pub enum Slot {
    /// Wrapped under a keyring key.
    Keyring {
        /// The key's id.
        key_id: u32,
        /// The key's fingerprint.
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
        match self {
            Slot::Keyring { key_id, .. } => write!(f, "Slot::Keyring(key {key_id})"),
            Slot::Passphrase { params, .. } => write!(f, "Slot::Passphrase({params:?})"),
        }
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

fn fingerprint(k: &MasterKey) -> [u8; 8] {
    let mut fp = [0u8; 8];
    k.derive("fingerprint", b"", &mut fp);
    fp
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

impl Slot {
    /// The slot's first 40 bytes (kind and parameters), bound into the wrapping.
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

    fn encode(&self) -> [u8; SLOT_SIZE] {
        let mut b = [0u8; SLOT_SIZE];
        b[..40].copy_from_slice(&self.head());
        b[40..100].copy_from_slice(self.wrapped());
        b
    }

    fn decode(b: &[u8]) -> Option<Slot> {
        let mut wrapped = [0u8; 60];
        wrapped.copy_from_slice(&b[40..100]);
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

    fn wrap(
        kek: &[u8; 32],
        head: [u8; 40],
        file_id: &[u8; 16],
        data_key: &[u8; 32],
    ) -> Result<[u8; 60], RecordsError> {
        let cipher = Aes256GcmSiv::new_from_slice(kek).expect("32-byte key");
        let mut nonce = [0u8; 12];
        getrandom::fill(&mut nonce).map_err(|e| RecordsError::Random(e.to_string()))?;
        let mut buf = *data_key;
        let aad = [&b"veilkit-records-slot"[..], file_id, &head].concat();
        let tag = cipher
            .encrypt_inout_detached(&nonce.into(), &aad, buf.as_mut_slice().into())
            .map_err(|_| RecordsError::TooLarge)?;
        let mut out = [0u8; 60];
        out[..12].copy_from_slice(&nonce);
        out[12..44].copy_from_slice(&buf);
        out[44..].copy_from_slice(&tag);
        buf.fill(0);
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
    /// passphrase with default Argon2id parameters).
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
        getrandom::fill(&mut salt).map_err(|e| RecordsError::Random(e.to_string()))?;
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
    /// holds its key).
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
}

/// A parsed header copy (root still sealed).
#[derive(Debug, Clone)]
pub struct Header {
    /// The page size.
    pub page_size: u32,
    /// The file id.
    pub file_id: [u8; 16],
    /// The sequence number.
    pub sequence: u64,
    /// The key slots.
    pub slots: Vec<Slot>,
    root_nonce: [u8; 12],
    root_sealed: Vec<u8>,
    /// The header bytes the root authenticates.
    before_root: Vec<u8>,
}

/// Why a header copy was not usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderProblem {
    /// Not a record file.
    Magic,
    /// A newer format.
    Newer(u32),
    /// Torn or damaged.
    Checksum,
    /// Fields out of range.
    Inconsistent,
}

impl Header {
    /// Builds a header around a root.
    pub fn new(page_size: u32, file_id: [u8; 16], sequence: u64, slots: Vec<Slot>) -> Header {
        Header {
            page_size,
            file_id,
            sequence,
            slots,
            root_nonce: [0; 12],
            root_sealed: Vec::new(),
            before_root: Vec::new(),
        }
    }

    fn encode_before_root(&self) -> Vec<u8> {
        let mut b = vec![0u8; ROOT_AT];
        b[..8].copy_from_slice(MAGIC);
        b[8..12].copy_from_slice(&VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&self.page_size.to_le_bytes());
        b[16..32].copy_from_slice(&self.file_id);
        b[32..40].copy_from_slice(&self.sequence.to_le_bytes());
        b[40] = self.slots.len() as u8;
        for (i, s) in self.slots.iter().enumerate() {
            b[48 + i * SLOT_SIZE..48 + (i + 1) * SLOT_SIZE].copy_from_slice(&s.encode());
        }
        b
    }

    /// The full header copy with `root` sealed under `keys`.
    pub fn encode(&self, keys: &FileKeys, root: &Root) -> Result<Vec<u8>, RecordsError> {
        let before = self.encode_before_root();
        let (nonce, sealed) = keys.seal_root(&before, &root.encode())?;
        if ROOT_AT + 16 + sealed.len() + 8 > HEADER_SIZE {
            return Err(RecordsError::TooManyPages);
        }
        let mut b = before;
        b.extend_from_slice(&(sealed.len() as u32).to_le_bytes());
        b.extend_from_slice(&nonce);
        b.extend_from_slice(&sealed);
        let used = b.len();
        b.resize(HEADER_SIZE, 0);
        let sum = xxh3_64(&b[..used]);
        b[HEADER_SIZE - 8..].copy_from_slice(&sum.to_le_bytes());
        Ok(b)
    }

    /// Parses a header copy (without the keys).
    pub fn decode(b: &[u8]) -> Result<Header, HeaderProblem> {
        if b.len() < HEADER_SIZE {
            return Err(HeaderProblem::Magic);
        }
        let sum = u64::from_le_bytes(b[HEADER_SIZE - 8..HEADER_SIZE].try_into().expect("8 bytes"));
        Header::decode_parts(&b[..HEADER_SIZE - 8], sum)
    }

    /// The bytes a copy's checksum covers end here (`None` when the length field is out
    /// of range), given at least its first `ROOT_AT + 4` bytes.
    pub fn used_len(b: &[u8]) -> Option<usize> {
        let root_len = u32::from_le_bytes(b.get(ROOT_AT..ROOT_AT + 4)?.try_into().ok()?) as usize;
        let used = ROOT_AT + 16 + root_len;
        (used + 8 <= HEADER_SIZE).then_some(used)
    }

    /// Parses a header copy from its leading bytes (at least up to the end of the root)
    /// and its checksum (the copy's last 8 bytes).
    pub fn decode_parts(b: &[u8], sum: u64) -> Result<Header, HeaderProblem> {
        if b.len() < ROOT_AT + 16 || &b[..8] != MAGIC {
            return Err(HeaderProblem::Magic);
        }
        let version = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
        if version > VERSION {
            return Err(HeaderProblem::Newer(version));
        }
        if version != VERSION {
            return Err(HeaderProblem::Inconsistent);
        }
        let Some(used) = Header::used_len(b).filter(|&u| u <= b.len()) else {
            return Err(HeaderProblem::Checksum);
        };
        if xxh3_64(&b[..used]) != sum {
            return Err(HeaderProblem::Checksum);
        }
        let page_size = u32::from_le_bytes(b[12..16].try_into().expect("4 bytes"));
        if !valid_page_size(page_size) {
            return Err(HeaderProblem::Inconsistent);
        }
        let n = b[40] as usize;
        if n == 0 || n > MAX_SLOTS {
            return Err(HeaderProblem::Inconsistent);
        }
        let slots = (0..n)
            .map(|i| Slot::decode(&b[48 + i * SLOT_SIZE..48 + (i + 1) * SLOT_SIZE]))
            .collect::<Option<Vec<_>>>()
            .ok_or(HeaderProblem::Inconsistent)?;
        Ok(Header {
            page_size,
            file_id: b[16..32].try_into().expect("16 bytes"),
            sequence: u64::from_le_bytes(b[32..40].try_into().expect("8 bytes")),
            slots,
            root_nonce: b[ROOT_AT + 4..ROOT_AT + 16].try_into().expect("12 bytes"),
            root_sealed: b[ROOT_AT + 16..used].to_vec(),
            before_root: b[..ROOT_AT].to_vec(),
        })
    }

    /// Decrypts the root.
    pub fn open_root(&self, keys: &FileKeys) -> Option<Root> {
        let plain = keys.open_root(&self.before_root, &self.root_nonce, &self.root_sealed)?;
        Root::decode(&plain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [0u64, 1, 127, 128, 300, 1 << 35, u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            let mut at = 0;
            assert_eq!(get_varint(&b, &mut at), Some(v));
            assert_eq!(at, b.len());
        }
        assert_eq!(get_varint(&[0x80; 11], &mut 0), None);
    }

    #[test]
    fn pages_authenticate_their_place() {
        let keys = FileKeys::new(&[5; 32]);
        let id = [9u8; 16];
        let mut page = vec![0u8; 1024];
        keys.seal_page(&id, Kind::Data, 3, 7, b"hello", 1024, &mut page)
            .unwrap();
        let mut p = page.clone();
        assert_eq!(
            &keys.open_page(&id, Kind::Data, 3, 7, &mut p).unwrap()[..5],
            b"hello"
        );
        for (kind, logical, generation, fid) in [
            (Kind::Index, 3, 7, id),
            (Kind::Data, 4, 7, id),
            (Kind::Data, 3, 8, id),
            (Kind::Data, 3, 7, [1u8; 16]),
        ] {
            let mut p = page.clone();
            assert!(
                keys.open_page(&fid, kind, logical, generation, &mut p)
                    .is_none()
            );
        }
        let mut flipped = page.clone();
        flipped[500] ^= 1;
        assert!(
            keys.open_page(&id, Kind::Data, 3, 7, &mut flipped)
                .is_none()
        );
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
        assert_eq!(Slot::decode(&s.encode()).unwrap(), s);
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
