//! The state file: the highest counter reserved per machine id and width, shared by every
//! process on a machine under an advisory lock (`docs/NONCES.md`).

use super::{Mark, NonceError, Reserve, Width, next_range};
use crate::streams::{AtomicFile, AtomicOptions};
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

const HEADER: &str = "veilkit-nonce-state 1";

/// A state file at a path (created on first use, with its directory).
#[derive(Debug, Clone)]
pub struct StateFile {
    path: PathBuf,
}

impl StateFile {
    /// The state file at `path`.
    pub fn new(path: impl Into<PathBuf>) -> StateFile {
        StateFile { path: path.into() }
    }

    /// The default location: `$XDG_STATE_HOME/veilkit/nonce-state`, else
    /// `$HOME/.local/state/veilkit/nonce-state`.
    pub fn default_path() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_STATE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| Path::new(&h).join(".local/state"))
            })?;
        Some(base.join("veilkit").join("nonce-state"))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, source: std::io::Error) -> NonceError {
        NonceError::State {
            path: self.path.display().to_string(),
            source,
        }
    }

    fn not_regular(&self) -> NonceError {
        NonceError::StateNotRegular {
            path: self.path.display().to_string(),
        }
    }

    fn lock(&self) -> Result<File, NonceError> {
        // Before anything is created beside it (`FILE.lock`): a device or pipe named as
        // the state file is refused, never replaced.
        match fs::metadata(&self.path) {
            Ok(m) if !m.is_file() => return Err(self.not_regular()),
            _ => {}
        }
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir(dir).map_err(|e| self.err(e))?;
        }
        let mut lock_path = self.path.clone().into_os_string();
        lock_path.push(".lock");
        let mut opts = OpenOptions::new();
        opts.create(true).truncate(false).write(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let f = opts.open(&lock_path).map_err(|e| self.err(e))?;
        f.lock().map_err(|e| self.err(e))?;
        Ok(f)
    }

    fn read(&self) -> Result<BTreeMap<(u32, u32), Mark>, NonceError> {
        // Non-blocking: opening a named pipe for reading would otherwise wait for a
        // writer before the check below could refuse it.
        let mut opts = OpenOptions::new();
        opts.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
        }
        let bytes = match opts.open(&self.path) {
            Ok(mut f) => {
                if !f.metadata().map_err(|e| self.err(e))?.file_type().is_file() {
                    // A state file is replaced by rename, which must never happen to a
                    // device, a pipe or a socket (`--state /dev/null` as root once
                    // replaced the system's /dev/null).
                    return Err(self.not_regular());
                }
                crate::streams::read_capped(&mut f, crate::streams::SMALL_FILE_CAP)
                    .map_err(|e| self.err(e))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(e) => return Err(self.err(e)),
        };
        let path = self.path.display().to_string();
        let bad = |line| NonceError::StateFormat {
            path: path.clone(),
            line,
        };
        let impossible = |line, why| NonceError::StateLine {
            path: path.clone(),
            line,
            why,
        };
        if bytes.is_empty() {
            // veilkit replaces the file whole, so an empty one was cut short by something
            // else (`> FILE`, a full disk, a file system's crash): read as fresh, it would
            // issue again every value reserved in it.
            return Err(NonceError::StateEmpty(path));
        }
        let text = std::str::from_utf8(&bytes).map_err(|_| bad(1))?;
        // Strict, as docs/NONCES.md says: every line (the last too) ends in `\n`, fields
        // are separated by single spaces, numbers are plain decimal digits without
        // leading zeros; anything else is an error naming its line, never guessed at.
        let Some(body) = text.strip_suffix('\n') else {
            return Err(bad(text.lines().count().max(1)));
        };
        let mut map = BTreeMap::new();
        for (i, line) in body.split('\n').enumerate() {
            if i == 0 {
                if line != HEADER {
                    return Err(bad(1));
                }
                continue;
            }
            let f: Vec<&str> = line.split(' ').collect();
            // MACHINE WIDTH C [CLOCK]: the clock mark is optional (none: 0).
            let parsed = (matches!(f.len(), 3 | 4) && f.iter().all(|n| is_decimal(n)))
                .then(|| {
                    Some((
                        f[0].parse::<u32>().ok()?,
                        f[1].parse::<u32>().ok()?,
                        f[2].parse::<u128>().ok()?,
                        match f.get(3) {
                            Some(t) => t.parse::<u64>().ok()?,
                            None => 0,
                        },
                    ))
                })
                .flatten();
            let (m, w, highest, at_ts) = parsed.ok_or_else(|| bad(i + 1))?;
            if m > super::MAX_MACHINE {
                return Err(impossible(i + 1, "machine id above 511"));
            }
            let width = Width::from_bits(w)
                .ok_or_else(|| impossible(i + 1, "width is not 64, 96 or 128"))?;
            if highest > width.max_c() {
                return Err(impossible(
                    i + 1,
                    "counter above the largest of its width (a damaged or foreign file)",
                ));
            }
            if at_ts >> super::TS_BITS != 0 {
                // Taken as "now", it would blame the clock for the file's damage.
                return Err(impossible(
                    i + 1,
                    "reservation time past the year 2164 (a damaged or foreign file)",
                ));
            }
            if map.insert((m, w), Mark { highest, at_ts }).is_some() {
                return Err(impossible(
                    i + 1,
                    "a second line for the same machine id and width",
                ));
            }
        }
        Ok(map)
    }

    fn write(&self, map: &BTreeMap<(u32, u32), Mark>) -> Result<(), NonceError> {
        let mut text = String::from(HEADER);
        text.push('\n');
        for ((m, w), mark) in map {
            text.push_str(&format!("{m} {w} {} {}\n", mark.highest, mark.at_ts));
        }
        let opts = AtomicOptions {
            overwrite: true,
            mode: 0o600,
            special: crate::streams::Special::Refuse,
        };
        let io = |e: crate::streams::OutputError| match e {
            crate::streams::OutputError::Io(e) => self.err(e),
            crate::streams::OutputError::NotRegular(_) => self.not_regular(),
            other => self.err(std::io::Error::other(other.to_string())),
        };
        let mut f = AtomicFile::create(&self.path, opts).map_err(io)?;
        f.write_all(text.as_bytes()).map_err(|e| self.err(e))?;
        f.commit().map_err(io)
    }
}

