//! Each check made when a compact index or a filter is opened, just inside and just past
//! its bound: the header's own (`TierHeader::decode`), then the compact reader's and the
//! filter's. A file as written opens; one changed past a bound is refused naming it. The
//! header's checksum stops damage before these checks; they stand against a file written
//! by something else, and against a bound loosened or tightened by a later edit (the
//! `tier_reader` fuzz target asks only that nothing panics).

use super::HashKind;
use super::compact::{Compact, ENTRY, GROUP_BITS, MAX_BUCKET_BITS, OVERFLOW_ENTRY};
use super::filter::{DIR_ENTRY, Filter, MAX_SHARD_BITS};
use super::format::{HEADER_SIZE, HeaderError};
use super::index::Index;
use super::tests::{build_bytes, dump_text, random_dump};
use super::tier::{COMPACT_VERSION, FILTER_VERSION, TIER_HEADER_USED, Tier, TierHeader};
use super::tier_tests::{compact_bytes, filter_bytes};
use xxhash_rust::xxh3::xxh3_64;

/// A compact index, a filter and a small filter of the same 500 hashes (a few of them
/// with counts in the compact index's overflow section).
fn files() -> [(Tier, Vec<u8>); 3] {
    let dump = random_dump(500, 13);
    let exact = Index::from_bytes(
        build_bytes(dump_text(HashKind::Sha1, &dump).as_bytes(), None).expect("built"),
    )
    .expect("opened");
    [
        (Tier::Compact, compact_bytes(&exact)),
        (Tier::Filter, filter_bytes(&exact, false, 1)),
        (Tier::FilterSmall, filter_bytes(&exact, true, 1)),
    ]
}

fn header(b: &[u8]) -> TierHeader {
    TierHeader::decode(b, b.len() as u64).expect("the file as written decodes")
}

/// `b` with its header's fields edited by `edit` (and the header checksum renewed).
fn edited(b: &[u8], edit: impl FnOnce(&mut TierHeader)) -> Vec<u8> {
    let mut h = header(b);
    edit(&mut h);
    let mut out = b.to_vec();
    out[..HEADER_SIZE].copy_from_slice(&h.encode());
    out
}

/// `b` with raw header bytes set (and the header checksum renewed).
fn patched(b: &[u8], at: usize, bytes: &[u8]) -> Vec<u8> {
    let mut out = b.to_vec();
    out[at..at + bytes.len()].copy_from_slice(bytes);
    let sum = xxh3_64(&out[..TIER_HEADER_USED]);
    out[TIER_HEADER_USED..TIER_HEADER_USED + 8].copy_from_slice(&sum.to_le_bytes());
    out
}

/// What `TierHeader::decode` says of `b`.
fn decoded(b: &[u8]) -> Result<(), HeaderError> {
    TierHeader::decode(b, b.len() as u64).map(|_| ())
}

/// What opening `b` as its tier says: `Ok` or the error's words.
fn opened(tier: Tier, b: &[u8]) -> Result<(), String> {
    let res = match tier {
        Tier::Compact => Compact::from_slice(b).map(|_| ()),
        _ => Filter::from_slice(b).map(|_| ()),
    };
    res.map_err(|e| e.to_string())
}

