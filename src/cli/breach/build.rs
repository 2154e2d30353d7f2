//! `veilkit breach build`: a dump into an index.

use super::super::generate::{EXIT_PLAIN, ManExtra};
use super::super::output::{Bar, NewFile, create_output, display_path, is_stdio};
use super::super::report::info;
use super::super::{Global, Status};
use crate::breach::HashKind;
use crate::breach::build::{self, Options, Source};
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
dump always gives a byte-identical index.";

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

/// Arguments of `veilkit breach build`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::generate::examples_help(&MAN))]
pub struct Args {
    /// The dump: a file, `-` for standard input, or a per-prefix directory.
    #[arg(value_name = "DUMP")]
    pub dump: PathBuf,

    /// The index to write.
    #[arg(short, long, value_name = "INDEX")]
    pub output: PathBuf,

    /// The hash kind [default: detected from the first line].
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,

    /// Replace INDEX if it exists.
    #[arg(short, long)]
    pub force: bool,
}

/// Runs `veilkit breach build`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    if is_stdio(&args.output) {
        anyhow::bail!("-o -: an index is a seekable file; give a path");
    }
    let kind = args.kind.map(|k| match k {
        KindArg::Sha1 => HashKind::Sha1,
        KindArg::Ntlm => HashKind::Ntlm,
    });
    let started = Instant::now();
    let mut out = create_output(
        &args.output,
        &[&args.dump],
        NewFile {
            force: args.force,
            secret: false,
        },
    )
    .map_err(|e| super::super::report::hinted(format!("{e:#}"), "pass --force to replace it"))?;
    let spool = match args.output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let bar = Bar::bytes(global, "building");
    let shown = display_path(&args.dump);
    let summary = if is_stdio(&args.dump) {
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
            out.file_mut().context("index")?,
            Options { kind },
            &spool,
            &bar,
        )
    } else if args.dump.is_dir() {
        build::build(
            Source::Directory(args.dump.clone()),
            out.file_mut()?,
            Options { kind },
            &spool,
            &bar,
        )
    } else {
        let mut f = std::fs::File::open(&args.dump).with_context(|| shown.clone())?;
        let size = f.metadata().ok().map(|m| m.len());
        build::build(
            Source::Stream {
                reader: &mut f,
                name: shown,
                size,
            },
            out.file_mut()?,
            Options { kind },
            &spool,
            &bar,
        )
    };
    bar.finish();
    let summary = summary.map_err(anyhow::Error::new)?;
    out.commit().with_context(|| display_path(&args.output))?;
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
            "built {}: {} {} hashes, {} bytes ({:.2} bytes per hash), in {:.1} s ({:.1}M lines/s){padding}",
            args.output.display(),
            h.records,
            h.params.kind.name(),
            h.file_len,
            h.file_len as f64 / h.records.max(1) as f64,
            secs,
            summary.lines as f64 / secs / 1e6,
        ),
    );
    Ok(Status::Success)
}
