//! Gets answered from the cache's record table ([`super::keymap`]) give what a get
//! through the index gives: the same answers, and on a damaged file the same error,
//! whatever the gets before them left in the cache.

use super::file::RecordFile;
use super::format::{InputFormat, Unlock};
use super::pages::{Kind, bucket_of};
use super::tests::{append_csv, seal_bytes, settings};
use crate::keys::Keyring;
use proptest::prelude::*;
use std::collections::HashMap;
use std::path::Path;

fn csv(rows: std::ops::Range<u32>) -> Vec<u8> {
    rows.map(|k| format!("key{k},{}\n", "v".repeat((k % 97) as usize)))
        .collect::<String>()
        .into_bytes()
}

/// The get of `key` on a handle of its own (nothing cached): the record or the error.
fn fresh_get(path: &Path, ring: &Keyring, key: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mut f = RecordFile::open(path, &[Unlock::Keyring(ring)], false).unwrap();
    f.get(key).map_err(|e| e.to_string())
}

/// Gets `history` on one handle (whatever each answers), then each of `asked` on it:
/// each must answer as on a handle of its own.
fn asked_after(path: &Path, ring: &Keyring, history: &[Vec<u8>], asked: &[Vec<u8>]) {
    let mut f = RecordFile::open(path, &[Unlock::Keyring(ring)], false).unwrap();
    for k in history {
        let _ = f.get(k);
    }
    for k in asked {
        let got = f.get(k).map_err(|e| e.to_string());
        assert_eq!(
            got,
            fresh_get(path, ring, k),
            "{}",
            String::from_utf8_lossy(k)
        );
    }
}

/// Where data page `logical` of the file at `path` starts.
fn data_page_at(path: &Path, ring: &Keyring, logical: u32) -> usize {
    let mut f = RecordFile::open(path, &[Unlock::Keyring(ring)], false).unwrap();
    let r = f.page_ref(Kind::Data, u64::from(logical)).unwrap();
    f.reader().offset(r.physical).unwrap() as usize
}

/// Two keys whose index entries share a bucket and a tag, on different data pages:
/// a get of either reads, through the index, both pages in the entries' order. With
/// one page damaged, a get of the other key fails or not by that order alone, so the
/// record table must not answer it from a held page (its bucket page's note says the
/// tag repeats). Each of the two is damaged in turn; whichever comes first fails the
/// other's get through the index.
#[test]
fn a_repeated_tag_is_answered_as_the_index_answers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.vkr");
    let rows = 6000;
    let keys: Vec<Vec<u8>> = (0..rows).map(|k| format!("key{k}").into_bytes()).collect();
    for _attempt in 0..20 {
        let ring = Keyring::generate().unwrap();
        seal_bytes(
            &path,
            &csv(0..rows),
            &settings(InputFormat::Csv, "1", false, 4096),
            &ring,
        )
        .unwrap();
        let pristine = std::fs::read(&path).unwrap();
        // (bucket, tag) → the keys and their data pages.
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
        assert!(f.root.buckets > 1);
        let mut groups: HashMap<(u32, u32), Vec<(usize, u32)>> = HashMap::new();
        for (i, k) in keys.iter().enumerate() {
            let token = f.keys.token(k);
            let place = (
                bucket_of(token, f.root.buckets),
                f.root.index_layout.tag(token),
            );
            let (page, ..) = f.locate(k).unwrap().expect("every key is there");
            groups.entry(place).or_default().push((i, page));
        }
        drop(f);
        let Some(pair) = groups.values().find_map(|g| {
            let (a, pa) = g[0];
            g[1..]
                .iter()
                .find(|&&(_, pb)| pb != pa)
                .map(|&(b, pb)| [(a, pa), (b, pb)])
        }) else {
            continue;
        };
        let mut failed = 0;
        for (damaged, asked) in [(pair[0], pair[1]), (pair[1], pair[0])] {
            let mut bytes = pristine.clone();
            bytes[data_page_at(&path, &ring, damaged.1) + 200] ^= 4;
            std::fs::write(&path, &bytes).unwrap();
            let key = &keys[asked.0];
            failed += usize::from(fresh_get(&path, &ring, key).is_err());
            // Every other key first: the asked key's page and bucket page are held.
            let history: Vec<Vec<u8>> = keys.iter().filter(|k| *k != key).cloned().collect();
            asked_after(&path, &ring, &history, std::slice::from_ref(key));
        }
        assert_eq!(failed, 1, "one of the two orders fails");
        return;
    }
    panic!("no two keys shared a bucket and a tag in 20 files");
}

/// A bucket with an overflow page: a get whose entry is in that page reads it through
/// the index, so with that page damaged, its get fails even when its record's page and
/// its bucket's first page are held (the bucket page's note says it has overflow).
#[test]
fn a_damaged_overflow_page_fails_its_gets_whatever_came_before() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.vkr");
    let s = settings(InputFormat::Csv, "1", false, 512);
    // Files until one has an overflow page (the tokens, so the buckets, vary by key).
    let (ring, at) = (0..20)
        .find_map(|_| {
            let ring = Keyring::generate().unwrap();
            seal_bytes(&path, &csv(0..1200), &s, &ring).unwrap();
            let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
            append_csv(&mut f, &csv(1200..1350));
            let buckets = u64::from(f.root.buckets);
            if f.page_count(Kind::Index).unwrap() <= buckets {
                return None;
            }
            let r = f.page_ref(Kind::Index, buckets).unwrap();
            let at = f.reader().offset(r.physical).unwrap() as usize;
            Some((ring, at))
        })
        .expect("an overflow page in 20 files");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[at + 100] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let keys: Vec<Vec<u8>> = (0..1350).map(|k| format!("key{k}").into_bytes()).collect();
    let failing = keys
        .iter()
        .filter(|k| fresh_get(&path, &ring, k).is_err())
        .count();
    assert!(failing > 0);
    asked_after(&path, &ring, &keys, &keys);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    /// Damaged pages (one to three; index, overflow index or data) and gets in any
    /// order before: each asked key answers as on a handle of its own.
    #[test]
    fn gets_answer_alike_whatever_came_before(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..8), 1..4),
        history in proptest::collection::vec(0u32..1400, 0..400),
        asked in proptest::collection::vec(0u32..1400, 1..60),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.vkr");
        let ring = Keyring::generate().unwrap();
        seal_bytes(&path, &csv(0..1200), &settings(InputFormat::Csv, "1", false, 512), &ring)
            .unwrap();
        // Appended records: buckets with overflow pages (most often).
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
        append_csv(&mut f, &csv(1200..1350));
        drop(f);
        let mut bytes = std::fs::read(&path).unwrap();
        // Past the two header copies: a page.
        let first_page = 2 * super::format::COPY_SIZE;
        for (at, bit) in flips {
            let i = first_page + at.index(bytes.len() - first_page);
            bytes[i] ^= 1 << bit;
        }
        std::fs::write(&path, &bytes).unwrap();
        let key = |k: &u32| format!("key{k}").into_bytes();
        let history: Vec<Vec<u8>> = history.iter().map(key).collect();
        let asked: Vec<Vec<u8>> = asked.iter().map(key).collect();
        asked_after(&path, &ring, &history, &asked);
    }
}
