//! What pages hold once decrypted: records (data pages), token entries (index pages)
//! and page references (directory pages); their capacities; buckets and tags.

use super::codec::{Cursor, PageRef, get_varint, put_varint, varint_len};
use super::{KeyPlace, RecordsError};
use std::ops::ControlFlow;

/// Page kinds, bound into each page's associated data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// Records.
    Data = 1,
    /// Token index.
    Index = 2,
    /// Directory of data pages.
    DataDir = 3,
    /// Directory of index pages.
    IndexDir = 4,
    /// The input's header row.
    Prefix = 5,
    /// A part of the file's compression dictionary.
    Dict = 6,
}

impl Kind {
    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Data => "data",
            Kind::Index => "index",
            Kind::DataDir => "data directory",
            Kind::IndexDir => "index directory",
            Kind::Prefix => "prefix",
            Kind::Dict => "dictionary",
        }
    }
}

/// Bytes a page spends on its nonce and tag.
pub const PAGE_OVERHEAD: usize = 28;

/// Plaintext bytes of a page.
pub fn data_capacity(page_size: usize) -> usize {
    page_size - PAGE_OVERHEAD
}

/// Entries of a directory page.
pub fn dir_capacity(page_size: usize) -> usize {
    (page_size - PAGE_OVERHEAD - 2) / 20
}

/// The bucket of a token: its high bits, scaled to `buckets`.
#[inline]
pub fn bucket_of(token: u64, buckets: u32) -> u32 {
    ((u128::from(token) * u128::from(buckets)) >> 64) as u32
}

/// One record inside a decrypted data page: where its bytes and its key are.
#[derive(Debug, Clone)]
pub struct Rec {
    /// The record's bytes in the page.
    pub raw: std::ops::Range<usize>,
    /// Its key.
    pub key: KeyIn,
}

/// Where a record's key is in a data page.
#[derive(Debug, Clone)]
pub enum KeyIn {
    /// A range of the record's bytes (relative to the record).
    InRaw(std::ops::Range<usize>),
    /// Bytes of its own (a range of the page).
    Own(std::ops::Range<usize>),
}

impl Rec {
    /// The key's bytes.
    pub fn key<'a>(&self, page: &'a [u8]) -> &'a [u8] {
        match &self.key {
            KeyIn::InRaw(r) => &page[self.raw.start + r.start..self.raw.start + r.end],
            KeyIn::Own(r) => &page[r.clone()],
        }
    }

    /// The record as an owned input record (for rewriting a page).
    pub fn to_owned_parts(&self, page: &[u8]) -> (Vec<u8>, KeyPlace) {
        let key = match &self.key {
            KeyIn::InRaw(k) => KeyPlace::InRaw(k.clone()),
            KeyIn::Own(k) => KeyPlace::Own(page[k.clone()].to_vec()),
        };
        (page[self.raw.clone()].to_vec(), key)
    }
}

/// Parses a data page's records: `u16 count`, then the records.
pub fn parse_data(page: &[u8]) -> Option<Vec<Rec>> {
    let count = page
        .get(..2)
        .map_or(0, |c| u16::from_le_bytes([c[0], c[1]]));
    let mut out = Vec::with_capacity(usize::from(count));
    each_record(page, |rec, _| {
        out.push(rec);
        ControlFlow::<()>::Continue(())
    })?;
    Some(out)
}

/// Calls `f` with each record of a data page and where it starts, in order, until `f`
/// breaks: `Some` of what it broke with, or `Some(None)` after the last record; `None`
/// when the page does not parse before that.
#[inline]
pub fn each_record<B>(
    page: &[u8],
    mut f: impl FnMut(Rec, usize) -> ControlFlow<B>,
) -> Option<Option<B>> {
    let n = u16::from_le_bytes(page.get(..2)?.try_into().ok()?) as usize;
    let mut at = 2;
    for _ in 0..n {
        let (rec, next) = parse_record(page, at)?;
        if let ControlFlow::Break(b) = f(rec, at) {
            return Some(Some(b));
        }
        at = next;
    }
    Some(None)
}

