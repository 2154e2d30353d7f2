//! `veilkit records verify`: authenticate every page.

use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::output::Bar;
use super::super::report::info;
use super::super::status::{Global, Status};
use super::{SecretArgs, records_error};
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Check that every page of a record file authenticates";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Check a record file end to end: the header, every page the current \
header refers to (data, index, directories), the record counts, and that the index holds \
exactly the records' keys. Exit status 0 when the file is sound, 2 otherwise, with the \
first problem named (a page by its kind and number).";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: super::ENV_PASSPHRASE,
    examples: &[(
        "Check a backup",
        "veilkit records verify customers.vkr --key-file k.key",
    )],
};

// Arguments of `veilkit records verify`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The record file: a path, an http:// or https:// URL, or s3://BUCKET/KEY (read by
    /// range: only the pages needed are fetched).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    #[command(flatten)]
    pub secrets: SecretArgs,

    #[command(flatten)]
    pub recovery: super::RecoveryArgs,

    #[command(flatten)]
    pub remote: super::remote::RemoteArgs,

    /// Print the result as one JSON object on standard output (schema: docs/JSON.md);
    /// a problem is still named on standard error, with status 2.
    #[arg(long)]
    pub json: bool,
}

/// Runs `veilkit records verify`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let secrets = args
        .secrets
        .load(false, crate::records::format::ARGON_DEFAULT, false)?;
    let reading = super::remote::Reading::new(&args.file, &args.remote);
    let shown = match &reading {
        Ok(r) => r.shown.clone(),
        Err(_) => args.file.display().to_string(),
    };
    let failed = |e: anyhow::Error| -> anyhow::Result<Status> {
        if args.json {
            super::super::output::print_json(&serde_json::json!({
                "file": shown,
                "sound": false,
                "error": format!("{e:#}"),
            }))?;
        }
        Err(e)
    };
    let mut file = match reading.and_then(|r| r.open(&secrets, &args.recovery)) {
        Ok(f) => f,
        Err(e) => return failed(e),
    };
    let bar = Bar::items(global, "verifying", "pages");
    let report = file.verify(&bar);
    bar.finish();
    let report = match report {
        Ok(r) => r,
        Err(e) => return failed(records_error(e, &shown)),
    };
    if args.json {
        super::super::output::print_json(&serde_json::json!({
            "file": shown,
            "sound": true,
            "records": report.records,
            "pages": report.pages,
        }))?;
        return Ok(Status::Success);
    }
    info(
        global,
        format!(
            "{shown}: sound ({}, {})",
            super::super::report::counted(report.records, "record", "records"),
            super::super::report::counted(report.pages, "page", "pages")
        ),
    );
    Ok(Status::Success)
}
