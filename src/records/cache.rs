//! Decrypted pages kept for repeated access, up to a byte budget.

use super::arena::{Arena, Page};
use super::pages::prefetch;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

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
    /// The most bytes held.
    pub budget: usize,
    used: usize,
}

/// Page kinds are numbered below this.
const KINDS: usize = 8;

/// Logical numbers a block of the table holds.
const BLOCK: usize = 256;

/// A block of the table.
type Block = [Option<Page>; BLOCK];

impl Cache {
    /// An empty cache of `budget` bytes, with a table for logical numbers below `limit`.
    pub fn new(budget: usize, limit: u64) -> Cache {
        Cache {
            dense: Default::default(),
            limit,
            pages: PageMap::default(),
            arena: Arena::default(),
            order: VecDeque::new(),
            budget,
            used: 0,
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
        let held = if let Some(table) = self.dense.get(usize::from(k.0))
            && k.1 < self.limit
        {
            let i = k.1 as usize;
            table.get(i / BLOCK)?.as_ref()?[i % BLOCK].as_ref()
        } else {
            self.pages.get(&k)
        }?;
        if whole {
            prefetch(held);
        }
        Some(held.clone())
    }

    /// Removes a page, if held (making no block of the table for it).
    fn take(&mut self, k: (u8, u64)) -> Option<Page> {
        if let Some(table) = self.dense.get_mut(usize::from(k.0))
            && k.1 < self.limit
        {
            let i = k.1 as usize;
            return table.get_mut(i / BLOCK)?.as_mut()?[i % BLOCK].take();
        }
        self.pages.remove(&k)
    }

    /// Holds a copy of a page, evicting the oldest beyond the budget; returns the copy
    /// (held, or not when the budget is too small to hold anything).
    pub fn put(&mut self, k: (u8, u64), bytes: &[u8]) -> Page {
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
        } else {
            self.order.push_back(k);
        }
        while self.used > self.budget {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(p) = self.take(old) {
                self.used -= p.len();
            }
        }
        held
    }

    /// Drops a page.
    pub fn forget(&mut self, k: (u8, u64)) {
        if let Some(p) = self.take(k) {
            self.used -= p.len();
        }
    }

    /// Drops every page.
    pub fn clear(&mut self) {
        self.dense = Default::default();
        self.pages.clear();
        self.arena = Arena::default();
        self.order.clear();
        self.used = 0;
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
        let mut c = Cache::new(300, 10);
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
        c.clear();
        assert!(c.get((2, 3)).is_none());
        assert_eq!(c.used, 0);
        // Kinds beyond the table's go to the map.
        c.put((200, 1), &page(6));
        assert_eq!(c.get((200, 1)).unwrap()[0], 6);
    }

    /// A page far into the table makes only its own block; its neighbours in the block
    /// and pages in other blocks stay absent until put.
    #[test]
    fn the_table_is_made_block_by_block() {
        let mut c = Cache::new(1 << 20, 1_000_000);
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
