//! `veilkit nonce`: values that are never repeated.

mod decrypt;
mod fleet;

use super::keysource::KeyArgs;
use super::manual::{EXIT_PLAIN, ManExtra};
use super::status::{Global, Status};
use crate::nonce::cipher::NonceCipher;
use crate::nonce::format::Format;
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
machine id) are an error, not a wait.

Across machines: give every machine a distinct --machine-id (0 to 511), or take it from a \
node list (--machine-id-from FILE: this host's place in it), or share the state in \
PostgreSQL (--state postgres://USER@HOST:PORT/DB: hosts may then share an id), or keep \
local state and hold a lease on the id (--guard postgres://...: a second live process with \
the id refuses to start; --machine-id auto takes the lowest free id). Passwords go in \
PGPASSWORD, ~/.pgpass or the environment variables below, never on the command line \
(docs/NONCES.md).";

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
            "VEILKIT_NONCE_STATE",
            "The state (a file, or a postgres:// URL, which may hold a password here) when --state is not given.",
        ),
        (
            "VEILKIT_NONCE_GUARD",
            "The guard's postgres:// URL (which may hold a password here) when --guard is not given.",
        ),
        (
            "VEILKIT_HOSTNAME",
            "This host's name in the node list of --machine-id-from [default: uname -n].",
        ),
        (
            "PGPASSWORD, PGPASSFILE, PGUSER",
            "As libpq reads them: the database password, the password file [default: ~/.pgpass], the user when the URL names none.",
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
            "A fleet sharing its state in PostgreSQL (any number of hosts, one machine id)",
            "veilkit nonce --kind sortable --state postgres://nonces@db.internal/fleet -n 1000",
        ),
        (
            "Local state, with the lowest machine id no live process holds",
            "veilkit nonce --guard postgres://nonces@db.internal/fleet --machine-id auto -n 1000",
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

    /// This machine's id, 0 to 511, or `auto`: the lowest id that no live process holds
    /// under the guard (said on stderr). Every machine of a fleet needs its own, unless
    /// they share their state in PostgreSQL.
    #[arg(long, value_name = "ID", env = "VEILKIT_MACHINE_ID", default_value = "0", value_parser = fleet::parse_machine)]
    pub machine_id: fleet::MachineArg,

    /// Take the machine id from a node list: this host's place (from 0) among the host
    /// names in FILE, one a line, the same list on every host (as NoNoncense does).
    #[arg(long, value_name = "FILE", conflicts_with = "machine_id")]
    pub machine_id_from: Option<PathBuf>,

    /// Where reservations are kept: a state file shared by the processes of this machine,
    /// or a PostgreSQL database shared by a fleet (postgres://USER@HOST:PORT/DB; the
    /// table is created on first use) [default: $XDG_STATE_HOME/veilkit/nonce-state].
    #[arg(long, value_name = "FILE|URL", env = "VEILKIT_NONCE_STATE")]
    pub state: Option<PathBuf>,

    /// Hold a lease on the machine id in this PostgreSQL database while running: another
    /// live process with the same id, on any host, refuses to start (postgres://...).
    #[arg(long, value_name = "URL", env = "VEILKIT_NONCE_GUARD")]
    pub guard: Option<PathBuf>,

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
        return decrypt::decrypt(args, width, format);
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
    let mut setup = fleet::setup(args)?;
    let mut generator = Generator::new(
        width,
        kind,
        setup.machine,
        SystemClock::default(),
        setup.store.reserve(),
        cipher,
    )
    .map_err(state_hint)?
    .with_batch(args.count);
    // Under the guard, values are made only while the lease is sure: checked before
    // every run of values, after any wait for the clock.
    if let Some(lease) = &setup.lease {
        generator = generator.with_fence(lease.fence());
    }

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
pub(crate) fn state_hint(e: NonceError) -> anyhow::Error {
    let hint = match &e {
        NonceError::StateNotRegular { .. } => {
            "give --state the path of a regular file (or leave it out: the default is $XDG_STATE_HOME/veilkit/nonce-state)"
        }
        NonceError::Ahead { .. } => {
            "another --machine-id, or 96- or 128-bit nonces (which do not wait for the clock), can start now; the reservation was left by a run of this machine id with a large --count (still going, or killed), or by a state file written without clock marks"
        }
        NonceError::MachineHeld { .. } => {
            "each live process needs its own machine id: give another, or --machine-id auto for the lowest free one"
        }
        NonceError::NoFreeMachine { .. } => {
            "512 processes hold every id: wait for one to end, or share the state in PostgreSQL (--state postgres://...), where processes may share an id"
        }
        NonceError::LeaseLost { .. } => {
            "the values written before this error are unique; run again once the database answers"
        }
        NonceError::StateWentBack { .. } => {
            "never lower the state by hand or restore it from a backup; if it went back, raise it to at least the value named"
        }
        NonceError::StateFormat { .. } | NonceError::StateLine { .. } => {
            "the state file keeps nonces unique across processes; remove it only if no process of this machine id ever used it"
        }
        _ => return anyhow::Error::new(e),
    };
    super::report::with_hint(e, hint)
}
