//! Checksums checked on the lookup path: a lookup never answers from a byte of an index
//! that has not been verified in this process.
//!
//! A bucket table is verified in chunks of [`CHUNK`] bytes, each against its own XXH3-64
//! kept in a section of the file; the records of an exact index, the entries of a compact
//! one and the fingerprints of a filter in blocks of [`LOOKUP_BLOCK`] bytes, each against
//! the low 32 bits of its XXH3-64. The first lookup that reads a chunk or block hashes
//! it; later ones test one bit. A one-off query so pays for the few it reads, and a
//! long-running process for each once. An overflow table (read only for the few counts
//! too large for a record) is verified whole on its first use. Files of an older format,
//! without chunk checksums, have their tables verified whole at opening, and their
//! records, entries and fingerprints are read unverified, as those formats promised.

use super::error::IndexError;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use xxhash_rust::xxh3::xxh3_64;

pub use super::format::{CHUNK, LOOKUP_BLOCK, LOOKUP_SUM};

/// Checks that every byte of `bytes` from `from` on that no section covers is zero, as
/// the formats require of the gaps that align sections (what `verify` checks, so that a
/// changed byte anywhere in a file is found, even where no lookup reads).
pub fn gaps_are_zero(
    bytes: &[u8],
    from: u64,
    sections: &[(u64, u64)],
) -> Result<(), super::error::IndexError> {
    let mut sorted: Vec<(u64, u64)> = sections.iter().copied().filter(|s| s.1 > 0).collect();
    sorted.sort_unstable();
    let mut at = from;
    for (off, len) in sorted.into_iter().chain([(bytes.len() as u64, 0)]) {
        if off > at {
            let gap = &bytes[at as usize..off as usize];
            if let Some(i) = gap.iter().position(|&b| b != 0) {
                return Err(super::error::IndexError::Corrupt(format!(
                    "byte {} lies between sections and is not zero",
                    at + i as u64
                )));
            }
        }
        at = at.max(off + len);
    }
    Ok(())
}

/// The checksums of a table's chunks, as a file stores them: the XXH3-64 of each
/// [`CHUNK`] bytes (the last chunk shorter), little-endian, in order.
pub fn chunk_sums(table: &[u8]) -> Vec<u8> {
    table
        .chunks(CHUNK)
        .flat_map(|c| xxh3_64(c).to_le_bytes())
        .collect()
}

/// The checksums of `section`'s lookup blocks ([`LOOKUP_BLOCK`] bytes, the last one
/// shorter): the low 32 bits of each block's XXH3-64, little-endian, in order.
pub fn lookup_sums(section: &[u8]) -> Vec<u8> {
    let mut s = BlockSummer::new(Vec::with_capacity(
        section.len().div_ceil(LOOKUP_BLOCK) * LOOKUP_SUM,
    ));
    s.add(section).expect("a vector takes every write");
    s.finish().expect("a vector takes every write")
}

/// Lookup block checksums of a section written in pieces, as they come ([`lookup_sums`]
/// of the whole), into `out`.
pub struct BlockSummer<W> {
    out: W,
    partial: Vec<u8>,
    blocks: u64,
}

impl<W: std::io::Write> BlockSummer<W> {
    /// Sums to `out`.
    pub fn new(out: W) -> BlockSummer<W> {
        BlockSummer {
            out,
            partial: Vec::with_capacity(LOOKUP_BLOCK),
            blocks: 0,
        }
    }

    /// The section's next bytes.
    pub fn add(&mut self, mut data: &[u8]) -> std::io::Result<()> {
        if !self.partial.is_empty() {
            let take = (LOOKUP_BLOCK - self.partial.len()).min(data.len());
            self.partial.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.partial.len() < LOOKUP_BLOCK {
                return Ok(());
            }
            let block = std::mem::take(&mut self.partial);
            self.emit(&block)?;
            self.partial = block;
            self.partial.clear();
        }
        let mut blocks = data.chunks_exact(LOOKUP_BLOCK);
        for block in &mut blocks {
            self.emit(block)?;
        }
        self.partial.extend_from_slice(blocks.remainder());
        Ok(())
    }

    fn emit(&mut self, block: &[u8]) -> std::io::Result<()> {
        self.blocks += 1;
        self.out.write_all(&(xxh3_64(block) as u32).to_le_bytes())
    }

    /// Blocks summed so far (whole ones).
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The last, partial block's sum written; the sink.
    pub fn finish(mut self) -> std::io::Result<W> {
        if !self.partial.is_empty() {
            let block = std::mem::take(&mut self.partial);
            self.emit(&block)?;
        }
        Ok(self.out)
    }
}

