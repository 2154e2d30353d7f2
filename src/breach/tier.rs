//! The smaller tiers (`docs/BREACH-FORMAT.md`, "Tiers"): their shared header and file
//! storage, and [`AnyIndex`], which opens any tier and answers lookups from it.

use super::HashKind;
use super::compact::Compact;
use super::filter::Filter;
use super::format::{FLAG_PARTIAL, HEADER_SIZE, HeaderError, MAGIC, Wide};
use super::index::{Index, IndexError};
use std::fs::File;
use std::io::{self, Read};

use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// The magic of a compact index.
pub const COMPACT_MAGIC: &[u8; 8] = b"VKBCOMPT";
/// The magic of a filter.
pub const FILTER_MAGIC: &[u8; 8] = b"VKBFILTR";
/// The compact index's format version (4: the entries' lookup block checksums; 3: flags
/// and the bucket table's chunk checksums; versions 2 and 3 are read too, version 2
/// with its table verified whole at opening, and both with their entries unverified;
/// version 1 files, with a table of u64, are refused with a hint to rebuild).
pub const COMPACT_VERSION: u32 = 4;
/// The filters' format version (3: the fingerprints' lookup block checksums; 2: flags;
/// versions 1 and 2 are read too, their fingerprints unverified).
pub const FILTER_VERSION: u32 = 3;

/// The first version of each tier still read, the first with flags (and, compact, table
/// chunk checksums), and the first with lookup block checksums.
fn versions(tier: Tier) -> (u32, u32, u32) {
    match tier {
        Tier::Compact => (2, 3, 4),
        _ => (1, 2, 3),
    }
}
/// The header bytes covered by the header checksum.
pub(super) const TIER_HEADER_USED: usize = 248;

/// How much of the data a file keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// Every hash and its exact count (`VKBREACH` files).
    Exact,
    /// Truncated keys with exact counts.
    Compact,
    /// A binary fuse filter with 16-bit fingerprints: membership only.
    Filter,
    /// A binary fuse filter with 8-bit fingerprints: membership only.
    FilterSmall,
}

impl Tier {
    /// The name on the command line and in `info`.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::Compact => "compact",
            Tier::Filter => "filter",
            Tier::FilterSmall => "filter-small",
        }
    }

    fn code(self) -> u8 {
        match self {
            Tier::Exact => 0,
            Tier::Compact => 1,
            Tier::Filter => 2,
            Tier::FilterSmall => 3,
        }
    }

    fn from_code(c: u8) -> Option<Tier> {
        match c {
            1 => Some(Tier::Compact),
            2 => Some(Tier::Filter),
            3 => Some(Tier::FilterSmall),
            _ => None,
        }
    }

    /// The format version its files are written in.
    pub fn version(self) -> u32 {
        match self {
            Tier::Compact => COMPACT_VERSION,
            _ => FILTER_VERSION,
        }
    }

    /// Whether lookups give counts (false: 1 for "probably present", 0 for "absent").
    pub fn has_counts(self) -> bool {
        matches!(self, Tier::Exact | Tier::Compact)
    }
}

/// The header of a compact index or a filter (4096 bytes; the first 256 used).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierHeader {
    /// Which tier.
    pub tier: Tier,
    /// The hash kind.
    pub kind: HashKind,
    /// Bucket bits (compact) or shard bits (filter).
    pub bits: u32,
    /// Compact: the bucket table's group bits (one base per `2^group_bits` buckets); 0
    /// for filters.
    pub group_bits: u32,
    /// Hashes in the source.
    pub hashes: u64,
    /// Entries stored: compact entries, or distinct filter keys.
    pub entries: u64,
    /// Source hashes that share a stored key with another (merged or deduplicated).
    pub collisions: u64,
    /// The largest count of the source.
    pub max_count: u64,
    /// The sum of the source's counts, saturating.
    pub total_count: u64,
    /// The identity of the exact index it was built from ([`super::format::Header::identity`]).
    pub source_id: u64,
    /// Sections as (offset, length): compact entries / filter fingerprints.
    pub body_at: (u64, u64),
    /// Compact overflow entries (empty for filters).
    pub overflow_at: (u64, u64),
    /// Compact bucket table / filter shard directory.
    pub table_at: (u64, u64),
    /// Checksums (XXH3-64) of the three sections.
    pub body_sum: u64,
    /// See `body_sum`.
    pub overflow_sum: u64,
    /// See `body_sum`.
    pub table_sum: u64,
    /// The file's length.
    pub file_len: u64,
    /// The format version.
    pub version: u32,
    /// Flags ([`FLAG_PARTIAL`]: built from a partial exact index).
    pub flags: u64,
    /// (offset, length) of the compact table's chunk checksums (empty for filters and
    /// older compact indexes).
    pub sums_at: (u64, u64),
    /// (offset, length) of the body's lookup block checksums (compact entries, filter
    /// fingerprints; empty in older versions, whose bodies are read unverified).
    pub lookup_at: (u64, u64),
}