/// Parses the record at `at`; returns it and where the next one starts. A record is a
/// varint `raw length · 2 + own`, the raw bytes, then either varints `key offset, key
/// length` into them (`own` = 0) or a varint key length and the key bytes (`own` = 1).
/// A raw length of 0 (written only in files of record compression 2: no record is
/// empty) is a line: the raw bytes run through the first LF.
#[inline]
pub fn parse_record(page: &[u8], mut at: usize) -> Option<(Rec, usize)> {
    let head = get_varint(page, &mut at)?;
    let own = head & 1 == 1;
    let raw_len = match usize::try_from(head >> 1).ok()? {
        0 => memchr::memchr(b'\n', page.get(at..)?)? + 1,
        n => n,
    };
    let raw = at..at.checked_add(raw_len)?;
    if raw.end > page.len() {
        return None;
    }
    at = raw.end;
    let key = if own {
        let len = get_varint(page, &mut at)? as usize;
        let r = at..at.checked_add(len)?;
        if r.end > page.len() {
            return None;
        }
        at = r.end;
        KeyIn::Own(r)
    } else {
        let off = get_varint(page, &mut at)? as usize;
        let len = get_varint(page, &mut at)? as usize;
        if off.checked_add(len)? > raw_len {
            return None;
        }
        KeyIn::InRaw(off..off + len)
    };
    Some((Rec { raw, key }, at))
}

/// The raw bytes of the record with `key` in a data page, scanning without allocating.
/// `None` when the page does not parse.
pub fn find_in_data<'p>(page: &'p [u8], key: &[u8]) -> Option<Option<&'p [u8]>> {
    find_in_data_by(page, |k| same_key(k, key))
}

/// [`find_in_data`] of the first record whose key `is` the one sought.
#[inline]
pub fn find_in_data_by(page: &[u8], is: impl Fn(&[u8]) -> bool) -> Option<Option<&[u8]>> {
    each_record(page, |rec, _| {
        if is(rec.key(page)) {
            ControlFlow::Break(&page[rec.raw])
        } else {
            ControlFlow::Continue(())
        }
    })
}

/// The most of a page [`prefetch`] asks for: the default page whole; of a larger page
/// its start, after which the processor's own prefetcher follows the scan.
const PREFETCH_BYTES: usize = 4096;