/// A section whose chunks are verified before a lookup reads them: a bucket table
/// (chunks of [`CHUNK`] bytes, full XXH3-64 sums) or the records, entries or
/// fingerprints that lookups read (blocks of [`LOOKUP_BLOCK`] bytes, 32-bit sums).
pub struct Chunks {
    /// The section's place in the file's bytes.
    table_off: usize,
    table_len: usize,
    /// The checksums' place (unused when everything was verified at opening).
    sums_off: usize,
    /// log2 of the chunk's bytes.
    shift: u32,
    /// Bytes of a stored checksum (8: XXH3-64; 4: its low 32 bits).
    sum_bytes: usize,
    /// What the section is, for errors ("bucket table", "records").
    what: &'static str,
    /// One bit per chunk: verified in this process.
    verified: Box<[AtomicU64]>,
    /// Chunks verified one at a time as lookups first read them (approximate: counted
    /// with a load and a store).
    touched: Box<AtomicUsize>,
    /// Chunks not verified yet: once none are, a check is one load and one test.
    /// (Both behind pointers: a structure holding `Chunks` keeps no interior
    /// mutability inline, so the compiler may keep its fields in registers.)
    left: Box<AtomicUsize>,
}

impl Chunks {
    fn with_bits(table: (u64, u64), sums_off: usize, all: bool) -> Chunks {
        Chunks::sized(table, sums_off, all, CHUNK, 8, "bucket table")
    }

    fn sized(
        table: (u64, u64),
        sums_off: usize,
        all: bool,
        chunk: usize,
        sum_bytes: usize,
        what: &'static str,
    ) -> Chunks {
        let chunks = (table.1 as usize).div_ceil(chunk);
        // All verified: `left` (0) answers every check, the bits are never read.
        let words = if all { 1 } else { chunks.div_ceil(64).max(1) };
        // Zeroed memory the system gives untouched (an index of 100M hashes has 3.7M
        // lookup blocks: writing their 464 KB of bits took a one-off query some 100 µs of
        // page faults); only an all-verified map is written.
        use zerocopy::FromZeros;
        let verified = <[AtomicU64]>::new_box_zeroed_with_elems(words)
            .unwrap_or_else(|_| (0..words).map(|_| AtomicU64::new(0)).collect());
        if all {
            for w in verified.iter() {
                w.store(u64::MAX, Ordering::Relaxed);
            }
        }
        Chunks {
            table_off: table.0 as usize,
            table_len: table.1 as usize,
            sums_off,
            shift: chunk.trailing_zeros(),
            sum_bytes,
            what,
            verified,
            touched: Box::new(AtomicUsize::new(0)),
            left: Box::new(AtomicUsize::new(if all { 0 } else { chunks })),
        }
    }

    /// A table at `table` (offset, length in `bytes`) with chunk checksums at `sums`;
    /// its first `eager` bytes (parts every lookup reads) are verified now.
    pub fn lazy(
        bytes: &[u8],
        table: (u64, u64),
        sums: (u64, u64),
        eager: usize,
    ) -> Result<Chunks, IndexError> {
        let chunks = (table.1 as usize).div_ceil(CHUNK);
        if sums.1 != chunks as u64 * 8 {
            return Err(IndexError::Corrupt("table checksums length".into()));
        }
        let c = Chunks::with_bits(table, sums.0 as usize, false);
        let mut at = 0;
        while at < eager.min(c.table_len) {
            c.check(bytes, at)?;
            at += CHUNK;
        }
        Ok(c)
    }

    /// The lookup blocks of `section` (`what`: "records", "entries", "fingerprints"),
    /// with their checksums at `sums`, each verified the first time a lookup reads it.
    pub fn blocks(
        section: (u64, u64),
        sums: (u64, u64),
        what: &'static str,
    ) -> Result<Chunks, IndexError> {
        let blocks = (section.1 as usize).div_ceil(LOOKUP_BLOCK);
        if sums.1 != (blocks * LOOKUP_SUM) as u64 {
            return Err(IndexError::Corrupt(format!("{what} checksums length")));
        }
        Ok(Chunks::sized(
            section,
            sums.0 as usize,
            false,
            LOOKUP_BLOCK,
            LOOKUP_SUM,
            what,
        ))
    }

    /// The lookup blocks of a section that a file of an older format does not sum:
    /// taken as verified (what such a file promised), so that lookups read them as
    /// before.
    pub fn unsummed(section: (u64, u64), what: &'static str) -> Chunks {
        Chunks::sized(section, 0, true, LOOKUP_BLOCK, LOOKUP_SUM, what)
    }

