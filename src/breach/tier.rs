//! [`AnyIndex`], which opens any tier and answers lookups from it. The tiers' shared
//! header is in [`tier_header`](super::tier_header), their file storage in
//! [`bytes`](super::bytes); both are re-exported here.

pub use super::tier_header::*;

use super::HashKind;
use super::compact::Compact;
use super::error::IndexError;
use super::filter::Filter;
use super::format::Wide;
use super::index::Index;
use std::fs::File;
use std::path::Path;

/// Any tier, open for lookups.
#[allow(clippy::large_enum_variant)] // one per open index, read on every lookup: unboxed
pub enum AnyIndex {
    /// An exact index.
    Exact(Index),
    /// A compact index.
    Compact(Compact),
    /// A filter.
    Filter(Filter),
    /// An exact index behind an in-memory filter built from it: absent hashes are
    /// answered by the filter alone.
    Filtered {
        /// The exact index.
        exact: Index,
        /// Its filter.
        filter: Filter,
    },
}

/// Why an exact index and a filter cannot be paired.
#[derive(Debug, thiserror::Error)]
pub enum PairError {
    /// The filter's side.
    #[error("the filter")]
    Filter(#[source] IndexError),
    /// Not a filter.
    #[error("the filter is a {0} index, not a filter")]
    NotFilter(&'static str),
    /// The first is not exact.
    #[error("--filter needs an exact index, not a {0} one")]
    NotExact(&'static str),
    /// Built from another index.
    #[error("the filter was built from another index (or another version of it)")]
    Mismatch,
}

/// What [`AnyIndex::verify`] checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verified {
    /// Records (exact and compact indexes) or keys (filters) checked.
    pub entries: u64,
    /// The ranges the hashes fall in, for indexes that keep whole hashes (exact ones).
    pub ranges: Option<super::coverage::Ranges>,
}

impl AnyIndex {
    /// Opens a file of any tier (mapped; one open, for quick one-shot lookups).
    pub fn open(path: &Path) -> Result<AnyIndex, IndexError> {
        let file = File::open(path)?;
        match sniff_file(&file)? {
            Some(Tier::Compact) => Ok(AnyIndex::Compact(Compact::open_file(&file)?)),
            Some(Tier::Filter | Tier::FilterSmall) => {
                Ok(AnyIndex::Filter(Filter::open_file(&file)?))
            }
            // The exact reader gives the precise error for anything else.
            _ => Ok(AnyIndex::Exact(Index::open_file(&file)?)),
        }
    }

    /// Pairs an exact index with a filter built from it, read into memory.
    pub fn filtered(exact: AnyIndex, filter_path: &Path) -> Result<AnyIndex, PairError> {
        let AnyIndex::Exact(exact) = exact else {
            return Err(PairError::NotExact(exact.tier().name()));
        };
        let filter = match AnyIndex::open_in_memory(filter_path).map_err(PairError::Filter)? {
            AnyIndex::Filter(f) => f,
            other => return Err(PairError::NotFilter(other.tier().name())),
        };
        if filter.header().source_id != exact.header().identity()
            || filter.header().kind != exact.kind()
        {
            return Err(PairError::Mismatch);
        }
        Ok(AnyIndex::Filtered { exact, filter })
    }

    /// Reads a file of any tier into memory (huge pages where the system allows): the
    /// fastest lookups, for long-running processes that can spare the memory.
    pub fn open_in_memory(path: &Path) -> Result<AnyIndex, IndexError> {
        match sniff(path)? {
            Some(Tier::Compact) => Ok(AnyIndex::Compact(Compact::open_in_memory(path)?)),
            Some(Tier::Filter | Tier::FilterSmall) => {
                Ok(AnyIndex::Filter(Filter::open_in_memory(path)?))
            }
            _ => Ok(AnyIndex::Exact(Index::open_in_memory(path)?)),
        }
    }

    /// The hash kind.
    pub fn kind(&self) -> HashKind {
        match self {
            AnyIndex::Exact(i) | AnyIndex::Filtered { exact: i, .. } => i.kind(),
            AnyIndex::Compact(c) => c.header().kind,
            AnyIndex::Filter(f) => f.header().kind,
        }
    }

    /// The tier answering (exact for an exact index behind a filter).
    pub fn tier(&self) -> Tier {
        match self {
            AnyIndex::Exact(_) | AnyIndex::Filtered { .. } => Tier::Exact,
            AnyIndex::Compact(_) => Tier::Compact,
            AnyIndex::Filter(f) => f.header().tier,
        }
    }

    /// Whether the index was built from an incomplete set of ranges (`--allow-partial`):
    /// hashes of the missing ranges read as absent.
    pub fn partial(&self) -> bool {
        match self {
            AnyIndex::Exact(i) | AnyIndex::Filtered { exact: i, .. } => i.header().partial(),
            AnyIndex::Compact(c) => c.header().partial(),
            AnyIndex::Filter(f) => f.header().partial(),
        }
    }

    /// Whether every byte a lookup answers from is verified in this process before the
    /// answer is given (the current formats); `false` for the files of older versions,
    /// whose records, entries or fingerprints carry no lookup block checksums and are
    /// read unverified, as those versions promised (`verify` checks them all).
    pub fn lookups_verified(&self) -> bool {
        match self {
            AnyIndex::Exact(i) => i.header().version >= 3,
            AnyIndex::Filtered { exact, filter } => {
                exact.header().version >= 3 && filter.header().body_summed()
            }
            AnyIndex::Compact(c) => c.header().body_summed(),
            AnyIndex::Filter(f) => f.header().body_summed(),
        }
    }

    /// Whether the range `prefix` (the hashes' first 20 bits) holds any hash, or `None`
    /// where the tier cannot tell (a filter keeps no hashes). In a partial index a
    /// range without hashes is most likely missing (the real data has none empty), and
    /// an absent answer there is unknown, not "not leaked".
    pub fn range_holds_hashes(&self, prefix: u32) -> Result<Option<bool>, IndexError> {
        match self {
            AnyIndex::Exact(i) | AnyIndex::Filtered { exact: i, .. } => {
                i.range_holds_hashes(prefix).map(Some)
            }
            AnyIndex::Compact(c) => c.range_holds_hashes(prefix).map(Some),
            AnyIndex::Filter(_) => Ok(None),
        }
    }

    /// Checks everything (every checksum and the structure): what `verify` does and
    /// `serve` does before it listens. Returns the records, entries or keys checked, and
    /// for an exact index the ranges its hashes fall in.
    pub fn verify(&self, progress: &dyn crate::progress::Progress) -> Result<Verified, IndexError> {
        let exact = |i: &Index| {
            i.verify(progress).map(|r| Verified {
                entries: r.records,
                ranges: Some(r.ranges),
            })
        };
        let entries = |entries| Verified {
            entries,
            ranges: None,
        };
        match self {
            AnyIndex::Exact(i) => exact(i),
            AnyIndex::Compact(c) => c.verify(progress).map(entries),
            AnyIndex::Filter(f) => f.verify().map(entries),
            AnyIndex::Filtered { exact: i, filter } => {
                filter.verify()?;
                exact(i)
            }
        }
    }

    /// The chance that an absent hash is reported present.
    pub fn false_positive_rate(&self) -> f64 {
        match self {
            AnyIndex::Exact(_) | AnyIndex::Filtered { .. } => 0.0,
            AnyIndex::Compact(c) => c.false_positive_rate(),
            AnyIndex::Filter(f) => f.false_positive_rate(),
        }
    }

    /// The count of `hash` (0 when absent); on a filter, 1 when probably present.
    #[inline]
    pub fn lookup(&self, hash: &Wide) -> Result<u64, IndexError> {
        match self {
            AnyIndex::Exact(i) => i.lookup(hash),
            AnyIndex::Compact(c) => c.lookup(hash),
            AnyIndex::Filter(f) => f.contains(hash).map(u64::from),
            AnyIndex::Filtered { exact, filter } => {
                if filter.contains(hash)? {
                    exact.lookup(hash)
                } else {
                    Ok(0)
                }
            }
        }
    }

    /// Looks up many hashes; `counts[i]` answers `hashes[i]`.
    pub fn lookup_many(&self, hashes: &[Wide], counts: &mut [u64]) -> Result<(), IndexError> {
        match self {
            AnyIndex::Exact(i) => i.lookup_many(hashes, counts),
            AnyIndex::Compact(c) => c.lookup_many(hashes, counts),
            AnyIndex::Filter(f) => f.contains_many(hashes, counts),
            AnyIndex::Filtered { exact, filter } => {
                filter.contains_many(hashes, counts)?;
                for (h, c) in hashes.iter().zip(counts.iter_mut()) {
                    if *c != 0 {
                        *c = exact.lookup(h)?;
                    }
                }
                Ok(())
            }
        }
    }
}
