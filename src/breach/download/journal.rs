//! The download journal: the ranges a download has completed since its index's last
//! checkpoint ([`super::state`]), in prefix order, so that a rerun after any
//! interruption continues where the last one stopped and never fetches a completed range
//! again (docs/BREACH-FORMAT.md, "Download journal").
//!
//! Layout: a header (`VKDLJ001`, kind code, 3 zero bytes, the source's length as u32 and
//! the source, then the XXH3-64 of those bytes), then one entry per range, in order from
//! the first after the last checkpoint (0 before any):
//! prefix (u32), packed length (u32), ETag length (u16), Last-Modified length (u16), the
//! ETag, the Last-Modified, the packed hashes ([`super::body`]), and the XXH3-64 of the
//! entry's bytes before it. Integers are little-endian. An entry that is cut off, fails
//! its checksum or has the wrong prefix ends the journal there (a write the process did
//! not finish): it is cut off and the range fetched again.

use super::super::HashKind;
use super::body::MAX_BODY;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

const MAGIC: &[u8; 8] = b"VKDLJ001";

/// The longest ETag or Last-Modified kept (defined where they are received).
pub use super::fetch::MAX_VALIDATOR;

/// One completed range.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entry {
    /// The 20-bit prefix.
    pub prefix: u32,
    /// Its hashes, packed.
    pub packed: Vec<u8>,
    /// The response's ETag, if any.
    pub etag: Option<String>,
    /// The response's Last-Modified, if any.
    pub last_modified: Option<String>,
}

/// Errors of the journal.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(PathBuf, #[source] io::Error),
    /// Another run is downloading into the same index.
    #[error("{0}: another download into the same index is running (it holds this journal)")]
    Busy(PathBuf),
    /// The journal belongs to another download.
    #[error("{path}: kept by an interrupted download of {what}")]
    Mismatch {
        /// The journal.
        path: PathBuf,
        /// What it downloads.
        what: String,
    },
}

/// A journal being read back: the completed ranges, then [`Replay::into_appender`].
pub struct Replay {
    path: PathBuf,
    reader: Option<BufReader<File>>,
    header_len: u64,
    /// The end of the last good entry.
    good_end: u64,
    /// The first range to give back (those before it are in the index already).
    from: u32,
    /// The prefix the next entry must have (`None` before the first).
    next: Option<u32>,
    /// An entry was given back.
    given: bool,
    /// The good end was reached.
    done: bool,
}

/// A journal open for appending (past the page cache where the system allows it: the
/// journal is as large as the index and read back only after an interruption).
pub struct Appender {
    path: PathBuf,
    file: crate::streams::DirectAppend,
    header_len: u64,
    next: u32,
}

pub(crate) fn header(magic: &[u8; 8], kind: HashKind, source: &str) -> Vec<u8> {
    let mut h = magic.to_vec();
    h.extend_from_slice(&[kind.code(), 0, 0, 0]);
    h.extend_from_slice(&(source.len() as u32).to_le_bytes());
    h.extend_from_slice(source.as_bytes());
    let sum = xxh3_64(&h);
    h.extend_from_slice(&sum.to_le_bytes());
    h
}

/// Files of a download made readable by their owner alone (0600 on Unix): they name the
/// download's source, which need not be everyone's business.
pub(super) fn private(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(options, 0o600);
    options
}

/// A download's source as its files record it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceId {
    /// The template without user information ([`super::fetch::Source::identity`]):
    /// what new files record.
    pub kept: String,
    /// The whole template, which files of older versions recorded (read, never written).
    pub full: String,
}

impl From<&str> for SourceId {
    /// A source without user information.
    fn from(s: &str) -> SourceId {
        SourceId {
            kept: s.to_string(),
            full: s.to_string(),
        }
    }
}

impl SourceId {
    /// The record of `source`.
    pub fn of(source: &super::fetch::Source) -> SourceId {
        SourceId {
            kept: source.identity(),
            full: source.template().to_string(),
        }
    }
}

