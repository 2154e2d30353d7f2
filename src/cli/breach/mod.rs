//! `veilkit breach`: the Pwned Passwords index.

pub mod build;
pub mod check;
pub mod compress_ranges;
pub mod diff;
pub mod download;
pub mod export_ranges;
pub mod info;
pub mod merge;
pub mod okon;
pub mod query;
pub mod serve;
pub mod update;
pub mod verify;

use super::manual::{EXIT_PLAIN, ManExtra};
use super::status::{Global, Status};
use clap::Subcommand;

/// One line for the command list.
pub const ABOUT: &str =
    "Build a Pwned Passwords index once, then check hashes and passwords in microseconds";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str =
    "Build the Have I Been Pwned \"Pwned Passwords\" dump (SHA-1 or NTLM, \
`HASH:COUNT` lines, about 2 billion of them) into a compact memory-mapped index once, then \
look hashes and passwords up in microseconds, in batch or interactively.

Without an index, `query --passwords` and `check` use the 30,000 most common passwords \
compiled into veilkit, so a fresh install is useful at once:

  echo password | veilkit breach query --passwords";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: false,
    environment: &[],
    examples: &[
        (
            "Is a password among the most common?",
            "echo password | veilkit breach query --passwords",
        ),
        (
            "Build the index from the downloader's file",
            "veilkit breach build pwnedpasswords.txt -o hibp.idx",
        ),
        (
            "Check passwords interactively against it",
            "veilkit breach check -i hibp.idx",
        ),
    ],
};

// Arguments of `veilkit breach`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::manual::examples_help(&MAN))]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

// The breach subcommands.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    #[command(about = build::ABOUT, long_about = build::LONG_ABOUT)]
    Build(build::Args),
    #[command(about = download::ABOUT, long_about = download::LONG_ABOUT)]
    Download(download::Args),
    #[command(about = update::ABOUT, long_about = update::LONG_ABOUT)]
    Update(update::Args),
    #[command(about = query::ABOUT, long_about = query::LONG_ABOUT)]
    Query(query::Args),
    #[command(about = check::ABOUT, long_about = check::LONG_ABOUT)]
    Check(check::Args),
    #[command(about = info::ABOUT, long_about = info::LONG_ABOUT)]
    Info(info::Args),
    #[command(about = verify::ABOUT, long_about = verify::LONG_ABOUT)]
    Verify(verify::Args),
    #[command(about = export_ranges::ABOUT, long_about = export_ranges::LONG_ABOUT)]
    ExportRanges(export_ranges::Args),
    #[command(about = compress_ranges::ABOUT, long_about = compress_ranges::LONG_ABOUT)]
    CompressRanges(compress_ranges::Args),
    #[command(about = merge::ABOUT, long_about = merge::LONG_ABOUT)]
    Merge(merge::Args),
    #[command(about = diff::ABOUT, long_about = diff::LONG_ABOUT)]
    Diff(diff::Args),
    #[command(about = serve::ABOUT, long_about = serve::LONG_ABOUT)]
    Serve(serve::Args),
    #[command(about = okon::ABOUT, long_about = okon::LONG_ABOUT)]
    Okon(okon::Args),
}

/// Runs `veilkit breach ...`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    match &args.command {
        Command::Build(a) => build::run(a, global),
        Command::Download(a) => download::run(a, global),
        Command::Update(a) => update::run(a, global),
        Command::Query(a) => query::run(a, global),
        Command::Check(a) => check::run(a, global),
        Command::Info(a) => info::run(a, global),
        Command::Verify(a) => verify::run(a, global),
        Command::ExportRanges(a) => export_ranges::run(a, global),
        Command::CompressRanges(a) => compress_ranges::run(a, global),
        Command::Merge(a) => merge::run(a, global),
        Command::Diff(a) => diff::run(a, global),
        Command::Serve(a) => serve::run(a, global),
        Command::Okon(a) => okon::run(a, global),
    }
}

/// The hint under an index that cannot be opened.
pub const OPEN_HINT: &str = "build an index with `veilkit breach build DUMP -o INDEX`; `veilkit breach verify INDEX` checks one";

/// `-` names no index: an index is mapped, not streamed (a file named `-` is `./-`).
pub fn refuse_stdin(path: &std::path::Path) -> anyhow::Result<()> {
    if super::output::is_stdio(path) {
        return Err(super::report::hinted(
            "-: an index is a file (it is mapped, not read as a stream)",
            "give the index's path (a file named - is ./-)",
        ));
    }
    Ok(())
}

/// Opens an exact index with its path as the error's context (commands that need every
/// hash: export, merge, diff, serving ranges).
pub fn open_index(path: &std::path::Path) -> anyhow::Result<crate::breach::index::Index> {
    use super::report::HintExt;
    use crate::breach::tier::{Tier, sniff};
    use anyhow::Context;
    refuse_stdin(path)?;
    if let Ok(Some(tier)) = sniff(path)
        && tier != Tier::Exact
    {
        return Err(super::report::hinted(
            format!(
                "{}: a {} index keeps no full hashes; this needs an exact index",
                path.display(),
                tier.name()
            ),
            "give the exact index it was built from",
        ));
    }
    let index = crate::breach::index::Index::open(path)
        .with_context(|| path.display().to_string())
        .hint(OPEN_HINT)?;
    // These commands read the index whole or carry its ranges elsewhere: one of format 1
    // or 2 (records unchecked as read) is checked whole first, and named if damaged.
    index
        .ensure_checked()
        .with_context(|| path.display().to_string())
        .hint("rebuild the index (`veilkit breach verify INDEX` names the damage)")?;
    Ok(index)
}

