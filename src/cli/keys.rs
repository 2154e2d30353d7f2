//! `veilkit keys`: show the ids and fingerprints of a keyring, never the keys.

use super::generate::{EXIT_PLAIN, ManExtra};
use super::keysource::KeyArgs;
use super::{Global, Status};
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

/// Arguments of `veilkit keys`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::generate::examples_help(&MAN))]
pub struct Args {
    #[command(flatten)]
    pub key: KeyArgs,
}

/// Runs `veilkit keys`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    let ring = args.key.load()?;
    let mut out = super::output::stdout_text();
    let current = ring.current().id();
    writeln!(out, "id\tlow2\tfingerprint\tstatus").context("stdout")?;
    for key in ring.keys() {
        let mut fp = [0u8; 8];
        key.derive("fingerprint", b"", &mut fp);
        let hex: String = fp.iter().map(|b| format!("{b:02x}")).collect();
        let status = if key.id() == current {
            "current"
        } else {
            "decrypts"
        };
        writeln!(out, "{}\t{}\t{hex}\t{status}", key.id(), key.id() % 4).context("stdout")?;
    }
    out.flush().context("stdout")?;
    Ok(Status::Success)
}