/// Whether `s` is a number as the state file writes them: decimal digits, no sign, no
/// leading zero (but `0` itself).
fn is_decimal(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) && (s == "0" || !s.starts_with('0'))
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

impl Reserve for StateFile {
    fn reserve(
        &mut self,
        machine: u32,
        width: Width,
        want: u128,
        floor: u128,
        now_ts: u64,
    ) -> Result<u128, NonceError> {
        let _lock = self.lock()?;
        let mut map = self.read()?;
        let key = (machine, width.bits());
        let (start, mark) =
            next_range(machine, map.get(&key).copied(), width, want, floor, now_ts)?;
        map.insert(key, mark);
        // Durable before any value of the range is issued: a crash wastes, never reuses.
        self.write(&map)?;
        Ok(start)
    }

    fn mark(&mut self, machine: u32, width: Width) -> Result<Option<Mark>, NonceError> {
        // The file is replaced by rename, so a read without the lock sees a whole file.
        Ok(self.read()?.get(&(machine, width.bits())).copied())
    }

    fn release(
        &mut self,
        machine: u32,
        width: Width,
        reserved: u128,
        keep: u128,
    ) -> Result<(), NonceError> {
        let _lock = self.lock()?;
        let mut map = self.read()?;
        if super::release_mark(map.get_mut(&(machine, width.bits())), reserved, keep) {
            self.write(&map)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
