//! Reading and writing a record file's pages, and the lock that keeps writers one at a
//! time.

use super::RecordsError;
use super::codec::PageRef;
use super::compress::{Dict, unframe};
use super::crypto::FileKeys;
use super::pages::{Kind, PAGE_OVERHEAD, decode_dir, parse_data};
use crate::progress::Progress;
use std::fs::File;
use std::path::Path;
use std::rc::Rc;

/// A record file's bytes: a local file (read and written), or one at a URL (read only).
#[derive(Debug)]
pub enum Blob {
    /// A local file.
    Local(File),
    /// A file read by range over HTTP(S).
    Remote(std::sync::Arc<crate::remote::RemoteFile>),
}

impl Blob {
    /// Where reads go.
    pub fn source(&self) -> Source<'_> {
        match self {
            Blob::Local(f) => Source::Local(f),
            Blob::Remote(r) => Source::Remote(r),
        }
    }
}

/// A borrowed [`Blob`] (or a file being sealed), for reading pages.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A local file.
    Local(&'a File),
    /// A remote one.
    Remote(&'a crate::remote::RemoteFile),
}

impl<'a> Source<'a> {
    /// The local file, for writing: a remote file is read only.
    pub fn local(self) -> Result<&'a File, RecordsError> {
        match self {
            Source::Local(f) => Ok(f),
            Source::Remote(_) => Err(RecordsError::RemoteReadOnly),
        }
    }

    /// The file's length.
    pub fn byte_len(self) -> Result<u64, RecordsError> {
        match self {
            Source::Local(f) => Ok(f.metadata().map_err(RecordsError::Read)?.len()),
            Source::Remote(r) => Ok(r.len()),
        }
    }

    /// Reads `buf.len()` bytes at `at`; a short file is `Truncated`.
    pub fn read_exact_at(self, at: u64, buf: &mut [u8]) -> Result<(), RecordsError> {
        match self {
            Source::Local(f) => read_exact_at(f, at, buf),
            Source::Remote(r) => r.read_exact_at(at, buf).map_err(|e| match e {
                crate::remote::RemoteError::PastEnd => RecordsError::Truncated,
                e => RecordsError::Remote(e),
            }),
        }
    }
}

/// Reads `buf.len()` bytes at `at`; a short file is `Truncated`.
pub fn read_exact_at(file: &File, at: u64, buf: &mut [u8]) -> Result<(), RecordsError> {
    let short = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            RecordsError::Truncated
        } else {
            RecordsError::Read(e)
        }
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, at).map_err(short)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(at)).map_err(RecordsError::Read)?;
        f.read_exact(buf).map_err(short)
    }
}

/// Writes `bytes` at `at`.
pub fn write_at(file: &File, at: u64, bytes: &[u8]) -> Result<(), RecordsError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.write_all_at(bytes, at).map_err(RecordsError::Write)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = file;
        f.seek(SeekFrom::Start(at)).map_err(RecordsError::Write)?;
        f.write_all(bytes).map_err(RecordsError::Write)
    }
}

/// The lock of the record file at `path`, if there is one, for a command that is about
/// to replace it (`seal --force`): held until the replacement is renamed into place,
/// so that no writer commits into the file being replaced.
pub fn lock_existing(path: &Path) -> Result<Option<File>, RecordsError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => lock_path(path, false).map(Some),
        _ => Ok(None),
    }
}

/// Opens a record file; for writing, with an exclusive lock held until it is closed (one
/// writer at a time; readers need none, since commits never overwrite what the current
/// header names).
pub fn open_locked(path: &Path, writable: bool) -> Result<File, RecordsError> {
    if !writable {
        return File::open(path).map_err(RecordsError::Read);
    }
    lock_path(path, true)
}

/// Opens `path` and takes its exclusive lock; after waiting for it, checks that the path
/// still names the file locked (a writer that replaced the file meanwhile renamed a new
/// one over it), else opens the new one and locks that.
fn lock_path(path: &Path, writable: bool) -> Result<File, RecordsError> {
    use crate::streams::LockError;
    crate::streams::lock_current(path, writable, usize::MAX).map_err(|e| match e {
        LockError::Open(e) if writable => RecordsError::OpenWrite(e),
        LockError::Open(e) | LockError::Check(e) => RecordsError::Read(e),
        LockError::Lock(e) => RecordsError::Write(e),
        LockError::Replaced => RecordsError::Read(std::io::Error::other(
            "replaced again and again while waiting for its lock",
        )),
    })
}

/// The logical number of directory page `index` of level `level` (1 for the
/// directories that name the pages): `(level - 1) · 2^56 + index`.
pub fn dir_logical(level: u8, index: u64) -> u64 {
    (u64::from(level.saturating_sub(1)) << 56) | index
}

