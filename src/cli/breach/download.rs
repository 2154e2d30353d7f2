//! `veilkit breach download`: the range API straight into an index.

use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::output::{Bar, NewFile, create_output, display_path, is_stdio};
use super::super::report::{hinted, info, warn, with_hint};
use super::super::status::{Global, Status};
use super::build::{KindArg, TierArg, convert};
use crate::breach::HashKind;
use crate::breach::download::decode::Encoding;
use crate::breach::download::{self, DownloadError, fetch, validators};
use crate::breach::index::Index;
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One line for the command list.
pub const ABOUT: &str = "Download every range of the Pwned Passwords API straight into an index";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Fetch all 1,048,576 ranges of the Pwned Passwords range API \
(https://api.pwnedpasswords.com/range/{prefix}, ?mode=ntlm for NTLM) or of a mirror, and \
build the index in the same streaming pass, with no text copy of the data: the result is \
byte-identical to `breach build` of the same data.

--source names a mirror: a URL with a `{prefix}` placeholder is used as it is (an \
`export-ranges` tree on any web server or object store: https://host/ranges/{prefix}.txt); \
any other URL is the base of a range API such as another `veilkit breach serve` \
(/range/{prefix} is added).

Requests: --parallel at once over pooled connections (HTTP/2 where the server offers it), \
compressed bodies (--accept-encoding: Zstandard, then gzip, by default), a User-Agent naming \
veilkit. A timeout, a reset, 429 (after its \
Retry-After) and 5xx are retried --retries times with exponential backoff and jitter; \
every body is checked (suffix length for the kind, hex, counts, order) before it is used, \
and a bad one is fetched again, never built. The public API has no empty range: an empty \
body from it is a bad one; a mirror's empty ranges are built in, and a warning says how \
many (lookups of hashes in them answer \"not found\"). The proxy variables (HTTPS_PROXY, \
HTTP_PROXY, NO_PROXY) are honoured; --cacert adds trusted certificates.

Resumable: the index is written in place beside the output (.INDEX.download-index) and \
checkpointed every 8192 ranges (.INDEX.download-state); the ranges completed since the last \
checkpoint go to a journal (.INDEX.download). Killed at any moment, the same command run \
again checks the kept records against their saved checksums, reads the journal's ranges \
back instead of fetching them and continues from the first range missing; the index is the \
same as an uninterrupted run's. The three files are removed when the index is in place. \
Files of another download (other kind or source), or that do not continue each other, are \
refused, never mixed in. Disk: about the index's size, plus under 1 GB at full scale (the \
journal, the state, the validators); after the first 4,096 ranges of each run (a resumed one \
too) the download estimates what it will write and warns at once when the output's file system has less free space \
than that.

For an exact index, each range's ETag and Last-Modified are kept in INDEX.validators (a \
text sidecar, docs/BREACH-FORMAT.md), for conditional requests when refreshing.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: false,
    environment: &[(
        "HTTPS_PROXY, HTTP_PROXY, NO_PROXY",
        "Proxies for the requests, as curl reads them.",
    )],
    examples: &[
        (
            "The SHA-1 ranges, as an exact index",
            "veilkit breach download -o hibp.idx",
        ),
        (
            "The NTLM ranges, as a compact index",
            "veilkit breach download --kind ntlm --tier compact -o ntlm.compact",
        ),
        (
            "From a mirror serving an export-ranges tree",
            "veilkit breach download --source 'https://mirror.example/ranges/{prefix}.txt' -o hibp.idx",
        ),
    ],
};

// How ranges are fetched (`download` and `update`).
#[derive(Debug, clap::Args)]
pub struct WireArgs {
    /// A mirror: a URL with `{prefix}`, or the base of a range API.
    #[arg(long, value_name = "URL")]
    pub source: Option<String>,

    /// Requests in flight at once.
    #[arg(long, value_name = "N", default_value_t = 32,
          value_parser = clap::value_parser!(u32).range(1..=512))]
    pub parallel: u32,

    /// Attempts after the first for each range.
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(0..=100))]
    pub retries: u32,

    /// Seconds one request may take, body included.
    #[arg(long, value_name = "SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,

    /// Extra trusted certificates (PEM file), beside the system's.
    #[arg(long, value_name = "FILE")]
    pub cacert: Option<PathBuf>,

    /// Content codings to ask for, most wanted first: zstd, gzip, br, identity. Brotli
    /// saves about a twentieth of gzip's bytes and takes twice its CPU to decode.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "zstd,gzip",
          value_parser = parse_coding)]
    pub accept_encoding: Vec<Encoding>,

    /// Ranges between two checkpoints of the index being written: at most this many are
    /// kept in the journal (fewer: a smaller journal, more syncs).
    #[arg(long, value_name = "N", default_value_t = download::CHECKPOINT_EVERY,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub checkpoint_every: u32,
}

