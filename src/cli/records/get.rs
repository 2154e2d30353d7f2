//! `veilkit records get`: records by key or number.

use super::super::manual::{EXIT_LOOKUP, ManExtra};
use super::super::output::stdout_text;
use super::super::status::{Global, Status};
use super::get_keys::{KeyInput, Step};
use super::{SecretArgs, records_error};
use crate::records::batch::BatchError;
use crate::records::file::RecordFile;
use crate::records::remote::KEYS_AT_ONCE;
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Fetch records by key or number, decrypting only the pages they need";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Fetch records by key (the KEY arguments, then the lines of --keys) \
or by number (--record N, the N-th current record from 1), decrypting only the index and \
data pages each one needs.

Each request gets one answer in order: the record exactly as it was in the input (a line \
end is added to a last line that had none), or an empty line when there is no such record. \
Keys are exact bytes: for line files the line number, for CSV/TSV the field's text after \
unquoting, for JSON lines the member's string value, or a number's or boolean's text as written \
(`1e2`, not `100`). Exit status 1 when none was found.

Keys from --keys are looked up together, each data page read and decrypted once for all \
the keys of a batch that need it: from a file (--keys FILE, or standard input redirected \
from a file), up to a million at a time; from a pipe or a terminal, the keys that have \
arrived (veilkit waits a few milliseconds for more behind a writer that fills the pipe), \
their answers written out before veilkit waits for more keys, so a program that writes a \
key and waits for its answer gets it.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_LOOKUP,
    uses_keys: true,
    environment: super::ENV_PASSPHRASE,
    examples: &[
        (
            "Two customers by id",
            "veilkit records get customers.vkr 1042 77 --key-file k.key",
        ),
        (
            "Many keys from a pipe",
            "cut -d, -f1 wanted.csv | veilkit records get customers.vkr --keys - --key-file k.key",
        ),
        (
            "The 10th line of a sealed log",
            "veilkit records get app.vkr --record 10 --passphrase",
        ),
    ],
};

// Arguments of `veilkit records get`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The record file: a path, an http:// or https:// URL, or s3://BUCKET/KEY (read by
    /// range: only the pages needed are fetched).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Keys to fetch.
    #[arg(value_name = "KEY")]
    pub keys: Vec<String>,

    /// Fetch the N-th current record (from 1); repeatable.
    #[arg(long = "record", value_name = "N")]
    pub records: Vec<u64>,

    /// Read keys from PATH, one per line (`-` for standard input), as exact bytes: a UTF-8
    /// byte order mark before the first stays part of it, with a warning.
    #[arg(long = "keys", value_name = "PATH")]
    pub keys_from: Option<PathBuf>,

    /// Print the input's header row first (CSV and TSV files).
    #[arg(long)]
    pub header: bool,

    #[command(flatten)]
    pub secrets: SecretArgs,

    #[command(flatten)]
    pub recovery: super::RecoveryArgs,

    #[command(flatten)]
    pub remote: super::remote::RemoteArgs,
}

/// Batches of fewer keys are looked up one by one: a batch pays off when its keys share
/// pages.
const FEW_KEYS: usize = 64;

/// Writes one request's answer: the record in `buf` (`hit`), given a line end if it has
/// none, or an empty line. Returns `hit`.
fn answer(out: &mut dyn Write, buf: &mut Vec<u8>, hit: bool) -> anyhow::Result<bool> {
    if buf.last().is_some_and(|&c| c != b'\n') {
        buf.push(b'\n');
    }
    if !hit {
        buf.push(b'\n');
    }
    out.write_all(buf).context("stdout")?;
    Ok(hit)
}

/// Looks up `key` on its own (through the page cache) and writes its answer: whether it
/// was found.
fn get_one(
    file: &mut RecordFile,
    key: &[u8],
    buf: &mut Vec<u8>,
    out: &mut dyn Write,
    shown: &str,
) -> anyhow::Result<bool> {
    buf.clear();
    let hit = file
        .get_into(key, buf)
        .map_err(|e| records_error(e, shown))?;
    answer(out, buf, hit)
}

/// Looks up `keys` and writes their answers: whether any was found. A few keys (a slow
/// writer's, a person's) one by one, through the page cache, which a long run of them
/// fills as gets of single keys do; more as a batch.
fn get_keys(
    file: &mut RecordFile,
    keys: &[&[u8]],
    buf: &mut Vec<u8>,
    out: &mut dyn Write,
    shown: &str,
) -> anyhow::Result<bool> {
    let mut found = false;
    if keys.len() < FEW_KEYS {
        for key in keys {
            found |= get_one(file, key, buf, out, shown)?;
        }
        return Ok(found);
    }
    file.get_batch(keys, |record| {
        buf.clear();
        if let Some(r) = record {
            buf.extend_from_slice(r);
        }
        found |= answer(out, buf, record.is_some())?;
        Ok(())
    })
    .map_err(|e| match e {
        BatchError::Records(e) => records_error(e, shown),
        BatchError::Emit(e) => e,
    })?;
    Ok(found)
}

/// Runs `veilkit records get`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    if args.keys.is_empty() && args.records.is_empty() && args.keys_from.is_none() {
        anyhow::bail!("nothing to fetch: give keys, --record N or --keys PATH");
    }
    let secrets = args
        .secrets
        .load(false, crate::records::format::ARGON_DEFAULT, false)?;
    // Open the key list first: a missing file is reported before any output.
    let mut key_input = args.keys_from.as_deref().map(KeyInput::open).transpose()?;
    let reading = super::remote::Reading::new(&args.file, &args.remote)?;
    let mut file = reading.open(&secrets, &args.recovery)?;
    let shown = reading.shown.clone();
    // -q: the exit status alone answers, as with grep -q.
    let mut out: Box<dyn Write> = if global.quiet {
        Box::new(std::io::sink())
    } else {
        stdout_text()
    };
    let mut found = false;
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    if args.header
        && let Some(h) = file.prefix().map_err(|e| records_error(e, &shown))?
    {
        out.write_all(&h).context("stdout")?;
    }
    // A file at a URL: the pages the keys need are fetched together first.
    let remote = file.remote().is_some();
    if remote {
        let keys: Vec<&[u8]> = args.keys.iter().map(|k| k.as_bytes()).collect();
        for chunk in keys.chunks(KEYS_AT_ONCE) {
            file.fetch_for(chunk)
                .map_err(|e| records_error(e, &shown))?;
        }
    }
    for key in &args.keys {
        found |= get_one(&mut file, key.as_bytes(), &mut buf, &mut out, &shown)?;
    }
    for &n in &args.records {
        buf.clear();
        let hit = match file.get_number(n).map_err(|e| records_error(e, &shown))? {
            Some(r) => {
                buf.extend_from_slice(&r);
                true
            }
            None => false,
        };
        found |= answer(&mut out, &mut buf, hit)?;
    }
    if let Some(input) = key_input.as_mut() {
        input.each_batch(|step| match step {
            Step::Keys(keys) => {
                // At a URL, the pages of a few thousand keys at a time are fetched
                // together before their gets.
                let chunk = if remote {
                    KEYS_AT_ONCE
                } else {
                    keys.len().max(1)
                };
                for keys in keys.chunks(chunk) {
                    if remote {
                        file.fetch_for(keys).map_err(|e| records_error(e, &shown))?;
                    }
                    found |= get_keys(&mut file, keys, &mut buf, &mut out, &shown)?;
                }
                Ok(())
            }
            Step::Wait => out.flush().context("stdout"),
        })?;
    }
    out.flush().context("stdout")?;
    Ok(if found {
        Status::Success
    } else {
        Status::NotFound
    })
}