    /// A table of a format without chunk checksums: verified whole now against `sum`.
    pub fn whole(bytes: &[u8], table: (u64, u64), sum: u64) -> Result<Chunks, IndexError> {
        let t = &bytes[table.0 as usize..(table.0 + table.1) as usize];
        if xxh3_64(t) != sum {
            return Err(IndexError::Corrupt("bucket table checksum mismatch".into()));
        }
        Ok(Chunks::with_bits(table, 0, true))
    }

    /// Every chunk taken as verified (after a verification of the whole section).
    pub fn mark_all(&self) {
        for w in self.verified.iter() {
            w.store(u64::MAX, Ordering::Relaxed);
        }
        self.left.store(0, Ordering::Relaxed);
    }

    /// Verifies every chunk not verified yet, in order (an index read whole into memory:
    /// its bytes were just read, and hashing them in passing costs far less than a bit
    /// test on every lookup after).
    pub fn verify_all(&self, bytes: &[u8]) -> Result<(), IndexError> {
        if self.left.load(Ordering::Relaxed) == 0 {
            return Ok(());
        }
        let chunks = self.table_len.div_ceil(1 << self.shift);
        for c in 0..chunks {
            if self.bit(c) == 0 {
                self.verify(bytes, c)?;
            }
        }
        self.mark_all();
        Ok(())
    }

    /// Whether a batch should verify every chunk left in one pass now rather than one
    /// at a time as its lookups read them: once half the chunks were verified one at a
    /// time. A chunk first read at random costs about as much as two or three read in
    /// order in a fresh process (eight cache lines fetched where the lookup needed one
    /// or two, against a streaming read the prefetchers keep ahead of, both mapping
    /// their pages): past that point a batch dense enough to keep going costs less with
    /// the pass (10 million hashes on an index of 100 million: 1.6 times the time
    /// without checks, against 2.0 one at a time), and one that stops soon after pays
    /// at most about what it paid so far.
    pub fn worth_a_pass(&self) -> bool {
        let chunks = self.table_len.div_ceil(1 << self.shift);
        self.left.load(Ordering::Relaxed) != 0 && self.touched.load(Ordering::Relaxed) * 2 >= chunks
    }

    /// Verifies, in order, every chunk not verified yet, fetching each piece of the
    /// section before it with `populate` (a mapped file's pages, mapped in bulk); a
    /// damaged chunk is left unverified (a lookup that reads it then says so), the
    /// others marked.
    pub fn verify_pass(&self, bytes: &[u8], populate: &dyn Fn(usize, usize)) {
        const PIECE: usize = 8 << 20;
        let size = 1usize << self.shift;
        let chunks = self.table_len.div_ceil(size);
        let mut damaged = false;
        let mut populated = 0;
        for c in 0..chunks {
            let at = c * size;
            if at >= populated {
                populate(self.table_off + at, PIECE.min(self.table_len - at));
                populated = at + PIECE;
            }
            if self.bit(c) == 0 && self.verify_one(bytes, c).is_err() {
                damaged = true;
            }
        }
        if !damaged {
            self.left.store(0, Ordering::Relaxed);
        }
    }

    /// Whether every chunk was verified in this process.
    pub fn all_verified(&self) -> bool {
        self.left.load(Ordering::Relaxed) == 0
    }

    /// Whether chunk `c` was verified (0 or 1).
    #[inline(always)]
    fn bit(&self, c: usize) -> u64 {
        let word = self
            .verified
            .get(c / 64)
            .map_or(0, |w| w.load(Ordering::Relaxed));
        (word >> (c % 64)) & 1
    }

    /// Verifies the chunk holding byte `at` of the table, unless done before.
    #[inline(always)]
    pub fn check(&self, bytes: &[u8], at: usize) -> Result<(), IndexError> {
        self.check_span(bytes, at, at)
    }

    /// Verifies the chunks holding bytes `first` to `last` of the section, unless done
    /// before: on the lookup path, when they are one or two chunks, one test of both
    /// chunks' bits, and the work out of line.
    #[inline(always)]
    pub fn check_span(&self, bytes: &[u8], first: usize, last: usize) -> Result<(), IndexError> {
        if self.left.load(Ordering::Relaxed) == 0 {
            return Ok(());
        }
        let (a, b) = (first >> self.shift, last >> self.shift);
        if b <= a + 1 && self.bit(a) & self.bit(b) == 1 {
            return Ok(());
        }
        self.verify_span(bytes, a, b)
    }

