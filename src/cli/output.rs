//! Where output goes: stdout (locked, buffered, line-buffered on a terminal), atomic
//! output files, binary output that must not be cut off, and progress bars on a
//! terminal's stderr.

use crate::progress::Progress;
use crate::streams::{AtomicFile, AtomicOptions, Special};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, BufWriter, IsTerminal, LineWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Capacity of the buffers on stdin and stdout when they are not terminals.
pub const STREAM_BUFFER: usize = 1 << 16;

/// Asks the kernel for a larger buffer when `fd` (0 for standard input, 1 for standard
/// output) is a pipe (Linux; best effort). At tens
/// of millions of lines per second the default 64 KiB pipe costs a context switch every
/// few thousand lines.
pub fn enlarge_pipe(fd: i32) {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::FileType;
        use std::os::fd::AsFd;
        let (stdin, stdout) = (io::stdin(), io::stdout());
        let fd = match fd {
            0 => stdin.as_fd(),
            1 => stdout.as_fd(),
            _ => return,
        };
        // Failures are ignored: this is an optimisation.
        if rustix::fs::fstat(fd)
            .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Fifo)
        {
            let _ = rustix::pipe::fcntl_setpipe_size(fd, 1 << 20);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

/// Locked, buffered standard output for line-oriented text: line-buffered on a terminal
/// (so an interactive user sees each answer at once), block-buffered otherwise.
pub fn stdout_text() -> Box<dyn Write> {
    enlarge_pipe(1);
    let out = io::stdout();
    if out.is_terminal() {
        Box::new(LineWriter::new(out.lock()))
    } else {
        Box::new(BufWriter::with_capacity(STREAM_BUFFER, out.lock()))
    }
}

/// Standard output for streams of millions of lines (`encode`, `decode`): like
/// [`stdout_text`], but when it is not a terminal its writes run on a thread of their
/// own, beside the work that makes the next megabyte.
pub fn stdout_stream() -> Box<dyn crate::streams::Handoff> {
    if io::stdout().is_terminal() {
        return Box::new(LineWriter::new(io::stdout().lock()));
    }
    enlarge_pipe(1);
    // A megabyte per hand-over: the writing thread wakes once per megabyte.
    Box::new(crate::streams::ThreadedWriter::new(io::stdout(), 1 << 20))
}

/// Prints one JSON value on standard output, with a line end (the `--json` of every
/// command that has one; schemas in docs/JSON.md).
pub fn print_json(value: &serde_json::Value) -> anyhow::Result<()> {
    let mut out = stdout_text();
    serde_json::to_writer(&mut out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// The message of the error a binary or ciphertext writer returns when its reader goes
/// away: unlike text, cut-off binary output is lost data, so it is an error.
pub const CUT_OFF: &str = "output was cut off (broken pipe): what was written is incomplete";

/// A writer for binary or ciphertext output: a broken pipe becomes an error that is not
/// [`io::ErrorKind::BrokenPipe`], so the run ends with status 2 instead of quietly.
pub struct BinaryOut<W>(pub W);

fn cut_off(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        io::Error::other(CUT_OFF)
    } else {
        e
    }
}

impl<W: Write> Write for BinaryOut<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(cut_off)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf).map_err(cut_off)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(cut_off)
    }
}

/// Locked, buffered standard output for binary data. Refuses a terminal.
pub fn stdout_binary() -> anyhow::Result<BinaryOut<BufWriter<io::StdoutLock<'static>>>> {
    enlarge_pipe(1);
    let out = io::stdout();
    if out.is_terminal() {
        return Err(super::report::hinted(
            "stdout: refusing to write binary data to a terminal",
            "redirect the output to a file or a pipe, or use -o FILE",
        ));
    }
    Ok(BinaryOut(BufWriter::with_capacity(
        STREAM_BUFFER,
        out.lock(),
    )))
}

/// True for the path `-`.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether `path` is one of the names of this process's standard output
/// (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`): a streamed output given one of them is
/// written to standard output as `-o -` is, whatever standard output is (a pipe, a
/// terminal, or a regular file, which an atomic write would otherwise replace, asking
/// for --force).
pub fn names_stdout(path: &Path) -> bool {
    ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
        .iter()
        .any(|n| path.as_os_str() == *n)
}

/// How a path is named in messages: `stdin` for `-`.
pub fn display_path(path: &Path) -> String {
    if is_stdio(path) {
        "stdin".to_string()
    } else {
        path.display().to_string()
    }
}

/// Options for a new output file.
#[derive(Debug, Clone, Copy, Default)]
pub struct NewFile {
    /// `--force`: replace an existing file.
    pub force: bool,
    /// Create it readable by the owner only (0600): for keys and anything secret.
    pub secret: bool,
    /// Streamed output: a character device or a pipe at the path is written into (`-o
    /// /dev/null`, `-o /dev/stdout`) instead of refused.
    pub stream: bool,
    /// The command writes to standard output with `-o -` (said in the hint when a pipe or
    /// a device is refused).
    pub stdout: bool,
}

