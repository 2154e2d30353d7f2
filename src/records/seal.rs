//! Sealing a new record file: records packed into data pages (tokens and packing on
//! one thread, encryption and writing on a second), then the token index, the page
//! lists, and both header copies.

use super::codec::PageRef;
use super::compress::Packer;
use super::crypto::{FileKeys, random};
use super::dupkeys::{first_duplicate, run_end};
use super::header::{COPY_SIZE, Header, valid_page_size};
use super::io::{PageReader, PageWriter, write_at};
use super::pages::{IndexLayout, IndexPage, Kind, NO_NEXT, bucket_of, data_capacity};
use super::root::{Compression, DictRef, InputFormat, MAX_KEY_FIELD, Root};
use super::seal_pack::{
    FullPage, SEALER_STOPPED, SEALER_STOPPED_TEXT, pack_pages, seal_pages, train_on_head,
};
use super::slots::{MAX_SLOTS, Slot, Unlock};
use super::{InputRecord, RecordsError, tree};
use crate::progress::Progress;
use std::fs::File;

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
    /// Compress data pages with Zstandard at this level (`None`: uncompressed).
    pub compression: Option<i32>,
    /// When compressing at least [`super::compress::DICT_MIN_INPUT`] bytes of records:
    /// train a dictionary on the first records ([`super::compress::DICT_SAMPLES`] bytes)
    /// and compress every
    /// page with it (record compression 2).
    pub dictionary: bool,
    /// Index tags of 32 bits rather than 16: a lookup reads another key's data page
    /// about once in 7 million lookups rather than once in 70 (4 KiB pages), for 2 bytes more
    /// an index entry (for files read at a URL, where each page read is a request).
    pub wide_tags: bool,
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
            compression: None,
            dictionary: true,
            wide_tags: false,
        }
    }
}

/// The default page size.
pub const DEFAULT_PAGE_SIZE: u32 = 4096;
/// Index fill when sealing (size matters most) and after a rebuild (room for appends).
pub const INDEX_FILL: f64 = 0.9;
/// Index fill of an index rebuilt by a commit.
pub const REBUILD_FILL: f64 = 0.6;
/// A file of at most this many data pages has no index: a lookup reads them all.
pub const TINY_PAGES: u64 = 4;

/// The index buckets for `records` entries of `layout` at `fill`.
pub fn buckets_for(records: u64, layout: IndexLayout, page_size: usize, fill: f64) -> u32 {
    ((records as f64 / (layout.capacity(page_size) as f64 * fill)).ceil() as u32).max(1)
}

/// Buckets for `tokens`, from `buckets` up, so that no bucket needs an overflow page:
/// a lookup then reads one index page, never a chain (at a URL, each page is a request).
/// Each try adds 2% (at most 12 counts tried, the last about 24% more buckets); should
/// every count still overflow, the first is kept and overflow pages take the rest.
pub fn buckets_without_overflow(
    tokens: impl Iterator<Item = u64> + Clone,
    layout: IndexLayout,
    page_size: usize,
    buckets: u32,
) -> u32 {
    let cap = layout.capacity(page_size) as u32;
    let mut counts = Vec::new();
    let mut b = buckets;
    for _ in 0..12 {
        counts.clear();
        counts.resize(b as usize, 0u32);
        let mut fits = true;
        for t in tokens.clone() {
            let c = &mut counts[bucket_of(t, b) as usize];
            *c += 1;
            if *c > cap {
                fits = false;
                break;
            }
        }
        if fits {
            return b;
        }
        b = b.saturating_add(b / 50 + 1);
    }
    buckets
}

