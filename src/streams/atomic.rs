//! Output files written atomically (temporary file, fsync, rename, directory fsync),
//! never by replacing something that is not a regular file.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Errors from creating or committing an output file.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The final path exists and overwriting was not allowed.
    #[error("already exists")]
    Exists,
    /// The output path names the same file as an input.
    #[error("is the same file as the input {}", .0.display())]
    SameAsInput(PathBuf),
    /// The output path is a directory.
    #[error("is a directory")]
    IsDirectory,
    /// The output path is a device, a pipe or a socket, which an atomic write would
    /// replace by a regular file.
    #[error("is {0}, not a regular file: refusing to replace it")]
    NotRegular(&'static str),
    /// An I/O error.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// What to do when the output path is a character device or a pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Special {
    /// Refuse ([`OutputError::NotRegular`]): state files, key files, indexes and record
    /// files must be replaced whole or not at all.
    #[default]
    Refuse,
    /// Write into it directly (`-o /dev/null`, `-o /dev/stdout`, a FIFO): streamed
    /// output, which a reader consumes as it comes.
    WriteInto,
}

/// Options for [`AtomicFile::create`].
#[derive(Debug, Clone, Copy)]
pub struct AtomicOptions {
    /// Replace an existing file at the final path.
    pub overwrite: bool,
    /// Unix permission bits of the new file (before the umask is applied to nothing: the
    /// temporary file is created with exactly these bits).
    pub mode: u32,
    /// A character device or pipe at the final path.
    pub special: Special,
}

impl Default for AtomicOptions {
    fn default() -> Self {
        AtomicOptions {
            overwrite: false,
            mode: 0o644,
            special: Special::Refuse,
        }
    }
}

/// What kind of thing a path that is not a regular file or a directory names.
fn special_kind(meta: &fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    let _ = meta;
    "not a regular file"
}

/// Whether a special file can be written into as a stream.
fn writable_stream(meta: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        t.is_char_device() || t.is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// The path a write to `path` lands on: `path`, or what its symbolic links lead to (so
/// that an atomic write replaces the linked file and keeps the link).
pub fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// Why [`lock_current`] failed: opening the file, taking its lock, or checking that
/// the path still names it.
#[derive(Debug)]
pub enum LockError {
    /// Opening the file.
    Open(io::Error),
    /// Taking its lock.
    Lock(io::Error),
    /// Reading its metadata or the path's.
    Check(io::Error),
    /// Replaced again and again while waiting, `tries` times.
    Replaced,
}

/// Opens `path` (for writing when `writable`) and takes its exclusive advisory lock.
/// For files that writers replace by rename (written atomically): after waiting for the
/// lock, it checks that the path still names the file locked, else opens the new one
/// and locks that, up to `tries` times.
pub fn lock_current(path: &Path, writable: bool, tries: usize) -> Result<File, LockError> {
    for _ in 0..tries {
        let file = fs::OpenOptions::new()
            .read(true)
            .write(writable)
            .open(path)
            .map_err(LockError::Open)?;
        file.lock().map_err(LockError::Lock)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let held = file.metadata().map_err(LockError::Check)?;
            let now = fs::metadata(path).map_err(LockError::Check)?;
            if (now.dev(), now.ino()) == (held.dev(), held.ino()) {
                return Ok(file);
            }
        }
        #[cfg(not(unix))]
        return Ok(file);
    }
    Err(LockError::Replaced)
}

