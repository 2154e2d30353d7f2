//! The compact tier: truncated keys with exact counts, 7 bytes per hash
//! (`docs/BREACH-FORMAT.md`, "Compact index").
//!
//! A hash's top `b + 42` bits are its key: `b` bits pick a bucket (a table of `2^b + 1`
//! entry numbers, stored as a u64 base per group of `2^g` buckets and a u16 offset per
//! bucket: 2 bytes a bucket, so the table stays in the caches), the next 42 are stored
//! with a 14-bit count in a 7-byte entry, sorted within the bucket. `b = floor(log2 n) -
//! 7`, so buckets hold 128 to 256 entries on average: an interpolated first probe lands a
//! few entries from the target (measured faster than larger buckets with a table that
//! fits the caches better). An absent hash
//! matches a stored key with probability `n / 2^(b+42)`, 3e-11 to 6e-11 at any size.
//! Counts of 16383 and more are in an overflow section.

use super::bytes::Bytes;
use super::checked::{Chunks, Once};
use super::error::{IndexError, bad_bounds};
use super::format::{HEADER_SIZE, Wide, align};
use super::index::Index;
use super::tier_header::{Tier, TierBuildError, TierHeader, pad_to};
use crate::progress::Progress;
use crate::streams::ChunkWriter;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// Key bits stored in an entry, below the bucket bits.
pub const SUFFIX_BITS: u32 = 42;
/// Count bits in an entry.
pub const COUNT_BITS: u32 = 14;
/// The count field's value for "the count is in the overflow section".
pub const COUNT_IN_OVERFLOW: u64 = (1 << COUNT_BITS) - 1;
/// Bytes of an entry.
pub const ENTRY: usize = 7;
/// Bytes of an overflow entry: bucket, suffix, count (u64 LE each).
pub const OVERFLOW_ENTRY: usize = 24;
/// Entries searched without branches around the interpolated position.
const WINDOW: usize = 32;
/// Bytes read for a window: the last entry is read as 8 bytes.
const WINDOW_BYTES: usize = (WINDOW - 1) * ENTRY + 8;
/// The most bucket bits.
pub const MAX_BUCKET_BITS: u32 = 40;
/// The bucket table's group bits when every group's entries fit 16-bit offsets (at 128
/// to 256 entries a bucket, a group holds 16K to 32K entries); a build takes fewer when
/// some group holds more.
pub const GROUP_BITS: u32 = 7;

const SUFFIX_MASK: u64 = (1 << SUFFIX_BITS) - 1;
const ENTRY_MASK: u64 = (1 << (ENTRY * 8)) - 1;

/// Bucket bits for `n` hashes.
pub fn bucket_bits(n: u64) -> u32 {
    if n < 256 {
        0
    } else {
        (n.ilog2() - 7).min(MAX_BUCKET_BITS)
    }
}

/// (bucket, suffix) of a hash for bucket bits `b`.
#[inline]
fn split(hash: &Wide, b: u32) -> (u64, u64) {
    let key = (u128::from(hash.0[0]) << 64) | u128::from(hash.0[1]);
    let bucket = if b == 0 { 0 } else { (key >> (128 - b)) as u64 };
    let suffix = (key >> (128 - b - SUFFIX_BITS)) as u64 & SUFFIX_MASK;
    (bucket, suffix)
}

/// An open compact index.
pub struct Compact {
    bytes: Bytes,
    header: TierHeader,
    body_off: usize,
    /// The table's group bases (u64) and bucket offsets (u16).
    bases_off: usize,
    offsets_off: usize,
    group_bits: u32,
    overflow_off: usize,
    overflow_len: usize,
    /// Bytes of group bases at the table's start (verified at opening).
    groups_bytes: usize,
    /// The bucket table, verified chunk by chunk as lookups read it.
    table: Chunks,
    /// The entries, verified in lookup blocks as lookups read them (version 4; taken as
    /// verified in older files, which have no such checksums).
    body: Chunks,
    /// The overflow section, verified on its first use.
    overflow: Once,
}

