//! `veilkit completions SHELL`: the shell completion script, from the installed binary.

use super::generate::{EXIT_PLAIN, ManExtra, SHELLS};
use super::{Global, Status};
use anyhow::Context;
use std::io::Write;

/// One line for the command list.
pub const ABOUT: &str = "Print the completion script for a shell";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Print the completion script for SHELL on standard output, as \
the installed binary defines its commands (the files under completions/ in the source are \
the same scripts).";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: false,
    environment: &[],
    examples: &[
        (
            "Bash, for the current user",
            "veilkit completions bash > ~/.local/share/bash-completion/completions/veilkit",
        ),
        (
            "Zsh (a directory on $fpath)",
            "veilkit completions zsh > ~/.zfunc/_veilkit",
        ),
        (
            "Fish",
            "veilkit completions fish > ~/.config/fish/completions/veilkit.fish",
        ),
    ],
};

// Arguments of `veilkit completions`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::generate::examples_help(&MAN))]
pub struct Args {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Runs `veilkit completions`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    let file = SHELLS
        .iter()
        .find(|(s, _)| *s == args.shell)
        .map(|(_, f)| *f)
        .context("no completions for this shell")?;
    let (_, script) = super::generate::completions()
        .into_iter()
        .find(|(name, _)| name == file)
        .context("no completions for this shell")?;
    let mut out = std::io::stdout().lock();
    // A closed pipe is a quiet end (`report::error`).
    out.write_all(&script)
        .and_then(|()| out.flush())
        .context("stdout")?;
    Ok(Status::Success)
}
