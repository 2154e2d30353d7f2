//! `veilkit records delete`: remove records in place.

use super::super::manual::{EXIT_LOOKUP, ManExtra};
use super::super::report::info;
use super::super::status::{Global, Status};
use super::get_keys::{KeyInput, Step};
use super::{SecretArgs, open_file, records_error};
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Remove records from a record file in place";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Remove the records with the KEY arguments and the keys of --keys \
(one per line) from a record file, copy-on-write and crash-safe like `append`. Keys that \
are not in the file are ignored; exit status 1 when none was.

A removed record's old page stays in the file, encrypted, until `rekey --rotate-data-key` \
rewrites it: run that when deleted data must be gone from the disk.

Other records keep their place, except in a compressed file (`seal --compress`): a page \
whose remaining records compress worse without the removed one (it held text they \
referred to) may no longer fit, and records from its end then move to a new page at the \
end of the file, so that `open` lists them last and `get --number` counts them there.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_LOOKUP,
    uses_keys: true,
    environment: super::ENV_PASSPHRASE,
    examples: &[
        (
            "Forget two customers",
            "veilkit records delete customers.vkr 1042 77 --key-file k.key",
        ),
        (
            "Then purge them from the disk",
            "veilkit records rekey customers.vkr --rotate-data-key --key-file k.key",
        ),
    ],
};

// Arguments of `veilkit records delete`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The record file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Keys of the records to remove.
    #[arg(value_name = "KEY")]
    pub keys: Vec<String>,

    /// Read keys from PATH, one per line (`-` for standard input), as exact bytes: a UTF-8
    /// byte order mark before the first stays part of it, with a warning.
    #[arg(long = "keys", value_name = "PATH")]
    pub keys_from: Option<PathBuf>,

    #[command(flatten)]
    pub secrets: SecretArgs,

    #[command(flatten)]
    pub recovery: super::RecoveryArgs,
}

/// Runs `veilkit records delete`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let mut keys: Vec<Vec<u8>> = args.keys.iter().map(|k| k.as_bytes().to_vec()).collect();
    if let Some(path) = &args.keys_from {
        KeyInput::open(path)?.each_batch(|step| {
            if let Step::Keys(batch) = step {
                keys.extend(batch.iter().map(|k| k.to_vec()));
            }
            Ok(())
        })?;
    }
    keys.sort_unstable();
    keys.dedup();
    if keys.is_empty() {
        anyhow::bail!("nothing to delete: give keys or --keys PATH");
    }
    let secrets = args
        .secrets
        .load(false, crate::records::format::ARGON_DEFAULT, false)?;
    let shown = args.file.display().to_string();
    let mut file = open_file(&args.file, &secrets, true, &args.recovery)?;
    let asked = keys.len();
    let (_, _, removed) = file
        .commit(Vec::new(), keys)
        .map_err(|e| records_error(e, &shown))?;
    info(
        global,
        format!(
            "{shown}: deleted {} ({} not found)",
            super::super::report::counted(removed, "record", "records"),
            super::super::report::counted(asked as u64 - removed, "key", "keys")
        ),
    );
    Ok(if removed > 0 {
        Status::Success
    } else {
        Status::NotFound
    })
}