/// Starts an atomic output file, refusing to overwrite without `--force` (the one error
/// hinted with it) and refusing any of the `inputs`.
pub fn create_output(path: &Path, inputs: &[&Path], opts: NewFile) -> anyhow::Result<AtomicFile> {
    // An interrupted write must remove its temporary file.
    super::signals::install();
    for input in inputs {
        if !is_stdio(input) {
            crate::streams::ensure_distinct(input, path).with_context(|| display_path(path))?;
        }
    }
    let options = AtomicOptions {
        overwrite: opts.force,
        mode: if opts.secret { 0o600 } else { 0o644 },
        special: if opts.stream {
            Special::WriteInto
        } else {
            Special::Refuse
        },
    };
    AtomicFile::create(path, options).map_err(|e| match e {
        // Only an existing file is what --force is for; a directory, a pipe or a
        // refused permission is not, with or without it.
        crate::streams::OutputError::Exists => super::report::hinted(
            format!("{}: {e}", display_path(path)),
            "pass --force to replace it",
        ),
        e @ crate::streams::OutputError::NotRegular(_) if opts.stdout => super::report::hinted(
            format!("{}: {e}", display_path(path)),
            "to write to standard output, give -o - (or leave -o out)",
        ),
        e => anyhow::Error::new(e).context(display_path(path)),
    })
}

/// An output destination chosen by `-o`: stdout (for `-` or no `-o`) or an atomic file.
pub enum Destination {
    /// Standard output.
    Stdout,
    /// A new file, committed at the end.
    File(AtomicFile),
}

impl Destination {
    /// Chooses stdout for `None` or `-`, else starts an atomic file.
    pub fn open(path: Option<&PathBuf>, inputs: &[&Path], opts: NewFile) -> anyhow::Result<Self> {
        match path {
            None => Ok(Destination::Stdout),
            Some(p) if is_stdio(p) || names_stdout(p) => Ok(Destination::Stdout),
            Some(p) => Ok(Destination::File(create_output(
                p,
                inputs,
                NewFile {
                    stream: true,
                    ..opts
                },
            )?)),
        }
    }
}

/// A progress bar on stderr when it is a terminal and `--quiet` is off; otherwise
/// hidden. Implements the library's [`Progress`] callback.
pub struct Bar {
    bar: ProgressBar,
    /// Bytes received over the network (download bars).
    wire: Arc<AtomicU64>,
    /// Progress lines for a long job whose stderr is not a terminal (a download from
    /// cron or CI), as downloaders print in logs.
    log: Option<LogLines>,
}

/// When a hidden bar next prints a progress line, and what it says.
struct LogLines {
    what: String,
    every: std::time::Duration,
    started: std::time::Instant,
    /// Milliseconds after `started` of the next line.
    next_ms: AtomicU64,
}

/// Seconds between progress lines when stderr is not a terminal: 60, or
/// `VEILKIT_PROGRESS_EVERY`.
fn log_every() -> std::time::Duration {
    let secs = std::env::var("VEILKIT_PROGRESS_EVERY")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|&s| s > 0)
        .unwrap_or(60);
    std::time::Duration::from_secs(secs)
}

impl Bar {
    /// The units done so far (kept by a hidden bar too; `finish` sets it to the total).
    pub fn position(&self) -> u64 {
        self.bar.position()
    }

    /// A bar counting bytes (with throughput as a short number, `95.3MB/s`, and ETA).
    pub fn bytes(global: super::status::Global, what: &str) -> Bar {
        Bar::new(
            global,
            what,
            "{msg} [{bar:32}] {decimal_bytes}/{decimal_total_bytes} {rate}B/s eta {eta}",
        )
    }

    /// A bar counting items, with its rate as a short number (`1.8M records/s`).
    /// `unit` names what is counted (`records`), in the rate: `1.8M records/s`.
    pub fn items(global: super::status::Global, what: &str, unit: &str) -> Bar {
        Bar::new(
            global,
            what,
            &format!(
                "{{msg}} [{{bar:32}}] {{human_pos}}/{{human_len}} {{rate}} {unit}/s eta {{eta}}"
            ),
        )
    }

    /// A bar counting ranges of a download: ranges done, ranges/s, MB/s received, ETA.
    /// Without a terminal (and without -q), a line of the same every minute instead.
    pub fn ranges(global: super::status::Global, what: &str) -> Bar {
        let mut bar = Bar::new(
            global,
            what,
            "{msg} [{bar:32}] {human_pos}/{human_len} ranges {rate} ranges/s {wire} eta {eta}",
        );
        if !global.quiet && !io::stderr().is_terminal() {
            let every = log_every();
            bar.log = Some(LogLines {
                what: what.to_string(),
                every,
                started: std::time::Instant::now(),
                next_ms: AtomicU64::new(every.as_millis() as u64),
            });
        }
        bar
    }

