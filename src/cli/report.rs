//! How errors and warnings reach the user: `veilkit: <where>: <what>` on stderr, with a
//! hint line where one helps, control characters escaped, and a broken pipe on text
//! output treated as a normal end.

use super::status::Status;
use std::error::Error as StdError;
use std::fmt;
use std::io::{self, Write};

/// An error that carries a hint for the user, shown on its own line after the message.
#[derive(Debug)]
pub struct Hinted {
    inner: anyhow::Error,
    hint: String,
}

impl fmt::Display for Hinted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.inner)
    }
}

impl StdError for Hinted {}

/// Attaches a hint to an error result.
pub trait HintExt<T> {
    /// Adds `hint` to the error, if any.
    fn hint(self, hint: impl Into<String>) -> anyhow::Result<T>;
}

impl<T, E: Into<anyhow::Error>> HintExt<T> for Result<T, E> {
    fn hint(self, hint: impl Into<String>) -> anyhow::Result<T> {
        self.map_err(|e| {
            anyhow::Error::new(Hinted {
                inner: e.into(),
                hint: hint.into(),
            })
        })
    }
}

/// Creates an error with a message and a hint.
pub fn hinted(message: impl fmt::Display, hint: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Hinted {
        inner: anyhow::anyhow!("{message}"),
        hint: hint.into(),
    })
}

/// `e` with a hint, its causes kept (the error line prints them, `what: cause`).
pub fn with_hint(e: impl Into<anyhow::Error>, hint: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Hinted {
        inner: e.into(),
        hint: hint.into(),
    })
}

/// An error's message followed by its causes, `what: cause: cause`, as the error line
/// prints them: for an error's text that goes elsewhere (a JSON field, a warning). An
/// error's own message names what failed, its causes why (`cannot read: Input/output
/// error`): its `to_string()` alone would drop the why.
pub fn with_causes(e: &(dyn StdError + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// True when the error chain holds a broken pipe: the reader of our text output went
/// away, which for line-oriented text is a normal way to end (`veilkit ... | head`).
/// Binary and ciphertext writers turn broken pipes into a different error first (see
/// `output::BinaryOut`), because cut-off binary output is lost data.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Prints an error in the standard format and returns the status to exit with.
pub fn error(err: &anyhow::Error) -> Status {
    if is_broken_pipe(err) {
        return Status::Success;
    }
    if err
        .chain()
        .any(|e| e.downcast_ref::<Interrupted>().is_some())
    {
        return Status::Interrupted;
    }
    let mut text = format!("veilkit: {err:#}");
    let hint = err
        .chain()
        .find_map(|e| e.downcast_ref::<Hinted>())
        .map(|h| h.hint.clone());
    if let Some(hint) = hint {
        text.push_str("\n  hint: ");
        text.push_str(&hint);
    }
    emit(&text);
    Status::Error
}

/// The error for an operation stopped by a signal (exit status 130, no message).
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// `n` and the noun for it: `1 record`, `2 records` (`one` and `many` are the forms).
pub fn counted(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Prints a warning: `veilkit: warning: <what>`.
pub fn warn(message: impl fmt::Display) {
    emit(&format!("veilkit: warning: {message}"));
}

/// Prints the error of one bad input line (`--keep-going`): `veilkit: <where>: <what>`.
pub fn line_error(message: &str) {
    emit(&format!("veilkit: {message}"));
}

/// `--quiet` as given on the command line, for messages of helpers that are not handed
/// the options (set once by `main`).
pub static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// An informational message when `--quiet` is off, from code without the options.
pub fn notice(message: impl fmt::Display) {
    if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        emit(&format!("veilkit: {message}"));
    }
}

/// Prints an informational line unless `--quiet`.
pub fn info(global: super::status::Global, message: impl fmt::Display) {
    if !global.quiet {
        emit(&format!("veilkit: {message}"));
    }
}

/// Reports a clap parse failure: help and version go to stdout with status 0 (status 2
/// and a message when stdout cannot take them, a full disk say; a closed pipe is the
/// quiet end it is elsewhere); usage errors become `veilkit: usage: ...` with status 2.
pub fn clap_error(e: clap::Error) -> Status {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => match print_help(&e) {
            Ok(()) => Status::Success,
            Err(err) => error(&err),
        },
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = print_help(&e);
            Status::Error
        }
        _ => {
            let rendered = e.render().to_string();
            let body = rendered.strip_prefix("error: ").unwrap_or(&rendered);
            emit(&format!("veilkit: usage: {}", body.trim_end()));
            Status::Error
        }
    }
}

/// Help or version text on stdout, in clap's colours, flushed, its errors kept.
fn print_help(e: &clap::Error) -> anyhow::Result<()> {
    use anyhow::Context;
    e.print()
        .and_then(|()| io::stdout().lock().flush())
        .context("stdout")
}

fn emit(text: &str) {
    let clean = sanitize(text);
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{clean}");
    let _ = err.flush();
}

/// Escapes control characters (other than newline and tab) so that a hostile file name
/// or input cannot drive the terminal.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(sanitize("a\u{1b}[31mb\r"), "a\\u{1b}[31mb\\r");
        assert_eq!(sanitize("line\n\ttab"), "line\n\ttab");
    }

    /// The error line says each cause once: errors whose message names what failed
    /// and whose cause says why (none repeats its cause in its own message), through
    /// a hint too.
    #[test]
    fn each_cause_is_said_once() {
        let why = || io::Error::other("the why");
        let errors: Vec<anyhow::Error> = vec![
            crate::nonce::NonceError::State {
                path: "st".into(),
                source: why(),
            }
            .into(),
            crate::breach::download::journal::JournalError::Io("j".into(), why()).into(),
            crate::breach::download::DownloadError::Validators(why()).into(),
            crate::breach::ranges::RangesError::Write("r".into(), why()).into(),
            crate::breach::ranges::RangesError::Output(why()).into(),
            crate::bench::BenchError::Scratch(why()).into(),
            crate::breach::build::BuildError::Write(why()).into(),
            with_hint(crate::breach::build::BuildError::Write(why()), "a hint"),
            crate::cli::breach::download::explain(
                crate::breach::download::DownloadError::Build(
                    crate::breach::build::BuildError::Write(why()),
                ),
                &crate::cli::breach::download::Kept::of(std::path::Path::new("x.idx")),
                std::path::Path::new("x.idx"),
            ),
            crate::cli::breach::download::explain(
                crate::breach::download::DownloadError::Validators(why()),
                &crate::cli::breach::download::Kept::of(std::path::Path::new("x.idx")),
                std::path::Path::new("x.idx"),
            ),
        ];
        for e in &errors {
            let line = format!("{e:#}");
            assert_eq!(line.matches("the why").count(), 1, "{line}");
        }
        let e = crate::breach::build::BuildError::Write(why());
        assert_eq!(with_causes(&e), "cannot write the index: the why");
    }

    #[test]
    fn broken_pipe_is_found_through_context() {
        let e = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe)).context("stdout");
        assert!(is_broken_pipe(&e));
        let e = anyhow::anyhow!("other");
        assert!(!is_broken_pipe(&e));
    }
}
