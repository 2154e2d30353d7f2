//! Where the records of the cached data pages are, by a hash of their keys: a get whose
//! record's page is held finds the record with one probe of this table, instead of
//! reading the bucket's index page and scanning the data page.
//!
//! Why: a cached get used to touch the bucket's index page (its header and the lines of
//! its tag search) and then scan half its data page for the key, each step a wait for
//! memory the step before named. Here the key's hash leads to one line of this table,
//! which names the record's place in the cache's memory (its chunk and offset there:
//! [`super::arena`]), so that the next wait is the record's own line.
//!
//! The table is open addressing with linear probing, 8 bytes a slot: the record's
//! place (45 bits, never zero: a zero slot is empty, so that a table is made of zeroed
//! memory, which the system hands out without writing it), how far the slot is past
//! the record's home slot (6 bits), and 13 bits of its key's hash (bits the home slot
//! is not chosen by), so that a probe passes nearly every other record without reading
//! it. The table is made once, at its first record, for the most records it is
//! expected to hold ([`KeyMap::new`]), and is never more than three quarters full: a
//! record that would fill it further is left out (its gets take the index), as is a
//! record whose slot would be [`MAX_PROBE`] or more past its home, so that no insertion
//! costs more than that many probes.
//!
//! The hash is XXH3 with a seed drawn for each table (no secret: it spreads keys, and a
//! record found here is compared by its whole key before it is used), so that a file
//! whose writer chose keys to collide cannot know where they land. Records of equal
//! hashes are all held; [`KeyMap::find`] offers each in turn to the caller, who compares
//! keys.

use super::arena::CHUNK;
use super::pages::prefetch_line;
use std::hash::BuildHasher;

/// The most slots a record may sit past its home slot, plus one.
const MAX_PROBE: usize = 64;

/// Bits of a place's offset in its chunk.
const OFFSET_BITS: u32 = 21;
const _: () = assert!(CHUNK <= 1 << OFFSET_BITS);

/// Bits of a place: the chunk's number plus one, then the offset.
const PLACE_BITS: u32 = 45;

/// Bits of a slot's distance from its home.
const DIST_BITS: u32 = 6;
const _: () = assert!(MAX_PROBE <= 1 << DIST_BITS);

/// Where a slot's hash bits start.
const KEPT_AT: u32 = PLACE_BITS + DIST_BITS;

/// A slot: the record's place (bits 0-44: its chunk's number plus one, shifted past
/// [`OFFSET_BITS`] bits of its offset in the chunk), its distance from its home slot
/// (bits 45-50) and the low 13 bits of its key's hash (bits 51-63); zero when empty.
type Slot = u64;

/// The place of a record at `offset` of chunk `chunk`; `None` past what a slot holds
/// (such a record is left out).
#[inline]
fn place(chunk: u32, offset: u32) -> Option<u64> {
    let c = u64::from(chunk) + 1;
    (offset < 1 << OFFSET_BITS && c < 1 << (PLACE_BITS - OFFSET_BITS))
        .then_some(c << OFFSET_BITS | u64::from(offset))
}

/// A slot of the record at `place` with `hash`, `dist` slots past its home.
#[inline]
fn slot(hash: u64, place: u64, dist: usize) -> Slot {
    (hash << KEPT_AT) | (dist as u64) << PLACE_BITS | place
}

/// The bits of a slot but its distance: the record's hash bits and place.
#[inline]
fn record_of(s: Slot) -> u64 {
    s & !(((1 << DIST_BITS) - 1) << PLACE_BITS)
}

#[inline]
fn dist_of(s: Slot) -> usize {
    ((s >> PLACE_BITS) & ((1 << DIST_BITS) - 1)) as usize
}

/// The chunk and offset of a full slot.
#[inline]
fn unplace(s: Slot) -> (u32, u32) {
    let p = s & ((1 << PLACE_BITS) - 1);
    (
        ((p >> OFFSET_BITS) - 1) as u32,
        (p & ((1 << OFFSET_BITS) - 1)) as u32,
    )
}