/// Asks the processor to bring the cache lines of `page` in (up to [`PREFETCH_BYTES`]).
/// A scan of a data page finds where each record starts only by reading the one before,
/// so without this every record it passes costs one memory latency in turn; with it,
/// the lines arrive together. The page cache issues it as it hands out a data page,
/// before it touches the page's first line itself.
#[inline]
pub fn prefetch(page: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for line in page[..page.len().min(PREFETCH_BYTES)].chunks(64) {
        // SAFETY: a prefetch is a hint with no effect on memory or on faults; SSE is
        // part of x86-64.
        #[allow(unsafe_code)]
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                line.as_ptr().cast(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = page;
}

/// Asks the processor to bring in the cache line holding `x` (see [`prefetch`]).
#[inline]
pub fn prefetch_line<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint with no effect on memory or on faults; SSE is part of
    // x86-64.
    #[allow(unsafe_code)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (x as *const T).cast(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Key equality, with a mismatch in the first eight bytes (nearly every record a scan
/// passes) found by one comparison of words instead of a call to `memcmp`.
#[inline]
pub(super) fn same_key(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if let (Some(x), Some(y)) = (a.first_chunk::<8>(), b.first_chunk::<8>()) {
        if x != y {
            return false;
        }
    } else if a.first() != b.first() {
        return false;
    }
    a == b
}

/// Appends a record to a data page's plaintext (without the count, which the caller
/// writes). With `lines` (record compression 2), a record whose only LF is its last
/// byte is written as a line (raw length 0), its length left to the reader: a length
/// varint in every record of a compressed page costs a tenth of the page.
pub fn encode_record(out: &mut Vec<u8>, raw: &[u8], key: &KeyPlace, lines: bool) {
    let line = lines && memchr::memchr(b'\n', raw).is_some_and(|i| i + 1 == raw.len());
    let len = if line { 0 } else { raw.len() as u64 };
    match key {
        KeyPlace::InRaw(r) => {
            put_varint(out, len << 1);
            out.extend_from_slice(raw);
            put_varint(out, r.start as u64);
            put_varint(out, (r.end - r.start) as u64);
        }
        KeyPlace::Own(k) => {
            put_varint(out, (len << 1) | 1);
            out.extend_from_slice(raw);
            put_varint(out, k.len() as u64);
            out.extend_from_slice(k);
        }
    }
}

/// The bytes [`encode_record`] writes without `lines` (with it, at most as many).
pub fn record_size(raw: &[u8], key: &KeyPlace) -> usize {
    let head = varint_len((raw.len() as u64) << 1) + raw.len();
    match key {
        KeyPlace::InRaw(r) => {
            head + varint_len(r.start as u64) + varint_len((r.end - r.start) as u64)
        }
        KeyPlace::Own(k) => head + varint_len(k.len() as u64) + k.len(),
    }
}

/// A data page's plaintext from its records (`lines`: as [`encode_record`]).
pub fn encode_data(recs: &[(Vec<u8>, KeyPlace)], lines: bool) -> Vec<u8> {
    let mut b = Vec::with_capacity(2 + recs.iter().map(|(r, k)| record_size(r, k)).sum::<usize>());
    b.extend_from_slice(&(recs.len() as u16).to_le_bytes());
    for (raw, key) in recs {
        encode_record(&mut b, raw, key, lines);
    }
    b
}

/// The width of index entries: a tag of the token's low bits and a data page number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexLayout {
    /// Bytes of the tag: 2 (format 2) or 4 (format 1).
    pub tag_bytes: u8,
    /// Bytes of the data page number: 1 to 4.
    pub page_bytes: u8,
}

impl IndexLayout {
    /// Format 1's entries: a 32-bit tag and a 32-bit page number.
    pub const V1: IndexLayout = IndexLayout {
        tag_bytes: 4,
        page_bytes: 4,
    };

    /// Format 2's entries for a file of `data_pages` data pages: a 16-bit tag and the
    /// fewest bytes that number the pages (with room for appends to double them).
    pub fn for_pages(data_pages: u64) -> IndexLayout {
        let most = data_pages.saturating_mul(2).max(1);
        let bits = 64 - most.leading_zeros();
        IndexLayout {
            tag_bytes: 2,
            page_bytes: bits.div_ceil(8).clamp(1, 4) as u8,
        }
    }

    /// The same page numbers with tags of `tag_bytes` (2, or 4: a lookup then meets
    /// another key's entry 65,536 times less often, for 2 bytes more an entry).
    pub fn with_tags(self, tag_bytes: u8) -> IndexLayout {
        IndexLayout { tag_bytes, ..self }
    }

    /// Whether the widths are ones the format allows.
    pub fn valid(self) -> bool {
        matches!(self.tag_bytes, 2 | 4) && (1..=4).contains(&self.page_bytes)
    }

    /// Bytes of one entry.
    pub fn entry(self) -> usize {
        usize::from(self.tag_bytes + self.page_bytes)
    }

    /// Entries of an index page.
    pub fn capacity(self, page_size: usize) -> usize {
        (page_size - PAGE_OVERHEAD - 6) / self.entry()
    }

    /// The tag an entry keeps of a token (its low bits; the bucket comes from the high).
    #[inline]
    pub fn tag(self, token: u64) -> u32 {
        (token & ((1u64 << (8 * self.tag_bytes)) - 1)) as u32
    }

    /// Whether data page `logical` can be numbered in an entry.
    pub fn fits(self, logical: u64) -> bool {
        logical < 1u64 << (8 * self.page_bytes)
    }
}

/// The "no overflow page" marker of an index page.
pub const NO_NEXT: u32 = u32::MAX;

/// A decoded index page: `u16 count`, `u32 next overflow page` (logical; `NO_NEXT`: none),
/// then entries (tag, data page) sorted by tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexPage {
    /// The next page of the bucket's chain.
    pub next: u32,
    /// (tag, data page) entries, sorted by tag.
    pub entries: Vec<(u32, u32)>,
}

impl IndexPage {
    /// A page with no entries and no overflow.
    pub fn empty() -> IndexPage {
        IndexPage {
            next: NO_NEXT,
            entries: Vec::new(),
        }
    }

    /// Parses a page of entries of `layout`.
    pub fn decode(p: &[u8], layout: IndexLayout) -> Option<IndexPage> {
        let mut c = Cursor::new(p);
        let n = c.u16()? as usize;
        let next = c.u32()?;
        let (t, w) = (
            usize::from(layout.tag_bytes),
            usize::from(layout.page_bytes),
        );
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            entries.push((c.uint(t)? as u32, c.uint(w)? as u32));
        }
        Some(IndexPage { next, entries })
    }

    /// The page's plaintext.
    pub fn encode(&self, layout: IndexLayout) -> Vec<u8> {
        let (t, w) = (
            usize::from(layout.tag_bytes),
            usize::from(layout.page_bytes),
        );
        let mut b = Vec::with_capacity(6 + (t + w) * self.entries.len());
        b.extend_from_slice(&(self.entries.len() as u16).to_le_bytes());
        b.extend_from_slice(&self.next.to_le_bytes());
        for (tag, page) in &self.entries {
            b.extend_from_slice(&tag.to_le_bytes()[..t]);
            b.extend_from_slice(&page.to_le_bytes()[..w]);
        }
        b
    }
}

