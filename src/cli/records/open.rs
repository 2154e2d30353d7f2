//! `veilkit records open`: the original bytes of a record file.

use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::output::{Bar, Destination, NewFile, stdout_text};
use super::super::status::{Global, Status};
use super::{SecretArgs, records_error};
use crate::records::RecordsError;
use anyhow::Context;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str =
    "Print a record file's records: the exact original bytes, after verifying them";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Print the current records of a record file: the exact bytes of the \
input they were sealed from (the header row first, for CSV and TSV), as changed by `append` \
and `delete`.

Nothing is printed unless every data page authenticates: files up to 256 MiB of records are \
decrypted into memory first; larger ones get a verifying pass, then a printing pass. With \
-o, the output is written to a temporary file and renamed into place when complete.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: super::ENV_PASSPHRASE,
    examples: &[
        (
            "Back to the original file",
            "veilkit records open customers.vkr -o customers.csv --key-file k.key",
        ),
        (
            "Into a pipe",
            "veilkit records open app.vkr --passphrase | grep ERROR",
        ),
    ],
};

/// Plaintext held in memory to verify a file before printing any of it.
const VERIFY_BUDGET: usize = 256 << 20;

// Arguments of `veilkit records open`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The record file: a path, an http:// or https:// URL, or s3://BUCKET/KEY (read by
    /// range: only the pages needed are fetched).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Write to OUT instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,

    /// Replace OUT if it exists.
    #[arg(short, long)]
    pub force: bool,

    #[command(flatten)]
    pub secrets: SecretArgs,

    #[command(flatten)]
    pub recovery: super::RecoveryArgs,

    #[command(flatten)]
    pub remote: super::remote::RemoteArgs,
}

/// Runs `veilkit records open`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let secrets = args
        .secrets
        .load(false, crate::records::format::ARGON_DEFAULT, false)?;
    let reading = super::remote::Reading::new(&args.file, &args.remote)?;
    let mut file = reading.open(&secrets, &args.recovery)?;
    let shown = reading.shown.clone();
    let dest = Destination::open(
        args.output.as_ref(),
        &[&args.file],
        NewFile {
            force: args.force,
            secret: true,
            ..NewFile::default()
        },
    )?;
    let bar = Bar::items(global, "opening", "pages");
    // A failed write is the output's, anything else the record file's.
    let named = |e: RecordsError, output: &str| match e {
        RecordsError::Write(io) => {
            anyhow::Error::new(io).context(format!("{output}: cannot write"))
        }
        e => records_error(e, &shown),
    };
    match dest {
        Destination::Stdout => {
            let mut out = stdout_text();
            let r = file.write_all(&mut out, true, VERIFY_BUDGET, &bar);
            bar.finish();
            r.map_err(|e| named(e, "stdout"))?;
        }
        Destination::File(mut f) => {
            // A failure drops the temporary file: no partial output under OUT.
            let r = file.write_all(&mut f, false, 0, &bar);
            bar.finish();
            let out = args.output.as_ref().expect("a file destination has a path");
            r.map_err(|e| named(e, &out.display().to_string()))?;
            f.commit().with_context(|| out.display().to_string())?;
        }
    }
    Ok(Status::Success)
}
