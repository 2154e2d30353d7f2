//! `veilkit breach verify`: check an index end to end.

use super::super::generate::{EXIT_PLAIN, ManExtra};
use super::super::output::Bar;
use super::super::report::info;
use super::super::{Global, Status};
use anyhow::Context;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Check an index end to end: structure and every checksum";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Check an index end to end: the header, every section checksum and \
every 16 MiB block of records, the order of the bucket table and of the records, and the \
large-count entries. Exit status 0 when the index is sound, 2 otherwise, with the first \
problem named.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: false,
    environment: &[],
    examples: &[(
        "Check a downloaded or copied index",
        "veilkit breach verify hibp.idx",
    )],
};

/// Arguments of `veilkit breach verify`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::generate::examples_help(&MAN))]
pub struct Args {
    /// The index.
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,
}

/// Runs `veilkit breach verify`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    use crate::breach::tier::AnyIndex;
    let index = super::open_any(&args.index, None)?;
    let bar = Bar::bytes(global, "verifying");
    let shown = args.index.display();
    let report = match &index {
        AnyIndex::Exact(i) => i.verify(&bar).map(|r| {
            format!(
                "{shown}: sound ({} records, {} checksum blocks)",
                r.records, r.blocks
            )
        }),
        AnyIndex::Compact(c) => c
            .verify(&bar)
            .map(|n| format!("{shown}: sound (compact, {n} entries)")),
        AnyIndex::Filter(f) => f
            .verify()
            .map(|n| format!("{shown}: sound ({}, {n} keys)", f.header().tier.name())),
        AnyIndex::Filtered { .. } => unreachable!("opened without --filter"),
    }
    .with_context(|| shown.to_string());
    bar.finish();
    info(global, report?);
    Ok(Status::Success)
}