#[test]
fn each_check_of_a_tier_header_refuses_just_past_its_bound() {
    let inconsistent = |what| Err(HeaderError::Inconsistent(what));
    for (tier, b) in files() {
        let h = header(&b);
        let len = b.len() as u64;
        assert_eq!(h.tier, tier);
        assert_eq!(opened(tier, &b), Ok(()), "{tier:?} as written");

        // Length, magic, version, checksum.
        assert_eq!(
            decoded(&b[..HEADER_SIZE - 1]),
            Err(HeaderError::Short(HEADER_SIZE as u64 - 1))
        );
        assert_eq!(
            decoded(&patched(&b, 0, b"VKBINDEX")),
            Err(HeaderError::Magic)
        );
        let (name, current) = if tier == Tier::Compact {
            ("compact", COMPACT_VERSION)
        } else {
            ("filter", FILTER_VERSION)
        };
        let version = |v: u32| patched(&b, 8, &v.to_le_bytes());
        assert_eq!(
            decoded(&version(current + 1)),
            Err(HeaderError::Newer(current + 1))
        );
        // The versions before the current one are read (without flags, chunk or lookup
        // sums) back to the oldest still read: compact 2, filters 1.
        let oldest = if tier == Tier::Compact { 2 } else { 1 };
        for v in oldest..current {
            assert_eq!(decoded(&version(v)), Ok(()), "{tier:?} version {v}");
            assert_eq!(opened(tier, &version(v)), Ok(()), "{tier:?} version {v}");
        }
        if oldest > 1 {
            assert_eq!(
                decoded(&version(oldest - 1)),
                Err(HeaderError::Outdated(name, oldest - 1))
            );
        }
        assert_eq!(decoded(&version(0)), Err(HeaderError::Outdated(name, 0)));
        let mut damaged = b.clone();
        damaged[TIER_HEADER_USED - 1] ^= 1;
        assert_eq!(decoded(&damaged), Err(HeaderError::Checksum));

        // Kind, tier and flags.
        assert_eq!(decoded(&patched(&b, 12, &[0])), inconsistent("hash kind"));
        assert_eq!(decoded(&patched(&b, 12, &[3])), inconsistent("hash kind"));
        assert_eq!(decoded(&patched(&b, 13, &[0])), inconsistent("tier"));
        assert_eq!(decoded(&patched(&b, 13, &[4])), inconsistent("tier"));
        let other = if tier == Tier::Compact { 2 } else { 1 };
        assert_eq!(decoded(&patched(&b, 13, &[other])), inconsistent("tier"));
        assert_eq!(decoded(&edited(&b, |h| h.flags = 1)), Ok(()));
        assert!(header(&edited(&b, |h| h.flags = 1)).partial());
        for flags in [2, 3, 1 << 63] {
            assert_eq!(
                decoded(&edited(&b, |h| h.flags = flags)),
                inconsistent("unknown flags"),
                "flags {flags:#x}"
            );
        }

        // The file's length, declared and actual.
        let truncated = |expected, actual| Err(HeaderError::Truncated { expected, actual });
        assert_eq!(
            decoded(&edited(&b, |h| h.file_len += 1)),
            truncated(len + 1, len)
        );
        let past_end = inconsistent("file length (bytes after the end)");
        assert_eq!(decoded(&edited(&b, |h| h.file_len -= 1)), past_end);
        assert_eq!(decoded(&b[..b.len() - 1]), truncated(len, len - 1));
        let mut longer = b.clone();
        longer.push(0);
        assert_eq!(decoded(&longer), past_end);

        // Each section inside the file: from the header's end to the file's.
        type Section = fn(&mut TierHeader) -> &mut (u64, u64);
        let sections: [(&str, Section); 5] = [
            ("body", |h| &mut h.body_at),
            ("overflow", |h| &mut h.overflow_at),
            ("table", |h| &mut h.table_at),
            ("chunk sums", |h| &mut h.sums_at),
            ("lookup sums", |h| &mut h.lookup_at),
        ];
        let bounds = inconsistent("section bounds");
        for (what, section) in sections {
            let place = |off: u64, len: u64| {
                edited(&b, |h| {
                    *section(h) = (off, len);
                    if what == "body" {
                        // Another body length has other lookup blocks: read as the
                        // version before them, which has none (this is about bounds).
                        h.version = current - 1;
                    }
                })
            };
            let at = *section(&mut h.clone());
            let n = at.1.max(8);
            let top = HEADER_SIZE as u64;
            assert_eq!(decoded(&place(top, n)), Ok(()), "{what} first");
            assert_eq!(decoded(&place(top - 1, n)), bounds, "{what} in the header");
            assert_eq!(decoded(&place(len - n, n)), Ok(()), "{what} last");
            assert_eq!(
                decoded(&place(len - n + 1, n)),
                bounds,
                "{what} past the end"
            );
            assert_eq!(decoded(&place(u64::MAX - 7, n)), bounds, "{what} wrapping");
            // An empty section is not placed at all (the lookup sums of a body are never
            // empty: one per 512 bytes).
            let empty = if what == "lookup sums" {
                inconsistent("lookup checksums length")
            } else {
                Ok(())
            };
            assert_eq!(decoded(&place(u64::MAX, 0)), empty, "{what} empty");
        }

        // Entries and group bits.
        assert_eq!(decoded(&edited(&b, |h| h.hashes = h.entries)), Ok(()));
        assert_eq!(
            decoded(&edited(&b, |h| h.hashes = h.entries - 1)),
            inconsistent("entries")
        );
        let grouped = decoded(&edited(&b, |h| h.group_bits = 1));
        if tier == Tier::Compact {
            assert_eq!(grouped, Ok(()));
        } else {
            assert_eq!(grouped, inconsistent("group bits"));
            assert_eq!(decoded(&edited(&b, |h| h.group_bits = 0)), Ok(()));
        }
    }
}

