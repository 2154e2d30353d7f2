//! A build's state after a range of packed input, saved by `breach download` so that a
//! rerun after an interruption continues writing the same index instead of starting
//! again (docs/BREACH-FORMAT.md, "Download state").

use super::BuildError;
use crate::breach::coverage::Coverage;
use crate::breach::format::{
    BLOCK_SIZE, ESTIMATE_RECORDS, GROUP_BITS, MAX_TABLE_BITS, OVERFLOW_ENTRY, Wide,
};
use crate::breach::ranges::PREFIXES;

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
mod tests {
    use super::*;
    use crate::breach::HashKind;
    use crate::breach::format::{MAX_TABLE_BITS, Params};

    /// What `check` says of `s`: `None` when it passes, else the words of its refusal.
    fn refusal(s: &Checkpoint) -> Option<String> {
        let size = match s.table_bits {
            NOT_CHOSEN => 1,
            b => Params::new(HashKind::Sha1, b.min(MAX_TABLE_BITS)).record_size,
        };
        match s.check(size) {
            Ok(()) => None,
            Err(BuildError::Resume(why)) => Some(why),
            Err(e) => panic!("not a refusal to resume: {e}"),
        }
    }

    /// A state that holds together, with its parameters chosen: 17 table bits, every
    /// bucket's offset set (2^17 + 1 of them, three group bases), 10 records.
    fn chosen() -> Checkpoint {
        Checkpoint {
            table_bits: 17,
            records: 10,
            padding: 2,
            lines: 12,
            next_bucket: (1 << 17) + 1,
            offsets: vec![0; (1 << 17) + 1],
            bases: vec![0, 5, 5],
            overflow: vec![0; OVERFLOW_ENTRY],
            coverage: Coverage::from_parts(3, Some(7), Some(2)),
            ..Checkpoint::default()
        }
    }

    /// A state before the parameters are chosen: hashes held, nothing written.
    fn early() -> Checkpoint {
        Checkpoint {
            table_bits: NOT_CHOSEN,
            lines: 5,
            pending: vec![(Wide([1, 2, 3]), 4); 5],
            ..Checkpoint::default()
        }
    }

