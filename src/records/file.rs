//! A record file: sealing, reading by key or number, copy-on-write updates, verification.

use super::format::{
    DEFAULT_PAGE_SIZE, FileKeys, HEADER_SIZE, Header, HeaderProblem, InputFormat, Kind,
    PAGE_OVERHEAD, PageRef, Root, Slot, Unlock, put_varint,
};
use super::{InputRecord, KeyPlace, RecordsError};
use crate::progress::Progress;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::rc::Rc;

/// Settings recorded in a new file.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The input format.
    pub format: InputFormat,
    /// Whether the first row was a header.
    pub header_row: bool,
    /// The key field as given (number or name); empty for line files.
    pub key_field: String,
    /// Page size in bytes.
    pub page_size: u32,
    /// The key of the next appended line, when more than the record count plus one (a
    /// rewritten line file keeps its numbering).
    pub next_number: u64,
    /// Threads for sealing: 1 packs, tokenizes and encrypts on the caller's thread; 0
    /// (the default) hands tokens, encryption and writing to a second thread when the
    /// machine has more than one CPU. Not recorded in the file.
    pub threads: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            format: InputFormat::Lines,
            header_row: false,
            key_field: String::new(),
            page_size: DEFAULT_PAGE_SIZE,
            next_number: 0,
            threads: 0,
        }
    }
}

/// Index fill when sealing (size matters most) and after a rebuild (room for appends).
const INDEX_FILL: f64 = 0.85;
const REBUILD_FILL: f64 = 0.6;
const NO_NEXT: u32 = u32::MAX;

fn data_capacity(page_size: usize) -> usize {
    page_size - PAGE_OVERHEAD
}

fn index_capacity(page_size: usize) -> usize {
    (page_size - PAGE_OVERHEAD - 6) / 8
}

fn dir_capacity(page_size: usize) -> usize {
    (page_size - PAGE_OVERHEAD - 2) / 20
}

fn bucket_of(token: u64, buckets: u32) -> u32 {
    ((u128::from(token) * u128::from(buckets)) >> 64) as u32
}

/// One record inside a decrypted data page.
#[derive(Debug, Clone)]
struct Rec {
    raw: std::ops::Range<usize>,
    key: KeyIn,
}

#[derive(Debug, Clone)]
enum KeyIn {
    InRaw(std::ops::Range<usize>),
    Own(std::ops::Range<usize>),
}

impl Rec {
    fn key<'a>(&self, page: &'a [u8]) -> &'a [u8] {
        match &self.key {
            KeyIn::InRaw(r) => &page[self.raw.start + r.start..self.raw.start + r.end],
            KeyIn::Own(r) => &page[r.clone()],
        }
    }
}

/// Parses a data page's records.
fn parse_data(page: &[u8]) -> Option<Vec<Rec>> {
    let n = u16::from_le_bytes(page.get(..2)?.try_into().ok()?) as usize;
    let mut at = 2;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let (rec, next) = parse_record(page, at)?;
        out.push(rec);
        at = next;
    }
    Some(out)
}

/// Parses the record at `at`; returns it and where the next one starts.
#[inline]
fn parse_record(page: &[u8], mut at: usize) -> Option<(Rec, usize)> {
    let head = super::format::get_varint(page, &mut at)?;
    let own = head & 1 == 1;
    let raw_len = usize::try_from(head >> 1).ok()?;
    let raw = at..at.checked_add(raw_len)?;
    if raw.end > page.len() {
        return None;
    }
    at = raw.end;
    let key = if own {
        let len = super::format::get_varint(page, &mut at)? as usize;
        let r = at..at.checked_add(len)?;
        if r.end > page.len() {
            return None;
        }
        at = r.end;
        KeyIn::Own(r)
    } else {
        let off = super::format::get_varint(page, &mut at)? as usize;
        let len = super::format::get_varint(page, &mut at)? as usize;
        if off.checked_add(len)? > raw_len {
            return None;
        }
        KeyIn::InRaw(off..off + len)
    };
    Some((Rec { raw, key }, at))
}

/// The raw bytes of the record with `key` in a data page, scanning without allocating.
/// `None` when the page does not parse.
fn find_in_data<'p>(page: &'p [u8], key: &[u8]) -> Option<Option<&'p [u8]>> {
    let n = u16::from_le_bytes(page.get(..2)?.try_into().ok()?) as usize;
    let mut at = 2;
    for _ in 0..n {
        let (rec, next) = parse_record(page, at)?;
        if rec.key(page) == key {
            return Some(Some(&page[rec.raw]));
        }
        at = next;
    }
    Some(None)
}

/// Appends a record to a data page's plaintext (without the count, which the caller
/// writes).
fn encode_record(out: &mut Vec<u8>, raw: &[u8], key: &KeyPlace) {
    match key {
        KeyPlace::InRaw(r) => {
            put_varint(out, (raw.len() as u64) << 1);
            out.extend_from_slice(raw);
            put_varint(out, r.start as u64);
            put_varint(out, (r.end - r.start) as u64);
        }
        KeyPlace::Own(k) => {
            put_varint(out, ((raw.len() as u64) << 1) | 1);
            out.extend_from_slice(raw);
            put_varint(out, k.len() as u64);
            out.extend_from_slice(k);
        }
    }
}

fn varint_len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

fn record_size(raw: &[u8], key: &KeyPlace) -> usize {
    let head = varint_len((raw.len() as u64) << 1) + raw.len();
    match key {
        KeyPlace::InRaw(r) => {
            head + varint_len(r.start as u64) + varint_len((r.end - r.start) as u64)
        }
        KeyPlace::Own(k) => head + varint_len(k.len() as u64) + k.len(),
    }
}

/// A decoded index page: (tag, data page) entries sorted by tag.
#[derive(Debug, Clone)]
struct IndexPage {
    next: u32,
    entries: Vec<(u32, u32)>,
}

/// The tag an index entry keeps of a token (its bucket comes from the high bits).
#[inline]
fn tag_of(token: u64) -> u32 {
    token as u32
}

impl IndexPage {
    fn empty() -> IndexPage {
        IndexPage {
            next: NO_NEXT,
            entries: Vec::new(),
        }
    }

    fn decode(p: &[u8]) -> Option<IndexPage> {
        let mut c = super::format::Cursor::new(p);
        let n = c.u16()? as usize;
        let next = c.u32()?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            entries.push((c.u32()?, c.u32()?));
        }
        Some(IndexPage { next, entries })
    }

    fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(6 + 8 * self.entries.len());
        b.extend_from_slice(&(self.entries.len() as u16).to_le_bytes());
        b.extend_from_slice(&self.next.to_le_bytes());
        for (t, p) in &self.entries {
            b.extend_from_slice(&t.to_le_bytes());
            b.extend_from_slice(&p.to_le_bytes());
        }
        b
    }
}