/// Checks that `file` starts with the header `magic` gives for a download of `kind` from
/// `source`, writing it when the file is empty or holds only the start of it (a crash
/// right after the file was made); its length. A file of another download (kind or
/// source) or of something else is an error: nothing is mixed.
pub(super) fn check_header(
    file: &mut File,
    path: &Path,
    magic: &[u8; 8],
    kind: HashKind,
    source: &SourceId,
) -> Result<u64, JournalError> {
    let io_err = |e| JournalError::Io(path.to_path_buf(), e);
    let want = header(magic, kind, &source.kept);
    if source.full != source.kept {
        // A file of an older veilkit, which kept the source whole: the same download.
        let old = header(magic, kind, &source.full);
        let mut got = Vec::with_capacity(old.len());
        file.seek(SeekFrom::Start(0)).map_err(io_err)?;
        (&mut *file)
            .take(old.len() as u64)
            .read_to_end(&mut got)
            .map_err(io_err)?;
        if got == old {
            return Ok(old.len() as u64);
        }
    }
    file.seek(SeekFrom::Start(0)).map_err(io_err)?;
    let mut got = Vec::with_capacity(want.len());
    (&mut *file)
        .take(want.len() as u64)
        .read_to_end(&mut got)
        .map_err(io_err)?;
    if got.len() < want.len() && want.starts_with(&got) {
        file.set_len(0).map_err(io_err)?;
        file.seek(SeekFrom::Start(0)).map_err(io_err)?;
        file.write_all(&want).map_err(io_err)?;
        file.sync_data().map_err(io_err)?;
    } else if got != want {
        let mut start = [0u8; 12];
        file.seek(SeekFrom::Start(0)).map_err(io_err)?;
        let what = match file.read_exact(&mut start) {
            Ok(()) if &start[..8] == magic => match HashKind::from_code(start[8]) {
                Some(k) if k != kind => format!("{} hashes", k.name()),
                _ => "another source".to_string(),
            },
            _ => "something else (not a file of a veilkit download)".to_string(),
        };
        return Err(JournalError::Mismatch {
            path: path.to_path_buf(),
            what,
        });
    }
    Ok(want.len() as u64)
}

/// Opens the journal at `path` for a download of `kind` from `source`: an existing one
/// of the same download is read back (from range 0, or [`Replay::set_from`]); none is
/// created empty. A journal of another download (kind or source) is an error: nothing
/// is mixed.
pub fn open(path: &Path, kind: HashKind, source: &SourceId) -> Result<Replay, JournalError> {
    let mut file = open_locked(path)?;
    let header_len = check_header(&mut file, path, MAGIC, kind, source)?;
    Ok(Replay {
        path: path.to_path_buf(),
        reader: Some(BufReader::with_capacity(1 << 20, file)),
        header_len,
        good_end: header_len,
        from: 0,
        next: None,
        given: false,
        done: false,
    })
}

/// The journal at `path`, opened (made, with no header yet, when there is none) and
/// locked for this run: a second download into the same index while one runs is
/// refused ([`JournalError::Busy`]) instead of appending to the same journal. The lock
/// (`flock`, on the open file) lasts as long as the file is open, through the
/// appender, and ends with the process however it ends.
fn open_locked(path: &Path) -> Result<File, JournalError> {
    let io_err = |e| JournalError::Io(path.to_path_buf(), e);
    for _ in 0..100 {
        let file = match OpenOptions::new().read(true).write(true).open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                match private(OpenOptions::new().read(true).write(true).create_new(true)).open(path)
                {
                    Ok(f) => f,
                    // Made by another run just now: open that one.
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(io_err(e)),
                }
            }
            Err(e) => return Err(io_err(e)),
        };
        let meta = file.metadata().map_err(io_err)?;
        if !meta.is_file() {
            return Err(io_err(io::Error::other("not a regular file")));
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(JournalError::Busy(path.to_path_buf()));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err(e)),
        }
        // Removed by a run that finished between the open and the lock: a new one.
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if file.metadata().map_err(io_err)?.nlink() == 0 {
                continue;
            }
        }
        return Ok(file);
    }
    Err(io_err(io::Error::other(
        "made and removed again and again by other runs",
    )))
}

