//! Where the records of the cached data pages are, by a hash of their keys: a get whose
//! record's page is held finds the record with one probe of this table, instead of
//! reading the bucket's index page and scanning the data page.
//!
//! Why: a cached get used to touch the bucket's index page (its header and the lines of
//! its tag search) and then scan half its data page for the key, each step a wait for
//! memory the step before named. Here the key's hash leads to one line of this table,
//! which names the page and the record's offset in it.
//!
//! The table is open addressing with linear probing, 16 bytes a slot, at most three
//! quarters full.
//! The hash is XXH3 with a seed drawn for each table (no secret: it spreads keys, and a
//! record found here is compared by its whole key before it is used), so that a file
//! whose writer chose keys to collide cannot know where they land; and whatever the
//! keys, a record whose run of slots past its home is longer than [`MAX_PROBE`] is left
//! out (its gets take the index), so no insertion costs more than that many probes.
//! Equal hashes keep the first record put: the other key's gets find a record whose key
//! is not theirs and take the index.

use super::pages::prefetch_line;
use std::hash::BuildHasher;

/// The most slots a record may sit past its home slot.
const MAX_PROBE: usize = 64;

/// A slot: a record's key hash (bits 0-63), its data page's logical number plus one
/// (bits 64-95; zero: an empty slot, so that a table is made of zeroed memory, which the
/// system hands out without writing it), and its offset in the page (bits 96-127).
type Slot = u128;

#[inline]
fn slot(hash: u64, page: u32, at: u32) -> Slot {
    u128::from(hash) | u128::from(page + 1) << 64 | u128::from(at) << 96
}

#[inline]
fn hash_of(s: Slot) -> u64 {
    s as u64
}

/// The page of a full slot.
#[inline]
fn page_of(s: Slot) -> u32 {
    ((s >> 64) as u32).wrapping_sub(1)
}

#[inline]
fn empty(s: Slot) -> bool {
    (s >> 64) as u32 == 0
}

/// The page number no record may have (its slot would read as empty).
const NO_PAGE: u32 = u32::MAX;

/// Slots past which a growing table is made as large as its hint at once (see
/// [`KeyMap::prepare`]).
const JUMP: usize = 8192;

/// Records by key hash ([`KeyMap::hash`]): (data page, offset).
pub struct KeyMap {
    slots: Vec<Slot>,
    /// `64 - log2(slots.len())`: a slot is the top bits of the hash.
    shift: u32,
    seed: u64,
    len: usize,
    /// The most records the table is expected to hold.
    hint: usize,
}

impl Default for KeyMap {
    fn default() -> KeyMap {
        KeyMap {
            slots: Vec::new(),
            shift: 64,
            seed: std::collections::hash_map::RandomState::new().hash_one(0x9e37_u64),
            len: 0,
            hint: 0,
        }
    }
}

impl KeyMap {
    /// The hash a key is held and found by.
    #[inline]
    pub fn hash(&self, key: &[u8]) -> u64 {
        xxhash_rust::xxh3::xxh3_64_with_seed(key, self.seed)
    }

