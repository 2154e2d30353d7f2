//! Tests of the journal: entries read back in order, damage and cut-off tails, reading
//! from a saved state's range, and each bound of an entry's header.

use super::*;

fn entry(prefix: u32) -> Entry {
    Entry {
        prefix,
        packed: vec![prefix as u8; 21],
        etag: Some(format!("\"{prefix}\"")),
        last_modified: prefix
            .is_multiple_of(2)
            .then(|| "Mon, 01 Jan 2024 00:00:00 GMT".into()),
    }
}

fn replay_all(path: &Path) -> (Vec<Entry>, Appender) {
    let mut r = open(path, HashKind::Sha1, &"src".into()).unwrap();
    let mut got = Vec::new();
    while let Some(e) = r.next_entry().unwrap() {
        got.push(e);
    }
    (got, r.into_appender().unwrap())
}

/// Writes a new journal at `path` holding entries `0..n`, synced; its bytes.
fn write_entries(path: &Path, n: u32) -> Vec<u8> {
    let (got, mut a) = replay_all(path);
    assert!(got.is_empty(), "a new journal");
    for p in 0..n {
        a.append(&entry(p)).unwrap();
    }
    a.sync().unwrap();
    drop(a);
    std::fs::read(path).unwrap()
}

#[test]
fn entries_come_back_in_order_and_a_cut_off_tail_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    let full = write_entries(&path, 5);
    // Cut anywhere inside the last entry, or flip any of its bytes: four entries.
    let last = encode(&entry(4)).len();
    for cut in 1..last {
        std::fs::write(&path, &full[..full.len() - cut]).unwrap();
        let (got, a) = replay_all(&path);
        assert_eq!(got, (0..4).map(entry).collect::<Vec<_>>(), "cut {cut}");
        assert_eq!(a.next(), 4);
    }
    for at in full.len() - last..full.len() {
        let mut b = full.clone();
        b[at] ^= 0x10;
        std::fs::write(&path, &b).unwrap();
        let (got, mut a) = replay_all(&path);
        assert_eq!(got.len(), 4, "flip at {at}");
        // Appending after the cut gives a good journal again.
        a.append(&entry(4)).unwrap();
        a.sync().unwrap();
        drop(a);
        assert_eq!(std::fs::read(&path).unwrap(), full);
    }
}

#[test]
fn zeros_after_the_last_entry_are_a_cut_off_entry() {
    // What a crash leaves between a sync's padded write and its cut back: zeros,
    // after the header alone or after entries.
    for entries in [0u32, 3] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let good = write_entries(&path, entries);
        let mut padded = good.clone();
        padded.resize(good.len().next_multiple_of(4096) + 4096, 0);
        std::fs::write(&path, &padded).unwrap();
        let (got, mut a) = replay_all(&path);
        assert_eq!(got, (0..entries).map(entry).collect::<Vec<_>>());
        a.sync().unwrap();
        drop(a);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            good,
            "cut back to the entries"
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Damage anywhere (a flipped bit, a changed, inserted or removed byte, a cut):
    /// the journal is refused (its header) or gives back a prefix of its entries,
    /// and appending the rest makes the journal that was written.
    #[test]
    fn damage_anywhere_gives_back_a_prefix(
        n in 1u32..6,
        edit in 0u8..5,
        at in proptest::prelude::any::<proptest::sample::Index>(),
        byte in proptest::prelude::any::<u8>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let full = write_entries(&path, n);
        let mut b = full.clone();
        let i = at.index(b.len());
        damage(&mut b, edit, i, byte);
        std::fs::write(&path, &b).unwrap();
        let Ok(mut r) = open(&path, HashKind::Sha1, &"src".into()) else {
            // Only a damaged header is refused.
            proptest::prop_assert!(i < header(MAGIC, HashKind::Sha1, "src").len());
            return Ok(());
        };
        let mut got = Vec::new();
        while let Some(e) = r.next_entry().unwrap() {
            got.push(e);
        }
        proptest::prop_assert!(got.len() <= n as usize);
        proptest::prop_assert_eq!(&got, &(0..got.len() as u32).map(entry).collect::<Vec<_>>());
        let mut a = r.into_appender().unwrap();
        for p in a.next()..n {
            a.append(&entry(p)).unwrap();
        }
        a.sync().unwrap();
        drop(a);
        proptest::prop_assert_eq!(std::fs::read(&path).unwrap(), full);
    }
}

/// Read back from a saved state's range: the entries before it are skipped; a
/// journal emptied at a checkpoint continues from it; one that starts after the
/// saved state is refused.
#[test]
fn a_journal_is_read_back_from_the_saved_states_range_and_restarts_at_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    let full = write_entries(&path, 5);
    let from = |from: u32| {
        let mut r = open(&path, HashKind::Sha1, &"src".into()).unwrap();
        r.set_from(from);
        let mut got = Vec::new();
        while let Some(e) = r.next_entry().unwrap() {
            got.push(e);
        }
        (got, r.into_appender().unwrap())
    };
    let (got, a) = from(3);
    assert_eq!(got, vec![entry(3), entry(4)]);
    assert_eq!(a.next(), 5);
    drop(a);
    assert_eq!(std::fs::read(&path).unwrap(), full, "kept whole");
    // A state past every entry: the journal is emptied, to continue from there.
    let (got, mut a) = from(7);
    assert!(got.is_empty());
    assert_eq!(a.next(), 7);
    a.append(&entry(7)).unwrap();
    a.append(&entry(8)).unwrap();
    // A checkpoint after range 8: emptied again, continuing from 9.
    a.restart(9).unwrap();
    a.append(&entry(9)).unwrap();
    a.sync().unwrap();
    drop(a);
    let header_len = header(MAGIC, HashKind::Sha1, "src").len();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        [&full[..header_len], &encode(&entry(9))[..]].concat()
    );
    let (got, a) = from(9);
    assert_eq!(got, vec![entry(9)]);
    assert_eq!(a.next(), 10);
    drop(a);
    // Read back from an earlier range than it starts at: refused.
    let mut r = open(&path, HashKind::Sha1, &"src".into()).unwrap();
    r.set_from(4);
    let e = r.next_entry().err().unwrap();
    assert!(e.to_string().contains("does not continue"), "{e}");
}

