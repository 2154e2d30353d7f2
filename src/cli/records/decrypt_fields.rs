//! `veilkit records decrypt-fields`: decrypt columns made by `encrypt-fields`.

use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::status::{Global, Status};
use super::encrypt_fields::{FieldArgs, run_fields};
use crate::records::fields;

/// One line for the command list.
pub const ABOUT: &str =
    "Decrypt CSV/TSV columns made by encrypt-fields and drop their token columns";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Decrypt the --fields of a CSV or TSV stream made by \
`encrypt-fields`, with the same key file (any key of the keyring it was made with: the key \
id travels in each value) and --context, and drop the token columns encrypt-fields added \
(each NAME_token column right after a column NAME in the header row; without a header, \
those after the --token-fields), unless --keep-tokens. Values encrypted with --bind need \
the same --bind, which then refuses values encrypted without it. A \
value that does not authenticate (another key or context, moved from another column, or \
with --bind from another row or with a bound column changed, altered) stops the run with an error naming its line and column, after the rows before it \
are written (to standard output; -o FILE gets nothing); nothing is guessed.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: &[],
    examples: &[(
        "Back to the original",
        "veilkit records decrypt-fields --fields email,ssn --bind id safe.csv -o customers.csv",
    )],
};

// Arguments of `veilkit records decrypt-fields`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    #[command(flatten)]
    pub fields: FieldArgs,

    /// Keep the token columns (NAME_token) instead of dropping them; --fields, --bind
    /// and --token-fields still number the columns without them, as encrypt-fields did.
    #[arg(long)]
    pub keep_tokens: bool,
}

/// Runs `veilkit records decrypt-fields`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    let opts = fields::Options {
        keep_tokens: args.keep_tokens,
        ..args.fields.options()
    };
    run_fields(&args.fields, opts, fields::decrypt)
}
