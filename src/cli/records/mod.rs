//! `veilkit records`: encrypted record files and field-level encryption.

pub mod append;
pub mod decrypt_fields;
pub mod delete;
pub mod encrypt_fields;
pub mod get;
mod get_keys;
pub mod info;
pub mod open;
pub mod rekey;
pub mod remote;
pub mod seal;
pub mod verify;

use super::keysource::{ENV_KEY, ENV_KEY_FILE, KeyArgs};
use super::manual::{EXIT_PLAIN, ManExtra};
use super::report::{HintExt, Interrupted, hinted};
use super::signals;
use super::status::{Global, Status};
use crate::keys::Keyring;
use crate::records::RecordsError;
use crate::records::age::{Identity, Recipient};
use crate::records::file::RecordFile;
use crate::records::format::{ARGON_DEFAULT, InputFormat, Unlock};
use anyhow::Context;
use clap::Subcommand;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// One line for the command list.
pub const ABOUT: &str =
    "Encrypt record files at rest and still fetch one record by key in microseconds";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Encrypt record files (lines, CSV/TSV rows, JSON lines) at rest with \
authenticated AES (AES-256-GCM-SIV pages under a random data key wrapped by key slots), and \
still fetch one record by key or number by decrypting two or three pages. Append, supersede \
and delete records in place, crash-safely. Encrypt only the sensitive columns of a CSV, with \
keyed tokens for equality lookups and joins.

An observer of a sealed file learns its size, and nothing else: keys, values, record \
boundaries and the index are all inside encrypted pages. A wrong key, a damaged or \
tampered page, a truncated file: each is a clear error, never garbage. The format is \
specified in docs/RECORDS-FORMAT.md.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: ENV_PASSPHRASE,
    examples: &[
        (
            "Seal a CSV keyed by its id column",
            "veilkit records seal customers.csv --key-field id -o customers.vkr --key-file k.key",
        ),
        (
            "Fetch two records",
            "veilkit records get customers.vkr 1042 77 --key-file k.key",
        ),
        (
            "Encrypt two columns of a stream, with a token column for joins",
            "veilkit records encrypt-fields --fields email,ssn --token-fields email < in.csv > out.csv",
        ),
    ],
};

/// The passphrase-file variable, in ENVIRONMENT sections.
pub const ENV_PASSPHRASE: &[(&str, &str)] = &[(
    "VEILKIT_PASSPHRASE_FILE",
    "A file whose first line is the passphrase, as with --passphrase-file.",
)];

/// The environment of the commands that read a whole INPUT (seal, append).
pub const ENV_INPUT: &[(&str, &str)] = &[
    ENV_PASSPHRASE[0],
    (
        "TMPDIR",
        "Where a piped INPUT past its first 32 MiB is spooled (a temporary file deleted as it is made); /tmp when unset.",
    ),
];

// Arguments of `veilkit records`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::manual::examples_help(&MAN))]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

// The records subcommands.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    #[command(about = seal::ABOUT, long_about = seal::LONG_ABOUT)]
    Seal(seal::Args),
    #[command(about = open::ABOUT, long_about = open::LONG_ABOUT)]
    Open(open::Args),
    #[command(about = get::ABOUT, long_about = get::LONG_ABOUT)]
    Get(get::Args),
    #[command(about = append::ABOUT, long_about = append::LONG_ABOUT)]
    Append(append::Args),
    #[command(about = delete::ABOUT, long_about = delete::LONG_ABOUT)]
    Delete(delete::Args),
    #[command(about = rekey::ABOUT, long_about = rekey::LONG_ABOUT)]
    Rekey(rekey::Args),
    #[command(about = verify::ABOUT, long_about = verify::LONG_ABOUT)]
    Verify(verify::Args),
    #[command(about = info::ABOUT, long_about = info::LONG_ABOUT)]
    Info(info::Args),
    #[command(about = encrypt_fields::ABOUT, long_about = encrypt_fields::LONG_ABOUT)]
    EncryptFields(encrypt_fields::Args),
    #[command(about = decrypt_fields::ABOUT, long_about = decrypt_fields::LONG_ABOUT)]
    DecryptFields(decrypt_fields::Args),
}