/// Reads and authenticates pages (usable while the file is borrowed elsewhere).
#[derive(Clone, Copy)]
pub struct PageReader<'a> {
    /// The file.
    pub file: Source<'a>,
    /// Its keys.
    pub keys: &'a FileKeys,
    /// Its id.
    pub id: [u8; 16],
    /// The page size.
    pub page_size: usize,
    /// Where page 0 starts.
    pub pages_at: u64,
    /// Data pages are framed and compressed (record compression 1 or 2).
    pub compressed: bool,
    /// The file's dictionary (record compression 2).
    pub dict: Option<&'a Dict>,
    /// The file's bytes as mapped when it was opened, if they were ([`map_file`]): pages
    /// inside are decrypted straight out of it (no system call, no copy), others read
    /// with `pread`.
    pub mapped: Option<&'a [u8]>,
}

/// The file's bytes, mapped read-only, for reading pages without a system call each; `None`
/// where the system refuses (then pages are read with `pread`).
///
/// What makes this sound: veilkit never shortens a record file below a page that a root
/// names (a commit that fails before its header copies gives the file back the length it
/// had, cutting off only its own new pages), and never writes a page that a root names
/// (a commit writes its pages past the allocated ones, which no older root names, then a
/// header copy, which is read with `pread`, never through the map;
/// `seal --force` and `rewrite` rename a new file over the old, whose inode the map
/// keeps). A commit's pages written inside the map by this process are seen through it
/// (a shared map of the page cache). Another program shortening the file while it is
/// mapped is unsupported (reads of the lost part would fault, where `pread` would fail),
/// as for the breach indexes; a file that was short before it was opened is refused at
/// opening, and pages past the map's end are read with `pread`.
pub fn map_file(file: &File) -> Option<memmap2::Mmap> {
    // SAFETY: read-only, and no page a root names is cut off or rewritten in place while
    // mapped (above).
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
    // Random access: a get reads one page, not the pages around it.
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Random);
    Some(map)
}

impl PageReader<'_> {
    /// Where physical page `physical` starts.
    pub(super) fn offset(&self, physical: u64) -> Result<u64, RecordsError> {
        physical
            .checked_mul(self.page_size as u64)
            .and_then(|o| o.checked_add(self.pages_at))
            .ok_or(RecordsError::Truncated)
    }

    /// The plaintext of page `logical` of `kind`, authenticated.
    pub fn page(&self, kind: Kind, logical: u64, r: &PageRef) -> Result<Rc<[u8]>, RecordsError> {
        self.with_page(kind, logical, r, &mut Vec::new(), |p| Rc::from(p))
    }

    /// `f` of the plaintext of page `logical` of `kind`, authenticated; the page is read
    /// and decrypted in `scratch`, which a caller keeps from one page to the next (no
    /// allocation per page).
    pub fn with_page<T>(
        &self,
        kind: Kind,
        logical: u64,
        r: &PageRef,
        scratch: &mut Vec<u8>,
        f: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, RecordsError> {
        scratch.resize(self.page_size, 0);
        let buf = &mut scratch[..self.page_size];
        let at = self.offset(r.physical)?;
        let inside = usize::try_from(at).ok().and_then(|at| {
            let m = self.mapped?;
            m.get(at..at.checked_add(self.page_size)?)
        });
        let opened = match inside {
            // Decrypted straight from the map into the scratch buffer.
            Some(sealed) => {
                let out = &mut buf[..self.page_size.saturating_sub(PAGE_OVERHEAD)];
                self.keys
                    .open_page_into(&self.id, kind, logical, r.generation, sealed, out)
            }
            None => {
                self.file.read_exact_at(at, buf)?;
                self.keys
                    .open_page(&self.id, kind, logical, r.generation, buf)
            }
        };
        let plain = opened.ok_or(RecordsError::PageAuth {
            kind: kind.name(),
            logical,
        })?;
        if self.compressed && kind == Kind::Data {
            return Ok(f(&unframe(plain, self.page_size, self.dict)?));
        }
        Ok(f(plain))
    }

    /// The most entries a directory page names.
    pub fn dir_capacity(&self) -> usize {
        super::pages::dir_capacity(self.page_size)
    }

    /// The entries of directory page `index` of `level` of a list of `kind`.
    pub fn dir(
        &self,
        kind: Kind,
        level: u8,
        index: u64,
        r: &PageRef,
    ) -> Result<Vec<PageRef>, RecordsError> {
        let p = self.page(kind, dir_logical(level, index), r)?;
        decode_dir(&p).ok_or(RecordsError::Corrupt("a directory page does not parse"))
    }

    /// Calls `f` with every record of the data pages `pages` (logical number, ref), in
    /// order, authenticating each page; reads runs of consecutive pages in one go.
    pub fn each_record(
        &self,
        pages: &[(u64, PageRef)],
        progress: &dyn Progress,
        f: &mut dyn FnMut(&[u8]) -> Result<(), RecordsError>,
    ) -> Result<(), RecordsError> {
        const RUN: usize = 64;
        let mut buf = vec![0u8; self.page_size * RUN];
        let mut j = 0;
        // A remote file's pages are fetched a window ahead, many requests at once, and
        // then read one at a time from what was fetched.
        let remote = matches!(self.file, Source::Remote(_));
        let most = if remote { 1 } else { RUN };
        let window = super::remote::ahead_pages(self.page_size);
        let mut fetched = 0;
        while j < pages.len() {
            if remote && j >= fetched {
                fetched = (j + window).min(pages.len());
                let refs: Vec<PageRef> = pages[j..fetched].iter().map(|p| p.1).collect();
                self.fetch_pages(&refs)?;
            }
            let mut run = 1;
            while j + run < pages.len()
                && run < most
                && pages[j + run].1.physical == pages[j].1.physical + run as u64
            {
                run += 1;
            }
            let at = self.offset(pages[j].1.physical)?;
            self.file
                .read_exact_at(at, &mut buf[..run * self.page_size])?;
            for (k, &(logical, e)) in pages[j..j + run].iter().enumerate() {
                let page = &mut buf[k * self.page_size..(k + 1) * self.page_size];
                let plain = self
                    .keys
                    .open_page(&self.id, Kind::Data, logical, e.generation, page)
                    .ok_or(RecordsError::PageAuth {
                        kind: "data",
                        logical,
                    })?;
                let raw;
                let plain: &[u8] = if self.compressed {
                    raw = unframe(plain, self.page_size, self.dict)?;
                    &raw
                } else {
                    plain
                };
                let recs =
                    parse_data(plain).ok_or(RecordsError::Corrupt("a data page does not parse"))?;
                if recs.len() as u64 != e.count {
                    return Err(RecordsError::Corrupt("record counts disagree"));
                }
                for rec in &recs {
                    f(&plain[rec.raw.clone()])?;
                }
            }
            progress.advance(run as u64);
            j += run;
        }
        Ok(())
    }
}

