//! `veilkit breach okon`: okon-cli's check, for `keepassxc-cli analyze --okon`.

use super::super::manual::ManExtra;
use super::super::status::{Global, Status};
use crate::breach::HashKind;
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Answer as okon-cli does (for keepassxc-cli analyze --okon)";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Look one SHA-1 hash up in an index with okon-cli's arguments, \
output and exit status, so that KeePassXC can check a whole vault against a veilkit \
index:

  keepassxc-cli analyze --okon OKON_CLI --hibp INDEX.okon VAULT.kdbx

keepassxc-cli runs `OKON_CLI --path INDEX.okon --hash HEX` for every password of the vault. \
It takes a program, not a command line, so make veilkit answer under okon-cli's name: a \
link named `okon-cli` to the veilkit binary runs this command (`ln -s \"$(command -v \
veilkit)\" ~/bin/okon-cli`). keepassxc-cli also insists that the file name ends in .okon: \
link the index under such a name (`ln -s hibp.idx hibp.okon`).

Prints 1 and exits 1 when the hash is in the index (on a filter tier: probably in it), \
prints 0 and exits 0 when it is not. Every error (an index that cannot be opened or is \
damaged, a malformed hash, an NTLM index, a hash whose range is missing from a partial \
index, a partial filter asked for an absent hash) exits 2, the status keepassxc-cli reports \
as a failure: any other status would read as \"not leaked\". okon-cli's --prepare is not \
provided: build the index with `veilkit breach build` or `breach download`.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: &[
        ("0", "The hash is not in the index (0 printed)."),
        (
            "1",
            "The hash is in the index (1 printed), as okon-cli answers.",
        ),
        (
            "2",
            "An error: the index cannot be opened or is damaged, the hash is malformed, or the index is partial (--allow-partial) and the hash's range is missing from it.",
        ),
    ],
    uses_keys: false,
    environment: &[],
    examples: &[
        (
            "Check a KeePassXC vault against an index",
            "ln -s \"$(command -v veilkit)\" ~/bin/okon-cli && ln -s hibp.idx hibp.okon && keepassxc-cli analyze --okon ~/bin/okon-cli --hibp hibp.okon vault.kdbx",
        ),
        (
            "The same check by hand",
            "veilkit breach okon --path hibp.okon --hash 5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8",
        ),
    ],
};

// Arguments of `veilkit breach okon` (okon-cli's check).
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The SHA-1 index (any tier; any file name).
    #[arg(long, value_name = "INDEX")]
    pub path: PathBuf,

    /// The SHA-1 hash, 40 hex digits in either case.
    #[arg(long, value_name = "HEX")]
    pub hash: String,
}

/// Runs `veilkit breach okon`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    let hash = HashKind::Sha1
        .parse_hex(args.hash.trim().as_bytes())
        .filter(|_| args.hash.trim().len() == 40)
        .ok_or_else(|| anyhow::anyhow!("--hash: not a SHA-1 hash (40 hex digits)"))?;
    let index = super::open_any(&args.path, None)?;
    if index.kind() != HashKind::Sha1 {
        anyhow::bail!(
            "{}: a {} index; okon-cli's hashes are SHA-1",
            args.path.display(),
            index.kind().name()
        );
    }
    let count = index
        .lookup(&hash)
        .with_context(|| args.path.display().to_string())?;
    let found = count > 0;
    if !found && index.partial() {
        // KeePassXC reads only the status and the digit: "0" for a hash whose range is
        // missing from a partial index would read as "not leaked".
        let prefix = crate::breach::ranges::prefix_of(&hash);
        let holds = index
            .range_holds_hashes(prefix)
            .with_context(|| args.path.display().to_string())?;
        match holds {
            Some(true) => {}
            Some(false) => anyhow::bail!(
                "{}: a partial index, and the range {prefix:05X} this hash falls in holds no hashes (it is missing): whether the password leaked is unknown",
                args.path.display()
            ),
            None => anyhow::bail!(
                "{}: a partial filter, which cannot tell a missing range from an absent hash: give the exact or compact index",
                args.path.display()
            ),
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", u8::from(found))
        .and_then(|()| out.flush())
        // Flattened, so that a closed pipe is an error (status 2) too, not the quiet end
        // (status 0) of other text output: okon-cli's status 0 means "not leaked".
        .map_err(|e| anyhow::anyhow!("stdout: {e}"))?;
    // okon-cli's statuses invert grep's: 1 when found, 0 when not.
    Ok(if found {
        Status::NotFound
    } else {
        Status::Success
    })
}
