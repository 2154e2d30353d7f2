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
    /// Returns the rounds that fetched pages (round trips, for a batch that fits the
    /// requests in flight).
    pub fn fetch_for(&mut self, keys: &[&[u8]]) -> Result<usize, RecordsError> {
        let Some(remote) = self.remote() else {
            return Ok(0);
        };
        let mut rounds = 0;
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
            rounds += 1;
        }
        Ok(rounds)
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

#[cfg(test)]
mod tests {
    use super::super::file::{Blob, OpenOptions};
    use super::super::format::{InputFormat, Unlock};
    use super::super::pages::{Kind, bucket_of, index_lookup};
    use super::super::tests::{seal_bytes, settings};
    use super::*;
    use crate::keys::Keyring;

    /// The distinct data pages a lookup of `key` meets in its bucket's index page (no
    /// overflow: `None` when the bucket has more than one page), and the one holding it.
    fn candidates(f: &mut RecordFile, key: &[u8]) -> Option<(Vec<u32>, u32)> {
        let token = f.keys.token(key);
        let layout = f.root.index_layout;
        let page = f
            .page(Kind::Index, u64::from(bucket_of(token, f.root.buckets)))
            .unwrap();
        let mut pages = Vec::new();
        let (_, next) = index_lookup(&page, layout, layout.tag(token), |d| {
            if pages.last() != Some(&d) {
                pages.push(d);
            }
            Ok(false)
        })
        .unwrap()
        .unwrap();
        let holder = pages
            .iter()
            .copied()
            .find(|&d| f.in_data_page(d, key).unwrap().is_some())?;
        (next == super::super::pages::NO_NEXT).then_some((pages, holder))
    }

    /// A key whose 16-bit tag other keys of its bucket share is walked with all its
    /// candidates in the same round: its cold get takes as many round trips as any
    /// other key's, not one more directory and data page round for each wrong page.
    #[test]
    fn a_tag_shared_in_a_bucket_costs_no_extra_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.vkr");
        let ring = Keyring::generate().unwrap();
        let csv: String = (0..20_000)
            .map(|i| format!("{i},name{i},user{i}@example.com\n"))
            .collect();
        let s = settings(InputFormat::Csv, "1", false, 4096);
        seal_bytes(&path, csv.as_bytes(), &s, &ring).unwrap();
        let unlocks = [Unlock::Keyring(&ring)];
        let mut local = RecordFile::open(&path, &unlocks, false).unwrap();
        assert!(local.root.buckets > 1 && local.root.index_layout.tag_bytes == 2);
        // Keys of one candidate page, and keys held by a later candidate than the first.
        let (mut plain, mut shared) = (Vec::new(), Vec::new());
        for i in 0..20_000u32 {
            let key = i.to_string();
            match candidates(&mut local, key.as_bytes()) {
                Some((pages, _)) if pages.len() == 1 && plain.len() < 4 => plain.push(key),
                Some((pages, holder)) if pages[0] != holder && shared.len() < 6 => shared.push(key),
                _ => {}
            }
        }
        assert!(
            shared.len() == 6 && plain.len() == 4,
            "{shared:?} {plain:?}"
        );
        let (url, _) = crate::remote::test_server::serve_bytes(std::fs::read(&path).unwrap());
        for key in plain.iter().chain(&shared) {
            let remote =
                crate::remote::RemoteFile::open(&url, crate::remote::Options::default()).unwrap();
            let options = OpenOptions {
                writable: false,
                previous_commit: false,
            };
            let mut f =
                RecordFile::open_blob(Blob::Remote(Arc::new(remote)), &unlocks, options).unwrap();
            let rounds = f.fetch_for(&[key.as_bytes()]).unwrap();
            // Each level of index directory pages, the index page, each level of data
            // directory pages, the data pages: one round each.
            let levels = usize::from(f.root.index.depth) + usize::from(f.root.data.depth);
            assert_eq!(rounds, levels + 2, "{key}");
            assert_eq!(
                f.get(key.as_bytes()).unwrap(),
                local.get(key.as_bytes()).unwrap()
            );
        }
    }
}