/// Calls `hit` with the data page of each entry of `tag` in an index page (binary
/// search in the page's bytes) until it returns true. Returns whether one did, and the
/// page's next overflow page; `None` when the page does not parse.
fn index_lookup(
    p: &[u8],
    tag: u32,
    mut hit: impl FnMut(u32) -> Result<bool, RecordsError>,
) -> Result<Option<(bool, u32)>, RecordsError> {
    let Some(head) = p.get(..6) else {
        return Ok(None);
    };
    let n = u16::from_le_bytes([head[0], head[1]]) as usize;
    let next = u32::from_le_bytes([head[2], head[3], head[4], head[5]]);
    let Some(entries) = p.get(6..6 + 8 * n) else {
        return Ok(None);
    };
    let tag_at =
        |i: usize| u32::from_le_bytes(entries[8 * i..8 * i + 4].try_into().expect("4 bytes"));
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if tag_at(mid) < tag {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let mut i = lo;
    while i < n && tag_at(i) == tag {
        let page = u32::from_le_bytes(entries[8 * i + 4..8 * i + 8].try_into().expect("4 bytes"));
        if hit(page)? {
            return Ok(Some((true, next)));
        }
        i += 1;
    }
    Ok(Some((false, next)))
}

fn decode_dir(p: &[u8]) -> Option<Vec<PageRef>> {
    let mut c = super::format::Cursor::new(p);
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

fn encode_dir(entries: &[PageRef]) -> Vec<u8> {
    let mut b = Vec::with_capacity(2 + 20 * entries.len());
    b.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    for e in entries {
        b.extend_from_slice(&e.physical.to_le_bytes());
        b.extend_from_slice(&e.generation.to_le_bytes());
        b.extend_from_slice(&(e.count as u32).to_le_bytes());
    }
    b
}

/// Writes sealed pages at consecutive physical positions.
struct PageWriter<'a> {
    file: &'a mut File,
    keys: &'a FileKeys,
    file_id: [u8; 16],
    page_size: usize,
    next_physical: u64,
    generation: u64,
    buf: Vec<u8>,
    pending: Vec<u8>,
    pending_start: u64,
}

impl<'a> PageWriter<'a> {
    fn new(
        file: &'a mut File,
        keys: &'a FileKeys,
        file_id: [u8; 16],
        page_size: usize,
        next_physical: u64,
        generation: u64,
    ) -> Self {
        PageWriter {
            file,
            keys,
            file_id,
            page_size,
            next_physical,
            generation,
            buf: vec![0u8; page_size],
            pending: Vec::with_capacity(1 << 20),
            pending_start: next_physical,
        }
    }

    fn write(
        &mut self,
        kind: Kind,
        logical: u64,
        plain: &[u8],
        count: u64,
    ) -> Result<PageRef, RecordsError> {
        self.keys.seal_page(
            &self.file_id,
            kind,
            logical,
            self.generation,
            plain,
            self.page_size,
            &mut self.buf,
        )?;
        self.pending.extend_from_slice(&self.buf);
        let r = PageRef {
            physical: self.next_physical,
            generation: self.generation,
            count,
        };
        self.next_physical += 1;
        if self.pending.len() >= 1 << 20 {
            self.flush()?;
        }
        Ok(r)
    }

    /// The key of record `ordinal` in data page `logical` (already flushed).
    fn key_of(
        &mut self,
        ordinal: u32,
        logical: u32,
        data_refs: &[PageRef],
    ) -> Result<Vec<u8>, RecordsError> {
        let before: u64 = data_refs[..logical as usize].iter().map(|r| r.count).sum();
        let r = data_refs[logical as usize];
        let mut fr = RecordFileRef {
            file: self.file,
            keys: self.keys,
            id: self.file_id,
            page_size: self.page_size,
        };
        let p = fr.page(Kind::Data, u64::from(logical), &r)?;
        let recs = parse_data(&p).ok_or(RecordsError::Corrupt("a data page does not parse"))?;
        let rec = recs
            .get((u64::from(ordinal) - before) as usize)
            .ok_or(RecordsError::Corrupt("record counts disagree"))?;
        Ok(rec.key(&p).to_vec())
    }

    fn flush(&mut self) -> Result<(), RecordsError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let at = (2 * HEADER_SIZE) as u64 + self.pending_start * self.page_size as u64;
        self.file
            .seek(SeekFrom::Start(at))
            .map_err(RecordsError::Write)?;
        self.file
            .write_all(&self.pending)
            .map_err(RecordsError::Write)?;
        self.pending.clear();
        self.pending_start = self.next_physical;
        Ok(())
    }
}

/// Writes directory pages for `entries`, returning the root refs (count = sum of the
/// entries' counts for data directories).
fn write_dirs(
    w: &mut PageWriter<'_>,
    kind: Kind,
    entries: &[PageRef],
) -> Result<Vec<PageRef>, RecordsError> {
    let cap = dir_capacity(w.page_size);
    entries
        .chunks(cap)
        .enumerate()
        .map(|(i, chunk)| {
            let total: u64 = chunk.iter().map(|e| e.count).sum();
            w.write(kind, i as u64, &encode_dir(chunk), total)
        })
        .collect()
}

/// Writes index pages for `entries` (token, data page; in the order of
/// `order_for_index`) in `buckets` buckets, with
/// overflow pages where a bucket is full. Returns the refs of every index page by
/// logical number.
fn write_index(
    w: &mut PageWriter<'_>,
    buckets: u32,
    entries: &[(u64, u32)],
) -> Result<Vec<PageRef>, RecordsError> {
    let cap = index_capacity(w.page_size);
    let mut pages: Vec<IndexPage> = vec![IndexPage::empty(); buckets as usize];
    let mut overflow: Vec<IndexPage> = Vec::new();
    let mut start = 0;
    while start < entries.len() {
        let b = bucket_of(entries[start].0, buckets);
        let mut end = start;
        while end < entries.len() && bucket_of(entries[end].0, buckets) == b {
            end += 1;
        }
        let chunk = &entries[start..end];
        let mut chunks = chunk.chunks(cap);
        let tagged = |c: &[(u64, u32)]| c.iter().map(|&(t, p)| (tag_of(t), p)).collect::<Vec<_>>();
        pages[b as usize].entries = tagged(chunks.next().unwrap_or(&[]));
        let mut prev: Option<usize> = None;
        for more in chunks {
            let logical = buckets as usize + overflow.len();
            match prev {
                None => pages[b as usize].next = logical as u32,
                Some(p) => overflow[p].next = logical as u32,
            }
            overflow.push(IndexPage {
                next: NO_NEXT,
                entries: tagged(more),
            });
            prev = Some(overflow.len() - 1);
        }
        start = end;
    }
    let mut refs = Vec::with_capacity(pages.len() + overflow.len());
    for (i, p) in pages.into_iter().chain(overflow).enumerate() {
        refs.push(w.write(Kind::Index, i as u64, &p.encode(), 0)?);
    }
    Ok(refs)
}

/// Orders `entries` by bucket, then by tag, then by whole token, the
/// order index pages keep: a counting scatter by bucket and a small sort per bucket,
/// instead of a sort of the whole array. Entries with equal tokens end up adjacent.
fn order_for_index<T: Copy>(entries: &mut [T], buckets: u32, token: impl Fn(&T) -> u64) {
    if entries.len() < 2 {
        return;
    }
    let mut starts = vec![0usize; buckets as usize + 1];
    for e in entries.iter() {
        starts[bucket_of(token(e), buckets) as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut next = starts.clone();
    let mut scattered: Vec<T> = entries.to_vec();
    for e in entries.iter() {
        let b = bucket_of(token(e), buckets) as usize;
        scattered[next[b]] = *e;
        next[b] += 1;
    }
    for w in starts.windows(2) {
        scattered[w[0]..w[1]]
            .sort_unstable_by_key(|e| (u128::from(tag_of(token(e))) << 64) | u128::from(token(e)));
    }
    entries.copy_from_slice(&scattered);
}

/// The first pair of records (ordinals, in input order) with equal keys among
/// `entries` sorted by token.
fn first_duplicate(
    w: &mut PageWriter<'_>,
    entries: &[(u64, u32, u32)],
    data_refs: &[PageRef],
) -> Result<Option<(u32, u32)>, RecordsError> {
    let mut found: Option<(u32, u32)> = None;
    let mut i = 0;
    while i + 1 < entries.len() {
        if entries[i].0 != entries[i + 1].0 {
            i += 1;
            continue;
        }
        w.flush()?;
        let mut j = i + 1;
        while j < entries.len() && entries[j].0 == entries[i].0 {
            j += 1;
        }
        // Compare every pair in the run (a run longer than two is a duplicate anyway).
        let run = &entries[i..j];
        for (x, a) in run.iter().enumerate() {
            for b in &run[x + 1..] {
                if w.key_of(a.1, a.2, data_refs)? == w.key_of(b.1, b.2, data_refs)? {
                    let pair = (a.1.min(b.1), a.1.max(b.1));
                    if found.is_none_or(|f| pair.1 < f.1) {
                        found = Some(pair);
                    }
                }
            }
        }
        i = j;
    }
    Ok(found)
}

const SEALER_STOPPED_TEXT: &str = "the sealing thread stopped";
const SEALER_STOPPED: RecordsError = RecordsError::Corrupt(SEALER_STOPPED_TEXT);

/// A data page packed for sealing: its logical number, its record count and its
/// plaintext (record count first).
struct FullPage {
    logical: u32,
    records: u16,
    plain: Vec<u8>,
}

/// Pages handed to the sealing thread at a time (fewer wake-ups than page by page).
const SEAL_BATCH: usize = 16;

/// Packs `records` into data pages of `cap` bytes of plaintext, computing each record's
/// token with `keys`, and hands batches of full pages to `sealer` (which may give back
/// spent buffers). Returns (token, ordinal, data page) of every record, the input line
/// of every record (by ordinal) and the record count.
#[allow(clippy::type_complexity)] // three plain results
fn pack_pages<'a>(
    records: &mut dyn Iterator<Item = Result<InputRecord<'a>, RecordsError>>,
    keys: &FileKeys,
    cap: usize,
    progress: &dyn Progress,
    mut sealer: impl FnMut(Vec<FullPage>) -> Result<Vec<Vec<u8>>, RecordsError>,
) -> Result<(Vec<(u64, u32, u32)>, Vec<u64>, u64), RecordsError> {
    let mut spare: Vec<Vec<u8>> = Vec::new();
    let mut page: Vec<u8> = Vec::with_capacity(cap);
    page.extend_from_slice(&[0, 0]);
    let mut batch: Vec<FullPage> = Vec::with_capacity(SEAL_BATCH);
    let mut in_page: u16 = 0;
    let mut logical: u32 = 0;
    let mut entries: Vec<(u64, u32, u32)> = Vec::new();
    let mut lines: Vec<u64> = Vec::new();
    let mut count = 0u64;
    let mut ship = |page: &mut Vec<u8>, in_page: u16, logical: &mut u32, last: bool| {
        page[..2].copy_from_slice(&in_page.to_le_bytes());
        let mut next = spare.pop().unwrap_or_else(|| Vec::with_capacity(cap));
        next.clear();
        next.extend_from_slice(&[0, 0]);
        batch.push(FullPage {
            logical: *logical,
            records: in_page,
            plain: std::mem::replace(page, next),
        });
        if last || batch.len() == SEAL_BATCH {
            spare.extend(sealer(std::mem::replace(
                &mut batch,
                Vec::with_capacity(SEAL_BATCH),
            ))?);
        }
        *logical = logical.checked_add(1).ok_or(RecordsError::TooManyPages)?;
        Ok::<_, RecordsError>(())
    };
    for rec in records {
        let rec = rec?;
        let size = record_size(&rec.raw, &rec.key);
        if size + 2 > cap {
            return Err(RecordsError::RecordTooLarge {
                line: rec.line,
                max: cap - 8,
            });
        }
        if page.len() + size > cap || in_page == u16::MAX {
            ship(&mut page, in_page, &mut logical, false)?;
            in_page = 0;
        }
        let ordinal = u32::try_from(count).map_err(|_| RecordsError::TooLarge)?;
        entries.push((keys.token(rec.key_bytes()), ordinal, logical));
        lines.push(rec.line);
        encode_record(&mut page, &rec.raw, &rec.key);
        in_page += 1;
        count += 1;
        if count.is_multiple_of(4096) {
            progress.advance(4096);
        }
    }
    // The last page always holds a record (a page is shipped only when the next record
    // needs room), or is the one empty page of an empty file.
    ship(&mut page, in_page, &mut logical, true)?;
    Ok((entries, lines, count))
}

/// Seals batches of data pages in order. Returns the pages' refs.
fn seal_pages(
    w: &mut PageWriter<'_>,
    batches: impl Iterator<Item = Vec<FullPage>>,
    mut give_back: impl FnMut(Vec<Vec<u8>>),
) -> Result<Vec<PageRef>, RecordsError> {
    let mut refs = Vec::new();
    for batch in batches {
        let mut spent = Vec::with_capacity(batch.len());
        for page in batch {
            refs.push(w.write(
                Kind::Data,
                u64::from(page.logical),
                &page.plain,
                u64::from(page.records),
            )?);
            spent.push(page.plain);
        }
        give_back(spent);
    }
    Ok(refs)
}

/// What sealing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SealSummary {
    /// Records sealed.
    pub records: u64,
    /// Pages written.
    pub pages: u64,
    /// Bytes of the file.
    pub bytes: u64,
}

