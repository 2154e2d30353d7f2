//! `veilkit records encrypt-fields`: encrypt chosen columns of a CSV/TSV stream.

use super::super::input::open_input;
use super::super::keysource::KeyArgs;
use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::output::{Destination, NewFile, display_path, stdout_text};
use super::super::status::{Global, Status};
use crate::records::fields::{self, Field, Options};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// One line for the command list.
pub const ABOUT: &str =
    "Encrypt chosen CSV/TSV columns, with keyed token columns for equality lookups";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Replace the --fields of every row of a CSV or TSV stream by \
authenticated ciphertext: base64url of a format byte (with the key id), a random nonce, the \
AES-256-GCM-SIV ciphertext and its tag, 29 bytes of overhead before encoding. The column \
name (or number, without a header row) is bound in as associated data, so a value moved to \
another column fails to decrypt. With --bind (the row's primary key, say), each value is \
also bound to those columns' values, so a value moved to another row fails too; without it, \
values of one column can be swapped between rows unnoticed. Other fields pass through \
unchanged.

--token-fields adds a column NAME_token after each such field: a keyed token (HMAC-SHA256, \
16 bytes, base64url) of the field's exact bytes. Equal values get equal tokens under one key \
and --context, so tokens support equality lookups and joins without decrypting. That is \
also what they reveal: which rows share a value, and how often each value occurs (never the \
value itself). The token key is a separate subkey of the keyring's key, so a token never \
helps decrypt a value; tokens change when the key is rotated.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: &[],
    examples: &[
        (
            "Encrypt two columns bound to each row's id, with a token column for joins on email",
            "veilkit records encrypt-fields --fields email,ssn --bind id --token-fields email customers.csv -o safe.csv",
        ),
        (
            "Find rows with a given email without decrypting",
            "grep -F \"$(printf 'email\\na@x.org\\n' | veilkit records encrypt-fields --fields email --token-fields email | tail -n 1 | cut -d, -f2)\" safe.csv",
        ),
    ],
};

/// `--input-format` of the field commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DelimitedArg {
    /// Comma-separated values with RFC 4180 quoting.
    Csv,
    /// Tab-separated values, no quoting.
    Tsv,
}

// Options shared by `encrypt-fields` and `decrypt-fields`.
#[derive(Debug, Clone, clap::Args)]
pub struct FieldArgs {
    /// The input: a file, or `-` for standard input.
    #[arg(value_name = "INPUT", default_value = "-")]
    pub input: PathBuf,

    /// Write to OUT instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,

    /// Columns to encrypt or decrypt: names from the header row, or numbers from 1,
    /// separated by commas.
    #[arg(long, value_name = "LIST", required = true)]
    pub fields: String,

    /// Columns with a NAME_token column after them (encrypt-fields adds them;
    /// decrypt-fields needs them only for input without a header row, where a token
    /// column cannot be told by its name).
    #[arg(long, value_name = "LIST")]
    pub token_fields: Option<String>,

    /// Bind each encrypted value to these columns of its row (names or numbers, such as
    /// the row's primary key): it then decrypts only in a row with the same values in
    /// them, so a value moved to another row fails. decrypt-fields needs the same --bind,
    /// and then refuses values made without it.
    #[arg(long, value_name = "LIST")]
    pub bind: Option<String>,

    /// The input format [default: tsv for .tsv files, else csv].
    #[arg(long, value_enum)]
    pub input_format: Option<DelimitedArg>,

    /// The input has no header row (columns are then numbers).
    #[arg(long)]
    pub no_header: bool,

    /// A context (a table or tenant name) that separates the keys of different uses.
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub context: String,

    /// Replace OUT if it exists.
    #[arg(short, long)]
    pub force: bool,

    #[command(flatten)]
    pub key: KeyArgs,
}

impl FieldArgs {
    /// The library's options (`keep_tokens` off).
    pub fn options(&self) -> Options {
        let tsv = match self.input_format {
            Some(f) => f == DelimitedArg::Tsv,
            None => is_tsv(&self.input),
        };
        Options {
            delimiter: if tsv { b'\t' } else { b',' },
            header: !self.no_header,
            fields: Field::parse_list(&self.fields),
            token_fields: self
                .token_fields
                .as_deref()
                .map(Field::parse_list)
                .unwrap_or_default(),
            bind: self
                .bind
                .as_deref()
                .map(Field::parse_list)
                .unwrap_or_default(),
            context: self.context.as_bytes().to_vec(),
            keep_tokens: false,
        }
    }
}

fn is_tsv(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("tsv") || e.eq_ignore_ascii_case("tab"))
}

/// The library's encrypt or decrypt.
type FieldFn = fn(
    &crate::keys::Keyring,
    &Options,
    &mut dyn std::io::Read,
    &mut dyn std::io::Write,
) -> Result<u64, fields::FieldError>;

/// Runs a field command over the arguments' streams with `opts` (from
/// [`FieldArgs::options`]).
pub fn run_fields(args: &FieldArgs, opts: Options, f: FieldFn) -> anyhow::Result<Status> {
    if opts.fields.is_empty() {
        anyhow::bail!("--fields: no field named");
    }
    let ring = args.key.load()?;
    let mut input = open_input(&args.input)?;
    let shown = display_path(&args.input);
    let dest = Destination::open(
        args.output.as_ref(),
        &[&args.input],
        NewFile {
            force: args.force,
            ..NewFile::default()
        },
    )?;
    // An error names the input, or the output for a failed write.
    let named = |e: fields::FieldError, output: &str| {
        let name = match e {
            fields::FieldError::Write(_) => output.to_string(),
            _ => shown.clone(),
        };
        anyhow::Error::new(e).context(name)
    };
    match dest {
        Destination::Stdout => {
            let mut out = stdout_text();
            f(&ring, &opts, &mut input, &mut out).map_err(|e| named(e, "stdout"))?;
        }
        Destination::File(mut file) => {
            let out = args.output.as_ref().expect("a file destination has a path");
            let out_shown = display_path(out);
            f(&ring, &opts, &mut input, &mut file).map_err(|e| named(e, &out_shown))?;
            file.commit().with_context(|| out.display().to_string())?;
        }
    }
    Ok(Status::Success)
}

// Arguments of `veilkit records encrypt-fields`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    #[command(flatten)]
    pub fields: FieldArgs,
}

/// Runs `veilkit records encrypt-fields`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    run_fields(&args.fields, args.fields.options(), fields::encrypt)
}
