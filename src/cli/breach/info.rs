//! `veilkit breach info`: what an index holds.

use super::super::generate::{EXIT_PLAIN, ManExtra};
use super::super::{Global, Status};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Show an index's kind, size, counts and format";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Show what an index holds: its hash kind, number of hashes, size \
(with bytes per hash), format version and parameters, and its largest and total counts. \
Reads the header only; `veilkit breach verify` checks the whole file.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: false,
    environment: &[],
    examples: &[("Describe an index", "veilkit breach info hibp.idx")],
};

/// Arguments of `veilkit breach info`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::generate::examples_help(&MAN))]
pub struct Args {
    /// The index.
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,
}

/// Runs `veilkit breach info`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    let index = super::open_index(&args.index)?;
    let h = index.header();
    let p = &h.params;
    let mut out = super::super::output::stdout_text();
    let lines = [
        ("file", args.index.display().to_string()),
        (
            "format",
            format!(
                "veilkit breach index, version {}",
                crate::breach::format::VERSION
            ),
        ),
        ("kind", p.kind.name().to_string()),
        ("tier", "exact (every hash and its exact count)".to_string()),
        ("hashes", h.records.to_string()),
        (
            "size",
            format!(
                "{} bytes ({:.2} bytes per hash)",
                h.file_len,
                h.file_len as f64 / h.records.max(1) as f64
            ),
        ),
        (
            "records",
            format!(
                "{} bytes each, {}-bit count field",
                p.record_size, p.count_bits
            ),
        ),
        (
            "table",
            format!("{} bits, {} bytes", p.table_bits, h.table_at.1),
        ),
        (
            "large counts",
            format!("{} in the overflow section", h.overflow_entries),
        ),
        ("largest count", h.max_count.to_string()),
        ("total count", h.total_count.to_string()),
    ];
    for (k, v) in lines {
        writeln!(out, "{k}: {v}").context("stdout")?;
    }
    out.flush().context("stdout")?;
    Ok(Status::Success)
}
