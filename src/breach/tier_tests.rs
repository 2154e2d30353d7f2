//! Tests of the compact and filter tiers against simple references.

use super::HashKind;
use super::compact::{self, Compact};
use super::filter::{self, Filter};
use super::format::Wide;
use super::index::Index;
use super::tests::{VECTOR_DUMP, build_bytes, dump_text, random_dump};
use super::tier::{AnyIndex, PairError, Tier};
use crate::progress::NoProgress;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::io::{Read, Seek};

fn exact(kind: HashKind, records: &BTreeMap<Vec<u8>, u64>) -> Index {
    Index::from_bytes(build_bytes(dump_text(kind, records).as_bytes(), None).unwrap()).unwrap()
}

fn file_bytes(mut f: std::fs::File) -> Vec<u8> {
    f.rewind().unwrap();
    let mut v = Vec::new();
    f.read_to_end(&mut v).unwrap();
    v
}

pub(crate) fn compact_bytes(index: &Index) -> Vec<u8> {
    let mut out = tempfile::tempfile().unwrap();
    compact::build(index, &mut out, &NoProgress).unwrap();
    file_bytes(out)
}

pub(crate) fn filter_bytes(index: &Index, small: bool, threads: usize) -> Vec<u8> {
    let mut out = tempfile::tempfile().unwrap();
    filter::build(index, small, threads, &mut out, &NoProgress).unwrap();
    file_bytes(out)
}

/// The reference truncated key: the hash's first `bits` bits as a number.
fn truncated(hash: &[u8], bits: u32) -> u128 {
    let mut b = [0u8; 16];
    b.copy_from_slice(&hash[..16]);
    u128::from_be_bytes(b) >> (128 - bits)
}

fn probes(kind: HashKind, records: &BTreeMap<Vec<u8>, u64>) -> Vec<Vec<u8>> {
    let mut probes: Vec<Vec<u8>> = Vec::new();
    for h in records.keys() {
        probes.push(h.clone());
        for (pos, delta) in [(kind.len() - 1, 1i16), (5, -1), (0, 1), (0, -1)] {
            let mut p = h.clone();
            p[pos] = (i16::from(p[pos]) + delta).rem_euclid(256) as u8;
            probes.push(p);
        }
    }
    probes.push(vec![0; kind.len()]);
    probes.push(vec![0xff; kind.len()]);
    probes
}

fn check_compact(kind: HashKind, records: &BTreeMap<Vec<u8>, u64>) {
    let index = exact(kind, records);
    let c = Compact::from_slice(&compact_bytes(&index)).unwrap();
    let bits = c.header().bits + compact::SUFFIX_BITS;
    // Reference: counts summed per truncated key.
    let mut by_key: BTreeMap<u128, u64> = BTreeMap::new();
    for (h, n) in records {
        let e = by_key.entry(truncated(h, bits)).or_default();
        *e = e.saturating_add(*n);
    }
    assert_eq!(c.header().entries, by_key.len() as u64);
    let ps = probes(kind, records);
    let hashes: Vec<Wide> = ps.iter().map(|p| Wide::from_be_prefix(p)).collect();
    let mut counts = vec![0; hashes.len()];
    c.lookup_many(&hashes, &mut counts).unwrap();
    for ((p, h), got) in ps.iter().zip(&hashes).zip(&counts) {
        let want = by_key.get(&truncated(p, bits)).copied().unwrap_or(0);
        assert_eq!(c.lookup(h).unwrap(), want);
        assert_eq!(c.lookup_scan(h).unwrap(), want);
        assert_eq!(*got, want);
        if let Some(exact) = records.get(p) {
            // Present hashes: their exact count unless another shares the key.
            assert!(want >= *exact);
        }
    }
    assert_eq!(c.verify(&NoProgress).unwrap(), by_key.len() as u64);
}

fn hash_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 20),
        // Clustered: long shared prefixes, up to the truncation point and past it.
        (proptest::collection::vec(any::<u8>(), 20), 1usize..12).prop_map(|(mut v, n)| {
            for b in &mut v[..n] {
                *b = 0x5a;
            }
            v
        }),
        Just(vec![0u8; 20]),
        Just(vec![0xffu8; 20]),
    ]
}