impl Compact {
    /// Opens and maps a compact index, checking its header and its table's ends.
    pub fn open(path: &Path) -> Result<Compact, IndexError> {
        Compact::open_file(&File::open(path)?)
    }

    /// As [`Compact::open`], for a file already open.
    pub fn open_file(file: &File) -> Result<Compact, IndexError> {
        let (bytes, len) = Bytes::open(file, false)?;
        Compact::from_bytes(bytes, len)
    }

    /// Reads a compact index into memory (huge pages where the system allows): the
    /// fastest lookups, for long-running processes.
    pub fn open_in_memory(path: &Path) -> Result<Compact, IndexError> {
        let (bytes, len) = Bytes::open(&File::open(path)?, true)?;
        Compact::from_bytes(bytes, len)
    }

    /// A compact index held in memory (tests, fuzzing).
    pub fn from_slice(bytes: &[u8]) -> Result<Compact, IndexError> {
        Compact::from_bytes(Bytes::owned(bytes)?, bytes.len() as u64)
    }

    fn from_bytes(bytes: Bytes, len: u64) -> Result<Compact, IndexError> {
        let header = TierHeader::decode(bytes.get(), len)?;
        let corrupt = |m: &str| IndexError::Corrupt(m.to_string());
        if header.tier != Tier::Compact {
            return Err(corrupt("not a compact index"));
        }
        if header.bits > MAX_BUCKET_BITS {
            return Err(corrupt("bucket bits out of range"));
        }
        if header
            .entries
            .checked_mul(ENTRY as u64)
            .and_then(|v| v.checked_add(1))
            != Some(header.body_at.1)
        {
            return Err(corrupt("entries section length"));
        }
        if header.group_bits > header.bits.min(GROUP_BITS) {
            return Err(corrupt("table group bits out of range"));
        }
        if header.table_at.1 != table_len(header.bits, header.group_bits) {
            return Err(corrupt("bucket table length"));
        }
        if !header.overflow_at.1.is_multiple_of(OVERFLOW_ENTRY as u64) {
            return Err(corrupt("overflow section length"));
        }
        let groups_bytes = group_count(header.bits, header.group_bits) as usize * 8;
        let table = if header.table_summed() {
            Chunks::lazy(bytes.get(), header.table_at, header.sums_at, groups_bytes)?
        } else {
            Chunks::whole(bytes.get(), header.table_at, header.table_sum)?
        };
        let c = Compact {
            groups_bytes,
            table,
            body: header.body_blocks("entries")?,
            overflow: Once::new(header.overflow_at, header.overflow_sum, "overflow section"),
            body_off: header.body_at.0 as usize,
            bases_off: header.table_at.0 as usize,
            offsets_off: (header.table_at.0 + group_count(header.bits, header.group_bits) * 8)
                as usize,
            group_bits: header.group_bits,
            overflow_off: header.overflow_at.0 as usize,
            overflow_len: (header.overflow_at.1 / OVERFLOW_ENTRY as u64) as usize,
            bytes,
            header,
        };
        if c.start(0) != 0 || c.start(1 << c.header.bits) != c.header.entries {
            return Err(corrupt("the bucket table does not cover the entries"));
        }
        Ok(c)
    }

    /// The header.
    pub fn header(&self) -> &TierHeader {
        &self.header
    }

    /// The chance that an absent hash matches a stored key.
    pub fn false_positive_rate(&self) -> f64 {
        self.header.entries as f64 / 2f64.powi((self.header.bits + SUFFIX_BITS) as i32)
    }

    #[inline]
    fn u64_at(&self, at: usize) -> u64 {
        let b = self.bytes.get();
        u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
    }

    /// The first entry of bucket `k` (0 ≤ k ≤ 2^b).
    #[inline]
    fn start(&self, k: u64) -> u64 {
        let at = self.offsets_off + k as usize * 2;
        let rel = self.groups_bytes + k as usize * 2;
        if self
            .table
            .check_span(self.bytes.get(), rel, rel + 1)
            .is_err()
        {
            // A damaged table: a start no bucket can have, which the callers refuse.
            return u64::MAX;
        }
        let off = u16::from_le_bytes(self.bytes.get()[at..at + 2].try_into().expect("2 bytes"));
        self.base(k).saturating_add(u64::from(off))
    }

