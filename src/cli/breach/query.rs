//! `veilkit breach query`: hashes or passwords from stdin (or hashes as arguments).

use super::super::manual::{EXIT_LOOKUP, ManExtra};
use super::super::status::{Global, Status};
use crate::breach::query::{self, Input, QueryError, Source};
use anyhow::Context;
use std::io::Read;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Look up hashes (arguments or stdin) or passwords (stdin) in an index";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Look up hashes or passwords, one answer per input line, in order.

Hashes come as arguments or one per line on standard input (40 hex digits for a SHA-1 index, \
32 for NTLM, either case); each answer is `HASH:COUNT` in upper case, with count 0 when \
absent. Any tier answers: on a compact index counts are exact but an absent hash is reported present with a tiny probability (see `info`); on a filter the answer is `HASH:1` for \"probably present\" and `HASH:0` for \"absent\", as filters keep no counts. With --filter, an exact index answers behind a filter built from it, read into memory: absent hashes (most queries) never touch the index file. A hash of a weak password on a command line is as sensitive as the password itself \
(shell history, the process list): prefer standard input.

With --passwords, each line of standard input is a password (its exact bytes without the \
line end, LF or CRLF; nothing else is trimmed), hashed with SHA-1 or, for an NTLM index, MD4 of its UTF-16LE \
form (a line that is not UTF-8 is then an error). The answer is one count per line, so the \
output lines up with the input; passwords are never printed. Without -i, --passwords uses the \
embedded list of the 30,000 most common passwords and each answer is the password's rank \
in it (1 = most common, 0 = not in the list).

A UTF-8 byte order mark at the start of standard input (as Windows editors save text) is \
skipped, of hashes and passwords alike.

With -0 (--null), lines on standard input end with a NUL byte instead of a newline, as \
`find -print0` and `xargs -0` have them: a password may then hold any other byte, a newline \
or a carriage return included, and nothing is stripped or skipped but the NUL. A last line \
without its NUL counts. Answers still end with newlines, and errors still number the lines.

A bad line stops the run after the answers before it have been written.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_LOOKUP,
    uses_keys: false,
    environment: &[],
    examples: &[
        (
            "Rank of a password among the most common",
            "echo password | veilkit breach query --passwords",
        ),
        (
            "Counts of many hashes",
            "veilkit breach query -i hibp.idx < hashes.txt",
        ),
        (
            "Counts of passwords, aligned with the input",
            "veilkit breach query -i hibp.idx --passwords < candidates.txt",
        ),
        (
            "Passwords that may hold newlines, NUL-separated",
            "tr '\\n' '\\0' < candidates.txt | veilkit breach query -i hibp.idx --passwords -0",
        ),
        (
            "Absent hashes answered from a filter in memory",
            "veilkit breach query -i hibp.idx --filter hibp.filter < hashes.txt",
        ),
    ],
};

// Arguments of `veilkit breach query`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The index [default: none; only --passwords works without one].
    #[arg(short, long, value_name = "INDEX")]
    pub index: Option<PathBuf>,

    /// A filter built from INDEX (`breach build --tier filter INDEX`), read into memory:
    /// hashes it rules out are answered without touching INDEX.
    #[arg(long, value_name = "FILTER", requires = "index")]
    pub filter: Option<PathBuf>,

    /// Read passwords from standard input instead of hashes.
    #[arg(long)]
    pub passwords: bool,

    /// Lines on standard input end with NUL, not newline (a password may hold any other
    /// byte).
    #[arg(short = '0', long = "null")]
    pub null: bool,

    /// Go on past a bad line: it is reported on stderr with its number and answered `?`,
    /// so output lines stay aligned with input lines; the status is 2 at the end.
    #[arg(long)]
    pub keep_going: bool,

    /// Hashes to look up; without any, they are read from standard input. Prefer standard
    /// input: a hash of a weak password is as sensitive as the password.
    #[arg(value_name = "HASH", conflicts_with = "passwords")]
    pub hashes: Vec<String>,
}