#[test]
fn each_check_of_a_compact_index_at_opening_refuses_just_past_its_bound() {
    let [(tier, b), ..] = files();
    let h = header(&b);
    assert_eq!(tier, Tier::Compact);
    // The file these cases assume: one bucket bit, one group bit, some overflow.
    assert_eq!((h.bits, h.group_bits), (1, 1));
    assert!(h.overflow_at.1 >= OVERFLOW_ENTRY as u64);
    let open = |edit: fn(&mut TierHeader)| opened(tier, &edited(&b, edit));
    let corrupt = |what: &str| Err(format!("corrupted index: {what}"));

    // Bucket bits: the most passes this check (and fails the table's length).
    assert_eq!(
        open(|h| h.bits = MAX_BUCKET_BITS),
        corrupt("bucket table length")
    );
    assert_eq!(
        open(|h| h.bits = MAX_BUCKET_BITS + 1),
        corrupt("bucket bits out of range")
    );

    // The entries section: one entry's bytes a record, and a byte after them.
    let entries = corrupt("entries section length");
    assert_eq!(
        open(|h| {
            h.entries += 1;
            h.hashes += 1;
        }),
        entries
    );
    assert_eq!(open(|h| h.body_at.1 -= 1), entries);
    assert_eq!(open(|h| h.body_at.1 += 1), entries);
    assert_eq!(
        open(|h| {
            h.entries = u64::MAX / ENTRY as u64 + 1;
            h.hashes = u64::MAX;
        }),
        entries
    );

    // Group bits: at most the bucket bits and at most GROUP_BITS.
    assert_eq!(
        open(|h| h.group_bits = 2),
        corrupt("table group bits out of range")
    );
    assert_eq!(open(|h| h.group_bits = 0), corrupt("bucket table length"));
    assert_eq!(
        open(|h| {
            h.bits = GROUP_BITS + 1;
            h.group_bits = GROUP_BITS + 1;
        }),
        corrupt("table group bits out of range")
    );
    assert_eq!(
        open(|h| {
            h.bits = GROUP_BITS + 1;
            h.group_bits = GROUP_BITS;
        }),
        corrupt("bucket table length")
    );

    // The table's length, the overflow entries' size.
    assert_eq!(open(|h| h.table_at.1 += 8), corrupt("bucket table length"));
    assert_eq!(open(|h| h.table_at.1 -= 8), corrupt("bucket table length"));
    assert_eq!(
        open(|h| h.overflow_at.1 -= 1),
        corrupt("overflow section length")
    );
    assert_eq!(
        open(|h| h.overflow_at.1 -= OVERFLOW_ENTRY as u64),
        Ok(()),
        "fewer whole overflow entries (their checksum is checked when one is read)"
    );

    // The bucket table must end at the last entry: one entry fewer is refused.
    assert_eq!(
        open(|h| {
            h.entries -= 1;
            h.body_at.1 -= ENTRY as u64;
        }),
        corrupt("the bucket table does not cover the entries")
    );
}

