//! `veilkit nonce`: values that are never repeated.

use super::keysource::KeyArgs;
use super::manual::{EXIT_PLAIN, ManExtra};
use super::report::HintExt;
use super::status::{Global, Status};
use crate::nonce::cipher::NonceCipher;
use crate::nonce::format::Format;
use crate::nonce::state::StateFile;
use crate::nonce::{Generator, Kind, NonceError, SystemClock, Width};
use anyhow::Context;
use clap::ValueEnum;
use std::io::Write;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Make unique counter, sortable or encrypted nonces of 64, 96 or 128 bits";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Make values that are never repeated: ids for records and requests, \
IVs for ciphers, deduplication keys (docs/NONCES.md).

Kinds: `counter` (unique, predictable, as fast as the machine allows), `sortable` (the \
creation millisecond first, so values sort by creation time), `encrypted` (a counter value \
through a block cipher of the same width: Blowfish for 64 bits, Speck96/144 for 96, AES-256 \
for 128, keyed from the keyring, so values are unique and unpredictable). Layouts are \
NoNoncense's: a 42-bit millisecond timestamp from 2025-01-01, a 9-bit machine id, a counter.

Values never repeat within a process, across processes sharing the state file (a \
high-water mark under an advisory lock, written durably before values are issued), \
across restarts, or when the clock steps back. 64-bit values are limited to 8,192 per \
millisecond per machine id (8.19 million per second): faster requests wait, never wrap; \
values already reserved more than 10 s ahead of the clock (a large --count run of the same \
machine id) are an error, not a wait. Give every machine a distinct --machine-id (0 to 511).";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: &[
        (
            "VEILKIT_MACHINE_ID",
            "The machine id (0 to 511) when --machine-id is not given; default 0.",
        ),
        (
            "XDG_STATE_HOME",
            "Where the default state file lives: $XDG_STATE_HOME/veilkit/nonce-state, else ~/.local/state/veilkit/nonce-state.",
        ),
    ],
    examples: &[
        ("One 128-bit nonce in hex", "veilkit nonce"),
        (
            "A million sortable 96-bit ids",
            "veilkit nonce --kind sortable --bits 96 -n 1000000 > ids.txt",
        ),
        (
            "Unpredictable 64-bit nonces on machine 17",
            "veilkit nonce --kind encrypted --bits 64 --machine-id 17 -n 10",
        ),
        (
            "Raw bytes for IVs",
            "veilkit nonce --bits 96 -n 1000 --format binary > ivs.bin",
        ),
        (
            "What counter an encrypted nonce came from",
            "veilkit nonce --kind encrypted | veilkit nonce --decrypt",
        ),
    ],
};

/// `--kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// Unique and predictable.
    Counter,
    /// Creation millisecond first: values sort by creation time.
    Sortable,
    /// A counter through a block cipher of the width: unique and unpredictable.
    Encrypted,
}

/// `--bits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BitsArg {
    /// 64 bits: at most 8,192 per millisecond per machine id.
    #[value(name = "64")]
    B64,
    /// 96 bits.
    #[value(name = "96")]
    B96,
    /// 128 bits.
    #[value(name = "128")]
    B128,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Lower-case hex, fixed width.
    Hex,
    /// RFC 4648 base64.
    Base64,
    /// Crockford base32, lower case, fixed width.
    Base32,
    /// Decimal.
    Decimal,
    /// Raw big-endian bytes, back to back.
    Binary,
}

// Arguments of `veilkit nonce`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::manual::examples_help(&MAN))]
pub struct Args {
    /// The kind of nonce.
    #[arg(long, value_enum, default_value_t = KindArg::Counter)]
    pub kind: KindArg,

    /// Bits per nonce.
    #[arg(long, value_enum, default_value_t = BitsArg::B128)]
    pub bits: BitsArg,

    /// How many nonces.
    #[arg(short = 'n', long = "count", value_name = "COUNT", default_value_t = 1)]
    pub count: u64,

    /// This machine's id, 0 to 511: every machine of a fleet needs its own.
    #[arg(long, value_name = "ID", env = "VEILKIT_MACHINE_ID", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=511))]
    pub machine_id: u32,

    /// The state file shared by the processes of this machine [default:
    /// $XDG_STATE_HOME/veilkit/nonce-state].
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,

    /// How nonces are written.
    #[arg(long, value_enum, default_value_t = FormatArg::Hex)]
    pub format: FormatArg,

    /// Read encrypted nonces (in --format) from stdin and print the counter values they
    /// were made from.
    #[arg(long)]
    pub decrypt: bool,

    #[command(flatten)]
    pub key: KeyArgs,
}

fn format_of(f: FormatArg) -> Format {
    match f {
        FormatArg::Hex => Format::Hex,
        FormatArg::Base64 => Format::Base64,
        FormatArg::Base32 => Format::Base32,
        FormatArg::Decimal => Format::Decimal,
        FormatArg::Binary => Format::Binary,
    }
}

