//! `veilkit ids sql`: the id codec as PostgreSQL functions.

use super::codec::{FormatArg, SchemeArg};
use super::keysource::KeyArgs;
use super::manual::{EXIT_PLAIN, ManExtra};
use super::output::{NewFile, create_output, display_path, is_stdio};
use super::status::{Global, Status};
use crate::ids::Scheme;
use crate::ids::sql::{SqlOptions, postgresql};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Ids inside a database: SQL functions identical to encode and decode";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Opaque ids inside a database.

`ids sql` writes a psql script that defines, in schema --schema (default veilkit), \
functions giving exactly the ids `veilkit encode` and `decode` give with the same key and \
options: encode(bigint), decode(...) and try_decode(...) (NULL instead of an error) for the \
default context, encode_NAME, decode_NAME and try_decode_NAME for each --context NAME. \
They use pgcrypto's AES (available on managed services), and read the derived per-context \
id keys (never the master key) from the table id_keys, which only its owner can read; the \
functions run as their owner (SECURITY DEFINER, search_path pinned). Run the script again \
with a new key ring, or with --rotate for the keys alone, to rotate: the functions keep their \
signatures, so views that use them stay. The script holds key material: it is written with \
mode 0600, and is best piped straight into psql. The deterministic forms only: a stored \
nonce needs a second column and stays with the command line.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: &[],
    examples: &[
        (
            "Define veilkit.encode and veilkit.decode in a database",
            "veilkit ids sql --key-file veilkit.key | psql -d app",
        ),
        (
            "A view that shows opaque ids",
            "psql -d app -c 'CREATE VIEW api_users AS SELECT veilkit.encode(id) AS id, name FROM users'",
        ),
        (
            "Per-table contexts with prefixed base62 ids",
            "veilkit ids sql --context users --context orders --format base62 --prefix id_ --scheme aes128 --key-file veilkit.key -o ids.sql",
        ),
        (
            "After `veilkit keygen --add veilkit.key`: new ids use the new key, old ones decode",
            "veilkit ids sql --rotate --key-file veilkit.key | psql -d app",
        ),
    ],
};

// Arguments of `veilkit ids`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

// `veilkit ids` subcommands.
#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Write a psql script defining encode/decode functions identical to the CLI's.
    #[command(long_about = LONG_ABOUT, after_long_help = super::manual::examples_help(&MAN))]
    Sql(SqlArgs),
}

/// `--dialect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Dialect {
    /// PostgreSQL 12 or later with pgcrypto.
    Postgresql,
}

// Arguments of `veilkit ids sql`.
#[derive(Debug, clap::Args)]
pub struct SqlArgs {
    /// The database.
    #[arg(long, value_enum, default_value_t = Dialect::Postgresql)]
    pub dialect: Dialect,

    /// The construction, as for encode.
    #[arg(long, value_enum, default_value_t = SchemeArg::Uuid, help_heading = "Codec")]
    pub scheme: SchemeArg,

    /// Text form [default: uuid (a uuid value) for --scheme uuid, else hex].
    #[arg(long, value_enum, help_heading = "Codec")]
    pub format: Option<FormatArg>,

    /// A context (lower-case letters, digits, _): functions encode_NAME, decode_NAME,
    /// try_decode_NAME. Repeatable; without any, the default (empty) context and
    /// functions encode, decode, try_decode.
    #[arg(long, value_name = "NAME", help_heading = "Codec")]
    pub context: Vec<String>,

    /// A prefix written before ids and required when decoding (the functions then take
    /// and return text).
    #[arg(
        long,
        value_name = "PREFIX",
        default_value = "",
        hide_default_value = true,
        help_heading = "Codec"
    )]
    pub prefix: String,

    /// Feistel rounds of the uuid scheme [default: 3].
    #[arg(long, value_name = "N", help_heading = "Codec")]
    pub rounds: Option<u32>,

    /// The bit cycle walking keeps clear [default: 63].
    #[arg(long, value_name = "BIT", help_heading = "Codec")]
    pub clear_bit: Option<u32>,

    /// The schema of the functions and of the key table.
    #[arg(long, value_name = "NAME", default_value = "veilkit")]
    pub schema: String,

    /// Only replace the keys (after adding a key to the ring): the functions stay.
    #[arg(long)]
    pub rotate: bool,

    /// Write the script to FILE (mode 0600, atomically) instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Replace FILE if it exists.
    #[arg(short, long, requires = "output")]
    pub force: bool,

    #[command(flatten)]
    pub key: KeyArgs,
}

/// Runs `veilkit ids ...`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    let Command::Sql(a) = &args.command;
    let scheme = a.scheme.scheme();
    let format = super::codec::format_of(a.format, scheme, a.clear_bit)?;
    if a.rounds.is_some() && scheme != Scheme::Uuid {
        anyhow::bail!("--rounds: applies to --scheme uuid only");
    }
    let ring = a.key.load()?;
    let options = SqlOptions {
        scheme,
        rounds: a.rounds.unwrap_or(3),
        clear_bit: a.clear_bit.unwrap_or(63),
        contexts: if a.context.is_empty() {
            vec![String::new()]
        } else {
            a.context.clone()
        },
        format,
        prefix: a.prefix.clone(),
        schema: a.schema.clone(),
        keys_only: a.rotate,
    };
    let script = postgresql(&ring, &options)?;
    match &a.output {
        Some(path) if !is_stdio(path) => {
            let mut out = create_output(
                path,
                &[],
                NewFile {
                    force: a.force,
                    secret: true,
                    stdout: true,
                    ..NewFile::default()
                },
            )?;
            out.write_all(script.as_bytes())
                .with_context(|| display_path(path))?;
            out.commit().with_context(|| display_path(path))?;
        }
        _ => {
            let mut out = std::io::stdout().lock();
            match out.write_all(script.as_bytes()).and_then(|()| out.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    anyhow::bail!("stdout: closed before the whole script was written")
                }
                r => r.context("stdout")?,
            }
        }
    }
    Ok(Status::Success)
}
