//! Range bodies compressed ahead of time (`docs/BREACH-FORMAT.md`, "Compressed range
//! bodies"): every prefix's range body as one Zstandard frame, in a file beside an index,
//! so that `breach serve` answers a client asking for zstd without compressing anything.
//!
//! The file names the index it was made from (that index's header, byte for byte), holds
//! each body's XXH3-64 (its ETag) and each frame's XXH3-64, and is read only after its
//! header and table checksums pass; every frame served is checked against its checksum
//! first. A frame is thus served only for the very index it was made from, as made.

use super::HashKind;
use super::bytes::Bytes;
use super::format::PREFIXES;
use xxhash_rust::xxh3::xxh3_64;

mod write;

pub use write::{WriteSummary, write};

/// The magic at the start of a bodies file.
pub const MAGIC: &[u8; 8] = b"VKBODIES";
/// The format version.
pub const VERSION: u32 = 1;
/// Coding byte: Zstandard.
pub const CODING_ZSTD: u8 = 1;
/// The header's size on disk.
pub const HEADER_SIZE: usize = 4096;
/// Bytes of the index's header copied into this one (its fields and header checksum).
pub const INDEX_HEADER: usize = 256;
/// Where the index's header is copied.
const INDEX_AT: usize = 96;
/// The header bytes covered by the header checksum.
pub const HEADER_USED: usize = INDEX_AT + INDEX_HEADER;
/// Bytes of a table entry: frame end, body checksum, frame checksum.
pub const ENTRY: usize = 24;
/// The table's length.
pub const TABLE_LEN: usize = PREFIXES as usize * ENTRY;
/// Where the frames start: after the header and the table, at a 4096-byte boundary.
pub const FRAMES_AT: usize = (HEADER_SIZE + TABLE_LEN).div_ceil(4096) * 4096;

/// Why a bodies file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum BodiesError {
    /// Reading the file failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A directory, a pipe or a device: the file is mapped.
    #[error("not a regular file (the file `breach compress-ranges` wrote is mapped)")]
    NotFile,
    /// Not a bodies file at all.
    #[error("not a file of compressed range bodies (no VKBODIES magic)")]
    Magic,
    /// A version this build does not read.
    #[error("compressed range bodies of format version {0}; this veilkit reads version 1")]
    Version(u32),
    /// The file is damaged.
    #[error("damaged: {0}")]
    Corrupt(String),
    /// The file was made from another index.
    #[error("made from another index than the one served (its header differs)")]
    OtherIndex,
}

/// One prefix's body as stored: the Zstandard frame, checked, and the body's ETag value.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The frame.
    pub bytes: &'a [u8],
    /// The XXH3-64 of the body it decodes to.
    pub body_xxh3: u64,
}

/// An open file of compressed range bodies.
pub struct Bodies {
    storage: Bytes,
    kind: HashKind,
    level: i32,
    index_header: [u8; INDEX_HEADER],
    hashes: u64,
    body_bytes: u64,
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl Bodies {
    /// Opens and maps a bodies file, checking its header, its length, its table's
    /// checksum and that the frames' ends are in order and end at the file's end.
    pub fn open(path: &std::path::Path) -> Result<Bodies, BodiesError> {
        let file = std::fs::File::open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(BodiesError::NotFile);
        }
        if meta.len() < FRAMES_AT as u64 {
            if meta.len() >= 8 && !Self::has_magic(&file) {
                return Err(BodiesError::Magic);
            }
            return Err(BodiesError::Corrupt(format!(
                "too short ({} bytes)",
                meta.len()
            )));
        }
        let storage = Bytes::map(&file).map_err(|e| BodiesError::Corrupt(e.to_string()))?;
        Bodies::from_storage(storage)
    }

    fn has_magic(mut file: &std::fs::File) -> bool {
        use std::io::Read;
        let mut m = [0u8; 8];
        file.read_exact(&mut m).is_ok() && &m == MAGIC
    }

    /// A bodies file held in memory (tests).
    pub fn from_bytes(bytes: &[u8]) -> Result<Bodies, BodiesError> {
        if bytes.len() < FRAMES_AT {
            return Err(BodiesError::Corrupt(format!(
                "too short ({} bytes)",
                bytes.len()
            )));
        }
        let storage = Bytes::owned(bytes).map_err(|e| BodiesError::Corrupt(e.to_string()))?;
        Bodies::from_storage(storage)
    }

