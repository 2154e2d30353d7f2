//! Decrypted pages kept for repeated access, up to a byte budget.

use super::arena::{Arena, Page};
use super::keymap::KeyMap;
use super::pages::{Kind, each_record, parse_record, prefetch, same_key};
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::ControlFlow;

/// The hash of a page's (kind, logical number): one multiply per word (the FxHash
/// step). Page numbers come from authenticated pages and refs, so no flooding defence
/// (SipHash's cost) is needed; a get looks up two pages, and SipHash was a visible part
/// of a cached get.
#[derive(Default)]
pub struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u64(u64::from(x));
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// Maps keyed by page place.
pub type PageMap<K, V> = HashMap<K, V, BuildHasherDefault<PageHasher>>;

/// The default budget of decrypted pages a file keeps: it fills only as pages are read,
/// so a one-off get costs a few pages, while a batch of random gets over a file of a
/// million records (about 130 MB) decrypts each page once.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// Pages by (kind, logical number), evicted oldest first. Pages whose logical number is
/// below the dense limit (the file's page count: every page's logical number is below
/// it, and the table costs three words per page of the file, 0.6% of a 4 KiB page) sit in a
/// table indexed by number: a cached get then costs no hashing and one memory access
/// fewer; any other page (a hostile number, or one past the limit after the file grew)
/// goes to a map. The table is made in blocks of [`BLOCK`] numbers as pages arrive in
/// them, so that a one-off get of a page far into a large file does not clear (and
/// have the kernel map) a table for every page before it.
pub struct Cache {
    dense: [Vec<Option<Box<Block>>>; KINDS],
    limit: u64,
    pages: PageMap<(u8, u64), Page>,
    /// Where the pages' bytes are (huge-page chunks: [`super::arena`]).
    arena: Arena,
    order: VecDeque<(u8, u64)>,
    /// The records of held data pages by key hash ([`KeyMap`]): their places in the
    /// arena's chunks. How many each data page put there (its records are found again in
    /// the page to take them out).
    records: KeyMap,
    listed: PageMap<u64, u32>,
    /// The file's records and bytes, for the size of [`Cache::records`].
    file_records: u64,
    file_bytes: u64,
    /// Of each bucket (the first index pages, by number; as many as the dense table
    /// holds numbers), whether its page is held and what gets may take from the record
    /// table: [`Bucket`].
    buckets: Vec<Bucket>,
    /// The most bytes held.
    budget: usize,
    used: usize,
}

/// What the cache knows of a bucket's first index page.
#[derive(Clone, PartialEq, Eq)]
enum Bucket {
    /// Not held (or not put as a bucket page): gets take the index.
    Absent,
    /// Held, and alone answers every tag with at most one data page.
    Clean,
    /// Held, and so answers every tag but these, which more than one of its entries
    /// have (sorted; see [`super::pages::repeated_tags`]).
    Noted(Box<[u32]>),
    /// Held, but does not alone answer its gets (an overflow page, tags out of order,
    /// or it does not parse): gets take the index.
    Never,
}

/// Bytes a record in [`Cache::records`] is counted as: its 8-byte slot in the table at
/// half full (made for the records the budget holds, the table is between a third and
/// two thirds full when they are all there: 12 to 24 bytes a record).
pub const RECORD_BYTES: usize = 16;

/// Calls `f` with the key and offset of each record of data page `page`; `None` when
/// the page does not parse.
fn records_of(page: &[u8], mut f: impl FnMut(&[u8], u32)) -> Option<()> {
    each_record(page, |rec, at| match u32::try_from(at) {
        Ok(at) => {
            f(rec.key(page), at);
            ControlFlow::Continue(())
        }
        Err(_) => ControlFlow::Break(()),
    })
    .and_then(|stopped| stopped.is_none().then_some(()))
}

/// Bytes a bucket page's note is counted as.
fn note_bytes(tags: &[u32]) -> usize {
    32 + 4 * tags.len()
}

const DATA: u8 = Kind::Data as u8;
const INDEX: u8 = Kind::Index as u8;

/// Page kinds are numbered below this.
const KINDS: usize = 8;

/// Logical numbers a block of the table holds.
const BLOCK: usize = 256;

/// A block of the table.
type Block = [Option<Page>; BLOCK];