fn counts_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![
        1u64..20,
        (compact::COUNT_IN_OVERFLOW - 2)..=(compact::COUNT_IN_OVERFLOW + 2),
        Just(u64::MAX),
        Just(42_000_000u64),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn compact_lookups_match_truncated_keys(
        ntlm in any::<bool>(),
        entries in proptest::collection::vec((hash_strategy(), counts_strategy()), 1..600),
    ) {
        let kind = if ntlm { HashKind::Ntlm } else { HashKind::Sha1 };
        let records: BTreeMap<Vec<u8>, u64> =
            entries.into_iter().map(|(h, c)| (h[..kind.len()].to_vec(), c)).collect();
        check_compact(kind, &records);
    }

    #[test]
    fn filters_have_no_false_negatives(
        small in any::<bool>(),
        entries in proptest::collection::vec((hash_strategy(), 1u64..9), 1..600),
    ) {
        let records: BTreeMap<Vec<u8>, u64> = entries.into_iter().collect();
        let index = exact(HashKind::Sha1, &records);
        let f = Filter::from_slice(&filter_bytes(&index, small, 2)).unwrap();
        let hashes: Vec<Wide> = records.keys().map(|h| Wide::from_be_prefix(h)).collect();
        let mut got = vec![0; hashes.len()];
        f.contains_many(&hashes, &mut got).unwrap();
        for (h, g) in hashes.iter().zip(&got) {
            prop_assert!(f.contains(h).unwrap());
            prop_assert!(f.contains_by_xorf(h));
            prop_assert_eq!(*g, 1);
        }
        // The membership test veilkit runs (with its blocks verified) answers as the
        // xorf crate's own, for absent keys too.
        for h in &hashes {
            for flip in [1u64, 1 << 20, 1 << 40, 1 << 63] {
                let other = Wide([h.0[0] ^ flip, h.0[1], h.0[2]]);
                prop_assert_eq!(f.contains(&other).unwrap(), f.contains_by_xorf(&other));
            }
        }
        f.verify().unwrap();
    }

    /// Damaged compact indexes and filters never panic; truncated ones are refused.
    #[test]
    fn damaged_tiers_never_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        which in 0u8..3,
    ) {
        let records = random_dump(700, 99);
        let index = exact(HashKind::Sha1, &records);
        let good = match which {
            0 => compact_bytes(&index),
            1 => filter_bytes(&index, false, 1),
            _ => filter_bytes(&index, true, 1),
        };
        let mut bad = good.clone();
        for (at, x) in &flips {
            let i = at.index(bad.len());
            bad[i] ^= x | 1;
        }
        let probe: Vec<Wide> = records.keys().take(100).map(|h| Wide::from_be_prefix(h)).collect();
        if let Ok(c) = Compact::from_slice(&bad) {
            for h in &probe {
                let _ = c.lookup(h);
            }
            let mut counts = vec![0; probe.len()];
            let _ = c.lookup_many(&probe, &mut counts);
            let _ = c.verify(&NoProgress);
        }
        if let Ok(f) = Filter::from_slice(&bad) {
            for h in &probe {
                let _ = f.contains(h);
            }
            let _ = f.verify();
        }
        let cut_at = cut.index(good.len());
        prop_assert!(Compact::from_slice(&good[..cut_at]).is_err());
        prop_assert!(Filter::from_slice(&good[..cut_at]).is_err());
        // Bytes after the end are refused as well.
        let mut longer = good.clone();
        longer.push(0);
        prop_assert!(Compact::from_slice(&longer).is_err());
        prop_assert!(Filter::from_slice(&longer).is_err());
    }
}

#[test]
fn compact_counts_past_the_entry_field_and_colliding_keys() {
    let mut records = random_dump(5000, 7);
    // Two hashes equal in their first 15 bytes share any truncated key.
    let mut a = vec![0x12u8; 20];
    a[19] = 1;
    let mut b = a.clone();
    b[19] = 2;
    records.insert(a.clone(), 40_000);
    records.insert(b, 3);
    check_compact(HashKind::Sha1, &records);
    let index = exact(HashKind::Sha1, &records);
    let c = Compact::from_slice(&compact_bytes(&index)).unwrap();
    assert_eq!(c.header().collisions, 1);
    assert_eq!(c.lookup(&Wide::from_be_prefix(&a)).unwrap(), 40_003);
    // 7 bytes per hash and the table, plus 24 bytes per large count (most of them here).
    let h = c.header();
    let per_hash = (h.body_at.1 + h.table_at.1) as f64 / 5002.0;
    assert!(per_hash < 7.07, "{per_hash}");
    let large = records.values().filter(|&&n| n > 16382).count() as u64;
    assert_eq!(h.overflow_at.1, large * compact::OVERFLOW_ENTRY as u64);
    let fp = c.false_positive_rate();
    assert!(fp > 1e-11 && fp < 1e-10, "{fp}");
}

