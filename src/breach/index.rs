//! Reading an index: open and check it, look hashes up, verify it end to end.

use super::HashKind;
use super::bytes::Bytes;
pub(super) use super::checked::lookup_sums_match;
use super::checked::{Chunks, Once};
pub use super::error::IndexError;
pub(super) use super::error::bad_bounds;
use super::format::{BLOCK_SIZE, GROUP_BITS, Header, OVERFLOW_ENTRY, Params, Wide};
use crate::progress::Progress;
use std::fs::File;
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// Records a lookup searches around its interpolated position before falling back to a
/// scan (see [`Index::window_search`]).
const WINDOW: usize = 16;

/// Bytes a window search may read from the window's first record: `WINDOW` records of
/// at most 24 bytes, and the 24-byte window of the last one.
const WINDOW_BYTES: usize = WINDOW * 24 + 24;

/// An open index.
pub struct Index {
    storage: Bytes,
    header: Header,
    params: Params,
    /// The bits of a record window (24 bytes read at a record's start) that hold its key.
    key_mask: Wide,
    /// `key_mask` with each word's bytes swapped: the mask of a window read as
    /// little-endian words, as the window search compares them.
    key_mask_le: [u64; 3],
    /// Offsets of the sections, for quick slicing.
    records_off: usize,
    table_off: usize,
    offsets_off: usize,
    overflow_off: usize,
    /// Bytes of group bases at the table's start (verified at opening).
    groups_bytes: usize,
    /// The bucket table, verified chunk by chunk as lookups read it.
    table: Chunks,
    /// The records, verified in lookup blocks as lookups read them (version 3; taken as
    /// verified in older files, which have no such checksums).
    records: Chunks,
    /// The overflow table, verified on its first use.
    overflow: Once,
    /// Set when [`Index::verify`] passed: an index of format 1 or 2 is then checked whole
    /// ([`Index::ensure_checked`]).
    whole_checked: std::sync::atomic::AtomicBool,
}

/// What `verify` checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyReport {
    /// Records checked.
    pub records: u64,
    /// Checksum blocks checked.
    pub blocks: u64,
    /// The ranges the records fall in.
    pub ranges: super::coverage::Ranges,
}

impl Index {
    /// Opens and maps an index, checking its header, its size and its table's ends. The
    /// map is advised for random access, so a cold lookup reads pages, not megabytes.
    pub fn open(path: &Path) -> Result<Index, IndexError> {
        Index::open_file(&File::open(path)?)
    }

    /// As [`Index::open`], for a file already open (a temporary one, say).
    pub fn open_file(file: &File) -> Result<Index, IndexError> {
        let (bytes, len) = Bytes::open(file, false)?;
        Index::from_storage(bytes, len)
    }

    /// Reads an index into memory (huge pages where the system allows): the fastest
    /// lookups, for long-running processes that can spare the memory.
    pub fn open_in_memory(path: &Path) -> Result<Index, IndexError> {
        let (bytes, len) = Bytes::open(&File::open(path)?, true)?;
        Index::from_storage(bytes, len)
    }

