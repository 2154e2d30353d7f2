//! Many gets at once (`records get --keys FILE`): the same answers as one get after
//! another, with each data page a batch needs read and decrypted once, in page order,
//! and not kept.
//!
//! Why: a batch of random keys over a large file touches nearly every data page a few
//! times. One get after another keeps every page it decrypts, so a short process fills a
//! cache as large as the file with memory it touches for the first time (on a virtual
//! machine whose host takes back free memory, the costliest part of the batch). Here the
//! keys' index pages are read first (the index is a small part of the file), then the
//! candidates are taken in data page order, and the records found are copied out.
//!
//! A key whose answer this cannot give in one pass (a bucket with overflow pages, a
//! file without an index, the batch's record bytes over [`VALUES_BUDGET`], more
//! candidates than the batch holds) is looked up
//! by [`RecordFile::get_into`] in its turn, so answers and errors are exactly those of
//! one get after another: the answers of the keys before the first one that fails, then
//! that key's error.

use super::RecordsError;
use super::pages::{Kind, NO_NEXT, bucket_of, find_in_data, index_lookup, parse_data, same_key};
use super::read::RecordFile;
use std::ops::Range;

/// The most bytes of records one batch copies out in its page-ordered pass; keys found
/// past it are looked up one by one.
const VALUES_BUDGET: usize = 64 << 20;

/// Why a batch stopped: a key's lookup failed, or the caller's `emit` did.
#[derive(Debug)]
pub enum BatchError<E> {
    /// The lookup of the key after the last one emitted.
    Records(RecordsError),
    /// `emit`'s own error.
    Emit(E),
}

/// A data page that may hold a key (an index entry with the key's tag).
struct Candidate {
    page: u32,
    key: u32,
}

/// What a candidate page said of its key.
enum Said {
    Found(Range<usize>),
    NotHere,
    /// The page failed (an index into the batch's errors).
    Failed(usize),
    /// Not looked at (the values budget ran out first).
    Unread,
}

impl RecordFile {
    /// Calls `emit` with the record of each of `keys` in turn (`None`: no such record),
    /// as [`RecordFile::get_into`] called for each would find them. On a failed lookup,
    /// the keys before it have been emitted and its error is returned.
    pub fn get_batch<E>(
        &mut self,
        keys: &[&[u8]],
        emit: impl FnMut(Option<&[u8]>) -> Result<(), E>,
    ) -> Result<(), BatchError<E>> {
        let cap = keys.len().saturating_mul(4).saturating_add(4096);
        self.get_batch_within(keys, VALUES_BUDGET, cap, emit)
    }