/// One coding of `--accept-encoding`.
fn parse_coding(s: &str) -> Result<Encoding, String> {
    Encoding::from_token(s.trim())
        .ok_or_else(|| format!("{s:?} is not one of zstd, gzip, br, identity"))
}

impl WireArgs {
    /// A client for ranges of `kind`.
    pub fn fetcher(&self, kind: HashKind) -> anyhow::Result<fetch::Fetcher> {
        let source = fetch::Source::new(self.source.as_deref(), kind)
            .map_err(|e| anyhow::anyhow!("--source: {e}"))?;
        let cacert = super::super::input::read_cacert(self.cacert.as_deref())?;
        Ok(fetch::Fetcher::new(
            source,
            kind,
            fetch::Options {
                parallel: self.parallel as usize,
                retries: self.retries,
                timeout: Duration::from_secs(self.timeout),
                cacert,
                accept: self.accept_encoding.clone(),
                on_retry: Some(retry_notices()),
                ..fetch::Options::default()
            },
        )?)
    }
}

/// Says on stderr, at once, what is retried and why: the first retry, then at most one
/// line every 10 s (with how many retries it stands for), so that a source that cannot
/// be reached is never a silent wait, nor a flood of one line per range.
fn retry_notices() -> fetch::RetryHook {
    const EVERY: Duration = Duration::from_secs(10);
    let last: Mutex<(Option<Instant>, u64)> = Mutex::new((None, 0));
    fetch::RetryHook(std::sync::Arc::new(move |r: &fetch::Retrying| {
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        last.1 += 1;
        if last.0.is_some_and(|at| at.elapsed() < EVERY) {
            return;
        }
        let others = match last.1 - 1 {
            0 => String::new(),
            n => format!(" ({n} other retries since the last such line)"),
        };
        warn(format!(
            "range {}: {}; attempt {} of {}, retrying in {:.1} s{others}",
            r.prefix,
            r.problem,
            r.attempt,
            r.of,
            r.delay.as_secs_f64()
        ));
        *last = (Some(Instant::now()), 0);
    }))
}

// Arguments of `veilkit breach download`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The index to write.
    #[arg(short, long, value_name = "INDEX")]
    pub output: PathBuf,

    /// The hash kind.
    #[arg(long, value_enum, default_value = "sha1")]
    pub kind: KindArg,

    /// How much the index keeps (as for `build`).
    #[arg(long, value_enum, default_value = "exact")]
    pub tier: TierArg,

    #[command(flatten)]
    pub wire: WireArgs,

    /// Threads building filter shards [default: the number of processors].
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,

    /// Replace INDEX if it exists.
    #[arg(short, long)]
    pub force: bool,
}

/// What an interrupted download into an index keeps beside it for the rerun, removed
/// once the index is committed: its journal (`.NAME.download`), the saved state of the
/// index being written (`.NAME.download-state`) and that index (`.NAME.download-index`).
pub struct Kept {
    /// The journal.
    pub journal: PathBuf,
    /// The saved state.
    pub state: PathBuf,
    /// The exact index being written.
    pub index: PathBuf,
}

impl Kept {
    /// The files of a download into `output`.
    pub fn of(output: &Path) -> Kept {
        let name = output
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let beside = |suffix: &str| output.with_file_name(format!(".{name}.download{suffix}"));
        Kept {
            journal: beside(""),
            state: beside("-state"),
            index: beside("-index"),
        }
    }

