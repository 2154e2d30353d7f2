//! What every subcommand is given and returns: the options shared by all of them and
//! the exit statuses.

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