/// Runs `veilkit nonce`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    let width = match args.bits {
        BitsArg::B64 => Width::W64,
        BitsArg::B96 => Width::W96,
        BitsArg::B128 => Width::W128,
    };
    let format = format_of(args.format);
    if args.decrypt {
        return decrypt(args, width, format);
    }
    let kind = match args.kind {
        KindArg::Counter => Kind::Counter,
        KindArg::Sortable => Kind::Sortable,
        KindArg::Encrypted => Kind::Encrypted,
    };
    let cipher = if kind == Kind::Encrypted {
        Some(NonceCipher::new(width, args.key.load()?.current()))
    } else {
        None
    };
    let state_path = match &args.state {
        Some(p) => p.clone(),
        None => StateFile::default_path().ok_or_else(|| {
            super::report::hinted(
                "nonce: no state directory (neither XDG_STATE_HOME nor HOME is set)",
                "pass --state FILE: processes that share it never issue the same nonce",
            )
        })?,
    };
    let mut state = StateFile::new(state_path);
    let mut generator = Generator::new(
        width,
        kind,
        args.machine_id,
        SystemClock::default(),
        &mut state,
        cipher,
    )
    .map_err(state_hint)?
    .with_batch(args.count);

    // 64-bit values come at most 8,192 per millisecond: a chunk of that many keeps
    // formatting and writing from skipping whole milliseconds of sortable values.
    let chunk = if width == Width::W64 { 8192 } else { 1 << 15 };
    let mut values = vec![0u128; chunk];
    let mut buf: Vec<u8> = Vec::with_capacity(chunk * 41);
    let mut left = args.count;
    let mut emit = |out: &mut dyn Write| -> anyhow::Result<()> {
        while left > 0 {
            let n = (left as usize).min(chunk);
            generator.fill(&mut values[..n]).map_err(state_hint)?;
            buf.clear();
            format.write_many(width, &values[..n], &mut buf);
            out.write_all(&buf).context("stdout")?;
            left -= n as u64;
        }
        out.flush().context("stdout")?;
        Ok(())
    };
    let written = if format == Format::Binary {
        let mut out = super::output::stdout_binary()?;
        emit(&mut out)
    } else {
        let mut out = super::output::stdout_text();
        emit(&mut out)
    };
    // Give back what was reserved and not issued (also after an error: the values
    // issued so far stay reserved).
    if let Err(e) = generator.finish() {
        super::report::warn(format!(
            "the unused end of this run's reservation stays reserved: {}",
            super::report::with_causes(&e)
        ));
    }
    written?;
    Ok(Status::Success)
}

/// A start's error, with the hint that fits it.
fn state_hint(e: NonceError) -> anyhow::Error {
    let hint = match &e {
        NonceError::StateNotRegular { .. } => {
            "give --state the path of a regular file (or leave it out: the default is $XDG_STATE_HOME/veilkit/nonce-state)"
        }
        NonceError::Ahead { .. } => {
            "another --machine-id, or 96- or 128-bit nonces (which do not wait for the clock), can start now; the reservation was left by a run of this machine id with a large --count (still going, or killed), or by a state file written without clock marks"
        }
        NonceError::StateFormat { .. } | NonceError::StateLine { .. } => {
            "the state file keeps nonces unique across processes; remove it only if no process of this machine id ever used it"
        }
        _ => return anyhow::Error::new(e),
    };
    super::report::with_hint(e, hint)
}

/// `--decrypt`: encrypted nonces on stdin to their counter form.
fn decrypt(args: &Args, width: Width, format: Format) -> anyhow::Result<Status> {
    const BATCH: usize = 4096;
    let cipher = NonceCipher::new(width, args.key.load()?.current());
    let mut input = super::input::open_input(std::path::Path::new("-"))?;
    let mut values: Vec<u128> = Vec::with_capacity(BATCH);
    let mut buf = Vec::with_capacity(BATCH * 33);
    let mut out: Box<dyn Write> = if format == Format::Binary {
        Box::new(super::output::stdout_binary()?)
    } else {
        super::output::stdout_text()
    };
    // Decrypts and writes what is in `values` (a batch at a time: memory stays bounded
    // however long the input).
    let mut flush = |values: &mut Vec<u128>, out: &mut dyn Write| -> anyhow::Result<()> {
        cipher.decrypt_many(values);
        buf.clear();
        for v in values.drain(..) {
            format.write(width, v, &mut buf);
        }
        out.write_all(&buf).context("stdout")
    };
    if format == Format::Binary {
        let mut chunk = vec![0u8; width.bytes() * BATCH];
        let mut total = 0u64;
        loop {
            let mut got = 0;
            while got < chunk.len() {
                match input.read(&mut chunk[got..]) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(anyhow::Error::new(e).context("stdin")),
                }
            }
            total += got as u64;
            for c in chunk[..got].chunks_exact(width.bytes()) {
                let mut b = [0u8; 16];
                b[16 - width.bytes()..].copy_from_slice(c);
                values.push(u128::from_be_bytes(b));
            }
            flush(&mut values, &mut out)?;
            if got % width.bytes() != 0 {
                // The whole nonces before the cut-off one are answered first, as the
                // text formats answer the lines before a bad one.
                out.flush().context("stdout")?;
                anyhow::bail!(
                    "stdin: {total} bytes is not a whole number of {}-bit nonces",
                    width.bits()
                );
            }
            if got < chunk.len() {
                break;
            }
        }
    } else {
        let mut lines = crate::streams::Lines::new(input);
        while let Some((n, line)) = lines.next_line().context("stdin")? {
            let v = match format.parse(width, line) {
                Ok(v) => v,
                Err(e) => {
                    // The lines before the bad one are answered first, as encode and
                    // decode do.
                    flush(&mut values, &mut out)?;
                    out.flush().context("stdout")?;
                    return Err(e)
                        .with_context(|| format!("stdin: line {n}"))
                        .hint("give the same --bits and --format as when the nonces were made");
                }
            };
            values.push(v);
            if values.len() == BATCH {
                flush(&mut values, &mut out)?;
            }
        }
        flush(&mut values, &mut out)?;
    }
    out.flush().context("stdout")?;
    Ok(Status::Success)
}
