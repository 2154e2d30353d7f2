//! The smaller tiers' shared header (`docs/BREACH-FORMAT.md`, "Tier header"): magics,
//! versions, the header's fields and its checks, telling a file's tier from its first
//! bytes, and what writing a tier can fail with.

use super::HashKind;
use super::error::IndexError;
use super::format::{FLAG_PARTIAL, HEADER_SIZE, HeaderError, MAGIC};
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
            super::checked::lookup_sums_match(
                section(self.body_at),
                section(self.lookup_at),
                what,
            )?;
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
