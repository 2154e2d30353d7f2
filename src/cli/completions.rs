//! `veilkit completions SHELL`: the shell completion script, from the installed binary.

use super::manual::{EXIT_PLAIN, ManExtra};
use super::status::{Global, Status};
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
            "mkdir -p ~/.local/share/bash-completion/completions && veilkit completions bash > ~/.local/share/bash-completion/completions/veilkit",
        ),
        (
            "Zsh (a directory on $fpath)",
            "mkdir -p ~/.zfunc && veilkit completions zsh > ~/.zfunc/_veilkit",
        ),
        (
            "Fish",
            "mkdir -p ~/.config/fish/completions && veilkit completions fish > ~/.config/fish/completions/veilkit.fish",
        ),
    ],
};

// Arguments of `veilkit completions`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::manual::examples_help(&MAN))]
pub struct Args {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Runs `veilkit completions`: `render` gives a shell's script (the dispatcher passes
/// [`generate::completion`](super::generate::completion), which renders the tree this
/// module is part of).
pub fn run(
    args: &Args,
    _global: Global,
    render: fn(clap_complete::Shell) -> Vec<u8>,
) -> anyhow::Result<Status> {
    let script = render(args.shell);
    let mut out = std::io::stdout().lock();
    // A closed pipe is a quiet end (`report::error`).
    out.write_all(&script)
        .and_then(|()| out.flush())
        .context("stdout")?;
    Ok(Status::Success)
}