/// Calls `hit` with the data page of each entry of `tag` in an index page (binary
/// search in the page's bytes) until it returns true. Returns whether one did, and the
/// page's next overflow page; `None` when the page does not parse.
pub fn index_lookup(
    p: &[u8],
    layout: IndexLayout,
    tag: u32,
    mut hit: impl FnMut(u32) -> Result<bool, RecordsError>,
) -> Result<Option<(bool, u32)>, RecordsError> {
    let Some(e) = IndexEntries::of(p, layout) else {
        return Ok(None);
    };
    let mut i = lower_bound(e.n, e.t, tag, |i| e.tag(i));
    while i < e.n && e.tag(i) == tag {
        if hit(e.page(i))? {
            return Ok(Some((true, e.next)));
        }
        i += 1;
    }
    Ok(Some((false, e.next)))
}

/// An index page's entries as they are in its bytes.
struct IndexEntries<'a> {
    n: usize,
    next: u32,
    /// Bytes of a tag.
    t: usize,
    /// Bytes of an entry.
    size: usize,
    entries: &'a [u8],
}

impl<'a> IndexEntries<'a> {
    /// The entries of page `p` of `layout`; `None` when it does not parse.
    #[inline]
    fn of(p: &'a [u8], layout: IndexLayout) -> Option<IndexEntries<'a>> {
        let head = p.get(..6)?;
        let n = u16::from_le_bytes([head[0], head[1]]) as usize;
        let t = usize::from(layout.tag_bytes);
        let size = layout.entry();
        Some(IndexEntries {
            n,
            next: u32::from_le_bytes([head[2], head[3], head[4], head[5]]),
            t,
            size,
            entries: p.get(6..6 + size * n)?,
        })
    }

    /// Entry `i`'s tag.
    #[inline]
    fn tag(&self, i: usize) -> u32 {
        le(&self.entries[self.size * i..self.size * i + self.t])
    }

    /// Entry `i`'s data page.
    #[inline]
    fn page(&self, i: usize) -> u32 {
        le(&self.entries[self.size * i + self.t..self.size * (i + 1)])
    }
}

/// A little-endian number of 1 to 4 bytes (an index entry's field); spelled out, so that
/// no read is a call to memcpy.
#[inline]
fn le(b: &[u8]) -> u32 {
    match *b {
        [a] => u32::from(a),
        [a, b] => u32::from(u16::from_le_bytes([a, b])),
        [a, b, c] => u32::from_le_bytes([a, b, c, 0]),
        [a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
        _ => unreachable!("index entry widths are 1 to 4 bytes"),
    }
}

/// Of a bucket's first index page, the tags more than one of its entries have (sorted),
/// when the page alone answers every get of its bucket: it parses, has no overflow
/// page, and its tags are in order. A get whose tag is not among them finds at most one
/// entry here, so at most one data page to read. `None` when the page is not like that.
pub fn repeated_tags(p: &[u8], layout: IndexLayout) -> Option<Vec<u32>> {
    let e = IndexEntries::of(p, layout)?;
    if e.next != NO_NEXT {
        return None;
    }
    let mut repeated = Vec::new();
    for i in 1..e.n {
        let (before, tag) = (e.tag(i - 1), e.tag(i));
        if tag < before {
            return None;
        }
        if tag == before && repeated.last() != Some(&tag) {
            repeated.push(tag);
        }
    }
    Some(repeated)
}

/// The first of `n` sorted tags of `t` bytes not below `tag` (`n` when none). Tags are
/// the low bits of keyed hashes, so uniform: the search starts where `tag` would sit in
/// a uniform spread and gallops outwards to a bracket, then bisects it. A get touches
/// one or two cache lines of the index page instead of the ten a bisection from the
/// middle does; any order of tags still gives the right answer, only slower.
pub fn lower_bound(n: usize, t: usize, tag: u32, tag_at: impl Fn(usize) -> u32) -> usize {
    if n == 0 {
        return 0;
    }
    let guess = ((u64::from(tag) * n as u64) >> (8 * t)) as usize;
    let guess = guess.min(n - 1);
    // Bracket [lo, hi): every entry before lo is below tag, entry hi (if any) is not.
    let (mut lo, mut hi);
    if tag_at(guess) < tag {
        lo = guess + 1;
        let mut step = 1;
        hi = lo;
        while hi < n && tag_at(hi) < tag {
            lo = hi + 1;
            hi = (hi + step).min(n);
            step *= 2;
        }
    } else {
        hi = guess;
        let mut step = 1;
        lo = hi;
        while lo > 0 && tag_at(lo - 1) >= tag {
            hi = lo - 1;
            lo = lo.saturating_sub(step);
            step *= 2;
        }
    }
    while lo < hi {
        let mid = (lo + hi) / 2;
        if tag_at(mid) < tag {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Parses a directory page: `u16 count`, then entries `physical (u64) ‖ generation
/// (u64) ‖ count (u32)`.
pub fn decode_dir(p: &[u8]) -> Option<Vec<PageRef>> {
    let mut c = Cursor::new(p);
    let n = c.u16()? as usize;
    (0..n)
        .map(|_| {
            Some(PageRef {
                physical: c.u64()?,
                generation: c.u64()?,
                count: u64::from(c.u32()?),
            })
        })
        .collect()
}

/// A directory page's plaintext; fails when a count exceeds its 32 bits.
pub fn encode_dir(entries: &[PageRef]) -> Result<Vec<u8>, RecordsError> {
    let mut b = Vec::with_capacity(2 + 20 * entries.len());
    b.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    for e in entries {
        b.extend_from_slice(&e.physical.to_le_bytes());
        b.extend_from_slice(&e.generation.to_le_bytes());
        let count = u32::try_from(e.count).map_err(|_| RecordsError::TooLarge)?;
        b.extend_from_slice(&count.to_le_bytes());
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The galloping search agrees with a plain partition point on sorted tags of
        /// any spread (uniform or not), for every tag asked.
        #[test]
        fn lower_bound_is_the_partition_point(
            mut tags in proptest::collection::vec(any::<u16>(), 0..300),
            skew in 0u32..3,
            asked in any::<u16>(),
        ) {
            let tags: Vec<u32> = {
                tags.sort();
                tags.iter().map(|&x| u32::from(x) >> (skew * 4)).collect()
            };
            for tag in [u32::from(asked), 0, 0xffff, tags.first().copied().unwrap_or(0), tags.last().copied().unwrap_or(0)] {
                let want = tags.partition_point(|&x| x < tag);
                prop_assert_eq!(lower_bound(tags.len(), 2, tag, |i| tags[i]), want);
            }
        }
    }

    /// The tags a bucket page repeats; none said of a page with overflow, with tags out
    /// of order, or that does not parse.
    #[test]
    fn repeated_tags_of_bucket_pages() {
        let layout = IndexLayout::for_pages(200);
        let page = |next: u32, tags: &[u32]| {
            IndexPage {
                next,
                entries: tags.iter().map(|&t| (t, 1)).collect(),
            }
            .encode(layout)
        };
        let r = |p: &[u8]| repeated_tags(p, layout);
        assert_eq!(r(&page(NO_NEXT, &[])), Some(vec![]));
        assert_eq!(r(&page(NO_NEXT, &[1, 2, 3])), Some(vec![]));
        assert_eq!(r(&page(NO_NEXT, &[1, 1, 1, 2, 5, 5, 9])), Some(vec![1, 5]));
        assert_eq!(r(&page(3, &[1, 2])), None);
        assert_eq!(r(&page(NO_NEXT, &[2, 1])), None);
        let whole = page(NO_NEXT, &[1, 2]);
        assert_eq!(r(&whole[..whole.len() - 1]), None);
        assert_eq!(r(&whole[..5]), None);
    }

    #[test]
    fn index_pages_round_trip_in_both_layouts() {
        for layout in [
            IndexLayout::V1,
            IndexLayout::for_pages(1),
            IndexLayout::for_pages(200),
            IndexLayout::for_pages(70_000),
            IndexLayout::for_pages(1 << 30),
        ] {
            assert!(layout.valid(), "{layout:?}");
            let mask = (1u64 << (8 * layout.page_bytes)) - 1;
            let mut page = IndexPage {
                next: 7,
                entries: vec![(1, 0), (layout.tag(u64::MAX), mask as u32)],
            };
            page.entries.sort();
            let b = page.encode(layout);
            assert_eq!(b.len(), 6 + 2 * layout.entry());
            assert_eq!(IndexPage::decode(&b, layout), Some(page.clone()));
            let mut seen = Vec::new();
            let r = index_lookup(&b, layout, layout.tag(u64::MAX), |d| {
                seen.push(d);
                Ok(false)
            })
            .unwrap();
            assert_eq!(r, Some((false, 7)));
            assert_eq!(seen, vec![mask as u32]);
        }
        assert_eq!(IndexLayout::for_pages(127).page_bytes, 1);
        assert_eq!(IndexLayout::for_pages(128).page_bytes, 2);
        assert_eq!(IndexLayout::for_pages(u64::MAX).page_bytes, 4);
    }
}