    /// An index held in memory (tests, fuzzing).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Index, IndexError> {
        let len = bytes.len() as u64;
        Index::from_storage(Bytes::owned(&bytes)?, len)
    }

    fn from_storage(storage: Bytes, len: u64) -> Result<Index, IndexError> {
        let header = Header::decode(storage.get(), len)?;
        let params = header.params;
        // Records are read as 24-byte windows; the sections after them (at least the
        // table) guarantee those bytes exist for the last record too.
        if header.records_at.0 + header.records_at.1 + 24 > len {
            return Err(IndexError::Corrupt(
                "the sections after the records are missing".into(),
            ));
        }
        let groups_bytes = params.groups() as usize * 8;
        let table = if header.version >= 2 {
            Chunks::lazy(storage.get(), header.table_at, header.sums_at, groups_bytes)?
        } else {
            // Format 1 keeps one checksum for the whole table: verified now.
            Chunks::whole(storage.get(), header.table_at, header.table_sum)?
        };
        let records = if header.version >= 3 {
            Chunks::blocks(header.records_at, header.lookup_at, "records")?
        } else {
            Chunks::unsummed(header.records_at, "records")
        };
        let index = Index {
            records,
            key_mask: params.key_of_window_mask(),
            key_mask_le: params.key_of_window_mask().0.map(u64::swap_bytes),
            records_off: header.records_at.0 as usize,
            table_off: header.table_at.0 as usize,
            offsets_off: header.table_at.0 as usize + groups_bytes,
            overflow_off: header.overflow_at.0 as usize,
            groups_bytes,
            table,
            overflow: Once::new(header.overflow_at, header.overflow_sum, "overflow table"),
            whole_checked: std::sync::atomic::AtomicBool::new(false),
            storage,
            header,
            params,
        };
        // The table must end at n: a cheap check that catches most damage to it.
        if index.start(0)? != 0 || index.start(params.buckets())? != index.header.records {
            return Err(IndexError::Corrupt(
                "the bucket table does not cover the records".into(),
            ));
        }
        Ok(index)
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The hash kind.
    pub fn kind(&self) -> HashKind {
        self.params.kind
    }

    /// The index's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.storage.get()
    }

    #[inline]
    fn u64_at(&self, at: usize) -> u64 {
        le_u64(self.storage.get(), at)
    }

    /// The first record of bucket `k` (0 ≤ k ≤ 2^b).
    #[inline]
    fn start(&self, k: u64) -> Result<u64, IndexError> {
        let b = self.storage.get();
        let pair = self.groups_bytes + k as usize * 4;
        self.table.check_span(b, pair, pair + 3)?;
        let base = self.u64_at(self.table_off + (k >> GROUP_BITS) as usize * 8);
        let at = self.offsets_off + k as usize * 4;
        let off = u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
        base.checked_add(u64::from(off))
            .ok_or_else(|| IndexError::Corrupt("bucket table overflows".into()))
    }

    #[inline]
    fn record(&self, i: u64) -> &[u8] {
        let s = self.params.record_size;
        let at = self.records_off + i as usize * s;
        &self.storage.get()[at..at + s]
    }

    /// Starts fetching the table entries of `hash`'s bucket.
    #[inline]
    fn prefetch_table(&self, hash: &Wide) {
        let k = self.params.bucket(hash) as usize;
        let at = self.offsets_off + k * 4;
        prefetch_range(&self.storage.get()[at..at + 8]);
    }

    /// The range of records that may hold `hash`: two group bases (the same one unless
    /// the bucket is the last of its group) and two adjacent offsets, combined without
    /// a branch on the loaded values; one rarely taken branch rejects a damaged table.
    #[inline]
    fn bucket_range(&self, b: &[u8], hash: &Wide) -> Result<(u64, u64), IndexError> {
        let k = self.params.bucket(hash);
        // The two offsets read below, in chunks verified before their first read (the
        // group bases were verified at opening).
        let pair = self.groups_bytes + k as usize * 4;
        self.table.check_span(b, pair, pair + 7)?;
        let base_lo = le_u64(b, self.table_off + (k >> GROUP_BITS) as usize * 8);
        let base_hi = le_u64(b, self.table_off + ((k + 1) >> GROUP_BITS) as usize * 8);
        let pair = le_u64(b, self.offsets_off + k as usize * 4);
        let (lo, o1) = base_lo.overflowing_add(pair & 0xffff_ffff);
        let (hi, o2) = base_hi.overflowing_add(pair >> 32);
        if o1 | o2 | (lo > hi) | (hi > self.header.records) {
            return Err(bad_bounds(k));
        }
        Ok((lo, hi))
    }

    /// `hash` as records hold their keys (count field zero, left-aligned), with the
    /// mask computed once at opening.
    #[inline(always)]
    fn key_of(&self, hash: &Wide) -> Wide {
        hash.shl(self.params.table_bits).and(&self.key_mask)
    }

    /// The interpolated position of `hash` in its bucket's records `lo..hi`.
    #[inline(always)]
    fn guess(&self, hash: &Wide, lo: u64, hi: u64) -> u64 {
        lo + (((hi - lo) * self.params.fraction(hash)) >> 32)
    }

    /// The count of `hash`, 0 when absent. Always inlined, also into other crates: a
    /// call that returns the `Result` through memory measured about 15% slower in a
    /// loop of lookups.
    #[inline(always)]
    pub fn lookup(&self, hash: &Wide) -> Result<u64, IndexError> {
        // The bytes once: every access below slices them directly.
        let b = self.storage.get();
        let (lo, hi) = self.bucket_range(b, hash)?;
        if lo == hi {
            return Ok(0);
        }
        let (key, guess) = (self.key_of(hash), self.guess(hash, lo, hi));
        match self.window_search(b, &key, lo, hi, guess) {
            Some(count) => {
                // The answer came from the window's records alone: their blocks verified
                // (one test of two bits once they are) before it is given.
                let start = window_start(lo, hi, guess);
                self.check_records(b, start, start + WINDOW as u64)?;
                Ok(count)
            }
            None => self.lookup_beyond_window(b, &key, lo, hi, guess),
        }
    }

    /// Verifies the lookup blocks holding records `first..end` (not empty), unless done
    /// before in this process.
    #[inline(always)]
    fn check_records(&self, b: &[u8], first: u64, end: u64) -> Result<(), IndexError> {
        let s = self.params.record_size;
        self.records
            .check_span(b, first as usize * s, end as usize * s - 1)
    }

    /// The count of `hash` by the scan from the interpolated record alone (the search
    /// before the window, kept for the side-by-side benchmark).
    #[doc(hidden)]
    #[inline(always)]
    pub fn lookup_scan(&self, hash: &Wide) -> Result<u64, IndexError> {
        let b = self.storage.get();
        let (lo, hi) = self.bucket_range(b, hash)?;
        let (key, guess) = (self.key_of(hash), self.guess(hash, lo, hi));
        let (found, read) = self.search(b, &key, lo, hi, guess);
        if let Some((first, last)) = read {
            self.check_records(b, first, last + 1)?;
        }
        match found {
            Some(i) => self.count_of(b, i),
            None => Ok(0),
        }
    }

    /// The rest of a lookup the window could not decide (out of line, so that the
    /// common path stays short).
    #[cold]
    #[inline(never)]
    fn lookup_beyond_window(
        &self,
        b: &[u8],
        key: &Wide,
        lo: u64,
        hi: u64,
        guess: u64,
    ) -> Result<u64, IndexError> {
        let (found, read) = self.search(b, key, lo, hi, guess);
        if let Some((first, last)) = read {
            self.check_records(b, first, last + 1)?;
        }
        match found {
            Some(i) => self.count_of(b, i),
            None => Ok(0),
        }
    }

    /// Searches the [`WINDOW`] records around the interpolated `guess` with as little
    /// work as possible waiting on them: every cache line of the window is requested
    /// first, a fixed-length bisection with conditional moves compares the records'
    /// first words (the first eight bytes of a key), and the record it lands on is
    /// compared and its count read in the file's byte order. The one branch on the
    /// loaded records is rarely taken, so the processor runs ahead into the next lookup
    /// while this one's records are in flight (a scan branching on each record, or more
    /// work per record, left lookups no overlap). `Some(count)` (0 when absent) when
    /// the answer is decided inside the window; `None` sends the lookup to
    /// [`Index::search`]: a bucket smaller than the window, an interpolation that missed
    /// by more than half a window (about 7% of lookups at 64 to 128 records a bucket),
    /// two keys sharing their first word, a count kept in the overflow table, or a
    /// window that would pass the end of the file.
    #[inline(always)]
    fn window_search(&self, b: &[u8], key: &Wide, lo: u64, hi: u64, guess: u64) -> Option<u64> {
        const W: u64 = WINDOW as u64;
        if hi - lo < W {
            return None;
        }
        // 15 to 22 by the header; the bounds let the compiler drop the bounds checks
        // below and keep `at + s - 8` from wrapping.
        let s = self.params.record_size.clamp(8, 24);
        let start = window_start(lo, hi, guess);
        let at = self.records_off + start as usize * s;
        let win: &[u8; WINDOW_BYTES] = b.get(at..at + WINDOW_BYTES)?.try_into().ok()?;
        prefetch_range(&win[..WINDOW * s + 8]);
        let q = key.0[0];
        let first_word = |j: usize| {
            let at = (j % WINDOW) * s;
            u64::from_be_bytes(win[at..at + 8].try_into().expect("8 bytes"))
        };
        let mut base = 0;
        let mut n = WINDOW;
        while n > 1 {
            let half = n / 2;
            base = std::hint::select_unpredictable(first_word(base + half) < q, base + half, base);
            n -= half;
        }
        // The first record of the window whose first word is not below the key's.
        let first = base + usize::from(first_word(base) < q);
        let at = first.min(WINDOW - 1) * s;
        let le =
            |k: usize| u64::from_le_bytes(win[at + k..at + k + 8].try_into().expect("8 bytes"));
        let (m, e) = (&self.key_mask_le, key.0.map(u64::swap_bytes));
        let word0 = (le(0) ^ e[0]) & m[0];
        let diff = word0 | ((le(8) ^ e[1]) & m[1]) | ((le(16) ^ e[2]) & m[2]);
        let field = u64::from_be_bytes(win[at + s - 8..at + s].try_into().expect("8 bytes"))
            & self.params.saturated();
        let count = std::hint::select_unpredictable((first < WINDOW) & (diff == 0), field, 0);
        let before = (first == 0) & (start > lo);
        let after = (first == WINDOW) & (start + W < hi);
        let shared_first_word = (word0 == 0) & (diff != 0);
        if before | after | shared_first_word | (count == self.params.saturated()) {
            return None;
        }
        Some(count)
    }

    /// What the window search alone answers for `hash` (`None`: it defers to the scan).
    #[cfg(test)]
    pub(super) fn window_answer(&self, hash: &Wide) -> Option<u64> {
        let b = self.storage.get();
        let (lo, hi) = self.bucket_range(b, hash).unwrap();
        let (key, guess) = (self.key_of(hash), self.guess(hash, lo, hi));
        self.window_search(b, &key, lo, hi, guess)
    }

    /// Starts fetching record `i` (the interpolated first probe of a batch lookup).
    /// Only the one record: fetching its neighbours as well measured slower, as the
    /// scan rarely needs them and they cost bandwidth and cache space.
    #[inline]
    fn prefetch_record(&self, i: u64) {
        let s = self.params.record_size;
        let start = self.records_off + i as usize * s;
        prefetch_range(&self.storage.get()[start..start + s]);
    }

    /// Looks up many hashes; `counts[i]` is the count of `hashes[i]`. Touches the table
    /// and record pages of a group of hashes before searching any of them, so that
    /// their memory accesses overlap. (Here the scan from the interpolated record beats
    /// the window search of [`Index::lookup`]: its records are already fetched, and a
    /// window's six cache lines a hash measured 10-15% slower.)
    pub fn lookup_many(&self, hashes: &[Wide], counts: &mut [u64]) -> Result<(), IndexError> {
        const GROUP: usize = 16;
        assert_eq!(hashes.len(), counts.len());
        let b = self.storage.get();
        if self.records.worth_a_pass() {
            // A dense batch: the rest of the records verified in one pass.
            self.records
                .verify_pass(b, &|at, len| self.storage.populate(at, len));
        }
        for (hs, cs) in hashes.chunks(GROUP).zip(counts.chunks_mut(GROUP)) {
            let mut ranges = [(0u64, 0u64); GROUP];
            for h in hs {
                self.prefetch_table(h);
            }
            for (r, h) in ranges.iter_mut().zip(hs) {
                *r = self.bucket_range(b, h)?;
            }
            // Start fetching each hash's records before searching any of them.
            for (r, h) in ranges.iter().zip(hs) {
                if r.0 < r.1 {
                    self.prefetch_record(self.guess(h, r.0, r.1));
                }
            }
            for ((r, h), c) in ranges.iter().zip(hs).zip(cs.iter_mut()) {
                *c = if r.0 == r.1 {
                    0
                } else {
                    let (key, g) = (self.key_of(h), self.guess(h, r.0, r.1));
                    let (found, read) = self.search(b, &key, r.0, r.1, g);
                    if let Some((first, last)) = read {
                        self.check_records(b, first, last + 1)?;
                    }
                    match found {
                        Some(i) => self.count_of(b, i)?,
                        None => 0,
                    }
                };
            }
        }
        Ok(())
    }

    /// The 24 bytes from record `i`'s start as words (the record and what follows).
    #[inline(always)]
    fn window(&self, b: &[u8], i: u64) -> Wide {
        let at = self.records_off + i as usize * self.params.record_size;
        let b = &b[at..at + 24];
        let be = |k: usize| u64::from_be_bytes(b[k..k + 8].try_into().expect("8 bytes"));
        Wide([be(0), be(8), be(16)])
    }

    /// The key of record `i`: three word loads and a mask, no copying.
    #[inline(always)]
    fn key_at(&self, b: &[u8], i: u64) -> Wide {
        self.window(b, i).and(&self.key_mask)
    }

    /// The count field of record `i`.
    #[inline(always)]
    fn field_at(&self, b: &[u8], i: u64) -> u64 {
        let w = self.window(b, i);
        let low = (u128::from(w.0[1]) << 64) | u128::from(w.0[2]);
        let shift = 192 - self.params.record_size as u32 * 8;
        (low >> shift) as u64 & self.params.saturated()
    }

    /// Finds `key` in records `lo..hi`, starting at the interpolated `guess`: a short
    /// scan towards the key (hashes are uniform, so it is usually a few records away),
    /// then bisection of what is left if the scan goes on too long. Every record of the
    /// range can be reached, the first and the last included; an empty range returns at
    /// once. Also gives the first and last record it read (`None`: none), whose blocks
    /// the caller verifies before it answers: the answer depends on those alone.
    #[inline]
    fn search(
        &self,
        b: &[u8],
        key: &Wide,
        lo: u64,
        hi: u64,
        guess: u64,
    ) -> (Option<u64>, Option<(u64, u64)>) {
        use std::cmp::Ordering::*;
        const SCAN: u64 = 16;
        if lo >= hi {
            return (None, None);
        }
        let g = guess.clamp(lo, hi - 1);
        let (mut lo, mut hi) = (lo, hi);
        let (mut first, mut last) = (g, g);
        match self.key_at(b, g).cmp(key) {
            Equal => return (Some(g), Some((g, g))),
            Less => {
                let stop = (g + 1 + SCAN).min(hi);
                let mut i = g + 1;
                while i < stop {
                    last = i;
                    match self.key_at(b, i).cmp(key) {
                        Less => i += 1,
                        Equal => return (Some(i), Some((first, last))),
                        Greater => return (None, Some((first, last))),
                    }
                }
                lo = i;
            }
            Greater => {
                let stop = g.saturating_sub(SCAN).max(lo);
                let mut i = g;
                while i > stop {
                    first = i - 1;
                    match self.key_at(b, i - 1).cmp(key) {
                        Greater => i -= 1,
                        Equal => return (Some(i - 1), Some((first, last))),
                        Less => return (None, Some((first, last))),
                    }
                }
                hi = i;
            }
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            first = first.min(mid);
            last = last.max(mid);
            match self.key_at(b, mid).cmp(key) {
                Equal => return (Some(mid), Some((first, last))),
                Less => lo = mid + 1,
                Greater => hi = mid,
            }
        }
        (None, Some((first, last)))
    }

    /// The exact count of record `i`.
    #[inline]
    fn count_of(&self, b: &[u8], i: u64) -> Result<u64, IndexError> {
        let field = self.field_at(b, i);
        if field < self.params.saturated() {
            return Ok(field);
        }
        self.overflow.check(self.storage.get())?;
        self.overflow_count(i).ok_or_else(|| {
            IndexError::Corrupt(format!("record {i} has no overflow entry for its count"))
        })
    }

    fn overflow_entry(&self, j: u64) -> (u64, u64) {
        let at = self.overflow_off + j as usize * OVERFLOW_ENTRY;
        (self.u64_at(at), self.u64_at(at + 8))
    }

    fn overflow_count(&self, i: u64) -> Option<u64> {
        let (mut lo, mut hi) = (0, self.header.overflow_entries);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (idx, count) = self.overflow_entry(mid);
            match idx.cmp(&i) {
                std::cmp::Ordering::Equal => return Some(count),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        None
    }

    /// Calls `f` with (hash, count) of every record whose first 20 bits are `prefix`, in
    /// order: one range of the HIBP range API, read without touching other buckets.
    pub fn for_each_in_prefix(
        &self,
        prefix: u32,
        mut f: impl FnMut(&Wide, u64),
    ) -> Result<(), IndexError> {
        let top = u64::from(prefix & 0xf_ffff) << 44;
        let first = self.params.bucket(&Wide([top, 0, 0]));
        let last = self.params.bucket(&Wide([top | ((1 << 44) - 1), 0, 0]));
        for k in first..=last {
            let (lo, hi) = (self.start(k)?, self.start(k + 1)?);
            if lo > hi || hi > self.header.records {
                return Err(IndexError::Corrupt(format!("bucket {k} has bad bounds")));
            }
            if lo < hi {
                self.check_records(self.storage.get(), lo, hi)?;
                // The bucket's records are read in turn: ask for all their lines now,
                // rather than meet a miss at each line (a random range is seldom cached).
                let s = self.params.record_size;
                let at = self.records_off + lo as usize * s;
                prefetch_range(&self.storage.get()[at..at + (hi - lo) as usize * s]);
            }
            let saturated = self.params.saturated();
            for i in lo..hi {
                let (key, field) = self.params.unpack(self.record(i));
                let hash = self.params.hash_of(k, &key);
                if hash.0[0] >> 44 == top >> 44 {
                    // The count field as read, unless it is saturated (then the count is
                    // in the overflow table).
                    let count = if field < saturated {
                        field
                    } else {
                        self.count_of(self.storage.get(), i)?
                    };
                    f(&hash, count);
                }
            }
        }
        Ok(())
    }

    /// Whether any record's hash starts with the 20 bits `prefix` (a range of the HIBP
    /// API holds hashes here): what `okon` asks of a partial index, whose missing ranges
    /// hold none.
    pub fn range_holds_hashes(&self, prefix: u32) -> Result<bool, IndexError> {
        let mut any = false;
        self.for_each_in_prefix(prefix, |_, _| any = true)?;
        Ok(any)
    }

    /// Every record in order as (hash, count): for tests, export and diffs. An index of
    /// format 1 or 2 (records not checked as they are read) is verified whole before its
    /// first record is given, so that nothing made from it rests on an unchecked byte.
    pub fn iter(&self) -> impl Iterator<Item = Result<(Wide, u64), IndexError>> + '_ {
        let mut bucket = 0u64;
        let mut bucket_end: Option<u64> = None;
        (0..self.header.records).map(move |i| {
            if i == 0 {
                self.ensure_checked()?;
            }
            let mut end = match bucket_end {
                Some(e) => e,
                None => self.start(1)?,
            };
            while i >= end {
                bucket += 1;
                if bucket >= self.params.buckets() {
                    return Err(IndexError::Corrupt("records past the last bucket".into()));
                }
                end = self.start(bucket + 1)?;
            }
            bucket_end = Some(end);
            self.check_records(self.storage.get(), i, i + 1)?;
            let (key, _) = self.params.unpack(self.record(i));
            Ok((
                self.params.hash_of(bucket, &key),
                self.count_of(self.storage.get(), i)?,
            ))
        })
    }

    /// For an index of format 1 or 2, whose records are not checked as they are read:
    /// verifies it whole, unless that was done in this process. Commands that read an
    /// index whole, or carry its ranges into another file, call it first, so that
    /// nothing they make rests on an unchecked byte. Nothing to do for format 3.
    pub fn ensure_checked(&self) -> Result<(), IndexError> {
        if self.header.version >= 3
            || self
                .whole_checked
                .load(std::sync::atomic::Ordering::Relaxed)
        {
            return Ok(());
        }
        self.verify(&crate::progress::NoProgress).map(|_| ())
    }

    /// Whether [`Index::ensure_checked`] would verify the whole index.
    pub fn needs_whole_check(&self) -> bool {
        self.header.version < 3
            && !self
                .whole_checked
                .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Checks everything: every checksum, the table's order, the records' order and
    /// buckets, the overflow entries, and the header's totals.
    pub fn verify(&self, progress: &dyn Progress) -> Result<VerifyReport, IndexError> {
        let h = &self.header;
        let bytes = self.storage.get();
        let section = |(off, len): (u64, u64)| &bytes[off as usize..(off + len) as usize];
        let corrupt = |m: String| Err(IndexError::Corrupt(m));
        if xxh3_64(section(h.table_at)) != h.table_sum {
            return corrupt("bucket table checksum mismatch".into());
        }
        if h.version >= 2 && section(h.sums_at) != super::checked::chunk_sums(section(h.table_at)) {
            return corrupt("bucket table chunk checksums mismatch".into());
        }
        if h.version >= 3 {
            lookup_sums_match(section(h.records_at), section(h.lookup_at), "records")?;
        }
        if xxh3_64(section(h.overflow_at)) != h.overflow_sum {
            return corrupt("overflow section checksum mismatch".into());
        }
        let blocks = section(h.blocks_at);
        if xxh3_64(blocks) != h.blocks_sum {
            return corrupt("block checksums section checksum mismatch".into());
        }
        super::checked::gaps_are_zero(
            bytes,
            super::format::HEADER_USED as u64 + 8,
            &[
                h.records_at,
                h.overflow_at,
                h.table_at,
                h.blocks_at,
                h.sums_at,
                h.lookup_at,
            ],
        )?;
        // Two passes over the records, each shown as the bytes it reads.
        progress.phase("verifying checksums");
        progress.restart(h.records_at.1);
        let records = section(h.records_at);
        for (i, chunk) in records.chunks(BLOCK_SIZE as usize).enumerate() {
            let want = u64::from_le_bytes(blocks[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
            if xxh3_64(chunk) != want {
                let start = i as u64 * BLOCK_SIZE;
                return corrupt(format!(
                    "records block {i} (record bytes {start} to {}) checksum mismatch",
                    start + chunk.len() as u64
                ));
            }
            progress.advance(chunk.len() as u64);
        }
        // The table.
        let p = &self.params;
        let mut prev = 0u64;
        for k in 0..=p.buckets() {
            let s = self.start(k)?;
            if s < prev || s > h.records {
                return corrupt(format!("bucket table is not in order at bucket {k}"));
            }
            if k.is_multiple_of(1 << GROUP_BITS) {
                let at = self.offsets_off + k as usize * 4;
                if bytes[at..at + 4] != [0; 4] {
                    return corrupt(format!("bucket table group base mismatch at bucket {k}"));
                }
            }
            prev = s;
        }
        // Records in order, counts, overflow.
        progress.phase("verifying order");
        progress.restart(h.records_at.1);
        let sat = p.saturated();
        let mut saturated = 0u64;
        let mut max = 0u64;
        let mut total = 0u64;
        let mut last: Option<Wide> = None;
        let mut bucket = 0u64;
        let mut bucket_end = self.start(1)?;
        let mut next_overflow = 0u64;
        let step = (h.records / 256).max(1);
        // With at least 20 table bits a bucket lies within one range, which is then
        // noted once per bucket; with fewer, each record's range is noted.
        let mut coverage = super::coverage::Coverage::default();
        let per_bucket = p.table_bits >= 20;
        let mut noted_bucket = None;
        for i in 0..h.records {
            while i >= bucket_end {
                bucket += 1;
                bucket_end = self.start(bucket + 1)?;
                last = None;
            }
            let (key, field) = p.unpack(self.record(i));
            if !per_bucket {
                coverage.note(super::format::prefix_of(&p.hash_of(bucket, &key)));
            } else if noted_bucket != Some(bucket) {
                coverage.note((bucket >> (p.table_bits - 20)) as u32);
                noted_bucket = Some(bucket);
            }
            if last.is_some_and(|l| l >= key) {
                return corrupt(format!("record {i} is out of order"));
            }
            last = Some(key);
            let count = match field {
                0 => return corrupt(format!("record {i} has count 0")),
                f if f < sat => f,
                _ => {
                    saturated += 1;
                    if next_overflow >= h.overflow_entries {
                        return corrupt(format!("record {i} has no overflow entry"));
                    }
                    let (idx, count) = self.overflow_entry(next_overflow);
                    if idx != i || count < sat {
                        return corrupt(format!(
                            "overflow entry {next_overflow} does not match record {i}"
                        ));
                    }
                    next_overflow += 1;
                    count
                }
            };
            max = max.max(count);
            total = total.saturating_add(count);
            if i % step == 0 {
                progress.advance(step * p.record_size as u64);
            }
        }
        if saturated != h.overflow_entries {
            return corrupt("overflow entries without a saturated record".into());
        }
        if max != h.max_count || total != h.total_count {
            return corrupt("header totals do not match the records".into());
        }
        // Everything was checked: lookups from now on test one word (`serve` verifies
        // before it listens).
        self.table.mark_all();
        self.records.mark_all();
        self.whole_checked
            .store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(VerifyReport {
            records: h.records,
            blocks: records.len().div_ceil(BLOCK_SIZE as usize) as u64,
            ranges: coverage.finish(),
        })
    }

    /// Asks the operating system to drop the index from its page cache (for cold-lookup
    /// benchmarks), and returns whether it did: the file's pages are written out first
    /// (a page not yet written is never dropped, which left a freshly generated index
    /// cached), and after the request no more than 1% of them may still be resident
    /// (`mincore`). `false` where the system cannot drop or cannot tell, so that a
    /// benchmark leaves its cold row out rather than show warm lookups as cold.
    pub fn evict_from_cache(path: &Path) -> bool {
        #[cfg(target_os = "linux")]
        {
            let Ok(f) = File::open(path) else {
                return false;
            };
            let _ = f.sync_data();
            if rustix::fs::fadvise(&f, 0, None, rustix::fs::Advice::DontNeed).is_err() {
                return false;
            }
            resident_pages(&f).is_some_and(|(resident, pages)| resident * 100 <= pages)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = path;
            false
        }
    }
}

/// How many of the file's pages are in the page cache, of how many (`None` when the
/// system does not say).
#[cfg(target_os = "linux")]
pub(crate) fn resident_pages(f: &File) -> Option<(usize, usize)> {
    let len = usize::try_from(f.metadata().ok()?.len()).ok()?;
    if len == 0 {
        return Some((0, 0));
    }
    // SAFETY: a read-only shared map of a file this process does not write; only its
    // residency is asked, and no byte of it is read.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(f) }.ok()?;
    let page = rustix::param::page_size();
    let mut status = vec![0u8; len.div_ceil(page)];
    // SAFETY: the map is `len` bytes from a page-aligned address, and `status` holds one
    // byte for each of its pages, as mincore(2) asks.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::mincore(map.as_ptr() as *mut libc::c_void, len, status.as_mut_ptr()) };
    (rc == 0).then(|| (status.iter().filter(|&&b| b & 1 == 1).count(), status.len()))
}

/// The first record of the window a lookup searches around `guess` in a bucket of
/// records `lo..hi` (at least [`WINDOW`] of them).
#[inline(always)]
fn window_start(lo: u64, hi: u64, guess: u64) -> u64 {
    guess
        .saturating_sub(WINDOW as u64 / 2)
        .max(lo)
        .min(hi - WINDOW as u64)
}

/// The little-endian `u64` at `at`.
#[inline(always)]
fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Asks the processor to start loading the cache lines of `bytes` (a hint: nothing is
/// read, and nothing happens on targets without a prefetch instruction).
#[inline(always)]
pub(crate) fn prefetch_range(bytes: &[u8]) {
    for line in bytes.chunks(64) {
        prefetch(&line[0]);
    }
    // The last byte's line, when the range does not start on a line boundary.
    if let Some(last) = bytes.last() {
        prefetch(last);
    }
}

/// Starts fetching the cache line holding `byte` (a hint: nothing waits for it).
#[inline]
pub(crate) fn prefetch(byte: &u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: prefetching is a hint that never faults, and the address is that of
        // a live byte.
        #[allow(unsafe_code)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(byte).cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = byte;
}
