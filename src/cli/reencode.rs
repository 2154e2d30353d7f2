//! `veilkit reencode`: rewrite opaque ids made with older keys under the current key.

use super::codec::{CodecArgs, prepare, run as run_stream};
use super::manual::{EXIT_PLAIN, ManExtra};
use super::status::{Global, Status};
use crate::ids::stream::Op;

/// One line for the command list.
pub const ABOUT: &str = "Rewrite opaque ids made with older keys under the current key";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Rewrite opaque ids under the current key of the ring: each \
id is decoded with whichever key made it and encoded again with the current key, keeping \
its stored nonce. Use it after `veilkit keygen --add` to move stored or published ids \
forward before their key leaves the ring (uuid ids address the four newest keys).";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: &[],
    examples: &[(
        "Rotate the key, then rewrite a column of stored ids",
        "veilkit keygen --add veilkit.key && veilkit reencode --field 2 --delimiter , < links.csv > links.new.csv",
    )],
};

// Arguments of `veilkit reencode`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::manual::examples_help(&MAN))]
pub struct Args {
    #[command(flatten)]
    pub codec: CodecArgs,

    /// The key that made stored-nonce aes128 and cycle-walk ids, which cannot name their
    /// key [default: the current key].
    #[arg(long, value_name = "ID", help_heading = "Keys")]
    pub key_id: Option<u32>,
}

/// Runs `veilkit reencode`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let prepared = prepare(&args.codec, Op::Reencode, false, args.key_id)?;
    run_stream(&args.codec, prepared, global)
}
