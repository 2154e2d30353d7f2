//! `veilkit records seal`: a record file into an encrypted one.

use super::super::input::read_input;
use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::output::{Bar, NewFile, create_output, display_path, is_stdio};
use super::super::report::{hinted, info};
use super::super::status::{Global, Status};
use super::{FormatArg, KdfArgs, RecipientArgs, SecretArgs, records_error};
use crate::records::file::{Settings, seal};
use crate::records::format::{DEFAULT_PAGE_SIZE, InputFormat, Unlock};
use crate::records::input::{KeyField, parse};
use anyhow::Context;
use std::path::PathBuf;
use std::time::Instant;

/// One line for the command list.
pub const ABOUT: &str = "Seal a record file (lines, CSV, TSV, JSON lines) into an encrypted one";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Seal a record file into an encrypted record file.

INPUT (a file, or `-` for standard input) is lines (each line a record, keyed by its number \
from 1), CSV or TSV rows keyed by the field --key-field (a number from 1, or a name from the \
header row), or JSON lines keyed by the member --key-field. The format comes from \
--input-format, else from INPUT's extension (.csv, .tsv, .jsonl), else lines. CSV and TSV \
inputs have a header row unless --no-header is given. Every byte is kept: `open` gives back \
the exact input.

A duplicate key is an error naming both lines. Records are packed into pages of \
--page-size bytes, each sealed with AES-256-GCM-SIV under a fresh random nonce; a keyed \
token index inside the encrypted pages finds a record by key. The data key is random and \
wrapped by a key slot for each secret given: --key-file (or the key variables), \
--passphrase or --passphrase-file (Argon2id), and age X25519 recipients (--recipient, \
--recipients-file; also the recipient of each --identity). A file sealed to recipients only \
is opened by their identities (--identity), never by the machine that sealed it. The file is written to a temporary file and \
renamed into place when complete.

Memory: an INPUT that is a file (or standard input redirected from one) is mapped, not \
read in, so its size costs no memory of the process; from a pipe, its first 32 MiB are \
held in memory and the rest goes to a temporary file in TMPDIR (deleted as it is made, so \
nothing is left behind), which is mapped. Sealing itself keeps about 16 bytes a record \
(its index entries: 64 MB for 4 million records).";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: super::ENV_INPUT,
    examples: &[
        (
            "A CSV keyed by its id column, with a key file",
            "veilkit records seal customers.csv --key-field id -o customers.vkr --key-file k.key",
        ),
        (
            "A log, keyed by line number, with a passphrase",
            "veilkit records seal app.log -o app.vkr --passphrase",
        ),
        (
            "An export that only the holder of an age identity can read",
            "pg_dump-rows | veilkit records seal - --input-format csv --key-field id -o export.vkr --recipient age1zrf9d64dh8gjtawge84mu733jx4x3q4naynyk8gzgrjmkw4m5seql9x34f",
        ),
        (
            "A large CSV export, compressed under the encryption",
            "veilkit records seal users.csv --key-field id --compress zstd -o users.vkr --key-file k.key",
        ),
        (
            "JSON lines from a pipe, keyed by the member \"user\"",
            "export-users | veilkit records seal - --input-format jsonl --key-field user -o users.vkr",
        ),
    ],
};

