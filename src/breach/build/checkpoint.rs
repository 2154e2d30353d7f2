//! A build's state after a range of packed input, saved by `breach download` so that a
//! rerun after an interruption continues writing the same index instead of starting
//! again (docs/BREACH-FORMAT.md, "Download state").

use super::BuildError;
use crate::breach::coverage::Coverage;
use crate::breach::format::PREFIXES;
use crate::breach::format::{
    BLOCK_SIZE, ESTIMATE_RECORDS, GROUP_BITS, MAX_TABLE_BITS, OVERFLOW_ENTRY, Wide,
};

/// [`Checkpoint::table_bits`] of a build that has not yet chosen its parameters: its
/// hashes so far are held ([`Checkpoint::pending`]), none written.
pub const NOT_CHOSEN: u32 = u32::MAX;

/// The writer's state after a range: its counters, and the parts of its table, block
/// checksums and overflow entries. As the writer hands one over, the lists hold only
/// what was added since the previous checkpoint; [`Checkpoint::extend`] joins them into
/// the whole state a rerun restores.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checkpoint {
    /// The table bits chosen, or [`NOT_CHOSEN`].
    pub table_bits: u32,
    /// Records written.
    pub records: u64,
    /// Count-0 hashes skipped.
    pub padding: u64,
    /// The largest count.
    pub max_count: u64,
    /// The sum of the counts (saturating).
    pub total_count: u64,
    /// The next bucket whose table offset is not yet set.
    pub next_bucket: u64,
    /// Hashes read (the input's "lines").
    pub lines: u64,
    /// The last hash and its line.
    pub last: Option<(Wide, u64)>,
    /// The ranges the hashes fall in.
    pub coverage: Coverage,
    /// Group bases of the table.
    pub bases: Vec<u64>,
    /// Bucket offsets of the table.
    pub offsets: Vec<u32>,
    /// Checksums of the whole record blocks written.
    pub block_sums: Vec<u64>,
    /// The checksum (XXH3-64) of the records after the last whole block.
    pub tail_sum: u64,
    /// Overflow entries (16 bytes each).
    pub overflow: Vec<u8>,
    /// The hashes and counts held while the parameters are not chosen (emptied once
    /// they are, and the hashes written as records).
    pub pending: Vec<(Wide, u64)>,
}

impl Checkpoint {
    /// Joins the next checkpoint's state to this one: its counters, and the lists
    /// appended.
    pub fn extend(&mut self, next: Checkpoint) {
        let Checkpoint {
            mut bases,
            mut offsets,
            mut block_sums,
            mut overflow,
            ..
        } = next;
        if next.table_bits != NOT_CHOSEN {
            self.pending.clear();
        }
        self.pending.extend_from_slice(&next.pending);
        self.bases.append(&mut bases);
        self.offsets.append(&mut offsets);
        self.block_sums.append(&mut block_sums);
        self.overflow.append(&mut overflow);
        *self = Checkpoint {
            bases: std::mem::take(&mut self.bases),
            offsets: std::mem::take(&mut self.offsets),
            block_sums: std::mem::take(&mut self.block_sums),
            overflow: std::mem::take(&mut self.overflow),
            pending: std::mem::take(&mut self.pending),
            ..next
        };
    }

    /// Whether the whole state holds together for records of `record_size` bytes: every
    /// list as long as the counters say (a saved state damaged or not ours is refused,
    /// never built on).
    pub(super) fn check(&self, record_size: usize) -> Result<(), BuildError> {
        let bad = |what: &str| Err(BuildError::Resume(what.to_string()));
        // Counters that the build goes on adding to: within what any input can reach
        // (2^62 hashes would be over 2^66 bytes), so that no sum wraps.
        if self.lines > 1 << 62 || self.padding > self.lines || self.records > self.lines {
            return bad("hash counts");
        }
        let (held, last, gap) = self.coverage.parts();
        if held > PREFIXES
            || last.is_some_and(|r| r >= PREFIXES)
            || gap.is_some_and(|r| r >= PREFIXES)
        {
            return bad("ranges covered");
        }
        if self.table_bits == NOT_CHOSEN {
            let written = self.records != 0
                || self.next_bucket != 0
                || !self.bases.is_empty()
                || !self.offsets.is_empty()
                || !self.block_sums.is_empty()
                || !self.overflow.is_empty();
            if written || self.pending.len() >= ESTIMATE_RECORDS {
                return bad("records written before the parameters were chosen");
            }
            return Ok(());
        }
        if !self.pending.is_empty() {
            return bad("hashes held after the parameters were chosen");
        }
        if self.table_bits > MAX_TABLE_BITS {
            return bad("table bits out of range");
        }
        if self.offsets.len() as u64 != self.next_bucket
            || self.next_bucket > (1u64 << self.table_bits) + 1
        {
            return bad("bucket offsets");
        }
        // Group bases: record indexes, from 0, never decreasing, none past the records.
        if self.bases.len() as u64 != self.next_bucket.div_ceil(1 << GROUP_BITS)
            || self.bases.first().is_some_and(|&b| b != 0)
            || self.bases.windows(2).any(|w| w[0] > w[1])
            || self.bases.last().is_some_and(|&b| b > self.records)
        {
            return bad("group bases");
        }
        let bytes = self.records.checked_mul(record_size as u64);
        if bytes.is_none_or(|b| self.block_sums.len() as u64 != b / BLOCK_SIZE) {
            return bad("block checksums");
        }
        if !self.overflow.len().is_multiple_of(OVERFLOW_ENTRY) {
            return bad("overflow entries");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