/// Seals `records` into `out` (truncated first). `prefix` is the input's header row.
pub fn seal<'a>(
    records: &mut dyn Iterator<Item = Result<InputRecord<'a>, RecordsError>>,
    prefix: Option<&[u8]>,
    settings: &Settings,
    unlocks: &[Unlock<'_>],
    out: &mut File,
    progress: &dyn Progress,
) -> Result<SealSummary, RecordsError> {
    let make_slots =
        |id: &[u8; 16], dk: &[u8; 32]| unlocks.iter().map(|u| Slot::create(u, id, dk)).collect();
    seal_with_slots(records, prefix, settings, &make_slots, out, progress)
}

/// Makes the key slots of a new file from its id and data key.
pub type MakeSlots<'s> = dyn Fn(&[u8; 16], &[u8; 32]) -> Result<Vec<Slot>, RecordsError> + 's;

/// Seals `records` into `out` with the slots `make_slots` gives.
pub fn seal_with_slots<'a>(
    records: &mut dyn Iterator<Item = Result<InputRecord<'a>, RecordsError>>,
    prefix: Option<&[u8]>,
    settings: &Settings,
    make_slots: &MakeSlots<'_>,
    out: &mut File,
    progress: &dyn Progress,
) -> Result<SealSummary, RecordsError> {
    if !super::format::valid_page_size(settings.page_size) {
        return Err(RecordsError::PageSize(settings.page_size));
    }
    let page_size = settings.page_size as usize;
    let mut file_id = [0u8; 16];
    getrandom::fill(&mut file_id).map_err(|e| RecordsError::Random(e.to_string()))?;
    let mut dk = zeroize::Zeroizing::new([0u8; 32]);
    getrandom::fill(dk.as_mut()).map_err(|e| RecordsError::Random(e.to_string()))?;
    let keys = FileKeys::new(&dk);
    let slots = make_slots(&file_id, &dk)?;
    if slots.is_empty() || slots.len() > super::format::MAX_SLOTS {
        return Err(RecordsError::SlotCount(slots.len()));
    }
    out.set_len(0).map_err(RecordsError::Write)?;
    let generation = 1;
    let mut w = PageWriter::new(out, &keys, file_id, page_size, 0, generation);
    let cap = data_capacity(page_size);
    let threads = match settings.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(2)),
        n => n,
    };
    let (data_refs, mut entries, lines, count) = if threads > 1 {
        let (to_sealer, batches) = std::sync::mpsc::sync_channel::<Vec<FullPage>>(4);
        let (give_back, spent) = std::sync::mpsc::channel::<Vec<Vec<u8>>>();
        std::thread::scope(|scope| {
            let sealer = scope.spawn(|| {
                seal_pages(&mut w, batches.into_iter(), |b| {
                    let _ = give_back.send(b);
                })
            });
            let packed = pack_pages(records, &keys, cap, progress, |batch| {
                // A closed channel means the sealer stopped on an error, which join reports.
                to_sealer.send(batch).map_err(|_| SEALER_STOPPED)?;
                Ok(spent.try_recv().unwrap_or_default())
            });
            drop(to_sealer);
            let sealed = sealer
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            match (packed, sealed) {
                (Ok((entries, lines, count)), Ok(refs)) => Ok((refs, entries, lines, count)),
                (Err(RecordsError::Corrupt(SEALER_STOPPED_TEXT)), Err(e)) | (Ok(_), Err(e)) => {
                    Err(e)
                }
                (Err(e), _) => Err(e),
            }
        })?
    } else {
        let mut refs = Vec::new();
        let (entries, lines, count) = pack_pages(records, &keys, cap, progress, |batch| {
            let mut back = Vec::new();
            refs.extend(seal_pages(&mut w, std::iter::once(batch), |b| back = b)?);
            Ok(back)
        })?;
        (refs, entries, lines, count)
    };
    // Duplicate keys have equal tokens: sort by token, confirm equal tokens by comparing
    // the keys themselves (read back from the pages just written).
    let buckets =
        ((count as f64 / (index_capacity(page_size) as f64 * INDEX_FILL)).ceil() as u32).max(1);
    order_for_index(&mut entries, buckets, |e| e.0);
    if let Some((first, second)) = first_duplicate(&mut w, &entries, &data_refs)? {
        return Err(RecordsError::DuplicateKey {
            first: lines[first as usize],
            second: lines[second as usize],
        });
    }
    drop(lines);
    let entries: Vec<(u64, u32)> = entries.into_iter().map(|(t, _, p)| (t, p)).collect();
    let index_refs = write_index(&mut w, buckets, &entries)?;
    let data_dirs = write_dirs(&mut w, Kind::DataDir, &data_refs)?;
    let index_dirs = write_dirs(&mut w, Kind::IndexDir, &index_refs)?;
    let prefix_ref = match prefix {
        Some(p) => {
            if p.len() + 4 > cap {
                return Err(RecordsError::RecordTooLarge {
                    line: 1,
                    max: cap - 8,
                });
            }
            let mut b = (p.len() as u32).to_le_bytes().to_vec();
            b.extend_from_slice(p);
            Some(w.write(Kind::Prefix, 0, &b, 0)?)
        }
        None => None,
    };
    w.flush()?;
    let allocated = w.next_physical;
    drop(w);
    let root = Root {
        records: count,
        next_number: settings.next_number.max(count + 1),
        generation,
        allocated,
        format: settings.format,
        header_row: settings.header_row,
        key_field: settings.key_field.clone(),
        buckets,
        prefix: prefix_ref,
        data_dirs,
        index_dirs,
    };
    let header = Header::new(settings.page_size, file_id, 1, slots);
    let bytes = header.encode(&keys, &root)?;
    out.seek(SeekFrom::Start(0)).map_err(RecordsError::Write)?;
    out.write_all(&bytes).map_err(RecordsError::Write)?;
    out.write_all(&bytes).map_err(RecordsError::Write)?;
    let len = (2 * HEADER_SIZE) as u64 + allocated * page_size as u64;
    out.set_len(len).map_err(RecordsError::Write)?;
    Ok(SealSummary {
        records: count,
        pages: allocated,
        bytes: len,
    })
}