// Arguments of `veilkit records seal`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The records: a file, or `-` for standard input.
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,

    /// The record file to write: a path, or s3://BUCKET/KEY (uploaded once sealed: one
    /// PUT, or a multipart upload past 16 MiB; nothing is visible under the key until
    /// the whole file is).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// The input format [default: from INPUT's extension, else lines].
    #[arg(long, value_enum)]
    pub input_format: Option<FormatArg>,

    /// The key field of CSV, TSV and JSON lines: a number from 1, or a name (a name two
    /// columns of a header row share is refused: give the number).
    #[arg(short, long, value_name = "N|NAME")]
    pub key_field: Option<String>,

    /// CSV/TSV input has no header row.
    #[arg(long)]
    pub no_header: bool,

    /// Page size in bytes: a power of two from 512 to 1048576.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_PAGE_SIZE)]
    pub page_size: u32,

    /// Compress each data page's records before sealing: `zstd` (level 9) or
    /// `zstd:LEVEL` (1 to 19), or `none`. Pages then hold more records. An input of
    /// 1 MiB or more also gets a dictionary, trained on its first records and sealed in
    /// the file, that every page is compressed with: a file near the size of zstd of
    /// the whole input. The file's size follows the compressed size (see
    /// docs/RECORDS-FORMAT.md on what that reveals).
    #[arg(long, value_name = "zstd[:LEVEL]|none", default_value = "none", value_parser = parse_compress)]
    pub compress: Compress,

    /// Bits of each index tag: 16, or 32 [default: 32 for -o s3://..., else 16]. With 16
    /// and 4 KiB pages, a lookup in a large file first reads another key's data page
    /// (same bucket, same tag) about once in 70 (locally a few microseconds; at a URL one
    /// or two more requests); with 32, about once in 7 million, for 2 bytes more a record
    /// in the index. Seal files that will be read at a URL with 32.
    #[arg(long, value_name = "16|32", value_parser = parse_tag_bits)]
    pub tag_bits: Option<u8>,

    /// Replace FILE if it exists.
    #[arg(short, long)]
    pub force: bool,

    #[command(flatten)]
    pub secrets: SecretArgs,

    #[command(flatten)]
    pub recipients: RecipientArgs,

    #[command(flatten)]
    pub kdf: KdfArgs,

    /// For -o s3://...: the S3-compatible store's URL (addressed in path style), instead
    /// of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS's own for the region.
    #[arg(long, value_name = "URL", help_heading = "Files at a URL")]
    pub endpoint: Option<String>,

    /// For an https:// endpoint: trust the CA certificates in this PEM file too.
    #[arg(long, value_name = "PEM", help_heading = "Files at a URL")]
    pub cacert: Option<PathBuf>,
}

/// `--tag-bits`: 16 or 32.
fn parse_tag_bits(text: &str) -> Result<u8, String> {
    match text {
        "16" => Ok(16),
        "32" => Ok(32),
        _ => Err("index tags are 16 or 32 bits".to_string()),
    }
}

/// `--compress`: a Zstandard level, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compress(pub Option<i32>);

fn parse_compress(text: &str) -> Result<Compress, String> {
    match text.split_once(':') {
        None if text == "none" => Ok(Compress(None)),
        None if text == "zstd" => Ok(Compress(Some(crate::records::compress::SEAL_LEVEL))),
        Some(("zstd", level)) => match level.parse::<i32>() {
            Ok(l) if (1..=19).contains(&l) => Ok(Compress(Some(l))),
            _ => Err(format!(
                "the zstd level is a number from 1 to 19, not {level:?}"
            )),
        },
        _ => Err("use zstd, zstd:LEVEL (1 to 19) or none".to_string()),
    }
}

/// Where the sealed file goes: a new file renamed into place, or a temporary file to
/// upload.
enum Output {
    File(crate::streams::AtomicFile),
    Temp(std::fs::File),
}

impl Output {
    fn file_mut(&mut self) -> Result<&mut std::fs::File, crate::records::RecordsError> {
        match self {
            Output::File(f) => f.file_mut().map_err(crate::records::RecordsError::Write),
            Output::Temp(f) => Ok(f),
        }
    }
}

/// The HTTP settings of an upload.
fn upload_options(args: &Args) -> anyhow::Result<crate::remote::Options> {
    let cacert = super::super::input::read_cacert(args.cacert.as_deref())?;
    Ok(crate::remote::Options {
        cacert,
        agent: "(records seal)",
        // A part of 16 MiB on a slow link.
        timeout: std::time::Duration::from_secs(300),
        ..crate::remote::Options::default()
    })
}

