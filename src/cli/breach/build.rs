//! `veilkit breach build`: a dump into an index.

use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::output::{Bar, NewFile, create_output, display_path, is_stdio};
use super::super::report::info;
use super::super::status::{Global, Status};
use crate::breach::HashKind;
use crate::breach::build::{self, Options, Source};
use crate::breach::index::Index;
use crate::breach::tier::{Tier, sniff_file};
use crate::breach::{compact, filter};
use anyhow::Context;
use std::path::PathBuf;
use std::time::Instant;

/// One line for the command list.
pub const ABOUT: &str = "Build a dump (file, stdin or per-prefix directory) into an index";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Build a Pwned Passwords dump into an index, in one streaming pass \
with bounded memory (docs/BREACH-FORMAT.md).

DUMP is the downloader's single file (`HASH:COUNT` lines, SHA-1 or NTLM, LF or CRLF, any \
case, byte order marks allowed), `-` for standard input, or a directory in the downloader's \
per-prefix layout (00000.txt to FFFFF.txt). The hash kind is detected from the first line \
unless --kind is given. Unsorted input, duplicate hashes, mixed kinds, malformed lines and \
counts that overflow 64 bits stop the build with an error naming the line; count-0 padding \
lines are skipped. The index is written to a temporary file and renamed into place only \
when the build completes, so an interrupted build leaves nothing under INDEX. The same \
dump always gives a byte-identical index.

--tier chooses how much the index keeps (docs/BREACH-FORMAT.md, \"Tiers\"):
  exact         every hash and its exact count, about 19 bytes per hash;
  compact       truncated keys (about 65 bits at 2 billion hashes) with exact counts, 7.1 \
bytes per hash; an absent hash is reported present with probability below 1e-10 (shown by \
`info`);
  filter        a binary fuse filter, 2.25 bytes per hash: membership only, no counts, \
0.0015% false positives;
  filter-small  the same with 8-bit fingerprints, 1.13 bytes per hash, 0.39% false positives.
The smaller tiers are built from an exact index: DUMP may be an exact index (the quick way, \
no temporary space), or a dump, which is first built into an unnamed temporary exact index \
next to the output (it needs that much free space, and disappears whatever happens). \
Filters are built in shards of about a million hashes on --threads threads, so memory stays \
near 30 MB per thread even for the full 2 billion hashes.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: false,
    environment: &[],
    examples: &[
        (
            "From the downloader's single file",
            "veilkit breach build pwnedpasswords.txt -o hibp.idx",
        ),
        (
            "From its per-prefix layout, NTLM",
            "veilkit breach build ranges/ --kind ntlm -o ntlm.idx",
        ),
        (
            "From a pipe",
            "zstd -dc pwned.txt.zst | veilkit breach build - -o hibp.idx",
        ),
        (
            "A filter of an exact index, for `query --filter` or on its own",
            "veilkit breach build --tier filter hibp.idx -o hibp.filter",
        ),
    ],
};

/// `--kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KindArg {
    /// SHA-1 hashes (40 hex digits).
    Sha1,
    /// NTLM hashes (32 hex digits).
    Ntlm,
}

/// `--tier`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TierArg {
    /// Every hash and its exact count.
    Exact,
    /// Truncated keys with exact counts (7 bytes per hash).
    Compact,
    /// Binary fuse filter, 16-bit fingerprints (2.25 bytes per hash, no counts).
    Filter,
    /// Binary fuse filter, 8-bit fingerprints (1.13 bytes per hash, no counts).
    FilterSmall,
}

// Arguments of `veilkit breach build`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The dump: a file, `-` for standard input, or a per-prefix directory; for the
    /// smaller tiers also an exact index.
    #[arg(value_name = "DUMP")]
    pub dump: PathBuf,

    /// The index to write.
    #[arg(short, long, value_name = "INDEX")]
    pub output: PathBuf,

    /// The hash kind [default: detected from the first line].
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,

    /// How much the index keeps.
    #[arg(long, value_enum, default_value = "exact")]
    pub tier: TierArg,

    /// Threads building filter shards [default: the number of processors].
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,

    /// Build from a per-prefix directory that lacks range files (an interrupted
    /// download): the index is marked partial, and `info` and `query` say so.
    #[arg(long)]
    pub allow_partial: bool,

    /// Replace INDEX if it exists.
    #[arg(short, long)]
    pub force: bool,
}

