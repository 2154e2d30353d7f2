//! Which of the 1,048,576 ranges (5-hex-digit prefixes) an index's hashes fall in.
//!
//! The Pwned Passwords data has no empty range: its hashes are uniform, and with N of
//! them a given range is empty with probability about e^(−N / 2^20). An index built
//! from many hashes with ranges left empty was almost surely built from an input cut
//! short or missing ranges (an interrupted downloader's files, a truncated copy), and
//! would answer "not found" for every hash of those ranges.

use super::format::PREFIXES;

/// From how many hashes an empty range is taken as a sign of missing input: 2^26, where
/// uniform hashes leave a range empty with probability e^−64 (about 10^−28), so that
/// across all ranges a false alarm has odds under 10^−21.
pub const IMPROBABLE_FROM: u64 = 1 << 26;

/// The ranges seen so far, fed in order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Ranges holding at least one hash.
    held: u32,
    /// The last range noted.
    last: Option<u32>,
    /// The first range skipped.
    first_gap: Option<u32>,
}

impl Coverage {
    /// Notes a hash of range `range` (ranges come in ascending order).
    #[inline]
    pub fn note(&mut self, range: u32) {
        if self.last != Some(range) {
            self.start(range);
        }
    }

    /// Notes the first hash of range `range`.
    #[cold]
    fn start(&mut self, range: u32) {
        let expected = self.last.map_or(0, |r| r + 1);
        if range > expected && self.first_gap.is_none() {
            self.first_gap = Some(expected);
        }
        self.held += 1;
        self.last = Some(range);
    }

    /// Its state: ranges held, the last range noted, the first range skipped (for the
    /// download's saved state).
    pub fn parts(&self) -> (u32, Option<u32>, Option<u32>) {
        (self.held, self.last, self.first_gap)
    }

    /// The coverage whose [`Coverage::parts`] are these.
    pub fn from_parts(held: u32, last: Option<u32>, first_gap: Option<u32>) -> Coverage {
        Coverage {
            held,
            last,
            first_gap,
        }
    }

    /// How the ranges ended up: how many hold hashes, and the first that holds none.
    pub fn finish(&self) -> Ranges {
        let after_last = self.last.map_or(0, |r| r + 1);
        Ranges {
            held: self.held,
            first_empty: self
                .first_gap
                .or((after_last < PREFIXES).then_some(after_last)),
        }
    }
}

/// The ranges of a finished build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranges {
    /// Ranges holding at least one hash.
    pub held: u32,
    /// The first range holding none.
    pub first_empty: Option<u32>,
}

impl Ranges {
    /// Ranges holding no hash.
    pub fn empty(&self) -> u32 {
        PREFIXES - self.held
    }

    /// Whether `hashes` uniform hashes leaving these ranges empty is too improbable to be
    /// chance (see [`IMPROBABLE_FROM`]).
    pub fn improbably_empty(&self, hashes: u64) -> bool {
        self.empty() > 0 && hashes >= IMPROBABLE_FROM
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(ranges: &[u32]) -> Ranges {
        let mut c = Coverage::default();
        for &r in ranges {
            c.note(r);
        }
        c.finish()
    }

    #[test]
    fn gaps_at_the_start_in_the_middle_and_at_the_end_are_found() {
        assert_eq!(
            of(&[]),
            Ranges {
                held: 0,
                first_empty: Some(0)
            }
        );
        assert_eq!(of(&[1, 2]).first_empty, Some(0));
        assert_eq!(of(&[0, 0, 1, 3, 3, 4]).first_empty, Some(2));
        assert_eq!(of(&[0, 0, 1, 3, 3, 4]).held, 4);
        assert_eq!(of(&[0, 1, 2]).first_empty, Some(3));
        let all: Vec<u32> = (0..PREFIXES).collect();
        assert_eq!(
            of(&all),
            Ranges {
                held: PREFIXES,
                first_empty: None
            }
        );
        let mut but_last = all.clone();
        but_last.pop();
        assert_eq!(of(&but_last).first_empty, Some(PREFIXES - 1));
        assert_eq!(of(&but_last).empty(), 1);
    }

    #[test]
    fn empty_ranges_are_improbable_only_among_many_hashes() {
        let one_gap = of(&(1..PREFIXES).collect::<Vec<_>>());
        assert!(!one_gap.improbably_empty(IMPROBABLE_FROM - 1));
        assert!(one_gap.improbably_empty(IMPROBABLE_FROM));
        let all = of(&(0..PREFIXES).collect::<Vec<_>>());
        assert!(!all.improbably_empty(u64::MAX));
    }
}