/// Skewed buckets, where the interpolated guess misses by far more than the window
/// search's half window: every key is still found, from the window's either side, and
/// absent neighbours are still absent.
#[test]
fn compact_lookups_where_the_guess_misses_the_window() {
    let mut records = random_dump(4096, 11);
    // 300 hashes packed at the bottom of one bucket's range (top 5 bits of 4,697 hashes:
    // 32 buckets) and one at its top, and 300 at the top of another's: their guesses
    // land a whole window or more from them, on both sides.
    for i in 0..300u16 {
        let mut low = vec![0x40u8, 0, 0, 0];
        low.extend_from_slice(&i.to_be_bytes());
        low.resize(20, 0x11);
        records.insert(low, u64::from(i) + 1);
        let mut high = vec![0x87u8, 0xff, 0xff, 0xfe];
        high.extend_from_slice(&i.to_be_bytes());
        high.resize(20, 0x22);
        records.insert(high, 7);
    }
    let mut top = vec![0x47u8, 0xff, 0xff, 0xff];
    top.resize(20, 0x33);
    records.insert(top, 9);
    check_compact(HashKind::Sha1, &records);
}

#[test]
fn filter_sizes_and_false_positive_rates() {
    // 2^20 + 1 keys: two shards, the second nearly empty.
    let n = (1usize << 20) + 1;
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut keys: Vec<u64> = (0..n).map(|_| next()).collect();
    keys.sort_unstable();
    keys.dedup();
    let text: String = keys
        .iter()
        .map(|k| format!("{k:016X}{:024X}:1\n", 0))
        .collect();
    let index =
        Index::from_bytes(build_bytes(text.as_bytes(), Some(HashKind::Sha1)).unwrap()).unwrap();
    for (small, max_bytes, rate) in [(false, 2.32, 2f64.powi(-16)), (true, 1.21, 2f64.powi(-8))] {
        let bytes = filter_bytes(&index, small, 2);
        let f = Filter::from_slice(&bytes).unwrap();
        assert_eq!(f.header().bits, 1);
        assert_eq!(f.header().entries, keys.len() as u64);
        let per_hash = (bytes.len() - 4096) as f64 / keys.len() as f64;
        assert!(per_hash <= max_bytes, "{small}: {per_hash}");
        for k in keys.iter().step_by(97) {
            assert!(f.contains(&Wide([*k, 0, 0])).unwrap());
        }
        let trials = 400_000;
        let fp = (0..trials)
            .filter(|_| {
                let probe = Wide([next(), 0, 0]);
                let got = f.contains(&probe).unwrap();
                assert_eq!(got, f.contains_by_xorf(&probe));
                got
            })
            .count() as f64
            / trials as f64;
        assert!(
            fp < rate * 2.5 && fp > rate / 4.0,
            "{small}: {fp} vs {rate}"
        );
    }
}

#[test]
fn a_filter_pairs_only_with_its_own_index() {
    let dir = tempfile::tempdir().unwrap();
    let records = random_dump(3000, 5);
    let index = exact(HashKind::Sha1, &records);
    let idx_path = dir.path().join("a.idx");
    std::fs::write(&idx_path, index.bytes()).unwrap();
    let flt_path = dir.path().join("a.flt");
    std::fs::write(&flt_path, filter_bytes(&index, false, 1)).unwrap();
    let paired = AnyIndex::filtered(AnyIndex::open(&idx_path).unwrap(), &flt_path).unwrap();
    assert_eq!(paired.tier(), Tier::Exact);
    for (h, c) in records.iter().take(200) {
        assert_eq!(paired.lookup(&Wide::from_be_prefix(h)).unwrap(), *c);
    }
    let absent = HashKind::Sha1.hash_password(b"not in it").unwrap();
    assert_eq!(paired.lookup(&absent).unwrap(), 0);

    // Another index (one count changed) refuses the filter.
    let mut other = records.clone();
    *other.values_mut().next().unwrap() += 1;
    let other_path = dir.path().join("b.idx");
    std::fs::write(&other_path, exact(HashKind::Sha1, &other).bytes()).unwrap();
    assert!(matches!(
        AnyIndex::filtered(AnyIndex::open(&other_path).unwrap(), &flt_path),
        Err(PairError::Mismatch)
    ));
    // A filter as the index, or an index as the filter.
    assert!(matches!(
        AnyIndex::filtered(AnyIndex::open(&flt_path).unwrap(), &flt_path),
        Err(PairError::NotExact("filter"))
    ));
    assert!(matches!(
        AnyIndex::filtered(AnyIndex::open(&idx_path).unwrap(), &idx_path),
        Err(PairError::NotFilter("exact"))
    ));
}