    /// Verifies the chunks holding bytes `at[0]`, `at[1]` and `at[2]` of the section,
    /// unless done before: one load of each bit's word and one test of all three on the
    /// lookup path (a filter's three probes).
    #[inline(always)]
    pub fn check3(&self, bytes: &[u8], at: [usize; 3]) -> Result<(), IndexError> {
        let c = at.map(|a| a >> self.shift);
        if self.left.load(Ordering::Relaxed) == 0
            || self.bit(c[0]) & self.bit(c[1]) & self.bit(c[2]) == 1
        {
            return Ok(());
        }
        self.verify_each(bytes, c)
    }

    #[cold]
    #[inline(never)]
    fn verify_each(&self, bytes: &[u8], chunks: [usize; 3]) -> Result<(), IndexError> {
        for c in chunks {
            if self.bit(c) == 0 {
                self.verify(bytes, c)?;
            }
        }
        Ok(())
    }

    /// Verifies chunks `a` to `b` not verified yet.
    #[cold]
    #[inline(never)]
    fn verify_span(&self, bytes: &[u8], a: usize, b: usize) -> Result<(), IndexError> {
        for c in a..=b.max(a) {
            if self.bit(c) == 0 {
                self.verify(bytes, c)?;
            }
        }
        Ok(())
    }

    /// Hashes one chunk a lookup reads against its checksum and remembers it.
    #[cold]
    #[inline(never)]
    fn verify(&self, bytes: &[u8], chunk: usize) -> Result<(), IndexError> {
        let touched = &self.touched;
        touched.store(touched.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        self.verify_one(bytes, chunk)
    }

    /// Hashes one chunk against its checksum and remembers it.
    #[inline]
    fn verify_one(&self, bytes: &[u8], chunk: usize) -> Result<(), IndexError> {
        let size = 1usize << self.shift;
        let start = chunk * size;
        if start >= self.table_len {
            return Err(IndexError::Corrupt(format!(
                "a read past the {}",
                self.what
            )));
        }
        let end = (start + size).min(self.table_len);
        let data = &bytes[self.table_off + start..self.table_off + end];
        let at = self.sums_off + chunk * self.sum_bytes;
        let mut stored = [0u8; 8];
        stored[..self.sum_bytes].copy_from_slice(&bytes[at..at + self.sum_bytes]);
        let want = u64::from_le_bytes(stored);
        let mask = if self.sum_bytes == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * self.sum_bytes)) - 1
        };
        if xxh3_64(data) & mask != want {
            return Err(IndexError::Corrupt(if self.sum_bytes == 8 {
                format!(
                    "{} checksum mismatch in bytes {start} to {end}: the index is damaged; rebuild it",
                    self.what
                )
            } else {
                format!(
                    "{} block {chunk} (file bytes {} to {}) checksum mismatch: the index is damaged; rebuild it",
                    self.what,
                    self.table_off + start,
                    self.table_off + end
                )
            }));
        }
        // A load and a store, not a locked read-modify-write: two threads setting bits
        // of one word at once can lose one of them, which only makes that chunk be
        // verified again later; no bit is ever set for a chunk not verified. (`left`
        // only reaches 0 through `mark_all`: counting each chunk down took a second
        // locked operation per chunk.)
        let word = &self.verified[chunk / 64];
        word.store(
            word.load(Ordering::Relaxed) | 1 << (chunk % 64),
            Ordering::Relaxed,
        );
        Ok(())
    }
}

/// A section verified whole the first time it is read (an overflow table).
pub struct Once {
    at: (u64, u64),
    sum: u64,
    /// Behind a pointer, so that the structures holding a `Once` have no interior
    /// mutability of their own: a lookup through `&Index` may then keep their fields
    /// in registers across a loop (an inline atomic made the compiler reload every
    /// field at every lookup, which halved the overlap of independent compact lookups).
    done: Box<AtomicBool>,
    what: &'static str,
}

impl Once {
    /// The section at `at` (offset, length) whose XXH3-64 is `sum`.
    pub fn new(at: (u64, u64), sum: u64, what: &'static str) -> Once {
        Once {
            at,
            sum,
            done: Box::new(AtomicBool::new(at.1 == 0)),
            what,
        }
    }

    /// Verifies the section unless done before.
    #[inline]
    pub fn check(&self, bytes: &[u8]) -> Result<(), IndexError> {
        if self.done.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.verify(bytes)
    }

    #[cold]
    #[inline(never)]
    fn verify(&self, bytes: &[u8]) -> Result<(), IndexError> {
        let s = &bytes[self.at.0 as usize..(self.at.0 + self.at.1) as usize];
        if xxh3_64(s) != self.sum {
            return Err(IndexError::Corrupt(format!(
                "{} checksum mismatch: the index is damaged; rebuild it",
                self.what
            )));
        }
        self.done.store(true, Ordering::Relaxed);
        Ok(())
    }
}