/// Records by key hash ([`KeyMap::hash`]): (chunk, offset).
pub struct KeyMap {
    slots: Vec<Slot>,
    /// `64 - log2(slots.len())`: a slot is the top bits of the hash.
    shift: u32,
    seed: u64,
    len: usize,
    /// The most records the table is made for.
    most: usize,
}

impl KeyMap {
    /// An empty table for at most `most` records (made at the first record: a file's
    /// handle that gets a record or two never clears more of it than those touch).
    pub fn new(most: usize) -> KeyMap {
        KeyMap {
            slots: Vec::new(),
            shift: 64,
            seed: std::collections::hash_map::RandomState::new().hash_one(0x9e37_u64),
            len: 0,
            most,
        }
    }

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

    /// Offers `is` the chunk and offset of each record held with `hash` (and perhaps
    /// of a few whose hashes share the bits a slot keeps), until it answers `Some`.
    #[inline]
    pub fn find<R>(&self, hash: u64, mut is: impl FnMut(u32, u32) -> Option<R>) -> Option<R> {
        if self.slots.is_empty() {
            return None;
        }
        let (home, want) = (self.home(hash), hash << KEPT_AT);
        for d in 0..MAX_PROBE.min(self.slots.len()) {
            let s = self.slots[self.at(home, d)];
            if s == 0 {
                return None;
            }
            if s >> KEPT_AT << KEPT_AT == want {
                let (chunk, offset) = unplace(s);
                if let Some(r) = is(chunk, offset) {
                    return Some(r);
                }
            }
        }
        None
    }

    /// Makes the table if it is not made, and asks the processor for the lines where
    /// `hashes` go: the records of a page are then inserted with their memory waits
    /// overlapping instead of one after another.
    pub fn prepare(&mut self, hashes: impl Iterator<Item = u64>) {
        if self.slots.is_empty() {
            let size = (self.most.saturating_mul(3) / 2)
                .max(16)
                .next_power_of_two();
            // Zeroed: the system's fresh pages, written only where records go.
            self.slots = vec![0; size];
            self.shift = 64 - size.trailing_zeros();
        }
        for h in hashes {
            self.prefetch(h);
        }
    }