impl Replay {
    /// Reads back from range `from` on (before the first [`Replay::next_entry`]): the
    /// index holds every range before it (its saved state says so). A journal whose
    /// first range comes after `from` does not continue that state, and is refused.
    pub fn set_from(&mut self, from: u32) {
        self.from = from;
    }

    /// The next completed range from `from` on, or `None` at the journal's (good) end.
    pub fn next_entry(&mut self) -> Result<Option<Entry>, JournalError> {
        loop {
            let Some(r) = self.reader.as_mut().filter(|_| !self.done) else {
                return Ok(None);
            };
            match read_entry(r, self.next) {
                Ok(Some((entry, len))) => {
                    if self.next.is_none() && entry.prefix > self.from {
                        return Err(JournalError::Mismatch {
                            path: self.path.clone(),
                            what: format!(
                                "the ranges from {:05X} on, which does not continue the partial index (its saved state ends at {:05X})",
                                entry.prefix, self.from
                            ),
                        });
                    }
                    self.good_end += len;
                    self.next = Some(entry.prefix + 1);
                    if entry.prefix >= self.from {
                        self.given = true;
                        return Ok(Some(entry));
                    }
                }
                Ok(None) => {
                    self.done = true;
                    return Ok(None);
                }
                Err(e) => return Err(JournalError::Io(self.path.clone(), e)),
            }
        }
    }

    /// Cuts the journal after its last good entry and opens it for appending (when it
    /// gave back no range, it is emptied, to continue from `from`).
    pub fn into_appender(self) -> Result<Appender, JournalError> {
        let io_err = |e| JournalError::Io(self.path.clone(), e);
        let file = self
            .reader
            .expect("the reader is kept until here")
            .into_inner();
        let (end, next) = match self.next {
            Some(next) if self.given => (self.good_end, next),
            _ => (self.header_len, self.from),
        };
        file.set_len(end).map_err(io_err)?;
        let file = crate::streams::DirectAppend::new(file, end).map_err(io_err)?;
        Ok(Appender {
            path: self.path,
            file,
            header_len: self.header_len,
            next,
        })
    }
}

/// Reads one entry that must have prefix `want` (any, for the first): the entry and its
/// length, or `None` where the journal ends or its next bytes are not a good entry.
fn read_entry(r: &mut impl Read, want: Option<u32>) -> io::Result<Option<(Entry, u64)>> {
    let mut head = [0u8; 12];
    if !read_full(r, &mut head)? {
        return Ok(None);
    }
    let prefix = u32::from_le_bytes(head[0..4].try_into().expect("4"));
    let packed_len = u32::from_le_bytes(head[4..8].try_into().expect("4")) as usize;
    let etag_len = usize::from(u16::from_le_bytes([head[8], head[9]]));
    let lm_len = usize::from(u16::from_le_bytes([head[10], head[11]]));
    if want.is_some_and(|w| prefix != w)
        || prefix >= super::super::format::PREFIXES
        || packed_len > MAX_BODY
        || etag_len > MAX_VALIDATOR
        || lm_len > MAX_VALIDATOR
    {
        return Ok(None);
    }
    let mut rest = vec![0u8; etag_len + lm_len + packed_len + 8];
    if !read_full(r, &mut rest)? {
        return Ok(None);
    }
    let body_end = rest.len() - 8;
    let sum = u64::from_le_bytes(rest[body_end..].try_into().expect("8"));
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&head);
    h.update(&rest[..body_end]);
    if h.digest() != sum {
        return Ok(None);
    }
    let text = |b: &[u8]| (!b.is_empty()).then(|| String::from_utf8_lossy(b).into_owned());
    let entry = Entry {
        prefix,
        etag: text(&rest[..etag_len]),
        last_modified: text(&rest[etag_len..etag_len + lm_len]),
        packed: rest[etag_len + lm_len..body_end].to_vec(),
    };
    Ok(Some((entry, (head.len() + rest.len()) as u64)))
}

