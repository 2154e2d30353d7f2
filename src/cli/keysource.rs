//! Where a command's key comes from: `--key-file PATH`, else `VEILKIT_KEY_FILE` (a path),
//! else `VEILKIT_KEY` (the key text). Never a flag holding the key itself.

use super::report::{HintExt, hinted, warn};
use crate::keys::Keyring;
use anyhow::Context;
use std::path::{Path, PathBuf};

/// The environment variable naming a key file.
pub const ENV_KEY_FILE: &str = "VEILKIT_KEY_FILE";
/// The environment variable holding key text (for containers).
pub const ENV_KEY: &str = "VEILKIT_KEY";

// Key options shared by every command that needs a key.
#[derive(Debug, Clone, clap::Args)]
pub struct KeyArgs {
    /// Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input,
    /// `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then
    /// $VEILKIT_KEY (the key text itself).
    #[arg(long, value_name = "PATH", help_heading = "Keys")]
    pub key_file: Option<PathBuf>,
}

impl KeyArgs {
    /// Loads the keyring from the first source that is set.
    pub fn load(&self) -> anyhow::Result<Keyring> {
        if let Some(path) = &self.key_file {
            return load_file(path);
        }
        if let Some(path) = std::env::var_os(ENV_KEY_FILE).filter(|v| !v.is_empty()) {
            return load_file(Path::new(&path)).with_context(|| format!("${ENV_KEY_FILE}"));
        }
        if let Some(text) = std::env::var_os(ENV_KEY).filter(|v| !v.is_empty()) {
            let text = zeroize::Zeroizing::new(
                text.into_string()
                    .map_err(|_| anyhow::anyhow!("${ENV_KEY}: key text is not valid UTF-8"))?,
            );
            return parse(
                &text,
                format!("${ENV_KEY}"),
                "$VEILKIT_KEY must hold the text of a key file made by `veilkit keygen`",
            );
        }
        Err(hinted(
            "key: no key given",
            "pass --key-file PATH, or set VEILKIT_KEY_FILE or VEILKIT_KEY; \
             make a key with `veilkit keygen -o veilkit.key`",
        ))
    }
}

/// Reads and parses a key file, warning when others may read it.
pub fn load_file(path: &Path) -> anyhow::Result<Keyring> {
    let shown = super::output::display_path(path);
    let bytes = super::input::read_small(path, "the key (--key-file -)")
        .with_context(|| format!("key file {shown}"))?;
    warn_if_exposed(path);
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| anyhow::anyhow!("key file {shown}: not a text file"))?;
    parse(
        text,
        format!("key file {shown}"),
        "key files are made by `veilkit keygen`; restore this one from your backup",
    )
}

/// Parses key text, naming its source `what`; `hint` goes with an error unless the error
/// says itself what to do.
fn parse(text: &str, what: String, hint: &str) -> anyhow::Result<Keyring> {
    match Keyring::parse(text) {
        Ok(ring) => Ok(ring),
        Err(e) if e.says_what_to_do() => Err(anyhow::Error::new(e).context(what)),
        Err(e) => Err(anyhow::Error::new(e).context(what)).hint(hint),
    }
}

fn warn_if_exposed(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path) {
            let ft = meta.file_type();
            // Pipes and descriptors (/dev/fd/N) have no meaningful mode.
            if ft.is_file() && meta.permissions().mode() & 0o077 != 0 {
                warn(format!(
                    "key file {} can be read by other users; run: chmod 600 {}",
                    path.display(),
                    path.display()
                ));
            }
        }
    }
}
