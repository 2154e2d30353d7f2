//! Duplicate keys in a file being sealed. Records with equal keys have equal tokens, so
//! only records whose tokens are equal are compared, by their keys read back from the
//! data pages already written.
//!
//! The answer is the first record (in input order) whose key an earlier record has, and
//! the first record with that key. Runs of equal tokens are taken in the order of their
//! second record, each read in input order until its first repeated key, and the search
//! ends at the first run that cannot end before the answer found: two keys read for most
//! inputs with duplicates, each key of a run at most once whatever the input (comparing
//! every pair of a run, as before, took minutes for a few thousand copies of one key).

use super::RecordsError;
use super::codec::PageRef;
use super::io::{PageReader, PageWriter};
use super::pages::{Kind, Rec, parse_data};
use std::rc::Rc;

/// The first pair of records (ordinals, in input order) with equal keys among
/// `entries` (token, ordinal, data page), ordered so that equal tokens are adjacent.
pub(super) fn first_duplicate(
    w: &mut PageWriter<'_>,
    entries: &[(u64, u32, u32)],
    data_refs: &[PageRef],
) -> Result<Option<(u32, u32)>, RecordsError> {
    // Each run of equal tokens as (its second record, where it is in `entries`), taken
    // in that order: no pair of a run ends before its second record, so the first run
    // whose records repeat a key usually gives the answer and ends the search.
    let mut runs: Vec<(u32, usize, usize)> = Vec::new();
    let mut i = 0;
    while i + 1 < entries.len() {
        if entries[i].0 != entries[i + 1].0 {
            i += 1;
            continue;
        }
        let j = run_end(entries, i, |e| e.0);
        let (mut least, mut second) = (u32::MAX, u32::MAX);
        for e in &entries[i..j] {
            if e.1 < least {
                (least, second) = (e.1, least);
            } else if e.1 < second {
                second = e.1;
            }
        }
        runs.push((second, i, j));
        i = j;
    }
    if runs.is_empty() {
        return Ok(None);
    }
    runs.sort_unstable();
    w.flush()?;
    let mut keys = KeyReader::new(w.reader(), data_refs);
    let mut found: Option<(u32, u32)> = None;
    // The run being read: (ordinal, data page), in input order.
    let mut run: Vec<(u32, u32)> = Vec::new();
    // The distinct keys of the run so far, with the first record of each (one, unless
    // different keys share a token).
    let mut distinct: Vec<(Vec<u8>, u32)> = Vec::new();
    for &(second, i, j) in &runs {
        if found.is_some_and(|f| second >= f.1) {
            break;
        }
        run.clear();
        run.extend(entries[i..j].iter().map(|e| (e.1, e.2)));
        run.sort_unstable();
        distinct.clear();
        for &(ordinal, page) in &run {
            // A pair ending here or later is not first.
            if found.is_some_and(|f| ordinal >= f.1) {
                break;
            }
            let key = keys.key(ordinal, page)?;
            if let Some(&(_, first)) = distinct.iter().find(|(k, _)| k.as_slice() == key) {
                found = Some((first, ordinal));
                break;
            }
            distinct.push((key.to_vec(), ordinal));
        }
    }
    Ok(found)
}

/// Reads records' keys back from written data pages, keeping the last page read (a run
/// read in input order meets each page's records together).
struct KeyReader<'r> {
    reader: PageReader<'r>,
    data_refs: &'r [PageRef],
    /// The records before each data page.
    before: Vec<u64>,
    page: Option<(u32, Rc<[u8]>, Vec<Rec>)>,
}

impl<'r> KeyReader<'r> {
    fn new(reader: PageReader<'r>, data_refs: &'r [PageRef]) -> KeyReader<'r> {
        let before = std::iter::once(0)
            .chain(data_refs.iter().scan(0u64, |sum, r| {
                *sum = sum.saturating_add(r.count);
                Some(*sum)
            }))
            .collect();
        KeyReader {
            reader,
            data_refs,
            before,
            page: None,
        }
    }

    /// The key of record `ordinal`, which is in data page `logical`.
    fn key(&mut self, ordinal: u32, logical: u32) -> Result<&[u8], RecordsError> {
        if self.page.as_ref().map(|p| p.0) != Some(logical) {
            let r = *self
                .data_refs
                .get(logical as usize)
                .ok_or(RecordsError::Corrupt("page missing from its directory"))?;
            let p = self.reader.page(Kind::Data, u64::from(logical), &r)?;
            let recs = parse_data(&p).ok_or(RecordsError::Corrupt("a data page does not parse"))?;
            self.page = Some((logical, p, recs));
        }
        let (_, p, recs) = self.page.as_ref().expect("read above");
        let at = u64::from(ordinal)
            .checked_sub(self.before[logical as usize])
            .ok_or(RecordsError::Corrupt("record counts disagree"))?;
        let rec = recs
            .get(at as usize)
            .ok_or(RecordsError::Corrupt("record counts disagree"))?;
        Ok(rec.key(p))
    }
}

/// The end of the run of entries from `start` (which must be in `v`) with the same key.
pub(super) fn run_end<T, K: PartialEq>(v: &[T], start: usize, key: impl Fn(&T) -> K) -> usize {
    let first = key(&v[start]);
    start
        + 1
        + v[start + 1..]
            .iter()
            .take_while(|e| key(e) == first)
            .count()
}
