//! Checksums checked on the lookup path: a lookup never reads a byte of a bucket table
//! or an overflow table that has not been verified in this process.
//!
//! A table is verified in chunks of [`CHUNK`] bytes, each against its own XXH3-64 kept in
//! a section of the file: the first lookup that reads a chunk hashes it (about 0.15 µs),
//! later ones test one bit. A one-off query so pays for the chunk or two it reads, and a
//! long-running process for each chunk once. An overflow table (read only for the few
//! counts too large for a record) is verified whole on its first use. Files of an older
//! format, without chunk checksums, have their tables verified whole at opening.

use super::index::IndexError;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use xxhash_rust::xxh3::xxh3_64;

/// Bytes of a verified chunk.
pub const CHUNK: usize = 4096;

/// The checksums of a table's chunks, as a file stores them: the XXH3-64 of each
/// Checks that every byte of `bytes` from `from` on that no section covers is zero, as
/// the formats require of the gaps that align sections (what `verify` checks, so that a
/// changed byte anywhere in a file is found, even where no lookup reads).
pub fn gaps_are_zero(
    bytes: &[u8],
    from: u64,
    sections: &[(u64, u64)],
) -> Result<(), super::index::IndexError> {
    let mut sorted: Vec<(u64, u64)> = sections.iter().copied().filter(|s| s.1 > 0).collect();
    sorted.sort_unstable();
    let mut at = from;
    for (off, len) in sorted.into_iter().chain([(bytes.len() as u64, 0)]) {
        if off > at {
            let gap = &bytes[at as usize..off as usize];
            if let Some(i) = gap.iter().position(|&b| b != 0) {
                return Err(super::index::IndexError::Corrupt(format!(
                    "byte {} lies between sections and is not zero",
                    at + i as u64
                )));
            }
        }
        at = at.max(off + len);
    }
    Ok(())
}

/// [`CHUNK`] bytes (the last chunk shorter), little-endian, in order.
pub fn chunk_sums(table: &[u8]) -> Vec<u8> {
    table
        .chunks(CHUNK)
        .flat_map(|c| xxh3_64(c).to_le_bytes())
        .collect()
}

/// A table whose chunks are verified before a lookup reads them.
pub struct Chunks {
    /// The table's place in the file's bytes.
    table_off: usize,
    table_len: usize,
    /// The checksums' place (unused when everything was verified at opening).
    sums_off: usize,
    /// One bit per chunk: verified in this process.
    verified: Box<[AtomicU64]>,
    /// Chunks not verified yet: once none are, a check is one load and one test.
    /// (Both behind pointers: a structure holding `Chunks` keeps no interior
    /// mutability inline, so the compiler may keep its fields in registers.)
    left: Box<AtomicUsize>,
}

impl Chunks {
    fn with_bits(table: (u64, u64), sums_off: usize, all: bool) -> Chunks {
        let chunks = (table.1 as usize).div_ceil(CHUNK);
        let words = chunks.div_ceil(64).max(1);
        let fill = if all { u64::MAX } else { 0 };
        Chunks {
            table_off: table.0 as usize,
            table_len: table.1 as usize,
            sums_off,
            verified: (0..words).map(|_| AtomicU64::new(fill)).collect(),
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

    /// A table of a format without chunk checksums: verified whole now against `sum`.
    pub fn whole(bytes: &[u8], table: (u64, u64), sum: u64) -> Result<Chunks, IndexError> {
        let t = &bytes[table.0 as usize..(table.0 + table.1) as usize];
        if xxh3_64(t) != sum {
            return Err(IndexError::Corrupt("bucket table checksum mismatch".into()));
        }
        Ok(Chunks::with_bits(table, 0, true))
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

    /// Verifies the chunks holding bytes `first` to `last` of the table (one or two),
    /// unless done before: on the lookup path, one test of both chunks' bits, and the
    /// work out of line.
    #[inline(always)]
    pub fn check_span(&self, bytes: &[u8], first: usize, last: usize) -> Result<(), IndexError> {
        if self.left.load(Ordering::Relaxed) == 0 {
            return Ok(());
        }
        let (a, b) = (first / CHUNK, last / CHUNK);
        if self.bit(a) & self.bit(b) == 1 {
            return Ok(());
        }
        self.verify_span(bytes, a, b)
    }

    /// Verifies chunks `a` and `b` (equal, or adjacent).
    #[cold]
    #[inline(never)]
    fn verify_span(&self, bytes: &[u8], a: usize, b: usize) -> Result<(), IndexError> {
        if self.bit(a) == 0 {
            self.verify(bytes, a)?;
        }
        if b != a && self.bit(b) == 0 {
            self.verify(bytes, b)?;
        }
        Ok(())
    }

    /// Hashes one chunk against its checksum and remembers it.
    #[cold]
    #[inline(never)]
    fn verify(&self, bytes: &[u8], chunk: usize) -> Result<(), IndexError> {
        let start = chunk * CHUNK;
        if start >= self.table_len {
            return Err(IndexError::Corrupt("a read past the bucket table".into()));
        }
        let end = (start + CHUNK).min(self.table_len);
        let data = &bytes[self.table_off + start..self.table_off + end];
        let at = self.sums_off + chunk * 8;
        let want = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        if xxh3_64(data) != want {
            return Err(IndexError::Corrupt(format!(
                "bucket table checksum mismatch in bytes {start} to {end}: the index is damaged; rebuild it"
            )));
        }
        let bit = 1 << (chunk % 64);
        if self.verified[chunk / 64].fetch_or(bit, Ordering::Relaxed) & bit == 0 {
            self.left.fetch_sub(1, Ordering::Relaxed);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

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