/// The vector of docs/BREACH-FORMAT.md, "Compact index".
#[test]
fn compact_test_vector() {
    let index = Index::from_bytes(build_bytes(VECTOR_DUMP.as_bytes(), None).unwrap()).unwrap();
    let bytes = compact_bytes(&index);
    let c = Compact::from_slice(&bytes).unwrap();
    let h = c.header();
    assert_eq!((h.bits, h.entries), (0, 4));
    let body = &bytes[h.body_at.0 as usize..][..h.body_at.1 as usize];
    let want: Vec<u8> = [
        "ffbfc9e461aa5b",
        "ff3fca098d4a7c",
        "2a40b143c9e38b",
        "ff3fa666bdbbf3",
        "00",
    ]
    .concat()
    .as_bytes()
    .chunks(2)
    .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
    .collect();
    assert_eq!(body, &want[..]);
    // The table: group bits 0, bases [0, 4], offsets [0, 0], padding to 8 bytes.
    assert_eq!(h.group_bits, 0);
    let table = &bytes[h.table_at.0 as usize..][..h.table_at.1 as usize];
    let mut want = [0u8; 24];
    want[8] = 4;
    assert_eq!(table, &want[..]);
    let overflow = &bytes[h.overflow_at.0 as usize..][..h.overflow_at.1 as usize];
    let entries: Vec<[u64; 3]> = overflow
        .chunks(24)
        .map(|e| {
            let w = |i: usize| u64::from_le_bytes(e[i * 8..i * 8 + 8].try_into().unwrap());
            [w(0), w(1), w(2)]
        })
        .collect();
    assert_eq!(
        entries,
        [
            [0, 0x16ea9879326, 3861493],
            [0, 0x1f12a342728, 37359195],
            [0, 0x3ceeef59a98, 17043]
        ]
    );
}

/// A group of buckets holding more entries than 16-bit offsets reach: the build takes
/// fewer group bits and every lookup still answers.
#[test]
fn crowded_buckets_take_fewer_table_group_bits() {
    // 70,000 hashes under one first byte, at 9 bucket bits: two buckets of about 35,000
    // entries. An offset is measured from its group's first bucket, so groups of two
    // buckets fit 16 bits and larger groups (whose later buckets start 70,000 entries
    // after the group's base) do not.
    let records: BTreeMap<Vec<u8>, u64> = random_dump(70_000, 11)
        .into_iter()
        .map(|(mut h, n)| {
            h[0] = 0x5a;
            (h, n)
        })
        .collect();
    let c = Compact::from_slice(&compact_bytes(&exact(HashKind::Sha1, &records))).unwrap();
    assert_eq!((c.header().bits, c.header().group_bits), (9, 1));
    check_compact(HashKind::Sha1, &records);
    // Spread hashes keep the preferred group bits.
    let spread = random_dump(70_000, 12);
    let c = Compact::from_slice(&compact_bytes(&exact(HashKind::Sha1, &spread))).unwrap();
    assert_eq!(c.header().group_bits, compact::GROUP_BITS);
}