    /// Records held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn home(&self, hash: u64) -> usize {
        // The top bits (none of a table of no slots, whose shift is 64).
        hash.checked_shr(self.shift).unwrap_or(0) as usize
    }

    /// Slot `i + d` of the ring.
    #[inline]
    fn at(&self, i: usize, d: usize) -> usize {
        (i + d) & (self.slots.len() - 1)
    }

    /// Asks the processor for the line where [`KeyMap::find`] of `hash` starts, so
    /// that other work can be done while it arrives.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        if let Some(s) = self.slots.get(self.home(hash)) {
            prefetch_line(s);
        }
    }

    /// The page and offset of the record put with `hash`, if one is held.
    #[inline]
    pub fn find(&self, hash: u64) -> Option<(u32, u32)> {
        if self.slots.is_empty() {
            return None;
        }
        let home = self.home(hash);
        for d in 0..MAX_PROBE.min(self.slots.len()) {
            let s = self.slots[self.at(home, d)];
            if empty(s) {
                return None;
            }
            if hash_of(s) == hash {
                return Some((page_of(s), (s >> 96) as u32));
            }
        }
        None
    }

    /// Whether `more` records fit without growing (at most three quarters full).
    fn fits(&self, more: usize) -> bool {
        (self.len + more) * 4 <= self.slots.len() * 3
    }

    /// Makes room for `more` records without growing, and asks the processor for the
    /// lines where `hashes` go: the records of a page are then inserted with their
    /// memory waits overlapping instead of one after another.
    /// `hint` is the most records the table is now expected to hold: the table starts
    /// small (a get or two put a page's records), and when it first grows past [`JUMP`]
    /// slots it is made large enough for `hint` at once, so that a cache filling with a
    /// file's pages does not copy every record into table after table twice its size.
    pub fn prepare(&mut self, more: usize, hint: usize, hashes: impl Iterator<Item = u64>) {
        self.hint = hint;
        while !self.fits(more) {
            self.grow();
        }
        for h in hashes {
            self.prefetch(h);
        }
    }

    /// Holds the record with `hash` at `at` of data page `page`; returns whether it is
    /// held (not when its hash is held already, or its run of slots is too long).
    pub fn insert(&mut self, hash: u64, page: u32, at: u32) -> bool {
        if page == NO_PAGE {
            return false;
        }
        if !self.fits(1) {
            self.grow();
        }
        let home = self.home(hash);
        for d in 0..MAX_PROBE.min(self.slots.len()) {
            let i = self.at(home, d);
            let s = self.slots[i];
            if empty(s) {
                self.slots[i] = slot(hash, page, at);
                self.len += 1;
                return true;
            }
            if hash_of(s) == hash {
                return false;
            }
        }
        false
    }

    /// Drops the record with `hash` if it is held for data page `page`.
    pub fn remove(&mut self, hash: u64, page: u32) {
        if self.slots.is_empty() {
            return;
        }
        let home = self.home(hash);
        let mut hole = None;
        for d in 0..MAX_PROBE.min(self.slots.len()) {
            let i = self.at(home, d);
            let s = self.slots[i];
            if empty(s) {
                return;
            }
            if hash_of(s) == hash {
                if page_of(s) == page {
                    hole = Some(i);
                }
                break;
            }
        }
        let Some(mut hole) = hole else {
            return;
        };
        self.slots[hole] = 0;
        self.len -= 1;
        // Backward shift: a later slot of the run moves into the hole when its home is
        // not between the hole and it (so that no record sits past an empty slot).
        let mask = self.slots.len() - 1;
        let mut i = hole;
        loop {
            i = (i + 1) & mask;
            let s = self.slots[i];
            if empty(s) {
                return;
            }
            let home = self.home(hash_of(s));
            if (i.wrapping_sub(home) & mask) >= (i.wrapping_sub(hole) & mask) {
                self.slots[hole] = s;
                self.slots[i] = 0;
                hole = i;
            }
        }
    }

    /// Doubles the slots (16 to start with; past [`JUMP`], enough for the hint),
    /// placing every record again.
    fn grow(&mut self) {
        let mut size = (self.slots.len() * 2).max(16);
        if size >= JUMP {
            size = size.max((self.hint.saturating_mul(4) / 3).next_power_of_two());
        }
        // Zeroed: the system's fresh pages, written only where records go.
        let old = std::mem::replace(&mut self.slots, vec![0; size]);
        self.shift = 64 - size.trailing_zeros();
        self.len = 0;
        // In groups whose new lines are asked for first (see `prepare`). Each record
        // was within its probe limit in the smaller table; in this one its run is no
        // longer. (A record that no longer fits would be left out.)
        for group in old.chunks(16) {
            for &s in group.iter().filter(|&&s| !empty(s)) {
                self.prefetch(hash_of(s));
            }
            for &s in group.iter().filter(|&&s| !empty(s)) {
                self.insert_placed(s);
            }
        }
    }

    fn insert_placed(&mut self, s: Slot) {
        let home = self.home(hash_of(s));
        for d in 0..MAX_PROBE.min(self.slots.len()) {
            let i = self.at(home, d);
            if empty(self.slots[i]) {
                self.slots[i] = s;
                self.len += 1;
                return;
            }
        }
    }

    /// Drops every record.
    pub fn clear(&mut self) {
        *self = KeyMap {
            seed: self.seed,
            hint: self.hint,
            ..KeyMap::default()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u64, u32, u32),
        Remove(u64, u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        // Few hashes and pages, so that equal hashes, removals of records held and of
        // records not held, and long runs (hashes alike in their high bits) all occur.
        let hash = prop_oneof![0u64..20, (0u64..40).prop_map(|t| t << 58), any::<u64>()];
        prop_oneof![
            (hash.clone(), 0u32..6, any::<u32>()).prop_map(|(t, p, a)| Op::Insert(t, p, a)),
            (hash, 0u32..6).prop_map(|(t, p)| Op::Remove(t, p)),
        ]
    }

    proptest! {
        /// Against a plain map with the same rules (first record of a hash kept; a
        /// removal only of the page's own): every hash finds what the map holds.
        #[test]
        fn behaves_as_a_map(ops in proptest::collection::vec(op(), 0..400)) {
            let mut m = KeyMap::default();
            let mut want: HashMap<u64, (u32, u32)> = HashMap::new();
            for op in &ops {
                match *op {
                    Op::Insert(t, p, a) => {
                        let held = m.insert(t, p, a);
                        let fresh = !want.contains_key(&t);
                        // Held only when new; a new one may be left out of a run
                        // grown to the probe limit (these hashes crowd the low slots).
                        prop_assert!(fresh || !held);
                        if held {
                            want.insert(t, (p, a));
                        } else if fresh {
                            prop_assert_eq!(m.find(t), None);
                        }
                    }
                    Op::Remove(t, p) => {
                        m.remove(t, p);
                        if want.get(&t).is_some_and(|&(q, _)| q == p) {
                            want.remove(&t);
                        }
                    }
                }
                prop_assert_eq!(m.len(), want.len());
            }
            for op in &ops {
                let t = match *op { Op::Insert(t, ..) | Op::Remove(t, _) => t };
                prop_assert_eq!(m.find(t), want.get(&t).copied());
            }
        }
    }

    /// Hashes all sharing one home fill the probe limit; the rest are left out, and
    /// every held one is still found.
    #[test]
    fn a_crowded_run_is_cut_at_the_probe_limit() {
        let mut m = KeyMap::default();
        let mut held = 0;
        for t in 0..1000u64 {
            // Equal top bits: one home slot for all, whatever the table's size.
            if m.insert(t, 1, t as u32) {
                held += 1;
            }
        }
        assert_eq!(held, MAX_PROBE);
        for t in 0..1000u64 {
            if let Some((p, a)) = m.find(t) {
                assert_eq!((p, a), (1, t as u32));
            }
        }
        assert!(!m.insert(5, NO_PAGE, 0));
    }
}
