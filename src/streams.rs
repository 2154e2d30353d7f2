//! Shared I/O helpers: line reading with line numbers, atomic output files, and a
//! writer that hands large files to the kernel in 2 MiB-aligned pieces.
//!
//! Nothing here knows about terminals or the command line; the CLI layer decides where
//! streams come from and how errors are shown.

use std::fs::{self, File};
use std::io::{self, BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Reads lines from a [`BufRead`], reusing one buffer, counting lines from 1, and
/// stripping the line end (`\n` or `\r\n`). Nothing else is trimmed.
pub struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    line_no: u64,
}

impl<R: BufRead> Lines<R> {
    /// Wraps a reader.
    pub fn new(reader: R) -> Self {
        Lines {
            reader,
            buf: Vec::with_capacity(256),
            line_no: 0,
        }
    }

    /// The next line without its line end, with its number (counted from 1), or `None` at
    /// the end of input. A final line without a line end is returned as well.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, &[u8])>> {
        self.buf.clear();
        let n = self.reader.read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        Ok(Some((self.line_no, strip_line_end(&self.buf))))
    }

    /// The number of the last line returned (0 before the first).
    pub fn line_no(&self) -> u64 {
        self.line_no
    }
}

/// Strips one trailing `\n` and then one trailing `\r`, if present.
pub fn strip_line_end(mut line: &[u8]) -> &[u8] {
    if let [rest @ .., b'\n'] = line {
        line = rest;
    }
    if let [rest @ .., b'\r'] = line {
        line = rest;
    }
    line
}

/// The positions of every `\n` in `buf`, in order: a bitmask per 64 bytes, so that short
/// lines cost a few instructions each rather than a search's set-up.
pub fn newlines(buf: &[u8]) -> Newlines<'_> {
    Newlines {
        buf,
        base: 0,
        mask: newline_mask(buf),
    }
}

/// Iterator of [`newlines`].
pub struct Newlines<'a> {
    buf: &'a [u8],
    base: usize,
    mask: u64,
}

impl Iterator for Newlines<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.base += 64;
            if self.base >= self.buf.len() {
                return None;
            }
            self.mask = newline_mask(&self.buf[self.base..]);
        }
        let bit = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.base + bit)
    }
}

/// Bit `i` is set when `chunk[i]` is a newline, for the first 64 bytes of `chunk`.
#[inline]
fn newline_mask(chunk: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if chunk.len() >= 64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, and 64 bytes are readable.
        #[allow(unsafe_code)]
        return unsafe { sse2_newline_mask(&chunk[..64]) };
    }
    chunk
        .iter()
        .take(64)
        .enumerate()
        .fold(0u64, |m, (i, &c)| m | (u64::from(c == b'\n') << i))
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[inline]
#[target_feature(enable = "sse2")]
fn sse2_newline_mask(chunk: &[u8]) -> u64 {
    use std::arch::x86_64::*;
    assert!(chunk.len() >= 64);
    let nl = _mm_set1_epi8(b'\n' as i8);
    let mut mask = 0u64;
    for i in 0..4 {
        // SAFETY: 16 bytes at 16 * i are within the 64 checked above; unaligned load.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().add(16 * i).cast()) };
        let m = _mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) as u32 as u64;
        mask |= m << (16 * i);
    }
    mask
}

/// Errors from creating or committing an output file.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The final path exists and overwriting was not allowed.
    #[error("already exists (use --force to overwrite it)")]
    Exists,
    /// The output path names the same file as an input.
    #[error("is the same file as the input {}", .0.display())]
    SameAsInput(PathBuf),
    /// The output path is a directory.
    #[error("is a directory")]
    IsDirectory,
    /// An I/O error.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Options for [`AtomicFile::create`].
#[derive(Debug, Clone, Copy)]
pub struct AtomicOptions {
    /// Replace an existing file at the final path.
    pub overwrite: bool,
    /// Unix permission bits of the new file (before the umask is applied to nothing: the
    /// temporary file is created with exactly these bits).
    pub mode: u32,
}

