//! Record files at a URL ([`crate::remote`]): the pages a batch of gets or a full read
//! will read, fetched many requests at a time before they are read, so that a lookup's
//! few dependent reads (directory, index, data pages) cost one round trip each for a
//! whole batch rather than for each key.

use super::RecordsError;
use super::codec::PageRef;
use super::io::Blob;
use super::read::RecordFile;
use crate::remote::{RemoteError, RemoteFile};
use std::sync::Arc;

/// Keys whose pages are fetched together: their pages stay well inside what a remote
/// file holds ([`crate::remote::Options::held_bytes`]) until the gets read them.
pub const KEYS_AT_ONCE: usize = 4096;

/// How many bytes of pages a full read fetches ahead.
pub const AHEAD_BYTES: usize = 8 << 20;

/// How many pages of `page_size` a full read fetches ahead.
pub fn ahead_pages(page_size: usize) -> usize {
    (AHEAD_BYTES / page_size.max(1)).max(1)
}

/// Rounds of fetches for one batch at most: a lookup reads the directory levels, an
/// index page, its overflow pages and data pages, one level a round; a batch past this
/// many rounds reads the rest one page at a time.
const MAX_ROUNDS: usize = 32;

impl RecordFile {
    /// The remote file, when this one is at a URL.
    pub fn remote(&self) -> Option<Arc<RemoteFile>> {
        match &self.file {
            Blob::Remote(r) => Some(r.clone()),
            Blob::Local(_) => None,
        }
    }

    /// For a file at a URL: fetches every page the gets of `keys` read, many requests
    /// at a time, so that [`RecordFile::get_batch`] and [`RecordFile::get_into`] then
    /// read them without a round trip each. The gets are walked with reads deferred:
    /// each round takes every unfinished lookup one page further, and fetches the pages
    /// they stopped at together. Failures other than a fetch's are left to the gets,
    /// which meet them again and report them in their order; a local file does nothing.
    pub fn fetch_for(&mut self, keys: &[&[u8]]) -> Result<(), RecordsError> {
        let Some(remote) = self.remote() else {
            return Ok(());
        };
        let mut pending: Vec<&[u8]> = keys.to_vec();
        let mut scratch = Vec::new();
        for _ in 0..MAX_ROUNDS {
            remote.set_deferring(true);
            pending.retain(|key| {
                scratch.clear();
                matches!(
                    self.get_into(key, &mut scratch),
                    Err(RecordsError::Remote(RemoteError::Deferred))
                )
            });
            remote.set_deferring(false);
            if !remote.fetch_deferred().map_err(RecordsError::Remote)? {
                break;
            }
        }
        Ok(())
    }

    /// For a file at a URL: fetches the pages `refs` name, many at a time (a full read
    /// asks for the next [`AHEAD_BYTES`] before reading them).
    pub(super) fn fetch_pages(&self, refs: &[PageRef]) -> Result<(), RecordsError> {
        self.reader().fetch_pages(refs)
    }
}

impl super::io::PageReader<'_> {
    /// For a file at a URL: fetches the pages `refs` name, many at a time; pages next to
    /// each other are one request. Nothing for a local file.
    pub fn fetch_pages(&self, refs: &[PageRef]) -> Result<(), RecordsError> {
        let super::io::Source::Remote(remote) = self.file else {
            return Ok(());
        };
        let size = self.page_size as u64;
        let ranges: Vec<(u64, u64)> = refs
            .iter()
            .filter_map(|r| {
                let at = self.offset(r.physical).ok()?;
                Some((at, at.checked_add(size)?))
            })
            .collect();
        remote.prefetch(&ranges).map_err(RecordsError::Remote)
    }
}
