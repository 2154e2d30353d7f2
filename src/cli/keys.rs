//! `veilkit keys`: show the ids and fingerprints of a keyring, never the keys.

use super::keysource::KeyArgs;
use super::manual::{EXIT_PLAIN, ManExtra};
use super::status::{Global, Status};
use anyhow::Context;
use std::io::Write;

/// One line for the command list.
pub const ABOUT: &str = "Show the ids and fingerprints of a keyring (never the keys)";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Show the ids and fingerprints of a keyring, never the keys \
themselves: one line per key, oldest first, with the current key marked.

The fingerprint is derived from the key with HKDF (purpose `fingerprint`), so it can be \
compared between machines to check that they hold the same key without revealing it. \
The `low2` column is the key id modulo 4: the two bits an opaque id carries to name the \
key that made it.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: &[],
    examples: &[
        (
            "Show the keys of a key file",
            "veilkit keys --key-file veilkit.key",
        ),
        (
            "Check which key a container was given",
            "VEILKIT_KEY=\"$(cat veilkit.key)\" veilkit keys",
        ),
    ],
};

// Arguments of `veilkit keys`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::manual::examples_help(&MAN))]
pub struct Args {
    #[command(flatten)]
    pub key: KeyArgs,

    /// Print a JSON array of the keys instead of the table (schema: docs/JSON.md).
    #[arg(long)]
    pub json: bool,
}

/// Runs `veilkit keys`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    use crate::records::slots::fingerprint_hex;
    let ring = args.key.load()?;
    let current = ring.current().id();
    let rows: Vec<(u32, String, &str)> = ring
        .keys()
        .iter()
        .map(|key| {
            let status = if key.id() == current {
                "current"
            } else {
                "decrypts"
            };
            (key.id(), fingerprint_hex(&key.fingerprint()), status)
        })
        .collect();
    if args.json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|(id, fp, status)| {
                serde_json::json!({ "id": id, "low2": id % 4, "fingerprint": fp, "status": status })
            })
            .collect();
        super::output::print_json(&v.into())?;
        return Ok(Status::Success);
    }
    let mut out = super::output::stdout_text();
    writeln!(out, "id\tlow2\tfingerprint\tstatus").context("stdout")?;
    for (id, hex, status) in &rows {
        writeln!(out, "{id}\t{}\t{hex}\t{status}", id % 4).context("stdout")?;
    }
    out.flush().context("stdout")?;
    Ok(Status::Success)
}