/// Runs `veilkit breach query`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let index = match &args.index {
        Some(p) => {
            let index = super::open_any(p, args.filter.as_deref())?;
            if index.partial() {
                super::warn_partial(p);
            }
            super::warn_unverified(p, &index);
            Some(index)
        }
        None if args.passwords => None,
        None => {
            return Err(super::super::report::hinted(
                "query: hashes need an index (-i INDEX)",
                "without an index, check passwords against the embedded list with --passwords",
            ));
        }
    };
    let source = match &index {
        Some(i) => Source::Index(i),
        None => Source::Common,
    };
    let input = if args.passwords {
        Input::Passwords
    } else {
        Input::Hashes
    };
    // -q: the exit status alone answers, as with grep -q.
    let mut out: Box<dyn std::io::Write> = if global.quiet {
        Box::new(std::io::sink())
    } else {
        super::super::output::stdout_text()
    };
    let from_args = !(args.hashes.is_empty() || args.hashes.len() == 1 && args.hashes[0] == "-");
    let where_ = if from_args { "argument" } else { "stdin: line" };
    let mut on_bad = |n: u64, problem: &query::LineProblem| {
        super::super::report::line_error(&format!("{where_} {n}: {problem}"));
    };
    // Arguments are joined with newlines; -0 is for standard input.
    let end = if args.null && !from_args {
        crate::streams::NUL
    } else {
        b'\n'
    };
    let run = |reader: &mut dyn Read,
               out: &mut dyn std::io::Write,
               on_bad: &mut dyn FnMut(u64, &query::LineProblem)| {
        if args.keep_going {
            query::run_keep_going(source, input, end, reader, out, on_bad)
        } else {
            query::run(source, input, end, reader, out)
        }
    };
    let result = if from_args {
        let joined: Vec<u8> = args
            .hashes
            .iter()
            .flat_map(|h| h.bytes().chain([b'\n']))
            .collect();
        run(&mut &joined[..], &mut out, &mut on_bad)
    } else {
        if args.passwords && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            super::super::report::warn(
                "passwords typed here are shown as you type: `veilkit breach check` asks without echo",
            );
        }
        super::super::input::take_stdin("the input")?;
        super::super::output::enlarge_pipe(0);
        let stdin = std::io::stdin();
        let mut lock = stdin.lock();
        run(&mut lock as &mut dyn Read, &mut out, &mut on_bad)
    };
    let where_ = if from_args { "arguments" } else { "stdin" };
    match result {
        Ok(s) if s.bad > 0 => Err(anyhow::anyhow!(
            "{} (answered `?`)",
            super::super::report::counted(s.bad, "bad line", "bad lines")
        )),
        Ok(s) if s.found > 0 => Ok(Status::Success),
        Ok(_) => Ok(Status::NotFound),
        Err(QueryError::Line { line, problem }) if from_args => {
            Err(anyhow::anyhow!("argument {line}: {problem}"))
        }
        // Text that is not a hash, given where hashes are read: most often a password
        // piped without --passwords (a line of a hash's length is a hash of another kind).
        Err(
            e @ QueryError::Line {
                problem:
                    query::LineProblem::NotHex
                    | query::LineProblem::HashLength {
                        found: 0..=31 | 33..=39 | 41..,
                        ..
                    },
                ..
            },
        ) if !args.passwords => Err(super::super::report::with_hint(
            anyhow::Error::new(e).context(where_),
            "to look up passwords rather than hashes, add --passwords",
        )),
        Err(e @ QueryError::Line { .. }) => Err(anyhow::Error::new(e).context(where_)),
        Err(e @ QueryError::Write(_)) => Err(anyhow::Error::new(e)).context("stdout"),
        Err(e @ (QueryError::Read(_) | QueryError::TooLong(_))) => {
            Err(anyhow::Error::new(e)).context(where_)
        }
        Err(e @ QueryError::Index(_)) => {
            let shown = args
                .index
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            Err(anyhow::Error::new(e)).context(shown)
        }
    }
}
