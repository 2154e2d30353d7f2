//! The command-line layer: argument definitions (clap derive), one module per
//! subcommand, and the conventions every subcommand follows (exit statuses, error
//! format, streams, progress, signals).
//!
//! Each subcommand module converts its arguments into calls into the library and maps
//! errors to exit statuses; no domain logic lives here.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::exit)]

pub mod bench;
pub mod breach;
pub mod bus_error;
pub mod codec;
pub mod completions;
pub mod decode;
pub mod encode;
pub mod generate;
pub mod ids;
pub mod input;
pub mod keygen;
pub mod keys;
pub mod keysource;
pub mod man;
pub mod nonce;
pub mod output;
pub mod records;
pub mod reencode;
pub mod report;
pub mod signals;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Exit statuses, documented in every man page's EXIT STATUS section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Success; for lookup-like commands, at least one thing was found.
    Success = 0,
    /// Ran cleanly but found nothing (lookup-like commands only).
    NotFound = 1,
    /// An error, usage errors included.
    Error = 2,
    /// Interrupted by a signal (SIGINT; 128 + the signal number in general).
    Interrupted = 130,
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> ExitCode {
        ExitCode::from(s as u8)
    }
}

/// Options shared by every subcommand.
#[derive(Debug, Clone, Copy, Default)]
pub struct Global {
    /// `--quiet`: no progress bars, no informational messages.
    pub quiet: bool,
}

const ABOUT: &str = "Hardware-speed cryptography for everyday data plumbing";

const LONG_ABOUT: &str = "\
Hardware-speed cryptography for everyday data plumbing.

veilkit is one binary for shell scripts, pipelines and terminals: it generates and rotates \
keys, and its other subcommands use them to turn database ids into opaque ids and back, \
make unique nonces, seal record files, and check passwords against breach data.";

const AFTER_LONG_HELP: &str = "\
Exit status:
  0    success (lookups: at least one item was found)
  1    ran cleanly but found nothing (lookups only)
  2    error, including usage errors
  130  interrupted (SIGINT; 128 + N for signal N)

Keys are never taken as command-line values: use --key-file PATH, or set VEILKIT_KEY_FILE \
(a path) or VEILKIT_KEY (the key text). `-` means standard input or output wherever a \
file is expected. See the veilkit-<subcommand>(1) man pages for details.";

/// veilkit: hardware-speed cryptography for everyday data plumbing.
#[derive(Debug, Parser)]
#[command(
    name = "veilkit",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_long_help = AFTER_LONG_HELP,
    propagate_version = true,
    disable_help_subcommand = true,
    max_term_width = 100
)]
pub struct Cli {
    /// Print nothing but errors and warnings: no progress bars or informational messages,
    /// and for the lookups whose exit status answers (breach query, records get) no
    /// answers either, as grep -q.
    #[arg(short, long, global = true)]
    pub quiet: bool,

    #[command(subcommand)]
    pub command: Command,
}

// The subcommands.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    #[command(about = keygen::ABOUT, long_about = keygen::LONG_ABOUT)]
    Keygen(keygen::Args),
    #[command(about = keys::ABOUT, long_about = keys::LONG_ABOUT)]
    Keys(keys::Args),
    #[command(about = breach::ABOUT, long_about = breach::LONG_ABOUT)]
    Breach(breach::Args),
    #[command(about = encode::ABOUT, long_about = encode::LONG_ABOUT)]
    Encode(encode::Args),
    #[command(about = decode::ABOUT, long_about = decode::LONG_ABOUT)]
    Decode(decode::Args),
    #[command(about = reencode::ABOUT, long_about = reencode::LONG_ABOUT)]
    Reencode(reencode::Args),
    #[command(about = ids::ABOUT, long_about = ids::LONG_ABOUT)]
    Ids(ids::Args),
    #[command(about = nonce::ABOUT, long_about = nonce::LONG_ABOUT)]
    Nonce(nonce::Args),
    #[command(about = records::ABOUT, long_about = records::LONG_ABOUT)]
    Records(records::Args),
    #[command(about = bench::ABOUT, long_about = bench::LONG_ABOUT)]
    Bench(bench::Args),
    #[command(about = completions::ABOUT, long_about = completions::LONG_ABOUT)]
    Completions(completions::Args),
    #[command(about = man::ABOUT, long_about = man::LONG_ABOUT)]
    Man(man::Args),
}

/// `veilkit breach query` alone: the one-shot lookup is the command whose start-up time
/// users measure, and building the whole command tree costs more than the lookup.
#[derive(Debug, Parser)]
#[command(
    name = "veilkit breach query",
    disable_help_flag = true,
    disable_version_flag = true
)]
struct QueryOnly {
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    args: breach::query::Args,
}

/// Parses `veilkit breach query ...` with the query's arguments only. `None` for anything
/// else, or anything it cannot parse cleanly (help, errors): the full parser then handles
/// it, with its own messages.
fn fast_query() -> Option<(Global, breach::query::Args)> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let (a, b) = (args.get(1)?, args.get(2)?);
    if a != "breach" || b != "query" {
        return None;
    }
    let rest = std::iter::once(std::ffi::OsString::from("veilkit breach query"))
        .chain(args[3..].iter().cloned());
    let parsed = QueryOnly::try_parse_from(rest).ok()?;
    Some((
        Global {
            quiet: parsed.quiet,
        },
        parsed.args,
    ))
}

/// The command line; run under the name `okon-cli` (a link to the binary), it is
/// `veilkit breach okon ARGS`, as `keepassxc-cli analyze --okon` calls a program.
fn arguments() -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let called = args
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .is_some_and(|n| n == "okon-cli");
    if called {
        args.splice(0..1, ["veilkit", "breach", "okon"].map(Into::into));
    }
    args
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    bus_error::install();
    if let Some((global, args)) = fast_query() {
        report::QUIET.store(global.quiet, std::sync::atomic::Ordering::Relaxed);
        return match breach::query::run(&args, global) {
            Ok(status) => status.into(),
            Err(err) => report::error(&err).into(),
        };
    }
    let cli = match Cli::try_parse_from(arguments()) {
        Ok(cli) => cli,
        Err(e) => return report::clap_error(e).into(),
    };
    let global = Global { quiet: cli.quiet };
    report::QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
    let result = match cli.command {
        Command::Keygen(args) => keygen::run(&args, global),
        Command::Keys(args) => keys::run(&args, global),
        Command::Breach(args) => breach::run(&args, global),
        Command::Encode(args) => encode::run(&args, global),
        Command::Decode(args) => decode::run(&args, global),
        Command::Reencode(args) => reencode::run(&args, global),
        Command::Ids(args) => ids::run(&args, global),
        Command::Nonce(args) => nonce::run(&args, global),
        Command::Records(args) => records::run(&args, global),
        Command::Bench(args) => bench::run(&args, global),
        Command::Completions(args) => completions::run(&args, global),
        Command::Man(args) => man::run(&args, global),
    };
    signals::wait_if_interrupted();
    match result {
        Ok(status) => status.into(),
        Err(err) => report::error(&err).into(),
    }
}
