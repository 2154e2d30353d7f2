//! Many gets at once (`records get --keys FILE`): the same answers as one get after
//! another, with each data page a pass needs read and decrypted once, in page order,
//! without keeping it; a pass of fewer keys than the file has data pages is one get
//! after another (see [`RecordFile::get_batch_in_passes`]).
//!
//! Why: a batch of random keys over a large file touches nearly every data page a few
//! times. One get after another keeps every page it decrypts, so a short process fills a
//! cache as large as the file with memory it touches for the first time (on a virtual
//! machine whose host takes back free memory, the costliest part of the batch). Here the
//! keys' index pages are read first, in bucket order (the index is a small part of the
//! file), then the candidates are taken in data page order and the records found copied
//! out, then the records are emitted in key order. Each pass walks what it reads in
//! order: a table indexed by key and reached in page order costs a memory wait a key,
//! which is about what decrypting the key's share of a page costs.
//!
//! A batch larger than [`VALUES_BUDGET`] holds records of the file's average size is
//! taken in several passes of that many keys (each reads a data page at most once).
//! A key whose answer a pass cannot give (a bucket with overflow pages, a
//! file without an index, the pass's record bytes over [`VALUES_BUDGET`], more
//! candidates than the pass holds) is looked up
//! by [`RecordFile::get_into`] in its turn, so answers and errors are exactly those of
//! one get after another: the answers of the keys before the first one that fails, then
//! that key's error.

use super::RecordsError;
use super::pages::{
    Kind, NO_NEXT, bucket_of, find_in_data_by, index_lookup, parse_data, prefetch, same_key,
};
use super::read::RecordFile;

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
#[derive(Clone, Copy)]
struct Candidate {
    page: u32,
    /// The key's place in the batch.
    key: u32,
    /// The candidate's place among its key's (their index entries' order).
    ord: u32,
    /// The key's length and first eight bytes (zero-padded), so that the scan of a page
    /// passes records by other keys without reading the asked key itself (one memory
    /// wait per candidate, the batch's keys being read in another order).
    len: u32,
    head: u64,
}

impl Candidate {
    /// Whether `k` (a record's key in a page) is this candidate's key.
    #[inline]
    fn holds(&self, k: &[u8], keys: &[&[u8]]) -> bool {
        k.len() == self.len as usize
            && head(k) == self.head
            && (k.len() <= 8 || same_key(k, keys[self.key as usize]))
    }
}

/// A key's first eight bytes, zero-padded (compared with lengths already equal).
#[inline]
fn head(k: &[u8]) -> u64 {
    match k.first_chunk::<8>() {
        Some(h) => u64::from_le_bytes(*h),
        None => {
            let mut h = [0u8; 8];
            h[..k.len()].copy_from_slice(k);
            u64::from_le_bytes(h)
        }
    }
}

/// Candidates of one page from which its records are found through a [`RecordTable`].
const SORT_KEYS: usize = 8;

/// Records of a page from which they are found through a [`RecordTable`].
const SORT_RECORDS: usize = 32;

/// A page's records by key length and first eight bytes, then place: the first record
/// in page order whose key is a candidate's is found by bisection, as a scan in page
/// order finds it.
struct RecordTable(Vec<(u32, u64, u32)>);

impl RecordTable {
    fn new(recs: &[super::pages::Rec], page: &[u8]) -> RecordTable {
        let mut t: Vec<(u32, u64, u32)> = recs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let k = r.key(page);
                (
                    u32::try_from(k.len()).unwrap_or(u32::MAX),
                    head(k),
                    i as u32,
                )
            })
            .collect();
        t.sort_unstable();
        RecordTable(t)
    }

    /// The first record (in page order) that holds `c`'s key.
    fn first<'r>(
        &self,
        c: &Candidate,
        recs: &'r [super::pages::Rec],
        page: &[u8],
        keys: &[&[u8]],
    ) -> Option<&'r super::pages::Rec> {
        let at = self
            .0
            .partition_point(|&(l, h, _)| (l, h) < (c.len, c.head));
        self.0[at..]
            .iter()
            .take_while(|&&(l, h, _)| (l, h) == (c.len, c.head))
            .map(|&(_, _, i)| &recs[i as usize])
            .find(|r| c.holds(r.key(page), keys))
    }
}