    /// Prints a progress line when one is due (see [`Bar::ranges`]).
    fn log_line(&self) {
        let Some(log) = &self.log else { return };
        let now = log.started.elapsed();
        let due = log.next_ms.load(Ordering::Relaxed);
        let now_ms = now.as_millis() as u64;
        if now_ms < due
            || log
                .next_ms
                .compare_exchange(
                    due,
                    now_ms + log.every.as_millis() as u64,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
        {
            return;
        }
        let (done, total) = (self.bar.position(), self.bar.length().unwrap_or(0));
        let secs = now.as_secs_f64().max(1e-3);
        let rate = done as f64 / secs;
        let left = if rate > 0.0 && total > done {
            format!(
                ", about {} left",
                human_duration((total - done) as f64 / rate)
            )
        } else {
            String::new()
        };
        super::report::info(
            super::status::Global::default(),
            format!(
                "{}: {done} of {total} ({:.1}%), {:.1} MB received, {} {}/s{left}",
                log.what,
                100.0 * done as f64 / total.max(1) as f64,
                self.wire.load(Ordering::Relaxed) as f64 / 1e6,
                human_rate(rate),
                log.what,
            ),
        );
    }

    fn new(global: super::status::Global, what: &str, template: &str) -> Bar {
        let visible = !global.quiet && io::stderr().is_terminal();
        let pb = if visible {
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(10))
        } else {
            ProgressBar::hidden()
        };
        let wire = Arc::new(AtomicU64::new(0));
        // The template uses no colour, so NO_COLOR needs nothing more here.
        if let Ok(style) = ProgressStyle::with_template(template) {
            let seen = wire.clone();
            let style = style
                .progress_chars("=> ")
                .with_key(
                    "rate",
                    |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{}", human_rate(s.per_sec()));
                    },
                )
                .with_key(
                    "wire",
                    move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let secs = s.elapsed().as_secs_f64();
                        let bytes = seen.load(Ordering::Relaxed) as f64;
                        let mb = if secs > 0.0 { bytes / secs / 1e6 } else { 0.0 };
                        let _ = write!(w, "{mb:.1} MB/s");
                    },
                );
            pb.set_style(style);
        }
        pb.set_message(what.to_string());
        Bar {
            bar: pb,
            wire,
            log: None,
        }
    }

    /// Runs `f` with the bar hidden, so that output to the terminal is not garbled.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn set_total(&self, total: u64) {
        self.bar.set_length(total);
    }
    /// Starts over at zero with a new total (a new phase of work).
    fn restart(&self, total: u64) {
        self.bar.set_position(0);
        self.bar.set_length(total);
        self.bar.reset_eta();
    }
    fn advance(&self, delta: u64) {
        self.bar.inc(delta);
        self.log_line();
    }
    fn phase(&self, what: &str) {
        self.bar.set_message(what.to_string());
    }
    fn transferred(&self, bytes: u64) {
        self.wire.fetch_add(bytes, Ordering::Relaxed);
    }
}

/// A duration to the minute: `3 h 20 min`, `12 min`, `under a minute`.
fn human_duration(secs: f64) -> String {
    let m = (secs / 60.0).round() as u64;
    match m {
        0 => "under a minute".to_string(),
        m if m < 60 => format!("{m} min"),
        m => format!("{} h {} min", m / 60, m % 60),
    }
}

/// A rate as an integer with a unit prefix: `950`, `12.5K`, `1.8M` (one decimal under 100).
pub fn human_rate(per_sec: f64) -> String {
    let r = if per_sec.is_finite() {
        per_sec.max(0.0)
    } else {
        0.0
    };
    let (v, unit) = if r >= 1e9 {
        (r / 1e9, "G")
    } else if r >= 1e6 {
        (r / 1e6, "M")
    } else if r >= 1e3 {
        (r / 1e3, "K")
    } else {
        return format!("{}", r.round() as u64);
    };
    if v < 100.0 {
        format!("{v:.1}{unit}")
    } else {
        format!("{}{unit}", v.round() as u64)
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rates_are_short_numbers_with_units() {
        use super::human_rate;
        assert_eq!(human_rate(0.0), "0");
        assert_eq!(human_rate(f64::NAN), "0");
        assert_eq!(human_rate(949.6), "950");
        assert_eq!(human_rate(7_597.3), "7.6K");
        assert_eq!(human_rate(123_456.0), "123K");
        assert_eq!(human_rate(1_834_000.0), "1.8M");
        assert_eq!(human_rate(2.5e9), "2.5G");
    }
}