/// Removes temporary files that earlier runs writing `name` in `dir` left behind when
/// they were killed (their names hold the writer's process id; a file is removed only
/// when that process no longer exists). Best effort, Linux only.
fn remove_stale_temp_files(dir: &Path, name: &str) {
    #[cfg(target_os = "linux")]
    {
        let prefix = format!(".{name}.");
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let me = std::process::id();
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let Some(n) = file_name.to_str() else {
                continue;
            };
            let Some(rest) = n.strip_prefix(&prefix).and_then(|r| r.strip_suffix(".tmp")) else {
                continue;
            };
            // `{pid}.{random}` after the prefix.
            let Some(pid) = rest.split('.').next().and_then(|p| p.strip_prefix("pid")) else {
                continue;
            };
            let Ok(pid) = pid.parse::<u32>() else {
                continue;
            };
            let gone = pid != me && !Path::new("/proc").join(pid.to_string()).exists();
            if !gone {
                continue;
            }
            // Files of atomic outputs, directories of outputs renamed into place whole
            // ([`temp_dir_beside`]); a link or anything else is left alone.
            match entry.file_type() {
                Ok(t) if t.is_file() => {
                    let _ = fs::remove_file(entry.path());
                }
                Ok(t) if t.is_dir() => {
                    let _ = fs::remove_dir_all(entry.path());
                }
                _ => {}
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (dir, name);
}

/// Whether an output file has been renamed into place: after that, an interrupted
/// process has done its work, and exits as a success.
static COMMITTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether this process has committed an output file (see [`AtomicFile::commit`]). A
/// signal handler that has first called [`remove_live_temp_files`] sees a commit that is
/// under way either as done or as not started.
pub fn output_committed() -> bool {
    COMMITTED.load(std::sync::atomic::Ordering::SeqCst)
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
            // Renamed first: a writer still adding files to it then fails, where it
            // would otherwise add files while the directory is emptied, and leave it
            // behind (its last removal refused: not empty). The new name keeps the
            // pattern that the next run's clean-up knows.
            let gone = path.with_extension("gone.tmp");
            let doomed = if fs::rename(&path, &gone).is_ok() {
                gone
            } else {
                path
            };
            // A file whose creation was under way as it was renamed may still appear.
            for _ in 0..8 {
                if fs::remove_dir_all(&doomed).is_ok() || !doomed.exists() {
                    break;
                }
            }
        } else {
            let _ = fs::remove_file(path);
        }
    }
}

/// The directory holding `path`: its parent, or `.` for a bare name.
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Where the temporary file or directory for `target` goes: its directory, and the
/// name's start `.NAME.pidPID.` (a random part and `.tmp` follow). Those that killed
/// processes writing the same name left behind are removed first.
fn temp_place(target: &Path) -> (PathBuf, String) {
    let dir = parent_dir(target).to_path_buf();
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    remove_stale_temp_files(&dir, &name);
    let prefix = format!(".{name}.pid{}.", std::process::id());
    (dir, prefix)
}

/// A temporary directory beside `target` (`.NAME.pidPID.RANDOM.tmp`) for output that is
/// renamed into place whole, removed by a signal handler while the guard lives. Those
/// that killed processes writing the same name left behind are removed first.
pub fn temp_dir_beside(target: &Path) -> io::Result<(tempfile::TempDir, LiveTempDir)> {
    let (dir, prefix) = temp_place(target);
    let temp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".tmp")
        .tempdir_in(&dir)
        .map_err(without_temp_path)?;
    let guard = track_temp_dir(temp.path());
    Ok((temp, guard))
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
/// file, so an interrupted run never leaves a partial file under the final name. The
/// temporary file is named `.NAME.pidPID.RANDOM.tmp`; one left by a process killed with
/// SIGKILL is removed by the next write of the same name in that directory.
///
/// A character device or pipe at the final path is written into directly when the
/// options allow it ([`Special::WriteInto`]), else refused; anything else that is not a
/// regular file is always refused, and so never replaced.
pub struct AtomicFile {
    writer: Option<Writer>,
    temp_path: Option<PathBuf>,
    final_path: PathBuf,
    overwrite: bool,
}

enum Writer {
    Temp(BufWriter<tempfile::NamedTempFile>),
    Direct(BufWriter<File>),
}

impl Writer {
    fn inner(&mut self) -> &mut dyn Write {
        match self {
            Writer::Temp(w) => w,
            Writer::Direct(w) => w,
        }
    }
}

