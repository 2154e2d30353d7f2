//! `veilkit man [DIR]`: the manual pages, from the installed binary.

use super::manual::{EXIT_PLAIN, ManExtra};
use super::status::{Global, Status};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Print the manual page, or write every page into a directory";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Without DIR, print the top-level manual page (roff) on \
standard output, for `man -l -`. With DIR, write one page per command and subcommand \
there (veilkit.1, veilkit-breach-query.1, ...), each written atomically; an existing page \
is replaced only with --force. The pages are those under man/ in the source.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: false,
    environment: &[],
    examples: &[
        ("Read the manual now", "veilkit man | man -l -"),
        (
            "Install every page for the current user",
            "veilkit man ~/.local/share/man/man1 --force",
        ),
    ],
};

// Arguments of `veilkit man`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::manual::examples_help(&MAN))]
pub struct Args {
    /// Write every page into this directory (made if it does not exist).
    pub dir: Option<PathBuf>,

    /// Replace pages that are already there.
    #[arg(long, requires = "dir")]
    pub force: bool,
}

/// Runs `veilkit man`.
/// `pages` renders every page (the dispatcher passes
/// [`generate::man_pages`](super::generate::man_pages), which renders the tree this module
/// is part of).
pub fn run(
    args: &Args,
    global: Global,
    pages: fn() -> Vec<(String, Vec<u8>)>,
) -> anyhow::Result<Status> {
    let pages = pages();
    let Some(dir) = &args.dir else {
        let (_, top) = pages.into_iter().next().context("no manual page")?;
        let mut out = std::io::stdout().lock();
        // A closed pipe is a quiet end (`report::error`).
        out.write_all(&top)
            .and_then(|()| out.flush())
            .context("stdout")?;
        return Ok(Status::Success);
    };
    // A folder that does not exist yet (~/.local/share/man/man1 on a fresh account) is
    // made, as `install -D` would; anything else in its place is refused.
    if !dir.exists() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create", dir.display()))?;
    } else if !dir.is_dir() {
        anyhow::bail!("{}: not a directory", dir.display());
    }
    let count = pages.len();
    for (name, content) in pages {
        let path = dir.join(&name);
        let mut file = super::output::create_output(
            &path,
            &[],
            super::output::NewFile {
                force: args.force,
                ..super::output::NewFile::default()
            },
        )?;
        file.write_all(&content)
            .with_context(|| path.display().to_string())?;
        file.commit().with_context(|| path.display().to_string())?;
    }
    super::report::info(
        global,
        format!("wrote {count} manual pages into {}", dir.display()),
    );
    Ok(Status::Success)
}
