//! `veilkit breach export-ranges`: an index as the public range API's files.

use super::super::manual::ManExtra;
use super::super::output::{Bar, is_stdio};
use super::super::report::{HintExt, counted};
use super::super::status::{Global, Status};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// One line for the command list.
pub const ABOUT: &str = "Write an index as the 1,048,576 range files the HIBP range API serves";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Write an index as range files exactly as the public HIBP range \
API serves them: one file `XXXXX.txt` per 5-hex-digit prefix, holding `SUFFIX:COUNT` lines \
(upper case, the suffix without the prefix) joined by CRLF, with no final line end; the \
layout HIBP itself serves from a CDN. Any static web server, object store or CDN can then \
answer range queries at scale, and `veilkit breach build DIR -o INDEX` turns the directory \
back into a byte-identical index.

Every one of the 1,048,576 prefixes gets a file (an empty one for a prefix without hashes) \
unless --skip-empty is given. DIR must not exist, or be empty (a link to an empty directory \
fills that directory): the files are written into a temporary directory beside it \
(`.DIR.pidPID.RANDOM.tmp`), synced, and renamed to DIR only when complete. Interrupted \
(SIGINT, SIGTERM, SIGHUP), it removes that directory; one that a killed process left is \
removed by the next export to DIR.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: super::super::manual::EXIT_PLAIN,
    uses_keys: false,
    environment: &[],
    examples: &[
        (
            "Export for a static web server",
            "veilkit breach export-ranges -i pwned.idx -o /srv/www/range",
        ),
        (
            "Round trip: the rebuilt index is byte-identical",
            "veilkit breach build /srv/www/range -o again.idx && cmp pwned.idx again.idx",
        ),
    ],
};

// Arguments of `veilkit breach export-ranges`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The index.
    #[arg(short, long, value_name = "INDEX")]
    pub index: PathBuf,
    /// The directory to create.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Write files only for prefixes that hold hashes.
    #[arg(long)]
    pub skip_empty: bool,
}

/// Runs `veilkit breach export-ranges`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    if is_stdio(&args.output) {
        anyhow::bail!("-o -: export-ranges writes a directory of range files; give its path");
    }
    let index = super::open_index(&args.index)?;
    let shown = args.output.display().to_string();
    // Through links, as atomic outputs are written: the files go into the directory a
    // link names (renaming onto the link would replace it, and leave that one empty).
    let target = &crate::streams::resolve_links(&args.output).with_context(|| shown.clone())?;
    if let Ok(mut entries) = std::fs::read_dir(target) {
        if entries.next().is_some() {
            return Err(anyhow::anyhow!(
                "{shown}: the directory exists and is not empty"
            ))
            .hint("choose a new directory, or remove this one first");
        }
    } else if target.exists() {
        anyhow::bail!("{shown}: exists and is not a directory");
    }
    super::super::signals::install();
    let (temp, tracked) = crate::streams::temp_dir_beside(target)
        .with_context(|| format!("{shown}: cannot create a directory beside it"))?;
    let bar = Bar::items(global, "exporting ranges", "ranges");
    let summary = crate::breach::ranges::export(&index, temp.path(), args.skip_empty, &bar)
        .map_err(|e| {
            // A damaged index is named, not the directory being written.
            let about = match e {
                crate::breach::ranges::RangesError::Index(_) => args.index.display().to_string(),
                _ => shown.clone(),
            };
            anyhow::Error::new(e).context(about)
        })?;
    bar.finish();
    sync_filesystem(temp.path()).with_context(|| format!("{shown}: sync"))?;
    let kept = temp.keep();
    if let Err(e) = std::fs::rename(&kept, target) {
        let _ = std::fs::remove_dir_all(&kept);
        return Err(e).context(shown);
    }
    drop(tracked);
    let _ = crate::streams::sync_parent_dir(target);
    if !global.quiet {
        eprintln!(
            "veilkit: wrote {} ({}, {} bytes) into {shown}",
            counted(summary.files, "range file", "range files"),
            counted(summary.hashes, "hash", "hashes"),
            summary.bytes
        );
    }
    Ok(Status::Success)
}

/// Flushes the file system holding `dir` to disk (one call instead of a million fsyncs).
fn sync_filesystem(dir: &Path) -> std::io::Result<()> {
    let d = std::fs::File::open(dir)?;
    #[cfg(target_os = "linux")]
    {
        rustix::fs::syncfs(&d).map_err(std::io::Error::from)
    }
    #[cfg(not(target_os = "linux"))]
    {
        d.sync_all()
    }
}