/// The default budget of decrypted pages a file keeps: it fills only as pages are read,
/// so a one-off get costs a few pages, while a batch of random gets over a file of a
/// million records (about 130 MB) decrypts each page once.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// Decrypted pages kept for repeated access, up to a byte budget.
struct Cache {
    pages: HashMap<(u8, u64), Rc<Vec<u8>>>,
    order: std::collections::VecDeque<(u8, u64)>,
    budget: usize,
    used: usize,
}

impl Cache {
    fn get(&self, k: (u8, u64)) -> Option<Rc<Vec<u8>>> {
        self.pages.get(&k).cloned()
    }
    fn put(&mut self, k: (u8, u64), v: Rc<Vec<u8>>) {
        self.used += v.len();
        self.pages.insert(k, v);
        self.order.push_back(k);
        while self.used > self.budget {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(p) = self.pages.remove(&old) {
                self.used -= p.len();
            }
        }
    }
    fn forget(&mut self, k: (u8, u64)) {
        if let Some(p) = self.pages.remove(&k) {
            self.used -= p.len();
        }
    }
}

/// Facts about an open file (`veilkit records info`).
#[derive(Debug, Clone)]
pub struct Info {
    /// Live records.
    pub records: u64,
    /// The input format.
    pub format: InputFormat,
    /// The key field.
    pub key_field: String,
    /// Page size.
    pub page_size: u32,
    /// Pages referenced now.
    pub live_pages: u64,
    /// Pages in the file (live and garbage).
    pub allocated: u64,
    /// Bytes of the file.
    pub bytes: u64,
    /// The key slots (kind and key id or Argon2id parameters).
    pub slots: Vec<String>,
    /// The header's sequence number (commits so far).
    pub sequence: u64,
    /// The key the next appended line gets (line files).
    pub next_number: u64,
    /// Whether the input had a header row.
    pub header_row: bool,
}

/// A found record: its data page's number, the decrypted page, the record's bytes.
type Located = (u32, Rc<Vec<u8>>, std::ops::Range<usize>);

/// An open record file.
pub struct RecordFile {
    file: File,
    header: Header,
    keys: FileKeys,
    root: Root,
    page_size: usize,
    dirs: HashMap<(u8, usize), Rc<Vec<PageRef>>>,
    cache: Cache,
}

/// What `verify` checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyReport {
    /// Records found.
    pub records: u64,
    /// Pages authenticated.
    pub pages: u64,
}