    /// The index being written, opened (made when there is none) without changing it:
    /// the download locks its journal before it writes anything.
    pub fn open_index(&self) -> anyhow::Result<std::fs::File> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&self.index)
            .with_context(|| display_path(&self.index))?;
        let meta = file.metadata().with_context(|| display_path(&self.index))?;
        if !meta.is_file() {
            anyhow::bail!("{}: not a regular file", display_path(&self.index));
        }
        Ok(file)
    }

    /// Removes what is left, once the index is committed.
    pub fn remove(&self) -> anyhow::Result<()> {
        for path in [&self.index, &self.state, &self.journal] {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(e).with_context(|| {
                        format!("{}: removing what the download kept", path.display())
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether a rerun has something to continue from.
    pub fn any(&self) -> bool {
        [&self.journal, &self.state]
            .iter()
            .any(|p| p.metadata().is_ok_and(|m| m.is_file() && m.len() > 0))
    }
}

/// The validators' sidecar of an index: `INDEX.validators`.
pub fn validators_path(index: &Path) -> PathBuf {
    let mut s = index.as_os_str().to_owned();
    s.push(".validators");
    PathBuf::from(s)
}

/// The download's [`download::Outlook`] callback: a warning when the file system of
/// `dir` (where the index, its journal and its sidecar go) has less space free than the
/// download will still write. A warning, not an error: the estimate comes from the first
/// ranges, and a download stopped by a full disk continues when run again.
pub fn space_check<'a>(
    dir: &'a Path,
    index: &'a Path,
    bar: &'a Bar,
) -> impl Fn(download::Outlook) + Sync + 'a {
    move |outlook| {
        let Ok(fs) = rustix::fs::statvfs(dir) else {
            return;
        };
        let free = fs.f_bavail.saturating_mul(fs.f_frsize);
        if outlook.more() > free {
            bar.suspend(|| {
                warn(format!(
                    "{}: this download needs about {} more on its file system (the index, its journal and state until the end, the validators), and {} is free; it will stop when the disk is full, and the same command, run again once there is room, continues from there",
                    display_path(index),
                    crate::streams::approx_size(outlook.more()),
                    crate::streams::approx_size(free),
                ));
            });
        }
    }
}

/// Runs `veilkit breach download`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    if is_stdio(&args.output) {
        anyhow::bail!("-o -: an index is a seekable file; give a path");
    }
    let started = Instant::now();
    let kind = match args.kind {
        KindArg::Sha1 => HashKind::Sha1,
        KindArg::Ntlm => HashKind::Ntlm,
    };
    let fetcher = args.wire.fetcher(kind)?;
    let mut out = create_output(
        &args.output,
        &[],
        NewFile {
            force: args.force,
            ..NewFile::default()
        },
    )?;
    let dir = crate::streams::parent_dir(out.path()).to_path_buf();
    let kept = Kept::of(out.path());
    let exact = args.tier == TierArg::Exact;
    // The sidecar is written beside the index, committed after it.
    let mut sidecar = if exact {
        Some(create_output(
            &validators_path(&args.output),
            &[],
            NewFile {
                force: true,
                ..NewFile::default()
            },
        )?)
    } else {
        None
    };
    let mut discard = std::io::sink();
    let bar = Bar::ranges(global, "ranges");
    // What an earlier run kept: a failure of this one that built no range leaves it as
    // it was, and removes what this run made.
    let resuming = kept.any();
    let mut target = kept.open_index()?;
    let check = space_check(&dir, &args.output, &bar);
    let stats = {
        let sink: &mut (dyn std::io::Write + Send) = match sidecar.as_mut() {
            Some(s) => s,
            None => &mut discard,
        };
        download::download(
            fetcher,
            download::Plan {
                kind,
                parallel: args.wire.parallel as usize,
                journal: &kept.journal,
                state: &kept.state,
                checkpoint_every: args.wire.checkpoint_every,
                spool_dir: &dir,
                ranges: crate::breach::ranges::PREFIXES,
                previous: None,
                outlook: Some(download::OutlookFn(&check)),
            },
            &mut target,
            sink,
            &bar,
        )
    };
    let built = bar.position();
    bar.finish();
    let stats = stats.map_err(|e| failed(e, &kept, resuming, built, &args.output))?;
    let summary = stats.build.as_ref().expect("a finished download has built");
    let fetch_secs = started.elapsed().as_secs_f64();
    if exact {
        drop(target);
        out.commit_file(&kept.index)
            .with_context(|| display_path(&args.output))?;
    } else {
        let index = Index::open_file(&target).context("temporary index")?;
        convert(global, &index, args.tier, args.threads, &mut out, None)?;
        out.commit().with_context(|| display_path(&args.output))?;
    }
    if let Some(mut s) = sidecar {
        validators::write_end(&mut s, summary.header.identity())
            .and_then(|()| s.commit().map_err(std::io::Error::other))
            .with_context(|| display_path(&validators_path(&args.output)))?;
    }
    kept.remove()?;
    warn_empty_ranges(&summary.ranges);
    info(
        global,
        format!(
            "downloaded {}: {} {} hashes from {} ranges ({} fetched, {} kept by an earlier run), {:.1} MB of bodies ({:.1} MB received), in {:.1} s ({:.0} ranges/s, {:.1} MB/s received)",
            args.output.display(),
            summary.header.records,
            kind.name(),
            stats.replayed + stats.fetched,
            stats.fetched,
            stats.replayed,
            stats.bytes as f64 / 1e6,
            stats.wire as f64 / 1e6,
            fetch_secs,
            f64::from(stats.fetched) / fetch_secs,
            stats.wire as f64 / 1e6 / fetch_secs,
        ),
    );
    Ok(Status::Success)
}

