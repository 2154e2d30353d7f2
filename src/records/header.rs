//! Header copies: their layout (format 2, and format 1 for reading), reading both copies
//! of a file, and the rule that picks the current one.
//!
//! Format 2 writes both copies at every commit (the older or damaged one first, each
//! synced before the next), so that after a completed commit both hold it. A damaged
//! copy of a completed commit therefore always has a twin holding the same commit, and
//! a copy that fails its checks while the other holds an older commit can only be a
//! commit that never completed. Format 1 wrote one copy per commit: there an older copy
//! may be the commit before the last, so it is used only when the caller says so.

use super::RecordsError;
use super::codec::Cursor;
use super::crypto::{FileKeys, random};
use super::io::{Source, write_at};
use super::root::Root;
use super::slots::{MAX_SLOTS, SLOT_SIZE_V1, Slot, Unlock, open_any};
use std::fs::File;
use xxhash_rust::xxh3::xxh3_64;
use zeroize::Zeroizing;

/// Magic of a record file.
pub const MAGIC: &[u8; 8] = b"VKRECORD";
/// The format version this code writes (it reads 1 and 2).
pub const VERSION: u32 = 2;
/// Bytes of each header copy of a file sealed in format 2.
pub const COPY_SIZE: usize = 4096;
/// Bytes of each header copy of a format-1 file (kept when such a file is upgraded in
/// place to format 2).
pub const COPY_SIZE_V1: usize = 64 * 1024;
/// Where a format-1 header's root length field is.
const V1_ROOT_AT: usize = 48 + MAX_SLOTS * SLOT_SIZE_V1;
/// The bytes of a format-2 header before its slots.
const V2_FIXED: usize = 52;

/// Whether a page size is allowed: a power of two from 512 bytes to 1 MiB.
pub fn valid_page_size(p: u32) -> bool {
    p.is_power_of_two() && (512..=1 << 20).contains(&p)
}

/// A parsed header copy (root still sealed).
#[derive(Debug, Clone)]
pub struct Header {
    /// The format version of this copy (1 or 2).
    pub version: u32,
    /// Bytes of each header copy: pages start at twice this.
    pub copy_size: usize,
    /// The page size.
    pub page_size: u32,
    /// The file id.
    pub file_id: [u8; 16],
    /// The sequence number (commits so far).
    pub sequence: u64,
    /// The key slots.
    pub slots: Vec<Slot>,
    root_nonce: [u8; 12],
    root_sealed: Vec<u8>,
    /// The header bytes the root authenticates.
    aad: Vec<u8>,
}

/// Why a header copy was not usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderProblem {
    /// Not a record file.
    Magic,
    /// A newer format.
    Newer(u32),
    /// Torn or damaged.
    Checksum,
    /// Fields out of range.
    Inconsistent,
    /// A key slot of a kind this veilkit does not know (a newer one wrote it).
    NewerSlot(u8),
}

/// The most bytes a root takes: counts and settings, the longest key field, the prefix
/// ref, the dictionary's level and ref, and two page lists of
/// [`super::root::INLINE_REFS`] refs each.
pub const ROOT_MAX: usize = 4 * 8
    + 2
    + 2
    + super::root::MAX_KEY_FIELD
    + 4
    + 2
    + 1
    + 25
    + 25
    + 2 * (3 + super::root::INLINE_REFS * 24);
/// A header copy's bytes besides its slots and root: the fixed fields, root nonce and
/// tag, checksum.
const COPY_FIXED: usize = 52 + 12 + 16 + 8;

/// Whether `slots` leave room for any root in a header copy of `copy_size` bytes: checked
/// before anything is written, so that a file never fails its first commit for want of
/// header room.
pub fn check_slot_room(slots: &[Slot], copy_size: usize) -> Result<(), RecordsError> {
    let used: usize = slots.iter().map(Slot::encoded_len).sum();
    let room = copy_size.saturating_sub(COPY_FIXED + ROOT_MAX);
    if used > room {
        return Err(RecordsError::SlotsTooLarge { used, room });
    }
    Ok(())
}

impl HeaderProblem {
    /// The error of a header written by a newer veilkit, if it is one.
    fn newer(&self) -> Option<RecordsError> {
        match *self {
            HeaderProblem::Newer(v) => Some(RecordsError::Newer(v)),
            HeaderProblem::NewerSlot(k) => Some(RecordsError::NewerPart("key slot kind", k)),
            _ => None,
        }
    }
}