impl Cache {
    /// An empty cache of `budget` bytes, with a table for logical numbers below `limit`,
    /// for a file of `file_records` records in `file_bytes` bytes and `buckets` index
    /// buckets.
    pub fn new(
        budget: usize,
        limit: u64,
        file_records: u64,
        file_bytes: u64,
        buckets: u32,
    ) -> Cache {
        let mut cache = Cache {
            dense: Default::default(),
            limit,
            pages: PageMap::default(),
            arena: Arena::default(),
            order: VecDeque::new(),
            records: KeyMap::new(0),
            listed: PageMap::default(),
            file_records,
            file_bytes,
            buckets: vec![Bucket::Absent; u64::from(buckets).min(limit) as usize],
            budget: 0,
            used: 0,
        };
        cache.set_budget(budget);
        cache
    }

    /// The most bytes held.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Sets the most bytes held (evicting the oldest pages past it).
    pub fn set_budget(&mut self, bytes: usize) {
        self.budget = bytes;
        self.evict();
        if self.listed.is_empty() {
            self.records = KeyMap::new(self.records_hint());
        }
    }

    fn slot(&mut self, (kind, logical): (u8, u64)) -> Option<&mut Option<Page>> {
        let table = self.dense.get_mut(usize::from(kind))?;
        if logical >= self.limit {
            return None;
        }
        let i = logical as usize;
        if table.len() <= i / BLOCK {
            table.resize(i / BLOCK + 1, None);
        }
        let block = table[i / BLOCK].get_or_insert_with(|| Box::new([const { None }; BLOCK]));
        Some(&mut block[i % BLOCK])
    }

    /// A page, if held.
    #[inline]
    pub fn get(&self, k: (u8, u64)) -> Option<Page> {
        self.get_prefetched(k, false)
    }

    /// A page, if held; with `whole`, every line of it is asked for (see
    /// [`prefetch`]) before the page is touched.
    #[inline]
    pub fn get_prefetched(&self, k: (u8, u64), whole: bool) -> Option<Page> {
        let held = self.held(k)?;
        if whole {
            prefetch(held);
        }
        Some(held.clone())
    }

    #[inline]
    fn held(&self, k: (u8, u64)) -> Option<&Page> {
        if let Some(table) = self.dense.get(usize::from(k.0))
            && k.1 < self.limit
        {
            let i = k.1 as usize;
            table.get(i / BLOCK)?.as_ref()?[i % BLOCK].as_ref()
        } else {
            self.pages.get(&k)
        }
    }

    /// The hash [`Cache::put_records`] and [`Cache::find_record`] take of a key.
    #[inline]
    pub fn key_hash(&self, key: &[u8]) -> u64 {
        self.records.hash(key)
    }

    /// Asks the processor for the line of [`Cache::records`] that
    /// [`Cache::find_record`] of `hash` reads first.
    #[inline]
    pub fn prefetch_record(&self, hash: u64) {
        self.records.prefetch(hash);
    }

    /// The bytes of the record with `key` (of hash `hash`: [`Cache::key_hash`]) in a
    /// held data page, found by the record table ([`Cache::put_records`]); only while
    /// the key's bucket page (index page `bucket`) is held and names at most one data
    /// page for `tag` (see [`Cache::put_bucket`]): then a get through the index would
    /// read just that bucket page, which authenticated, and that one data page, so it
    /// answers as this does, error for error.
    #[inline]
    pub fn find_record(&self, key: &[u8], hash: u64, bucket: u64, tag: u32) -> Option<&[u8]> {
        match self.buckets.get(usize::try_from(bucket).ok()?)? {
            Bucket::Clean => {}
            Bucket::Noted(tags) => {
                if tags.binary_search(&tag).is_ok() {
                    return None;
                }
            }
            Bucket::Absent | Bucket::Never => return None,
        }
        self.records.find(hash, |chunk, at| {
            // The chunk's filled bytes from the record on: the record parsed inside its
            // page when it was put, and parses the same here (a page's bytes never
            // change, and a parse reads no byte past the record's end).
            let bytes = self.arena.bytes(chunk)?;
            let (rec, _) = parse_record(bytes, at as usize)?;
            same_key(rec.key(bytes), key).then(|| &bytes[rec.raw])
        })
    }