    /// The base of bucket `k`'s group.
    #[inline]
    fn base(&self, k: u64) -> u64 {
        self.u64_at(self.bases_off + (k >> self.group_bits) as usize * 8)
    }

    /// Entry `i` as (suffix, count field).
    #[inline]
    fn entry(&self, i: u64) -> (u64, u64) {
        let e = self.u64_at(self.body_off + i as usize * ENTRY) & ENTRY_MASK;
        (e >> COUNT_BITS, e & COUNT_IN_OVERFLOW)
    }

    /// The entries of `bucket`, checked to lie in order inside the body: `start(bucket)`
    /// and `start(bucket + 1)`, with both offsets read through one 4-byte slice (one
    /// bounds check on the hot path instead of two).
    #[inline]
    fn bounds(&self, bucket: u64) -> Result<(u64, u64), IndexError> {
        // Both offsets, in chunks verified before their first read.
        let rel = self.groups_bytes + bucket as usize * 2;
        self.table.check_span(self.bytes.get(), rel, rel + 3)?;
        let at = self.offsets_off + bucket as usize * 2;
        let pair: &[u8; 4] = self.bytes.get()[at..at + 4].try_into().expect("4 bytes");
        // Saturating: a damaged base fails the check below instead of wrapping.
        let (lo_off, hi_off) = (
            u16::from_le_bytes([pair[0], pair[1]]),
            u16::from_le_bytes([pair[2], pair[3]]),
        );
        let lo = self.base(bucket).saturating_add(u64::from(lo_off));
        let hi = self.base(bucket + 1).saturating_add(u64::from(hi_off));
        if lo > hi || hi > self.header.entries {
            return Err(bad_bounds(bucket));
        }
        Ok((lo, hi))
    }

    #[inline]
    fn guess(lo: u64, hi: u64, suffix: u64) -> u64 {
        lo + ((u128::from(suffix) * u128::from(hi - lo)) >> SUFFIX_BITS) as u64
    }

    /// The count of `hash` (0 when absent; an absent hash matches with the rate of
    /// [`Compact::false_positive_rate`]).
    #[inline(always)]
    pub fn lookup(&self, hash: &Wide) -> Result<u64, IndexError> {
        let (bucket, suffix) = split(hash, self.header.bits);
        let (lo, hi) = self.bounds(bucket)?;
        match self.window_search(suffix, lo, hi) {
            Ok(field) => {
                // The answer came from the window's entries alone (none when the bucket
                // is empty): their blocks verified before it is given.
                if lo < hi {
                    let w_lo = window_lo(lo, hi, suffix);
                    self.check_entries(w_lo, w_lo + WINDOW as u64)?;
                }
                Ok(field)
            }
            Err(()) => self.lookup_beyond_window(bucket, suffix, lo, hi),
        }
    }

    /// Verifies the lookup blocks holding entries `first..end` (not empty), unless done
    /// before in this process.
    #[inline(always)]
    fn check_entries(&self, first: u64, end: u64) -> Result<(), IndexError> {
        self.body.check_span(
            self.bytes.get(),
            first as usize * ENTRY,
            end as usize * ENTRY - 1,
        )
    }

    /// The rest of [`Compact::lookup`]: the answer may lie outside the window, or the
    /// candidate's count is in the overflow section (about 1% of lookups). Out of line,
    /// so the common path stays short.
    #[cold]
    #[inline(never)]
    fn lookup_beyond_window(
        &self,
        bucket: u64,
        suffix: u64,
        lo: u64,
        hi: u64,
    ) -> Result<u64, IndexError> {
        let (found, read) = self.search(suffix, lo, hi, Compact::guess(lo, hi, suffix));
        if let Some((first, last)) = read {
            self.check_entries(first, last + 1)?;
        }
        match found {
            Some(field) => self.count(bucket, suffix, field),
            None => Ok(0),
        }
    }