impl Header {
    /// A format-2 header (root not yet sealed).
    pub fn new(
        page_size: u32,
        copy_size: usize,
        file_id: [u8; 16],
        sequence: u64,
        slots: Vec<Slot>,
    ) -> Header {
        Header {
            version: VERSION,
            copy_size,
            page_size,
            file_id,
            sequence,
            slots,
            root_nonce: [0; 12],
            root_sealed: Vec::new(),
            aad: Vec::new(),
        }
    }

    /// Where page 0 starts.
    pub fn pages_at(&self) -> u64 {
        2 * self.copy_size as u64
    }

    /// The copy's bytes in format 2 with `root` sealed under `keys`: its used length
    /// only (what follows it in the copy is never read).
    pub fn encode(&self, keys: &FileKeys, root: &Root) -> Result<Vec<u8>, RecordsError> {
        if self.slots.is_empty() || self.slots.len() > MAX_SLOTS {
            return Err(RecordsError::SlotCount(self.slots.len()));
        }
        let plain = Zeroizing::new(root.encode());
        let mut b = Vec::with_capacity(COPY_SIZE);
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&self.page_size.to_le_bytes());
        b.extend_from_slice(&(self.copy_size as u32).to_le_bytes());
        b.extend_from_slice(&[0; 4]); // the used length, below
        b.extend_from_slice(&self.file_id);
        b.extend_from_slice(&self.sequence.to_le_bytes());
        b.push(self.slots.len() as u8);
        b.extend_from_slice(&[0; 3]);
        for s in &self.slots {
            s.encode(&mut b);
        }
        let mut nonce = [0u8; 12];
        random(&mut nonce)?;
        b.extend_from_slice(&nonce);
        let used = b.len() + plain.len() + 16 + 8;
        if used > self.copy_size {
            return Err(RecordsError::HeaderFull);
        }
        b[20..24].copy_from_slice(&(used as u32).to_le_bytes());
        let sealed = keys.seal_root(&b, &nonce, &plain)?;
        b.extend_from_slice(&sealed);
        let sum = xxh3_64(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        debug_assert_eq!(b.len(), used);
        Ok(b)
    }

    /// Parses a copy's bytes (from its start, at least through its used length; for
    /// format 1, through the end of the root, with `v1_sum` its checksum).
    pub fn decode(b: &[u8], v1_sum: Option<u64>) -> Result<Header, HeaderProblem> {
        if b.len() < 12 || &b[..8] != MAGIC {
            return Err(HeaderProblem::Magic);
        }
        let version = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
        match version {
            1 => Header::decode_v1(b, v1_sum.ok_or(HeaderProblem::Checksum)?),
            VERSION => Header::decode_v2(b),
            v if v > VERSION => Err(HeaderProblem::Newer(v)),
            _ => Err(HeaderProblem::Inconsistent),
        }
    }

    /// The used length a format-2 copy declares (`None`: not a sane one).
    fn declared_len(b: &[u8]) -> Option<usize> {
        let used = u32::from_le_bytes(b.get(20..24)?.try_into().ok()?) as usize;
        let copy = u32::from_le_bytes(b.get(16..20)?.try_into().ok()?) as usize;
        (matches!(copy, COPY_SIZE | COPY_SIZE_V1) && (V2_FIXED + 36..=copy).contains(&used))
            .then_some(used)
    }