/// What a key's candidate page said of it, other than "not here".
#[derive(Clone, Copy)]
enum Said {
    /// Its record: a range of the batch's copied records.
    Found(u32, u32),
    /// The page failed (an index into the batch's errors).
    Failed(u32),
    /// Not looked at (the values budget ran out first).
    Unread,
}

/// What candidates said of their keys (in page order, as they say it), then, settled,
/// in key order: a key's answer is what its first candidate in index order that said
/// more than "not here" said, as one get that reads them in that order finds it.
/// Collected and sorted rather than kept in a table by key: the pages' order is random
/// in keys, and a table written in it costs a memory wait a word.
#[derive(Default)]
struct Told(Vec<(u64, Said)>);

impl Told {
    #[inline]
    fn tell(&mut self, c: &Candidate, said: Said) {
        self.0
            .push(((u64::from(c.key) << 32) | u64::from(c.ord), said));
    }

    /// Puts what was said in key order, each key's in index order.
    fn settle(&mut self) {
        self.0.sort_unstable_by_key(|t| t.0);
    }

    /// After [`Told::settle`], for keys asked in increasing order from `*at` (0 for the
    /// first): what `key`'s first candidate that said more than "not here" said.
    fn first(&self, at: &mut usize, key: u32) -> Option<Said> {
        let mut first = None;
        while let Some(&(k, said)) = self.0.get(*at) {
            let k = (k >> 32) as u32;
            if k > key {
                break;
            }
            if k == key && first.is_none() {
                first = Some(said);
            }
            *at += 1;
        }
        first
    }
}

/// What the first pass found: each key's candidates, whether those are all of them, and
/// the first key (in key order) whose index page failed, with its error.
struct IndexPass {
    candidates: Vec<Candidate>,
    whole: Vec<bool>,
    stop: Option<(usize, RecordsError)>,
}

/// How many keys a pass takes: as many as `budget` holds records of the file's average
/// size (its `pages` of data over its `records`, an overestimate), so that a large batch
/// is several passes instead of one whose keys past the budget are got one by one; at
/// least 4096. No count of pages: one pass.
fn pass_keys(pages: Option<u64>, records: u64, page_size: usize, budget: usize) -> usize {
    let per_record = match pages {
        Some(pages) => (pages.saturating_mul(page_size as u64) / records.max(1)).max(1),
        None => 1,
    };
    (budget as u64 / per_record).clamp(4096, MAX_PASS_KEYS as u64) as usize
}

/// How many keys ahead the emitting pass asks for a record's bytes.
const AHEAD: usize = 16;

/// The most keys one page-ordered pass takes (their places are kept in 32 bits).
const MAX_PASS_KEYS: usize = 1 << 31;

impl RecordFile {
    /// Calls `emit` with the record of each of `keys` in turn (`None`: no such record),
    /// as [`RecordFile::get_into`] called for each would find them. On a failed lookup,
    /// the keys before it have been emitted and its error is returned.
    ///
    /// The keys are taken in passes (as many as 64 MiB holds records of the file's
    /// average size); each pass decrypts each data page it needs once. A pass of fewer
    /// keys than the file has data pages is one get after another, which keep the pages
    /// they read in the page cache: many small batches over one file then decrypt each
    /// page once, and one large batch does not fill the cache with pages it will not
    /// read again.
    pub fn get_batch<E>(
        &mut self,
        keys: &[&[u8]],
        mut emit: impl FnMut(Option<&[u8]>) -> Result<(), E>,
    ) -> Result<(), BatchError<E>> {
        // A count of data pages that cannot be had (its error is left to the lookups
        // that meet it) counts as no estimate: one pass, whose pages are not kept.
        let pages = self.page_count(Kind::Data).ok();
        let pass = pass_keys(pages, self.root.records, self.page_bytes(), VALUES_BUDGET);
        self.get_batch_in_passes(keys, pass, pages, VALUES_BUDGET, &mut emit)
    }