#[test]
fn each_check_of_a_filter_at_opening_refuses_just_past_its_bound() {
    for (tier, b) in files().into_iter().skip(1) {
        let h = header(&b);
        // The file these cases assume: one shard, its directory entry first.
        assert_eq!(h.bits, 0);
        assert_eq!(h.table_at.1, DIR_ENTRY as u64);
        let open = |edit: fn(&mut TierHeader)| opened(tier, &edited(&b, edit));
        let corrupt = |what: &str| Err(format!("corrupted index: {what}"));

        assert_eq!(
            open(|h| h.bits = MAX_SHARD_BITS),
            corrupt("shard directory length")
        );
        assert_eq!(
            open(|h| h.bits = MAX_SHARD_BITS + 1),
            corrupt("shard bits out of range")
        );
        assert_eq!(
            open(|h| h.table_at.1 -= 8),
            corrupt("shard directory length")
        );
        assert_eq!(
            open(|h| h.table_sum ^= 1),
            corrupt("shard directory checksum mismatch")
        );

        // The shard's directory entry: edited in place, its checksum renewed.
        let dir = h.table_at.0 as usize;
        let u32_at = |o: usize| u32::from_le_bytes(b[dir + o..dir + o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(b[dir + o..dir + o + 8].try_into().unwrap());
        let (seg_len, seg_count_len) = (u64::from(u32_at(8)), u64::from(u32_at(16)));
        let (off, fps) = (u64_at(24), u64_at(32));
        let width = if tier == Tier::FilterSmall { 1 } else { 2 };
        let body_end = h.body_at.0 + h.body_at.1;
        assert!(fps > 0 && off % 8 == 0);
        // `grow`: bytes added to the body section's length (the file has room after it).
        let shard_in = |grow: u64, edits: &[(usize, u64)]| {
            let mut out = b.clone();
            for &(o, v) in edits {
                let w = if o < 24 { 4 } else { 8 };
                out[dir + o..dir + o + w].copy_from_slice(&v.to_le_bytes()[..w]);
            }
            let sum = xxh3_64(&out[dir..dir + DIR_ENTRY]);
            let out = edited(&out, |h| {
                h.table_sum = sum;
                h.body_at.1 += grow;
                if grow > 0 {
                    // A longer body has other lookup blocks: read as the version before
                    // them (what these checks are about is the same in both).
                    h.version = FILTER_VERSION - 1;
                }
            });
            opened(tier, &out)
        };
        let shard = |edits: &[(usize, u64)]| shard_in(0, edits);
        let bad = |what: &str| corrupt(&format!("shard 0: {what}"));
        assert_eq!(shard(&[]), Ok(()));
        // Segments: a power of two long, masked by one less.
        assert_eq!(shard(&[(8, 3), (12, 2)]), bad("bad segment length"));
        assert_eq!(shard(&[(12, seg_len)]), bad("bad segment length"));
        assert_eq!(
            shard(&[(8, 0), (12, u64::from(u32::MAX))]),
            bad("bad segment length")
        );
        // The fingerprints reach every probe: as many as the segments span, not one fewer.
        let reach = seg_count_len + 2 * seg_len;
        assert!(reach <= fps);
        let cover = bad("fingerprints do not cover the segments");
        assert_eq!(shard(&[(16, fps - 2 * seg_len + 1)]), cover);
        assert_eq!(shard(&[(32, reach - 1)]), cover);
        assert_eq!(shard(&[(32, reach)]), Ok(()));
        // The fingerprints inside the body, at an 8-byte boundary, their length in 64 bits.
        let outside = bad("fingerprints outside the body");
        let last = (body_end - fps * width) / 8 * 8;
        // Moved by 8 bytes inside a body 8 bytes longer: read; by 1 byte: misaligned.
        assert!(body_end + 8 <= b.len() as u64);
        assert_eq!(shard_in(8, &[(24, last + 8)]), Ok(()));
        assert_eq!(shard_in(8, &[(24, off + 1)]), outside, "misaligned");
        assert_eq!(shard(&[(24, h.body_at.0 - 8)]), outside, "before the body");
        assert_eq!(shard(&[(24, last)]), Ok(()), "the last aligned place");
        assert_eq!(shard(&[(24, last + 8)]), outside, "past the body");
        assert_eq!(shard(&[(32, u64::MAX)]), bad("length"));
        assert_eq!(shard(&[(24, u64::MAX - 7)]), bad("length"));
    }
}
