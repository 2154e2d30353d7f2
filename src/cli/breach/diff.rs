//! `veilkit breach diff`: what changed between two indexes.

use super::super::manual::ManExtra;
use super::super::output::Bar;
use super::super::status::{Global, Status};
use anyhow::Context;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "List the hashes added, removed and re-counted between two indexes";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "List how NEW differs from OLD, in hash order, one line per \
hash: `+HASH:COUNT` for a hash only in NEW, `-HASH:COUNT` for one only in OLD, and \
`~HASH:OLD_COUNT:NEW_COUNT` for one whose count changed. A summary goes to standard error. \
Both indexes must hold the same kind of hash. One streaming pass over both files.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: &[
        ("0", "the indexes hold the same hashes and counts"),
        ("1", "they differ"),
        ("2", "error"),
        ("130", "interrupted (SIGINT; 128 + N for signal N)"),
    ],
    uses_keys: false,
    environment: &[],
    examples: &[
        (
            "What a monthly update changed",
            "veilkit breach diff pwned-2026-10.idx pwned-2026-11.idx > changes.txt",
        ),
        (
            "Count the new hashes",
            "veilkit breach diff old.idx new.idx | grep -c '^+'",
        ),
    ],
};

// Arguments of `veilkit breach diff`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The older index.
    #[arg(value_name = "OLD_INDEX")]
    pub old: PathBuf,
    /// The newer index.
    #[arg(value_name = "NEW_INDEX")]
    pub new: PathBuf,

    /// JSON Lines instead: one object per changed hash ({"type":"added"|"removed"|
    /// "recounted", "hash", "count" or "old_count" and "new_count"}), then one
    /// {"type":"summary"} (schema: docs/JSON.md).
    #[arg(long)]
    pub json: bool,
}

/// Runs `veilkit breach diff`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let old = super::open_index(&args.old)?;
    let new = super::open_index(&args.new)?;
    let mut out = super::super::output::stdout_text();
    let bar = Bar::items(global, "comparing", "hashes");
    let s = crate::breach::ranges::diff(&old, &new, &mut out, args.json, &bar).context("diff")?;
    bar.finish();
    if !global.quiet && !args.json {
        eprintln!(
            "veilkit: {} added, {} removed, {} re-counted, {} unchanged",
            s.added, s.removed, s.recounted, s.same
        );
    }
    Ok(if s.added + s.removed + s.recounted == 0 {
        Status::Success
    } else {
        Status::NotFound
    })
}
