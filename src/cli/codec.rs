//! What `encode`, `decode` and `reencode` share: codec options, validation, and the
//! stream runner with its error reporting.

use super::keysource::KeyArgs;
use super::report::{self, hinted};
use super::status::{Global, Status};
use crate::ids::stream::{self, LineError, Op, Options, StreamError};
use crate::ids::text::Format;
use crate::ids::{Codec, Form, Scheme, Spec};
use anyhow::Context;
use clap::ValueEnum;

/// `--scheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemeArg {
    /// Feistel network with AES-128 rounds, output a version-8 UUID (ids < 2^60).
    Uuid,
    /// One AES-128 block over the 64-bit id, output 128 opaque bits.
    Aes128,
    /// As aes128, re-encrypting until the --clear-bit bit is clear.
    CycleWalk,
}

impl SchemeArg {
    /// The library's scheme.
    pub fn scheme(self) -> Scheme {
        match self {
            SchemeArg::Uuid => Scheme::Uuid,
            SchemeArg::Aes128 => Scheme::Aes128,
            SchemeArg::CycleWalk => Scheme::CycleWalk,
        }
    }
}

/// The text form `--format` names for `scheme` (its default when not given), after
/// checking that it and `--clear-bit` apply to the scheme. Shared by encode, decode,
/// reencode and `ids sql`.
pub fn format_of(
    format: Option<FormatArg>,
    scheme: Scheme,
    clear_bit: Option<u32>,
) -> anyhow::Result<Format> {
    let format = match (format, scheme) {
        (Some(FormatArg::Uuid), Scheme::Uuid) | (None, Scheme::Uuid) => Format::Uuid,
        (Some(FormatArg::Uuid), _) => {
            return Err(hinted(
                "--format uuid: only the uuid scheme makes valid UUIDs",
                "use --format hex, base32 or base62 with this scheme",
            ));
        }
        (Some(FormatArg::Hex), _) | (None, _) => Format::Hex,
        (Some(FormatArg::Base32), _) => Format::Base32,
        (Some(FormatArg::Base62), _) => Format::Base62,
    };
    if clear_bit.is_some() && scheme != Scheme::CycleWalk {
        anyhow::bail!("--clear-bit: applies to --scheme cycle-walk only");
    }
    Ok(format)
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// 8-4-4-4-12 hex (uuid scheme only).
    Uuid,
    /// 32 hex digits.
    Hex,
    /// 26 characters of Crockford base32, lower case.
    Base32,
    /// 22 characters of 0-9A-Za-z.
    Base62,
}

// Options shared by encode, decode and reencode.
#[derive(Debug, Clone, clap::Args)]
pub struct CodecArgs {
    /// Ids to transform, one per argument; without any, lines are read from stdin
    /// (also with `-`).
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,

    /// The construction: see veilkit-encode(1) and docs/IDS.md.
    #[arg(long, value_enum, default_value_t = SchemeArg::Uuid, help_heading = "Codec")]
    pub scheme: SchemeArg,

    /// Text form of encoded ids [default: uuid for --scheme uuid, else hex].
    #[arg(long, value_enum, help_heading = "Codec")]
    pub format: Option<FormatArg>,

    /// Per-table or per-tenant name: ids of one context do not decode in another.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "",
        hide_default_value = true,
        help_heading = "Codec"
    )]
    pub context: String,

    /// A type prefix such as `usr_` written before encoded ids, required and stripped
    /// when decoding.
    #[arg(
        long,
        value_name = "PREFIX",
        default_value = "",
        hide_default_value = true,
        help_heading = "Codec"
    )]
    pub prefix: String,

    /// Feistel rounds of the uuid scheme [default: 3; 2 with a stored nonce]; more rounds
    /// widen the security margin, one AES call each. Decoding needs the same number.
    #[arg(long, value_name = "N", help_heading = "Codec")]
    pub rounds: Option<u32>,

    /// The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints
    /// `ID NONCE`. Carries no redundancy: forged ids cannot be rejected.
    #[arg(long, help_heading = "Codec")]
    pub stored_nonce: bool,

    /// The bit cycle walking keeps clear, 0-127, in the block read as a little-endian
    /// 128-bit number [default: 63].
    #[arg(long, value_name = "BIT", help_heading = "Codec")]
    pub clear_bit: Option<u32>,

    /// Transform only field N of each line (counted from 1, as cut does); the rest of the
    /// line is left as it is. A UTF-8 byte order mark before the first line (as Windows
    /// editors and spreadsheets save text) is no part of an id or field: without --field
    /// or --header it is skipped (each line is one id), with either the output starts
    /// with it as the input did.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Input and output")]
    pub field: Option<u32>,

    /// Read the input as CSV (RFC 4180, as `records` reads it): field N may be quoted,
    /// and quoted fields may hold the delimiter and line ends; every other byte is passed
    /// through as it was. The field written in its place is quoted only when it must be
    /// (a value holding the delimiter, a quote, CR or LF: in double quotes, quotes
    /// doubled), whether or not the input's field was quoted; ids, UUIDs and the
    /// numbers decoded never need it. Without --csv, lines are split at every delimiter,
    /// as `cut` does (TSV and plain delimiters).
    #[arg(long, requires = "field", help_heading = "Input and output")]
    pub csv: bool,

    /// Copy the first line (the first record with --csv) to the output unchanged: a
    /// header row.
    #[arg(long, help_heading = "Input and output")]
    pub header: bool,

    /// The field separator for --field: one character, or `\t` [default: tab; comma
    /// with --csv].
    #[arg(
        short,
        long,
        value_name = "C",
        requires = "field",
        help_heading = "Input and output"
    )]
    pub delimiter: Option<String>,

    /// With --field and a stored nonce: the field holding the nonce (read by encode,
    /// written by decode and by --random-nonce).
    #[arg(long, value_name = "M", requires = "field", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Input and output")]
    pub nonce_field: Option<u32>,

    /// Report each bad line on stderr, write an empty line in its place, go on, and
    /// exit 2 at the end (default: stop at the first bad line).
    #[arg(long, help_heading = "Input and output")]
    pub keep_going: bool,

    #[command(flatten)]
    pub key: KeyArgs,
}

