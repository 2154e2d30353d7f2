//! The range server's answers against the dump they come from (docs/BREACH-FORMAT.md,
//! "Range server"), at every table size up to the largest: at 2 billion hashes an index
//! has 24 table bits, so that one range spans 16 buckets, and `update` reads its old
//! ranges the same way. Lookups (one at a time, by scanning, in a batch) and the index's
//! records in order are checked there too.

use super::{PAD_MAX, PAD_MIN, Service};
use crate::breach::HashKind;
use crate::breach::format::{MAX_TABLE_BITS, Wide};
use crate::breach::index::Index;
use crate::breach::tests::{build_bytes, counts_strategy, dump_text, hash_strategy};
use crate::breach::tier::AnyIndex;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// The first three bytes of a range's least hash (the last four bits zero).
fn prefix_bytes(p: u32) -> Vec<u8> {
    vec![(p >> 12) as u8, (p >> 4) as u8, ((p & 0xf) << 4) as u8]
}

fn prefix_of(hash: &[u8]) -> u32 {
    (u32::from(hash[0]) << 12) | (u32::from(hash[1]) << 4) | u32::from(hash[2] >> 4)
}

/// The reference range body: `SUFFIX:COUNT` lines of the prefix's hashes in order,
/// upper-case hex without the prefix's 5 digits, joined by CRLF, no final line end.
fn reference_body(records: &BTreeMap<Vec<u8>, u64>, p: u32) -> Vec<u8> {
    let lines: Vec<String> = match p + 1 {
        next if next < 1 << 20 => records
            .range(prefix_bytes(p)..prefix_bytes(next))
            .collect::<Vec<_>>(),
        _ => records.range(prefix_bytes(p)..).collect(),
    }
    .into_iter()
    .map(|(h, c)| {
        let hex: String = h.iter().map(|b| format!("{b:02X}")).collect();
        format!("{}:{c}", &hex[5..])
    })
    .collect();
    lines.join("\r\n").into_bytes()
}

/// `n` hashes sharing their first `shared` bits (the rest drawn from `seed`): the build
/// estimates its table size from the first 65,536 hashes' span, so 65,536 of them give
/// about `shared + 9` table bits when they come first (fewer give their own count's).
fn cluster(len: usize, n: usize, shared: u32, seed: u64) -> Vec<Vec<u8>> {
    let mut x = seed | 1;
    let top = seed.rotate_left(17) & !(u64::MAX >> shared);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let first = top | (x >> shared);
            let mut h = first.to_be_bytes().to_vec();
            h.extend_from_slice(&x.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_be_bytes());
            h.extend_from_slice(&x.rotate_left(29).to_be_bytes());
            h.truncate(len);
            h
        })
        .collect()
}

fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *seed
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Every range holding hashes, its neighbours, the first and last and some others:
    /// `GET /range/PREFIX` answers the reference body with its documented ETag, in
    /// either case of the prefix; with `Add-Padding: true`, the same lines among count-0
    /// lines of other suffixes, in order, at least 800-1,000 of them; `/check/HASH` the
    /// count of the hashes held and of their neighbours; the other kind's ranges 404.
    #[test]
    fn ranges_and_checks_answer_the_dump(
        ntlm in any::<bool>(),
        shared in prop_oneof![
            1 => Just(None),
            1 => (100usize..5000, 0u32..=20).prop_map(Some),
            // 12 shared bits and more: 21 table bits and more, a range over buckets
            // (rarely past full scale's 24 bits: their tables take 128-256 MiB).
            3 => (Just(65_536usize), prop_oneof![3 => 0u32..12, 3 => 12u32..=15, 1 => 16u32..=20]).prop_map(Some),
        ],
        seed in any::<u64>(),
        extras in proptest::collection::vec((hash_strategy(20), counts_strategy()), 0..200),
        // Extra hashes below the cluster widen the first hashes' span (fewer table bits).
        extras_anywhere in proptest::bool::weighted(0.25),
        probes in proptest::collection::vec(0u32..1 << 20, 0..8),
        mut random in any::<u64>(),
    ) {
        let kind = if ntlm { HashKind::Ntlm } else { HashKind::Sha1 };
        let len = kind.len();
        let mut records: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
        let clustered = shared.map(|(n, s)| cluster(len, n, s, seed)).unwrap_or_default();
        for (i, h) in clustered.iter().enumerate() {
            let c = match i % 97 {
                0 => u64::MAX - i as u64,
                1 => 1 << 24,
                _ => 1 + (i as u64 * 31) % 5000,
            };
            records.insert(h.clone(), c);
        }
        let floor = clustered.iter().min().cloned();
        for (h, c) in extras {
            let h = h[..len].to_vec();
            if extras_anywhere || floor.as_ref().is_none_or(|f| &h > f) {
                records.insert(h, c);
            }
        }
        prop_assume!(!records.is_empty());
        let index = Index::from_bytes(build_bytes(dump_text(kind, &records).as_bytes(), None).unwrap()).unwrap();
        let table_bits = index.header().params.table_bits;
        prop_assert!(table_bits <= MAX_TABLE_BITS);
        // Every record in order (what `export-ranges` and `merge` read).
        {
            let mut all = index.iter().map(|r| r.map(|(h, c)| (h.to_be_bytes()[..len].to_vec(), c)));
            prop_assert!(all.by_ref().zip(&records).all(|(g, (h, c))| g.ok() == Some((h.clone(), *c))));
            prop_assert!(all.next().is_none());
        }
        // A sample of the hashes held, and the hashes one above and below them, looked
        // up one at a time, by scanning and in one batch (as `breach query` does).
        let mut sample: Vec<(Vec<u8>, u64)> = Vec::new();
        for (h, c) in records.iter().step_by((records.len() / 300).max(1)) {
            sample.push((h.clone(), *c));
            for delta in [1i16, -1] {
                let mut n = h.clone();
                n[len - 1] = (i16::from(n[len - 1]) + delta).rem_euclid(256) as u8;
                let c = records.get(&n).copied().unwrap_or(0);
                sample.push((n, c));
            }
        }
        let wide: Vec<Wide> = sample.iter().map(|(h, _)| Wide::from_be_prefix(h)).collect();
        let mut batch = vec![u64::MAX; wide.len()];
        index.lookup_many(&wide, &mut batch).unwrap();
        for ((w, (_, want)), got) in wide.iter().zip(&sample).zip(&batch) {
            prop_assert_eq!(got, want, "batch, {} table bits", table_bits);
            prop_assert_eq!(index.lookup_scan(w).unwrap(), *want, "scan");
        }
        let service = Service::new(vec![AnyIndex::Exact(index)]).unwrap();

        // The prefixes asked: those holding hashes (every one of a few hundred, else
        // the first and last and one in 500), their neighbours, the ends, random ones.
        let held: BTreeSet<u32> = records.keys().map(|h| prefix_of(h)).collect();
        let step = if held.len() > 600 { 500 } else { 1 };
        let mut asked: BTreeSet<u32> = held.iter().copied().step_by(step).collect();
        asked.extend(held.first().into_iter().chain(held.last()).copied());
        for p in asked.clone() {
            asked.extend([p.saturating_sub(1), (p + 1).min((1 << 20) - 1)]);
        }
        asked.extend([0, (1 << 20) - 1]);
        asked.extend(probes);

        let (code, mode, other) = match kind {
            HashKind::Sha1 => ("sha1", None, "mode=ntlm"),
            HashKind::Ntlm => ("ntlm", Some("mode=ntlm"), "mode=sha1"),
        };
        let mut rng = move || lcg(&mut random);
        for p in asked {
            let want = reference_body(&records, p);
            let upper = format!("/range/{p:05X}");
            let lower = upper.to_ascii_lowercase();
            for path in [&upper, &lower] {
                let reply = service.respond("GET", path, mode, false, &mut rng);
                prop_assert_eq!(reply.status, 200, "{} ({} table bits)", path, table_bits);
                prop_assert!(reply.body == want, "{} ({} table bits): {:?} for {:?}",
                    path, table_bits, String::from_utf8_lossy(&reply.body), String::from_utf8_lossy(&want));
                prop_assert!(reply.cacheable);
                let etag = format!("\"{code}-{:016x}\"", xxhash_rust::xxh3::xxh3_64(&want));
                prop_assert_eq!(reply.etag.as_deref(), Some(etag.as_str()));
            }
            prop_assert_eq!(service.respond("GET", &upper, Some(other), false, &mut rng).status, 404);

            // Padded: the real lines as they are, the others count 0 with suffixes of
            // the kind's length that no real line has, all in suffix order.
            let padded = service.respond("GET", &upper, mode, true, &mut rng);
            prop_assert_eq!(padded.status, 200);
            prop_assert!(!padded.cacheable && padded.etag.is_none());
            let real: BTreeSet<&[u8]> = if want.is_empty() {
                BTreeSet::new()
            } else {
                want.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l)).collect()
            };
            let real_suffixes: BTreeSet<&[u8]> = real.iter().map(|l| &l[..kind.hex_len() - 5]).collect();
            let lines: Vec<&[u8]> = padded.body.split(|&b| b == b'\n').collect();
            let last = lines.len() - 1;
            let mut kept = 0;
            for (i, line) in lines.iter().enumerate() {
                let line = match line.strip_suffix(b"\r") {
                    Some(l) if i < last => l,
                    None if i == last => line,
                    _ => return Err(TestCaseError::fail(format!("{upper}: line {i} ends wrongly"))),
                };
                if real.contains(line) {
                    kept += 1;
                    continue;
                }
                let (suffix, count) = line.split_at(kind.hex_len() - 5);
                prop_assert_eq!(count, &b":0"[..], "{}: {:?}", upper, String::from_utf8_lossy(line));
                prop_assert!(suffix.iter().all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(b)));
                prop_assert!(!real_suffixes.contains(suffix), "{}: a real suffix padded", upper);
            }
            prop_assert_eq!(kept, real.len(), "{}", upper);
            prop_assert!(lines.windows(2).all(|w| w[0] < w[1]), "{}: not in order", upper);
            prop_assert!(lines.len() >= real.len().max(PAD_MIN) && lines.len() <= real.len().max(PAD_MAX),
                "{}: {} lines for {}", upper, lines.len(), real.len());
        }

        // Checks of the sample above.
        for (probe, count) in &sample {
            let mut hex: String = probe.iter().map(|b| format!("{b:02x}")).collect();
            if count % 2 == 1 {
                hex.make_ascii_uppercase();
            }
            let reply = service.respond("GET", &format!("/check/{hex}"), None, false, &mut rng);
            prop_assert_eq!(reply.status, 200, "{}", hex);
            prop_assert_eq!(reply.body, count.to_string().into_bytes(), "{}", hex);
        }
    }
}
