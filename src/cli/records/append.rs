//! `veilkit records append`: add or supersede records in place.

use super::super::input::read_input;
use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::output::display_path;
use super::super::report::{hinted, info};
use super::super::status::{Global, Status};
use super::{SecretArgs, open_file, records_error};
use crate::records::input::{KeyField, parse};
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str =
    "Add records to a record file in place; a record with an existing key supersedes it";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Add the records of INPUT (a file, or `-` for standard input) to a \
record file, in the file's format and key field. A record whose key is already in the file \
supersedes the old one; among records with the same key in INPUT, the last wins. Lines \
appended to a line file are numbered on from the file's last number. A CSV/TSV INPUT starts \
with the same header row as the file, unless --no-header is given.

The file is changed copy-on-write: new pages are written and synced, then the header copy \
that is not current. Killed at any moment, the file opens with its old or its new content. \
Superseded records stay in the file as unreferenced pages until `rekey --rotate-data-key` \
rewrites it.

Memory: an INPUT that is a file (or standard input redirected from one) is mapped; from a \
pipe, its first 32 MiB are held in memory and the rest goes to a temporary file in TMPDIR \
(deleted as it is made), which is mapped.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: super::ENV_INPUT,
    examples: &[
        (
            "Today's new and changed customers",
            "veilkit records append customers.vkr changes.csv --key-file k.key",
        ),
        (
            "Lines from a pipe",
            "tail -n 100 app.log | veilkit records append app.vkr - --passphrase-file pw",
        ),
    ],
};

// Arguments of `veilkit records append`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The record file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// The records to add: a file, or `-` for standard input.
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,

    /// CSV/TSV INPUT has no header row.
    #[arg(long)]
    pub no_header: bool,

    #[command(flatten)]
    pub secrets: SecretArgs,

    #[command(flatten)]
    pub recovery: super::RecoveryArgs,

    /// Refused, with the reason: an age recipient cannot append (see the man page).
    #[arg(long, short, value_name = "AGE1...", hide = true)]
    pub recipient: Vec<String>,
}

/// Runs `veilkit records append`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    if !args.recipient.is_empty() {
        // Appending rewrites the last pages, the index and the root, all under the data
        // key, which a recipient cannot unwrap.
        return Err(hinted(
            "--recipient: an age recipient can seal a new file but cannot append to one: appending needs the file's data key",
            "give --identity (or a key or passphrase of the file); an export job that must not read the file seals each export to a file of its own with `records seal --recipient`",
        ));
    }
    let secrets = args
        .secrets
        .load(false, crate::records::format::ARGON_DEFAULT, false)?;
    let shown = args.file.display().to_string();
    let input_name = display_path(&args.input);
    let input = read_input(&args.input)?;
    let mut file = open_file(&args.file, &secrets, true, &args.recovery)?;
    let facts = file.info().map_err(|e| records_error(e, &shown))?;
    let key = (!facts.key_field.is_empty()).then(|| KeyField::parse(&facts.key_field));
    let has_header = facts.header_row && !args.no_header;
    if has_header {
        let stored = file
            .prefix()
            .map_err(|e| records_error(e, &shown))?
            .unwrap_or_default();
        let first = input.split(|&c| c == b'\n').next().unwrap_or_default();
        let stored_first = stored.split(|&c| c == b'\n').next().unwrap_or_default();
        if crate::streams::strip_line_end(first) != crate::streams::strip_line_end(stored_first) {
            return Err(hinted(
                format!("{input_name}: line 1: the header row differs from the file's"),
                format!(
                    "`veilkit records get {shown} --header --record 1` shows the file's; pass --no-header if INPUT has none"
                ),
            ));
        }
    }
    let (_, records) = parse(
        &input,
        facts.format,
        key.as_ref(),
        has_header,
        facts.next_number,
    )
    .map_err(|e| records_error(e, &input_name))?;
    let records = records
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| records_error(e, &input_name))?;
    let (added, replaced, _) = file
        .commit(records, Vec::new())
        .map_err(|e| records_error(e, &shown))?;
    info(
        global,
        format!(
            "{shown}: added {}, superseded {replaced}",
            super::super::report::counted(added, "record", "records")
        ),
    );
    Ok(Status::Success)
}