impl RecordFile {
    /// Opens a file with one of `unlocks` (the first that opens a slot).
    pub fn open(
        path: &Path,
        unlocks: &[Unlock<'_>],
        writable: bool,
    ) -> Result<RecordFile, RecordsError> {
        let file = open_locked(path, writable)?;
        let (copies, len) = read_headers(&file)?;
        let mut slot_opened = false;
        for (header, _) in copies {
            let Some(dk) = open_slots(&header, unlocks)? else {
                continue;
            };
            slot_opened = true;
            let keys = FileKeys::new(&dk);
            if let Some(root) = header.open_root(&keys) {
                let page_size = header.page_size as usize;
                let needed = (2 * HEADER_SIZE) as u64 + root.allocated * page_size as u64;
                if len < needed {
                    return Err(RecordsError::Truncated);
                }
                return Ok(RecordFile {
                    file,
                    header,
                    keys,
                    root,
                    page_size,
                    dirs: HashMap::new(),
                    cache: Cache {
                        pages: HashMap::new(),
                        order: Default::default(),
                        budget: DEFAULT_CACHE_BYTES,
                        used: 0,
                    },
                });
            }
        }
        Err(if slot_opened {
            RecordsError::CorruptHeader
        } else {
            RecordsError::WrongKey
        })
    }

    /// Sets the budget of decrypted pages kept in memory.
    pub fn set_cache_bytes(&mut self, bytes: usize) {
        self.cache.budget = bytes;
    }

    /// Facts about the file.
    pub fn info(&mut self) -> Result<Info, RecordsError> {
        let live = (self.root.data_dirs.len() + self.root.index_dirs.len()) as u64
            + self.data_page_count()?
            + self.index_page_count()?
            + u64::from(self.root.prefix.is_some());
        Ok(Info {
            records: self.root.records,
            format: self.root.format,
            key_field: self.root.key_field.clone(),
            page_size: self.header.page_size,
            live_pages: live,
            allocated: self.root.allocated,
            bytes: (2 * HEADER_SIZE) as u64 + self.root.allocated * self.page_size as u64,
            slots: self.header.slots.iter().map(describe_slot).collect(),
            sequence: self.header.sequence,
            next_number: self.root.next_number,
            header_row: self.root.header_row,
        })
    }

    fn data_page_count(&mut self) -> Result<u64, RecordsError> {
        self.page_count(Kind::DataDir)
    }

    fn index_page_count(&mut self) -> Result<u64, RecordsError> {
        self.page_count(Kind::IndexDir)
    }

    /// Pages named by the directories of a kind: every directory page but the last is
    /// full.
    fn page_count(&mut self, kind: Kind) -> Result<u64, RecordsError> {
        let cap = dir_capacity(self.page_size) as u64;
        let n = if kind == Kind::DataDir {
            self.root.data_dirs.len()
        } else {
            self.root.index_dirs.len()
        };
        if n == 0 {
            return Ok(0);
        }
        let last = self.dir(kind, n - 1)?.len() as u64;
        Ok((n as u64 - 1) * cap + last)
    }

    /// The input's header row, if it had one.
    pub fn prefix(&mut self) -> Result<Option<Vec<u8>>, RecordsError> {
        let Some(r) = self.root.prefix else {
            return Ok(None);
        };
        let page = self.read_page(Kind::Prefix, 0, &r)?;
        let len = u32::from_le_bytes(page[..4].try_into().expect("4 bytes")) as usize;
        page.get(4..4 + len)
            .map(|b| Some(b.to_vec()))
            .ok_or(RecordsError::PageAuth {
                kind: "prefix",
                logical: 0,
            })
    }

    fn read_page(
        &mut self,
        kind: Kind,
        logical: u64,
        r: &PageRef,
    ) -> Result<Rc<Vec<u8>>, RecordsError> {
        if let Some(p) = self.cache.get((kind as u8, logical)) {
            return Ok(p);
        }
        let mut f = self.reader();
        let p = Rc::new(f.page(kind, logical, r)?);
        self.cache.put((kind as u8, logical), p.clone());
        Ok(p)
    }

    /// The directory page `i` of a kind.
    fn dir(&mut self, kind: Kind, i: usize) -> Result<Rc<Vec<PageRef>>, RecordsError> {
        if let Some(d) = self.dirs.get(&(kind as u8, i)) {
            return Ok(d.clone());
        }
        let list = if kind == Kind::DataDir {
            &self.root.data_dirs
        } else {
            &self.root.index_dirs
        };
        let r = *list
            .get(i)
            .ok_or(RecordsError::Corrupt("directory too short"))?;
        let mut f = self.reader();
        let d = Rc::new(f.dir(kind, i, &r)?);
        self.dirs.insert((kind as u8, i), d.clone());
        Ok(d)
    }

    /// The ref of data or index page `logical`.
    fn page_ref(&mut self, kind: Kind, logical: u64) -> Result<PageRef, RecordsError> {
        let cap = dir_capacity(self.page_size) as u64;
        let dkind = if kind == Kind::Data {
            Kind::DataDir
        } else {
            Kind::IndexDir
        };
        let d = self.dir(dkind, (logical / cap) as usize)?;
        d.get((logical % cap) as usize)
            .copied()
            .ok_or(RecordsError::Corrupt("page missing from its directory"))
    }

    fn data_page(&mut self, logical: u64) -> Result<(Rc<Vec<u8>>, Vec<Rec>), RecordsError> {
        let r = self.page_ref(Kind::Data, logical)?;
        let p = self.read_page(Kind::Data, logical, &r)?;
        let recs = parse_data(&p).ok_or(RecordsError::Corrupt("a data page does not parse"))?;
        Ok((p, recs))
    }

    fn index_page(&mut self, logical: u64) -> Result<IndexPage, RecordsError> {
        let r = self.page_ref(Kind::Index, logical)?;
        let p = self.read_page(Kind::Index, logical, &r)?;
        IndexPage::decode(&p).ok_or(RecordsError::Corrupt("an index page does not parse"))
    }

    /// Where the record with `key` is: its data page's number, the page, and the
    /// record's bytes in it.
    fn locate(&mut self, key: &[u8]) -> Result<Option<Located>, RecordsError> {
        let token = self.keys.token(key);
        let tag = tag_of(token);
        let mut logical = u64::from(bucket_of(token, self.root.buckets));
        let mut hops = 0;
        let mut found = None;
        loop {
            let r = self.page_ref(Kind::Index, logical)?;
            let page = self.read_page(Kind::Index, logical, &r)?;
            let res = index_lookup(&page, tag, |data| {
                let r = self.page_ref(Kind::Data, u64::from(data))?;
                let p = self.read_page(Kind::Data, u64::from(data), &r)?;
                match find_in_data(&p, key) {
                    None => Err(RecordsError::Corrupt("a data page does not parse")),
                    Some(None) => Ok(false),
                    Some(Some(raw)) => {
                        let start = raw.as_ptr() as usize - p.as_ptr() as usize;
                        let range = start..start + raw.len();
                        found = Some((data, p.clone(), range));
                        Ok(true)
                    }
                }
            })?;
            let Some((hit, next)) = res else {
                return Err(RecordsError::Corrupt("an index page does not parse"));
            };
            if hit {
                return Ok(found);
            }
            if next == NO_NEXT {
                return Ok(None);
            }
            logical = u64::from(next);
            hops += 1;
            if hops > 1 << 20 {
                return Err(RecordsError::Corrupt("an index chain loops"));
            }
        }
    }

    /// The record with `key`, as it was in the input (line end included).
    pub fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, RecordsError> {
        Ok(self.locate(key)?.map(|(_, p, r)| p[r].to_vec()))
    }

    /// Appends the record with `key` to `out`; returns whether there was one.
    pub fn get_into(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, RecordsError> {
        Ok(match self.locate(key)? {
            Some((_, p, r)) => {
                out.extend_from_slice(&p[r]);
                true
            }
            None => false,
        })
    }

    /// The `n`-th live record (from 1) in file order.
    pub fn get_number(&mut self, n: u64) -> Result<Option<Vec<u8>>, RecordsError> {
        if n == 0 || n > self.root.records {
            return Ok(None);
        }
        let mut left = n - 1;
        let cap = dir_capacity(self.page_size) as u64;
        for (di, r) in self.root.data_dirs.clone().iter().enumerate() {
            if left >= r.count {
                left -= r.count;
                continue;
            }
            let d = self.dir(Kind::DataDir, di)?;
            for (j, e) in d.iter().enumerate() {
                if left >= e.count {
                    left -= e.count;
                    continue;
                }
                let (p, recs) = self.data_page(di as u64 * cap + j as u64)?;
                let rec = recs
                    .get(left as usize)
                    .ok_or(RecordsError::Corrupt("record counts disagree"))?;
                return Ok(Some(p[rec.raw.clone()].to_vec()));
            }
        }
        Err(RecordsError::Corrupt("record counts disagree"))
    }

    /// Calls `f` with every live record's raw bytes, in file order, after its page
    /// authenticates.
    pub fn for_each(
        &mut self,
        progress: &dyn Progress,
        mut f: impl FnMut(&[u8]) -> Result<(), RecordsError>,
    ) -> Result<(), RecordsError> {
        let pages = self.data_pages()?;
        progress.set_total(pages.len() as u64);
        self.reader().each_record(&pages, progress, &mut f)
    }

    /// Every data page: (logical number, where it is).
    fn data_pages(&mut self) -> Result<Vec<(u64, PageRef)>, RecordsError> {
        let mut fr = self.reader();
        let cap = dir_capacity(self.page_size) as u64;
        let mut out = Vec::new();
        for (di, r) in self.root.data_dirs.iter().enumerate() {
            let d = fr.dir(Kind::DataDir, di, r)?;
            out.extend(
                d.into_iter()
                    .enumerate()
                    .map(|(j, e)| (di as u64 * cap + j as u64, e)),
            );
        }
        Ok(out)
    }

    fn reader(&self) -> RecordFileRef<'_> {
        RecordFileRef {
            file: &self.file,
            keys: &self.keys,
            id: self.header.file_id,
            page_size: self.page_size,
        }
    }

    /// Writes the input's header row and every live record to `out`: the original bytes.
    /// With `verified_first`, nothing is written unless every data page authenticates:
    /// up to `budget` bytes of plaintext are held in memory; a larger file gets a first
    /// pass that authenticates everything, then a second that writes. Without it (an
    /// output the caller discards on error), one pass. Returns the bytes written.
    pub fn write_all(
        &mut self,
        out: &mut dyn Write,
        verified_first: bool,
        budget: usize,
        progress: &dyn Progress,
    ) -> Result<u64, RecordsError> {
        let prefix = self.prefix()?.unwrap_or_default();
        self.authenticate_index()?;
        let mut written = 0u64;
        if verified_first {
            let pages = self.data_pages()?;
            // Plaintext is at most the pages' capacity; hold it when that fits the budget.
            let most = pages.len().saturating_mul(data_capacity(self.page_size));
            if most.saturating_add(prefix.len()) <= budget {
                progress.set_total(pages.len() as u64);
                let held = self.decrypt_parallel(&pages, progress)?;
                out.write_all(&prefix).map_err(RecordsError::Write)?;
                let mut written = prefix.len() as u64;
                for part in &held {
                    out.write_all(part).map_err(RecordsError::Write)?;
                    written += part.len() as u64;
                }
                out.flush().map_err(RecordsError::Write)?;
                return Ok(written);
            }
            // Too large to hold: a first pass authenticates everything.
            self.for_each(progress, |_| Ok(()))?;
            progress.set_total(0);
        }
        out.write_all(&prefix).map_err(RecordsError::Write)?;
        written += prefix.len() as u64;
        self.for_each(progress, |r| {
            written += r.len() as u64;
            out.write_all(r).map_err(RecordsError::Write)
        })?;
        out.flush().map_err(RecordsError::Write)?;
        Ok(written)
    }

    /// The records of `pages`, authenticated, as consecutive parts: the work is split
    /// between this thread and a second one when the machine has more than one CPU.
    fn decrypt_parallel(
        &self,
        pages: &[(u64, PageRef)],
        progress: &dyn Progress,
    ) -> Result<Vec<Vec<u8>>, RecordsError> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
        let (file, keys, id, page_size) =
            (&self.file, &self.keys, self.header.file_id, self.page_size);
        let part_of = |pages: &[(u64, PageRef)], progress: &dyn Progress| {
            let mut held = Vec::with_capacity(pages.len() * data_capacity(page_size));
            let mut reader = RecordFileRef {
                file,
                keys,
                id,
                page_size,
            };
            reader.each_record(pages, progress, &mut |r| {
                held.extend_from_slice(r);
                Ok(())
            })?;
            Ok::<_, RecordsError>(held)
        };
        if threads < 2 || pages.len() < 64 {
            return Ok(vec![part_of(pages, progress)?]);
        }
        let (first, second) = pages.split_at(pages.len() / 2);
        std::thread::scope(|scope| {
            let helper = scope.spawn(|| part_of(second, &crate::progress::NoProgress));
            let a = part_of(first, progress);
            let b = helper
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            progress.advance(second.len() as u64);
            Ok(vec![a?, b?])
        })
    }

    /// Authenticates every index page (and the directories naming them).
    fn authenticate_index(&mut self) -> Result<(), RecordsError> {
        for logical in 0..self.index_page_count()? {
            let r = self.page_ref(Kind::Index, logical)?;
            let mut f = self.reader();
            f.page(Kind::Index, logical, &r)?;
        }
        Ok(())
    }

    /// Seals the current records into `out` under a new data key and file id, with the
    /// slots `make_slots` gives: the same records, format and page size, no garbage.
    pub fn rewrite(
        &mut self,
        out: &mut File,
        make_slots: &MakeSlots<'_>,
        progress: &dyn Progress,
    ) -> Result<SealSummary, RecordsError> {
        let settings = Settings {
            format: self.root.format,
            header_row: self.root.header_row,
            key_field: self.root.key_field.clone(),
            page_size: self.header.page_size,
            next_number: self.root.next_number,
            threads: 0,
        };
        let prefix = self.prefix()?;
        let total = self.data_page_count()?;
        progress.set_total(self.root.records);
        let mut logical = 0u64;
        let mut queue: std::collections::VecDeque<InputRecord<'static>> = Default::default();
        let mut failed = false;
        let mut records = std::iter::from_fn(|| {
            loop {
                if let Some(r) = queue.pop_front() {
                    return Some(Ok(r));
                }
                if failed || logical >= total {
                    return None;
                }
                match self.data_page(logical) {
                    Err(e) => {
                        failed = true;
                        return Some(Err(e));
                    }
                    Ok((p, recs)) => {
                        queue.extend(recs.into_iter().map(|r| InputRecord {
                            raw: p[r.raw.clone()].to_vec().into(),
                            key: match r.key {
                                KeyIn::InRaw(k) => KeyPlace::InRaw(k),
                                KeyIn::Own(k) => KeyPlace::Own(p[k].to_vec()),
                            },
                            line: 0,
                        }));
                        self.cache.forget((Kind::Data as u8, logical));
                        logical += 1;
                    }
                }
            }
        });
        seal_with_slots(
            &mut records,
            prefix.as_deref(),
            &settings,
            make_slots,
            out,
            progress,
        )
    }