    /// Holds the record with `hash` at `offset` of chunk `chunk`; returns whether it is
    /// held (not when the table is three quarters full, the record's run of slots would
    /// be too long, or its place does not fit a slot).
    pub fn insert(&mut self, hash: u64, chunk: u32, offset: u32) -> bool {
        self.prepare(std::iter::empty());
        let Some(place) = place(chunk, offset) else {
            return false;
        };
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            return false;
        }
        let home = self.home(hash);
        for d in 0..MAX_PROBE.min(self.slots.len()) {
            let i = self.at(home, d);
            if self.slots[i] == 0 {
                self.slots[i] = slot(hash, place, d);
                self.len += 1;
                return true;
            }
        }
        false
    }

    /// Drops the record with `hash` at `offset` of chunk `chunk`, if it is held.
    pub fn remove(&mut self, hash: u64, chunk: u32, offset: u32) {
        let Some(place) = place(chunk, offset) else {
            return;
        };
        if self.slots.is_empty() {
            return;
        }
        let home = self.home(hash);
        let target = slot(hash, place, 0);
        let Some(mut hole) = (0..MAX_PROBE.min(self.slots.len()))
            .map(|d| self.at(home, d))
            .take_while(|&i| self.slots[i] != 0)
            .find(|&i| record_of(self.slots[i]) == target)
        else {
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
            if s == 0 {
                return;
            }
            let (dist, moved) = (dist_of(s), i.wrapping_sub(hole) & mask);
            if dist >= moved {
                self.slots[hole] = record_of(s) | ((dist - moved) as u64) << PLACE_BITS;
                self.slots[i] = 0;
                hole = i;
            }
        }
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
        Remove(u64, u32, u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        // Few hashes and places, so that equal hashes, equal kept bits with different
        // homes, removals of records held and of places not held, and long runs
        // (hashes alike in their high bits) all occur; some offsets past a slot's.
        let hash = prop_oneof![0u64..20, (0u64..40).prop_map(|t| t << 58), any::<u64>()];
        let offset = prop_oneof![0u32..8, any::<u32>()];
        prop_oneof![
            (hash.clone(), 0u32..6, offset.clone()).prop_map(|(t, c, o)| Op::Insert(t, c, o)),
            (hash, 0u32..6, offset).prop_map(|(t, c, o)| Op::Remove(t, c, o)),
        ]
    }

    proptest! {
        /// Against a plain map of places to hashes (a place names one record, so the
        /// cache never puts one twice, and removes a record with its own hash): every
        /// record held is found by its hash and place, a place not held is not, and
        /// the table holds as many records as the map.
        #[test]
        fn behaves_as_a_map_of_places(
            most in 0usize..200,
            ops in proptest::collection::vec(op(), 0..400),
        ) {
            let mut m = KeyMap::new(most);
            let mut want: HashMap<(u32, u32), u64> = HashMap::new();
            for op in &ops {
                match *op {
                    Op::Insert(t, c, o) => {
                        if want.contains_key(&(c, o)) {
                            continue;
                        }
                        if m.insert(t, c, o) {
                            want.insert((c, o), t);
                        } else {
                            // Left out: its place does not fit, the table is at three
                            // quarters, or its run is at the probe limit.
                            let full = (m.len() + 1) * 4 > m.slots.len() * 3;
                            let run = (0..MAX_PROBE.min(m.slots.len()))
                                .all(|d| m.slots[m.at(m.home(t), d)] != 0);
                            prop_assert!(place(c, o).is_none() || full || run);
                        }
                    }
                    Op::Remove(t, c, o) => match want.remove(&(c, o)) {
                        Some(h) => m.remove(h, c, o),
                        // A place not held: nothing changes, whatever the hash.
                        None => m.remove(t, c, o),
                    },
                }
                prop_assert_eq!(m.len(), want.len());
            }
            for (&(c, o), &h) in &want {
                let found = m.find(h, |fc, fo| (fc == c && fo == o).then_some(()));
                prop_assert!(found.is_some());
            }
            for op in &ops {
                let (Op::Insert(t, c, o) | Op::Remove(t, c, o)) = *op;
                let found = m.find(t, |fc, fo| (fc == c && fo == o).then_some(()));
                if found.is_some() {
                    prop_assert!(want.get(&(c, o)).is_some_and(|&h| h & 0x1fff == t & 0x1fff));
                }
                // What is offered is held, with the hash's kept bits.
                m.find(t, |fc, fo| {
                    assert!(want.get(&(fc, fo)).is_some_and(|&h| h & 0x1fff == t & 0x1fff));
                    None::<()>
                });
            }
        }
    }

    /// Hashes all sharing one home fill the probe limit; the rest are left out, and
    /// every held one is still found.
    #[test]
    fn a_crowded_run_is_cut_at_the_probe_limit() {
        let mut m = KeyMap::new(1000);
        let mut held = 0;
        for t in 0..1000u64 {
            // Equal top bits: one home slot for all, whatever the table's size.
            if m.insert(t, 1, t as u32) {
                held += 1;
            }
        }
        assert_eq!(held, MAX_PROBE);
        for t in 0..1000u64 {
            let found = m.find(t, |c, o| Some((c, o)));
            assert_eq!(found.is_some(), t < MAX_PROBE as u64);
            if let Some((c, o)) = found {
                assert_eq!((c, o), (1, t as u32));
            }
        }
        assert!(
            !m.insert(5000, 0, 1 << OFFSET_BITS),
            "an offset past a slot's"
        );
    }

    /// A table for a few records holds three quarters of its slots and no more.
    #[test]
    fn the_table_stops_at_three_quarters() {
        let mut m = KeyMap::new(10);
        let held = (0..100u64)
            .filter(|&i| m.insert(i.wrapping_mul(0x9e37_79b9_7f4a_7c15), 0, i as u32))
            .count();
        assert_eq!(m.slots.len(), 16);
        assert_eq!(held, 12);
    }
}