/// Runs `veilkit records ...`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    match &args.command {
        Command::Seal(a) => seal::run(a, global),
        Command::Open(a) => open::run(a, global),
        Command::Get(a) => get::run(a, global),
        Command::Append(a) => append::run(a, global),
        Command::Delete(a) => delete::run(a, global),
        Command::Rekey(a) => rekey::run(a, global),
        Command::Verify(a) => verify::run(a, global),
        Command::Info(a) => info::run(a, global),
        Command::EncryptFields(a) => encrypt_fields::run(a, global),
        Command::DecryptFields(a) => decrypt_fields::run(a, global),
    }
}

// How a record file is unlocked: a key file, a passphrase, or both.
#[derive(Debug, Clone, clap::Args)]
pub struct SecretArgs {
    #[command(flatten)]
    pub key: KeyArgs,

    /// Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new
    /// key slot).
    #[arg(long, help_heading = "Keys")]
    pub passphrase: bool,

    /// Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open
    /// descriptor).
    #[arg(
        long,
        value_name = "PATH",
        env = "VEILKIT_PASSPHRASE_FILE",
        hide_env_values = true,
        help_heading = "Keys"
    )]
    pub passphrase_file: Option<PathBuf>,

    /// An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#`
    /// comments); opens the file's age recipient slots. Repeatable.
    #[arg(long, value_name = "PATH", help_heading = "Keys")]
    pub identity: Vec<PathBuf>,

    /// Accept a new passphrase that is among the 30,000 most common passwords (refused
    /// otherwise, with its rank).
    #[arg(long, help_heading = "Keys")]
    pub weak_ok: bool,
}

// Public keys that may open a record file without being able to write or read it
// here: age X25519 recipients.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RecipientArgs {
    /// Add a key slot for an age X25519 recipient (age1..., as `age-keygen` prints it);
    /// repeatable. Its identity opens the file; the recipient alone cannot.
    #[arg(short, long, value_name = "AGE1...", help_heading = "Recipients")]
    pub recipient: Vec<String>,

    /// Add a key slot for each recipient in PATH (one per line; blank lines and `#`
    /// comments skipped, as `age -R` reads it); repeatable.
    #[arg(long, value_name = "PATH", help_heading = "Recipients")]
    pub recipients_file: Vec<PathBuf>,
}

impl RecipientArgs {
    /// Whether any recipient was given.
    pub fn any(&self) -> bool {
        !self.recipient.is_empty() || !self.recipients_file.is_empty()
    }

    /// The recipients given, in order, duplicates dropped.
    pub fn load(&self) -> anyhow::Result<Vec<Recipient>> {
        let mut out: Vec<Recipient> = Vec::new();
        for r in &self.recipient {
            out.push(Recipient::parse(r).map_err(|e| anyhow::anyhow!("--recipient: {e}"))?);
        }
        for path in &self.recipients_file {
            let shown = super::output::display_path(path);
            let bytes = super::input::read_small(path, "the recipients (--recipients-file -)")
                .with_context(|| format!("recipients file {shown}"))?;
            let text = std::str::from_utf8(&bytes)
                .map_err(|_| anyhow::anyhow!("recipients file {shown}: not UTF-8 text"))?;
            out.extend(
                crate::records::age::parse_recipients(text)
                    .map_err(|e| anyhow::anyhow!("recipients file {shown}: {e}"))?,
            );
        }
        let mut seen = Vec::new();
        out.retain(|r| {
            let new = !seen.contains(r);
            seen.push(*r);
            new
        });
        Ok(out)
    }
}