    /// Authenticates every referenced page and checks the structure: record counts,
    /// index chains (sorted pages, each reachable once) whose entries are exactly the
    /// records' tokens in their buckets.
    pub fn verify(&mut self, progress: &dyn Progress) -> Result<VerifyReport, RecordsError> {
        let mut expected: Vec<(u32, u32, u32)> = Vec::new();
        let mut records = 0u64;
        let mut pages = 0u64;
        let data_pages = self.data_page_count()?;
        let index_pages = self.index_page_count()?;
        let buckets = self.root.buckets;
        progress.set_total(data_pages + index_pages);
        for logical in 0..data_pages {
            let (p, recs) = self.data_page(logical)?;
            let e = self.page_ref(Kind::Data, logical)?;
            if recs.len() as u64 != e.count {
                return Err(RecordsError::Corrupt("record counts disagree"));
            }
            for r in &recs {
                let t = self.keys.token(r.key(&p));
                expected.push((bucket_of(t, buckets), tag_of(t), logical as u32));
            }
            records += recs.len() as u64;
            pages += 1;
            progress.advance(1);
            self.cache.forget((Kind::Data as u8, logical));
        }
        if records != self.root.records {
            return Err(RecordsError::Corrupt("the root's record count disagrees"));
        }
        if u64::from(buckets) > index_pages {
            return Err(RecordsError::Corrupt("fewer index pages than buckets"));
        }
        let mut seen = vec![false; index_pages as usize];
        let mut indexed: Vec<(u32, u32, u32)> = Vec::with_capacity(expected.len());
        for b in 0..buckets {
            let mut logical = u64::from(b);
            loop {
                if logical >= index_pages || std::mem::replace(&mut seen[logical as usize], true) {
                    return Err(RecordsError::Corrupt("an index chain is broken"));
                }
                let page = self.index_page(logical)?;
                if page.entries.windows(2).any(|w| w[0].0 > w[1].0) {
                    return Err(RecordsError::Corrupt("an index page is out of order"));
                }
                indexed.extend(page.entries.iter().map(|&(t, d)| (b, t, d)));
                pages += 1;
                progress.advance(1);
                self.cache.forget((Kind::Index as u8, logical));
                if page.next == NO_NEXT {
                    break;
                }
                logical = u64::from(page.next);
            }
        }
        if seen.iter().any(|s| !s) {
            return Err(RecordsError::Corrupt("an index page is unreachable"));
        }
        expected.sort_unstable();
        indexed.sort_unstable();
        if expected != indexed {
            return Err(RecordsError::Corrupt(
                "the index does not match the records",
            ));
        }
        pages += (self.root.data_dirs.len() + self.root.index_dirs.len()) as u64;
        if self.root.prefix.is_some() {
            self.prefix()?;
            pages += 1;
        }
        Ok(VerifyReport { records, pages })
    }

    /// The key slots.
    pub fn slots(&self) -> &[Slot] {
        &self.header.slots
    }

    /// Applies appends and deletions in one copy-on-write commit: new pages, then the
    /// header copy that is not current. `add` records supersede live records with the
    /// same key; `remove` keys that are absent are ignored. Returns (added, replaced,
    /// removed).
    pub fn commit(
        &mut self,
        add: Vec<InputRecord<'_>>,
        remove: Vec<Vec<u8>>,
    ) -> Result<(u64, u64, u64), RecordsError> {
        self.commit_with_slots(add, remove, None, false)
    }

    /// Rewrites only the header with new key slots (and the same data key).
    pub fn set_slots(&mut self, slots: Vec<Slot>) -> Result<(), RecordsError> {
        self.commit_with_slots(Vec::new(), Vec::new(), Some(slots), true)
            .map(|_| ())
    }

    /// The data key, to wrap into new slots.
    pub fn data_key(&self) -> zeroize::Zeroizing<[u8; 32]> {
        zeroize::Zeroizing::new(*self.keys.data_key())
    }

    /// The file id.
    pub fn file_id(&self) -> [u8; 16] {
        self.header.file_id
    }