/// Validated options, ready to run.
pub struct Prepared {
    pub codec: Codec,
    pub options: Options,
}

/// Turns arguments into a codec and stream options, rejecting bad combinations before
/// any work starts.
pub fn prepare(
    args: &CodecArgs,
    op: Op,
    random_nonce: bool,
    key_id: Option<u32>,
) -> anyhow::Result<Prepared> {
    let scheme = args.scheme.scheme();
    let form = if args.stored_nonce || random_nonce {
        Form::StoredNonce
    } else {
        Form::Deterministic
    };
    let format = format_of(args.format, scheme, args.clear_bit)?;
    let delimiter = match args.delimiter.as_deref() {
        None if args.csv => b',',
        None => b'\t',
        Some("\\t") => b'\t',
        Some(d)
            if d.len() == 1
                && d.as_bytes()[0] != b'\n'
                && !(args.csv && matches!(d.as_bytes()[0], b'"' | b'\r')) =>
        {
            d.as_bytes()[0]
        }
        Some(_) => anyhow::bail!("--delimiter: must be one single-byte character (or \\t)"),
    };
    if !args
        .prefix
        .bytes()
        .all(|b| b.is_ascii_graphic() && b != delimiter)
    {
        anyhow::bail!("--prefix: must be printable ASCII without spaces or the delimiter");
    }
    let stored = form == Form::StoredNonce;
    if args.nonce_field.is_some() && !stored {
        anyhow::bail!("--nonce-field: needs --stored-nonce or --random-nonce");
    }
    if args.field.is_some() && stored && args.nonce_field.is_none() {
        let needs = match op {
            Op::Encode => true,
            Op::Decode | Op::Reencode => false,
        };
        if needs {
            return Err(hinted(
                "--field with a stored nonce: say which field holds the nonce",
                "add --nonce-field M",
            ));
        }
    }
    if args.nonce_field.is_some() && args.nonce_field == args.field {
        anyhow::bail!("--nonce-field: must differ from --field");
    }
    let mut spec = Spec::new(scheme, form);
    spec.context = args.context.as_bytes().to_vec();
    if let Some(r) = args.rounds {
        if scheme != Scheme::Uuid {
            anyhow::bail!("--rounds: applies to --scheme uuid only");
        }
        spec.rounds = r;
    }
    if let Some(b) = args.clear_bit {
        spec.clear_bit = b;
    }
    let ring = args.key.load()?;
    let codec = Codec::new(&ring, spec)?;
    Ok(Prepared {
        codec,
        options: Options {
            op,
            format,
            prefix: args.prefix.as_bytes().to_vec(),
            field: args.field.map(|f| f as usize),
            nonce_field: args.nonce_field.map(|f| f as usize),
            delimiter,
            csv: args.csv,
            header: args.header,
            random_nonce,
            keep_going: args.keep_going,
            key_id,
        },
    })
}

/// Runs the stream over the arguments or stdin and maps the outcome to an exit status.
pub fn run(args: &CodecArgs, prepared: Prepared, _global: Global) -> anyhow::Result<Status> {
    let from_args = !(args.ids.is_empty() || args.ids.len() == 1 && args.ids[0] == "-");
    let source = if from_args { "argument" } else { "stdin" };
    let describe = |e: &LineError| -> String {
        if from_args {
            format!("argument {}: {}", e.line, e.error)
        } else {
            format!("{source}: line {}: {}", e.line, e.error)
        }
    };
    let mut out = super::output::stdout_stream();
    let mut bad = 0u64;
    let mut on_error = |e: &LineError| {
        bad += 1;
        report::line_error(&describe(e));
    };
    let result = if from_args {
        let mut joined = Vec::new();
        for a in &args.ids {
            joined.extend_from_slice(a.as_bytes());
            joined.push(b'\n');
        }
        stream::run(
            &prepared.codec,
            &prepared.options,
            crate::streams::Source::Read(&mut &joined[..]),
            &mut out,
            &mut on_error,
        )
    } else {
        super::input::take_stdin("the input")?;
        super::output::enlarge_pipe(0);
        let mut input = super::input::stdin_stream();
        stream::run(
            &prepared.codec,
            &prepared.options,
            input.source(),
            &mut out,
            &mut on_error,
        )
    };
    match result {
        Ok(summary) if summary.errors > 0 || bad > 0 => Ok(Status::Error),
        Ok(_) => Ok(Status::Success),
        Err(StreamError::Line(e)) => Err(anyhow::anyhow!("{}", describe(&e))),
        Err(e @ StreamError::Write(_)) => Err(anyhow::Error::new(e)).context("stdout"),
        Err(e @ (StreamError::Read(_) | StreamError::TooLong(_) | StreamError::Csv(_))) => {
            Err(anyhow::Error::new(e)).context(source)
        }
        Err(e) => Err(anyhow::Error::new(e)),
    }
}
