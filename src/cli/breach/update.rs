//! `veilkit breach update`: refresh an index from the range API, fetching only the
//! ranges that changed.

use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::output::{Bar, NewFile, create_output, display_path, is_stdio};
use super::super::report::{info, warn};
use super::super::status::{Global, Status};
use super::download::{Kept, WireArgs, failed, space_check, validators_path, warn_empty_ranges};
use crate::breach::download::{self, fetch, validators};
use crate::breach::ranges::PREFIXES;
use anyhow::Context;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// One line for the command list.
pub const ABOUT: &str =
    "Refresh an index from the range API, fetching only the ranges that changed";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Send a conditional request for every range of an exact index \
(If-None-Match and If-Modified-Since, from the INDEX.validators sidecar that `download` \
and `update` write), take the ranges answered 304 from the index, fetch the others, and \
write the new index: byte-identical to `breach build` of the new data. Then say what \
changed: ranges checked, changed and unchanged; hashes added, removed and recounted \
(--json for scripts), counted over the whole update when it was interrupted and run \
again.

Without -o the index is replaced (atomically, when the new one is complete); with -o it \
is left as it is. Without a usable sidecar (missing, cut off, or written for another \
index) every range is fetched, which gives the same index. The wire options, the journal \
and saved state (resumable as for `download`) and the sidecar are those of `download`.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: false,
    environment: &[(
        "HTTPS_PROXY, HTTP_PROXY, NO_PROXY",
        "Proxies for the requests, as curl reads them.",
    )],
    examples: &[
        ("Refresh in place", "veilkit breach update hibp.idx"),
        (
            "Into a new file, with a summary for scripts",
            "veilkit breach update hibp.idx -o hibp-new.idx --json",
        ),
    ],
};

// Arguments of `veilkit breach update`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The exact index to refresh.
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,

    /// Write the new index here instead of replacing INDEX.
    #[arg(short, long, value_name = "NEW")]
    pub output: Option<PathBuf>,

    /// Print the summary as one JSON object on standard output.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub wire: WireArgs,

    /// Replace NEW if it exists.
    #[arg(short, long)]
    pub force: bool,
}

/// Runs `veilkit breach update`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let started = Instant::now();
    let old = super::open_index(&args.index)?;
    let kind = old.kind();
    let target = args.output.clone().unwrap_or_else(|| args.index.clone());
    if is_stdio(&target) {
        anyhow::bail!("-o -: an index is a seekable file; give a path");
    }
    let identity = old.header().identity();
    let sidecar = validators_path(&args.index);
    let known = match std::fs::File::open(&sidecar) {
        Ok(f) => validators::read(&mut std::io::BufReader::new(f), kind, identity)
            .map_err(|e| format!("{}: {e}", sidecar.display())),
        Err(e) => Err(format!("{}: {e}", sidecar.display())),
    };
    let known = match known {
        Ok(v) => v,
        Err(why) => {
            warn(format!(
                "{why}: every range is fetched (the result is the same, only slower)"
            ));
            vec![fetch::Validators::default(); PREFIXES as usize]
        }
    };
    let known = Arc::new(known);
    let fetcher = args.wire.fetcher(kind)?;
    let in_place = args.output.is_none();
    let out = create_output(
        &target,
        &[],
        NewFile {
            force: args.force || in_place,
            ..NewFile::default()
        },
    )?;
    let mut new_sidecar = create_output(
        &validators_path(&target),
        &[],
        NewFile {
            force: true,
            ..NewFile::default()
        },
    )?;
    let dir = crate::streams::parent_dir(out.path()).to_path_buf();
    let kept = Kept::of(out.path());
    let resuming = kept.any();
    let mut index = kept.open_index()?;
    let bar = Bar::ranges(global, "ranges");
    let check = space_check(&dir, &target, &bar);
    let stats = download::download(
        fetcher,
        download::Plan {
            kind,
            parallel: args.wire.parallel as usize,
            journal: &kept.journal,
            state: &kept.state,
            checkpoint_every: args.wire.checkpoint_every,
            spool_dir: &dir,
            ranges: PREFIXES,
            previous: Some(download::Previous {
                index: &old,
                validators: &known,
            }),
            outlook: Some(download::OutlookFn(&check)),
        },
        &mut index,
        &mut new_sidecar,
        &bar,
    );
    let built = bar.position();
    bar.finish();
    let stats = stats.map_err(|e| failed(e, &kept, resuming, built, &target))?;
    let summary = stats.build.as_ref().expect("a finished update has built");
    drop(index);
    out.commit_file(&kept.index)
        .with_context(|| display_path(&target))?;
    validators::write_end(&mut new_sidecar, summary.header.identity())
        .and_then(|()| new_sidecar.commit().map_err(std::io::Error::other))
        .with_context(|| display_path(&validators_path(&target)))?;
    kept.remove()?;
    warn_empty_ranges(&summary.ranges);
    let secs = started.elapsed().as_secs_f64();
    let c = stats.change;
    if args.json {
        let v = serde_json::json!({
            "index": target.display().to_string(),
            "ranges_checked": stats.fetched + stats.replayed,
            "ranges_changed": stats.changed,
            "ranges_unchanged": stats.unchanged,
            "ranges_from_journal": stats.replayed,
            "ranges_empty": summary.ranges.empty(),
            "hashes_added": c.added,
            "hashes_removed": c.removed,
            "hashes_recounted": c.recounted,
            "hashes": summary.header.records,
            "body_bytes": stats.bytes,
            "wire_bytes": stats.wire,
            "seconds": secs,
        });
        super::super::output::print_json(&v)?;
    } else {
        info(
            global,
            format!(
                "updated {}: {} ranges checked, {} changed, {} unchanged{}; hashes: {} added, {} removed, {} recounted, {} in all; {:.1} MB of bodies ({:.1} MB received) in {:.1} s",
                target.display(),
                stats.fetched + stats.replayed,
                stats.changed,
                stats.unchanged,
                if stats.replayed > 0 {
                    format!(" ({} kept by an earlier run)", stats.replayed)
                } else {
                    String::new()
                },
                c.added,
                c.removed,
                c.recounted,
                summary.header.records,
                stats.bytes as f64 / 1e6,
                stats.wire as f64 / 1e6,
                secs,
            ),
        );
    }
    Ok(Status::Success)
}