    fn commit_with_slots(
        &mut self,
        add: Vec<InputRecord<'_>>,
        remove: Vec<Vec<u8>>,
        slots: Option<Vec<Slot>>,
        header_only: bool,
    ) -> Result<(u64, u64, u64), RecordsError> {
        let cap_dir = dir_capacity(self.page_size);
        let mut root = self.root.clone();
        let generation = root.generation + 1;
        let (mut added, mut replaced, mut removed) = (0u64, 0u64, 0u64);
        let mut allocated = root.allocated;
        if !header_only {
            // The directories (a few pages per thousand records).
            let mut data_refs: Vec<PageRef> = Vec::new();
            for i in 0..root.data_dirs.len() {
                data_refs.extend(self.dir(Kind::DataDir, i)?.iter().copied());
            }
            let mut index_refs: Vec<PageRef> = Vec::new();
            for i in 0..root.index_dirs.len() {
                index_refs.extend(self.dir(Kind::IndexDir, i)?.iter().copied());
            }
            let mut dirty_data: HashMap<u64, Vec<(Vec<u8>, KeyPlace)>> = HashMap::new();
            let mut dirty_index: HashMap<u64, IndexPage> = HashMap::new();
            // Duplicates among the new records: the last one wins.
            let mut last_of: HashMap<&[u8], usize> = HashMap::new();
            for (i, r) in add.iter().enumerate() {
                last_of.insert(r.key_bytes(), i);
            }
            let mut doomed: Vec<Vec<u8>> = remove;
            doomed.extend(add.iter().map(|r| r.key_bytes().to_vec()));
            let mut done: HashSet<Vec<u8>> = HashSet::new();
            for key in doomed {
                if !done.insert(key.clone()) {
                    continue;
                }
                let Some((data, _, _)) = self.locate(&key)? else {
                    continue;
                };
                if last_of.contains_key(key.as_slice()) {
                    replaced += 1;
                } else {
                    removed += 1;
                }
                // Take the record out of its data page.
                let logical = u64::from(data);
                if let std::collections::hash_map::Entry::Vacant(v) = dirty_data.entry(logical) {
                    let r = *data_refs
                        .get(logical as usize)
                        .ok_or(RecordsError::Corrupt("page missing from its directory"))?;
                    let mut fr = self.reader();
                    let p = fr.page(Kind::Data, logical, &r)?;
                    let recs = parse_data(&p)
                        .ok_or(RecordsError::Corrupt("a data page does not parse"))?;
                    v.insert(
                        recs.iter()
                            .map(|r| {
                                let key = match &r.key {
                                    KeyIn::InRaw(k) => KeyPlace::InRaw(k.clone()),
                                    KeyIn::Own(k) => KeyPlace::Own(p[k.clone()].to_vec()),
                                };
                                (p[r.raw.clone()].to_vec(), key)
                            })
                            .collect(),
                    );
                }
                let recs = dirty_data.get_mut(&logical).expect("inserted above");
                let at = recs
                    .iter()
                    .position(|(raw, k)| key_of(raw, k) == key.as_slice())
                    .ok_or(RecordsError::Corrupt("the index points to the wrong page"))?;
                recs.remove(at);
                // And its entry out of the index.
                let token = self.keys.token(&key);
                let tag = tag_of(token);
                let mut il = u64::from(bucket_of(token, root.buckets));
                let mut hops = 0;
                loop {
                    let page = self.dirty_index_page(&mut dirty_index, &index_refs, il)?;
                    if let Some(i) = page
                        .entries
                        .iter()
                        .position(|&(t, d)| t == tag && d == data)
                    {
                        page.entries.remove(i);
                        break;
                    }
                    if page.next == NO_NEXT {
                        return Err(RecordsError::Corrupt("a record is missing from the index"));
                    }
                    il = u64::from(page.next);
                    hops += 1;
                    if hops > index_refs.len() {
                        return Err(RecordsError::Corrupt("an index chain loops"));
                    }
                }
                root.records -= 1;
            }
            // Pack the new records into new data pages.
            let cap = data_capacity(self.page_size);
            let mut new_pages: Vec<Vec<(Vec<u8>, KeyPlace)>> = Vec::new();
            let mut size = 2;
            let mut current: Vec<(Vec<u8>, KeyPlace)> = Vec::new();
            let mut new_entries: Vec<(u64, u32)> = Vec::new();
            let lines = root.format == InputFormat::Lines;
            for (i, r) in add.iter().enumerate() {
                if lines {
                    root.next_number += 1;
                }
                if last_of.get(r.key_bytes()) != Some(&i) {
                    continue;
                }
                let s = record_size(&r.raw, &r.key);
                if s + 2 > cap {
                    return Err(RecordsError::RecordTooLarge {
                        line: r.line,
                        max: cap - 8,
                    });
                }
                if size + s > cap || current.len() == usize::from(u16::MAX) {
                    new_pages.push(std::mem::take(&mut current));
                    size = 2;
                }
                let logical = data_refs.len() + new_pages.len();
                let logical = u32::try_from(logical).map_err(|_| RecordsError::TooLarge)?;
                new_entries.push((self.keys.token(r.key_bytes()), logical));
                size += s;
                current.push((r.raw.to_vec(), r.key.clone()));
                root.records += 1;
            }
            added = new_entries.len() as u64 - replaced;
            if !current.is_empty() {
                new_pages.push(current);
            }
            for page in new_pages {
                dirty_data.insert(data_refs.len() as u64, page);
                data_refs.push(PageRef::default());
            }
            let cap_index = index_capacity(self.page_size);
            let rebuild = root.records as f64 > f64::from(root.buckets) * cap_index as f64 * 0.95;
            if !rebuild {
                for (token, data) in new_entries {
                    let tag = tag_of(token);
                    let mut il = u64::from(bucket_of(token, root.buckets));
                    loop {
                        let page = self.dirty_index_page(&mut dirty_index, &index_refs, il)?;
                        if page.entries.len() < cap_index {
                            let at = page.entries.partition_point(|e| e.0 <= tag);
                            page.entries.insert(at, (tag, data));
                            break;
                        }
                        if page.next == NO_NEXT {
                            let new_logical = index_refs.len() as u64;
                            page.next =
                                u32::try_from(new_logical).map_err(|_| RecordsError::TooLarge)?;
                            index_refs.push(PageRef::default());
                            dirty_index.insert(
                                new_logical,
                                IndexPage {
                                    next: NO_NEXT,
                                    entries: vec![(tag, data)],
                                },
                            );
                            break;
                        }
                        il = u64::from(page.next);
                    }
                }
            }
            let mut w = PageWriter::new(
                &mut self.file,
                &self.keys,
                self.header.file_id,
                self.page_size,
                allocated,
                generation,
            );
            if rebuild {
                // A larger index, from the tokens of the records themselves; sized for
                // growth so that appends rebuild it rarely.
                let mut all: Vec<(u64, u32)> = Vec::with_capacity(root.records as usize);
                for l in 0..data_refs.len() as u64 {
                    if let Some(recs) = dirty_data.get(&l) {
                        all.extend(
                            recs.iter()
                                .map(|(raw, k)| (w.keys.token(key_of(raw, k)), l as u32)),
                        );
                    } else {
                        let mut fr = RecordFileRef {
                            file: &*w.file,
                            keys: w.keys,
                            id: w.file_id,
                            page_size: w.page_size,
                        };
                        let p = fr.page(Kind::Data, l, &data_refs[l as usize])?;
                        let recs = parse_data(&p)
                            .ok_or(RecordsError::Corrupt("a data page does not parse"))?;
                        all.extend(recs.iter().map(|r| (w.keys.token(r.key(&p)), l as u32)));
                    }
                }
                let buckets = ((root.records as f64 / (cap_index as f64 * REBUILD_FILL)).ceil()
                    as u32)
                    .max(1);
                order_for_index(&mut all, buckets, |e| e.0);
                index_refs = write_index(&mut w, buckets, &all)?;
                root.buckets = buckets;
                root.index_dirs = write_dirs(&mut w, Kind::IndexDir, &index_refs)?;
            } else {
                let mut changed: Vec<u64> = dirty_index.keys().copied().collect();
                changed.sort_unstable();
                for &l in &changed {
                    index_refs[l as usize] =
                        w.write(Kind::Index, l, &dirty_index[&l].encode(), 0)?;
                }
                update_dirs(
                    &mut w,
                    Kind::IndexDir,
                    &changed,
                    &index_refs,
                    &mut root.index_dirs,
                    cap_dir,
                )?;
            }
            let mut changed: Vec<u64> = dirty_data.keys().copied().collect();
            changed.sort_unstable();
            for &l in &changed {
                let recs = &dirty_data[&l];
                let mut b = Vec::with_capacity(self.page_size);
                b.extend_from_slice(&(recs.len() as u16).to_le_bytes());
                for (raw, key) in recs {
                    encode_record(&mut b, raw, key);
                }
                data_refs[l as usize] = w.write(Kind::Data, l, &b, recs.len() as u64)?;
            }
            update_dirs(
                &mut w,
                Kind::DataDir,
                &changed,
                &data_refs,
                &mut root.data_dirs,
                cap_dir,
            )?;
            w.flush()?;
            allocated = w.next_physical;
            drop(w);
            // Pages first, durably; the header that makes them current after.
            self.file.sync_data().map_err(RecordsError::Write)?;
        }
        root.generation = generation;
        root.allocated = allocated;
        let mut header = self.header.clone();
        header.sequence += 1;
        let new_slots = slots.is_some();
        if let Some(s) = slots {
            header.slots = s;
        }
        let bytes = header.encode(&self.keys, &root)?;
        // The copy that is not current: A holds odd sequences, B even ones.
        let at = if header.sequence % 2 == 1 {
            0
        } else {
            HEADER_SIZE as u64
        };
        self.write_header_copy(at, &bytes)?;
        if new_slots {
            // The other copy still holds the old slots: overwrite it as well, once the
            // new copy is durable, so that a removed key no longer opens the file.
            self.write_header_copy(HEADER_SIZE as u64 - at, &bytes)?;
        }
        self.header = header;
        self.root = root;
        self.dirs.clear();
        self.cache.pages.clear();
        self.cache.order.clear();
        self.cache.used = 0;
        Ok((added, replaced, removed))
    }

    fn write_header_copy(&mut self, at: u64, bytes: &[u8]) -> Result<(), RecordsError> {
        self.file
            .seek(SeekFrom::Start(at))
            .map_err(RecordsError::Write)?;
        self.file.write_all(bytes).map_err(RecordsError::Write)?;
        self.file.sync_data().map_err(RecordsError::Write)
    }

    /// An index page being changed by a commit, loaded on first use.
    fn dirty_index_page<'d>(
        &self,
        dirty: &'d mut HashMap<u64, IndexPage>,
        refs: &[PageRef],
        logical: u64,
    ) -> Result<&'d mut IndexPage, RecordsError> {
        if let std::collections::hash_map::Entry::Vacant(v) = dirty.entry(logical) {
            let r = *refs
                .get(logical as usize)
                .ok_or(RecordsError::Corrupt("an index chain is broken"))?;
            let mut fr = self.reader();
            let p = fr.page(Kind::Index, logical, &r)?;
            v.insert(
                IndexPage::decode(&p)
                    .ok_or(RecordsError::Corrupt("an index page does not parse"))?,
            );
        }
        Ok(dirty.get_mut(&logical).expect("inserted above"))
    }
}

/// Rewrites the directory pages that name any of the `changed` pages.
fn update_dirs(
    w: &mut PageWriter<'_>,
    kind: Kind,
    changed: &[u64],
    refs: &[PageRef],
    dirs: &mut Vec<PageRef>,
    cap: usize,
) -> Result<(), RecordsError> {
    let mut pages: Vec<usize> = changed.iter().map(|l| *l as usize / cap).collect();
    pages.dedup();
    for di in pages {
        let chunk = &refs[di * cap..((di + 1) * cap).min(refs.len())];
        let total: u64 = if kind == Kind::DataDir {
            chunk.iter().map(|e| e.count).sum()
        } else {
            0
        };
        let r = w.write(kind, di as u64, &encode_dir(chunk), total)?;
        if di < dirs.len() {
            dirs[di] = r;
        } else {
            dirs.push(r);
        }
    }
    Ok(())
}

fn key_of<'a>(raw: &'a [u8], key: &'a super::KeyPlace) -> &'a [u8] {
    match key {
        super::KeyPlace::InRaw(r) => &raw[r.clone()],
        super::KeyPlace::Own(k) => k,
    }
}