impl Default for AtomicOptions {
    fn default() -> Self {
        AtomicOptions {
            overwrite: false,
            mode: 0o644,
        }
    }
}

/// Paths of temporary files that are being written right now, so that a signal handler
/// can remove them before the process exits.
static LIVE_TEMP_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn lock_live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE_TEMP_FILES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Removes every temporary file currently being written. For signal handlers: the
/// process is about to exit without running destructors.
pub fn remove_live_temp_files() {
    for path in lock_live().drain(..) {
        if path.is_dir() {
            let _ = fs::remove_dir_all(path);
        } else {
            let _ = fs::remove_file(path);
        }
    }
}

/// A temporary directory that a signal handler removes (with [`remove_live_temp_files`])
/// while this guard lives; dropping the guard only forgets it.
#[derive(Debug)]
pub struct LiveTempDir(PathBuf);

/// Tracks the temporary directory `path` until the guard drops.
pub fn track_temp_dir(path: &Path) -> LiveTempDir {
    lock_live().push(path.to_path_buf());
    LiveTempDir(path.to_path_buf())
}

impl Drop for LiveTempDir {
    fn drop(&mut self) {
        lock_live().retain(|p| p != &self.0);
    }
}

/// A new file written atomically: the data goes to a temporary file in the target
/// directory, which is flushed, synced and renamed over the final name by
/// [`commit`](AtomicFile::commit). Dropping it without committing removes the temporary
/// file, so an interrupted run never leaves a partial file under the final name.
pub struct AtomicFile {
    writer: Option<BufWriter<tempfile::NamedTempFile>>,
    temp_path: PathBuf,
    final_path: PathBuf,
    overwrite: bool,
}

impl AtomicFile {
    /// Starts writing `path`. Fails at once if the path exists and `overwrite` is off, or
    /// names a directory.
    pub fn create(path: &Path, options: AtomicOptions) -> Result<Self, OutputError> {
        match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => return Err(OutputError::IsDirectory),
            Ok(_) if !options.overwrite => return Err(OutputError::Exists),
            _ => {}
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "output".into());
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(options.mode));
        }
        let temp = builder.tempfile_in(dir)?;
        let temp_path = temp.path().to_path_buf();
        lock_live().push(temp_path.clone());
        Ok(AtomicFile {
            writer: Some(BufWriter::with_capacity(1 << 20, temp)),
            temp_path,
            final_path: path.to_path_buf(),
            overwrite: options.overwrite,
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.final_path
    }

    /// The underlying file, after flushing buffered data (for seeking and rewriting a header).
    pub fn file_mut(&mut self) -> io::Result<&mut File> {
        let w = self.writer.as_mut().expect("writer present until commit");
        w.flush()?;
        Ok(w.get_mut().as_file_mut())
    }

    /// Flushes, syncs the data to disk, renames the file to its final name and syncs the
    /// directory.
    pub fn commit(mut self) -> Result<(), OutputError> {
        let writer = self.writer.take().expect("writer present until commit");
        let temp = writer.into_inner().map_err(|e| e.into_error())?;
        temp.as_file().sync_all()?;
        let result = if self.overwrite {
            temp.persist(&self.final_path).map(drop)
        } else {
            temp.persist_noclobber(&self.final_path).map(drop)
        };
        lock_live().retain(|p| p != &self.temp_path);
        match result {
            Ok(()) => {}
            Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => {
                return Err(OutputError::Exists);
            }
            Err(e) => return Err(OutputError::Io(e.error)),
        }
        sync_parent_dir(&self.final_path)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.as_mut().expect("open").write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.as_mut().expect("open").write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.writer.as_mut().expect("open").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.is_some() {
            // Not committed: the NamedTempFile removes itself when the writer drops.
            lock_live().retain(|p| p != &self.temp_path);
        }
    }
}

/// The piece size of [`ChunkWriter`]: the size of a huge page on x86-64 and of the
/// largest page-cache folio that Linux maps with one page-table entry.
pub const CHUNK: usize = 2 << 20;