/// Reads age identity files; an error names the file and line, never the text.
pub fn load_identities(paths: &[PathBuf]) -> anyhow::Result<Vec<Identity>> {
    let mut out = Vec::new();
    for path in paths {
        let shown = super::output::display_path(path);
        let bytes = Zeroizing::new(
            super::input::read_small(path, "the identity (--identity -)")
                .with_context(|| format!("identity file {shown}"))?,
        );
        if bytes.starts_with(b"age-encryption.org/") {
            // Binary after its first lines: not UTF-8, but not a reason to say only that.
            anyhow::bail!(
                "identity file {shown}: an age-encrypted file (an identity encrypted with a passphrase, age -p, or another age file), not an identity file: decrypt it first, for example to a pipe: --identity <(age -d {shown})"
            );
        }
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| anyhow::anyhow!("identity file {shown}: not UTF-8 text"))?;
        let ids = crate::records::age::parse_identities(text)
            .map_err(|e| anyhow::anyhow!("identity file {shown}: {e}"))?;
        if ids.is_empty() {
            anyhow::bail!("identity file {shown}: no identity in it (AGE-SECRET-KEY-1... lines)");
        }
        out.extend(ids);
    }
    Ok(out)
}

// Argon2id parameters of new passphrase slots.
#[derive(Debug, Clone, clap::Args)]
pub struct KdfArgs {
    /// Argon2id memory of a new passphrase slot, in MiB (at most 1024).
    #[arg(long, value_name = "MIB", default_value_t = ARGON_DEFAULT.0 / 1024, help_heading = "Keys")]
    pub argon2_memory: u32,

    /// Argon2id passes of a new passphrase slot (at most 10).
    #[arg(long, value_name = "N", default_value_t = ARGON_DEFAULT.1, help_heading = "Keys")]
    pub argon2_passes: u32,
}

impl KdfArgs {
    /// (memory KiB, passes, lanes).
    pub fn params(&self) -> (u32, u32, u32) {
        (
            self.argon2_memory.saturating_mul(1024),
            self.argon2_passes,
            ARGON_DEFAULT.2,
        )
    }
}

/// The secrets given.
pub struct Secrets {
    /// A keyring.
    pub ring: Option<Keyring>,
    /// A passphrase.
    pub passphrase: Option<Zeroizing<Vec<u8>>>,
    /// Argon2id parameters for new slots.
    pub params: (u32, u32, u32),
    /// age identities.
    pub identities: Vec<Identity>,
}

impl Secrets {
    /// The secrets as unlocks, keyring first.
    pub fn unlocks(&self) -> Vec<Unlock<'_>> {
        let mut u = Vec::new();
        if let Some(r) = &self.ring {
            u.push(Unlock::Keyring(r));
        }
        if let Some(p) = &self.passphrase {
            u.push(Unlock::Passphrase(p, self.params));
        }
        if !self.identities.is_empty() {
            u.push(Unlock::Identities(&self.identities));
        }
        u
    }
}

/// Refuses a new passphrase found in the embedded list of common passwords (compared
/// ignoring case, as the list is lower case), unless `weak_ok`.
pub fn check_new_passphrase(passphrase: &[u8], weak_ok: bool) -> anyhow::Result<()> {
    match crate::breach::common::rank_ignoring_case(passphrase) {
        Some(rank) if !weak_ok => Err(super::report::hinted(
            format!(
                "the new passphrase is number {rank} of the 30,000 most common passwords: \
                 a guesser tries it within seconds, Argon2id or not"
            ),
            "choose another (a few random words), or pass --weak-ok to use it anyway",
        )),
        _ => Ok(()),
    }
}

/// Reads a passphrase: the first line of a file, or a hidden prompt (twice when
/// `confirm`, which also means a new slot: a common password is refused unless
/// `weak_ok`).
pub fn read_passphrase(
    file: Option<&Path>,
    prompt: bool,
    confirm: bool,
    what: &str,
    weak_ok: bool,
) -> anyhow::Result<Option<Zeroizing<Vec<u8>>>> {
    let p = read_passphrase_unchecked(file, prompt, confirm, what)?;
    if confirm && let Some(p) = &p {
        check_new_passphrase(p, weak_ok)?;
    }
    Ok(p)
}