/// Fills `buf`: `false` at a clean or a cut-off end.
pub(super) fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<bool> {
    let mut at = 0;
    while at < buf.len() {
        match r.read(&mut buf[at..]) {
            Ok(0) => return Ok(false),
            Ok(n) => at += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// A validator as the journal and the state store it: its bytes, or none (empty) where
/// it is longer than `MAX_VALIDATOR`.
pub(super) fn kept(v: &Option<String>) -> &[u8] {
    v.as_deref()
        .filter(|s| s.len() <= MAX_VALIDATOR)
        .unwrap_or("")
        .as_bytes()
}

/// The pieces of `entry` as the journal stores them, in order (the checksum last).
fn pieces(entry: &Entry) -> ([u8; 12], [&[u8]; 3], [u8; 8]) {
    let (etag, lm) = (kept(&entry.etag), kept(&entry.last_modified));
    let mut head = [0u8; 12];
    head[..4].copy_from_slice(&entry.prefix.to_le_bytes());
    head[4..8].copy_from_slice(&(entry.packed.len() as u32).to_le_bytes());
    head[8..10].copy_from_slice(&(etag.len() as u16).to_le_bytes());
    head[10..].copy_from_slice(&(lm.len() as u16).to_le_bytes());
    let body = [etag, lm, &entry.packed[..]];
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&head);
    for b in body {
        h.update(b);
    }
    (head, body, h.digest().to_le_bytes())
}

/// The bytes of `entry` as the journal stores them.
pub fn encode(entry: &Entry) -> Vec<u8> {
    let (head, body, sum) = pieces(entry);
    [&head[..], body[0], body[1], body[2], &sum[..]].concat()
}

impl Appender {
    /// The prefix the next entry must have.
    pub fn next(&self) -> u32 {
        self.next
    }

    /// Appends the next range (buffered: [`Appender::sync`] makes it durable).
    pub fn append(&mut self, entry: &Entry) -> Result<(), JournalError> {
        assert_eq!(entry.prefix, self.next, "ranges are journaled in order");
        let (head, body, sum) = pieces(entry);
        for piece in [&head[..], body[0], body[1], body[2], &sum[..]] {
            self.file
                .append(piece)
                .map_err(|e| JournalError::Io(self.path.clone(), e))?;
        }
        self.next += 1;
        Ok(())
    }

    /// Writes out what is buffered and waits for the disk.
    pub fn sync(&mut self) -> Result<(), JournalError> {
        self.file
            .sync()
            .map_err(|e| JournalError::Io(self.path.clone(), e))
    }

    /// Empties the journal, once the index holds every range it has (its saved state
    /// is durable): the next entry is range `next`'s.
    pub fn restart(&mut self, next: u32) -> Result<(), JournalError> {
        let io_err = |e| JournalError::Io(self.path.clone(), e);
        let file = self.file.file().try_clone().map_err(io_err)?;
        // The partial block is read back through the page cache (an unaligned read).
        crate::streams::direct_io_off(&file);
        file.set_len(self.header_len).map_err(io_err)?;
        self.file = crate::streams::DirectAppend::new(file, self.header_len).map_err(io_err)?;
        self.next = next;
        Ok(())
    }
}

/// Damages `b` at `i` (a test's file of entries): edit 0 flips a bit of its byte, 1 sets
/// it to `byte`, 2 inserts `byte` before it, 3 removes it, any other cuts the file there.
#[cfg(test)]
pub(super) fn damage(b: &mut Vec<u8>, edit: u8, i: usize, byte: u8) {
    match edit {
        0 => b[i] ^= 1 << (byte % 8),
        1 => b[i] = byte,
        2 => b.insert(i, byte),
        3 => {
            b.remove(i);
        }
        _ => b.truncate(i),
    }
}

#[cfg(test)]
mod tests;