/// Checks the lookup block checksums `sums` of `section` (`what`: "records",
/// "entries", "fingerprints"), naming the first block that differs.
pub(crate) fn lookup_sums_match(section: &[u8], sums: &[u8], what: &str) -> Result<(), IndexError> {
    let want = lookup_sums(section);
    if want == sums {
        return Ok(());
    }
    let block = want
        .chunks(LOOKUP_SUM)
        .zip(sums.chunks(LOOKUP_SUM))
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(sums.len()) / LOOKUP_SUM);
    Err(IndexError::Corrupt(format!(
        "{what} block {block} (bytes {} to {} of the {what}) checksum mismatch",
        block * LOOKUP_BLOCK,
        ((block + 1) * LOOKUP_BLOCK).min(section.len())
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dense_batch_verifies_the_rest_in_one_pass_and_leaves_damage_to_its_lookups() {
        let body: Vec<u8> = (0..20 * LOOKUP_BLOCK + 7).map(|i| (i * 13) as u8).collect();
        let sums = lookup_sums(&body);
        let mut bytes = body.clone();
        bytes.extend_from_slice(&sums);
        let section = (0, body.len() as u64);
        let at = (body.len() as u64, sums.len() as u64);
        let c = Chunks::blocks(section, at, "records").unwrap();
        // 21 blocks: a pass is worth it once 11 were read one at a time.
        for i in 0..11 {
            assert!(!c.worth_a_pass(), "after {i} blocks");
            c.check(&bytes, i * LOOKUP_BLOCK + 3).unwrap();
        }
        assert!(c.worth_a_pass(), "half the blocks read one at a time");
        let populated = std::cell::RefCell::new(Vec::new());
        c.verify_pass(&bytes, &|at, len| populated.borrow_mut().push((at, len)));
        assert_eq!(populated.into_inner(), [(0, body.len())]);
        assert!(c.all_verified() && !c.worth_a_pass());
        // A damaged block: the pass leaves it to the lookup that reads it.
        let mut bad = bytes.clone();
        bad[15 * LOOKUP_BLOCK + 1] ^= 1;
        let c = Chunks::blocks(section, at, "records").unwrap();
        c.verify_pass(&bad, &|_, _| {});
        assert!(!c.all_verified());
        c.check(&bad, 14 * LOOKUP_BLOCK).unwrap();
        let e = c
            .check(&bad, 15 * LOOKUP_BLOCK + 100)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("records block 15 (file bytes 7680 to 8192)"),
            "{e}"
        );
        c.check(&bad, 20 * LOOKUP_BLOCK + 6).unwrap();
    }

    #[test]
    fn chunks_are_verified_once_and_damage_is_caught_wherever_it_is() {
        let table: Vec<u8> = (0..3 * CHUNK + 100).map(|i| (i * 7) as u8).collect();
        let sums = chunk_sums(&table);
        let mut bytes = table.clone();
        bytes.extend_from_slice(&sums);
        let t = (0u64, table.len() as u64);
        let s = (table.len() as u64, sums.len() as u64);
        let c = Chunks::lazy(&bytes, t, s, 8).unwrap();
        for at in [0, CHUNK, 3 * CHUNK + 99] {
            c.check(&bytes, at).unwrap();
        }
        for flip in [5, CHUNK + 1, 2 * CHUNK + 4095, 3 * CHUNK + 50] {
            let mut bad = bytes.clone();
            bad[flip] ^= 1;
            let c = Chunks::lazy(&bad, t, s, 0).unwrap();
            assert!(c.check(&bad, flip).is_err(), "{flip}");
            // Other chunks still read.
            let other = if flip < CHUNK { 2 * CHUNK } else { 0 };
            c.check(&bad, other).unwrap();
            assert!(Chunks::whole(&bad, t, xxh3_64(&table)).is_err());
        }
        assert!(Chunks::lazy(&bytes, t, (s.0, s.1 - 8), 0).is_err());
        assert!(
            Chunks::lazy(&bytes, t, s, 0)
                .unwrap()
                .check(&bytes, table.len() + CHUNK)
                .is_err()
        );
        let o = Once::new((0, 100), xxh3_64(&bytes[..100]), "overflow");
        o.check(&bytes).unwrap();
        let mut bad = bytes.clone();
        bad[3] ^= 1;
        assert!(
            Once::new((0, 100), xxh3_64(&bytes[..100]), "overflow")
                .check(&bad)
                .is_err()
        );
    }
}