fn read_passphrase_unchecked(
    file: Option<&Path>,
    prompt: bool,
    confirm: bool,
    what: &str,
) -> anyhow::Result<Option<Zeroizing<Vec<u8>>>> {
    if let Some(path) = file {
        let bytes = super::input::read_small(path, "the passphrase (--passphrase-file -)")
            .with_context(|| format!("passphrase file {}", super::output::display_path(path)))?;
        let line = bytes.split(|&c| c == b'\n').next().unwrap_or_default();
        let line = crate::streams::strip_line_end(line);
        if line.is_empty() {
            anyhow::bail!(
                "passphrase file {}: the first line is empty",
                path.display()
            );
        }
        return Ok(Some(Zeroizing::new(line.to_vec())));
    }
    if !prompt {
        return Ok(None);
    }
    let first = prompt_hidden(&format!("{what}: "))?;
    if first.is_empty() {
        anyhow::bail!("empty passphrase");
    }
    if confirm {
        let second = prompt_hidden(&format!("Repeat {}: ", what.to_lowercase()))?;
        if first != second {
            anyhow::bail!("the passphrases do not match");
        }
    }
    Ok(Some(first))
}

fn prompt_hidden(prompt: &str) -> anyhow::Result<Zeroizing<Vec<u8>>> {
    signals::save_tty(std::io::stdin());
    let read = rpassword::prompt_password(prompt);
    signals::restore_tty();
    match read {
        Ok(p) => Ok(Zeroizing::new(p.into_bytes())),
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
            Err(anyhow::Error::new(Interrupted))
        }
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            Err(anyhow::anyhow!("no passphrase given (end of input)"))
        }
        Err(e) => Err(anyhow::Error::new(e).context("terminal"))
            .hint("--passphrase needs a terminal; scripts use --passphrase-file PATH"),
    }
}

impl SecretArgs {
    /// Loads the secrets given; `creating` asks for a new passphrase twice. The key
    /// variables are used only when no key file, passphrase or identity is given.
    /// `recipients`: age recipients were given, which may be the only slots of a new
    /// file.
    pub fn load(
        &self,
        creating: bool,
        params: (u32, u32, u32),
        recipients: bool,
    ) -> anyhow::Result<Secrets> {
        let passphrase = read_passphrase(
            self.passphrase_file.as_deref(),
            self.passphrase,
            creating,
            "Passphrase",
            self.weak_ok,
        )?;
        let env_key = [ENV_KEY_FILE, ENV_KEY]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
        let identities = load_identities(&self.identity)?;
        let others = passphrase.is_some() || !identities.is_empty() || recipients;
        let ring = if self.key.key_file.is_some() || (!others && env_key) {
            Some(self.key.load()?)
        } else {
            None
        };
        if ring.is_none() && passphrase.is_none() && identities.is_empty() && !recipients {
            return Err(hinted(
                "no key, passphrase or identity given",
                "pass --key-file PATH, --passphrase or --passphrase-file PATH, or --identity PATH, or set VEILKIT_KEY_FILE or VEILKIT_KEY",
            ));
        }
        Ok(Secrets {
            ring,
            passphrase,
            params,
            identities,
        })
    }
}

// What to do about a damaged header copy.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RecoveryArgs {
    /// For a format-1 file whose newer header copy is damaged: use the intact copy, which
    /// may hold the commit before the last (its changes would then be missing).
    #[arg(long, help_heading = "Damage")]
    pub previous_commit: bool,
}

