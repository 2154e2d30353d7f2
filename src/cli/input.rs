//! Where input comes from: standard input taken once (for the data or for a secret, not
//! both), streamed inputs, whole inputs (mapped when they are regular files) and small
//! secret files.

use super::output::{STREAM_BUFFER, display_path, enlarge_pipe, is_stdio};
use anyhow::Context;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::ops::Deref;
use std::path::Path;

/// What standard input was taken for, once a command has read it: one stream cannot
/// hold a key and the data too.
static STDIN_TAKEN: std::sync::Mutex<Option<&'static str>> = std::sync::Mutex::new(None);

/// Takes standard input for `what` (`"the input"`, `"the key (--key-file -)"`); fails
/// when it was already taken for something else.
pub fn take_stdin(what: &'static str) -> anyhow::Result<()> {
    let mut taken = STDIN_TAKEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match *taken {
        Some(before) if before != what => Err(super::report::hinted(
            format!("stdin: cannot hold {what}: it already holds {before}"),
            "give one of them in a file (or as /dev/fd/N from another descriptor)",
        )),
        _ => {
            // A command waiting on a terminal says so once, as it may look hung.
            if taken.is_none() && what == "the input" && io::stdin().is_terminal() {
                super::report::notice("reading standard input from the terminal (Ctrl-D ends it)");
            }
            *taken = Some(what);
            Ok(())
        }
    }
}

/// Opens an input: `-` is standard input (locked and buffered), anything else a file.
pub fn open_input(path: &Path) -> anyhow::Result<Box<dyn BufRead>> {
    if is_stdio(path) {
        take_stdin("the input")?;
        enlarge_pipe(0);
        Ok(Box::new(BufReader::with_capacity(
            STREAM_BUFFER,
            io::stdin().lock(),
        )))
    } else {
        Ok(buffered(
            File::open(path).with_context(|| display_path(path))?,
        ))
    }
}

/// Standard input for streams of millions of lines (`encode`, `decode`), taken by the
/// caller: a regular file is read ahead on a thread of its own, in the chunks the line
/// reader takes whole, so that the kernel's copy of the next megabyte runs on another
/// core and no byte is copied again; a pipe (whose writer is already another process) or
/// a terminal is read as it is.
pub enum StdinStream {
    /// A regular file, read ahead.
    Ahead(crate::streams::ReadAhead),
    /// A pipe or a terminal.
    Plain(io::StdinLock<'static>),
}

impl StdinStream {
    /// As the line reader's source.
    pub fn source(&mut self) -> crate::streams::Source<'_> {
        match self {
            StdinStream::Ahead(r) => crate::streams::Source::Ahead(r),
            StdinStream::Plain(r) => crate::streams::Source::Read(r),
        }
    }
}

/// Standard input as a [`StdinStream`].
pub fn stdin_stream() -> StdinStream {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let stdin = io::stdin();
        let regular = rustix::fs::fstat(stdin.as_fd()).is_ok_and(|st| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile
        });
        if regular && let Ok(fd) = stdin.as_fd().try_clone_to_owned() {
            return StdinStream::Ahead(crate::streams::ReadAhead::new(
                File::from(fd),
                crate::streams::BLOCK_READ,
            ));
        }
    }
    StdinStream::Plain(io::stdin().lock())
}

/// A file read through a buffer of [`STREAM_BUFFER`] bytes.
fn buffered(f: File) -> Box<dyn BufRead> {
    Box::new(BufReader::with_capacity(STREAM_BUFFER, f))
}

/// A whole input: mapped when it is a regular file (its bytes stay the page cache's, so a
/// large input costs no memory of this process); from a pipe or a terminal, read into
/// memory up to [`HELD_BYTES`], the rest spooled to a temporary file that is mapped.
pub enum WholeInput {
    /// Read into memory.
    Read(Vec<u8>),
    /// A map of the file (or of standard input redirected from one, or of the
    /// temporary file a long piped input was spooled to).
    Mapped(memmap2::Mmap),
}

