//! `veilkit encode`: database ids to opaque ids.

use super::codec::{CodecArgs, prepare, run as run_stream};
use super::manual::{EXIT_PLAIN, ManExtra};
use super::status::{Global, Status};
use crate::ids::stream::Op;

/// One line for the command list.
pub const ABOUT: &str = "Turn database ids into opaque ids (AES-128, UUIDv8 by default)";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Turn sequential database ids into opaque ids with AES-128, \
one per line, in order, streamed.

Schemes (docs/IDS.md specifies them exactly): `uuid` (default), a Feistel network with \
AES-128 round functions whose output is a valid RFC 9562 version-8 UUID (ids up to \
2^60-1; 2 bits carry the key id so older keys of the ring still decode); `aes128`, one \
AES block over the 64-bit id; `cycle-walk`, the same re-encrypted until one chosen bit is \
clear.

By default the output is deterministic: the same id, key and context always give the same \
opaque id, nothing has to be stored, and decode rejects forged, mistyped or foreign ids. \
The deterministic uuid form is secure up to about 2^30 ids per key and context (the \
birthday bound of its 60-bit halves); use --rounds 4 or more for a wider margin. With \
--stored-nonce the second half is a nonce you supply and keep (`ID NONCE` lines); \
--random-nonce draws one and prints `ID NONCE OPAQUE`. Those forms cannot reject forgeries.

Input ids are decimal. Bad lines stop the run after flushing earlier output (exit 2); \
with --keep-going each bad line is reported and replaced by an empty line.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: &[],
    examples: &[
        (
            "Encode ids 1 to 5 as UUIDs",
            "seq 1 5 | veilkit encode --key-file veilkit.key",
        ),
        (
            "Per-table ids with a type prefix, short and URL-safe",
            "veilkit encode --context users --prefix usr_ --format base32 42",
        ),
        (
            "Encode the first column of a TSV export in place",
            "veilkit encode --field 1 < users.tsv > users-public.tsv",
        ),
        (
            "The post's stored-nonce form: draw a nonce per id and keep it",
            "seq 1 3 | veilkit encode --random-nonce",
        ),
        (
            "One AES block per id, as 32 hex digits",
            "veilkit encode --scheme aes128 7",
        ),
    ],
};

// Arguments of `veilkit encode`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::manual::examples_help(&MAN))]
pub struct Args {
    #[command(flatten)]
    pub codec: CodecArgs,

    /// Stored-nonce form with a fresh random nonce per id; prints `ID NONCE OPAQUE` (or,
    /// with --field, writes the nonce into --nonce-field). Store the nonce.
    #[arg(long, help_heading = "Codec")]
    pub random_nonce: bool,
}

/// Runs `veilkit encode`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let prepared = prepare(&args.codec, Op::Encode, args.random_nonce, None)?;
    run_stream(&args.codec, prepared, global)
}