/// Writes sealed pages at consecutive physical positions from `next_physical`.
pub struct PageWriter<'a> {
    file: Source<'a>,
    keys: &'a FileKeys,
    file_id: [u8; 16],
    page_size: usize,
    pages_at: u64,
    compressed: bool,
    dict: Option<&'a Dict>,
    /// The next physical page to write.
    pub next_physical: u64,
    generation: u64,
    buf: Vec<u8>,
    pending: Vec<u8>,
    pending_start: u64,
}

impl<'a> PageWriter<'a> {
    /// Writes pages of generation `generation` from physical page `next_physical` on.
    pub fn new(reader: PageReader<'a>, next_physical: u64, generation: u64) -> Self {
        PageWriter {
            file: reader.file,
            keys: reader.keys,
            file_id: reader.id,
            page_size: reader.page_size,
            pages_at: reader.pages_at,
            compressed: reader.compressed,
            dict: reader.dict,
            next_physical,
            generation,
            buf: vec![0u8; reader.page_size],
            pending: Vec::with_capacity(1 << 20),
            pending_start: next_physical,
        }
    }

    /// A reader of the same file (for pages already flushed).
    pub fn reader(&self) -> PageReader<'a> {
        PageReader {
            file: self.file,
            keys: self.keys,
            id: self.file_id,
            page_size: self.page_size,
            pages_at: self.pages_at,
            compressed: self.compressed,
            dict: self.dict,
            mapped: None,
        }
    }

    /// The page size.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// The generation of the pages written.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Seals `plain` as page `logical` of `kind` in the next physical page; returns its
    /// ref with `count`.
    pub fn write(
        &mut self,
        kind: Kind,
        logical: u64,
        plain: &[u8],
        count: u64,
    ) -> Result<PageRef, RecordsError> {
        self.keys.seal_page(
            &self.file_id,
            kind,
            logical,
            self.generation,
            plain,
            self.page_size,
            &mut self.buf,
        )?;
        self.pending.extend_from_slice(&self.buf);
        let r = PageRef {
            physical: self.next_physical,
            generation: self.generation,
            count,
        };
        self.next_physical += 1;
        if self.pending.len() >= 1 << 20 {
            self.flush()?;
        }
        Ok(r)
    }

    /// Writes the pages held back.
    pub fn flush(&mut self) -> Result<(), RecordsError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let at = self.pages_at + self.pending_start * self.page_size as u64;
        write_at(self.file.local()?, at, &self.pending)?;
        self.pending.clear();
        self.pending_start = self.next_physical;
        Ok(())
    }
}
