//! What clap does not hold about each command, written once for its `--help` and its man
//! page: exit statuses, environment and examples. A leaf: every subcommand's module uses
//! it, and [`generate`](super::generate) renders it.

/// Documentation that clap does not hold: a command's EXIT STATUS, ENVIRONMENT and
/// EXAMPLES sections. Each subcommand module defines one; `--help` shows the examples too.
#[derive(Debug, Clone, Copy)]
pub struct ManExtra {
    /// Exit statuses and their meaning for this command.
    pub exit_status: &'static [(&'static str, &'static str)],
    /// Whether the command reads a key (adds the key variables to ENVIRONMENT).
    pub uses_keys: bool,
    /// Further environment variables.
    pub environment: &'static [(&'static str, &'static str)],
    /// Examples: a description and a command line.
    pub examples: &'static [(&'static str, &'static str)],
}

/// Exit statuses of a command that does not look things up.
pub const EXIT_PLAIN: &[(&str, &str)] = &[
    ("0", "Success."),
    (
        "2",
        "An error, including a usage error; the message on stderr says what and where.",
    ),
    (
        "130",
        "Interrupted by SIGINT (128 + N for signal N); no partial output file is left.",
    ),
];

/// Exit statuses of a lookup-like command.
pub const EXIT_LOOKUP: &[(&str, &str)] = &[
    ("0", "At least one item was found."),
    ("1", "The run completed cleanly but nothing was found."),
    (
        "2",
        "An error, including a usage error; the message on stderr says what and where.",
    ),
    ("130", "Interrupted by SIGINT (128 + N for signal N)."),
];

pub const ENV_KEYS: &[(&str, &str)] = &[
    (
        "VEILKIT_KEY_FILE",
        "Path of the key file to use when --key-file is not given.",
    ),
    (
        "VEILKIT_KEY",
        "The key file's text itself, used when neither --key-file nor VEILKIT_KEY_FILE is \
         given (for containers; the environment of a process can be read by its owner and root).",
    ),
];

pub const ENV_COMMON: &[(&str, &str)] = &[(
    "NO_COLOR",
    "When set to a non-empty value, no colour is used in help or messages.",
)];

/// The top-level page: every status any subcommand gives, every variable any reads.
const EXIT_ALL: &[(&str, &str)] = &[
    (
        "0",
        "Success; for the lookups (breach query, breach check, records get) at least one item was found, for breach diff the indexes are equal. breach okon inverts 0 and 1 as okon-cli does (1: leaked).",
    ),
    (
        "1",
        "The run completed cleanly with a negative answer: nothing found (lookups), or the indexes differ (breach diff).",
    ),
    (
        "2",
        "An error, including a usage error and, with --keep-going, bad input lines; the message on stderr says what and where.",
    ),
    (
        "130",
        "Interrupted by SIGINT (128 + N for signal N); no partial output file is left. An interruption after the output was committed exits 0.",
    ),
];

pub const TOP: ManExtra = ManExtra {
    exit_status: EXIT_ALL,
    uses_keys: true,
    environment: &[
        (
            "VEILKIT_PASSPHRASE_FILE",
            "records: a file whose first line is the passphrase, when --passphrase-file is not given.",
        ),
        (
            "VEILKIT_MACHINE_ID",
            "nonce: the machine id (0 to 511) when --machine-id is not given.",
        ),
        (
            "XDG_STATE_HOME, HOME",
            "nonce: the default state file is $XDG_STATE_HOME/veilkit/nonce-state, else ~/.local/state/veilkit/nonce-state.",
        ),
        (
            "TMPDIR",
            "records seal and append: where a piped INPUT past its first 32 MiB is spooled (a temporary file deleted as it is made); /tmp when unset.",
        ),
        (
            "HTTPS_PROXY, HTTP_PROXY, NO_PROXY",
            "breach download and update: the proxy to fetch ranges through, and the hosts reached directly, as curl reads them.",
        ),
    ],
    examples: &[
        ("Make a key file", "veilkit keygen -o veilkit.key"),
        (
            "Rotate: add a new current key",
            "veilkit keygen --add veilkit.key",
        ),
    ],
};

/// Formats a command's examples for the end of its `--help`.
pub fn examples_help(extra: &ManExtra) -> String {
    let mut s = String::from("Examples:\n");
    for (what, cmd) in extra.examples {
        s.push_str(&format!("  # {what}\n  {cmd}\n"));
    }
    s.pop();
    s
}