/// Writes index pages for `entries` (each giving its token and data page through
/// `entry`; in the order of [`order_for_index`]) in `buckets` buckets, with overflow
/// pages where a bucket is full, each bucket's pages written as it is reached (nothing
/// of the index is held but one page). Returns the refs of every index page by logical
/// number.
pub fn write_index<T>(
    w: &mut PageWriter<'_>,
    layout: IndexLayout,
    buckets: u32,
    entries: &[T],
    entry: impl Fn(&T) -> (u64, u32),
) -> Result<Vec<PageRef>, RecordsError> {
    let cap = layout.capacity(w.page_size());
    let mut refs = Vec::with_capacity(buckets as usize);
    let mut overflow = Vec::new();
    let mut page = IndexPage::empty();
    let mut start = 0;
    for b in 0..buckets {
        let mut end = start;
        while end < entries.len() && bucket_of(entry(&entries[end]).0, buckets) == b {
            end += 1;
        }
        let chunk = &entries[start..end];
        start = end;
        // The bucket's page, then overflow pages numbered on from the last bucket's.
        let pages = chunk.len().div_ceil(cap).max(1);
        let first_overflow = buckets as usize + overflow.len();
        for i in 0..pages {
            let part = &chunk[(i * cap).min(chunk.len())..((i + 1) * cap).min(chunk.len())];
            page.entries.clear();
            page.entries.extend(part.iter().map(|e| {
                let (token, data) = entry(e);
                (layout.tag(token), data)
            }));
            page.next = if i + 1 < pages {
                u32::try_from(first_overflow + i).map_err(|_| RecordsError::TooLarge)?
            } else {
                NO_NEXT
            };
            let logical = if i == 0 {
                u64::from(b)
            } else {
                (first_overflow + i - 1) as u64
            };
            let r = w.write(Kind::Index, logical, &page.encode(layout), 0)?;
            if i == 0 {
                refs.push(r);
            } else {
                overflow.push(r);
            }
        }
    }
    debug_assert_eq!(start, entries.len(), "entries in bucket order");
    refs.extend(overflow);
    Ok(refs)
}

/// Orders `entries` by bucket, then by tag, then by whole token, the order index pages
/// keep, in place (no second array of every entry): a counting sort by the token's top
/// byte, then within each of those parts by bucket (buckets follow the token's order,
/// so each part holds a run of them; a part is small enough to stay in the processor's
/// cache, where moving entries one by one is cheap), then a small sort per bucket.
/// Entries with equal tokens end up adjacent.
pub fn order_for_index<T>(
    entries: &mut [T],
    layout: IndexLayout,
    buckets: u32,
    token: impl Fn(&T) -> u64,
) {
    if entries.len() < 2 {
        return;
    }
    let parts = sort_by_group(entries, 256, |e| (token(e) >> 56) as usize);
    for (top, w) in (0u64..).zip(parts.windows(2)) {
        let part = &mut entries[w[0]..w[1]];
        // The buckets of the tokens whose top byte is `top`.
        let low = bucket_of(top << 56, buckets);
        let high = bucket_of((top << 56) | ((1 << 56) - 1), buckets);
        let groups = (high - low) as usize + 1;
        sort_by_group(part, groups, |e| {
            (bucket_of(token(e), buckets) - low) as usize
        });
    }
    // A bucket may straddle two parts: its runs meet at their boundary.
    let mut start = 0;
    while start < entries.len() {
        let end = run_end(entries, start, |e| bucket_of(token(e), buckets));
        entries[start..end].sort_unstable_by_key(|e| {
            (u128::from(layout.tag(token(e))) << 64) | u128::from(token(e))
        });
        start = end;
    }
}

