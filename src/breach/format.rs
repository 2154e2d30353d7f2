//! The index file format, version 3 (`docs/BREACH-FORMAT.md`; versions 1 and 2 are read
//! too): header, parameters and record packing.

use super::HashKind;
use xxhash_rust::xxh3::xxh3_64;

/// Bytes of a verified chunk of a bucket table (its checksums: one XXH3-64 a chunk).
pub const CHUNK: usize = 4096;

/// Bytes of a lookup block: the records of an exact index, the entries of a compact
/// one and the fingerprints of a filter are verified in blocks of this size, each
/// against the low 32 bits of its XXH3-64, before a lookup answers from it.
pub const LOOKUP_BLOCK: usize = 512;

/// Bytes of a lookup block's checksum.
pub const LOOKUP_SUM: usize = 4;

/// The magic at the start of every index.
pub const MAGIC: &[u8; 8] = b"VKBREACH";
/// The format version this code writes (it reads 1 and 2 too).
pub const VERSION: u32 = 3;
/// Header flag: the index was built from an incomplete set of ranges (`--allow-partial`).
pub const FLAG_PARTIAL: u64 = 1;
/// The header's size on disk.
pub const HEADER_SIZE: usize = 4096;
/// The header bytes covered by the header checksum.
pub const HEADER_USED: usize = 248;
/// Section alignment.
pub const ALIGN: u64 = 4096;
/// Records per checksum block.
pub const BLOCK_SIZE: u64 = 16 << 20;
/// Buckets per group base.
pub const GROUP_BITS: u32 = 16;
/// The most table bits.
pub const MAX_TABLE_BITS: u32 = 26;
/// Records seen before the table bits are chosen.
pub const ESTIMATE_RECORDS: usize = 65_536;
/// Bytes of an overflow entry.
pub const OVERFLOW_ENTRY: usize = 16;

/// The parameters that shape the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// The hash kind.
    pub kind: HashKind,
    /// Table bits `b`.
    pub table_bits: u32,
    /// Count bits `c`.
    pub count_bits: u32,
    /// Record size `S`.
    pub record_size: usize,
}

impl Params {
    /// The parameters for table bits `b`.
    pub fn new(kind: HashKind, table_bits: u32) -> Params {
        let h = kind.len() as u32 * 8;
        let record_size = (h - table_bits + 12).div_ceil(8);
        Params {
            kind,
            table_bits,
            count_bits: record_size * 8 - (h - table_bits),
            record_size: record_size as usize,
        }
    }

    /// Table bits for an estimated number of records.
    pub fn table_bits_for(estimate: u64) -> u32 {
        if estimate < 128 {
            0
        } else {
            (estimate.ilog2() - 6).min(MAX_TABLE_BITS)
        }
    }

    /// The largest value of a record's count field: it means "see the overflow section".
    pub fn saturated(&self) -> u64 {
        (1u64 << self.count_bits) - 1
    }

    /// Number of buckets.
    pub fn buckets(&self) -> u64 {
        1u64 << self.table_bits
    }

    /// Number of group bases.
    pub fn groups(&self) -> u64 {
        (self.buckets() >> GROUP_BITS) + 1
    }

    /// Length of the table section.
    pub fn table_len(&self) -> u64 {
        self.groups() * 8 + (self.buckets() + 1) * 4
    }

    /// The bucket of a hash.
    #[inline]
    pub fn bucket(&self, hash: &Wide) -> u64 {
        if self.table_bits == 0 {
            0
        } else {
            hash.0[0] >> (64 - self.table_bits)
        }
    }

    /// The 32 bits of a hash that follow its bucket bits, for interpolation.
    #[inline]
    pub fn fraction(&self, hash: &Wide) -> u64 {
        hash.shl(self.table_bits).0[0] >> 32
    }

