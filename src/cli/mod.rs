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
pub mod manual;
pub mod nonce;
pub mod output;
pub mod records;
pub mod reencode;
pub mod report;
pub mod signals;
pub mod status;
pub mod tree;
pub mod version;

use clap::Parser;
use std::process::ExitCode;

pub use status::{Global, Status};

pub use tree::{Cli, Command};

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
    let args = arguments();
    let mut cmd = <Cli as clap::CommandFactory>::command();
    // The build's details only when asked for: probing the processor costs a one-off
    // command start-up time on a virtual machine (each cpuid a trap).
    if args.iter().any(|a| a == "--version") {
        cmd = cmd.long_version(&*Box::leak(version::long().into_boxed_str()));
    }
    let cli = match cmd
        .try_get_matches_from(args)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m))
    {
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
        Command::Completions(args) => completions::run(&args, global, generate::completion),
        Command::Man(args) => man::run(&args, global, generate::man_pages),
    };
    signals::wait_if_interrupted();
    match result {
        Ok(status) => status.into(),
        Err(err) => report::error(&err).into(),
    }
}
