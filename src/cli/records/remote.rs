//! FILE of the reading commands (`get`, `open`, `info`, `verify`) as a path or an
//! `http(s)://` URL read by range, and `--pin`.

use super::{RecoveryArgs, Secrets, open_file, records_error};
use crate::records::RecordsError;
use crate::records::file::RecordFile;
use crate::records::pin::Pins;
use crate::remote::RemoteFile;
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::sync::Arc;

// How a FILE at a URL is read, and pins.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RemoteArgs {
    /// For a FILE at a URL: requests in flight at most (batch gets, open, verify).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 64,
        value_parser = clap::value_parser!(u16).range(1..=1024),
        help_heading = "Files at a URL"
    )]
    pub parallel: u16,

    /// For an https:// FILE: trust the CA certificates in this PEM file too (a private
    /// CA's), beside the system's.
    #[arg(long, value_name = "PEM", help_heading = "Files at a URL")]
    pub cacert: Option<PathBuf>,

    /// For an s3:// FILE: the S3-compatible store's URL (addressed in path style), instead
    /// of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS's own for the region.
    #[arg(long, value_name = "URL", help_heading = "Files at a URL")]
    pub endpoint: Option<String>,

    /// Remember in PIN the highest commit each record file has shown, and refuse a copy
    /// older than that (storage serving an old copy again). Created when missing.
    #[arg(long, value_name = "PIN", help_heading = "Files at a URL")]
    pub pin: Option<PathBuf>,
}

/// A record file to read: at a path, or at a URL (opened: its first bytes fetched).
pub struct Reading {
    path: PathBuf,
    remote: Option<Arc<RemoteFile>>,
    /// The file as messages name it (a URL without credentials or query).
    pub shown: String,
    pin: Option<PathBuf>,
}

impl Reading {
    /// FILE as given: a URL is opened here (one request).
    pub fn new(file: &Path, args: &RemoteArgs) -> anyhow::Result<Reading> {
        let text = file
            .to_str()
            .filter(|s| crate::remote::is_url(s) || crate::remote::s3::is_s3(s));
        let remote = match text {
            None => None,
            Some(url) => {
                let cacert = super::super::input::read_cacert(args.cacert.as_deref())?;
                let options = crate::remote::Options {
                    parallel: usize::from(args.parallel),
                    cacert,
                    agent: "(records)",
                    ..crate::remote::Options::default()
                };
                let r = if crate::remote::s3::is_s3(url) {
                    let object = s3_object(url, args.endpoint.as_deref())?;
                    RemoteFile::open_object(&object, options)
                } else {
                    RemoteFile::open(url, options)
                };
                let r = r.map_err(remote_error)?;
                Some(Arc::new(r))
            }
        };
        let shown = match &remote {
            Some(r) => r.shown().to_string(),
            None => file.display().to_string(),
        };
        Ok(Reading {
            path: file.to_path_buf(),
            remote,
            shown,
            pin: args.pin.clone(),
        })
    }

    /// The header without a key (`records info`).
    pub fn peek(&self) -> Result<crate::records::file::Peek, RecordsError> {
        match &self.remote {
            Some(r) => crate::records::file::peek_at(crate::records::file::Source::Remote(r)),
            None => crate::records::file::peek(&self.path),
        }
    }

    /// Opens the file with `secrets`, read only, and checks it against the pin.
    pub fn open(&self, secrets: &Secrets, recovery: &RecoveryArgs) -> anyhow::Result<RecordFile> {
        let file = match &self.remote {
            None => open_file(&self.path, secrets, false, recovery)?,
            Some(r) => {
                let options = crate::records::file::OpenOptions {
                    writable: false,
                    previous_commit: recovery.previous_commit,
                };
                let blob = crate::records::file::Blob::Remote(r.clone());
                let f = RecordFile::open_blob(blob, &secrets.unlocks(), options)
                    .map_err(|e| records_error(e, &self.shown))?;
                super::warn_damage(&f, &self.shown, recovery);
                f
            }
        };
        if let Some(pin) = &self.pin {
            let (id, sequence) = file.commit_seen();
            check_pin(pin, id, sequence).with_context(|| self.shown.clone())?;
        }
        Ok(file)
    }
}

/// The object `s3://BUCKET/KEY`, reached as the environment and `endpoint` say.
pub fn s3_object(url: &str, endpoint: Option<&str>) -> anyhow::Result<crate::remote::s3::Object> {
    let var = |name: &str| std::env::var(name).ok();
    crate::remote::s3::Object::new(url, endpoint, &crate::remote::s3::Env { var: &var })
        .map_err(remote_error)
}

/// A remote error with a hint where one helps.
pub fn remote_error(e: crate::remote::RemoteError) -> anyhow::Error {
    use crate::remote::RemoteError as E;
    let hint = match &e {
        E::PasswordInUrl(_) => {
            Some("use a presigned or public URL, or put the file where no password is needed")
        }
        E::Status { status: 403, .. } => Some(
            "check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE) and the object's permissions; a presigned URL may have expired",
        ),
        _ => None,
    };
    match hint {
        Some(h) => super::super::report::with_hint(e, h),
        None => anyhow::Error::new(e),
    }
}

/// Checks commit `sequence` of file `id` against the pins in `path`, and raises them:
/// under the pin file's lock, rewritten atomically.
fn check_pin(path: &Path, id: [u8; 16], sequence: u64) -> anyhow::Result<()> {
    let shown = path.display();
    // Created empty when missing, then locked (a writer renames a new one over it: the
    // lock is taken on the file the path names once it is held).
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("--pin {shown}"))?;
    let mut lock = crate::streams::lock_current(path, false, 100).map_err(|e| {
        use crate::streams::LockError as L;
        match e {
            L::Open(e) | L::Lock(e) | L::Check(e) => {
                anyhow::Error::new(e).context(format!("--pin {shown}"))
            }
            L::Replaced => anyhow::anyhow!(
                "--pin {shown}: replaced again and again while waiting for its lock"
            ),
        }
    })?;
    let bytes = crate::streams::read_capped(&mut lock, crate::streams::SMALL_FILE_CAP)
        .with_context(|| format!("--pin {shown}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("--pin {shown}: not a pin file (not UTF-8 text)"))?;
    let mut pins = Pins::parse(&text).map_err(|e| anyhow::anyhow!("--pin {shown}: {e}"))?;
    let changed = pins.check(id, sequence).map_err(|e| {
        super::super::report::with_hint(
            e,
            format!(
                "if the file really went back (restored on purpose), remove its line from {shown}"
            ),
        )
    })?;
    if changed {
        let mut out = crate::streams::AtomicFile::create(
            path,
            crate::streams::AtomicOptions {
                overwrite: true,
                ..Default::default()
            },
        )
        .with_context(|| format!("--pin {shown}"))?;
        use std::io::Write;
        out.write_all(pins.to_text().as_bytes())
            .and_then(|()| out.flush())
            .with_context(|| format!("--pin {shown}"))?;
        out.commit().with_context(|| format!("--pin {shown}"))?;
    }
    drop(lock);
    Ok(())
}