/// A compact index of the first format (a table of u64) is refused with a hint to
/// rebuild it.
#[test]
fn an_outdated_compact_index_asks_for_a_rebuild() {
    let mut bytes = compact_bytes(&exact(HashKind::Sha1, &random_dump(500, 13)));
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..248]);
    bytes[248..256].copy_from_slice(&sum.to_le_bytes());
    let err = Compact::from_slice(&bytes).err().expect("refused");
    assert_eq!(
        err.to_string(),
        "compact index format version 1 is no longer read; rebuild it from the exact index"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The range server's routing: any request gets a documented status, never a panic;
    /// valid prefixes give the range body.
    #[test]
    fn range_requests_never_panic(
        method in prop_oneof![Just("GET".to_string()), Just("HEAD".to_string()), ".{0,8}"],
        path in prop_oneof![
            "[0-9a-fA-F]{0,7}".prop_map(|p| format!("/range/{p}")),
            "/range/.{0,12}",
            "[0-9a-fA-F]{30,42}".prop_map(|h| format!("/check/{h}")),
            "/check/.{0,50}",
            ".{0,30}",
        ],
        query in proptest::option::of(prop_oneof![Just("mode=ntlm".to_string()), Just("mode=SHA1".to_string()), ".{0,20}"]),
        padding in any::<bool>(),
        mut seed in any::<u64>(),
    ) {
        use super::serve::Service;
        use std::sync::OnceLock;
        static SERVICE: OnceLock<Service> = OnceLock::new();
        let service = SERVICE.get_or_init(|| {
            let index = exact(HashKind::Sha1, &random_dump(2000, 3));
            Service::new(vec![AnyIndex::Exact(index)]).unwrap()
        });
        let mut random = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed
        };
        let reply = service.respond(&method, &path, query.as_deref(), padding, &mut random);
        prop_assert!([200, 400, 404, 405, 501].contains(&reply.status), "{}", reply.status);
        if reply.status == 200 && padding && path.starts_with("/range/") {
            let lines = reply.body.split(|&b| b == b'\n').count();
            prop_assert!((800..=1000).contains(&lines), "{lines}");
        }
    }
}

/// The filter vector of docs/BREACH-FORMAT.md, "Filters": one shard over the keys of
/// SHA-1("pw0") .. SHA-1("pw999"), with 16- and 8-bit fingerprints. A release of the
/// `xorf` crate that built other bytes would change every filter file: this fails first.
#[test]
fn filter_test_vector() {
    use sha2::Digest;
    let mut keys: Vec<u64> = (0..1000)
        .map(|i| {
            let h = sha1::Sha1::digest(format!("pw{i}").as_bytes());
            u64::from_be_bytes(h[..8].try_into().unwrap())
        })
        .collect();
    keys.sort_unstable();
    for (small, want) in [
        (
            false,
            "9201f24fbff0622677ca66d3b61d394d84b3ec375deb3b8348a406d3d7ff4740",
        ),
        (
            true,
            "8a6925f4f1ff812c42f31e62aed93f9b48efb7bf251d174ff86a4dd4bd6b7027",
        ),
    ] {
        let built = filter::build_shard(0, &keys, small).unwrap();
        let d = &built.descriptor;
        assert_eq!(
            u64::from_le_bytes(d[0..8].try_into().unwrap()),
            0x910a_2dec_8902_5cc1
        );
        assert_eq!(u32::from_le_bytes(d[8..12].try_into().unwrap()), 128);
        assert_eq!(u32::from_le_bytes(d[12..16].try_into().unwrap()), 127);
        assert_eq!(u32::from_le_bytes(d[16..20].try_into().unwrap()), 1152);
        assert_eq!(built.fingerprints.len(), 1408 * if small { 1 } else { 2 });
        assert_eq!(
            crate::hex::lower_string(&sha2::Sha256::digest(&built.fingerprints)),
            want,
            "small: {small}"
        );
    }
}

#[test]
fn a_file_larger_than_the_available_memory_is_refused_before_it_is_read() {
    use super::bytes::fits_in_memory;
    use super::index::IndexError;
    let meminfo = "MemTotal:       24683656 kB\nMemFree:         1000000 kB\n\
                   MemAvailable:    2097152 kB\nBuffers:           12 kB\n";
    assert!(fits_in_memory(2 << 30, meminfo).is_ok());
    let refused = fits_in_memory((2 << 30) + 1, meminfo).unwrap_err();
    assert!(matches!(
        refused,
        IndexError::Memory {
            needs,
            available: 2_147_483_648
        } if needs == (2 << 30) + 1
    ));
    assert_eq!(
        refused.to_string(),
        "reading it into memory needs 2.0 GiB, and 2.0 GiB of memory is available"
    );
    // Without the field (an old kernel, another system's format), nothing is refused.
    assert!(fits_in_memory(u64::MAX, "MemTotal: 1 kB\n").is_ok());
    assert!(fits_in_memory(u64::MAX, "MemAvailable: lots\n").is_ok());
}