    /// Branch-light search of the [`WINDOW`] entries around the interpolated position:
    /// a fixed-length binary search with conditional moves over one bounds-checked
    /// slice finds the first entry not below `suffix`, and the answer is selected, not
    /// branched to. Nothing in the common path branches on the loaded entries, so the
    /// processor can start the next lookup's memory accesses while this one's are in
    /// flight (a scan branching on each entry measured 1.5 to 2 times slower).
    /// `Ok(count)` (0 when absent) when the answer is inside the window; `Err(())` when
    /// it may lie beyond (the interpolation missed by more than half a window: about 1%
    /// of lookups at 128 to 256 entries a bucket), the bucket is smaller than the
    /// window, the window would pass the end of the file, or the candidate's count is
    /// in the overflow section.
    #[inline]
    fn window_search(&self, suffix: u64, lo: u64, hi: u64) -> Result<u64, ()> {
        const W: u64 = WINDOW as u64;
        if lo == hi {
            return Ok(0);
        }
        if hi - lo < W {
            return Err(());
        }
        let w_lo = window_lo(lo, hi, suffix);
        let start = self.body_off + w_lo as usize * ENTRY;
        let Some(win) = self.bytes.get().get(start..start + WINDOW_BYTES) else {
            return Err(());
        };
        let win: &[u8; WINDOW_BYTES] = win.try_into().expect("window length");
        // The window spans four or five cache lines, and the search's probes depend on
        // each other: fetch every line now, so that they arrive together instead of
        // one after another (measured 5-10% faster than fetching the two quarter lines).
        for at in (0..WINDOW_BYTES).step_by(64) {
            super::index::prefetch(&win[at]);
        }
        super::index::prefetch(&win[WINDOW_BYTES - 1]);
        // The entry at byte `at` of the window, suffix and count field, compared whole
        // against `suffix` shifted into place (an entry's suffix is below `suffix`
        // exactly when the entry is below `key`): no shift on the loaded bytes.
        let entry = |at: usize| {
            let at = at.min(WINDOW_BYTES - 8);
            u64::from_le_bytes(win[at..at + 8].try_into().expect("8 bytes")) & ENTRY_MASK
        };
        let key = suffix << COUNT_BITS;
        // Byte offsets, not indexes: one addition and one conditional move a step.
        let mut base = 0;
        let mut n = WINDOW;
        while n > 1 {
            let half = n / 2;
            let probe = base + half * ENTRY;
            base = std::hint::select_unpredictable(entry(probe) < key, probe, base);
            n -= half;
        }
        let below = entry(base) < key;
        let first = base + usize::from(below) * ENTRY;
        if (base == 0 && !below && w_lo > lo) || (first == WINDOW * ENTRY && w_lo + W < hi) {
            return Err(());
        }
        let e = entry(first);
        let field = e & COUNT_IN_OVERFLOW;
        // A large count (rare) is looked up by the caller's slow path. The test is on the
        // candidate's count, not on the answer: a test of the answer let the compiler
        // turn the selection below into a branch on "found", which mispredicts on half
        // of a mixed workload and measured some 10 ns slower a lookup.
        if field == COUNT_IN_OVERFLOW {
            return Err(());
        }
        // One condition: past the window's end (`first == WINDOW * ENTRY`), `entry`
        // reads the last entry, which is below `key`, so its suffix differs. A second
        // condition here let the compiler thread the selection into a branch on
        // "found", which mispredicts on half of a mixed workload and stops independent
        // lookups from overlapping (measured 1.7 times slower).
        Ok(std::hint::select_unpredictable(
            e >> COUNT_BITS == suffix,
            field,
            0,
        ))
    }