    fn decode_v2(b: &[u8]) -> Result<Header, HeaderProblem> {
        let used = Header::declared_len(b).ok_or(HeaderProblem::Checksum)?;
        let b = b.get(..used).ok_or(HeaderProblem::Checksum)?;
        let sum = u64::from_le_bytes(b[used - 8..].try_into().expect("8 bytes"));
        if xxh3_64(&b[..used - 8]) != sum {
            return Err(HeaderProblem::Checksum);
        }
        let inconsistent = HeaderProblem::Inconsistent;
        let mut c = Cursor::new(&b[12..used - 8]);
        let page_size = c.u32().ok_or(inconsistent)?;
        if !valid_page_size(page_size) {
            return Err(inconsistent);
        }
        let copy_size = c.u32().ok_or(inconsistent)? as usize;
        c.u32().ok_or(inconsistent)?;
        let file_id: [u8; 16] = c.bytes(16).ok_or(inconsistent)?.try_into().expect("16");
        let sequence = c.u64().ok_or(inconsistent)?;
        let n = usize::from(c.u8().ok_or(inconsistent)?);
        if n == 0 || n > MAX_SLOTS || c.bytes(3) != Some(&[0, 0, 0][..]) {
            return Err(inconsistent);
        }
        let mut slots = Vec::with_capacity(n);
        for _ in 0..n {
            match Slot::decode(&mut c) {
                Ok(Some(s)) => slots.push(s),
                Ok(None) => return Err(inconsistent),
                Err(kind) => return Err(HeaderProblem::NewerSlot(kind)),
            }
        }
        let root_nonce: [u8; 12] = c.bytes(12).ok_or(inconsistent)?.try_into().expect("12");
        let at = 12 + c.position();
        let sealed = &b[at..used - 8];
        if sealed.len() < 16 {
            return Err(inconsistent);
        }
        Ok(Header {
            version: VERSION,
            copy_size,
            page_size,
            file_id,
            sequence,
            slots,
            root_nonce,
            root_sealed: sealed.to_vec(),
            aad: b[..at].to_vec(),
        })
    }

    /// The bytes a format-1 copy's checksum covers end here (`None` when the length
    /// field is out of range), given at least its first `V1_ROOT_AT + 4` bytes.
    fn v1_used_len(b: &[u8]) -> Option<usize> {
        let root_len = u32::from_le_bytes(b.get(V1_ROOT_AT..V1_ROOT_AT + 4)?.try_into().ok()?);
        let used = V1_ROOT_AT + 16 + root_len as usize;
        (used + 8 <= COPY_SIZE_V1).then_some(used)
    }

