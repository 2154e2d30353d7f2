//! The command tree: every subcommand's arguments, as clap parses them and as
//! [`generate`](super::generate) renders completions and man pages from them.

use super::{
    bench, breach, completions, decode, encode, ids, keygen, keys, man, nonce, records, reencode,
};
use clap::{Parser, Subcommand};

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