/// The dump as opened, once: a pipe or FIFO read twice would lose what the first read
/// took (or wait forever for a second writer).
enum Input {
    /// Standard input.
    Stdin,
    /// A per-prefix directory.
    Dir,
    /// A file: a regular one is checked for an index first; anything else is a stream.
    File {
        file: std::fs::File,
        tier: Option<Tier>,
    },
}

fn open_dump(path: &std::path::Path) -> anyhow::Result<Input> {
    use std::io::Seek;
    if is_stdio(path) {
        return Ok(Input::Stdin);
    }
    if path.is_dir() {
        return Ok(Input::Dir);
    }
    let shown = display_path(path);
    let mut file = std::fs::File::open(path).with_context(|| shown.clone())?;
    let regular = file.metadata().with_context(|| shown.clone())?.is_file();
    let tier = if regular {
        let t = sniff_file(&file).with_context(|| shown.clone())?;
        file.rewind().with_context(|| shown.clone())?;
        t
    } else {
        None
    };
    Ok(Input::File { file, tier })
}

/// Runs `veilkit breach build`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    if is_stdio(&args.output) {
        anyhow::bail!("-o -: an index is a seekable file; give a path");
    }
    let started = Instant::now();
    let mut out = create_output(
        &args.output,
        &[&args.dump],
        NewFile {
            force: args.force,
            ..NewFile::default()
        },
    )?;
    let spool = crate::streams::parent_dir(&args.output).to_path_buf();
    let mut input = open_dump(&args.dump)?;
    if args.tier == TierArg::Exact {
        let summary = build_exact(
            args,
            global,
            &mut input,
            out.file_mut().context("index")?,
            &spool,
        )?;
        out.commit().with_context(|| display_path(&args.output))?;
        report_exact(args, global, &summary, started);
        return Ok(Status::Success);
    }
    let source = match &input {
        Input::File { tier, .. } => *tier,
        _ => None,
    };
    let index = match (source, &input) {
        (Some(Tier::Exact), Input::File { file, .. }) => Index::open_file(file)
            .with_context(|| display_path(&args.dump))
            .map_err(|e| super::super::report::hinted(format!("{e:#}"), super::OPEN_HINT))?,
        (Some(t), _) => {
            return Err(super::super::report::hinted(
                format!(
                    "{}: a {} index cannot be rebuilt into another tier",
                    display_path(&args.dump),
                    t.name()
                ),
                "build from the exact index or the dump",
            ));
        }
        (None, _) => {
            // A temporary exact index next to the output, unnamed: gone whatever happens.
            let mut temp = tempfile::tempfile_in(&spool)
                .with_context(|| format!("{}: temporary index", spool.display()))?;
            let summary = build_exact(args, global, &mut input, &mut temp, &spool)?;
            report_exact(args, global, &summary, started);
            Index::open_file(&temp).context("temporary index")?
        }
    };
    // A damaged exact index given as input is named (a temporary one is not the user's).
    let named = (source == Some(Tier::Exact)).then_some(args.dump.as_path());
    convert(global, &index, args.tier, args.threads, &mut out, named)?;
    out.commit().with_context(|| display_path(&args.output))?;
    Ok(Status::Success)
}

/// Builds tier `tier` of `index` into `out` (not committed) and says so; an error of the
/// index names `source` when given.
pub fn convert(
    global: Global,
    index: &Index,
    tier: TierArg,
    threads: Option<usize>,
    out: &mut crate::streams::AtomicFile,
    source: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let converting = Instant::now();
    let bar = Bar::items(global, "converting", "hashes");
    let threads =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let shown = out.path().display().to_string();
    let file = out.file_mut().context("index")?;
    let header = match tier {
        TierArg::Compact => compact::build(index, file, &bar),
        TierArg::Filter => filter::build(index, false, threads, file, &bar),
        TierArg::FilterSmall => filter::build(index, true, threads, file, &bar),
        TierArg::Exact => anyhow::bail!("an exact index is built, not converted"),
    };
    bar.finish();
    let header = header.map_err(|e| super::tier_build_failed(e, out.path(), source))?;
    // The rate of the conversion itself; the sync to disk follows.
    let secs = converting.elapsed().as_secs_f64();
    info(
        global,
        format!(
            "built {shown}: {} of {}, {} bytes ({:.2} bytes per hash), in {:.1} s ({:.1}M hashes/s)",
            header.tier.name(),
            hashes(header.hashes, header.kind),
            header.file_len,
            header.file_len as f64 / header.hashes.max(1) as f64,
            secs,
            header.hashes as f64 / secs / 1e6,
        ),
    );
    Ok(())
}