/// Warns when ranges of the index built have no hashes: the Pwned Passwords data has
/// none, so the source (a mirror: the public API's empty bodies are refused as damage)
/// holds only part of it, and lookups of those ranges answer "not found".
pub fn warn_empty_ranges(ranges: &crate::breach::coverage::Ranges) {
    if let Some(first) = ranges.first_empty {
        warn(format!(
            "{} of the {} ranges have no hashes (the first: {first:05X}): the source holds only part of the Pwned Passwords data, which has no empty range, and lookups of hashes in those ranges answer \"not found\"",
            ranges.empty(),
            crate::breach::ranges::PREFIXES,
        ));
    }
}

/// A failed download's error ([`explain`]), once what this run made is removed when it
/// built no range (`built`, the progress bar's position before it finished) and no
/// earlier run had kept anything (`resuming` false): a source that cannot be reached
/// leaves nothing behind.
pub fn failed(
    e: DownloadError,
    files: &Kept,
    resuming: bool,
    built: u64,
    output: &Path,
) -> anyhow::Error {
    if !resuming && built == 0 {
        let _ = files.remove();
    }
    explain(e, files, output)
}

/// A failed download's error, saying that the journal keeps what was done (when there
/// is one: a journal that could not be made keeps nothing). A write that failed (a full
/// disk) names the index `output` or its validators' sidecar.
pub fn explain(e: DownloadError, files: &Kept, output: &Path) -> anyhow::Error {
    let kept = files.any();
    let written = match &e {
        DownloadError::Build(crate::breach::build::BuildError::Write(_)) => Some(output.into()),
        DownloadError::Validators(_) => Some(validators_path(output)),
        _ => None,
    };
    let plain = |e: DownloadError| match &written {
        Some(path) => anyhow::Error::new(e).context(display_path(path)),
        None => anyhow::Error::new(e),
    };
    let start_over = format!(
        "run the command that started it, or remove {}, {} and {} to start over",
        files.journal.display(),
        files.state.display(),
        files.index.display()
    );
    match e {
        DownloadError::Journal(download::journal::JournalError::Mismatch { .. })
        | DownloadError::Build(crate::breach::build::BuildError::Resume(_)) => {
            hinted(e.to_string(), start_over)
        }
        DownloadError::Journal(download::journal::JournalError::Busy(_)) => with_hint(
            e,
            "wait for that download to end (or stop it); the same command then continues from what it kept",
        ),
        // The error itself, not its text: a build's write error says why in its cause
        // (`cannot write the index: No space left on device`).
        e if kept => with_hint(
            plain(e),
            format!(
                "the ranges completed so far are kept in {}, {} and {}: run the same command again to continue",
                files.index.display(),
                files.state.display(),
                files.journal.display()
            ),
        ),
        e => plain(e),
    }
}