    /// The count of `hash` by the scan from the interpolated guess (the previous
    /// search, kept for the side-by-side benchmark).
    #[doc(hidden)]
    #[inline]
    pub fn lookup_scan(&self, hash: &Wide) -> Result<u64, IndexError> {
        let (bucket, suffix) = split(hash, self.header.bits);
        let (lo, hi) = self.bounds(bucket)?;
        if lo == hi {
            return Ok(0);
        }
        let g = Compact::guess(lo, hi, suffix);
        let (found, read) = self.search(suffix, lo, hi, g);
        if let Some((first, last)) = read {
            self.check_entries(first, last + 1)?;
        }
        match found {
            Some(field) => self.count(bucket, suffix, field),
            None => Ok(0),
        }
    }

    /// Looks up many hashes; `counts[i]` is the count of `hashes[i]`. Fetches the table
    /// entries and first probes of a group before searching any of them.
    pub fn lookup_many(&self, hashes: &[Wide], counts: &mut [u64]) -> Result<(), IndexError> {
        const GROUP: usize = 16;
        assert_eq!(hashes.len(), counts.len());
        let b = self.header.bits;
        let bytes = self.bytes.get();
        if self.body.worth_a_pass() {
            // A dense batch: the rest of the entries verified in one pass.
            self.body
                .verify_pass(bytes, &|at, len| self.bytes.populate(at, len));
        }
        for (hs, cs) in hashes.chunks(GROUP).zip(counts.chunks_mut(GROUP)) {
            let mut keys = [(0u64, 0u64); GROUP];
            for (k, h) in keys.iter_mut().zip(hs) {
                *k = split(h, b);
                let at = self.offsets_off + k.0 as usize * 2;
                super::index::prefetch_range(&bytes[at..at + 4]);
            }
            let mut ranges = [(0u64, 0u64); GROUP];
            for (r, k) in ranges.iter_mut().zip(&keys[..hs.len()]) {
                *r = self.bounds(k.0)?;
                if r.0 < r.1 {
                    let at = self.body_off + Compact::guess(r.0, r.1, k.1) as usize * ENTRY;
                    super::index::prefetch_range(&bytes[at..at + 8]);
                }
            }
            for ((r, k), c) in ranges.iter().zip(&keys).zip(cs.iter_mut()) {
                *c = if r.0 == r.1 {
                    0
                } else {
                    let (found, read) = self.search(k.1, r.0, r.1, Compact::guess(r.0, r.1, k.1));
                    if let Some((first, last)) = read {
                        self.check_entries(first, last + 1)?;
                    }
                    match found {
                        Some(field) => self.count(k.0, k.1, field)?,
                        None => 0,
                    }
                };
            }
        }
        Ok(())
    }

    /// Finds `suffix` in entries `lo..hi` starting at `g`: a short scan from the
    /// interpolated guess, then binary search if the scan has not settled it. Also gives
    /// the first and last entry it read, whose blocks the caller verifies before it
    /// answers.
    #[inline]
    fn search(&self, suffix: u64, lo: u64, hi: u64, g: u64) -> (Option<u64>, Option<(u64, u64)>) {
        const SCAN: u32 = 32;
        let (s, field) = self.entry(g);
        let (mut first, mut last) = (g, g);
        if s == suffix {
            return (Some(field), Some((g, g)));
        }
        let (mut a, mut z) = if s < suffix { (g + 1, hi) } else { (lo, g) };
        // Scan towards the target from the guess.
        for _ in 0..SCAN {
            if a >= z {
                return (None, Some((first, last)));
            }
            let i = if s < suffix { a } else { z - 1 };
            first = first.min(i);
            last = last.max(i);
            let (t, f) = self.entry(i);
            if t == suffix {
                return (Some(f), Some((first, last)));
            }
            if (s < suffix) == (t < suffix) {
                if s < suffix {
                    a += 1;
                } else {
                    z -= 1;
                }
            } else {
                return (None, Some((first, last)));
            }
        }
        while a < z {
            let mid = a + (z - a) / 2;
            first = first.min(mid);
            last = last.max(mid);
            let (t, f) = self.entry(mid);
            match t.cmp(&suffix) {
                std::cmp::Ordering::Equal => return (Some(f), Some((first, last))),
                std::cmp::Ordering::Less => a = mid + 1,
                std::cmp::Ordering::Greater => z = mid,
            }
        }
        (None, Some((first, last)))
    }