/// Opens a record file with the secrets given, with a hint for each kind of failure and
/// a warning when a header copy is damaged.
pub fn open_file(
    path: &Path,
    secrets: &Secrets,
    writable: bool,
    recovery: &RecoveryArgs,
) -> anyhow::Result<RecordFile> {
    if let Some(url) = path
        .to_str()
        .filter(|s| crate::remote::is_url(s) || crate::remote::s3::is_s3(s))
    {
        // Only writers come here with a URL: readers go through remote::Reading.
        let shown = reqwest::Url::parse(url)
            .map(|u| crate::remote::shown(&u))
            .unwrap_or_else(|_| crate::remote::http::without_userinfo(url));
        return Err(hinted(
            format!(
                "{shown}: a record file at a URL is read only: append, delete and rekey change a local file"
            ),
            "download it (curl -o copy.vkr URL), update the copy, and publish it as a new file: upload it under a new name, or in place of the old one by a rename on the server (docs/RECORDS-FORMAT.md, \"Files at a URL\")",
        ));
    }
    let shown = path.display().to_string();
    let options = crate::records::file::OpenOptions {
        writable,
        previous_commit: recovery.previous_commit,
    };
    let file = RecordFile::open_with(path, &secrets.unlocks(), options)
        .map_err(|e| records_error(e, &shown))?;
    warn_damage(&file, &shown, recovery);
    Ok(file)
}

/// Warns when `file` opened from its intact header copy, the other being damaged.
pub fn warn_damage(file: &RecordFile, shown: &str, recovery: &RecoveryArgs) {
    if let Some(e) = file.damage_error() {
        let why = if recovery.previous_commit {
            "as asked (--previous-commit): the changes of the last commit may be missing"
        } else {
            "reading the intact copy"
        };
        let e = super::report::with_causes(&e);
        super::report::warn(format!("{shown}: {e}; {why}"));
    }
}

/// Converts a library error into one with context and, where useful, a hint.
pub fn records_error(e: RecordsError, shown: &str) -> anyhow::Error {
    let hint = match &e {
        RecordsError::WrongKey => Some(format!(
            "`veilkit records info {shown}` lists the file's key slots"
        )),
        RecordsError::PageAuth { .. } | RecordsError::CorruptHeader | RecordsError::Truncated => {
            Some(
                "restore the file from a backup; nothing read from it was printed as good"
                    .to_string(),
            )
        }
        RecordsError::Newer(_) => Some("upgrade veilkit".to_string()),
        RecordsError::DamagedCopy { kept, .. } => Some(format!(
            "pass --previous-commit to use copy {kept} anyway (nothing is written until a later update), or restore the file from a backup"
        )),
        RecordsError::CopyDamaged { .. } => Some(
            "reads use the intact copy; the next append, delete or rekey rewrites both copies"
                .to_string(),
        ),
        RecordsError::OpenWrite(io) if io.kind() == std::io::ErrorKind::PermissionDenied => Some(
            "append, delete and rekey change the file in place: they need write permission on it"
                .to_string(),
        ),
        _ => None,
    };
    let err = anyhow::Error::new(e).context(shown.to_string());
    match hint {
        Some(h) => match Err::<(), _>(err).hint(h) {
            Err(e) => e,
            Ok(()) => unreachable!("an error stays an error"),
        },
        None => err,
    }
}

/// `--input-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// One record per line, keyed by its number from 1.
    Lines,
    /// Comma-separated values with RFC 4180 quoting.
    Csv,
    /// Tab-separated values, no quoting.
    Tsv,
    /// JSON lines (one object per line).
    Jsonl,
}

impl FormatArg {
    /// The library's format.
    pub fn format(self) -> InputFormat {
        match self {
            FormatArg::Lines => InputFormat::Lines,
            FormatArg::Csv => InputFormat::Csv,
            FormatArg::Tsv => InputFormat::Tsv,
            FormatArg::Jsonl => InputFormat::Jsonl,
        }
    }

    /// The format a file name suggests: by extension, else lines.
    pub fn from_path(path: &Path) -> FormatArg {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("csv") => FormatArg::Csv,
            Some("tsv" | "tab") => FormatArg::Tsv,
            Some("jsonl" | "ndjson") => FormatArg::Jsonl,
            _ => FormatArg::Lines,
        }
    }
}