    /// The record key of a hash: the record with its count field zero, left-aligned in
    /// 192 bits.
    #[inline]
    pub fn key(&self, hash: &Wide) -> Wide {
        // The hash without its top b bits, left-aligned, cut to the record's bits.
        hash.shl(self.table_bits).and(&self.key_mask())
    }

    /// The mask that keeps the key bits of 24 bytes read from a record's start (the
    /// record's S bytes and whatever follows it).
    pub fn key_of_window_mask(&self) -> Wide {
        self.key_mask()
    }

    /// The bits of a left-aligned record that hold the key.
    #[inline]
    fn key_mask(&self) -> Wide {
        Wide([u64::MAX; 3]).keep_top(self.record_size as u32 * 8 - self.count_bits)
    }

    /// Where the count field sits in the low 128 bits of a left-aligned record.
    #[inline]
    fn field_shift(&self) -> u32 {
        192 - self.record_size as u32 * 8
    }

    /// Writes the record of `hash` with count field `field` into `out`, which must have
    /// room for 24 bytes (the record's S bytes, then bytes the next record overwrites).
    #[inline]
    pub fn pack(&self, hash: &Wide, field: u64, out: &mut [u8]) {
        let w = self.key(hash);
        // The count field is the low c bits of the S-byte record, left-aligned in 192.
        let low = ((u128::from(w.0[1]) << 64) | u128::from(w.0[2]))
            | (u128::from(field) << self.field_shift());
        out[..8].copy_from_slice(&w.0[0].to_be_bytes());
        out[8..24].copy_from_slice(&low.to_be_bytes());
    }

    /// Reads record bytes (S of them) into (key, count field).
    #[inline]
    pub fn unpack(&self, record: &[u8]) -> (Wide, u64) {
        let w = Wide::from_be_prefix(&record[..self.record_size]);
        let low = (u128::from(w.0[1]) << 64) | u128::from(w.0[2]);
        let field = (low >> self.field_shift()) as u64 & self.saturated();
        (w.and(&self.key_mask()), field)
    }

    /// Rebuilds the full hash of a record in bucket `bucket` (for verification and
    /// export).
    pub fn hash_of(&self, bucket: u64, key: &Wide) -> Wide {
        let top = if self.table_bits == 0 {
            Wide([0, 0, 0])
        } else {
            Wide([bucket << (64 - self.table_bits), 0, 0])
        };
        top.or(key.shr(self.table_bits))
            .keep_top(self.kind.len() as u32 * 8)
    }
}

/// A 192-bit big-endian value in three words, most significant first: hashes (20 or 16
/// bytes) and records (up to 22 bytes) left-aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Wide(pub [u64; 3]);

impl Wide {
    /// Left-aligns big-endian bytes (at most 24).
    #[inline]
    pub fn from_be_prefix(bytes: &[u8]) -> Wide {
        if bytes.len() >= 16 {
            let be = |at: usize| u64::from_be_bytes(bytes[at..at + 8].try_into().expect("8"));
            // SHA-1 hashes and NTLM hashes, without a copy of the tail.
            if bytes.len() == 20 {
                let tail = u32::from_be_bytes(bytes[16..20].try_into().expect("4"));
                return Wide([be(0), be(8), u64::from(tail) << 32]);
            }
            if bytes.len() == 16 {
                return Wide([be(0), be(8), 0]);
            }
            // The last 8 bytes, shifted so that byte 16 leads: no copy of a variable
            // length (a call to memcpy for each record read).
            let n = bytes.len().min(24);
            let last = u64::from_be_bytes(bytes[n - 8..n].try_into().expect("8"));
            return Wide([be(0), be(8), last << (8 * (24 - n))]);
        }
        let mut b = [0u8; 24];
        b[..bytes.len()].copy_from_slice(bytes);
        Wide([
            u64::from_be_bytes(b[..8].try_into().expect("8")),
            u64::from_be_bytes(b[8..16].try_into().expect("8")),
            u64::from_be_bytes(b[16..].try_into().expect("8")),
        ])
    }