/// Warns that an index is partial (built from an incomplete set of ranges), once.
pub fn warn_partial(path: &std::path::Path) {
    super::report::warn(format!(
        "{}: a partial index (built from an incomplete set of ranges): hashes of the missing ranges read as absent",
        path.display()
    ));
}

/// Says once that an index of an older format answers lookups without verifying the
/// records, entries or fingerprints it reads (the guarantee that format gave).
pub fn warn_unverified(path: &std::path::Path, index: &crate::breach::tier::AnyIndex) {
    if !index.lookups_verified() {
        super::report::warn(format!(
            "{}: an index of an older format, whose lookups do not verify the records they read (a damaged one could give a wrong answer): `veilkit breach verify` checks it whole, and rebuilding it (`breach build`, or `breach update`) gives the current format, whose lookups do",
            path.display()
        ));
    }
}

/// Warns when `hashes` hashes leave ranges empty, which spread evenly as hashes are
/// they would not (from [`crate::breach::coverage::IMPROBABLE_FROM`] hashes on): `cause`
/// says what that means for `subject`.
pub fn warn_improbably_empty(
    subject: &str,
    ranges: &crate::breach::coverage::Ranges,
    hashes: u64,
    cause: &str,
) {
    if let Some(first) = ranges
        .first_empty
        .filter(|_| ranges.improbably_empty(hashes))
    {
        super::report::warn(format!(
            "{subject}: {} of the {} ranges have no hashes (the first: {first:05X}), where {hashes} hashes, spread evenly as hashes are, would leave none empty: {cause}, and lookups of hashes in them answer \"not found\"",
            ranges.empty(),
            crate::breach::ranges::PREFIXES,
        ));
    }
}

/// After a verification: warns of empty ranges that its hashes make improbable, in an
/// index not marked partial (by `verify`, and `serve` at start-up).
pub fn warn_verified_empty(
    subject: &str,
    index: &crate::breach::tier::AnyIndex,
    checked: &crate::breach::tier::Verified,
) {
    if let Some(r) = checked.ranges.filter(|_| !index.partial()) {
        warn_improbably_empty(
            subject,
            &r,
            checked.entries,
            "it was built from an input cut short or missing ranges",
        );
    }
}

/// A failed index build's error. The library's write errors know a file handle, not its
/// name, so one that failed to write (a full disk) is said of the output being written.
pub fn build_failed(
    e: crate::breach::build::BuildError,
    output: &std::path::Path,
) -> anyhow::Error {
    let writing = matches!(e, crate::breach::build::BuildError::Write(_));
    named_if(anyhow::Error::new(e), writing, output)
}

/// [`build_failed`] for a compact index or a filter; any other failure names `source`,
/// the exact index it is built from, when given.
pub fn tier_build_failed(
    e: crate::breach::tier::TierBuildError,
    output: &std::path::Path,
    source: Option<&std::path::Path>,
) -> anyhow::Error {
    let writing = matches!(e, crate::breach::tier::TierBuildError::Write(_));
    let e = anyhow::Error::new(e);
    match (writing, source) {
        (true, _) => e.context(super::output::display_path(output)),
        (false, Some(source)) => e.context(super::output::display_path(source)),
        (false, None) => e,
    }
}

fn named_if(e: anyhow::Error, writing: bool, output: &std::path::Path) -> anyhow::Error {
    if writing {
        e.context(super::output::display_path(output))
    } else {
        e
    }
}

/// Opens an index of any tier, optionally behind a filter (`--filter`).
pub fn open_any(
    path: &std::path::Path,
    filter: Option<&std::path::Path>,
) -> anyhow::Result<crate::breach::tier::AnyIndex> {
    use super::report::HintExt;
    use crate::breach::format::HeaderError;
    use crate::breach::tier::AnyIndex;
    use anyhow::Context;
    refuse_stdin(path)?;
    let index = match AnyIndex::open(path) {
        Ok(index) => index,
        Err(e) => {
            let hint = match &e {
                crate::breach::index::IndexError::Header(HeaderError::Outdated(tier, _)) => {
                    format!(
                        "rebuild it from the exact index it came from: `veilkit breach build --tier {tier} EXACT_INDEX -o NEW_FILE`"
                    )
                }
                crate::breach::index::IndexError::NotFile => {
                    "save the index to a file first (an index built to standard output, or decompressed through a pipe, is mapped from that file)".to_string()
                }
                _ => OPEN_HINT.to_string(),
            };
            return Err(e)
                .with_context(|| path.display().to_string())
                .hint(hint);
        }
    };
    match filter {
        None => Ok(index),
        Some(f) => {
            let filtered = AnyIndex::filtered(index, f);
            let hint = match &filtered {
                Err(crate::breach::tier::PairError::Filter(
                    crate::breach::index::IndexError::Memory { .. },
                )) => "a filter is read into memory: free some, or look up without --filter \
                       (the exact index alone gives the same answers)"
                    .to_string(),
                _ => format!(
                    "build the filter from this index: `veilkit breach build --tier filter {} -o FILTER`",
                    path.display()
                ),
            };
            filtered
                .with_context(|| format!("--filter {}", f.display()))
                .hint(hint)
        }
    }
}

/// What a lookup's answer means on this index, for `check` and `info`.
pub fn describe_tier(index: &crate::breach::tier::AnyIndex) -> String {
    use crate::breach::tier::Tier;
    let rate = index.false_positive_rate();
    match index.tier() {
        Tier::Exact => "exact (every hash and its exact count)".to_string(),
        Tier::Compact => format!(
            "compact (truncated keys with exact counts; an absent hash is reported present with probability {rate:.1e})"
        ),
        t => format!(
            "{} (membership only, counts are not available: 1 means probably present, 0 absent; false positive rate {:.4}%)",
            t.name(),
            rate * 100.0
        ),
    }
}