/// A buffered writer whose every write to the inner writer ends on a multiple of
/// [`CHUNK`] of the file offset (except the last, at `flush`).
///
/// Why: Linux file systems with large folios (ext4 on recent kernels, 6.18 here) give a
/// buffered write a page-cache folio no larger than the write and aligned to the file
/// offset. Written in 2 MiB-aligned pieces, a file stays cached in 2 MiB folios, and a
/// memory map of it then uses huge page-table entries, even with random-access advice:
/// random lookups into a freshly built index then miss the TLB as rarely as if it were
/// read into huge pages (`std::io::BufWriter` hands over its buffer wherever it fills,
/// so the pieces straddle the boundaries and the folios stay 4 KiB). Elsewhere it is an
/// ordinary buffered writer.
///
/// Nothing is written when it is dropped: call [`Write::flush`] and check the result.
pub struct ChunkWriter<W: Write> {
    inner: W,
    buf: Vec<u8>,
    /// The file offset of `buf[0]`.
    offset: u64,
}

impl<W: Write> ChunkWriter<W> {
    /// A writer whose first byte lands at file offset `offset` of `inner`.
    pub fn new(inner: W, offset: u64) -> ChunkWriter<W> {
        ChunkWriter {
            inner,
            buf: Vec::with_capacity(CHUNK),
            offset,
        }
    }

    /// The file offset of the next byte written.
    pub fn position(&self) -> u64 {
        self.offset + self.buf.len() as u64
    }

    /// The file offset up to which bytes have been handed to the inner writer.
    pub fn written(&self) -> u64 {
        self.offset
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// Bytes from `offset` to the next multiple of [`CHUNK`].
    fn to_boundary(&self) -> usize {
        CHUNK - (self.offset % CHUNK as u64) as usize
    }
}

impl<W: Write> Write for ChunkWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    fn write_all(&mut self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            let want = self.to_boundary();
            if self.buf.is_empty() && data.len() >= want {
                // A whole piece in hand: no copy.
                self.inner.write_all(&data[..want])?;
                self.offset += want as u64;
                data = &data[want..];
                continue;
            }
            let take = (want - self.buf.len()).min(data.len());
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.buf.len() == want {
                self.inner.write_all(&self.buf)?;
                self.offset += want as u64;
                self.buf.clear();
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            self.inner.write_all(&self.buf)?;
            self.offset += self.buf.len() as u64;
            self.buf.clear();
        }
        self.inner.flush()
    }
}

