//! `veilkit decode`: opaque ids back to database ids.

use super::codec::{CodecArgs, prepare, run as run_stream};
use super::manual::{EXIT_PLAIN, ManExtra};
use super::status::{Global, Status};
use crate::ids::stream::Op;

/// One line for the command list.
pub const ABOUT: &str = "Turn opaque ids back into database ids, rejecting forged ones";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Turn opaque ids made by `veilkit encode` back into database \
ids, one per line, in order. Give the same --scheme, --format, --context, --prefix and \
--rounds as when encoding.

Deterministic forms reject anything encode did not produce with this key ring and context: \
forged or mistyped ids, ids of another context, scheme or number of rounds. UUIDs carry \
the low two bits of their key id, so ids made with any of the four newest keys of the ring \
decode. The stored-nonce forms print `ID NONCE` and cannot reject forgeries; for aes128 and \
cycle-walk they decode with the current key unless --key-id names another.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: &[],
    examples: &[
        ("Round trip", "seq 1 5 | veilkit encode | veilkit decode"),
        (
            "Decode ids from a request log, keeping going past bad ones",
            "cut -f3 access.tsv | veilkit decode --context users --prefix usr_ --format base32 --keep-going",
        ),
    ],
};

// Arguments of `veilkit decode`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::manual::examples_help(&MAN))]
pub struct Args {
    #[command(flatten)]
    pub codec: CodecArgs,

    /// The key that decodes stored-nonce aes128 and cycle-walk ids, which cannot name
    /// their key [default: the current key].
    #[arg(long, value_name = "ID", help_heading = "Keys")]
    pub key_id: Option<u32>,
}

/// Runs `veilkit decode`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let prepared = prepare(&args.codec, Op::Decode, false, args.key_id)?;
    run_stream(&args.codec, prepared, global)
}