impl Deref for WholeInput {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            WholeInput::Read(v) => v,
            WholeInput::Mapped(m) => m,
        }
    }
}

/// The most bytes of a piped input held in memory: past it, the input goes to a
/// temporary file, so that its size costs disk (in `TMPDIR`), not memory.
pub const HELD_BYTES: usize = 32 << 20;

/// Reads a whole input (`-` for stdin) whose lines are at most [`LINE_CAP`] bytes, or
/// maps it when it is a regular file. A longer line is an error (`line N: longer than 1
/// MiB`); read from a pipe, it stops the read at once, so that endless input without
/// line ends costs bounded memory. A piped input longer than [`HELD_BYTES`] is spooled
/// to a temporary file in `TMPDIR` (already deleted from its directory, so nothing is
/// left behind however the process ends) and mapped.
///
/// [`LINE_CAP`]: crate::streams::LINE_CAP
pub fn read_input(path: &Path) -> anyhow::Result<WholeInput> {
    let shown = || display_path(path);
    // A path is opened once: a named pipe opened twice could lose its writer between.
    let file = if is_stdio(path) {
        None
    } else {
        Some(File::open(path).with_context(shown)?)
    };
    let map = match &file {
        Some(f) => map_regular(f),
        None => {
            take_stdin("the input")?;
            map_regular(&io::stdin())
        }
    }
    .with_context(shown)?;
    let mut limit = LineLimit::default();
    if let Some(map) = map {
        limit.check(&map, 0).with_context(shown)?;
        return Ok(WholeInput::Mapped(map));
    }
    let mut input = match file {
        Some(f) => buffered(f),
        None => open_input(path)?,
    };
    let mut held = Vec::new();
    let mut spool: Option<File> = None;
    let mut total = 0;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(anyhow::Error::new(e).context(shown())),
        };
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        limit.check(chunk, total).with_context(shown)?;
        match &mut spool {
            None if held.len() + n <= HELD_BYTES => held.extend_from_slice(chunk),
            None => {
                let mut f = spool_file()?;
                spooled(f.write_all(&held).and_then(|()| f.write_all(chunk)))?;
                held = Vec::new();
                spool = Some(f);
            }
            Some(f) => spooled(f.write_all(chunk))?,
        }
        total += n;
        input.consume(n);
    }
    let Some(f) = spool else {
        return Ok(WholeInput::Read(held));
    };
    // SAFETY: a read-only map of a file no other program can name (it was created
    // without a name, or deleted at once: `tempfile::tempfile`), read as bytes only.
    #[allow(unsafe_code)]
    let map = spooled(unsafe { memmap2::Mmap::map(&f) })?;
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(WholeInput::Mapped(map))
}

/// A temporary file for a long piped input, in `TMPDIR`.
fn spool_file() -> anyhow::Result<File> {
    tempfile::tempfile().map_err(|e| spool_error(&e))
}

/// A spooling step's error, naming where the temporary file is.
fn spooled<T>(r: io::Result<T>) -> anyhow::Result<T> {
    r.map_err(|e| spool_error(&e))
}

fn spool_error(e: &io::Error) -> anyhow::Error {
    super::report::hinted(
        format!(
            "spooling the input to a temporary file in {}: {e}",
            std::env::temp_dir().display()
        ),
        "set TMPDIR to a directory with room for the input, or give the input as a file",
    )
}

/// Where an input's current line is, for the limit on a line's length.
#[derive(Default)]
struct LineLimit {
    /// Its number, from 0 (reported from 1).
    line: u64,
    /// Where it starts in the input.
    start: usize,
}

impl LineLimit {
    /// Checks the lines that end in `chunk`, the input's bytes from `at` on, and the one
    /// left open at its end (the lines before were checked by earlier calls).
    fn check(&mut self, chunk: &[u8], at: usize) -> Result<(), crate::streams::LineTooLong> {
        let ends = memchr::memchr_iter(b'\n', chunk).map(|nl| at + nl);
        let end_of_chunk = at + chunk.len();
        for end in ends.chain([end_of_chunk]) {
            if end - self.start > crate::streams::LINE_CAP {
                return Err(crate::streams::LineTooLong {
                    line: self.line + 1,
                    cap: crate::streams::LINE_CAP,
                });
            }
            if end < end_of_chunk {
                self.line += 1;
                self.start = end + 1;
            }
        }
        Ok(())
    }
}