/// Syncs the directory holding `path`, so a rename in it survives a crash.
pub fn sync_parent_dir(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        File::open(dir)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Fails when `output` names the same file as `input` (same device and inode, or the same
/// path when neither exists yet).
pub fn ensure_distinct(input: &Path, output: &Path) -> Result<(), OutputError> {
    if same_file(input, output) {
        return Err(OutputError::SameAsInput(input.to_path_buf()));
    }
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::metadata(a), fs::metadata(b)) {
        #[cfg(unix)]
        (Ok(ma), Ok(mb)) => {
            use std::os::unix::fs::MetadataExt;
            ma.dev() == mb.dev() && ma.ino() == mb.ino()
        }
        _ => match (fs::canonicalize(a), fs::canonicalize(b)) {
            (Ok(ca), Ok(cb)) => ca == cb,
            _ => a == b,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the length of every write it is given.
    #[derive(Default)]
    struct Pieces {
        data: Vec<u8>,
        writes: Vec<usize>,
    }

    impl Write for Pieces {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.writes.push(buf.len());
            self.data.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
        #[test]
        fn chunk_writer_ends_every_piece_on_a_boundary_and_keeps_the_bytes(
            start in 0u64..3 * CHUNK as u64,
            sizes in proptest::collection::vec(0usize..3 * CHUNK, 0..8),
        ) {
            let mut w = ChunkWriter::new(Pieces::default(), start);
            let mut want = Vec::new();
            for (i, n) in sizes.iter().enumerate() {
                let part: Vec<u8> = (0..*n).map(|j| (i * 31 + j) as u8).collect();
                w.write_all(&part).unwrap();
                want.extend_from_slice(&part);
            }
            proptest::prop_assert_eq!(w.position(), start + want.len() as u64);
            w.flush().unwrap();
            let inner = w.inner;
            proptest::prop_assert!(inner.data == want);
            // Every piece but the last ends on a multiple of CHUNK.
            let mut at = start;
            for (k, n) in inner.writes.iter().enumerate() {
                at += *n as u64;
                if k + 1 < inner.writes.len() {
                    proptest::prop_assert_eq!(at % CHUNK as u64, 0);
                }
            }
        }
    }

    #[test]
    fn lines_strip_lf_and_crlf_and_keep_the_rest() {
        let data = b"a\nb\r\n c \r\n\r\nlast";
        let mut lines = Lines::new(&data[..]);
        let mut got = Vec::new();
        while let Some((n, l)) = lines.next_line().unwrap() {
            got.push((n, l.to_vec()));
        }
        assert_eq!(
            got,
            vec![
                (1, b"a".to_vec()),
                (2, b"b".to_vec()),
                (3, b" c ".to_vec()),
                (4, b"".to_vec()),
                (5, b"last".to_vec()),
            ]
        );
    }

    #[test]
    fn a_lone_carriage_return_inside_a_line_is_kept() {
        assert_eq!(strip_line_end(b"a\rb\n"), b"a\rb");
        assert_eq!(strip_line_end(b"\r"), b"");
        assert_eq!(strip_line_end(b"x\r\r\n"), b"x\r");
    }

    proptest::proptest! {
        #[test]
        fn newlines_are_all_found(buf in proptest::collection::vec(
            proptest::prop_oneof![proptest::prelude::Just(b'\n'), proptest::prelude::any::<u8>()], 0..300)) {
            let want: Vec<usize> = buf.iter().enumerate().filter(|(_, c)| **c == b'\n').map(|(i, _)| i).collect();
            proptest::prop_assert_eq!(newlines(&buf).collect::<Vec<_>>(), want);
        }
    }

    #[test]
    fn uncommitted_atomic_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        {
            let mut f = AtomicFile::create(&path, AtomicOptions::default()).unwrap();
            f.write_all(b"partial").unwrap();
        }
        assert!(!path.exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn committed_atomic_file_appears_whole_and_refuses_to_clobber() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        let mut f = AtomicFile::create(&path, AtomicOptions::default()).unwrap();
        f.write_all(b"whole").unwrap();
        f.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"whole");
        assert!(matches!(
            AtomicFile::create(&path, AtomicOptions::default()),
            Err(OutputError::Exists)
        ));
        let opts = AtomicOptions {
            overwrite: true,
            ..AtomicOptions::default()
        };
        let mut f = AtomicFile::create(&path, opts).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
    }

    #[test]
    fn a_file_created_meanwhile_is_not_clobbered() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        let mut f = AtomicFile::create(&path, AtomicOptions::default()).unwrap();
        fs::write(&path, b"theirs").unwrap();
        f.write_all(b"ours").unwrap();
        assert!(matches!(f.commit(), Err(OutputError::Exists)));
        assert_eq!(fs::read(&path).unwrap(), b"theirs");
    }

    #[cfg(unix)]
    #[test]
    fn mode_is_applied() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        let opts = AtomicOptions {
            overwrite: false,
            mode: 0o600,
        };
        let mut f = AtomicFile::create(&path, opts).unwrap();
        f.write_all(b"k").unwrap();
        f.commit().unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn same_file_is_detected_through_another_name() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        fs::write(&a, b"x").unwrap();
        let b = dir.path().join(".").join("a");
        assert!(ensure_distinct(&a, &b).is_err());
        assert!(ensure_distinct(&a, &dir.path().join("c")).is_ok());
    }
}