    /// The 24 big-endian bytes.
    #[inline]
    pub fn to_be_bytes(&self) -> [u8; 24] {
        let mut b = [0u8; 24];
        b[..8].copy_from_slice(&self.0[0].to_be_bytes());
        b[8..16].copy_from_slice(&self.0[1].to_be_bytes());
        b[16..].copy_from_slice(&self.0[2].to_be_bytes());
        b
    }

    /// Shift left by `s` < 64 bits, dropping the top bits.
    #[inline]
    pub fn shl(&self, s: u32) -> Wide {
        debug_assert!(s < 64);
        let w = self.0;
        // `(x >> 1) >> (63 - s)` is `x >> (64 - s)`, and 0 for s = 0.
        let carry = |x: u64| (x >> 1) >> (63 - s);
        Wide([
            (w[0] << s) | carry(w[1]),
            (w[1] << s) | carry(w[2]),
            w[2] << s,
        ])
    }

    /// Bitwise and.
    #[inline]
    pub fn and(&self, other: &Wide) -> Wide {
        Wide([
            self.0[0] & other.0[0],
            self.0[1] & other.0[1],
            self.0[2] & other.0[2],
        ])
    }

    /// Shift right by `s` < 64 bits.
    #[inline]
    pub fn shr(&self, s: u32) -> Wide {
        debug_assert!(s < 64);
        let w = self.0;
        // `(x << 1) << (63 - s)` is `x << (64 - s)`, and 0 for s = 0.
        let carry = |x: u64| (x << 1) << (63 - s);
        Wide([
            w[0] >> s,
            (w[1] >> s) | carry(w[0]),
            (w[2] >> s) | carry(w[1]),
        ])
    }

    /// Keeps the top `bits` bits, zeroing the rest.
    #[inline]
    pub fn keep_top(&self, bits: u32) -> Wide {
        let mut out = self.0;
        for (i, w) in out.iter_mut().enumerate() {
            let lo = i as u32 * 64;
            if bits <= lo {
                *w = 0;
            } else if bits < lo + 64 {
                *w &= !(u64::MAX >> (bits - lo));
            }
        }
        Wide(out)
    }

    /// Bitwise or.
    #[inline]
    pub fn or(&self, other: Wide) -> Wide {
        Wide([
            self.0[0] | other.0[0],
            self.0[1] | other.0[1],
            self.0[2] | other.0[2],
        ])
    }
}

/// The decoded header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Record parameters.
    pub params: Params,
    /// Records.
    pub records: u64,
    /// Overflow entries.
    pub overflow_entries: u64,
    /// The largest count.
    pub max_count: u64,
    /// The sum of all counts, saturating.
    pub total_count: u64,
    /// (offset, length) of the records section.
    pub records_at: (u64, u64),
    /// (offset, length) of the overflow section.
    pub overflow_at: (u64, u64),
    /// (offset, length) of the table section.
    pub table_at: (u64, u64),
    /// (offset, length) of the block checksums.
    pub blocks_at: (u64, u64),
    /// Checksum of the overflow section.
    pub overflow_sum: u64,
    /// Checksum of the table section.
    pub table_sum: u64,
    /// Checksum of the block checksums.
    pub blocks_sum: u64,
    /// The file's length.
    pub file_len: u64,
    /// The format version (1 to 3).
    pub version: u32,
    /// Flags ([`FLAG_PARTIAL`]); 0 in version 1.
    pub flags: u64,
    /// (offset, length) of the bucket table's chunk checksums (from version 2; empty
    /// in 1).
    pub sums_at: (u64, u64),
    /// (offset, length) of the records' lookup block checksums (from version 3; empty
    /// before: such records are read unverified, as those versions promised).
    pub lookup_at: (u64, u64),
}

impl Header {
    /// Whether the index was built from an incomplete set of ranges.
    pub fn partial(&self) -> bool {
        self.flags & FLAG_PARTIAL != 0
    }
}