    /// A format-1 copy: 2096 bytes of fixed fields and 16 slots of 128 bytes, the root
    /// length and nonce, the root; XXH3-64 of bytes 0 to the root's end in the copy's
    /// last 8 bytes. Its root authenticates bytes 0..2096.
    fn decode_v1(b: &[u8], sum: u64) -> Result<Header, HeaderProblem> {
        let Some(used) = Header::v1_used_len(b).filter(|&u| u <= b.len()) else {
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
            .map(|i| Slot::decode_v1(&b[48 + i * SLOT_SIZE_V1..48 + (i + 1) * SLOT_SIZE_V1]))
            .collect::<Option<Vec<_>>>()
            .ok_or(HeaderProblem::Inconsistent)?;
        Ok(Header {
            version: 1,
            copy_size: COPY_SIZE_V1,
            page_size,
            file_id: b[16..32].try_into().expect("16 bytes"),
            sequence: u64::from_le_bytes(b[32..40].try_into().expect("8 bytes")),
            slots,
            root_nonce: b[V1_ROOT_AT + 4..V1_ROOT_AT + 16]
                .try_into()
                .expect("12 bytes"),
            root_sealed: b[V1_ROOT_AT + 16..used].to_vec(),
            aad: b[..V1_ROOT_AT].to_vec(),
        })
    }

    /// Decrypts the root; `None` when it does not authenticate under `keys`.
    pub fn open_root(&self, keys: &FileKeys) -> Option<Root> {
        let plain =
            Zeroizing::new(keys.open_root(&self.aad, &self.root_nonce, &self.root_sealed)?);
        Root::decode(&plain, self.version)
    }
}

/// One header copy as read from a file.
#[derive(Debug, Clone)]
pub struct CopyRead {
    /// Where it starts.
    pub offset: u64,
    /// The copy, or why it is not usable.
    pub header: Result<Header, HeaderProblem>,
    /// The sequence number its bytes claim (unchecked: for messages only).
    pub claimed: Option<u64>,
}

/// The letter of copy `i` (A at the start of the file, B after it).
pub fn copy_name(i: usize) -> char {
    if i == 0 { 'A' } else { 'B' }
}

/// Reads the copy at `offset`.
fn read_copy(file: Source<'_>, len: u64, offset: u64) -> Result<CopyRead, RecordsError> {
    let mut b = vec![0u8; COPY_SIZE.min(len.saturating_sub(offset) as usize)];
    file.read_exact_at(offset, &mut b)?;
    let claimed_at = match b
        .get(8..12)
        .map(|v| u32::from_le_bytes(v.try_into().expect("4")))
    {
        Some(1) => Some(32),
        Some(VERSION) => Some(40),
        _ => None,
    };
    let claimed = claimed_at
        .filter(|_| b.starts_with(MAGIC))
        .and_then(|at| b.get(at..at + 8))
        .map(|s| u64::from_le_bytes(s.try_into().expect("8")));
    let mut v1_sum = None;
    if b.get(8..12) == Some(&1u32.to_le_bytes()[..]) && b.starts_with(MAGIC) {
        // Format 1: what the checksum covers, and the checksum in the copy's last bytes.
        if let Some(used) = Header::v1_used_len(&b).filter(|&u| u > b.len())
            && offset + used as u64 <= len
        {
            let at = b.len();
            b.resize(used, 0);
            file.read_exact_at(offset + at as u64, &mut b[at..])?;
        }
        let sum_at = offset + (COPY_SIZE_V1 - 8) as u64;
        if sum_at + 8 <= len {
            let mut sum = [0u8; 8];
            file.read_exact_at(sum_at, &mut sum)?;
            v1_sum = Some(u64::from_le_bytes(sum));
        }
    } else if let Some(used) = Header::declared_len(&b).filter(|&u| u > b.len())
        && offset + used as u64 <= len
    {
        let at = b.len();
        b.resize(used, 0);
        file.read_exact_at(offset + at as u64, &mut b[at..])?;
    }
    Ok(CopyRead {
        offset,
        header: Header::decode(&b, v1_sum),
        claimed,
    })
}

/// Reads both header copies of a file, and its length. Copy B is at the copy size that
/// copy A declares, or, when A is unreadable, wherever a copy of either size parses.
pub fn read_copies(file: Source<'_>) -> Result<([CopyRead; 2], u64), RecordsError> {
    let len = file.byte_len()?;
    if len < 8 {
        return Err(RecordsError::NotRecords);
    }
    let a = read_copy(file, len, 0)?;
    let b_at = match &a.header {
        Ok(h) => Some(h.copy_size as u64),
        Err(_) => None,
    };
    let b = match b_at {
        Some(at) => read_copy(file, len, at)?,
        None => {
            let mut found = None;
            for at in [COPY_SIZE as u64, COPY_SIZE_V1 as u64] {
                if at < len {
                    let c = read_copy(file, len, at)?;
                    if c.header.as_ref().is_ok_and(|h| h.copy_size as u64 == at) {
                        found = Some(c);
                        break;
                    }
                }
            }
            match found {
                Some(c) => c,
                // Neither copy starts like a record file's: it is not one.
                None if a.header.as_ref().err() == Some(&HeaderProblem::Magic) => {
                    return Err(RecordsError::NotRecords);
                }
                None => CopyRead {
                    offset: COPY_SIZE as u64,
                    header: Err(HeaderProblem::Checksum),
                    claimed: None,
                },
            }
        }
    };
    Ok(([a, b], len))
}

/// A header copy that fails its checks while the other one is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Damage {
    /// Which copy (0: A, 1: B).
    pub copy: usize,
    /// The sequence its bytes claim, if they can be read.
    pub claimed: Option<u64>,
}

/// The current state of a file, by the header rule.
pub struct Chosen {
    /// The copy used.
    pub header: Header,
    /// Its root.
    pub root: Root,
    /// The file's keys.
    pub keys: FileKeys,
    /// Which copy (0: A, 1: B).
    pub copy: usize,
    /// The other copy, when it fails its checks.
    pub damage: Option<Damage>,
    /// Whether the other copy is valid but holds an older commit (a commit whose second
    /// header write never happened): the next commit completes it.
    pub behind: bool,
    /// The file's length.
    pub len: u64,
}