impl TierHeader {
    /// Whether the index was built from an incomplete set of ranges.
    pub fn partial(&self) -> bool {
        self.flags & FLAG_PARTIAL != 0
    }

    /// Whether its version keeps lookup block checksums of its body (lookups then never
    /// answer from an entry or fingerprint not verified in this process).
    pub fn body_summed(&self) -> bool {
        self.version >= versions(self.tier).2
    }

    /// Whether its version keeps chunk checksums of its table (compact, from version 3).
    pub fn table_summed(&self) -> bool {
        self.tier == Tier::Compact && self.version >= versions(self.tier).1
    }

    /// The lookup blocks of its body: verified as lookups read them, or taken as
    /// verified in an older version without their checksums.
    pub(super) fn body_blocks(
        &self,
        what: &'static str,
    ) -> Result<super::checked::Chunks, IndexError> {
        if self.body_summed() {
            super::checked::Chunks::blocks(self.body_at, self.lookup_at, what)
        } else {
            Ok(super::checked::Chunks::unsummed(self.body_at, what))
        }
    }
}

fn put(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn get(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl TierHeader {
    /// The 4096 header bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; HEADER_SIZE];
        b[..8].copy_from_slice(match self.tier {
            Tier::Compact => COMPACT_MAGIC,
            _ => FILTER_MAGIC,
        });
        b[8..12].copy_from_slice(&self.version.to_le_bytes());
        b[12] = self.kind.code();
        b[13] = self.tier.code();
        b[14] = self.bits as u8;
        b[15] = self.group_bits as u8;
        for (at, v) in [
            (16, self.hashes),
            (24, self.entries),
            (32, self.collisions),
            (40, self.max_count),
            (48, self.total_count),
            (56, self.source_id),
            (64, self.body_at.0),
            (72, self.body_at.1),
            (80, self.overflow_at.0),
            (88, self.overflow_at.1),
            (96, self.table_at.0),
            (104, self.table_at.1),
            (112, self.body_sum),
            (120, self.overflow_sum),
            (128, self.table_sum),
            (136, self.file_len),
            (144, self.flags),
            (152, self.sums_at.0),
            (160, self.sums_at.1),
        ] {
            put(&mut b, at, v);
        }
        if self.version >= versions(self.tier).2 {
            put(&mut b, 168, self.lookup_at.0);
            put(&mut b, 176, self.lookup_at.1);
            put(&mut b, 184, super::checked::LOOKUP_BLOCK as u64);
        }
        let sum = xxh3_64(&b[..TIER_HEADER_USED]);
        put(&mut b, TIER_HEADER_USED, sum);
        b
    }

    /// Decodes and checks a header against the file's length.
    pub fn decode(b: &[u8], file_len: u64) -> Result<TierHeader, HeaderError> {
        if b.len() < HEADER_SIZE {
            return Err(HeaderError::Short(file_len));
        }
        let magic_tier = match &b[..8] {
            m if m == COMPACT_MAGIC => Tier::Compact,
            m if m == FILTER_MAGIC => Tier::Filter,
            _ => return Err(HeaderError::Magic),
        };
        let version = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
        let current = magic_tier.version();
        if version > current {
            return Err(HeaderError::Newer(version));
        }
        // Older versions are read (without flags, chunk or lookup checksums) back to
        // the first still read; older ones are refused with a hint to rebuild.
        let (oldest, flags_from, lookup_from) = versions(magic_tier);
        if version < oldest || version == 0 {
            return Err(HeaderError::Outdated(magic_tier.name(), version));
        }
        if xxh3_64(&b[..TIER_HEADER_USED]) != get(b, TIER_HEADER_USED) {
            return Err(HeaderError::Checksum);
        }
        let inconsistent = HeaderError::Inconsistent;
        let kind = HashKind::from_code(b[12]).ok_or(inconsistent("hash kind"))?;
        let tier = Tier::from_code(b[13]).ok_or(inconsistent("tier"))?;
        if (tier == Tier::Compact) != (magic_tier == Tier::Compact) {
            return Err(inconsistent("tier"));
        }
        let h = TierHeader {
            tier,
            kind,
            bits: u32::from(b[14]),
            group_bits: u32::from(b[15]),
            hashes: get(b, 16),
            entries: get(b, 24),
            collisions: get(b, 32),
            max_count: get(b, 40),
            total_count: get(b, 48),
            source_id: get(b, 56),
            body_at: (get(b, 64), get(b, 72)),
            overflow_at: (get(b, 80), get(b, 88)),
            table_at: (get(b, 96), get(b, 104)),
            body_sum: get(b, 112),
            overflow_sum: get(b, 120),
            table_sum: get(b, 128),
            file_len: get(b, 136),
            version,
            flags: if version >= flags_from {
                get(b, 144)
            } else {
                0
            },
            sums_at: if version >= flags_from {
                (get(b, 152), get(b, 160))
            } else {
                (0, 0)
            },
            lookup_at: if version >= lookup_from {
                (get(b, 168), get(b, 176))
            } else {
                (0, 0)
            },
        };
        if version >= lookup_from {
            if get(b, 184) != super::checked::LOOKUP_BLOCK as u64 {
                return Err(inconsistent("lookup block size"));
            }
            let blocks = h.body_at.1.div_ceil(super::checked::LOOKUP_BLOCK as u64);
            if h.lookup_at.1 != blocks * super::checked::LOOKUP_SUM as u64 {
                return Err(inconsistent("lookup checksums length"));
            }
        }
        if h.flags & !FLAG_PARTIAL != 0 {
            return Err(inconsistent("unknown flags"));
        }
        if h.file_len > file_len {
            return Err(HeaderError::Truncated {
                expected: h.file_len,
                actual: file_len,
            });
        }
        if h.file_len != file_len {
            return Err(HeaderError::Inconsistent(
                "file length (bytes after the end)",
            ));
        }
        for (off, len) in [h.body_at, h.overflow_at, h.table_at, h.sums_at, h.lookup_at] {
            if len == 0 {
                continue;
            }
            match off.checked_add(len) {
                Some(end) if off >= HEADER_SIZE as u64 && end <= file_len => {}
                _ => return Err(inconsistent("section bounds")),
            }
        }
        if h.entries > h.hashes {
            return Err(inconsistent("entries"));
        }
        if h.tier != Tier::Compact && h.group_bits != 0 {
            return Err(inconsistent("group bits"));
        }
        Ok(h)
    }

    /// Checks the section checksums, and that the bytes between sections are zero.
    pub fn verify_sections(&self, bytes: &[u8]) -> Result<(), IndexError> {
        let section = |(off, len): (u64, u64)| &bytes[off as usize..(off + len) as usize];
        for (name, at, sum) in [
            ("body", self.body_at, self.body_sum),
            ("overflow", self.overflow_at, self.overflow_sum),
            ("table", self.table_at, self.table_sum),
        ] {
            if xxh3_64(section(at)) != sum {
                return Err(IndexError::Corrupt(format!("{name} checksum mismatch")));
            }
        }
        if self.sums_at.1 > 0
            && section(self.sums_at) != super::checked::chunk_sums(section(self.table_at))
        {
            return Err(IndexError::Corrupt("table chunk checksums mismatch".into()));
        }
        if self.version >= versions(self.tier).2 {
            let what = if self.tier == Tier::Compact {
                "entries"
            } else {
                "fingerprints"
            };
            super::index::lookup_sums_match(section(self.body_at), section(self.lookup_at), what)?;
        }
        super::checked::gaps_are_zero(
            bytes,
            TIER_HEADER_USED as u64 + 8,
            &[
                self.body_at,
                self.overflow_at,
                self.table_at,
                self.sums_at,
                self.lookup_at,
            ],
        )
    }
}

/// The bytes of an index file, mapped from the file or held in anonymous memory (one
/// representation for both, so a lookup reads the bytes' address without a branch).
pub(crate) struct Bytes(memmap2::Mmap);

impl Bytes {
    #[inline]
    pub(crate) fn get(&self) -> &[u8] {
        &self.0
    }

    /// The bytes of an index file, mapped or (`in_memory`) read, and its length; refuses
    /// a file shorter than a header.
    pub(crate) fn open(file: &File, in_memory: bool) -> Result<(Bytes, u64), IndexError> {
        let meta = file.metadata()?;
        if !meta.is_file() {
            // A pipe (`-i <(cat INDEX)`) has no length and cannot be mapped: said so, not
            // "too short (0 bytes)".
            return Err(IndexError::NotFile);
        }
        let len = meta.len();
        if len < HEADER_SIZE as u64 {
            return Err(HeaderError::Short(len).into());
        }
        let bytes = if in_memory {
            Bytes::read(file, len)?
        } else {
            Bytes::map(file)?
        };
        Ok((bytes, len))
    }

    /// Maps the pages of `len` bytes from `offset` in bulk, ahead of a pass that reads
    /// them in order (the map is advised for random access, so each page would otherwise
    /// be mapped on its own first read). Best effort.
    pub(crate) fn populate(&self, offset: usize, len: usize) {
        #[cfg(target_os = "linux")]
        {
            let start = offset / 4096 * 4096;
            let end = (offset + len).min(self.0.len());
            if end > start {
                let _ = self
                    .0
                    .advise_range(memmap2::Advice::PopulateRead, start, end - start);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (offset, len);
    }

    /// Maps `file`, advised for random access.
    pub(crate) fn map(file: &File) -> Result<Bytes, IndexError> {
        // SAFETY: the map is read-only and veilkit never writes an index in place (builds
        // go to a temporary file renamed over the old one, which leaves existing maps on
        // the old file). Another program truncating or rewriting the file while it is
        // mapped is unsupported: it can make lookups fail, as it would with read(2).
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(file)? };
        // Random access, no read-around: a cold lookup reads pages, not megabytes.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        Ok(Bytes(map))
    }

    /// Reads `file` into anonymous memory, in huge pages where the system allows; refuses
    /// a file larger than the memory available ([`fits_in_memory`]).
    fn read(mut file: &File, len: u64) -> Result<Bytes, IndexError> {
        #[cfg(target_os = "linux")]
        if let Ok(meminfo) = std::fs::read_to_string("/proc/meminfo") {
            fits_in_memory(len, &meminfo)?;
        }
        let len = usize::try_from(len).map_err(|_| IndexError::Corrupt("too large".into()))?;
        Ok(Bytes::fill(len, |buf| file.read_exact(buf))?)
    }

    /// Holds a copy of `bytes` (tests, fuzzing).
    pub(crate) fn owned(bytes: &[u8]) -> Result<Bytes, IndexError> {
        Ok(Bytes::fill(bytes.len(), |buf| {
            buf.copy_from_slice(bytes);
            Ok(())
        })?)
    }

    /// Anonymous memory of `len` bytes, written by `write`, then made read-only.
    fn fill(len: usize, write: impl FnOnce(&mut [u8]) -> io::Result<()>) -> io::Result<Bytes> {
        let mut map = memmap2::MmapMut::map_anon(len)?;
        // Random lookups miss the TLB far less in 2 MiB pages; advised before the
        // pages are first touched. Best effort.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        write(&mut map[..])?;
        Ok(Bytes(map.make_read_only()?))
    }
}

/// Whether `len` bytes fit in the memory the system has available (`MemAvailable` of
/// `meminfo`, the text of Linux's `/proc/meminfo`): memory is overcommitted, so a larger
/// allocation would succeed and the process be killed as its pages were filled (a
/// serving process on a reload, with the indexes it serves). Without the field, nothing
/// is refused.
pub(crate) fn fits_in_memory(len: u64, meminfo: &str) -> Result<(), IndexError> {
    let available = meminfo.lines().find_map(|l| {
        let kib = l.strip_prefix("MemAvailable:")?.trim().strip_suffix("kB")?;
        kib.trim().parse::<u64>().ok()?.checked_mul(1024)
    });
    match available {
        Some(available) if len > available => Err(IndexError::Memory {
            needs: len,
            available,
        }),
        _ => Ok(()),
    }
}

/// Which tier a file holds, from its first bytes (`None`: not a breach index).
pub fn sniff(path: &Path) -> io::Result<Option<Tier>> {
    sniff_file(&File::open(path)?)
}

/// As [`sniff`], for a file just opened (it reads the first 8 bytes: readers map the
/// file, so its position does not matter).
pub fn sniff_file(mut file: &File) -> io::Result<Option<Tier>> {
    let mut magic = [0u8; 8];
    let mut got = 0;
    while got < 8 {
        match file.read(&mut magic[got..])? {
            0 => return Ok(None),
            n => got += n,
        }
    }
    Ok(match &magic {
        m if m == MAGIC => Some(Tier::Exact),
        m if m == COMPACT_MAGIC => Some(Tier::Compact),
        m if m == FILTER_MAGIC => Some(Tier::Filter),
        _ => None,
    })
}

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

/// Why building a compact index or a filter failed.
#[derive(Debug, thiserror::Error)]
pub enum TierBuildError {
    /// Reading the exact index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Writing failed.
    #[error("cannot write the output")]
    Write(#[source] io::Error),
    /// The filter construction failed (practically impossible for distinct keys).
    #[error("filter construction failed for shard {shard}: {why}")]
    Filter {
        /// The shard.
        shard: u64,
        /// The library's reason.
        why: &'static str,
    },
}

/// Writes `len` zero bytes (section padding).
pub(crate) fn pad_to(w: &mut impl io::Write, at: &mut u64, to: u64) -> io::Result<()> {
    const ZEROS: [u8; 4096] = [0; 4096];
    while *at < to {
        let n = ((to - *at) as usize).min(ZEROS.len());
        w.write_all(&ZEROS[..n])?;
        *at += n as u64;
    }
    Ok(())
}