    /// [`RecordFile::get_batch`], `pass` keys at a time: a pass of fewer keys than the
    /// file's `pages` of data is one get after another, a larger one
    /// [`RecordFile::get_batch_within`].
    ///
    /// Why: a pass of few keys is one of many over the same pages (a pipe's worth, or a
    /// library's caller asking a few thousand keys at a time), and its pages are worth
    /// keeping, so that the next passes do not decrypt a page for nearly every key. Kept
    /// pages are what gets keep, and a get of a held page finds its record through the
    /// cache's record table in two memory waits, which is less than a key's share of a
    /// page-ordered pass (its token, two sorts and three phases): 1M random keys 4096 at
    /// a time, on a fresh open, went 1.2M-1.45M a second one by one against 0.56M-0.64M
    /// in page-ordered passes that kept their pages, and 1.9M-2.4M against 0.68M-0.86M
    /// with every page held.
    fn get_batch_in_passes<E>(
        &mut self,
        keys: &[&[u8]],
        pass: usize,
        pages: Option<u64>,
        budget: usize,
        emit: &mut impl FnMut(Option<&[u8]>) -> Result<(), E>,
    ) -> Result<(), BatchError<E>> {
        let mut one = Vec::new();
        for keys in keys.chunks(pass) {
            if pages.is_some_and(|p| (keys.len() as u64) < p) {
                for key in keys {
                    self.get_and_emit(key, &mut one, emit)?;
                }
                continue;
            }
            let cap = keys.len().saturating_mul(4).saturating_add(4096);
            self.get_batch_within(keys, budget, cap, emit)?;
        }
        Ok(())
    }

    /// [`RecordFile::get_batch`], copying out at most about `budget` bytes of records
    /// in the page-ordered pass and holding at most `cap` candidates. The data pages it
    /// decrypts are not kept (a pass that covers the file decrypts each page once and
    /// has no use for them after); pages the cache holds are taken from it.
    ///
    /// Each pass goes through its pages in order, and through what it keeps of the keys
    /// in that order too: the keys themselves, met in another order, are read only to
    /// confirm a record whose key's length and first eight bytes match.
    fn get_batch_within<E>(
        &mut self,
        keys: &[&[u8]],
        budget: usize,
        cap: usize,
        emit: &mut impl FnMut(Option<&[u8]>) -> Result<(), E>,
    ) -> Result<(), BatchError<E>> {
        // Record ranges are kept in 32 bits: a budget below 2 GiB, past which one record
        // (at most a page's plaintext) still fits.
        let budget = budget.min(1 << 31);
        assert!(keys.len() <= MAX_PASS_KEYS, "get_batch passes fewer keys");
        let IndexPass {
            mut candidates,
            whole,
            stop,
        } = self.candidates(keys, cap);
        // Keys from the first failed one on are not answered: their pages are not read.
        let limit = stop.as_ref().map_or(keys.len(), |(i, _)| *i);
        candidates.retain(|c| (c.key as usize) < limit);

        // Phase 2, in data page order: each candidate page read once.
        candidates.sort_unstable_by_key(|c| c.page);
        let mut told = Told::default();
        let mut errors: Vec<Option<RecordsError>> = Vec::new();
        let mut values: Vec<u8> = Vec::new();
        let mut read = 0;
        for group in candidates.chunk_by(|a, b| a.page == b.page) {
            if values.len() > budget {
                break;
            }
            read += group.len();
            let page = group[0].page;
            let mut each = |bytes: &[u8]| {
                // Several keys in one page: its records parsed once (a page that does
                // not parse to its end is scanned for each key, as a get scans it).
                let recs = if group.len() > 1 {
                    parse_data(bytes)
                } else {
                    None
                };
                // Many keys in a page of many records (a compressed page holds three
                // times as many as a plain one): the records sorted by key length and
                // first eight bytes once, each key's found by bisection, not a scan.
                let table = recs
                    .as_ref()
                    .filter(|r| group.len() >= SORT_KEYS && r.len() >= SORT_RECORDS)
                    .map(|recs| RecordTable::new(recs, bytes));
                for c in group {
                    let found = match (&recs, &table) {
                        (Some(recs), Some(t)) => {
                            Some(t.first(c, recs, bytes, keys).map(|r| &bytes[r.raw.clone()]))
                        }
                        (Some(recs), None) => Some(
                            recs.iter()
                                .find(|r| c.holds(r.key(bytes), keys))
                                .map(|r| &bytes[r.raw.clone()]),
                        ),
                        (None, _) => find_in_data_by(bytes, |k| c.holds(k, keys)),
                    };
                    match found {
                        None => {
                            errors.push(Some(RecordsError::Corrupt("a data page does not parse")));
                            told.tell(c, Said::Failed((errors.len() - 1) as u32));
                        }
                        Some(None) => {}
                        Some(Some(raw)) => {
                            let start = values.len() as u32;
                            values.extend_from_slice(raw);
                            told.tell(c, Said::Found(start, values.len() as u32));
                        }
                    }
                }
            };
            let logical = u64::from(page);
            // A page's scan reads each record's start only from the one before it: the
            // page's lines are asked for together first, as a get does.
            let read = if let Some(p) = self.cache.get_prefetched((Kind::Data as u8, logical), true)
            {
                each(&p);
                Ok(())
            } else {
                let mut scratch = std::mem::take(&mut self.scratch);
                let read = self.page_ref(Kind::Data, logical).and_then(|r| {
                    self.reader()
                        .with_page(Kind::Data, logical, &r, &mut scratch, |p| each(p))
                });
                self.scratch = scratch;
                read
            };
            if let Err(e) = read {
                // Every key that reaches this page fails with its error; the first of
                // them in key order is the one returned, the batch's first failure.
                errors.push(Some(e));
                for c in group {
                    told.tell(c, Said::Failed((errors.len() - 1) as u32));
                }
            }
        }
        for c in &candidates[read..] {
            told.tell(c, Said::Unread);
        }
        drop(candidates);
        told.settle();

        // Phase 3, in key order: each key's answer, or a get.
        let mut one = Vec::new();
        let mut at = 0;
        for (i, key) in keys.iter().enumerate().take(limit) {
            // The records are in page order, random in keys: asked for a few keys ahead,
            // they are in the processor's cache when emitted.
            if let Some(&(_, Said::Found(s, e))) = told.0.get(at + AHEAD) {
                prefetch(&values[s as usize..e as usize]);
            }
            let answer = match told.first(&mut at, i as u32) {
                _ if !whole[i] => None,
                None => Some(None),
                Some(Said::Found(s, e)) => Some(Some(&values[s as usize..e as usize])),
                Some(Said::Failed(e)) => {
                    let e = errors[e as usize]
                        .take()
                        .unwrap_or(RecordsError::Corrupt("a data page does not parse"));
                    return Err(BatchError::Records(e));
                }
                Some(Said::Unread) => None,
            };
            match answer {
                Some(record) => emit(record).map_err(BatchError::Emit)?,
                None => self.get_and_emit(key, &mut one, emit)?,
            }
        }
        match stop {
            Some((_, e)) => Err(BatchError::Records(e)),
            None => Ok(()),
        }
    }

