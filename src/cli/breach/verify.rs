//! `veilkit breach verify`: check an index end to end.

use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::output::Bar;
use super::super::report::info;
use super::super::status::{Global, Status};
use anyhow::Context;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Check an index end to end: structure and every checksum";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Check an index end to end: the header, every section checksum and \
every 16 MiB block of records, the order of the bucket table and of the records, and the \
large-count entries. Exit status 0 when the index is sound, 2 otherwise, with the first \
problem named. A file of compressed range bodies (`breach compress-ranges`) is checked \
too: its header, its table and every frame's checksum.

For an exact index it also counts the ranges (five-hex-digit prefixes) holding hashes. The \
Pwned Passwords data has none empty; an index of 2^26 hashes or more (not marked partial) \
with empty ranges gets a warning: it was built from an input cut short or missing ranges, \
and lookups in those ranges answer \"not found\".";

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

// Arguments of `veilkit breach verify`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The index.
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,

    /// Print the result as one JSON object on standard output (schema: docs/JSON.md);
    /// a problem is still named on standard error, with status 2.
    #[arg(long)]
    pub json: bool,
}

/// Whether `path` starts with the magic of compressed range bodies.
fn is_bodies(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    std::fs::File::open(path).is_ok_and(|mut f| {
        f.read_exact(&mut magic).is_ok() && &magic == crate::breach::bodies::MAGIC
    })
}

/// `verify` of a file of compressed range bodies (`breach compress-ranges`): its header,
/// table and every frame's checksum.
fn verify_bodies(args: &Args, global: Global) -> anyhow::Result<Status> {
    let shown = args.index.display().to_string();
    let result = crate::breach::bodies::Bodies::open(&args.index).and_then(|b| {
        let bar = Bar::bytes(global, "verifying");
        let checked = b.verify(&bar);
        bar.finish();
        checked.map(|()| b)
    });
    if args.json {
        let mut v = serde_json::json!({"file": shown, "tier": "bodies", "sound": result.is_ok()});
        match &result {
            Ok(b) => {
                v["kind"] = b.kind().id().into();
                v["entries"] = crate::breach::ranges::PREFIXES.into();
                v["hashes"] = b.totals().0.into();
            }
            Err(e) => v["error"] = super::super::report::with_causes(e).into(),
        }
        super::super::output::print_json(&v)?;
    }
    let b = result.with_context(|| shown.clone())?;
    if !args.json {
        let (hashes, body_bytes) = b.totals();
        info(
            global,
            format!(
                "{shown}: sound (compressed range bodies of a {} index: {} frames, {hashes} hashes, \
                 level {}, {:.3} of the bodies' {body_bytes} bytes)",
                b.kind().name(),
                crate::breach::ranges::PREFIXES,
                b.level(),
                (b.len() - crate::breach::bodies::FRAMES_AT as u64) as f64
                    / body_bytes.max(1) as f64,
            ),
        );
    }
    Ok(Status::Success)
}

/// Runs `veilkit breach verify`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let shown = args.index.display();
    if is_bodies(&args.index) {
        return verify_bodies(args, global);
    }
    let index = match super::open_any(&args.index, None) {
        Ok(i) => i,
        Err(e) => {
            if args.json {
                super::super::output::print_json(&serde_json::json!({
                    "file": shown.to_string(),
                    "sound": false,
                    "error": format!("{e:#}"),
                }))?;
            }
            return Err(e);
        }
    };
    let bar = Bar::bytes(global, "verifying");
    let result = index.verify(&bar);
    bar.finish();
    if args.json {
        let mut v = serde_json::json!({
            "file": shown.to_string(),
            "kind": index.kind().id(),
            "tier": index.tier().name(),
            "sound": result.is_ok(),
        });
        match &result {
            Ok(checked) => {
                v["entries"] = checked.entries.into();
                if let Some(r) = checked.ranges {
                    v["ranges_held"] = r.held.into();
                    v["ranges_empty"] = r.empty().into();
                    v["first_empty_range"] = r.first_empty.map(|p| format!("{p:05X}")).into();
                }
            }
            Err(e) => v["error"] = super::super::report::with_causes(e).into(),
        }
        super::super::output::print_json(&v)?;
    }
    let checked = result.with_context(|| shown.to_string())?;
    if !args.json {
        let ranges = match checked.ranges {
            Some(r) => match r.first_empty {
                None => format!("; hashes in all {} ranges", r.held),
                Some(first) => format!(
                    "; hashes in {} of the {} ranges, the first without: {first:05X}",
                    r.held,
                    crate::breach::ranges::PREFIXES,
                ),
            },
            None => String::new(),
        };
        info(
            global,
            format!(
                "{shown}: sound ({} {} of a {} {} index{ranges})",
                checked.entries,
                if index.tier().has_counts() {
                    "records"
                } else {
                    "keys"
                },
                index.kind().name(),
                index.tier().name()
            ),
        );
    }
    super::warn_verified_empty(&shown.to_string(), &index, &checked);
    Ok(Status::Success)
}