    fn from_storage(storage: Bytes) -> Result<Bodies, BodiesError> {
        let b = storage.get();
        let corrupt = |what: &str| Err(BodiesError::Corrupt(what.into()));
        if &b[..8] != MAGIC {
            return Err(BodiesError::Magic);
        }
        let version = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(BodiesError::Version(version));
        }
        if xxh3_64(&b[..HEADER_USED]) != u64_at(b, HEADER_USED) {
            return corrupt("the header checksum does not match");
        }
        let kind = match b[12] {
            1 => HashKind::Sha1,
            2 => HashKind::Ntlm,
            _ => return corrupt("unknown hash kind"),
        };
        if b[13] != CODING_ZSTD {
            return corrupt("unknown coding");
        }
        let level = i32::from_le_bytes(b[16..20].try_into().expect("4 bytes"));
        let frames_len = u64_at(b, 56);
        let fields_ok = u64_at(b, 24) == u64::from(PREFIXES)
            && u64_at(b, 32) == HEADER_SIZE as u64
            && u64_at(b, 40) == TABLE_LEN as u64
            && u64_at(b, 48) == FRAMES_AT as u64
            && u64_at(b, 64) == b.len() as u64
            && (FRAMES_AT as u64).checked_add(frames_len) == Some(b.len() as u64);
        if !fields_ok {
            return corrupt("the header's sections do not match the file's length");
        }
        let table = &b[HEADER_SIZE..HEADER_SIZE + TABLE_LEN];
        if xxh3_64(table) != u64_at(b, 72) {
            return corrupt("the table checksum does not match");
        }
        let mut end = 0u64;
        for p in 0..PREFIXES as usize {
            let e = u64_at(table, p * ENTRY);
            if e < end {
                return corrupt("the frames' ends are out of order");
            }
            end = e;
        }
        if end != frames_len {
            return corrupt("the frames do not end at the file's end");
        }
        let mut index_header = [0u8; INDEX_HEADER];
        index_header.copy_from_slice(&b[INDEX_AT..INDEX_AT + INDEX_HEADER]);
        Ok(Bodies {
            kind,
            level,
            index_header,
            hashes: u64_at(b, 80),
            body_bytes: u64_at(b, 88),
            storage,
        })
    }

    /// The hash kind of the index it was made from.
    pub fn kind(&self) -> HashKind {
        self.kind
    }

    /// The Zstandard level the frames were made at.
    pub fn level(&self) -> i32 {
        self.level
    }

    /// The hashes and the bytes of the bodies (uncompressed) it holds.
    pub fn totals(&self) -> (u64, u64) {
        (self.hashes, self.body_bytes)
    }

    /// The file's length.
    pub fn len(&self) -> u64 {
        self.storage.get().len() as u64
    }

    /// Never: a bodies file always holds a header and a table.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Whether it was made from the index whose file starts with `index_bytes`: its
    /// header (fields, section checksums and file length, under the header checksum)
    /// is the same, byte for byte.
    pub fn made_from(&self, index_bytes: &[u8]) -> bool {
        index_bytes.get(..INDEX_HEADER) == Some(&self.index_header[..])
    }

    /// Checks that it was made from the index whose file starts with `index_bytes`.
    pub fn check_made_from(&self, index_bytes: &[u8]) -> Result<(), BodiesError> {
        if self.made_from(index_bytes) {
            Ok(())
        } else {
            Err(BodiesError::OtherIndex)
        }
    }

    /// The frame of `prefix` (20 bits), checked against its checksum.
    pub fn frame(&self, prefix: u32) -> Result<Frame<'_>, BodiesError> {
        let b = self.storage.get();
        let p = prefix as usize & (PREFIXES as usize - 1);
        let entry = HEADER_SIZE + p * ENTRY;
        let start = if p == 0 { 0 } else { u64_at(b, entry - ENTRY) } as usize;
        let end = u64_at(b, entry) as usize;
        // The ends were checked in order and within the file at opening.
        let bytes = &b[FRAMES_AT + start..FRAMES_AT + end];
        if xxh3_64(bytes) != u64_at(b, entry + 16) {
            return Err(BodiesError::Corrupt(format!(
                "the frame of prefix {p:05X} does not match its checksum"
            )));
        }
        Ok(Frame {
            bytes,
            body_xxh3: u64_at(b, entry + 8),
        })
    }

    /// Checks every frame against its checksum, reporting bytes of frames checked.
    pub fn verify(&self, progress: &dyn crate::progress::Progress) -> Result<(), BodiesError> {
        let b = self.storage.get();
        progress.set_total((b.len() - FRAMES_AT) as u64);
        self.storage.populate(FRAMES_AT, b.len() - FRAMES_AT);
        let mut done = 0u64;
        let mut reported = 0u64;
        for p in 0..PREFIXES {
            let f = self.frame(p)?;
            done += f.bytes.len() as u64;
            if done - reported >= 1 << 20 {
                progress.advance(done - reported);
                reported = done;
            }
        }
        progress.advance(done - reported);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