    /// Removes a page, if held (making no block of the table for it), with its records.
    fn take(&mut self, k: (u8, u64)) -> Option<Page> {
        let page = if let Some(table) = self.dense.get_mut(usize::from(k.0))
            && k.1 < self.limit
        {
            let i = k.1 as usize;
            table.get_mut(i / BLOCK)?.as_mut()?[i % BLOCK].take()
        } else {
            self.pages.remove(&k)
        }?;
        self.let_go(k, &page);
        Some(page)
    }

    /// What letting a held page go takes besides: its records out of
    /// [`Cache::records`], a bucket page's state, and the arena's count of the chunk.
    fn let_go(&mut self, (kind, logical): (u8, u64), page: &Page) {
        if kind == INDEX
            && let Some(b) = usize::try_from(logical)
                .ok()
                .and_then(|l| self.buckets.get_mut(l))
            && let Bucket::Noted(tags) = std::mem::replace(b, Bucket::Absent)
        {
            self.used -= note_bytes(&tags);
        }
        if kind == DATA
            && let Some(n) = self.listed.remove(&logical)
            && let Some((chunk, start)) = page.place()
        {
            let map = &mut self.records;
            // The page parsed when its records were put; each is taken out by its place.
            let _ = records_of(page, |key, at| {
                map.remove(map.hash(key), chunk, start + at);
            });
            self.used -= n as usize * RECORD_BYTES;
        }
        self.arena.release(page);
    }

    /// Whether a page of `bytes` would be held (not by a cache of no budget).
    pub fn holds_room(&self, bytes: usize) -> bool {
        bytes <= self.budget
    }

    /// Holds a copy of a page, evicting the oldest beyond the budget; returns the copy
    /// (held, or not when the budget is too small to hold anything).
    pub fn put(&mut self, k: (u8, u64), bytes: &[u8]) -> Page {
        self.put_page(k, bytes, false)
    }

    /// [`Cache::put`] of a bucket's first index page (`k`), with what
    /// [`super::pages::repeated_tags`] says of it.
    pub fn put_bucket(&mut self, k: (u8, u64), bytes: &[u8], repeated: Option<Vec<u32>>) -> Page {
        let page = self.put_page(k, bytes, false);
        let Some(i) = usize::try_from(k.1)
            .ok()
            .filter(|&i| i < self.buckets.len())
        else {
            return page;
        };
        if k.0 == INDEX && self.held(k).is_some() {
            self.buckets[i] = match repeated {
                None => Bucket::Never,
                Some(tags) if tags.is_empty() => Bucket::Clean,
                Some(tags) => {
                    self.used += note_bytes(&tags);
                    Bucket::Noted(tags.into_boxed_slice())
                }
            };
            self.evict();
        }
        page
    }

    /// [`Cache::put`] of data page `logical`, with its records: gets of their keys find
    /// them with [`Cache::find_record`] while the page is held. (A page that does not
    /// parse is held without them: its gets scan it, and fail.)
    pub fn put_records(&mut self, logical: u64, bytes: &[u8]) -> Page {
        self.put_page((DATA, logical), bytes, true)
    }

    fn put_page(&mut self, k: (u8, u64), bytes: &[u8], records: bool) -> Page {
        if bytes.len() > self.budget {
            // Not kept (a cache of no budget): no chunk for it.
            return Page::from(bytes);
        }
        let v = self.arena.hold(bytes);
        let held = v.clone();
        self.used += v.len();
        let old = match self.slot(k) {
            Some(slot) => slot.replace(v),
            None => self.pages.insert(k, v),
        };
        if let Some(old) = old {
            self.used -= old.len();
            self.let_go(k, &old);
        } else {
            self.order.push_back(k);
        }
        if records && let Some(place) = held.place() {
            self.list(k.1, place, &held);
        }
        self.evict();
        held
    }

    /// Puts the records of data page `logical`, at `place` in the arena, into
    /// [`Cache::records`]; their lines of the table are asked for first, so that the
    /// waits for them overlap.
    fn list(&mut self, logical: u64, (chunk, start): (u32, u32), page: &[u8]) {
        let mut found: [(u64, u32); 64] = [(0, 0); 64];
        let mut n = 0u32;
        let map = &mut self.records;
        let mut put = |part: &[(u64, u32)], map: &mut KeyMap| {
            map.prepare(part.iter().map(|&(h, _)| h));
            for &(h, at) in part {
                n += u32::from(map.insert(h, chunk, start + at));
            }
        };
        let mut k = 0;
        let parsed = records_of(page, |key, at| {
            found[k] = (map.hash(key), at);
            k += 1;
            if k == found.len() {
                put(&found, map);
                k = 0;
            }
        });
        if parsed.is_some() {
            put(&found[..k], map);
        }
        // A page that does not parse leaves what it put before failing: those are
        // records of the page as it is held, each found by its own key.
        if n > 0 {
            self.listed.insert(logical, n);
            self.used += n as usize * RECORD_BYTES;
        }
    }