    /// Bytes of records a data page holds, for sizing passes: the page size, or for
    /// compressed pages what the first one holds once decompressed (a quarter more, for
    /// pages that compress better; four page sizes when it cannot be read, its error
    /// left to the lookups that meet it). Compressed pages hold several times their size:
    /// sized by their size, a pass would take keys whose records overflow its budget,
    /// and get those one by one.
    fn page_bytes(&mut self) -> usize {
        if !self.root.compression.compressed() {
            return self.page_size;
        }
        let held = self
            .data_page(0)
            .ok()
            .map(|(_, recs)| recs.iter().map(|r| r.raw.len()).sum::<usize>() * 5 / 4);
        held.unwrap_or(4 * self.page_size).max(self.page_size)
    }

    /// One get of `key` (into `one`), its answer emitted: how a batch answers a key it
    /// does not answer itself.
    fn get_and_emit<E>(
        &mut self,
        key: &[u8],
        one: &mut Vec<u8>,
        emit: &mut impl FnMut(Option<&[u8]>) -> Result<(), E>,
    ) -> Result<(), BatchError<E>> {
        one.clear();
        let hit = self.get_into(key, one).map_err(BatchError::Records)?;
        emit(hit.then_some(&one[..])).map_err(BatchError::Emit)
    }

    /// Phase 1, in bucket order (each index page met once, its keys together): every
    /// key's candidates in its bucket's first index page, whether those are all of them
    /// (no overflow page, the candidates held), and the first failure.
    fn candidates(&mut self, keys: &[&[u8]], cap: usize) -> IndexPass {
        let mut candidates: Vec<Candidate> = Vec::with_capacity(keys.len() + keys.len() / 8);
        let mut whole = vec![self.root.buckets != 0; keys.len()];
        let mut stop: Option<(usize, RecordsError)> = None;
        if self.root.buckets == 0 {
            return IndexPass {
                candidates,
                whole,
                stop,
            };
        }
        let layout = self.root.index_layout;
        // (bucket and key, token, head, length) in key order, then by bucket.
        let mut order: Vec<(u64, u64, u64, u32)> = keys
            .iter()
            .enumerate()
            .map(|(i, key)| {
                let token = self.keys.token(key);
                let bucket = bucket_of(token, self.root.buckets);
                let len = u32::try_from(key.len()).unwrap_or(u32::MAX);
                ((u64::from(bucket) << 32) | i as u64, token, head(key), len)
            })
            .collect();
        order.sort_unstable_by_key(|o| o.0);
        // Keys in a bucket come in key order: past the first failure, none counts.
        let before_stop = |i: usize, stop: &Option<(usize, RecordsError)>| {
            stop.as_ref().is_none_or(|(s, _)| i < *s)
        };
        for group in order.chunk_by(|a, b| a.0 >> 32 == b.0 >> 32) {
            let bucket = group[0].0 >> 32;
            if !before_stop(group[0].0 as u32 as usize, &stop) {
                continue;
            }
            let page = match self.page(Kind::Index, bucket) {
                Ok(page) => page,
                Err(e) => {
                    stop = Some((group[0].0 as u32 as usize, e));
                    continue;
                }
            };
            for &(bk, token, head, len) in group {
                let i = bk as u32;
                if !before_stop(i as usize, &stop) {
                    break;
                }
                let mut ord = 0;
                let mut full = false;
                let found = index_lookup(&page, layout, layout.tag(token), |data| {
                    if candidates.len() < cap {
                        candidates.push(Candidate {
                            page: data,
                            key: i,
                            ord,
                            len,
                            head,
                        });
                        ord += 1;
                    } else {
                        full = true;
                    }
                    Ok(false)
                });
                match found {
                    Ok(Some((_, next))) => whole[i as usize] = next == NO_NEXT && !full,
                    Ok(None) => {
                        let e = RecordsError::Corrupt("an index page does not parse");
                        stop = Some((i as usize, e));
                        break;
                    }
                    Err(e) => {
                        stop = Some((i as usize, e));
                        break;
                    }
                }
            }
        }
        IndexPass {
            candidates,
            whole,
            stop,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::file::RecordFile;
    use super::super::format::{InputFormat, Unlock};
    use super::super::pages::Kind;
    use super::super::tests::{append_csv, seal_bytes, settings};
    use super::{BatchError, Candidate, SORT_RECORDS, Said, Told};
    use crate::keys::Keyring;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;
    use std::path::Path;

    /// Key `k`: a short one, or for one in three a long one whose first eight bytes
    /// all long keys share.
    fn name(k: u16) -> String {
        if k.is_multiple_of(3) {
            format!("a-longer-shared-prefix-{k}")
        } else {
            format!("k{k}")
        }
    }

    fn csv(rows: &[(u16, u8)]) -> Vec<u8> {
        rows.iter()
            .map(|&(k, l)| format!("{},{}\n", name(k), "v".repeat(usize::from(l))))
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

    /// What a batch gives, asked twice of one open file: the second time (which must
    /// give the same) after one get of each key, so that it meets the pages those kept.
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
        let once = |f: &mut RecordFile| {
            let mut out = Vec::new();
            let r = f.get_batch_within(&keys, budget, cap, &mut |v| {
                out.push(v.map(<[u8]>::to_vec));
                Ok::<(), ()>(())
            });
            match r {
                Ok(()) => (out, None),
                Err(BatchError::Records(e)) => (out, Some(e.to_string())),
                Err(BatchError::Emit(())) => unreachable!("emit never fails here"),
            }
        };
        let first = once(&mut f);
        for k in &keys {
            let _ = f.get(k);
        }
        assert_eq!(once(&mut f), first, "asked again");
        first
    }

    fn rows() -> impl Strategy<Value = Vec<(u16, u8)>> {
        proptest::collection::btree_map(0u16..3000, 0u8..120, 0..1500)
            .prop_map(|m| m.into_iter().collect())
    }

    /// Pages of well over a hundred records (compressed, short values), each asked for by
    /// many keys, among them long keys sharing their first eight bytes: the records are
    /// found through the page's sorted table, as one get after another finds them.
    #[test]
    fn crowded_pages_answer_through_their_table_as_one_get_after_another() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.vkr");
        let ring = Keyring::generate().unwrap();
        // Values of digits that compress to about half: some 200 records a page.
        let input: String = (0..20_000u32)
            .map(|k| format!("{},{}\n", name(k as u16), k.wrapping_mul(2_654_435_761)))
            .collect();
        let mut s = settings(InputFormat::Csv, "1", false, 4096);
        s.compression = Some(3);
        seal_bytes(&path, input.as_bytes(), &s, &ring).unwrap();
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
        assert!(f.root.buckets > 0, "an index");
        let per_page = 20_000 / f.page_count(Kind::Data).unwrap();
        assert!(
            per_page > 2 * SORT_RECORDS as u64,
            "{per_page} records a page"
        );
        drop(f);
        // Every key (and absent ones) in a scrambled order, some twice.
        let keys: Vec<Vec<u8>> = (0..24_000u32)
            .map(|i| name((i.wrapping_mul(2_654_435_761) % 22_000) as u16).into_bytes())
            .collect();
        let want = one_by_one(&path, &ring, &keys);
        assert!(want.0.iter().filter(|v| v.is_some()).count() > 20_000);
        assert_eq!(batched(&path, &ring, &keys, (usize::MAX, usize::MAX)), want);
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
            let keys: Vec<Vec<u8>> = asked.iter().map(|&k| name(k).into_bytes()).collect();
            let want = one_by_one(&path, &ring, &keys);
            prop_assert_eq!(want.1.as_deref(), None);
            prop_assert_eq!(batched(&path, &ring, &keys, limits), want);
        }

        /// Damaged pages (one to three; index or data): the same answers up to the same
        /// key, then the same error.
        #[test]
        fn a_damaged_file_fails_at_the_same_key_with_the_same_error(
            flips in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..8), 1..4),
            asked in proptest::collection::vec(0u16..1200, 1..300),
        ) {
            damaged_answers_as_one_by_one(&asked, |_, _, bytes| {
                // Past the two header copies: a page.
                let first_page = 2 * super::super::format::COPY_SIZE;
                for (at, bit) in flips {
                    let i = first_page + at.index(bytes.len() - first_page);
                    bytes[i] ^= 1 << bit;
                }
            })?;
        }
    }

    /// Seals 1000 rows in 512-byte pages, lets `damage` change the file's bytes (given
    /// its path and key), and checks that a batch of `asked` answers as one get after
    /// another does, with room for all, with few candidates held, and with no budget.
    fn damaged_answers_as_one_by_one(
        asked: &[u16],
        damage: impl FnOnce(&Path, &Keyring, &mut Vec<u8>),
    ) -> Result<(), TestCaseError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.vkr");
        let ring = Keyring::generate().unwrap();
        let rows: Vec<(u16, u8)> = (0..1000).map(|k| (k, (k % 90) as u8)).collect();
        file(&path, &ring, 512, &rows, &[]);
        let mut bytes = std::fs::read(&path).unwrap();
        damage(&path, &ring, &mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        let keys: Vec<Vec<u8>> = asked.iter().map(|&k| name(k).into_bytes()).collect();
        let want = one_by_one(&path, &ring, &keys);
        for limits in [(usize::MAX, usize::MAX), (usize::MAX, 50), (0, usize::MAX)] {
            prop_assert_eq!(batched(&path, &ring, &keys, limits), want.clone());
        }
        Ok(())
    }

    /// Where each index page of the file at `path` starts.
    fn index_pages(path: &Path, ring: &Keyring) -> Vec<u64> {
        let mut f = RecordFile::open(path, &[Unlock::Keyring(ring)], false).unwrap();
        let n = f.page_count(Kind::Index).unwrap();
        (0..n)
            .map(|l| {
                let r = f.page_ref(Kind::Index, l).unwrap();
                f.reader().offset(r.physical).unwrap()
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
        /// Several damaged index pages (met in bucket order, not in key order): the same
        /// answers up to the same key, then the same error.
        #[test]
        fn damaged_index_pages_fail_at_the_same_key_with_the_same_error(
            damaged in proptest::collection::vec(any::<prop::sample::Index>(), 1..4),
            asked in proptest::collection::vec(0u16..1200, 1..300),
        ) {
            damaged_answers_as_one_by_one(&asked, |path, ring, bytes| {
                let pages = index_pages(path, ring);
                assert!(pages.len() > 4, "{} index pages", pages.len());
                for d in damaged {
                    bytes[pages[d.index(pages.len())] as usize + 100] ^= 1;
                }
            })?;
        }
    }

    proptest! {
        /// A key's candidates report in page order: what it keeps is what the first of
        /// them in index order that said more than "not here" said, as one get reads them.
        #[test]
        fn a_key_keeps_what_its_first_candidate_said(
            said in proptest::collection::vec(0u8..4, 0..8)
                .prop_flat_map(|s| {
                    let n = s.len() as u32;
                    (Just(s), Just((0..n).collect::<Vec<u32>>()).prop_shuffle())
                }),
        ) {
            let (said, order) = said;
            let word = |w: u8, ord: u32| match w {
                1 => Some(Said::Found(ord, ord + 1)),
                2 => Some(Said::Failed(ord)),
                3 => Some(Said::Unread),
                _ => None,
            };
            // Key 1's candidates, between those of keys 0 and 2, told in any order.
            let mut told = Told::default();
            for ord in order {
                let c = |key| Candidate { page: 0, key, ord, len: 0, head: 0 };
                if let Some(w) = word(said[ord as usize], ord) {
                    told.tell(&c(1), w);
                    told.tell(&c(2), Said::Unread);
                    told.tell(&c(0), Said::Unread);
                }
            }
            told.settle();
            let mut at = 0;
            prop_assert_eq!(told.first(&mut at, 0).is_some(), said.iter().any(|&w| w != 0));
            let first = told.first(&mut at, 1);
            let want = said.iter().position(|&w| w != 0).map(|o| o as u32);
            prop_assert_eq!(first.is_some(), want.is_some());
            prop_assert_eq!(told.first(&mut at, 2).is_some(), want.is_some());
            prop_assert_eq!(at, told.0.len());
            if let (Some(w), Some(ord)) = (first, want) {
                let same = matches!(
                    (w, said[ord as usize]),
                    (Said::Found(a, b), 1) if (a, b) == (ord, ord + 1)
                ) || matches!((w, said[ord as usize]), (Said::Failed(e), 2) if e == ord)
                    || matches!((w, said[ord as usize]), (Said::Unread, 3));
                prop_assert!(same);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
        /// A batch in several passes (as one larger than the budget's estimate is): the
        /// same answers as one get after another.
        #[test]
        fn a_batch_in_passes_answers_as_one_get_after_another(
            rows in rows(),
            asked in proptest::collection::vec(0u16..3200, 0..400),
            pass in 1usize..60,
            pages in prop_oneof![Just(None), (0u64..80).prop_map(Some)],
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("b.vkr");
            let ring = Keyring::generate().unwrap();
            file(&path, &ring, 512, &rows, &[]);
            let keys: Vec<Vec<u8>> = asked.iter().map(|&k| name(k).into_bytes()).collect();
            let want = one_by_one(&path, &ring, &keys);
            let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
            let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
            let mut got = Vec::new();
            f.get_batch_in_passes(&refs, pass, pages, usize::MAX, &mut |v| {
                got.push(v.map(<[u8]>::to_vec));
                Ok::<(), ()>(())
            })
            .unwrap();
            prop_assert_eq!((got, None), want);
        }
    }

    /// A pass takes as many keys as the budget holds records of the file's average
    /// size: 1M records in 28,000 pages of 4 KiB (114 bytes a record, in whole bytes)
    /// in 64 MiB, 588,674; at least 4096; with no count of pages, every key (up to 2^31).
    #[test]
    fn a_pass_takes_what_the_budget_holds() {
        assert_eq!(
            super::pass_keys(Some(28_000), 1_000_000, 4096, 64 << 20),
            588_674
        );
        assert_eq!(super::pass_keys(Some(28_000), 1_000, 4096, 64 << 20), 4096);
        assert_eq!(super::pass_keys(Some(0), 0, 4096, 64 << 20), 64 << 20);
        assert_eq!(super::pass_keys(None, 1_000, 4096, 1 << 40), 1 << 31);
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