/// Runs `veilkit records seal`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    if is_stdio(&args.output) {
        anyhow::bail!("-o -: a record file is a seekable file; give a path");
    }
    if !crate::records::format::valid_page_size(args.page_size) {
        anyhow::bail!(
            "--page-size {}: {}",
            args.page_size,
            "use a power of two from 512 to 1048576"
        );
    }
    let format = args
        .input_format
        .unwrap_or_else(|| FormatArg::from_path(&args.input))
        .format();
    let key = match (format, &args.key_field) {
        (InputFormat::Lines, Some(_)) => {
            return Err(hinted(
                "--key-field: line files are keyed by line number",
                "for CSV, TSV or JSON lines input, say so with --input-format",
            ));
        }
        (InputFormat::Lines, None) => None,
        (_, Some(k)) => Some(KeyField::parse(k)),
        (f, None) => {
            return Err(hinted(
                format!("{} input needs --key-field", f.name()),
                "name the key field: a number from 1, or a name from the header row",
            ));
        }
    };
    let header_row = matches!(format, InputFormat::Csv | InputFormat::Tsv) && !args.no_header;
    let recipients = args.recipients.load()?;
    let secrets = args
        .secrets
        .load(true, args.kdf.params(), !recipients.is_empty())?;
    let mut unlocks = secrets.unlocks();
    unlocks.extend(recipients.iter().map(|r| Unlock::Recipient(*r)));
    let started = Instant::now();
    let shown = display_path(&args.input);
    let target = args.output.to_str().unwrap_or_default();
    if crate::remote::is_url(target) {
        return Err(hinted(
            "-o takes a path or s3://BUCKET/KEY, not an http(s) URL",
            "seal to a local file and publish it with the web server's own means",
        ));
    }
    let to_s3 = crate::remote::s3::is_s3(target);
    let upload = if to_s3 {
        let object = super::remote::s3_object(target, args.endpoint.as_deref())?;
        let options = upload_options(args)?;
        let client = crate::remote::client(&options).map_err(super::remote::remote_error)?;
        if !args.force
            && object
                .exists(&client)
                .map_err(super::remote::remote_error)?
        {
            return Err(hinted(
                format!("{}: the object exists", object.shown()),
                "pass --force to replace it",
            ));
        }
        Some((object, client))
    } else {
        None
    };
    let input = read_input(&args.input)?;
    let mut out = match &upload {
        // Sealed into an unnamed temporary file, then uploaded.
        Some(_) => Output::Temp(
            tempfile::tempfile().context("a temporary file for the sealed file (TMPDIR)")?,
        ),
        None => Output::File(create_output(
            &args.output,
            &[&args.input],
            NewFile {
                force: args.force,
                secret: true,
                ..NewFile::default()
            },
        )?),
    };
    let settings = Settings {
        format,
        header_row,
        key_field: key.as_ref().map(KeyField::to_text).unwrap_or_default(),
        page_size: args.page_size,
        next_number: 0,
        threads: 0,
        compression: args.compress.0,
        dictionary: true,
        wide_tags: args.tag_bits.unwrap_or(if to_s3 { 32 } else { 16 }) == 32,
    };
    let bar = Bar::items(global, "sealing", "records");
    // The bar counts records: its total is the input's lines (less a header row), exact
    // but for CSV records that hold line ends, which the bar then finishes short of.
    let lines = memchr::memchr_iter(b'\n', &input).count() as u64
        + u64::from(input.last().is_some_and(|&b| b != b'\n'));
    crate::progress::Progress::set_total(&bar, lines.saturating_sub(u64::from(header_row)));
    let sealed = (|| {
        let (prefix, mut records) = parse(&input, format, key.as_ref(), header_row, 1)?;
        seal(
            &mut records,
            prefix,
            &settings,
            &unlocks,
            out.file_mut()?,
            &bar,
        )
    })();
    bar.finish();
    // A failed write is the output's (a full disk), anything else the input's.
    let summary = sealed.map_err(|e| match e {
        e @ crate::records::RecordsError::Write(_) => {
            records_error(e, &args.output.display().to_string())
        }
        e => records_error(e, &shown),
    })?;
    let dest = match (out, upload) {
        (Output::Temp(f), Some((object, client))) => {
            let bar = Bar::bytes(global, "uploading");
            let r = object.upload(&client, &f, summary.bytes, &bar);
            bar.finish();
            r.map_err(super::remote::remote_error)?;
            object.shown().to_string()
        }
        (Output::File(out), _) => {
            // A record file being replaced (--force) is locked first, as by a writer.
            let held = crate::records::file::lock_existing(&args.output)
                .map_err(|e| records_error(e, &args.output.display().to_string()))?;
            out.commit()
                .with_context(|| args.output.display().to_string())?;
            drop(held);
            args.output.display().to_string()
        }
        (Output::Temp(_), None) => unreachable!("a temporary file is made for an upload"),
    };
    let secs = started.elapsed().as_secs_f64();
    info(
        global,
        format!(
            "sealed {} into {}: {} bytes ({:.2}x the input), in {:.2} s",
            super::super::report::counted(summary.records, "record", "records"),
            dest,
            summary.bytes,
            summary.bytes as f64 / input.len().max(1) as f64,
            secs
        ),
    );
    Ok(Status::Success)
}