/// Sorts `v` in place by `group` (below `groups`; the order within a group is any):
/// each group's next free slot takes the entry there if it belongs, or swaps it to the
/// next free slot of its own group (a later one: the earlier ones are full and hold
/// only their own). Returns where each group starts, and the end.
fn sort_by_group<T>(v: &mut [T], groups: usize, group: impl Fn(&T) -> usize) -> Vec<usize> {
    let mut starts = vec![0usize; groups + 1];
    for e in v.iter() {
        starts[group(e) + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut next = starts.clone();
    for g in 0..groups {
        while next[g] < starts[g + 1] {
            let to = group(&v[next[g]]);
            if to == g {
                next[g] += 1;
            } else {
                v.swap(next[g], next[to]);
                next[to] += 1;
            }
        }
    }
    starts
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
    let make_slots = |id: &[u8; 16], dk: &[u8; 32]| super::slots::slots_for(unlocks, id, dk);
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
    if !valid_page_size(settings.page_size) {
        return Err(RecordsError::PageSize(settings.page_size));
    }
    if settings.key_field.len() > MAX_KEY_FIELD {
        return Err(RecordsError::KeyFieldName);
    }
    let page_size = settings.page_size as usize;
    let mut file_id = [0u8; 16];
    random(&mut file_id)?;
    let mut dk = zeroize::Zeroizing::new([0u8; 32]);
    random(dk.as_mut())?;
    let keys = FileKeys::new(&dk);
    let slots = make_slots(&file_id, &dk)?;
    if slots.is_empty() || slots.len() > MAX_SLOTS {
        return Err(RecordsError::SlotCount(slots.len()));
    }
    super::header::check_slot_room(&slots, COPY_SIZE)?;
    // The first records, held to train a dictionary on, then sealed first.
    let mut head: Vec<Result<InputRecord<'a>, RecordsError>> = Vec::new();
    let dict = match settings.compression {
        Some(_) if settings.dictionary => train_on_head(records, &mut head),
        _ => None,
    };
    let records = &mut head.into_iter().chain(records);
    out.set_len(0).map_err(RecordsError::Write)?;
    let generation = 1;
    let reader = PageReader {
        file: super::io::Source::Local(out),
        keys: &keys,
        id: file_id,
        page_size,
        pages_at: 2 * COPY_SIZE as u64,
        compressed: settings.compression.is_some(),
        dict: dict.as_deref(),
        mapped: None,
    };
    let mut w = PageWriter::new(reader, 0, generation);
    let dictionary = match (&dict, settings.compression) {
        (Some(d), Some(level)) => Some(DictRef {
            level: level.clamp(1, 22) as u8,
            pages: super::dict_pages::write(&mut w, d)?,
        }),
        _ => None,
    };
    let cap = data_capacity(page_size);
    let mut packer = Packer::new(page_size, settings.compression, dict.clone());
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
            let packed = pack_pages(records, &keys, &mut packer, progress, threads, |batch| {
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
        let (entries, lines, count) =
            pack_pages(records, &keys, &mut packer, progress, 1, |batch| {
                let mut back = Vec::new();
                refs.extend(seal_pages(&mut w, std::iter::once(batch), |b| back = b)?);
                Ok(back)
            })?;
        (refs, entries, lines, count)
    };
    // A file of a few pages has no index; a larger one is indexed at INDEX_FILL.
    let data_pages = data_refs.len() as u64;
    let layout =
        IndexLayout::for_pages(data_pages).with_tags(if settings.wide_tags { 4 } else { 2 });
    let buckets = if data_pages <= TINY_PAGES {
        0
    } else {
        let first = buckets_for(count, layout, page_size, INDEX_FILL);
        buckets_without_overflow(entries.iter().map(|e| e.0), layout, page_size, first)
    };
    // Duplicate keys have equal tokens: order by token, confirm equal tokens by
    // comparing the keys themselves (read back from the pages just written).
    order_for_index(&mut entries, layout, buckets.max(1), |e| e.0);
    if let Some((first, second)) = first_duplicate(&mut w, &entries, &data_refs)? {
        return Err(RecordsError::DuplicateKey {
            first: lines.line(first),
            second: lines.line(second),
        });
    }
    drop(lines);
    let index_refs = if buckets == 0 {
        Vec::new()
    } else {
        write_index(&mut w, layout, buckets, &entries, |&(t, _, p)| (t, p))?
    };
    drop(entries);
    let data = tree::build(&mut w, Kind::DataDir, &data_refs, None)?;
    let index = tree::build(&mut w, Kind::IndexDir, &index_refs, None)?;
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
        index_layout: layout,
        compression: match (dictionary, settings.compression) {
            (Some(_), _) => Compression::ZstdDict,
            (None, Some(_)) => Compression::Zstd,
            (None, None) => Compression::None,
        },
        dictionary,
        prefix: prefix_ref,
        data,
        index,
    };
    let header = Header::new(settings.page_size, COPY_SIZE, file_id, 1, slots);
    let bytes = header.encode(&keys, &root)?;
    write_at(out, 0, &bytes)?;
    write_at(out, COPY_SIZE as u64, &bytes)?;
    let len = header.pages_at() + allocated * page_size as u64;
    out.set_len(len).map_err(RecordsError::Write)?;
    Ok(SealSummary {
        records: count,
        pages: allocated,
        bytes: len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Buckets are added until none overflows, as few as that takes; a bucket no count
    /// empties (equal tokens past a page) keeps the first count.
    #[test]
    fn buckets_are_added_until_none_overflows() {
        let layout = IndexLayout::for_pages(200).with_tags(4);
        let cap = layout.capacity(4096) as u64;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let tokens: Vec<u64> = (0..2_000_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect();
        let first = buckets_for(2_000_000, layout, 4096, INDEX_FILL);
        let b = buckets_without_overflow(tokens.iter().copied(), layout, 4096, first);
        assert!(b > first && b < first + first / 4, "{first} {b} {cap}");
        let mut counts = vec![0u64; b as usize];
        tokens
            .iter()
            .for_each(|&t| counts[bucket_of(t, b) as usize] += 1);
        assert!(counts.iter().all(|&c| c <= cap));
        // The try before overflows: the count is the first that fits.
        let mut before = first;
        while before + before / 50 + 1 < b {
            before += before / 50 + 1;
        }
        let mut counts = vec![0u64; before as usize];
        tokens
            .iter()
            .for_each(|&t| counts[bucket_of(t, before) as usize] += 1);
        assert!(counts.iter().any(|&c| c > cap));
        // Small pages, where 12 tries do not reach a count that fits: the first is kept.
        let small = buckets_for(200_000, layout, 512, INDEX_FILL);
        assert_eq!(
            buckets_without_overflow(tokens[..200_000].iter().copied(), layout, 512, small),
            small
        );
        let same = vec![7u64; cap as usize + 1];
        assert_eq!(
            buckets_without_overflow(same.into_iter(), layout, 4096, 3),
            3
        );
    }

    proptest! {
        /// The in-place order is a sort by bucket, tag and token (the index's order).
        #[test]
        fn the_index_order_is_a_sort_by_bucket_tag_and_token(
            tokens in proptest::collection::vec(
                prop_oneof![any::<u64>(), (0u64..8).prop_map(|t| t.wrapping_mul(0x9e37_79b9_7f4a_7c15))],
                0..2000,
            ),
            buckets in prop_oneof![1u32..64, 64u32..5000],
            wide in any::<bool>(),
        ) {
            let layout = IndexLayout { tag_bytes: if wide { 4 } else { 2 }, page_bytes: 2 };
            let mut entries: Vec<(u64, u32)> =
                tokens.iter().enumerate().map(|(i, &t)| (t, i as u32)).collect();
            let mut want = entries.clone();
            want.sort_by_key(|e| (bucket_of(e.0, buckets), layout.tag(e.0), e.0));
            order_for_index(&mut entries, layout, buckets, |e| e.0);
            // Equal tokens may come in any order among themselves.
            let key = |v: &[(u64, u32)]| v.iter().map(|e| e.0).collect::<Vec<_>>();
            prop_assert_eq!(key(&entries), key(&want));
            let mut got_ids: Vec<u32> = entries.iter().map(|e| e.1).collect();
            got_ids.sort_unstable();
            prop_assert_eq!(got_ids, (0..tokens.len() as u32).collect::<Vec<_>>());
        }
    }
}
