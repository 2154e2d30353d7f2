//! `veilkit breach check`: passwords typed at a hidden prompt.

use super::super::manual::{EXIT_LOOKUP, ManExtra};
use super::super::report::Interrupted;
use super::super::signals;
use super::super::status::{Global, Status};
use crate::breach::common;
use crate::breach::tier::AnyIndex;
use anyhow::Context;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use zeroize::Zeroizing;

/// One line for the command list.
pub const ABOUT: &str = "Check passwords typed at a hidden prompt";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Check passwords interactively: each is typed at a hidden prompt on \
the terminal and answered at once with \"found N times\" or \"not found\", until end of input \
(Ctrl-D). Passwords never appear on the screen, in the shell history or in the process list.

Without -i, passwords are checked against the 30,000 most common passwords compiled into \
veilkit, and the answer gives the password's rank in that list (also ignoring case). With -i, \
against an index built by `veilkit breach build`: an exact or compact index answers \
\"found N times\"; a filter keeps no counts and answers \"probably found\" (wrong for an \
absent password with the filter's false positive rate, shown by `veilkit breach info`: about \
0.0015% for `filter`, 0.39% for `filter-small`) or \"not found\" (always right). With \
--filter, an exact index answers behind a filter built from it.

When standard input is not a terminal, each of its lines is checked as a password, without a \
prompt; with -0 (--null), its lines end with NUL bytes instead of newlines, so a password may \
hold any other byte.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_LOOKUP,
    uses_keys: false,
    environment: &[],
    examples: &[
        (
            "Against the embedded list of common passwords",
            "veilkit breach check",
        ),
        (
            "Against the full breach data",
            "veilkit breach check -i hibp.idx",
        ),
    ],
};

// Arguments of `veilkit breach check`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The index [default: the embedded list of common passwords].
    #[arg(short, long, value_name = "INDEX")]
    pub index: Option<PathBuf>,

    /// A filter built from INDEX, read into memory: passwords it rules out are answered
    /// without touching INDEX.
    #[arg(long, value_name = "FILTER", requires = "index")]
    pub filter: Option<PathBuf>,

    /// Lines on standard input (not a terminal) end with NUL, not newline.
    #[arg(short = '0', long = "null")]
    pub null: bool,

    /// A password given as an argument: refused, without echoing it (clap's own error
    /// would quote it).
    #[arg(hide = true, allow_hyphen_values = true, value_name = "PASSWORD")]
    pub refused: Vec<std::ffi::OsString>,
}

/// The answer for one password.
fn answer(index: Option<&AnyIndex>, password: &[u8]) -> anyhow::Result<(bool, String)> {
    match index {
        Some(index) => {
            let hash = index
                .kind()
                .hash_password(password)
                .map_err(|e| anyhow::anyhow!("password {e}"))?;
            let count = index.lookup(&hash)?;
            Ok(match count {
                0 => (false, "not found".to_string()),
                _ if !index.tier().has_counts() => (
                    true,
                    format!(
                        "probably found (a filter: no counts; {:.4}% of absent passwords are reported found)",
                        index.false_positive_rate() * 100.0
                    ),
                ),
                1 => (true, "found 1 time".to_string()),
                n => (true, format!("found {n} times")),
            })
        }
        None => Ok(
            match (common::rank(password), common::rank_ignoring_case(password)) {
                (Some(r), _) => (
                    true,
                    format!(
                        "found: rank {r} of the {} most common passwords",
                        common::SIZE
                    ),
                ),
                (None, Some(r)) => (
                    true,
                    format!(
                        "found ignoring case: rank {r} of the {} most common passwords",
                        common::SIZE
                    ),
                ),
                (None, None) => (
                    false,
                    format!(
                        "not found among the {} most common passwords (check a full index with -i)",
                        common::SIZE
                    ),
                ),
            },
        ),
    }
}

/// Runs `veilkit breach check`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    if !args.refused.is_empty() {
        return Err(super::super::report::hinted(
            "breach check: passwords are never taken as arguments (a command line stays in \
             shell history and is visible to other users in ps)",
            "run `veilkit breach check` and type it at the prompt (not echoed), or pipe \
             passwords to `veilkit breach query --passwords`",
        ));
    }
    let index = match &args.index {
        Some(p) => {
            let index = super::open_any(p, args.filter.as_deref())?;
            if index.partial() {
                super::warn_partial(p);
            }
            super::warn_unverified(p, &index);
            Some(index)
        }
        None => None,
    };
    let mut out = super::super::output::stdout_text();
    let mut found_any = false;
    if std::io::stdin().is_terminal() {
        loop {
            // Keep the terminal's settings so that a signal during the prompt puts
            // echo back (the prompt turns it off).
            signals::save_tty(std::io::stdin());
            let read = rpassword::prompt_password("Password (hidden; Ctrl-D to end): ");
            signals::restore_tty();
            let password = match read {
                Ok(p) => Zeroizing::new(p),
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    // Ctrl-D leaves the cursor after the prompt: end its line, so the
                    // shell's prompt starts on a line of its own.
                    if std::io::stderr().is_terminal() {
                        let _ = writeln!(std::io::stderr());
                    }
                    break;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    return Err(anyhow::Error::new(Interrupted));
                }
                Err(e) => return Err(anyhow::Error::new(e).context("terminal")),
            };
            if password.is_empty() {
                continue;
            }
            let (found, text) = answer(index.as_ref(), password.as_bytes())?;
            found_any |= found;
            writeln!(out, "{text}").context("stdout")?;
            out.flush().context("stdout")?;
        }
    } else {
        super::super::input::take_stdin("the input")?;
        let stdin = std::io::stdin();
        let end = if args.null {
            crate::streams::NUL
        } else {
            b'\n'
        };
        let mut lines = crate::streams::Lines::new(stdin.lock()).ending_with(end);
        while let Some((n, line)) = lines.next_line().context("stdin")? {
            let line = Zeroizing::new(line.to_vec());
            let (found, text) =
                answer(index.as_ref(), &line).with_context(|| format!("stdin: line {n}"))?;
            found_any |= found;
            writeln!(out, "{text}").context("stdout")?;
        }
        out.flush().context("stdout")?;
    }
    Ok(if found_any {
        Status::Success
    } else {
        Status::NotFound
    })
}