/// Why a header was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// Shorter than a header.
    #[error("too short to be a breach index ({0} bytes)")]
    Short(u64),
    /// Another kind of file.
    #[error("not a veilkit breach index (wrong magic)")]
    Magic,
    /// A newer format.
    #[error("index format version {0} is newer than this veilkit understands; upgrade veilkit")]
    Newer(u32),
    /// An unknown older format.
    #[error("unknown index format version {0}")]
    Version(u32),
    /// An older format of a smaller tier, no longer read: rebuild from the exact index.
    #[error("{0} index format version {1} is no longer read; rebuild it from the exact index")]
    Outdated(&'static str, u32),
    /// The header checksum failed.
    #[error("header checksum mismatch: the file is corrupted")]
    Checksum,
    /// A field is inconsistent.
    #[error("inconsistent header: {0}")]
    Inconsistent(&'static str),
    /// Sections past the end of the file.
    #[error("truncated: the header says {expected} bytes, the file has {actual}")]
    Truncated {
        /// What the header declares.
        expected: u64,
        /// What the file has.
        actual: u64,
    },
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn get_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Rounds up to the section alignment.
pub fn align(v: u64) -> u64 {
    v.div_ceil(ALIGN) * ALIGN
}

impl Header {
    /// A fingerprint of the data this index holds (its kind, size and section
    /// checksums): files derived from it (compact indexes, filters) record it, so that a
    /// filter is never paired with another index.
    pub fn identity(&self) -> u64 {
        let mut b = Vec::with_capacity(48);
        for v in [
            u64::from(self.params.kind.code()),
            self.records,
            self.total_count,
            self.overflow_sum,
            self.table_sum,
            self.blocks_sum,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        xxh3_64(&b)
    }

    /// The 4096 header bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; HEADER_SIZE];
        b[..8].copy_from_slice(MAGIC);
        b[8..12].copy_from_slice(&self.version.to_le_bytes());
        b[12] = self.params.kind.code();
        b[13] = self.params.kind.len() as u8;
        b[14] = self.params.table_bits as u8;
        b[15] = self.params.count_bits as u8;
        b[16] = self.params.record_size as u8;
        put_u64(&mut b, 24, self.records);
        put_u64(&mut b, 32, self.overflow_entries);
        put_u64(&mut b, 40, self.max_count);
        put_u64(&mut b, 48, self.total_count);
        for (at, (off, len)) in [
            (56, self.records_at),
            (72, self.overflow_at),
            (88, self.table_at),
            (104, self.blocks_at),
        ] {
            put_u64(&mut b, at, off);
            put_u64(&mut b, at + 8, len);
        }
        put_u64(&mut b, 120, BLOCK_SIZE);
        put_u64(&mut b, 128, self.overflow_sum);
        put_u64(&mut b, 136, self.table_sum);
        put_u64(&mut b, 144, self.blocks_sum);
        put_u64(&mut b, 152, self.file_len);
        put_u64(&mut b, 160, self.flags);
        put_u64(&mut b, 168, self.sums_at.0);
        put_u64(&mut b, 176, self.sums_at.1);
        if self.version >= 3 {
            put_u64(&mut b, 184, self.lookup_at.0);
            put_u64(&mut b, 192, self.lookup_at.1);
            put_u64(&mut b, 200, LOOKUP_BLOCK as u64);
        }
        let sum = xxh3_64(&b[..HEADER_USED]);
        put_u64(&mut b, HEADER_USED, sum);
        b
    }

    /// Decodes and checks a header against the file's length.
    pub fn decode(b: &[u8], file_len: u64) -> Result<Header, HeaderError> {
        if b.len() < HEADER_SIZE {
            return Err(HeaderError::Short(file_len));
        }
        if &b[..8] != MAGIC {
            return Err(HeaderError::Magic);
        }
        let version = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
        if version > VERSION {
            return Err(HeaderError::Newer(version));
        }
        if version == 0 {
            return Err(HeaderError::Version(version));
        }
        if xxh3_64(&b[..HEADER_USED]) != get_u64(b, HEADER_USED) {
            return Err(HeaderError::Checksum);
        }
        let kind = HashKind::from_code(b[12]).ok_or(HeaderError::Inconsistent("hash kind"))?;
        if usize::from(b[13]) != kind.len() {
            return Err(HeaderError::Inconsistent("hash length"));
        }
        let table_bits = u32::from(b[14]);
        if table_bits > MAX_TABLE_BITS {
            return Err(HeaderError::Inconsistent("table bits"));
        }
        let params = Params::new(kind, table_bits);
        if u32::from(b[15]) != params.count_bits || usize::from(b[16]) != params.record_size {
            return Err(HeaderError::Inconsistent("record size"));
        }
        if get_u64(b, 120) != BLOCK_SIZE {
            return Err(HeaderError::Inconsistent("block size"));
        }
        let h = Header {
            params,
            records: get_u64(b, 24),
            overflow_entries: get_u64(b, 32),
            max_count: get_u64(b, 40),
            total_count: get_u64(b, 48),
            records_at: (get_u64(b, 56), get_u64(b, 64)),
            overflow_at: (get_u64(b, 72), get_u64(b, 80)),
            table_at: (get_u64(b, 88), get_u64(b, 96)),
            blocks_at: (get_u64(b, 104), get_u64(b, 112)),
            overflow_sum: get_u64(b, 128),
            table_sum: get_u64(b, 136),
            blocks_sum: get_u64(b, 144),
            file_len: get_u64(b, 152),
            version,
            flags: if version >= 2 { get_u64(b, 160) } else { 0 },
            sums_at: if version >= 2 {
                (get_u64(b, 168), get_u64(b, 176))
            } else {
                (0, 0)
            },
            lookup_at: if version >= 3 {
                (get_u64(b, 184), get_u64(b, 192))
            } else {
                (0, 0)
            },
        };
        if version >= 3 && get_u64(b, 200) != LOOKUP_BLOCK as u64 {
            return Err(HeaderError::Inconsistent("lookup block size"));
        }
        if h.flags & !FLAG_PARTIAL != 0 {
            return Err(HeaderError::Inconsistent("unknown flags"));
        }
        h.check(file_len)?;
        Ok(h)
    }

    fn check(&self, file_len: u64) -> Result<(), HeaderError> {
        let inconsistent = HeaderError::Inconsistent;
        let s = self.params.record_size as u64;
        if self.records.checked_mul(s) != Some(self.records_at.1) {
            return Err(inconsistent("records length"));
        }
        if self.overflow_entries.checked_mul(OVERFLOW_ENTRY as u64) != Some(self.overflow_at.1) {
            return Err(inconsistent("overflow length"));
        }
        if self.overflow_entries > self.records {
            return Err(inconsistent("overflow entries"));
        }
        if self.table_at.1 != self.params.table_len() {
            return Err(inconsistent("table length"));
        }
        if self.blocks_at.1 != self.records_at.1.div_ceil(BLOCK_SIZE) * 8 {
            return Err(inconsistent("block checksums length"));
        }
        let mut end = HEADER_SIZE as u64;
        let mut sections = vec![
            self.records_at,
            self.overflow_at,
            self.table_at,
            self.blocks_at,
        ];
        if self.version >= 2 {
            if self.sums_at.1 != self.table_at.1.div_ceil(CHUNK as u64) * 8 {
                return Err(inconsistent("table checksums length"));
            }
            sections.push(self.sums_at);
        }
        if self.version >= 3 {
            let blocks = self.records_at.1.div_ceil(LOOKUP_BLOCK as u64);
            if self.lookup_at.1 != blocks * LOOKUP_SUM as u64 {
                return Err(inconsistent("lookup checksums length"));
            }
            sections.push(self.lookup_at);
        }
        for (off, len) in sections {
            if off % ALIGN != 0 || off < end {
                return Err(inconsistent("section offsets"));
            }
            end = off
                .checked_add(len)
                .ok_or(inconsistent("section lengths"))?;
        }
        if self.file_len != end {
            return Err(inconsistent("file length"));
        }
        if file_len < self.file_len {
            return Err(HeaderError::Truncated {
                expected: self.file_len,
                actual: file_len,
            });
        }
        if file_len > self.file_len {
            return Err(inconsistent("trailing bytes after the last section"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod header_tests;

/// Range prefixes: 5 hex digits.
pub const PREFIXES: u32 = 1 << 20;

/// The 20-bit range prefix of a hash.
pub fn prefix_of(hash: &Wide) -> u32 {
    (hash.0[0] >> 44) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parameters_at_the_documented_sizes() {
        let p = Params::new(HashKind::Sha1, 20);
        assert_eq!((p.record_size, p.count_bits), (19, 12));
        assert_eq!(p.table_len(), 17 * 8 + ((1 << 20) + 1) * 4);
        let p = Params::new(HashKind::Sha1, 24);
        assert_eq!((p.record_size, p.count_bits), (19, 16));
        let p = Params::new(HashKind::Sha1, 0);
        assert_eq!((p.record_size, p.count_bits), (22, 16));
        let p = Params::new(HashKind::Ntlm, 20);
        assert_eq!((p.record_size, p.count_bits), (15, 12));
        assert_eq!(Params::table_bits_for(100_000_000), 20);
        assert_eq!(Params::table_bits_for(2_200_000_000), 25);
        assert_eq!(Params::table_bits_for(127), 0);
        assert_eq!(Params::table_bits_for(128), 1);
        assert_eq!(Params::table_bits_for(u64::MAX), 26);
        for b in 0..=MAX_TABLE_BITS {
            for kind in [HashKind::Sha1, HashKind::Ntlm] {
                let p = Params::new(kind, b);
                assert!((12..=19).contains(&p.count_bits), "{kind:?} {b}");
                assert!(p.record_size <= 22);
            }
        }
    }

    proptest! {
        /// Any prefix of up to 24 bytes is left-aligned as a zero-padded copy would be.
        #[test]
        fn a_prefix_reads_as_its_zero_padded_copy(bytes in proptest::collection::vec(any::<u8>(), 0..=24)) {
            let mut b = [0u8; 24];
            b[..bytes.len()].copy_from_slice(&bytes);
            let word = |i: usize| u64::from_be_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
            prop_assert_eq!(Wide::from_be_prefix(&bytes), Wide([word(0), word(1), word(2)]));
        }

        #[test]
        fn records_pack_and_unpack(hash in any::<[u8; 20]>(), count in any::<u64>(), b in 0u32..=26, ntlm in any::<bool>()) {
            let kind = if ntlm { HashKind::Ntlm } else { HashKind::Sha1 };
            let p = Params::new(kind, b);
            let h = Wide::from_be_prefix(&hash[..kind.len()]);
            let field = count.min(p.saturated());
            let mut rec = [0u8; 24];
            p.pack(&h, field, &mut rec);
            let (key, f) = p.unpack(&rec);
            prop_assert_eq!(f, field);
            prop_assert_eq!(key, p.key(&h));
            prop_assert_eq!(p.hash_of(p.bucket(&h), &key), h);
        }

        #[test]
        fn record_order_is_hash_order_within_a_bucket(a in any::<[u8; 20]>(), b2 in any::<[u8; 20]>(), bits in 0u32..=26) {
            let p = Params::new(HashKind::Sha1, bits);
            let (ha, hb) = (Wide::from_be_prefix(&a), Wide::from_be_prefix(&b2));
            if p.bucket(&ha) == p.bucket(&hb) {
                prop_assert_eq!(ha.cmp(&hb), p.key(&ha).cmp(&p.key(&hb)));
            }
        }
    }
}