impl AtomicFile {
    /// Starts writing `path`. Fails at once if the path exists and `overwrite` is off,
    /// names a directory, or names something else that is not a regular file (unless it
    /// is a device or pipe and `options.special` allows writing into it).
    pub fn create(path: &Path, options: AtomicOptions) -> Result<Self, OutputError> {
        // What the path names, through any links (the kernel's own, such as
        // /dev/stdout -> /proc/self/fd/1 -> an anonymous pipe, included).
        match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => return Err(OutputError::IsDirectory),
            Ok(meta) if !meta.is_file() => {
                if options.special == Special::WriteInto && writable_stream(&meta) {
                    let f = fs::OpenOptions::new().write(true).open(path)?;
                    return Ok(AtomicFile {
                        writer: Some(Writer::Direct(BufWriter::with_capacity(1 << 16, f))),
                        temp_path: None,
                        final_path: path.to_path_buf(),
                        overwrite: true,
                    });
                }
                return Err(OutputError::NotRegular(special_kind(&meta)));
            }
            Ok(_) if !options.overwrite => return Err(OutputError::Exists),
            _ => {}
        }
        // A regular file (or none yet): the temporary file goes beside the file that
        // the links lead to, so that the rename replaces it and keeps the links.
        let target = resolve_links(path)?;
        let (dir, prefix) = temp_place(&target);
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(options.mode));
        }
        let temp = builder.tempfile_in(&dir).map_err(without_temp_path)?;
        let temp_path = temp.path().to_path_buf();
        lock_live().push(temp_path.clone());
        Ok(AtomicFile {
            writer: Some(Writer::Temp(BufWriter::with_capacity(1 << 20, temp))),
            temp_path: Some(temp_path),
            final_path: target,
            overwrite: options.overwrite,
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.final_path
    }

    /// Whether the output goes straight into a device or pipe (not atomically).
    pub fn is_direct(&self) -> bool {
        matches!(self.writer, Some(Writer::Direct(_)))
    }

    /// The underlying file, after flushing buffered data (for seeking and rewriting a header).
    pub fn file_mut(&mut self) -> io::Result<&mut File> {
        match self.writer.as_mut().expect("writer present until commit") {
            Writer::Temp(w) => {
                w.flush().map_err(without_temp_path)?;
                Ok(w.get_mut().as_file_mut())
            }
            Writer::Direct(w) => {
                w.flush()?;
                Ok(w.get_mut())
            }
        }
    }

    /// Flushes, syncs the data to disk, renames the file to its final name and syncs the
    /// directory (a device or pipe written into is only flushed).
    pub fn commit(mut self) -> Result<(), OutputError> {
        let temp = match self.writer.take().expect("writer present until commit") {
            Writer::Direct(mut w) => {
                w.flush()?;
                return Ok(());
            }
            Writer::Temp(w) => w
                .into_inner()
                .map_err(|e| without_temp_path(e.into_error()))?,
        };
        temp.as_file().sync_all()?;
        // Something may have appeared at the final path meanwhile: never replace a
        // device, pipe, socket or directory.
        if let Ok(meta) = fs::symlink_metadata(&self.final_path) {
            let forget = || {
                if let Some(t) = &self.temp_path {
                    lock_live().retain(|p| p != t);
                }
            };
            if meta.is_dir() {
                forget();
                return Err(OutputError::IsDirectory);
            }
            if !meta.is_file() && !meta.file_type().is_symlink() {
                forget();
                return Err(OutputError::NotRegular(special_kind(&meta)));
            }
        }
        // The rename and the record of it under the lock a signal handler takes first.
        let mut live = lock_live();
        let result = if self.overwrite {
            temp.persist(&self.final_path).map(drop)
        } else {
            temp.persist_noclobber(&self.final_path).map(drop)
        };
        if result.is_ok() {
            COMMITTED.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        if let Some(t) = &self.temp_path {
            live.retain(|p| p != t);
        }
        drop(live);
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

impl AtomicFile {
    /// Commits the file at `path` in place of this one's own (which is removed): a file
    /// the caller wrote beside the final path under a name of its own (an interrupted
    /// write continued by a rerun keeps one). Synced, checked and renamed as
    /// [`AtomicFile::commit`] does; without `overwrite`, an existing final path is
    /// left alone ([`OutputError::Exists`]).
    pub fn commit_file(mut self, path: &Path) -> Result<(), OutputError> {
        match self.writer.take().expect("writer present until commit") {
            Writer::Direct(_) => return Err(OutputError::NotRegular("a stream")),
            Writer::Temp(w) => drop(w),
        }
        if let Some(t) = &self.temp_path {
            lock_live().retain(|p| p != t);
        }
        File::open(path)?.sync_all()?;
        if let Ok(meta) = fs::symlink_metadata(&self.final_path) {
            if meta.is_dir() {
                return Err(OutputError::IsDirectory);
            }
            if !meta.is_file() && !meta.file_type().is_symlink() {
                return Err(OutputError::NotRegular(special_kind(&meta)));
            }
        }
        let live = lock_live();
        let result = if self.overwrite {
            fs::rename(path, &self.final_path)
        } else {
            rename_no_replace(path, &self.final_path)
        };
        if result.is_ok() {
            COMMITTED.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        drop(live);
        match result {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(OutputError::Exists),
            Err(e) => return Err(OutputError::Io(e)),
        }
        sync_parent_dir(&self.final_path)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    // The temporary file's writes name its path in their errors (tempfile's): the
    // caller names the output instead.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let w = self.writer.as_mut().expect("open").inner();
        w.write(buf).map_err(without_temp_path)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let w = self.writer.as_mut().expect("open").inner();
        w.write_all(buf).map_err(without_temp_path)
    }
    fn flush(&mut self) -> io::Result<()> {
        let w = self.writer.as_mut().expect("open").inner();
        w.flush().map_err(without_temp_path)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.is_some()
            && let Some(t) = &self.temp_path
        {
            // Not committed: the NamedTempFile removes itself when the writer drops.
            lock_live().retain(|p| p != t);
        }
    }
}

/// Renames `from` to `to` unless `to` exists ([`io::ErrorKind::AlreadyExists`]): one
/// `renameat2` with `RENAME_NOREPLACE` on Linux, else (or where the file system lacks
/// it) a hard link, which fails where `to` exists, then the removal of `from`.
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {}
            Err(e) => return Err(e.into()),
        }
    }
    fs::hard_link(from, to)?;
    fs::remove_file(from)
}

/// Syncs the directory holding `path`, so a rename in it survives a crash.
pub fn sync_parent_dir(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(parent_dir(path))?.sync_all()?;
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

/// An error of the `tempfile` crate without the ` at path "DIR/.NAME.pid1.XXXX.tmp"` it
/// ends with: the caller names the output, and a temporary name the user never gave
/// only confuses (`x.idx: No such file or directory (os error 2)`). Other errors are
/// returned as they are.
pub fn without_temp_path(e: std::io::Error) -> std::io::Error {
    if e.raw_os_error().is_some() || e.get_ref().is_none() {
        return e;
    }
    let text = e.to_string();
    match text.find(" at path \"") {
        Some(i) => std::io::Error::new(e.kind(), text[..i].to_string()),
        None => e,
    }
}

#[cfg(test)]
mod tests {
    /// tempfile's temporary name is left out of a failure's text; the cause stays.
    #[test]
    fn a_failure_to_make_the_temporary_file_does_not_name_it() {
        let e = tempfile::Builder::new()
            .tempfile_in("/nonexistent-veilkit-dir")
            .unwrap_err();
        assert!(e.to_string().contains(" at path "), "{e}");
        let e = without_temp_path(e);
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
        assert!(!e.to_string().contains("at path"), "{e}");
        assert!(e.to_string().contains("No such file or directory"), "{e}");
        let plain = std::io::Error::from_raw_os_error(2);
        assert_eq!(without_temp_path(plain).raw_os_error(), Some(2));
    }

    use super::*;

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

    /// A file of the caller's committed in place of the temporary one: renamed whole,
    /// never over a file created meanwhile (without overwrite) or a directory, and then
    /// left where it was; the temporary file is gone either way.
    #[test]
    fn a_kept_file_is_committed_in_place_and_never_clobbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        let kept = dir.path().join(".out.bin.kept");
        fs::write(&kept, b"kept").unwrap();
        let f = AtomicFile::create(&path, AtomicOptions::default()).unwrap();
        f.commit_file(&kept).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"kept");
        assert!(!kept.exists());
        // Created meanwhile: left alone, and so is the kept file.
        let other = dir.path().join("other.bin");
        let f = AtomicFile::create(&other, AtomicOptions::default()).unwrap();
        fs::write(&other, b"theirs").unwrap();
        fs::write(&kept, b"kept").unwrap();
        assert!(matches!(f.commit_file(&kept), Err(OutputError::Exists)));
        assert_eq!(fs::read(&other).unwrap(), b"theirs");
        assert_eq!(fs::read(&kept).unwrap(), b"kept");
        // With overwrite: replaced.
        let opts = AtomicOptions {
            overwrite: true,
            ..AtomicOptions::default()
        };
        let f = AtomicFile::create(&other, opts).unwrap();
        f.commit_file(&kept).unwrap();
        assert_eq!(fs::read(&other).unwrap(), b"kept");
        // A directory made meanwhile: refused, even with overwrite.
        let d = dir.path().join("d");
        let f = AtomicFile::create(&d, opts).unwrap();
        fs::create_dir(&d).unwrap();
        fs::write(&kept, b"kept").unwrap();
        assert!(matches!(
            f.commit_file(&kept),
            Err(OutputError::IsDirectory)
        ));
        assert!(kept.exists());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
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
            mode: 0o600,
            ..AtomicOptions::default()
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

    /// A FIFO in a temporary directory (`mkfifo`), or `None` where none can be made.
    #[cfg(unix)]
    fn fifo(dir: &Path) -> Option<PathBuf> {
        let p = dir.join("fifo");
        let ok = std::process::Command::new("mkfifo")
            .arg(&p)
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(p)
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_pipes_are_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let force = AtomicOptions {
            overwrite: true,
            ..AtomicOptions::default()
        };
        // /dev/null, even with overwrite: refused, and still a device afterwards.
        let null = Path::new("/dev/null");
        assert!(matches!(
            AtomicFile::create(null, force),
            Err(OutputError::NotRegular("a character device"))
        ));
        // Written into when streamed output allows it.
        let stream = AtomicOptions {
            special: Special::WriteInto,
            ..AtomicOptions::default()
        };
        let mut f = AtomicFile::create(null, stream).unwrap();
        assert!(f.is_direct());
        f.write_all(b"gone").unwrap();
        f.commit().unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata(null).unwrap().file_type().is_char_device());
        let fifo = fifo(dir.path()).expect("mkfifo (coreutils) makes a named pipe");
        assert!(matches!(
            AtomicFile::create(&fifo, force),
            Err(OutputError::NotRegular("a named pipe"))
        ));
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
        // A device appearing at the path before the commit is not replaced either.
        let path = dir.path().join("out");
        let mut f = AtomicFile::create(&path, force).unwrap();
        f.write_all(b"x").unwrap();
        fs::rename(&fifo, &path).unwrap();
        assert!(matches!(f.commit(), Err(OutputError::NotRegular(_))));
        assert!(fs::metadata(&path).unwrap().file_type().is_fifo());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "temporary file left"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_keeps_pointing_at_the_file_it_names() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        fs::write(&real, b"old").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("real", &link).unwrap();
        let opts = AtomicOptions {
            overwrite: true,
            ..AtomicOptions::default()
        };
        let mut f = AtomicFile::create(&link, opts).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"new");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn temporary_files_of_killed_writers_are_removed_by_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        // A process id that no longer exists: a child that has exited.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = dir.path().join(format!(".out.idx.pid{dead}.abc123.tmp"));
        fs::write(&stale, b"partial").unwrap();
        let live = dir
            .path()
            .join(format!(".out.idx.pid{}.def456.tmp", std::process::id()));
        fs::write(&live, b"mine").unwrap();
        let other = dir.path().join(format!(".other.pid{dead}.abc123.tmp"));
        fs::write(&other, b"not ours").unwrap();
        let f = AtomicFile::create(&dir.path().join("out.idx"), AtomicOptions::default()).unwrap();
        drop(f);
        assert!(!stale.exists(), "a dead writer's temporary file stays");
        assert!(
            live.exists() && other.exists(),
            "a live or unrelated file was removed"
        );
    }
}