#[test]
fn a_journal_of_another_download_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    drop(open(&path, HashKind::Sha1, &"src".into()).unwrap());
    let e = open(&path, HashKind::Ntlm, &"src".into()).err().unwrap();
    assert!(e.to_string().contains("of SHA-1 hashes"), "{e}");
    let e = open(&path, HashKind::Sha1, &"other".into()).err().unwrap();
    assert!(e.to_string().contains("another source"), "{e}");
    std::fs::write(&path, b"hello").unwrap();
    let e = open(&path, HashKind::Sha1, &"src".into()).err().unwrap();
    assert!(
        e.to_string().contains("not a file of a veilkit download"),
        "{e}"
    );
}

#[test]
fn a_journal_keeps_its_source_without_a_password_and_reads_an_older_ones() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let with = |password: &str| SourceId {
        kept: "https://host/{prefix}".into(),
        full: format!("https://u:{password}@host/{{prefix}}"),
    };
    let path = dir.path().join("j");
    drop(open(&path, HashKind::Sha1, &with("one")).unwrap());
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        bytes,
        header(MAGIC, HashKind::Sha1, "https://host/{prefix}")
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    // Another password: the same download.
    drop(open(&path, HashKind::Sha1, &with("two")).unwrap());
    // A journal of an older veilkit, which kept the source whole: read as it is.
    let old = dir.path().join("old");
    std::fs::write(&old, header(MAGIC, HashKind::Sha1, &with("one").full)).unwrap();
    drop(open(&old, HashKind::Sha1, &with("one")).unwrap());
    let e = open(&old, HashKind::Sha1, &with("two")).err().unwrap();
    assert!(e.to_string().contains("another source"), "{e}");
}

/// An entry's bytes as the journal stores them, with its header's fields as given
/// (`encode` writes only entries within the bounds) and a good checksum.
fn forged(prefix: u32, etag: &[u8], lm: &[u8], packed: &[u8]) -> Vec<u8> {
    let mut b = prefix.to_le_bytes().to_vec();
    b.extend_from_slice(&(packed.len() as u32).to_le_bytes());
    b.extend_from_slice(&(etag.len() as u16).to_le_bytes());
    b.extend_from_slice(&(lm.len() as u16).to_le_bytes());
    for piece in [etag, lm, packed] {
        b.extend_from_slice(piece);
    }
    let sum = xxh3_64(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

/// What `read_entry` makes of `bytes` (followed by `more`, so that a refused entry is
/// seen to end the journal rather than to be cut off): the entry's prefix, validators'
/// lengths and packed length, or `None`.
fn read_back(bytes: &[u8], want: Option<u32>) -> Option<(u32, usize, usize, usize)> {
    let with_more = [bytes, &encode(&entry(0))[..]].concat();
    let (e, len) = read_entry(&mut &with_more[..], want).expect("in memory")?;
    assert_eq!(len as usize, bytes.len());
    let n = |v: &Option<String>| v.as_ref().map_or(0, String::len);
    Some((e.prefix, n(&e.etag), n(&e.last_modified), e.packed.len()))
}

/// Each bound of an entry's header, at it (read) and just past it (the journal ends
/// there: the range is fetched again), each entry with a good checksum, so that only
/// the bound decides. Until now the tests reached these bounds only by chance.
#[test]
fn each_bound_of_an_entry_is_read_at_it_and_ends_the_journal_past_it() {
    let v = |n: usize| vec![b'e'; n];
    let last = crate::breach::ranges::PREFIXES - 1;
    // The prefix: a range of the API, and the one after the entry before.
    assert_eq!(
        read_back(&forged(last, b"", b"", b""), None),
        Some((last, 0, 0, 0))
    );
    assert_eq!(read_back(&forged(last + 1, b"", b"", b""), None), None);
    assert_eq!(read_back(&forged(u32::MAX, b"", b"", b""), None), None);
    assert_eq!(
        read_back(&forged(5, b"", b"", b""), Some(5)),
        Some((5, 0, 0, 0))
    );
    assert_eq!(read_back(&forged(6, b"", b"", b""), Some(5)), None);
    assert_eq!(read_back(&forged(4, b"", b"", b""), Some(5)), None);
    // The validators: at most MAX_VALIDATOR bytes each.
    let most = v(MAX_VALIDATOR);
    let past = v(MAX_VALIDATOR + 1);
    assert_eq!(
        read_back(&forged(7, &most, &most, b"x"), None),
        Some((7, MAX_VALIDATOR, MAX_VALIDATOR, 1))
    );
    assert_eq!(read_back(&forged(7, &past, b"", b"x"), None), None);
    assert_eq!(read_back(&forged(7, b"", &past, b"x"), None), None);
    // The packed hashes: at most MAX_BODY bytes.
    let body = vec![0u8; MAX_BODY + 1];
    assert_eq!(
        read_back(&forged(8, b"", b"", &body[..MAX_BODY]), None),
        Some((8, 0, 0, MAX_BODY))
    );
    assert_eq!(read_back(&forged(8, b"", b"", &body), None), None);
    // The checksum: of every byte before it.
    let mut b = forged(9, b"t", b"m", b"p");
    let n = b.len();
    b[n - 1] ^= 0x80;
    assert_eq!(read_back(&b, None), None);
}