/// Reads both copies and picks the current state with the secrets given.
/// `previous_commit`: accept, for a format-1 file, the one intact copy when the other
/// is damaged (it may hold the commit before the last).
pub fn choose(
    file: Source<'_>,
    unlocks: &[Unlock<'_>],
    previous_commit: bool,
) -> Result<Chosen, RecordsError> {
    let (copies, len) = read_copies(file)?;
    let parsed: Vec<usize> = (0..2).filter(|&i| copies[i].header.is_ok()).collect();
    if parsed.is_empty() {
        let problems: Vec<HeaderProblem> = copies
            .iter()
            .filter_map(|c| c.header.as_ref().err().copied())
            .collect();
        if let Some(e) = problems.iter().find_map(|p| p.newer()) {
            return Err(e);
        }
        return Err(RecordsError::CorruptHeader);
    }
    let header = |i: usize| copies[i].header.as_ref().expect("parsed");
    let mut order = parsed.clone();
    order.sort_by_key(|&i| (std::cmp::Reverse(header(i).sequence), i));
    // The data key, from the slots of the newest copy that the secrets open.
    let mut data_key = None;
    for &i in &order {
        let h = header(i);
        if let Some(dk) = open_any(&h.slots, &h.file_id, unlocks)? {
            data_key = Some(dk);
            break;
        }
    }
    let Some(dk) = data_key else {
        return Err(RecordsError::WrongKey);
    };
    let keys = FileKeys::new(&dk);
    // A copy is valid when its root authenticates under the file's data key.
    let mut valid: Vec<(usize, Root)> = Vec::new();
    for &i in &order {
        if let Some(root) = header(i).open_root(&keys) {
            valid.push((i, root));
        }
    }
    if valid.is_empty() {
        // An authentic root that does not parse may be a newer veilkit's.
        for &i in &order {
            let h = header(i);
            if let Some(plain) = keys.open_root(&h.aad, &h.root_nonce, &h.root_sealed)
                && let Some((what, n)) = Root::newer_part(&plain, h.version)
            {
                return Err(RecordsError::NewerPart(what, n));
            }
        }
    }
    let (copy, root) = match valid.len() {
        0 => return Err(RecordsError::CorruptHeader),
        _ => valid[0].clone(),
    };
    let other = 1 - copy;
    let (damage, behind) = if valid.len() == 2 {
        (None, header(valid[1].0).sequence < header(copy).sequence)
    } else {
        let damage = Damage {
            copy: other,
            claimed: copies[other].claimed,
        };
        if header(copy).version == 1 && !previous_commit {
            return Err(RecordsError::DamagedCopy {
                damaged: copy_name(other),
                claimed: damage.claimed,
                kept: copy_name(copy),
                sequence: header(copy).sequence,
            });
        }
        (Some(damage), false)
    };
    Ok(Chosen {
        header: header(copy).clone(),
        root,
        keys,
        copy,
        damage,
        behind,
        len,
    })
}

/// Writes a commit's header bytes into both copies: `first` (the older or damaged
/// copy) first, synced, then the other, synced. Killed between the two, the file holds
/// the new commit in one copy and the previous in the other, and opens with the new.
pub fn write_copies(
    file: &File,
    copy_size: usize,
    bytes: &[u8],
    first: usize,
) -> Result<(), RecordsError> {
    for i in [first, 1 - first] {
        write_at(file, (i * copy_size) as u64, bytes)?;
        file.sync_data().map_err(RecordsError::Write)?;
    }
    Ok(())
}

/// What the header of a record file says without a key (`records info`).
#[derive(Debug, Clone)]
pub struct Peek {
    /// The format version of the newest readable copy.
    pub version: u32,
    /// Page size.
    pub page_size: u32,
    /// Commits so far (the newest readable copy's sequence).
    pub sequence: u64,
    /// The key slots (their public parts: kinds, key ids, fingerprints, parameters).
    pub slots: Vec<Slot>,
    /// Bytes of the file.
    pub bytes: u64,
    /// Each copy's sequence, or `None` when it fails its checksum (without a key, a
    /// copy cannot be authenticated: this catches damage and torn writes only).
    pub copies: [Option<u64>; 2],
}

/// Reads a record file's header without a key.
pub fn peek(path: &std::path::Path) -> Result<Peek, RecordsError> {
    let file = File::open(path).map_err(RecordsError::Read)?;
    peek_at(Source::Local(&file))
}

/// Reads the header of the record file `file` without a key.
pub fn peek_at(file: Source<'_>) -> Result<Peek, RecordsError> {
    let (copies, len) = read_copies(file)?;
    let newest = copies
        .iter()
        .filter_map(|c| c.header.as_ref().ok())
        .max_by_key(|h| h.sequence);
    let Some(h) = newest else {
        if let Some(e) = copies
            .iter()
            .find_map(|c| c.header.as_ref().err().and_then(HeaderProblem::newer))
        {
            return Err(e);
        }
        return Err(RecordsError::CorruptHeader);
    };
    Ok(Peek {
        version: h.version,
        page_size: h.page_size,
        sequence: h.sequence,
        slots: h.slots.clone(),
        bytes: len,
        copies: [0, 1].map(|i| copies[i].header.as_ref().ok().map(|h| h.sequence)),
    })
}