    /// [`RecordFile::get_batch`], copying out at most about `budget` bytes of records
    /// in the page-ordered pass and holding at most `cap` candidates.
    fn get_batch_within<E>(
        &mut self,
        keys: &[&[u8]],
        budget: usize,
        cap: usize,
        mut emit: impl FnMut(Option<&[u8]>) -> Result<(), E>,
    ) -> Result<(), BatchError<E>> {
        // Phase 1, in key order: each key's candidates in its bucket's first index page.
        let mut candidates: Vec<Candidate> = Vec::with_capacity(keys.len() + keys.len() / 8);
        let mut whole = vec![self.root.buckets != 0; keys.len()];
        let mut stop: Option<(usize, RecordsError)> = None;
        if self.root.buckets != 0 {
            let layout = self.root.index_layout;
            // Tags are keyed hashes, so a key has about one candidate; past `cap` in
            // all, keys are left to one get each (memory stays bounded).
            for (i, key) in keys.iter().enumerate() {
                let token = self.keys.token(key);
                let bucket = bucket_of(token, self.root.buckets);
                let mut full = false;
                let found = self.page(Kind::Index, u64::from(bucket)).and_then(|page| {
                    index_lookup(&page, layout, layout.tag(token), |data| {
                        if candidates.len() < cap {
                            candidates.push(Candidate {
                                page: data,
                                key: i as u32,
                            });
                        } else {
                            full = true;
                        }
                        Ok(false)
                    })
                });
                match found {
                    Ok(Some((_, next))) => whole[i] = next == NO_NEXT && !full,
                    Ok(None) => {
                        stop = Some((i, RecordsError::Corrupt("an index page does not parse")));
                        break;
                    }
                    Err(e) => {
                        stop = Some((i, e));
                        break;
                    }
                }
            }
        }
        // Phase 2, in data page order: each candidate page read once.
        let mut said: Vec<Said> = Vec::with_capacity(candidates.len());
        said.resize_with(candidates.len(), || Said::Unread);
        let mut errors: Vec<Option<RecordsError>> = Vec::new();
        let mut by_page: Vec<u32> = (0..candidates.len() as u32).collect();
        by_page.sort_unstable_by_key(|&c| (candidates[c as usize].page, c));
        let mut values: Vec<u8> = Vec::new();
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut at = 0;
        while at < by_page.len() && values.len() <= budget {
            let page = candidates[by_page[at] as usize].page;
            let end = at
                + by_page[at..]
                    .iter()
                    .take_while(|&&c| candidates[c as usize].page == page)
                    .count();
            let group = &by_page[at..end];
            at = end;
            let mut each = |bytes: &[u8]| {
                // Several keys in one page: its records parsed once (a page that does
                // not parse to its end is scanned for each key, as a get scans it).
                let recs = if group.len() > 1 {
                    parse_data(bytes)
                } else {
                    None
                };
                for &c in group {
                    let key = keys[candidates[c as usize].key as usize];
                    let found = match &recs {
                        Some(recs) => Some(
                            recs.iter()
                                .find(|r| same_key(r.key(bytes), key))
                                .map(|r| &bytes[r.raw.clone()]),
                        ),
                        None => find_in_data(bytes, key),
                    };
                    said[c as usize] = match found {
                        None => {
                            errors.push(Some(RecordsError::Corrupt("a data page does not parse")));
                            Said::Failed(errors.len() - 1)
                        }
                        Some(None) => Said::NotHere,
                        Some(Some(raw)) => {
                            let start = values.len();
                            values.extend_from_slice(raw);
                            Said::Found(start..values.len())
                        }
                    };
                }
            };
            let logical = u64::from(page);
            let read = if let Some(p) = self.cache.get((Kind::Data as u8, logical)) {
                each(&p);
                Ok(())
            } else {
                self.page_ref(Kind::Data, logical).and_then(|r| {
                    self.reader()
                        .with_page(Kind::Data, logical, &r, &mut scratch, |p| each(p))
                })
            };
            if let Err(e) = read {
                // Every key that reaches this page fails with its error; the first of
                // them in key order is the one returned, the batch's first failure.
                errors.push(Some(e));
                for &c in group {
                    said[c as usize] = Said::Failed(errors.len() - 1);
                }
            }
        }
        self.scratch = scratch;
        // Phase 3, in key order: each key's first candidate that holds it, or a get.
        let limit = stop.as_ref().map_or(keys.len(), |(i, _)| *i);
        let mut said = said.into_iter().zip(&candidates).peekable();
        let mut one = Vec::new();
        for (i, key) in keys.iter().enumerate().take(limit) {
            let mut answer = None;
            let mut settled = whole[i];
            while let Some((s, _)) = said.next_if(|(_, c)| c.key as usize == i) {
                if answer.is_some() || !settled {
                    continue;
                }
                match s {
                    Said::Found(r) => answer = Some(r),
                    Said::NotHere => {}
                    Said::Failed(e) => {
                        let e = errors[e]
                            .take()
                            .unwrap_or(RecordsError::Corrupt("a data page does not parse"));
                        return Err(BatchError::Records(e));
                    }
                    Said::Unread => settled = false,
                }
            }
            if settled {
                emit(answer.map(|r| &values[r])).map_err(BatchError::Emit)?;
            } else {
                one.clear();
                let hit = self.get_into(key, &mut one).map_err(BatchError::Records)?;
                emit(hit.then_some(&one[..])).map_err(BatchError::Emit)?;
            }
        }
        match stop {
            Some((_, e)) => Err(BatchError::Records(e)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::file::RecordFile;
    use super::super::format::{InputFormat, Unlock};
    use super::super::tests::{append_csv, seal_bytes, settings};
    use super::BatchError;
    use crate::keys::Keyring;
    use proptest::prelude::*;
    use std::path::Path;

    fn csv(rows: &[(u16, u8)]) -> Vec<u8> {
        rows.iter()
            .map(|&(k, l)| format!("k{k},{}\n", "v".repeat(usize::from(l))))
            .collect::<String>()
            .into_bytes()
    }

    /// A file of `rows` (keys `k0`...), then `appended` added by a commit.
    fn file(path: &Path, ring: &Keyring, page: u32, rows: &[(u16, u8)], appended: &[(u16, u8)]) {
        let s = settings(InputFormat::Csv, "1", false, page);
        seal_bytes(path, &csv(rows), &s, ring).unwrap();
        if !appended.is_empty() {
            let mut f = RecordFile::open(path, &[Unlock::Keyring(ring)], true).unwrap();
            append_csv(&mut f, &csv(appended));
        }
    }

    /// What one get after another gives: the answers, then the error's text if any.
    fn one_by_one(
        path: &Path,
        ring: &Keyring,
        keys: &[Vec<u8>],
    ) -> (Vec<Option<Vec<u8>>>, Option<String>) {
        let mut f = match RecordFile::open(path, &[Unlock::Keyring(ring)], false) {
            Ok(f) => f,
            Err(e) => return (Vec::new(), Some(e.to_string())),
        };
        let mut out = Vec::new();
        for k in keys {
            match f.get(k) {
                Ok(v) => out.push(v),
                Err(e) => return (out, Some(e.to_string())),
            }
        }
        (out, None)
    }

    fn batched(
        path: &Path,
        ring: &Keyring,
        keys: &[Vec<u8>],
        (budget, cap): (usize, usize),
    ) -> (Vec<Option<Vec<u8>>>, Option<String>) {
        let mut f = match RecordFile::open(path, &[Unlock::Keyring(ring)], false) {
            Ok(f) => f,
            Err(e) => return (Vec::new(), Some(e.to_string())),
        };
        let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let mut out = Vec::new();
        let r = f.get_batch_within(&keys, budget, cap, |v| {
            out.push(v.map(<[u8]>::to_vec));
            Ok::<(), ()>(())
        });
        match r {
            Ok(()) => (out, None),
            Err(BatchError::Records(e)) => (out, Some(e.to_string())),
            Err(BatchError::Emit(())) => unreachable!("emit never fails here"),
        }
    }

    fn rows() -> impl Strategy<Value = Vec<(u16, u8)>> {
        proptest::collection::btree_map(0u16..3000, 0u8..120, 0..1500)
            .prop_map(|m| m.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        /// Present, absent and repeated keys, in any order, on files with and without an
        /// index, with appended records (overflow pages), through the page-ordered pass
        /// or, with no budget or few candidates held, one get after another: the same
        /// answers.
        #[test]
        fn a_batch_answers_as_one_get_after_another(
            rows in rows(),
            appended in proptest::collection::vec((3000u16..3400, 0u8..60), 0..300),
            asked in proptest::collection::vec(0u16..3500, 0..400),
            big_pages in any::<bool>(),
            limits in prop_oneof![
                Just((0usize, usize::MAX)),
                Just((usize::MAX, usize::MAX)),
                (Just(usize::MAX), 0usize..200),
            ],
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("b.vkr");
            let ring = Keyring::generate().unwrap();
            let mut seen = std::collections::HashSet::new();
            let appended: Vec<_> = appended.into_iter().filter(|(k, _)| seen.insert(*k)).collect();
            file(&path, &ring, if big_pages { 4096 } else { 512 }, &rows, &appended);
            let keys: Vec<Vec<u8>> = asked.iter().map(|k| format!("k{k}").into_bytes()).collect();
            let want = one_by_one(&path, &ring, &keys);
            prop_assert_eq!(want.1.as_deref(), None);
            prop_assert_eq!(batched(&path, &ring, &keys, limits), want);
        }

        /// A damaged page: the same answers up to the same key, then the same error.
        #[test]
        fn a_damaged_file_fails_at_the_same_key_with_the_same_error(
            at in any::<prop::sample::Index>(),
            bit in 0u8..8,
            asked in proptest::collection::vec(0u16..1200, 1..300),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("b.vkr");
            let ring = Keyring::generate().unwrap();
            let rows: Vec<(u16, u8)> = (0..1000).map(|k| (k, (k % 90) as u8)).collect();
            file(&path, &ring, 512, &rows, &[]);
            let mut bytes = std::fs::read(&path).unwrap();
            // Past the two header copies: a page.
            let first_page = 2 * super::super::format::COPY_SIZE;
            let i = first_page + at.index(bytes.len() - first_page);
            bytes[i] ^= 1 << bit;
            std::fs::write(&path, &bytes).unwrap();
            let keys: Vec<Vec<u8>> = asked.iter().map(|k| format!("k{k}").into_bytes()).collect();
            let want = one_by_one(&path, &ring, &keys);
            prop_assert_eq!(batched(&path, &ring, &keys, (usize::MAX, usize::MAX)), want.clone());
            prop_assert_eq!(batched(&path, &ring, &keys, (usize::MAX, 50)), want.clone());
            prop_assert_eq!(batched(&path, &ring, &keys, (0, usize::MAX)), want);
        }
    }

    #[test]
    fn an_emit_error_stops_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.vkr");
        let ring = Keyring::generate().unwrap();
        let rows: Vec<(u16, u8)> = (0..500).map(|k| (k, 5)).collect();
        file(&path, &ring, 512, &rows, &[]);
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
        let keys: Vec<Vec<u8>> = (0..10).map(|k| format!("k{k}").into_bytes()).collect();
        let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let mut n = 0;
        let r = f.get_batch(&keys, |_| {
            n += 1;
            if n == 3 { Err("full") } else { Ok(()) }
        });
        assert!(matches!(r, Err(BatchError::Emit("full"))));
        assert_eq!(n, 3);
    }
}