    /// The records [`Cache::records`] may come to hold: the file's, or as many as the
    /// budget holds with their pages.
    fn records_hint(&self) -> usize {
        let per_record = (self.file_bytes / self.file_records.max(1)) as usize;
        let fit = self.budget / (per_record + RECORD_BYTES).max(1);
        (self.file_records as usize).min(fit)
    }

    /// Drops the oldest pages while more than the budget is held.
    fn evict(&mut self) {
        while self.used > self.budget {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(p) = self.take(old) {
                self.used -= p.len();
            }
        }
    }

    /// Drops a page.
    pub fn forget(&mut self, k: (u8, u64)) {
        if let Some(p) = self.take(k) {
            self.used -= p.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages in the table and in the map are held, replaced, forgotten and evicted
    /// oldest first alike; a number far past the limit allocates nothing for it.
    #[test]
    fn table_and_map_behave_alike() {
        let page = |b: u8| vec![b; 100];
        let mut c = Cache::new(300, 10, 0, 0, 0);
        c.put((1, 3), &page(1));
        c.put((2, 3), &page(2));
        c.put((1, u64::MAX), &page(3));
        assert_eq!(c.get((1, 3)).unwrap()[0], 1);
        assert_eq!(c.get((2, 3)).unwrap()[0], 2);
        assert_eq!(c.get((1, u64::MAX)).unwrap()[0], 3);
        assert!(c.dense.iter().all(|t| t.len() <= 1));
        // Replacing keeps the count; a fourth page evicts the oldest.
        c.put((1, 3), &page(4));
        assert_eq!(c.used, 300);
        c.put((5, 0), &page(5));
        assert!(c.get((1, 3)).is_none());
        assert_eq!(c.get((5, 0)).unwrap()[0], 5);
        c.forget((1, u64::MAX));
        assert!(c.get((1, u64::MAX)).is_none());
        assert_eq!(c.used, 200);
        // Kinds beyond the table's go to the map.
        c.put((200, 1), &page(6));
        assert_eq!(c.get((200, 1)).unwrap()[0], 6);
    }

    /// Records of held data pages are found by their keys' hashes while their page and
    /// their bucket page are held, and not when the bucket page's note says the tag
    /// repeats or the bucket has overflow; a replaced, forgotten or evicted page takes
    /// its records with it, and what they were counted as.
    #[test]
    fn records_come_and_go_with_their_pages() {
        use super::super::KeyPlace;
        use super::super::pages::encode_data;
        // Records `key,N`: N names the page they were put in.
        let page = |n: u32, keys: &[&str]| {
            let recs: Vec<(Vec<u8>, KeyPlace)> = keys
                .iter()
                .map(|k| {
                    (
                        format!("{k},{n}\n").into_bytes(),
                        KeyPlace::InRaw(0..k.len()),
                    )
                })
                .collect();
            encode_data(&recs, false)
        };
        let found = |c: &Cache, key: &str, bucket: u64, tag: u32| {
            c.find_record(key.as_bytes(), c.key_hash(key.as_bytes()), bucket, tag)
                .map(|record| {
                    let text = std::str::from_utf8(record).unwrap();
                    let (k, n) = text.trim_end().split_once(',').unwrap();
                    assert_eq!(k, key);
                    n.parse::<u32>().unwrap()
                })
        };
        let mut c = Cache::new(1 << 20, 100, 10, 1000, 4);
        c.put_records(7, &page(7, &["a", "b", "c"]));
        // No bucket page held: not found here.
        assert_eq!(found(&c, "a", 0, 1), None);
        c.put_bucket((INDEX, 0), &[0u8; 6], Some(vec![5]));
        assert_eq!(found(&c, "a", 0, 1), Some(7));
        assert_eq!(found(&c, "c", 0, 6), Some(7));
        assert_eq!(found(&c, "a", 0, 5), None, "a repeated tag");
        assert_eq!(found(&c, "z", 0, 1), None);
        assert_eq!(found(&c, "a", 9, 1), None, "a bucket past the file's");
        c.put_bucket((INDEX, 1), &[0u8; 6], None);
        assert_eq!(found(&c, "a", 1, 1), None, "a bucket with overflow");
        // An index page past the buckets is no bucket page.
        c.put_bucket((INDEX, 2), &[0u8; 6], Some(Vec::new()));
        c.put((INDEX, 3), &[0u8; 6]);
        assert_eq!(found(&c, "a", 2, 1), Some(7));
        assert_eq!(found(&c, "a", 3, 1), None, "not put as a bucket page");
        c.forget((INDEX, 2));
        assert_eq!(found(&c, "a", 2, 1), None, "a bucket page forgotten");
        let counted = c.used;
        // Replaced: the old records go, the new come.
        c.put_records(7, &page(70, &["d", "b"]));
        assert_eq!(found(&c, "a", 0, 1), None);
        assert_eq!(found(&c, "d", 0, 1), Some(70));
        assert_eq!(found(&c, "b", 0, 1), Some(70));
        let shorter = page(7, &["a", "b", "c"]).len() - page(70, &["d", "b"]).len();
        assert_eq!(c.used, counted - RECORD_BYTES - shorter);
        // The same key in two pages: either page's record is an answer (a bucket page
        // whose tag names both would have a note saying so).
        c.put_records(8, &page(8, &["e", "b"]));
        assert!(matches!(found(&c, "b", 0, 1), Some(70 | 8)));
        c.forget((DATA, 7));
        assert_eq!(found(&c, "d", 0, 1), None);
        assert_eq!(found(&c, "e", 0, 1), Some(8));
        assert_eq!(found(&c, "b", 0, 1), Some(8));
        // A bucket page replaced without a note loses it.
        c.put_bucket((INDEX, 1), &[0u8; 6], Some(Vec::new()));
        assert_eq!(found(&c, "e", 1, 1), Some(8));
        c.put_bucket((INDEX, 0), &[0u8; 6], Some(Vec::new()));
        assert_eq!(found(&c, "e", 0, 5), Some(8), "the note went with the page");
        // Evicted with its page: the budget holds one page at a time.
        let mut c = Cache::new(200, 100, 10, 1000, 4);
        c.put_bucket((INDEX, 0), &[0u8; 180], Some(Vec::new()));
        c.put_records(1, &page(1, &["x"]));
        assert_eq!(found(&c, "x", 0, 1), None, "the bucket page was evicted");
        c.put_bucket((INDEX, 0), &[0u8; 6], Some(Vec::new()));
        assert_eq!(found(&c, "x", 0, 1), Some(1));
        c.put_records(2, &[7u8; 190]);
        assert_eq!(found(&c, "x", 0, 1), None, "the data page was evicted");
        let hash = c.key_hash(b"x");
        assert!(c.records.find(hash, |_, _| Some(())).is_none());
        assert_eq!(c.used, 6 + 190);
    }

    /// A page far into the table makes only its own block; its neighbours in the block
    /// and pages in other blocks stay absent until put.
    #[test]
    fn the_table_is_made_block_by_block() {
        let mut c = Cache::new(1 << 20, 1_000_000, 0, 0, 0);
        c.put((1, 999_999), &[9u8; 10]);
        let blocks = |c: &Cache| c.dense[1].iter().filter(|b| b.is_some()).count();
        assert_eq!(blocks(&c), 1);
        assert_eq!(c.get((1, 999_999)).unwrap()[0], 9);
        assert!(c.get((1, 999_998)).is_none());
        assert!(c.get((1, 0)).is_none());
        c.put((1, 999_998), &[8u8; 10]);
        assert_eq!(blocks(&c), 1);
        // Forgetting a page that is not held makes no block for it.
        c.forget((1, 3));
        assert_eq!(blocks(&c), 1);
        c.put((1, 3), &[3u8; 10]);
        assert_eq!(blocks(&c), 2);
        assert_eq!(c.get((1, 3)).unwrap()[0], 3);
        assert_eq!(c.get((1, 999_998)).unwrap()[0], 8);
    }
}