/// A read-only map of `fd` when it is a non-empty regular file read from its start (a
/// descriptor another program has read from, `(read x; veilkit ...) < file`, keeps its
/// offset and is read instead); `None` for anything else (a pipe, a terminal, a device).
#[cfg(unix)]
fn map_regular<F: std::os::fd::AsFd + std::os::fd::AsRawFd>(
    fd: &F,
) -> io::Result<Option<memmap2::Mmap>> {
    let stat = rustix::fs::fstat(fd)?;
    if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile
        || stat.st_size <= 0
        || rustix::fs::seek(fd, rustix::fs::SeekFrom::Current(0))? != 0
    {
        return Ok(None);
    }
    // SAFETY: a read-only map, read as bytes only; the parsers take any bytes. Another
    // program rewriting the input while it is sealed changes what is read (as it would
    // with `read`); shortening it makes reads past its new end fault, as for the
    // indexes and record files this program maps (`records::io::map_file`).
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(fd.as_raw_fd())? };
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(Some(map))
}

/// Elsewhere every input is read.
#[cfg(not(unix))]
fn map_regular<F>(_fd: &F) -> io::Result<Option<memmap2::Mmap>> {
    Ok(None)
}

/// Reads a small secret or state file (a key, a passphrase) within
/// [`SMALL_FILE_CAP`](crate::streams::SMALL_FILE_CAP); `-` reads standard input, taken
/// for `what`. The bytes are wiped when dropped.
pub fn read_small(path: &Path, what: &'static str) -> io::Result<zeroize::Zeroizing<Vec<u8>>> {
    let cap = crate::streams::SMALL_FILE_CAP;
    let bytes = if is_stdio(path) {
        take_stdin(what).map_err(|e| io::Error::other(format!("{e:#}")))?;
        crate::streams::read_capped(&mut io::stdin().lock(), cap)?
    } else {
        crate::streams::read_capped(&mut File::open(path)?, cap)?
    };
    Ok(zeroize::Zeroizing::new(bytes))
}

/// The CA certificates of `--cacert PEM` (`-`: standard input), capped as every file of
/// settings is.
pub fn read_cacert(path: Option<&Path>) -> anyhow::Result<Option<Vec<u8>>> {
    let Some(p) = path else { return Ok(None) };
    let bytes = read_small(p, "the CA certificates (--cacert -)")
        .with_context(|| format!("--cacert {}", p.display()))?;
    Ok(Some(bytes.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::HELD_BYTES;
    use clap::CommandFactory;

    /// The help texts spell the amount held in memory (clap's strings are literals):
    /// this keeps them in step with [`HELD_BYTES`].
    #[test]
    fn the_help_says_how_much_a_pipe_holds_in_memory() {
        let said = format!("first {} MiB", HELD_BYTES >> 20);
        let mut cli = crate::cli::Cli::command();
        // Subcommands' arguments are deferred until the tree is built.
        cli.build();
        let records = cli.find_subcommand_mut("records").expect("records");
        for name in ["seal", "append"] {
            let help = records
                .find_subcommand_mut(name)
                .expect("subcommand")
                .render_long_help()
                .to_string();
            assert!(help.contains(&said), "records {name} --help lacks {said:?}");
        }
        let env = crate::cli::records::ENV_INPUT
            .iter()
            .chain(super::super::manual::TOP.environment)
            .filter(|(name, _)| *name == "TMPDIR");
        let mut n = 0;
        for (_, text) in env {
            assert!(text.contains(&said), "{text:?} lacks {said:?}");
            n += 1;
        }
        assert_eq!(n, 2, "both TMPDIR entries are checked");
    }
}