/// Builds the exact index of `args.dump` (opened as `input`) into `file`.
fn build_exact(
    args: &Args,
    global: Global,
    input: &mut Input,
    file: &mut std::fs::File,
    spool: &std::path::Path,
) -> anyhow::Result<build::Summary> {
    let kind = args.kind.map(|k| match k {
        KindArg::Sha1 => HashKind::Sha1,
        KindArg::Ntlm => HashKind::Ntlm,
    });
    if let Input::File { tier: Some(t), .. } = input {
        return Err(super::super::report::hinted(
            format!(
                "{}: this is already {} {} index, not a dump",
                display_path(&args.dump),
                if *t == Tier::Exact { "an" } else { "a" },
                t.name()
            ),
            "give --tier compact, filter or filter-small to build a smaller tier from an exact index",
        ));
    }
    let options = Options {
        kind,
        allow_partial: args.allow_partial,
        partial: false,
        direct: false,
    };
    let bar = Bar::bytes(global, "building");
    let shown = display_path(&args.dump);
    let summary = match input {
        Input::Stdin => {
            super::super::input::take_stdin("the input")?;
            super::super::output::enlarge_pipe(0);
            // Stdin (not its lock) can move to the reading thread; reads of 4 MiB bypass
            // its small buffer.
            let mut stdin = std::io::stdin();
            build::build(
                Source::Stream {
                    reader: &mut stdin,
                    name: shown,
                    size: None,
                },
                file,
                options,
                spool,
                &bar,
            )
        }
        Input::Dir => build::build(
            Source::Directory(args.dump.clone()),
            file,
            options,
            spool,
            &bar,
        ),
        Input::File { file: f, .. } => {
            let size = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            build::build(
                Source::Stream {
                    reader: f,
                    name: shown,
                    size,
                },
                file,
                options,
                spool,
                &bar,
            )
        }
    };
    bar.finish();
    let summary = summary.map_err(|e| super::build_failed(e, &args.output))?;
    let r = &summary.ranges;
    if summary.header.partial() {
        super::super::report::warn(format!(
            "{}: built from an incomplete set of ranges: the index is marked partial, and hashes of the missing ranges read as absent",
            display_path(&args.dump)
        ));
    } else {
        super::warn_improbably_empty(
            &display_path(&args.dump),
            r,
            summary.header.records,
            "the input looks cut short or missing ranges",
        );
    }
    Ok(summary)
}

/// Says what an exact build did.
fn report_exact(args: &Args, global: Global, summary: &build::Summary, started: Instant) {
    let h = &summary.header;
    let secs = started.elapsed().as_secs_f64();
    let mut padding = String::new();
    if summary.padding_skipped > 0 {
        padding = format!(
            "; skipped {} count-0 padding lines",
            summary.padding_skipped
        );
    }
    info(
        global,
        format!(
            "built {}: {}, {} bytes ({:.2} bytes per hash), in {:.1} s ({:.1}M lines/s){padding}",
            if args.tier == TierArg::Exact {
                args.output.display().to_string()
            } else {
                "the temporary exact index".to_string()
            },
            hashes(h.records, h.params.kind),
            h.file_len,
            h.file_len as f64 / h.records.max(1) as f64,
            secs,
            summary.lines as f64 / secs / 1e6,
        ),
    );
}

/// `1 SHA-1 hash`, `2 NTLM hashes`.
fn hashes(n: u64, kind: HashKind) -> String {
    super::super::report::counted(
        n,
        &format!("{} hash", kind.name()),
        &format!("{} hashes", kind.name()),
    )
}
