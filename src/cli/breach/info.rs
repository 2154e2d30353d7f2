//! `veilkit breach info`: what an index holds.

use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::status::{Global, Status};
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
    examples: &[
        ("Describe an index", "veilkit breach info hibp.idx"),
        (
            "Its number of hashes, in a script",
            "veilkit breach info --json hibp.idx | jq .hashes",
        ),
    ],
};

// Arguments of `veilkit breach info`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The index.
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,

    /// Print one JSON object instead of `key: value` lines (schema: docs/JSON.md).
    #[arg(long)]
    pub json: bool,
}

/// Runs `veilkit breach info`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    use crate::breach::tier::AnyIndex;
    let any = super::open_any(&args.index, None)?;
    let index = match &any {
        AnyIndex::Exact(i) => i,
        AnyIndex::Compact(_) | AnyIndex::Filter(_) => return tier_info(args, &any),
        AnyIndex::Filtered { .. } => unreachable!("opened without --filter"),
    };
    let h = index.header();
    let p = &h.params;
    let mut lines = vec![
        ("file", args.index.display().to_string()),
        (
            "format",
            match h.version {
                1 => format!(
                    "veilkit breach index, version {} (its table is verified whole at every opening, its records not at all on lookups; a rebuild gives the current format)",
                    h.version
                ),
                2 => format!(
                    "veilkit breach index, version {} (its records are not verified on lookups; a rebuild gives the current format)",
                    h.version
                ),
                _ => format!("veilkit breach index, version {}", h.version),
            },
        ),
        ("kind", p.kind.name().to_string()),
        ("tier", super::describe_tier(&any)),
        ("hashes", h.records.to_string()),
        ("size", size_line(h.file_len, h.records)),
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
        (
            "identity",
            format!(
                "{:016x} (recorded by compact indexes and filters built from it)",
                h.identity()
            ),
        ),
    ];
    lines.push(partial_line(h.partial()));
    if args.json {
        return print_json(serde_json::json!({
            "file": args.index.display().to_string(),
            "format": "exact",
            "version": h.version,
            "kind": p.kind.id(),
            "tier": any.tier().name(),
            "hashes": h.records,
            "bytes": h.file_len,
            "record_bytes": p.record_size,
            "count_bits": p.count_bits,
            "table_bits": p.table_bits,
            "table_bytes": h.table_at.1,
            "overflow_entries": h.overflow_entries,
            "max_count": h.max_count,
            "total_count": h.total_count,
            "identity": format!("{:016x}", h.identity()),
            "partial": h.partial(),
        }));
    }
    print_fields(&lines)
}

/// Prints one JSON object and a line end.
fn print_json(value: serde_json::Value) -> anyhow::Result<Status> {
    super::super::output::print_json(&value)?;
    Ok(Status::Success)
}

/// Whether the index holds every range.
fn partial_line(partial: bool) -> (&'static str, String) {
    (
        "ranges",
        if partial {
            "PARTIAL: built from an incomplete set of ranges (--allow-partial); hashes of the missing ranges read as absent".to_string()
        } else {
            "not marked partial (`veilkit breach verify` counts the ranges holding hashes)"
                .to_string()
        },
    )
}

/// `info` of a compact index or a filter.
fn tier_info(args: &Args, any: &crate::breach::tier::AnyIndex) -> anyhow::Result<Status> {
    use crate::breach::tier::{AnyIndex, Tier};
    let (h, layout) = match any {
        AnyIndex::Compact(c) => (
            c.header(),
            format!(
                "{} bucket bits, {}-bit keys, 7-byte entries ({} large counts in the overflow section)",
                c.header().bits,
                c.header().bits + crate::breach::compact::SUFFIX_BITS,
                c.header().overflow_at.1 / crate::breach::compact::OVERFLOW_ENTRY as u64
            ),
        ),
        AnyIndex::Filter(f) => (
            f.header(),
            format!(
                "binary fuse filter, {}-bit fingerprints, {} shards by leading bits",
                if f.header().tier == Tier::FilterSmall {
                    8
                } else {
                    16
                },
                1u64 << f.header().bits
            ),
        ),
        _ => unreachable!("only compact indexes and filters"),
    };
    let format = if h.tier == Tier::Compact {
        "veilkit breach compact index"
    } else {
        "veilkit breach filter"
    };
    let mut lines = vec![
        ("file", args.index.display().to_string()),
        (
            "format",
            if h.body_summed() {
                format!("{format}, version {}", h.version)
            } else {
                format!(
                    "{format}, version {} (its {} are not verified on lookups; a rebuild gives the current format)",
                    h.version,
                    if h.tier == Tier::Compact {
                        "entries"
                    } else {
                        "fingerprints"
                    }
                )
            },
        ),
        ("kind", h.kind.name().to_string()),
        ("tier", super::describe_tier(any)),
        (
            "false positive rate",
            format!("{:.3e} per absent hash", any.false_positive_rate()),
        ),
        (
            "counts",
            if h.tier.has_counts() {
                "exact (hashes sharing a truncated key have their counts summed)".to_string()
            } else {
                "not available (membership only)".to_string()
            },
        ),
        ("hashes", h.hashes.to_string()),
        ("size", size_line(h.file_len, h.hashes)),
        ("layout", layout),
        (
            "shared keys",
            format!("{} hashes share a stored key with another", h.collisions),
        ),
    ];
    if h.tier.has_counts() {
        lines.push(("largest count", h.max_count.to_string()));
        lines.push(("total count", h.total_count.to_string()));
    }
    lines.push(("built from", format!("exact index {:016x}", h.source_id)));
    lines.push(partial_line(h.partial()));
    if args.json {
        let mut v = serde_json::json!({
            "file": args.index.display().to_string(),
            "format": if h.tier == Tier::Compact { "compact" } else { "filter" },
            "version": h.version,
            "kind": h.kind.id(),
            "tier": h.tier.name(),
            "hashes": h.hashes,
            "bytes": h.file_len,
            "false_positive_rate": any.false_positive_rate(),
            "counts": h.tier.has_counts(),
            "shared_keys": h.collisions,
            "source_identity": format!("{:016x}", h.source_id),
            "partial": h.partial(),
        });
        if h.tier.has_counts() {
            v["max_count"] = h.max_count.into();
            v["total_count"] = h.total_count.into();
        }
        return print_json(v);
    }
    print_fields(&lines)
}

/// Prints `key: value` lines.
fn print_fields(lines: &[(&str, String)]) -> anyhow::Result<Status> {
    let mut out = super::super::output::stdout_text();
    for (k, v) in lines {
        writeln!(out, "{k}: {v}").context("stdout")?;
    }
    out.flush().context("stdout")?;
    Ok(Status::Success)
}

/// The `size` line: bytes, and bytes per hash.
fn size_line(file_len: u64, hashes: u64) -> String {
    format!(
        "{file_len} bytes ({:.2} bytes per hash)",
        file_len as f64 / hashes.max(1) as f64
    )
}
