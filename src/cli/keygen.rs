//! `veilkit keygen`: make a key file, or add a new current key to a keyring.

use super::manual::{EXIT_PLAIN, ManExtra};
use super::output::{NewFile, create_output, display_path};
use super::report::info;
use super::status::{Global, Status};
use crate::keys::Keyring;
use anyhow::Context;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Generate a master key, or add a new current key to a keyring";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str =
    "Generate a fresh random 256-bit master key, or add a new current key \
to a keyring.

A key file holds one key per line, `veilkit-key-1:ID:KEY:CHECK`, with a checksum that catches a \
mistyped or truncated key. The last key of a file is current and encrypts; all of them decrypt. \
Commands that need a key read it with --key-file PATH, or from $VEILKIT_KEY_FILE (a path) or \
$VEILKIT_KEY (the key text). New key files are created with mode 0600, atomically, and never \
replace an existing file without --force. Without -o the key goes to standard output.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: false,
    environment: &[],
    examples: &[
        (
            "Make a new key file, readable by its owner only",
            "veilkit keygen -o veilkit.key",
        ),
        (
            "Rotate: append a new current key; older keys still decrypt",
            "veilkit keygen --add veilkit.key",
        ),
        (
            "Keep the key in the environment, e.g. for a container",
            "export VEILKIT_KEY=\"$(veilkit keygen)\"",
        ),
    ],
};

// Arguments of `veilkit keygen`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::manual::examples_help(&MAN))]
pub struct Args {
    /// Write the key to FILE (created 0600, atomically) instead of standard output.
    #[arg(short, long, value_name = "FILE", conflicts_with = "add")]
    pub output: Option<PathBuf>,

    /// Replace FILE if it exists.
    #[arg(short, long, requires = "output")]
    pub force: bool,

    /// Append a new key to the keyring FILE; it becomes the current key.
    #[arg(long, value_name = "FILE")]
    pub add: Option<PathBuf>,
}

/// Runs `veilkit keygen`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    if let Some(ring_path) = &args.add {
        // Held until the new ring is in place: two runs at once add two keys.
        let _lock = lock_ring(ring_path)?;
        let mut ring = super::keysource::load_file(ring_path)?;
        let id = ring.add_generated().context("keygen")?.id();
        let mut out = create_output(
            ring_path,
            &[],
            NewFile {
                force: true,
                secret: true,
                ..NewFile::default()
            },
        )?;
        out.write_all(ring.to_text().as_bytes())
            .with_context(|| display_path(ring_path))?;
        out.commit().with_context(|| display_path(ring_path))?;
        info(
            global,
            format!(
                "added key {id} to {}; it is now the current key",
                ring_path.display()
            ),
        );
        return Ok(Status::Success);
    }

    let ring = Keyring::generate().context("keygen")?;
    let text = ring.to_text();
    match &args.output {
        Some(path) if !super::output::is_stdio(path) => {
            let mut out = create_output(
                path,
                &[],
                NewFile {
                    force: args.force,
                    secret: true,
                    stdout: true,
                    ..NewFile::default()
                },
            )?;
            out.write_all(text.as_bytes())
                .with_context(|| display_path(path))?;
            out.commit().with_context(|| display_path(path))?;
        }
        _ => {
            let stdout = std::io::stdout();
            if stdout.is_terminal() {
                super::report::warn(
                    "printing a secret key to the terminal; use -o FILE to keep it out of \
                     scrollback",
                );
            }
            // A key cut off by a closed pipe is lost data: report it as an error.
            let mut out = super::output::BinaryOut(stdout.lock());
            out.write_all(text.as_bytes()).context("stdout")?;
            out.flush().context("stdout")?;
        }
    }
    Ok(Status::Success)
}

/// Locks the keyring at `path` against other `keygen --add` runs (an advisory lock on
/// the file itself). The file is replaced by rename, so a run that waited while another
/// replaced it holds the lock of a file no longer at `path`: it then locks the new one,
/// and reads the ring only once the file it locked is the one at `path`.
fn lock_ring(path: &std::path::Path) -> anyhow::Result<std::fs::File> {
    use crate::streams::LockError;
    let shown = display_path(path);
    crate::streams::lock_current(path, false, 1000).map_err(|e| match e {
        LockError::Open(e) | LockError::Check(e) => {
            anyhow::Error::new(e).context(format!("key file {shown}"))
        }
        LockError::Lock(e) => anyhow::Error::new(e).context(format!("key file {shown}: lock")),
        LockError::Replaced => {
            anyhow::anyhow!("key file {shown}: replaced again and again while waiting for its lock")
        }
    })
}
