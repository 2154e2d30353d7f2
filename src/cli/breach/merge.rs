//! `veilkit breach merge`: apply re-downloaded ranges to an index.

use super::super::manual::ManExtra;
use super::super::output::{Bar, NewFile, create_output, display_path, is_stdio};
use super::super::report::counted;
use super::super::status::{Global, Status};
use anyhow::Context;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Replace the prefixes of an index that a directory of range files holds";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Build NEW_INDEX from INDEX with the content of every prefix \
present in RANGES_DIR replaced by that range file's: re-download only the ranges that \
changed (for example by ETag) into a directory in the downloader's per-prefix layout \
(`XXXXX.txt` files of `SUFFIX:COUNT` lines; possibly partial), and merge them in one \
streaming pass instead of rebuilding from 90 GB. A prefix whose file is empty loses its \
hashes. The result is byte-identical to a build from the merged dump. NEW_INDEX is written \
atomically; `veilkit breach diff INDEX NEW_INDEX` shows what changed.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: super::super::manual::EXIT_PLAIN,
    uses_keys: false,
    environment: &[],
    examples: &[(
        "Apply this month's changed ranges",
        "veilkit breach merge pwned.idx changed-ranges/ -o pwned-new.idx",
    )],
};

// Arguments of `veilkit breach merge`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The current index.
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,
    /// Range files (`XXXXX.txt`) replacing their prefixes.
    #[arg(value_name = "RANGES_DIR")]
    pub ranges: PathBuf,
    /// The new index.
    #[arg(short, long, value_name = "NEW_INDEX")]
    pub output: PathBuf,
    /// Replace NEW_INDEX if it exists.
    #[arg(short, long)]
    pub force: bool,
}

/// Runs `veilkit breach merge`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    if is_stdio(&args.output) {
        anyhow::bail!("-o -: an index is a seekable file; give a path");
    }
    let index = super::open_index(&args.index)?;
    // A missing directory says so (not that something else is there).
    let meta = std::fs::metadata(&args.ranges).with_context(|| display_path(&args.ranges))?;
    if !meta.is_dir() {
        anyhow::bail!(
            "{}: not a directory of range files",
            display_path(&args.ranges)
        );
    }
    let mut out = create_output(
        &args.output,
        &[&args.index],
        NewFile {
            force: args.force,
            ..NewFile::default()
        },
    )?;
    let spool = crate::streams::parent_dir(&args.output).to_path_buf();
    let bar = Bar::items(global, "merging ranges", "ranges");
    let summary = crate::breach::ranges::merge(
        &index,
        &args.ranges,
        out.file_mut().context("index")?,
        &spool,
        &bar,
    );
    bar.finish();
    let summary = summary.map_err(|e| super::build_failed(e, &args.output))?;
    out.commit().with_context(|| display_path(&args.output))?;
    if !global.quiet {
        eprintln!(
            "veilkit: merged {} ({} replaced): {} in {}",
            counted(summary.ranges, "range file", "range files"),
            counted(summary.replaced, "old hash", "old hashes"),
            counted(summary.build.header.records, "hash", "hashes"),
            display_path(&args.output)
        );
    }
    Ok(Status::Success)
}