    /// Each bound of `check`: a state at the bound passes, one just past it is refused
    /// with that bound's words (so that no bound is looser, or tighter, than written).
    #[test]
    fn each_bound_of_a_saved_state_refuses_just_past_it() {
        assert_eq!(refusal(&chosen()), None);
        assert_eq!(refusal(&early()), None);
        let size = Params::new(HashKind::Sha1, 17).record_size;
        type Edit = Box<dyn Fn(&mut Checkpoint)>;
        /// The starting state, the edit, the refusal's words or `None`.
        type Case = (fn() -> Checkpoint, Edit, Option<&'static str>);
        let cases: Vec<Case> = vec![
            (chosen, Box::new(|s| s.lines = 1 << 62), None),
            (
                chosen,
                Box::new(|s| s.lines = (1 << 62) + 1),
                Some("hash counts"),
            ),
            (chosen, Box::new(|s| s.padding = 12), None),
            (chosen, Box::new(|s| s.padding = 13), Some("hash counts")),
            (chosen, Box::new(|s| (s.lines, s.padding) = (10, 0)), None),
            (
                chosen,
                Box::new(|s| (s.lines, s.padding) = (9, 0)),
                Some("hash counts"),
            ),
            (
                chosen,
                Box::new(|s| {
                    s.coverage =
                        Coverage::from_parts(PREFIXES, Some(PREFIXES - 1), Some(PREFIXES - 1))
                }),
                None,
            ),
            (
                chosen,
                Box::new(|s| s.coverage = Coverage::from_parts(PREFIXES + 1, None, None)),
                Some("ranges covered"),
            ),
            (
                chosen,
                Box::new(|s| s.coverage = Coverage::from_parts(1, Some(PREFIXES), None)),
                Some("ranges covered"),
            ),
            (
                chosen,
                Box::new(|s| s.coverage = Coverage::from_parts(1, Some(0), Some(PREFIXES))),
                Some("ranges covered"),
            ),
            (
                chosen,
                Box::new(|s| s.pending.push((Wide([0; 3]), 1))),
                Some("hashes held after"),
            ),
            (
                chosen,
                Box::new(|s| s.table_bits = MAX_TABLE_BITS + 1),
                Some("table bits out of range"),
            ),
            (
                chosen,
                Box::new(|s| {
                    s.offsets.pop();
                }),
                Some("bucket offsets"),
            ),
            // (`chosen` itself has the most buckets a table of its bits has.)
            (
                chosen,
                Box::new(|s| {
                    s.next_bucket += 1;
                    s.offsets.push(0);
                }),
                Some("bucket offsets"),
            ),
            (chosen, Box::new(|s| s.bases.push(5)), Some("group bases")),
            (
                chosen,
                Box::new(|s| {
                    s.bases.pop();
                }),
                Some("group bases"),
            ),
            (chosen, Box::new(|s| s.bases[0] = 1), Some("group bases")),
            (chosen, Box::new(|s| s.bases = vec![0, 0, 10]), None),
            (
                chosen,
                Box::new(|s| s.bases = vec![0, 6, 5]),
                Some("group bases"),
            ),
            (
                chosen,
                Box::new(|s| s.bases = vec![0, 5, 11]),
                Some("group bases"),
            ),
            (
                chosen,
                Box::new(move |s| {
                    (s.records, s.lines) = (BLOCK_SIZE, BLOCK_SIZE);
                    s.block_sums = vec![0; size];
                }),
                None,
            ),
            (
                chosen,
                Box::new(move |s| {
                    (s.records, s.lines) = (BLOCK_SIZE, BLOCK_SIZE);
                    s.block_sums = vec![0; size - 1];
                }),
                Some("block checksums"),
            ),
            (
                chosen,
                Box::new(|s| s.block_sums.push(0)),
                Some("block checksums"),
            ),
            // A record count whose bytes do not fit in 64 bits.
            (
                chosen,
                Box::new(|s| (s.records, s.lines) = (1 << 62, 1 << 62)),
                Some("block checksums"),
            ),
            (
                chosen,
                Box::new(|s| s.overflow.push(0)),
                Some("overflow entries"),
            ),
            (chosen, Box::new(|s| s.overflow.clear()), None),
            (
                early,
                Box::new(|s| s.pending.resize(ESTIMATE_RECORDS - 1, (Wide([0; 3]), 1))),
                None,
            ),
            (
                early,
                Box::new(|s| s.pending.resize(ESTIMATE_RECORDS, (Wide([0; 3]), 1))),
                Some("before the parameters"),
            ),
            (
                early,
                Box::new(|s| s.records = 1),
                Some("before the parameters"),
            ),
            (
                early,
                Box::new(|s| s.next_bucket = 1),
                Some("before the parameters"),
            ),
            (
                early,
                Box::new(|s| s.bases.push(0)),
                Some("before the parameters"),
            ),
            (
                early,
                Box::new(|s| s.offsets.push(0)),
                Some("before the parameters"),
            ),
            (
                early,
                Box::new(|s| s.block_sums.push(0)),
                Some("before the parameters"),
            ),
            (
                early,
                Box::new(|s| s.overflow.push(0)),
                Some("before the parameters"),
            ),
            (early, Box::new(|s| s.padding = 6), Some("hash counts")),
        ];
        for (i, (start, edit, want)) in cases.iter().enumerate() {
            let mut s = start();
            edit(&mut s);
            let got = refusal(&s);
            match (want, &got) {
                (None, None) => {}
                (Some(w), Some(g)) if g.contains(w) => {}
                _ => panic!("case {i}: wanted {want:?}, got {got:?}"),
            }
        }
    }
}