    /// Whether any entry's key starts with the 20 bits `prefix` (a range of the HIBP API
    /// holds hashes here): what `okon` asks of a partial index, whose missing ranges
    /// hold none.
    pub fn range_holds_hashes(&self, prefix: u32) -> Result<bool, IndexError> {
        let b = self.header.bits;
        let key_bits = b + SUFFIX_BITS;
        let prefix = u64::from(prefix & 0xf_ffff);
        // The buckets whose keys may start with `prefix`.
        let (first, last) = if b >= 20 {
            (prefix << (b - 20), ((prefix + 1) << (b - 20)) - 1)
        } else {
            (prefix >> (20 - b), prefix >> (20 - b))
        };
        for bucket in first..=last {
            let (lo, hi) = self.bounds(bucket)?;
            if lo == hi {
                continue;
            }
            if b >= 20 {
                return Ok(true);
            }
            self.check_entries(lo, hi)?;
            for i in lo..hi {
                let key = (bucket << SUFFIX_BITS) | self.entry(i).0;
                if key >> (key_bits - 20) == prefix {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    fn count(&self, bucket: u64, suffix: u64, field: u64) -> Result<u64, IndexError> {
        if field != COUNT_IN_OVERFLOW {
            return Ok(field);
        }
        self.overflow.check(self.bytes.get())?;
        let (mut a, mut z) = (0usize, self.overflow_len);
        while a < z {
            let mid = a + (z - a) / 2;
            let at = self.overflow_off + mid * OVERFLOW_ENTRY;
            let key = (self.u64_at(at), self.u64_at(at + 8));
            match key.cmp(&(bucket, suffix)) {
                std::cmp::Ordering::Equal => return Ok(self.u64_at(at + 16)),
                std::cmp::Ordering::Less => a = mid + 1,
                std::cmp::Ordering::Greater => z = mid,
            }
        }
        Err(IndexError::Corrupt(
            "a large count is missing from the overflow section".into(),
        ))
    }

    /// Checks everything: the checksums, the table's order, the entries' order within
    /// buckets, the overflow entries and the header's totals.
    pub fn verify(&self, progress: &dyn Progress) -> Result<u64, IndexError> {
        let h = &self.header;
        h.verify_sections(self.bytes.get())?;
        let corrupt = |m: String| Err(IndexError::Corrupt(m));
        // In bytes of entries, as the verify bar counts the file.
        progress.set_total(h.entries * ENTRY as u64);
        let mut overflow = 0usize;
        let mut max = 0u64;
        let mut unreported = 0u64;
        for bucket in 0..(1u64 << h.bits) {
            let (lo, hi) = self.bounds(bucket)?;
            let mut prev: Option<u64> = None;
            for i in lo..hi {
                let (s, field) = self.entry(i);
                if prev.is_some_and(|p| p >= s) {
                    return corrupt(format!("entry {i} is out of order"));
                }
                prev = Some(s);
                let count = if field == COUNT_IN_OVERFLOW {
                    let at = self.overflow_off + overflow * OVERFLOW_ENTRY;
                    if overflow >= self.overflow_len
                        || (self.u64_at(at), self.u64_at(at + 8)) != (bucket, s)
                    {
                        return corrupt(format!("entry {i}: its overflow entry is missing"));
                    }
                    overflow += 1;
                    self.u64_at(at + 16)
                } else {
                    field
                };
                if count == 0 {
                    return corrupt(format!("entry {i} has count 0"));
                }
                max = max.max(count);
            }
            unreported += (hi - lo) * ENTRY as u64;
            if bucket % 4096 == 4095 {
                progress.advance(unreported);
                unreported = 0;
            }
        }
        progress.advance(unreported);
        if overflow != self.overflow_len {
            return corrupt("overflow entries without a large count".into());
        }
        if max != h.max_count && h.collisions == 0 {
            return corrupt("the largest count does not match the header".into());
        }
        // Everything was checked: lookups from now on test one word.
        self.table.mark_all();
        self.body.mark_all();
        Ok(h.entries)
    }
}

/// Builds a compact index of `index` into `out` (from offset 0). The caller syncs.
pub fn build(
    index: &Index,
    out: &mut File,
    progress: &dyn Progress,
) -> Result<TierHeader, TierBuildError> {
    build_with_bucket_bits(index, bucket_bits(index.header().records), out, progress)
}

/// As [`build`] with chosen bucket bits (benchmarks of the layout; readers take any).
#[doc(hidden)]
pub fn build_with_bucket_bits(
    index: &Index,
    b: u32,
    out: &mut File,
    progress: &dyn Progress,
) -> Result<TierHeader, TierBuildError> {
    let b = b.min(MAX_BUCKET_BITS);
    let src = index.header();
    let w = TierBuildError::Write;
    out.set_len(0).map_err(w)?;
    out.seek(SeekFrom::Start(0)).map_err(w)?;
    // 2 MiB-aligned writes: the built file stays in the page cache in huge folios.
    let mut file = ChunkWriter::new(&mut *out, 0);
    file.write_all(&[0u8; HEADER_SIZE]).map_err(w)?;
    progress.set_total(src.records);

    let mut table = vec![0u64; (1usize << b) + 1];
    let mut overflow: Vec<u8> = Vec::new();
    let mut sum = Xxh3::new();
    // The entries' lookup block checksums (0.8% of the entries), written last.
    let mut lookup = super::checked::BlockSummer::new(Vec::new());
    let mut entries = 0u64;
    let mut collisions = 0u64;
    let mut pending: Option<(u64, u64, u64)> = None;
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut flush =
        |(bucket, suffix, count): (u64, u64, u64), buf: &mut Vec<u8>, overflow: &mut Vec<u8>| {
            table[bucket as usize + 1] += 1;
            let field = if count >= COUNT_IN_OVERFLOW {
                for v in [bucket, suffix, count] {
                    overflow.extend_from_slice(&v.to_le_bytes());
                }
                COUNT_IN_OVERFLOW
            } else {
                count
            };
            let e = (suffix << COUNT_BITS) | field;
            buf.extend_from_slice(&e.to_le_bytes()[..ENTRY]);
        };
    for (n, item) in index.iter().enumerate() {
        let (hash, count) = item?;
        let (bucket, suffix) = split(&hash, b);
        match pending {
            Some((pb, ps, pc)) if (pb, ps) == (bucket, suffix) => {
                collisions += 1;
                pending = Some((pb, ps, pc.saturating_add(count)));
            }
            Some(p) => {
                flush(p, &mut buf, &mut overflow);
                entries += 1;
                pending = Some((bucket, suffix, count));
            }
            None => pending = Some((bucket, suffix, count)),
        }
        if buf.len() >= (1 << 16) - 16 {
            sum.update(&buf);
            lookup.add(&buf).map_err(w)?;
            file.write_all(&buf).map_err(w)?;
            buf.clear();
        }
        if n % 65536 == 65535 {
            progress.advance(65536);
        }
    }
    if let Some(p) = pending {
        flush(p, &mut buf, &mut overflow);
        entries += 1;
    }
    // One byte of padding: entries are read as 8-byte words.
    buf.push(0);
    sum.update(&buf);
    lookup.add(&buf).map_err(w)?;
    file.write_all(&buf).map_err(w)?;
    progress.advance(src.records % 65536);

    let body_at = (HEADER_SIZE as u64, entries * ENTRY as u64 + 1);
    let mut at = body_at.0 + body_at.1;
    let overflow_at = (align(at), overflow.len() as u64);
    pad_to(&mut file, &mut at, overflow_at.0).map_err(w)?;
    file.write_all(&overflow).map_err(w)?;
    at += overflow.len() as u64;
    for k in 1..table.len() {
        table[k] += table[k - 1];
    }
    let (group_bits, table_bytes) = encode_table(&table, b);
    let table_at = (align(at), table_bytes.len() as u64);
    pad_to(&mut file, &mut at, table_at.0).map_err(w)?;
    file.write_all(&table_bytes).map_err(w)?;
    at += table_bytes.len() as u64;
    // The table's chunk checksums, checked on the lookup path.
    let table_sums = super::checked::chunk_sums(&table_bytes);
    let sums_at = (align(at), table_sums.len() as u64);
    pad_to(&mut file, &mut at, sums_at.0).map_err(w)?;
    file.write_all(&table_sums).map_err(w)?;
    at += table_sums.len() as u64;
    // The entries' lookup block checksums, checked on the lookup path.
    let lookup_sums = lookup.finish().map_err(w)?;
    let lookup_at = (align(at), lookup_sums.len() as u64);
    pad_to(&mut file, &mut at, lookup_at.0).map_err(w)?;
    file.write_all(&lookup_sums).map_err(w)?;
    at += lookup_sums.len() as u64;
    file.flush().map_err(w)?;
    drop(file);
    let header = TierHeader {
        tier: Tier::Compact,
        kind: src.params.kind,
        bits: b,
        group_bits,
        hashes: src.records,
        entries,
        collisions,
        max_count: src.max_count,
        total_count: src.total_count,
        source_id: src.identity(),
        body_at,
        overflow_at,
        table_at,
        body_sum: sum.digest(),
        overflow_sum: xxhash_rust::xxh3::xxh3_64(&overflow),
        table_sum: xxhash_rust::xxh3::xxh3_64(&table_bytes),
        file_len: at,
        version: super::tier_header::COMPACT_VERSION,
        flags: src.flags,
        sums_at,
        lookup_at,
    };
    out.seek(SeekFrom::Start(0)).map_err(w)?;
    out.write_all(&header.encode()).map_err(w)?;
    Ok(header)
}

/// The first entry of the window a lookup searches in a bucket of entries `lo..hi` (at
/// least [`WINDOW`] of them) for `suffix`.
#[inline(always)]
fn window_lo(lo: u64, hi: u64, suffix: u64) -> u64 {
    const W: u64 = WINDOW as u64;
    Compact::guess(lo, hi, suffix)
        .saturating_sub(W / 2)
        .max(lo)
        .min(hi - W)
}

/// Groups in a table of `2^b + 1` bucket starts with `2^g` buckets a group.
fn group_count(b: u32, g: u32) -> u64 {
    ((1u64 << b) >> g) + 1
}

/// Bytes of the bucket table: the group bases (u64) and the bucket offsets (u16), padded
/// to 8 bytes.
fn table_len(b: u32, g: u32) -> u64 {
    (group_count(b, g) * 8 + ((1u64 << b) + 1) * 2).next_multiple_of(8)
}

/// The table section for bucket starts `starts` (`2^b + 1` of them): the most group
/// bits, up to [`GROUP_BITS`], whose groups' offsets fit 16 bits (0 always does).
fn encode_table(starts: &[u64], b: u32) -> (u32, Vec<u8>) {
    // Bucket k's offset from its group's first bucket, with 2^g buckets a group.
    let offset = |k: usize, g: u32| starts[k] - starts[(k >> g) << g];
    let fits = |g: u32| (0..starts.len()).all(|k| offset(k, g) <= u64::from(u16::MAX));
    let g = (0..=b.min(GROUP_BITS))
        .rev()
        .find(|&g| fits(g))
        .unwrap_or(0);
    let mut out = Vec::with_capacity(table_len(b, g) as usize);
    for i in 0..group_count(b, g) {
        out.extend_from_slice(&starts[(i << g) as usize].to_le_bytes());
    }
    for k in 0..starts.len() {
        out.extend_from_slice(&(offset(k, g) as u16).to_le_bytes());
    }
    out.resize(table_len(b, g) as usize, 0);
    (g, out)
}