/// Tries every slot with every secret given.
fn open_slots(
    header: &Header,
    unlocks: &[Unlock<'_>],
) -> Result<Option<zeroize::Zeroizing<[u8; 32]>>, RecordsError> {
    for u in unlocks {
        for s in &header.slots {
            if s.matches(u)
                && let Some(dk) = s.open(u, &header.file_id)?
            {
                return Ok(Some(dk));
            }
        }
    }
    Ok(None)
}

/// The valid header copies of a file, highest sequence first (copy A first on a tie),
/// and the file's length.
fn read_headers(file: &File) -> Result<(Vec<(Header, usize)>, u64), RecordsError> {
    let len = file.metadata().map_err(RecordsError::Read)?.len();
    if len < (2 * HEADER_SIZE) as u64 {
        let mut head = [0u8; 8];
        let n = (&*file).read(&mut head).unwrap_or(0);
        if n < 8 || &head != super::format::MAGIC {
            return Err(RecordsError::NotRecords);
        }
        return Err(RecordsError::Truncated);
    }
    let mut copies = Vec::new();
    let mut problems = Vec::new();
    for i in 0..2 {
        // Read what the checksum covers and the checksum, not the zero padding.
        let base = (i * HEADER_SIZE) as u64;
        let mut b = vec![0u8; 4096];
        read_exact_at(file, base, &mut b)?;
        if let Some(used) = Header::used_len(&b).filter(|&u| u > b.len()) {
            b.resize(used, 0);
            read_exact_at(file, base + 4096, &mut b[4096..])?;
        }
        let mut sum = [0u8; 8];
        read_exact_at(file, base + (HEADER_SIZE - 8) as u64, &mut sum)?;
        match Header::decode_parts(&b, u64::from_le_bytes(sum)) {
            Ok(h) => copies.push((h, i)),
            Err(p) => problems.push(p),
        }
    }
    if copies.is_empty() {
        if problems.iter().all(|p| *p == HeaderProblem::Magic) {
            return Err(RecordsError::NotRecords);
        }
        if let Some(v) = problems.iter().find_map(|p| match p {
            HeaderProblem::Newer(v) => Some(*v),
            _ => None,
        }) {
            return Err(RecordsError::Newer(v));
        }
        return Err(RecordsError::CorruptHeader);
    }
    copies.sort_by_key(|(h, i)| (std::cmp::Reverse(h.sequence), *i));
    Ok((copies, len))
}

/// What the header of a record file says without a key (`records info`).
#[derive(Debug, Clone)]
pub struct Peek {
    /// Page size.
    pub page_size: u32,
    /// Commits so far.
    pub sequence: u64,
    /// The key slots.
    pub slots: Vec<String>,
    /// Bytes of the file.
    pub bytes: u64,
    /// Whether one header copy is damaged or stale (normal after a commit: it holds the
    /// previous state).
    pub copies_valid: usize,
}

/// Reads a record file's header without a key.
pub fn peek(path: &Path) -> Result<Peek, RecordsError> {
    let file = File::open(path).map_err(RecordsError::Read)?;
    let (copies, len) = read_headers(&file)?;
    let h = &copies[0].0;
    Ok(Peek {
        page_size: h.page_size,
        sequence: h.sequence,
        slots: h.slots.iter().map(describe_slot).collect(),
        bytes: len,
        copies_valid: copies.len(),
    })
}

/// A slot as `info` shows it.
pub fn describe_slot(s: &Slot) -> String {
    match s {
        Slot::Keyring { key_id, .. } => format!("keyring key {key_id}"),
        Slot::Passphrase { params, .. } => format!(
            "passphrase (Argon2id m={} MiB, t={}, p={})",
            params.0 / 1024,
            params.1,
            params.2
        ),
    }
}

/// The lock of the record file at `path`, if there is one, for a command that is about
/// to replace it (`seal --force`): held until the replacement is renamed into place,
/// so that no writer commits into the file being replaced.
pub fn lock_existing(path: &Path) -> Result<Option<File>, RecordsError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => lock_path(path, false).map(Some),
        _ => Ok(None),
    }
}

/// Opens a record file; for writing, with an exclusive lock held until it is closed (one
/// writer at a time; readers need none, since commits never overwrite what the current
/// header names). A writer that waited for the lock while another replaced the file
/// (`rekey --rotate-data-key`) opens the new file.
fn open_locked(path: &Path, writable: bool) -> Result<File, RecordsError> {
    if !writable {
        return std::fs::File::open(path).map_err(RecordsError::Read);
    }
    lock_path(path, true)
}

/// Opens `path` and takes its exclusive lock; after waiting for it, checks that the path
/// still names the file locked (a writer that replaced the file meanwhile renamed a new
/// one over it), else opens the new one and locks that.
fn lock_path(path: &Path, writable: bool) -> Result<File, RecordsError> {
    loop {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(writable)
            .open(path)
            .map_err(|e| {
                if writable {
                    RecordsError::OpenWrite(e)
                } else {
                    RecordsError::Read(e)
                }
            })?;
        file.lock().map_err(RecordsError::Write)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let held = file.metadata().map_err(RecordsError::Read)?;
            match std::fs::metadata(path) {
                Ok(now) if now.dev() == held.dev() && now.ino() == held.ino() => return Ok(file),
                Ok(_) => continue,
                Err(e) => return Err(RecordsError::Read(e)),
            }
        }
        #[cfg(not(unix))]
        return Ok(file);
    }
}

/// Reads `buf.len()` bytes at `at`; a short file is `Truncated`.
fn read_exact_at(file: &File, at: u64, buf: &mut [u8]) -> Result<(), RecordsError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, at).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                RecordsError::Truncated
            } else {
                RecordsError::Read(e)
            }
        })
    }
    #[cfg(not(unix))]
    {
        let mut f = file;
        f.seek(SeekFrom::Start(at)).map_err(RecordsError::Read)?;
        f.read_exact(buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                RecordsError::Truncated
            } else {
                RecordsError::Read(e)
            }
        })
    }
}

/// Reading pages of a file without the cache (usable while the file is borrowed).
struct RecordFileRef<'a> {
    file: &'a File,
    keys: &'a FileKeys,
    id: [u8; 16],
    page_size: usize,
}

impl RecordFileRef<'_> {
    fn read_at(&mut self, at: u64, buf: &mut [u8]) -> Result<(), RecordsError> {
        read_exact_at(self.file, at, buf)
    }

    fn page(&mut self, kind: Kind, logical: u64, r: &PageRef) -> Result<Vec<u8>, RecordsError> {
        let mut buf = vec![0u8; self.page_size];
        let at = (2 * HEADER_SIZE) as u64 + r.physical * self.page_size as u64;
        self.read_at(at, &mut buf)?;
        let name = match kind {
            Kind::Data => "data",
            Kind::Index => "index",
            Kind::DataDir => "data directory",
            Kind::IndexDir => "index directory",
            Kind::Prefix => "prefix",
        };
        let plain = self
            .keys
            .open_page(&self.id, kind, logical, r.generation, &mut buf)
            .ok_or(RecordsError::PageAuth {
                kind: name,
                logical,
            })?
            .to_vec();
        Ok(plain)
    }

    /// Calls `f` with every record of the data pages `pages` (logical number, ref), in
    /// order, authenticating each page; reads runs of consecutive pages in one go.
    fn each_record(
        &mut self,
        pages: &[(u64, PageRef)],
        progress: &dyn Progress,
        f: &mut dyn FnMut(&[u8]) -> Result<(), RecordsError>,
    ) -> Result<(), RecordsError> {
        const RUN: usize = 64;
        let mut buf = vec![0u8; self.page_size * RUN];
        let mut j = 0;
        while j < pages.len() {
            let mut run = 1;
            while j + run < pages.len()
                && run < RUN
                && pages[j + run].1.physical == pages[j].1.physical + run as u64
            {
                run += 1;
            }
            let at = (2 * HEADER_SIZE) as u64 + pages[j].1.physical * self.page_size as u64;
            self.read_at(at, &mut buf[..run * self.page_size])?;
            for (k, &(logical, e)) in pages[j..j + run].iter().enumerate() {
                let page = &mut buf[k * self.page_size..(k + 1) * self.page_size];
                let plain = self
                    .keys
                    .open_page(&self.id, Kind::Data, logical, e.generation, page)
                    .ok_or(RecordsError::PageAuth {
                        kind: "data",
                        logical,
                    })?;
                let recs =
                    parse_data(plain).ok_or(RecordsError::Corrupt("a data page does not parse"))?;
                if recs.len() as u64 != e.count {
                    return Err(RecordsError::Corrupt("record counts disagree"));
                }
                for rec in &recs {
                    f(&plain[rec.raw.clone()])?;
                }
            }
            progress.advance(run as u64);
            j += run;
        }
        Ok(())
    }

    fn dir(&mut self, kind: Kind, i: usize, r: &PageRef) -> Result<Vec<PageRef>, RecordsError> {
        let p = self.page(kind, i as u64, r)?;
        decode_dir(&p).ok_or(RecordsError::Corrupt("a directory page does not parse"))
    }
}

/// Convenience for callers that build a new file: a default slot list.
pub fn slots_for(
    unlocks: &[Unlock<'_>],
    file_id: &[u8; 16],
    data_key: &[u8; 32],
) -> Result<Vec<Slot>, RecordsError> {
    unlocks
        .iter()
        .map(|u| Slot::create(u, file_id, data_key))
        .collect()
}
