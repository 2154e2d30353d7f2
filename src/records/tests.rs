//! Record files against a simple model: round trips, lookups, updates, and every kind of
//! damage the format promises to detect.

use super::file::{RecordFile, Settings, seal};
use super::format::{COPY_SIZE as HEADER_SIZE, InputFormat, Slot, Unlock};
use super::input::{KeyField, parse};
use super::{InputRecord, RecordsError};
use crate::keys::Keyring;
use crate::progress::NoProgress;
use proptest::prelude::*;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

pub(super) fn settings(format: InputFormat, key: &str, header: bool, page: u32) -> Settings {
    Settings {
        format,
        header_row: header,
        key_field: key.to_string(),
        page_size: page,
        next_number: 0,
        // Both sealing paths: small pages on the caller's thread, others pipelined.
        threads: if page == 512 { 1 } else { 2 },
        compression: None,
        dictionary: true,
        wide_tags: false,
    }
}

pub(super) fn seal_bytes(
    path: &Path,
    input: &[u8],
    s: &Settings,
    ring: &Keyring,
) -> Result<u64, RecordsError> {
    let key = (!s.key_field.is_empty()).then(|| KeyField::parse(&s.key_field));
    let (prefix, mut recs) = parse(input, s.format, key.as_ref(), s.header_row, 1)?;
    let mut f = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .unwrap();
    let sum = seal(
        &mut recs,
        prefix,
        s,
        &[Unlock::Keyring(ring)],
        &mut f,
        &NoProgress,
    )?;
    Ok(sum.records)
}

fn open_all(f: &mut RecordFile) -> Result<Vec<u8>, RecordsError> {
    let mut out = f.prefix()?.unwrap_or_default();
    f.for_each(&NoProgress, |r| {
        out.extend_from_slice(r);
        Ok(())
    })?;
    Ok(out)
}

fn lines_input(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("record number {i} {}\n", "x".repeat(i % 37)))
        .collect::<String>()
        .into_bytes()
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn lines_round_trip_and_lookups() {
    let dir = tmp();
    let path = dir.path().join("r.vkr");
    let ring = Keyring::generate().unwrap();
    let input = lines_input(2000);
    assert_eq!(
        seal_bytes(
            &path,
            &input,
            &settings(InputFormat::Lines, "", false, 512),
            &ring
        )
        .unwrap(),
        2000
    );
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    assert_eq!(open_all(&mut f).unwrap(), input);
    assert_eq!(f.get(b"1").unwrap().unwrap(), b"record number 0 \n");
    assert_eq!(
        f.get(b"2000").unwrap().unwrap(),
        format!(
            "record number 1999 {}\n",
            "x".repeat(std::hint::black_box(1999) % 37)
        )
        .as_bytes()
    );
    assert_eq!(f.get(b"2001").unwrap(), None);
    assert_eq!(f.get(b"0").unwrap(), None);
    assert_eq!(f.get_number(38).unwrap().unwrap(), b"record number 37 \n");
    assert_eq!(f.get_number(0).unwrap(), None);
    assert_eq!(f.get_number(2001).unwrap(), None);
    let rep = f.verify(&NoProgress).unwrap();
    assert_eq!(rep.records, 2000);
    // Every record by key and by number.
    for (i, line) in input.split_inclusive(|&c| c == b'\n').enumerate() {
        assert_eq!(
            f.get((i + 1).to_string().as_bytes()).unwrap().unwrap(),
            line
        );
        assert_eq!(f.get_number(i as u64 + 1).unwrap().unwrap(), line);
    }
}

/// Compressed pages: every record by key and number, open, verify, appends, deletes
/// and a rewrite, on both sealing paths.
#[test]
fn compressed_files_round_trip_and_update() {
    for page in [512u32, 4096] {
        let dir = tmp();
        let path = dir.path().join("z.vkr");
        let ring = Keyring::generate().unwrap();
        let input = lines_input(3000);
        let mut s = settings(InputFormat::Lines, "", false, page);
        s.compression = Some(3);
        seal_bytes(&path, &input, &s, &ring).unwrap();
        let plain = dir.path().join("p.vkr");
        seal_bytes(
            &plain,
            &input,
            &settings(InputFormat::Lines, "", false, page),
            &ring,
        )
        .unwrap();
        let (z, p) = (
            std::fs::metadata(&path).unwrap().len(),
            std::fs::metadata(&plain).unwrap().len(),
        );
        assert!(z * 2 < p, "compressed {z} vs {p}");
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
        assert_eq!(open_all(&mut f).unwrap(), input);
        for (i, line) in input.split_inclusive(|&c| c == b'\n').enumerate() {
            assert_eq!(
                f.get((i + 1).to_string().as_bytes()).unwrap().unwrap(),
                line
            );
            assert_eq!(f.get_number(i as u64 + 1).unwrap().unwrap(), line);
        }
        f.verify(&NoProgress).unwrap();
        // Deletes and appends keep every other record where it was.
        let gone: Vec<Vec<u8>> = (1..=3000)
            .step_by(3)
            .map(|i: u32| i.to_string().into_bytes())
            .collect();
        f.commit(Vec::new(), gone).unwrap();
        let more = lines_input(500);
        let (_, recs) = parse(&more, InputFormat::Lines, None, false, 3001).unwrap();
        let recs: Vec<InputRecord<'_>> = recs.collect::<Result<_, _>>().unwrap();
        f.commit(recs, Vec::new()).unwrap();
        drop(f);
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
        for i in 1..=3500u32 {
            let got = f.get(i.to_string().as_bytes()).unwrap();
            if i <= 3000 && i % 3 == 1 {
                assert_eq!(got, None, "{i}");
            } else {
                assert!(got.is_some(), "{i}");
            }
        }
        assert_eq!(f.verify(&NoProgress).unwrap().records, 3500 - 1000);
    }
}

/// Deleting from tightly packed compressed pages: a page that compresses worse without
/// a record moves records from its end to new pages, and nothing is lost.
#[test]
fn compressed_pages_that_grow_after_a_delete_move_records() {
    use std::sync::atomic::Ordering;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut rounds = 0;
    while super::update::MOVED.load(Ordering::Relaxed) == 0 && rounds < 40 {
        rounds += 1;
        let dir = tmp();
        let path = dir.path().join("z.vkr");
        let ring = Keyring::generate().unwrap();
        // Records that share pieces of earlier ones: deleting one can make the pieces
        // that later records used cost more.
        let pool: Vec<u8> = (0..64).map(|_| b'a' + (next() % 26) as u8).collect();
        let mut input = Vec::new();
        for _ in 0..400 {
            let n = 5 + (next() % 40) as usize;
            for _ in 0..n {
                if next() % 3 == 0 {
                    input.push(b'A' + (next() % 26) as u8);
                } else {
                    let at = (next() % 60) as usize;
                    input.extend_from_slice(&pool[at..at + 4]);
                }
            }
            input.push(b'\n');
        }
        let mut s = settings(InputFormat::Lines, "", false, 512);
        s.compression = Some(3);
        seal_bytes(&path, &input, &s, &ring).unwrap();
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
        let gone: Vec<Vec<u8>> = (1..=400u32)
            .filter(|_| next() % 4 == 0)
            .map(|i| i.to_string().into_bytes())
            .collect();
        f.commit(Vec::new(), gone.clone()).unwrap();
        drop(f);
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
        for (i, line) in input.split_inclusive(|&c| c == b'\n').enumerate() {
            let k = (i + 1).to_string().into_bytes();
            let want = (!gone.contains(&k)).then(|| line.to_vec());
            assert_eq!(f.get(&k).unwrap(), want, "{i}");
        }
        f.verify(&NoProgress).unwrap();
    }
    assert!(
        super::update::MOVED.load(Ordering::Relaxed) > 0,
        "no page grew in {rounds} rounds"
    );
}

#[test]
fn last_line_without_newline_and_empty_lines_survive() {
    let dir = tmp();
    let path = dir.path().join("r.vkr");
    let ring = Keyring::generate().unwrap();
    let input = b"a\n\n\r\nlast".to_vec();
    seal_bytes(
        &path,
        &input,
        &settings(InputFormat::Lines, "", false, 4096),
        &ring,
    )
    .unwrap();
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    assert_eq!(open_all(&mut f).unwrap(), input);
    assert_eq!(f.get(b"2").unwrap().unwrap(), b"\n");
    assert_eq!(f.get(b"4").unwrap().unwrap(), b"last");
}

#[test]
fn empty_input_seals_an_empty_file() {
    let dir = tmp();
    let path = dir.path().join("r.vkr");
    let ring = Keyring::generate().unwrap();
    seal_bytes(&path, b"", &Settings::default(), &ring).unwrap();
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    assert_eq!(open_all(&mut f).unwrap(), b"");
    assert_eq!(f.get(b"1").unwrap(), None);
    f.verify(&NoProgress).unwrap();
}

#[test]
fn csv_with_quotes_header_and_crlf() {
    let dir = tmp();
    let path = dir.path().join("r.vkr");
    let ring = Keyring::generate().unwrap();
    let input = b"id,name,note\r\n7,\"Smith, J\",\"said \"\"hi\"\"\r\nacross lines\"\r\n8,Ann,plain\r\n\"9,x\",Bob,q\r\n".to_vec();
    seal_bytes(
        &path,
        &input,
        &settings(InputFormat::Csv, "id", true, 512),
        &ring,
    )
    .unwrap();
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    assert_eq!(open_all(&mut f).unwrap(), input);
    assert_eq!(f.prefix().unwrap().unwrap(), b"id,name,note\r\n");
    assert_eq!(
        f.get(b"7").unwrap().unwrap(),
        b"7,\"Smith, J\",\"said \"\"hi\"\"\r\nacross lines\"\r\n"
    );
    assert_eq!(f.get(b"8").unwrap().unwrap(), b"8,Ann,plain\r\n");
    // The key is the unescaped field.
    assert_eq!(f.get(b"9,x").unwrap().unwrap(), b"\"9,x\",Bob,q\r\n");
    assert_eq!(f.get(b"\"9,x\"").unwrap(), None);
    assert_eq!(f.get(b"id").unwrap(), None);
}

/// A key field named by a name two header columns have is refused (keying by either
/// would be a guess), naming both; by number it seals.
#[test]
fn a_key_field_name_the_header_repeats_is_refused() {
    let dir = tmp();
    let path = dir.path().join("d.vkr");
    let ring = Keyring::generate().unwrap();
    let input = b"id,a,a\n1,x,y\n";
    let r = seal_bytes(
        &path,
        input,
        &settings(InputFormat::Csv, "a", true, 512),
        &ring,
    );
    match r {
        Err(RecordsError::Input { line: 1, problem }) => {
            assert!(
                problem.contains("\"a\" more than once (fields 2 and 3)"),
                "{problem}"
            )
        }
        other => panic!("{other:?}"),
    }
    assert!(!path.exists());
    seal_bytes(
        &path,
        input,
        &settings(InputFormat::Csv, "3", true, 512),
        &ring,
    )
    .unwrap();
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    assert_eq!(f.get(b"y").unwrap().unwrap(), b"1,x,y\n");
}

#[test]
fn tsv_and_jsonl_keys() {
    let dir = tmp();
    let ring = Keyring::generate().unwrap();
    let path = dir.path().join("t.vkr");
    let tsv = b"a\t1\tx\nb\t2\ty\n".to_vec();
    seal_bytes(
        &path,
        &tsv,
        &settings(InputFormat::Tsv, "2", false, 4096),
        &ring,
    )
    .unwrap();
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    assert_eq!(f.get(b"2").unwrap().unwrap(), b"b\t2\ty\n");
    assert_eq!(open_all(&mut f).unwrap(), tsv);
    let path = dir.path().join("j.vkr");
    let jsonl = b"{\"id\": \"u1\", \"v\": 1}\n{\"v\": 2, \"id\": 42}\n".to_vec();
    seal_bytes(
        &path,
        &jsonl,
        &settings(InputFormat::Jsonl, "id", false, 4096),
        &ring,
    )
    .unwrap();
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    assert_eq!(
        f.get(b"u1").unwrap().unwrap(),
        b"{\"id\": \"u1\", \"v\": 1}\n"
    );
    assert_eq!(f.get(b"42").unwrap().unwrap(), b"{\"v\": 2, \"id\": 42}\n");
    assert_eq!(open_all(&mut f).unwrap(), jsonl);
}

#[test]
fn input_errors_name_their_line() {
    let dir = tmp();
    let ring = Keyring::generate().unwrap();
    let path = dir.path().join("r.vkr");
    let s = settings(InputFormat::Csv, "1", false, 4096);
    match seal_bytes(&path, b"a,1\nb,2\nc,3\na,4\n", &s, &ring) {
        Err(RecordsError::DuplicateKey {
            first: 1,
            second: 4,
        }) => {}
        other => panic!("{other:?}"),
    }
    match seal_bytes(&path, b"a,1\nb,2\n\nc,3\n", &s, &ring) {
        Err(RecordsError::Input { line: 3, .. }) => {}
        other => panic!("{other:?}"),
    }
    if let Err(RecordsError::DuplicateKey { .. }) =
        seal_bytes(&path, b"a,1\n\"b,2\nc,3\n", &s, &ring)
    {
        panic!("an unterminated quote swallows lines, no duplicate");
    }
    // Errors after many pages went to the sealing thread, on both paths.
    let mut many: Vec<u8> = (0..5000)
        .flat_map(|i| format!("k{i},{i}\n").into_bytes())
        .collect();
    for threads in [1, 2] {
        let s = Settings {
            threads,
            ..s.clone()
        };
        let mut dup = many.clone();
        dup.extend_from_slice(b"k17,again\n");
        match seal_bytes(&path, &dup, &s, &ring) {
            Err(RecordsError::DuplicateKey {
                first: 18,
                second: 5001,
            }) => {}
            other => panic!("{other:?}"),
        }
        let mut bad = many.clone();
        bad.extend_from_slice(b"\n");
        match seal_bytes(&path, &bad, &s, &ring) {
            Err(RecordsError::Input { line: 5001, .. }) => {}
            other => panic!("{other:?}"),
        }
    }
    many.truncate(0);
    let by_name = settings(InputFormat::Csv, "id", true, 4096);
    match seal_bytes(&path, b"key,v\n1,2\n", &by_name, &ring) {
        Err(RecordsError::Input { line: 1, problem }) => assert!(problem.contains("\"id\"")),
        other => panic!("{other:?}"),
    }
    let third = settings(InputFormat::Tsv, "3", false, 4096);
    match seal_bytes(&path, b"a\tb\tc\na\tb\n", &third, &ring) {
        Err(RecordsError::Input { line: 2, problem }) => assert!(problem.contains("no field 3")),
        other => panic!("{other:?}"),
    }
    let json = settings(InputFormat::Jsonl, "id", false, 4096);
    match seal_bytes(&path, b"{\"id\":1}\n{\"id\":[1]}\n", &json, &ring) {
        Err(RecordsError::Input { line: 2, .. }) => {}
        other => panic!("{other:?}"),
    }
    match seal_bytes(
        &path,
        &[b"1,".as_slice(), &vec![b'x'; 600]].concat(),
        &settings(InputFormat::Csv, "1", false, 512),
        &ring,
    ) {
        Err(RecordsError::RecordTooLarge { line: 1, .. }) => {}
        other => panic!("{other:?}"),
    }
}

/// The duplicate a seal reports, found simply: the first line whose key an earlier line
/// has, and the first line with that key (lines from 1, no header row).
fn first_repeat(keys: &[u16]) -> Option<(u64, u64)> {
    let mut seen = std::collections::HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        if let Some(&first) = seen.get(k) {
            return Some((first, i as u64 + 1));
        }
        seen.insert(*k, i as u64 + 1);
    }
    None
}

#[test]
fn many_copies_of_one_key_are_reported_at_once() {
    // Every pair of a run of equal keys was compared, each comparison reading two
    // pages: 1,000 copies took 8 s, 4,000 more than two minutes.
    let dir = tmp();
    let ring = Keyring::generate().unwrap();
    let path = dir.path().join("r.vkr");
    let s = settings(InputFormat::Csv, "1", false, 4096);
    let mut input: Vec<u8> = (0..3000)
        .flat_map(|i| format!("k{i},{i}\n").into_bytes())
        .collect();
    for i in 0..20_000 {
        input.extend_from_slice(format!("same,{i}\n").as_bytes());
    }
    for i in 0..3000 {
        input.extend_from_slice(format!("k{i},again\n").as_bytes());
    }
    // On a thread, so that a return to the quadratic search fails here rather than
    // holding the suite until CI's limit (it took hours; this takes milliseconds).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(seal_bytes(&path, &input, &s, &ring));
        drop(dir);
    });
    match rx.recv_timeout(std::time::Duration::from_secs(300)) {
        Ok(Err(RecordsError::DuplicateKey {
            first: 3001,
            second: 3002,
        })) => {}
        other => panic!("{other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    /// A seal with repeated keys reports the first line that repeats a key and the first
    /// line with that key, as a scan that remembers every key would.
    #[test]
    fn the_first_repeated_key_is_reported(
        keys in proptest::collection::vec(0u16..600, 1..900),
        width in 0usize..60,
        page in prop_oneof![Just(512u32), Just(4096u32)],
    ) {
        let dir = tmp();
        let ring = Keyring::generate().unwrap();
        let path = dir.path().join("r.vkr");
        let s = settings(InputFormat::Csv, "1", false, page);
        let input: Vec<u8> = keys
            .iter()
            .flat_map(|k| format!("k{k},{}\n", "v".repeat(width)).into_bytes())
            .collect();
        match (seal_bytes(&path, &input, &s, &ring), first_repeat(&keys)) {
            (Err(RecordsError::DuplicateKey { first, second }), Some(want)) => {
                prop_assert_eq!((first, second), want);
            }
            (Ok(n), None) => prop_assert_eq!(n, keys.len() as u64),
            (got, want) => prop_assert!(false, "{:?} against {:?}", got, want),
        }
    }
}

#[test]
fn wrong_key_and_passphrases() {
    let dir = tmp();
    let path = dir.path().join("r.vkr");
    let ring = Keyring::generate().unwrap();
    let other = Keyring::generate().unwrap();
    let input = lines_input(50);
    let (prefix, mut recs) = parse(&input, InputFormat::Lines, None, false, 1).unwrap();
    let mut f = std::fs::File::create(&path).unwrap();
    let cheap = (64, 1, 1);
    seal(
        &mut recs,
        prefix,
        &Settings::default(),
        &[
            Unlock::Keyring(&ring),
            Unlock::Passphrase(b"correct horse", cheap),
        ],
        &mut f,
        &NoProgress,
    )
    .unwrap();
    drop(f);
    for bad in [
        Unlock::Keyring(&other),
        Unlock::Passphrase(b"correct hors", cheap),
    ] {
        assert!(matches!(
            RecordFile::open(&path, &[bad], false),
            Err(RecordsError::WrongKey)
        ));
    }
    let mut f =
        RecordFile::open(&path, &[Unlock::Passphrase(b"correct horse", cheap)], false).unwrap();
    assert_eq!(open_all(&mut f).unwrap(), input);
    // Any of several secrets given may open it.
    let mut f = RecordFile::open(
        &path,
        &[Unlock::Keyring(&other), Unlock::Keyring(&ring)],
        false,
    )
    .unwrap();
    assert_eq!(open_all(&mut f).unwrap(), input);
    // Not a record file; a newer version.
    std::fs::write(dir.path().join("x"), vec![b'x'; 200_000]).unwrap();
    assert!(matches!(
        RecordFile::open(&dir.path().join("x"), &[Unlock::Keyring(&ring)], false),
        Err(RecordsError::NotRecords)
    ));
    let mut bytes = std::fs::read(&path).unwrap();
    for copy in 0..2 {
        bytes[copy * HEADER_SIZE + 8] = 3;
    }
    std::fs::write(dir.path().join("v3"), &bytes).unwrap();
    assert!(matches!(
        RecordFile::open(&dir.path().join("v3"), &[Unlock::Keyring(&ring)], false),
        Err(RecordsError::Newer(3))
    ));
}

#[test]
fn rekey_rewrites_only_the_header() {
    let dir = tmp();
    let path = dir.path().join("r.vkr");
    let ring = Keyring::generate().unwrap();
    let new = Keyring::generate().unwrap();
    let input = lines_input(300);
    seal_bytes(&path, &input, &Settings::default(), &ring).unwrap();
    let before = std::fs::read(&path).unwrap();
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
    let slot = Slot::create(&Unlock::Keyring(&new), &f.file_id(), &f.data_key()).unwrap();
    f.set_slots(vec![slot]).unwrap();
    drop(f);
    let after = std::fs::read(&path).unwrap();
    assert_eq!(before.len(), after.len());
    assert_eq!(
        before[2 * HEADER_SIZE..],
        after[2 * HEADER_SIZE..],
        "pages untouched"
    );
    assert!(matches!(
        RecordFile::open(&path, &[Unlock::Keyring(&ring)], false),
        Err(RecordsError::WrongKey)
    ));
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&new)], false).unwrap();
    assert_eq!(open_all(&mut f).unwrap(), input);
}

/// A model of a record file: keys and raw records in file order.
#[derive(Default, Clone)]
struct Model(Vec<(Vec<u8>, Vec<u8>)>);

impl Model {
    fn append(&mut self, recs: &[(Vec<u8>, Vec<u8>)]) {
        for (k, _) in recs {
            self.0.retain(|(mk, _)| mk != k);
        }
        // The last of duplicates in one batch wins.
        let mut batch: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for (k, v) in recs {
            batch.retain(|(bk, _)| bk != k);
            batch.push((k.clone(), v.clone()));
        }
        self.0.extend(batch);
    }
    fn delete(&mut self, keys: &[Vec<u8>]) {
        self.0.retain(|(k, _)| !keys.contains(k));
    }
    fn bytes(&self) -> Vec<u8> {
        self.0.iter().flat_map(|(_, v)| v.clone()).collect()
    }
}

fn csv_records(recs: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    recs.iter().flat_map(|(_, v)| v.clone()).collect()
}

pub(super) fn append_csv(f: &mut RecordFile, input: &[u8]) -> (u64, u64, u64) {
    let (_, recs) = parse(
        input,
        InputFormat::Csv,
        Some(&KeyField::Number(1)),
        false,
        1,
    )
    .unwrap();
    let recs: Vec<InputRecord<'_>> = recs.collect::<Result<_, _>>().unwrap();
    f.commit(recs, Vec::new()).unwrap()
}

#[derive(Debug, Clone)]
enum Op {
    Append(Vec<(u16, u8)>),
    Delete(Vec<u16>),
}

/// One to five updates: appends of up to `append` rows and deletes of up to `delete`
/// keys, keys below `keys` and row lengths below `len`.
fn ops(keys: u16, len: u8, append: usize, delete: usize) -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(
        prop_oneof![
            proptest::collection::vec((0..keys, 0..len), 1..append).prop_map(Op::Append),
            proptest::collection::vec(0..keys, 1..delete).prop_map(Op::Delete),
        ],
        1..6,
    )
}

/// The rows `make` gives for the first of each key in `initial`.
fn first_rows(
    initial: &[(u16, u8)],
    make: impl Fn(u16, u8) -> (Vec<u8>, Vec<u8>),
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut seen = std::collections::HashSet::new();
    initial
        .iter()
        .filter(|(k, _)| seen.insert(*k))
        .map(|&(k, l)| make(k, l))
        .collect()
}

fn row(k: u16, len: u8) -> (Vec<u8>, Vec<u8>) {
    let key = format!("k{k}").into_bytes();
    let raw = format!("k{k},{}\n", "v".repeat(usize::from(len))).into_bytes();
    (key, raw)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// Appends, supersedes and deletes agree with the model; every state verifies and
    /// every key is found (or not) as the model says.
    #[test]
    fn updates_follow_the_model(
        initial in proptest::collection::vec((0u16..400, 0u8..120), 0..300),
        ops in ops(400, 120, 120, 60),
    ) {
        let dir = tmp();
        let path = dir.path().join("r.vkr");
        let ring = Keyring::generate().unwrap();
        let mut model = Model::default();
        let first = first_rows(&initial, row);
        model.append(&first);
        seal_bytes(&path, &csv_records(&first), &settings(InputFormat::Csv, "1", false, 512), &ring).unwrap();
        for op in ops {
            let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
            match op {
                Op::Append(rows) => {
                    let recs: Vec<_> = rows.iter().map(|&(k, l)| row(k, l)).collect();
                    model.append(&recs);
                    append_csv(&mut f, &csv_records(&recs));
                }
                Op::Delete(keys) => {
                    let keys: Vec<Vec<u8>> = keys.iter().map(|k| format!("k{k}").into_bytes()).collect();
                    model.delete(&keys);
                    f.commit(Vec::new(), keys).unwrap();
                }
            }
            drop(f);
            let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
            prop_assert_eq!(open_all(&mut f).unwrap(), model.bytes());
            prop_assert_eq!(f.verify(&NoProgress).unwrap().records, model.0.len() as u64);
            for k in 0..400u16 {
                let key = format!("k{k}").into_bytes();
                let want = model.0.iter().find(|(mk, _)| *mk == key).map(|(_, v)| v.clone());
                prop_assert_eq!(f.get(&key).unwrap(), want);
            }
            for (i, (_, v)) in model.0.iter().enumerate().step_by(7) {
                prop_assert_eq!(f.get_number(i as u64 + 1).unwrap(), Some(v.clone()));
            }
        }
    }
}

/// A record of shared pieces (so that a compressed page can compress worse once a
/// record is gone): key `m{k}`, then `len` pieces drawn from a small pool by `k`, `len`
/// and `salt`.
fn mixed_row(k: u16, len: u8, salt: u8) -> (Vec<u8>, Vec<u8>) {
    const POOL: &[u8] = b"qwertyuiopasdfghjklzxcvbnmQWERTYUIOPASDFGHJKLZXCVBNM0123456789";
    let key = format!("m{k}").into_bytes();
    let mut raw = key.clone();
    raw.push(b',');
    let mut x = (u64::from(k) << 16 | u64::from(len) << 8 | u64::from(salt)) | 1;
    for _ in 0..len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let at = (x % (POOL.len() as u64 - 4)) as usize;
        if x & 0x300 == 0 {
            raw.push(POOL[at]);
        } else {
            raw.extend_from_slice(&POOL[at..at + 4]);
        }
    }
    raw.push(b'\n');
    (key, raw)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]
    /// As [`updates_follow_the_model`], for compressed and plain files in both page
    /// sizes, with several commits on one handle and every get between them (pages the
    /// handle's cache holds from before its own commit must not answer after it). File
    /// order is the model's, except where a delete from a compressed page moved records
    /// from the page's end to the file's end (docs/RECORDS-FORMAT.md, "Compressed
    /// pages"): then the same records in the file's new order, which the model takes on.
    #[test]
    fn commits_on_one_handle_follow_the_model(
        compress in any::<bool>(),
        big_pages in any::<bool>(),
        salt in any::<u8>(),
        initial in proptest::collection::vec((0u16..300, 0u8..60), 0..250),
        ops in ops(300, 60, 80, 80),
    ) {
        use std::sync::atomic::Ordering;
        let dir = tmp();
        let path = dir.path().join("r.vkr");
        let ring = Keyring::generate().unwrap();
        let mut model = Model::default();
        let first = first_rows(&initial, |k, l| mixed_row(k, l, salt));
        model.append(&first);
        let mut s = settings(InputFormat::Csv, "1", false, if big_pages { 4096 } else { 512 });
        s.compression = compress.then_some(3);
        seal_bytes(&path, &csv_records(&first), &s, &ring).unwrap();
        // Gets by key, then file order (adopting a move's), then gets by number.
        let check = |f: &mut RecordFile, model: &mut Model, moved: bool| -> Result<(), TestCaseError> {
            for k in 0..300u16 {
                let key = format!("m{k}").into_bytes();
                let want = model.0.iter().find(|(mk, _)| *mk == key).map(|(_, v)| v.clone());
                prop_assert_eq!(f.get(&key).unwrap(), want, "key m{}", k);
            }
            let all = open_all(f).unwrap();
            if moved && compress {
                let lines = |b: &[u8]| {
                    let mut v: Vec<Vec<u8>> = b.split_inclusive(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
                    v.sort();
                    v
                };
                prop_assert_eq!(lines(&all), lines(&model.bytes()));
                model.0 = all
                    .split_inclusive(|&c| c == b'\n')
                    .map(|l| (l[..l.iter().position(|&c| c == b',').unwrap()].to_vec(), l.to_vec()))
                    .collect();
            } else {
                prop_assert_eq!(all, model.bytes());
            }
            for (i, (_, v)) in model.0.iter().enumerate().step_by(3) {
                prop_assert_eq!(f.get_number(i as u64 + 1).unwrap(), Some(v.clone()));
            }
            Ok(())
        };
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
        // Every page in the cache before the first commit.
        check(&mut f, &mut model, false)?;
        for (n, op) in ops.into_iter().enumerate() {
            // Other tests move records too: a count that changed only lets this check
            // take on the file's order (after checking it holds the same records).
            let before = super::update::MOVED.load(Ordering::Relaxed);
            match op {
                Op::Append(rows) => {
                    let recs: Vec<_> = rows.iter().map(|&(k, l)| mixed_row(k, l, salt.wrapping_add(n as u8))).collect();
                    model.append(&recs);
                    append_csv(&mut f, &csv_records(&recs));
                }
                Op::Delete(keys) => {
                    let keys: Vec<Vec<u8>> = keys.iter().map(|k| format!("m{k}").into_bytes()).collect();
                    model.delete(&keys);
                    f.commit(Vec::new(), keys).unwrap();
                }
            }
            let moved = super::update::MOVED.load(Ordering::Relaxed) != before;
            check(&mut f, &mut model, moved)?;
        }
        drop(f);
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
        prop_assert_eq!(f.verify(&NoProgress).unwrap().records, model.0.len() as u64);
        check(&mut f, &mut model, false)?;
    }
}

/// `rows` sealed as CSV keyed by field 1, in 512-byte pages, under a new key in a new
/// folder: the folder (removed when dropped), the file and the key.
fn sealed_rows(rows: &[(Vec<u8>, Vec<u8>)]) -> (tempfile::TempDir, std::path::PathBuf, Keyring) {
    let dir = tmp();
    let path = dir.path().join("r.vkr");
    let ring = Keyring::generate().unwrap();
    seal_bytes(
        &path,
        &csv_records(rows),
        &settings(InputFormat::Csv, "1", false, 512),
        &ring,
    )
    .unwrap();
    (dir, path, ring)
}

#[test]
fn appends_grow_the_index() {
    let mut model = Model::default();
    let first: Vec<_> = (0..50).map(|k| row(k, 10)).collect();
    model.append(&first);
    let (_dir, path, ring) = sealed_rows(&first);
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
    let buckets_before = f.info().unwrap().live_pages;
    for round in 0..20u16 {
        let recs: Vec<_> = (0..60).map(|i| row(50 + round * 60 + i, 3)).collect();
        model.append(&recs);
        let (added, replaced, _) = append_csv(&mut f, &csv_records(&recs));
        assert_eq!((added, replaced), (60, 0));
        // Read on the same handle between commits: the refs and pages it held before a
        // commit must not answer after it.
        for (k, v) in &model.0 {
            assert_eq!(f.get(k).unwrap().as_ref(), Some(v));
        }
    }
    assert!(f.info().unwrap().live_pages > buckets_before);
    assert_eq!(open_all(&mut f).unwrap(), model.bytes());
    f.verify(&NoProgress).unwrap();
    for (k, v) in &model.0 {
        assert_eq!(f.get(k).unwrap().as_ref(), Some(v));
    }
}

/// Gets through two levels of directory pages, without a page cache (so that every get
/// finds its pages' refs again, from the table of refs once a directory page was read),
/// in an order that visits pages far apart, give every record, by key and by number; a
/// key that is not there is not found.
#[test]
fn gets_through_two_directory_levels_find_every_record() {
    let rows: Vec<_> = (0..5000).map(|k| row(k, 100)).collect();
    let (_dir, path, ring) = sealed_rows(&rows);
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    assert_eq!((f.root.data.depth, f.root.index.depth), (2, 1));
    f.set_cache_bytes(0);
    for round in 0..2 {
        for i in 0..rows.len() {
            let (k, v) = &rows[(i * 2083 + round) % rows.len()];
            assert_eq!(f.get(k).unwrap().as_ref(), Some(v));
        }
    }
    for (i, (_, v)) in rows.iter().enumerate().step_by(13) {
        assert_eq!(f.get_number(i as u64 + 1).unwrap().as_ref(), Some(v));
    }
    assert_eq!(f.get(b"k5000").unwrap(), None);
}

/// A reader open while a writer commits (supersedes, deletes, appends, in the same
/// process and so through the same page cache as the reader's map) keeps answering the
/// content it opened, through its map, with and without its page cache; a fresh open
/// gives the new content.
#[test]
fn a_reader_keeps_its_commit_while_a_writer_commits() {
    let first: Vec<_> = (0..3000).map(|k| row(k, 60)).collect();
    let (_dir, path, ring) = sealed_rows(&first);
    let mut cached = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    let mut uncached = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    uncached.set_cache_bytes(0);
    let mut model = Model::default();
    model.append(&first);
    let mut writer = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
    for round in 0..4u16 {
        // New values for some keys, new keys, and some keys deleted.
        let recs: Vec<_> = (0..400)
            .map(|i| row(round * 700 + i, 10 + round as u8))
            .chain((0..50).map(|i| row(3000 + round * 50 + i, 5)))
            .collect();
        model.append(&recs);
        append_csv(&mut writer, &csv_records(&recs));
        let gone: Vec<Vec<u8>> = (0..30)
            .map(|i| format!("k{}", round * 700 + 500 + i).into_bytes())
            .collect();
        model.delete(&gone);
        writer.commit(Vec::new(), gone).unwrap();
        for (i, (k, v)) in first.iter().enumerate() {
            if (i + usize::from(round)) % 7 == 0 {
                assert_eq!(cached.get(k).unwrap().as_ref(), Some(v), "round {round}");
                assert_eq!(uncached.get(k).unwrap().as_ref(), Some(v), "round {round}");
            }
        }
        assert_eq!(cached.get(b"k3000").unwrap(), None);
    }
    drop(writer);
    assert_eq!(open_all(&mut cached).unwrap(), csv_records(&first));
    let mut fresh = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    assert_eq!(open_all(&mut fresh).unwrap(), model.bytes());
    for (k, v) in &model.0 {
        assert_eq!(fresh.get(k).unwrap().as_ref(), Some(v));
    }
}

#[test]
fn line_files_number_appended_lines_on() {
    let dir = tmp();
    let path = dir.path().join("r.vkr");
    let ring = Keyring::generate().unwrap();
    seal_bytes(&path, b"a\nb\n", &Settings::default(), &ring).unwrap();
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
    f.commit(Vec::new(), vec![b"1".to_vec()]).unwrap();
    let first = f.info().unwrap().next_number;
    assert_eq!(first, 3);
    let (_, recs) = parse(b"c\nd\n", InputFormat::Lines, None, false, first).unwrap();
    f.commit(recs.collect::<Result<_, _>>().unwrap(), Vec::new())
        .unwrap();
    assert_eq!(open_all(&mut f).unwrap(), b"b\nc\nd\n");
    assert_eq!(f.get(b"4").unwrap().unwrap(), b"d\n");
    assert_eq!(f.get(b"1").unwrap(), None);
    assert_eq!(f.info().unwrap().next_number, 5);
}

/// Opening, reading everything and verifying: either the exact content or an error.
fn outcome(path: &Path, ring: &Keyring) -> Result<Vec<u8>, RecordsError> {
    let mut f = RecordFile::open(path, &[Unlock::Keyring(ring)], false)?;
    let all = open_all(&mut f)?;
    f.verify(&NoProgress)?;
    Ok(all)
}

fn small_file(dir: &Path, ring: &Keyring) -> (std::path::PathBuf, Vec<u8>) {
    let path = dir.join("small.vkr");
    let input: Vec<u8> = (0..40)
        .map(|i| format!("{i},value {i}\n"))
        .collect::<String>()
        .into_bytes();
    seal_bytes(
        &path,
        &input,
        &settings(InputFormat::Csv, "1", false, 512),
        ring,
    )
    .unwrap();
    (path, input)
}

#[test]
fn every_bit_flip_is_detected_or_harmless() {
    let dir = tmp();
    let ring = Keyring::generate().unwrap();
    let (path, input) = small_file(dir.path(), &ring);
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    assert_eq!(outcome(&path, &ring).unwrap(), input);
    let bytes = std::fs::read(&path).unwrap();
    let mut file = std::fs::File::options()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    // The used bytes of each header copy (through its checksum), the unused rest one
    // bit per 61 bytes, and every page.
    let mut offsets: Vec<usize> = Vec::new();
    for copy in 0..2 {
        let base = copy * HEADER_SIZE;
        let used = used_len(&bytes[base..]);
        offsets.extend(base..base + used);
        offsets.extend((base + used..base + HEADER_SIZE).step_by(61));
    }
    offsets.extend(2 * HEADER_SIZE..len);
    let (mut detected, mut survived) = (0, 0);
    for &at in &offsets {
        for bit in 0..8 {
            let flipped = bytes[at] ^ (1 << bit);
            file.seek(SeekFrom::Start(at as u64)).unwrap();
            file.write_all(&[flipped]).unwrap();
            match outcome(&path, &ring) {
                Ok(all) => {
                    assert_eq!(
                        all, input,
                        "flip at {at} bit {bit} changed the content silently"
                    );
                    survived += 1;
                }
                Err(RecordsError::Read(e)) => panic!("flip at {at}: unexpected I/O error {e}"),
                Err(_) => detected += 1,
            }
            file.seek(SeekFrom::Start(at as u64)).unwrap();
            file.write_all(&[bytes[at]]).unwrap();
        }
    }
    // Every flip in a page is detected; header flips are detected or survived thanks to
    // the other copy.
    assert!(
        detected >= (len - 2 * HEADER_SIZE) * 8,
        "{detected} detected, {survived} survived"
    );
}

#[test]
fn truncation_at_every_page_boundary_is_detected() {
    let dir = tmp();
    let ring = Keyring::generate().unwrap();
    let (path, input) = small_file(dir.path(), &ring);
    let bytes = std::fs::read(&path).unwrap();
    let cut = dir.path().join("cut.vkr");
    let mut lens: Vec<usize> = (0..=bytes.len() - 1).step_by(512).collect();
    lens.extend([
        1,
        7,
        8,
        100,
        HEADER_SIZE - 1,
        HEADER_SIZE + 1,
        bytes.len() - 1,
    ]);
    for len in lens {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        match outcome(&cut, &ring) {
            Ok(all) => panic!("truncated to {len} bytes yet opened ({} bytes)", all.len()),
            Err(
                RecordsError::Truncated | RecordsError::NotRecords | RecordsError::CorruptHeader,
            ) => {}
            Err(e) => panic!("truncated to {len}: {e}"),
        }
    }
    std::fs::write(&cut, &bytes).unwrap();
    assert_eq!(outcome(&cut, &ring).unwrap(), input);
}

#[test]
fn swapped_replayed_and_spliced_pages_are_detected() {
    let dir = tmp();
    let ring = Keyring::generate().unwrap();
    let (path, _) = small_file(dir.path(), &ring);
    let bytes = std::fs::read(&path).unwrap();
    let pages = (bytes.len() - 2 * HEADER_SIZE) / 512;
    let page =
        |b: &[u8], i: usize| b[2 * HEADER_SIZE + i * 512..2 * HEADER_SIZE + (i + 1) * 512].to_vec();
    let put = |b: &mut Vec<u8>, i: usize, p: &[u8]| {
        b[2 * HEADER_SIZE + i * 512..2 * HEADER_SIZE + (i + 1) * 512].copy_from_slice(p)
    };
    let bad = dir.path().join("bad.vkr");
    // Swap every pair of pages.
    for i in 0..pages {
        for j in i + 1..pages {
            let mut b = bytes.clone();
            let (pi, pj) = (page(&bytes, i), page(&bytes, j));
            put(&mut b, i, &pj);
            put(&mut b, j, &pi);
            std::fs::write(&bad, &b).unwrap();
            assert!(
                matches!(outcome(&bad, &ring), Err(RecordsError::PageAuth { .. })),
                "swap {i} {j}"
            );
        }
    }
    // A page from another file sealed from the same input with the same key.
    let other_dir = tmp();
    let (other, _) = small_file(other_dir.path(), &ring);
    let other = std::fs::read(other).unwrap();
    for i in 0..pages {
        let mut b = bytes.clone();
        put(&mut b, i, &page(&other, i));
        std::fs::write(&bad, &b).unwrap();
        assert!(
            matches!(outcome(&bad, &ring), Err(RecordsError::PageAuth { .. })),
            "splice {i}"
        );
    }
    // An older version of a page written over its replacement (replay).
    std::fs::write(&bad, &bytes).unwrap();
    let mut f = RecordFile::open(&bad, &[Unlock::Keyring(&ring)], true).unwrap();
    append_csv(&mut f, b"0,changed\n");
    drop(f);
    let updated = std::fs::read(&bad).unwrap();
    let new_pages = (updated.len() - 2 * HEADER_SIZE) / 512;
    let mut replays = 0;
    for new in pages..new_pages {
        for old in 0..pages {
            let mut b = updated.clone();
            put(&mut b, new, &page(&updated, old));
            std::fs::write(&bad, &b).unwrap();
            assert!(
                matches!(outcome(&bad, &ring), Err(RecordsError::PageAuth { .. })),
                "replay {old} over {new}"
            );
            replays += 1;
        }
    }
    assert!(replays > 0);
}

/// The used length of a format-2 header copy starting at `b[0]`.
fn used_len(b: &[u8]) -> usize {
    u32::from_le_bytes(b[20..24].try_into().unwrap()) as usize
}

#[test]
fn a_torn_header_write_leaves_the_old_or_the_new_content() {
    let dir = tmp();
    let ring = Keyring::generate().unwrap();
    let (path, input) = small_file(dir.path(), &ring);
    let old = std::fs::read(&path).unwrap();
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
    append_csv(&mut f, b"1,new one\n");
    drop(f);
    let new = std::fs::read(&path).unwrap();
    let want_new = {
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
        open_all(&mut f).unwrap()
    };
    assert_ne!(want_new, input);
    // The commit wrote copy B first, then A. Crashes at each point: B torn (A old);
    // B whole and A old; B whole and A torn.
    let (a, b) = (0..HEADER_SIZE, HEADER_SIZE..2 * HEADER_SIZE);
    let tear = |bytes: &mut Vec<u8>, r: std::ops::Range<usize>| {
        for x in &mut bytes[r.start + 100..r.start + 400] {
            *x = 0;
        }
    };
    let mut state = new.clone();
    state[a.clone()].copy_from_slice(&old[a.clone()]);
    tear(&mut state, b.clone());
    std::fs::write(&path, &state).unwrap();
    assert_eq!(
        outcome_read(&path, &ring).unwrap(),
        input,
        "B torn: the old content"
    );
    let mut state = new.clone();
    state[a.clone()].copy_from_slice(&old[a.clone()]);
    std::fs::write(&path, &state).unwrap();
    assert_eq!(
        outcome(&path, &ring).unwrap(),
        want_new,
        "B written: the new content"
    );
    let mut state = new.clone();
    tear(&mut state, a.clone());
    std::fs::write(&path, &state).unwrap();
    assert_eq!(
        outcome_read(&path, &ring).unwrap(),
        want_new,
        "A torn: the new content"
    );
    // Both copies torn: a clear error.
    tear(&mut state, b.clone());
    std::fs::write(&path, &state).unwrap();
    assert!(matches!(
        outcome(&path, &ring),
        Err(RecordsError::CorruptHeader)
    ));
}

/// Opening and reading everything (no verification, which a damaged copy fails).
fn outcome_read(path: &Path, ring: &Keyring) -> Result<Vec<u8>, RecordsError> {
    let mut f = RecordFile::open(path, &[Unlock::Keyring(ring)], false)?;
    open_all(&mut f)
}

#[test]
fn hostile_argon_parameters_are_refused() {
    let dir = tmp();
    let path = dir.path().join("r.vkr");
    let (prefix, mut recs) = parse(b"x\n", InputFormat::Lines, None, false, 1).unwrap();
    let mut f = std::fs::File::create(&path).unwrap();
    seal(
        &mut recs,
        prefix,
        &Settings::default(),
        &[Unlock::Passphrase(b"pw", (64, 1, 1))],
        &mut f,
        &NoProgress,
    )
    .unwrap();
    drop(f);
    // Raise m in both copies' slot (the first slot's body starts at 52 + 3) and fix the
    // checksums: the root then fails too, but the caps are checked before any work.
    let mut b = std::fs::read(&path).unwrap();
    for copy in 0..2 {
        let base = copy * HEADER_SIZE;
        b[base + 55..base + 59].copy_from_slice(&u32::MAX.to_le_bytes());
        let used = used_len(&b[base..]);
        let sum = xxhash_rust::xxh3::xxh3_64(&b[base..base + used - 8]);
        b[base + used - 8..base + used].copy_from_slice(&sum.to_le_bytes());
    }
    std::fs::write(&path, &b).unwrap();
    let start = std::time::Instant::now();
    assert!(matches!(
        RecordFile::open(&path, &[Unlock::Passphrase(b"pw", (64, 1, 1))], false),
        Err(RecordsError::ArgonLimits { .. })
    ));
    assert!(start.elapsed().as_secs() < 5);
    let mut buf = Vec::new();
    std::fs::File::open(&path)
        .unwrap()
        .read_to_end(&mut buf)
        .unwrap();
}

mod fields {
    use super::super::fields::{Field, FieldError, Options, decrypt, encrypt};
    use crate::keys::Keyring;

    fn opts(fields: &str, tokens: &str, header: bool) -> Options {
        Options {
            delimiter: b',',
            header,
            fields: Field::parse_list(fields),
            token_fields: Field::parse_list(tokens),
            bind: Vec::new(),
            context: b"customers".to_vec(),
            keep_tokens: false,
        }
    }

    /// Bound to columns after and before the encrypted one, one of them quoted, with a
    /// token column between: the values found by their place in the original row, token
    /// columns dropped or kept.
    #[test]
    fn bound_values_round_trip_and_follow_their_row() {
        let ring = Keyring::generate().unwrap();
        let o = Options {
            bind: Field::parse_list("note,id"),
            ..opts("ssn", "email", true)
        };
        let e = enc(&ring, &o, INPUT);
        assert_eq!(dec(&ring, &o, &e).unwrap(), INPUT);
        let kept = Options {
            keep_tokens: true,
            ..o.clone()
        };
        let k = String::from_utf8(dec(&ring, &kept, &e).unwrap()).unwrap();
        assert!(k.contains(",123-45-6789,\"hello, world\"\n"), "{k}");
        // Rows 1 and 3 hold the same ssn, bound to different notes and ids: swapped, both
        // fail.
        let text = String::from_utf8(e).unwrap();
        let mut rows: Vec<Vec<String>> = text
            .lines()
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        let (a, b) = (rows[1][3].clone(), rows[3][3].clone());
        rows[1][3] = b;
        rows[3][3] = a;
        let swapped: String = rows.iter().map(|r| r.join(",") + "\n").collect();
        assert!(matches!(
            dec(&ring, &o, swapped.as_bytes()),
            Err(FieldError::Decrypt { line: 2, .. })
        ));
    }

    fn enc(ring: &Keyring, o: &Options, input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        encrypt(ring, o, &mut &input[..], &mut out).unwrap();
        out
    }

    fn dec(ring: &Keyring, o: &Options, input: &[u8]) -> Result<Vec<u8>, FieldError> {
        let mut out = Vec::new();
        decrypt(ring, o, &mut &input[..], &mut out)?;
        Ok(out)
    }

    const INPUT: &[u8] = b"id,email,ssn,note\n1,a@x.org,123-45-6789,\"hello, world\"\n2,b@x.org,987-65-4321,\n3,a@x.org,123-45-6789,x\n";

    #[test]
    fn round_trip_with_tokens() {
        let ring = Keyring::generate().unwrap();
        let o = opts("email,ssn", "email", true);
        let e = enc(&ring, &o, INPUT);
        let text = String::from_utf8(e.clone()).unwrap();
        assert!(
            text.starts_with("id,email,email_token,ssn,note\n"),
            "{text}"
        );
        assert!(!text.contains("a@x.org") && !text.contains("123-45-6789"));
        // Equal values, equal tokens; the ciphertexts differ (random nonces).
        let rows: Vec<Vec<&str>> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect())
            .collect();
        assert_eq!(rows[0][2], rows[2][2]);
        assert_ne!(rows[0][2], rows[1][2]);
        assert_ne!(rows[0][1], rows[2][1]);
        // Overhead: 29 bytes before encoding.
        let raw = base64::Engine::decode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            rows[0][1],
        )
        .unwrap();
        assert_eq!(raw.len(), b"a@x.org".len() + 29);
        assert_eq!(dec(&ring, &o, &e).unwrap(), INPUT);
        // By number, without a header.
        let body = &INPUT[INPUT.iter().position(|&c| c == b'\n').unwrap() + 1..];
        let o = opts("2,3", "2", false);
        let e = enc(&ring, &o, body);
        assert_eq!(dec(&ring, &o, &e).unwrap(), body);
    }

    #[test]
    fn moved_tampered_and_wrong_key_fail() {
        let ring = Keyring::generate().unwrap();
        let o = opts("email,ssn", "", true);
        let e = String::from_utf8(enc(&ring, &o, INPUT)).unwrap();
        let mut lines: Vec<String> = e.lines().map(str::to_string).collect();
        // Swap the email and ssn ciphertexts of row 1.
        let mut f: Vec<String> = lines[1].split(',').map(str::to_string).collect();
        f.swap(1, 2);
        lines[1] = f.join(",");
        let moved = lines.join("\n") + "\n";
        assert!(matches!(
            dec(&ring, &o, moved.as_bytes()),
            Err(FieldError::Decrypt { line: 2, .. })
        ));
        // Flip one character of a ciphertext.
        let mut t = e.clone().into_bytes();
        let at = e.find("\n2,").unwrap() + 5;
        t[at] = if t[at] == b'A' { b'B' } else { b'A' };
        assert!(matches!(
            dec(&ring, &o, &t),
            Err(FieldError::Decrypt { line: 3, .. })
        ));
        // Another key (same id) or another context.
        let other = Keyring::generate().unwrap();
        assert!(matches!(
            dec(&other, &o, e.as_bytes()),
            Err(FieldError::Decrypt { .. })
        ));
        let mut o2 = o.clone();
        o2.context = b"orders".to_vec();
        assert!(matches!(
            dec(&ring, &o2, e.as_bytes()),
            Err(FieldError::Decrypt { .. })
        ));
    }

    #[test]
    fn rotated_keyrings_still_decrypt_old_values() {
        let mut ring = Keyring::generate().unwrap();
        let o = opts("ssn", "ssn", true);
        let old = enc(&ring, &o, INPUT);
        ring.add_generated().unwrap();
        let new = enc(&ring, &o, INPUT);
        assert_eq!(dec(&ring, &o, &old).unwrap(), INPUT);
        assert_eq!(dec(&ring, &o, &new).unwrap(), INPUT);
        // Tokens change with the key.
        let tok = |b: &[u8]| {
            String::from_utf8(b.to_vec())
                .unwrap()
                .lines()
                .nth(1)
                .unwrap()
                .split(',')
                .nth(3)
                .unwrap()
                .to_string()
        };
        assert_ne!(tok(&old), tok(&new));
    }

    #[test]
    fn missing_fields_are_named() {
        let ring = Keyring::generate().unwrap();
        let mut out = Vec::new();
        let r = encrypt(&ring, &opts("phone", "", true), &mut &INPUT[..], &mut out);
        assert!(matches!(r, Err(FieldError::NoField { .. })));
        let r = encrypt(&ring, &opts("email", "", false), &mut &INPUT[..], &mut out);
        assert!(matches!(r, Err(FieldError::NeedHeader)));
        let r = encrypt(&ring, &opts("9", "", false), &mut &INPUT[..], &mut out);
        assert!(matches!(r, Err(FieldError::NoField { line: 1, .. })));
        // A name two columns have: encrypting the first alone would leave the second in
        // the clear. Refused for every list, naming both; by number it works.
        let dup = b"id,a,a\n1,x,y\n";
        for o in [
            opts("a", "", true),
            opts("id", "a", true),
            Options {
                bind: Field::parse_list("a"),
                ..opts("id", "", true)
            },
        ] {
            let r = encrypt(&ring, &o, &mut &dup[..], &mut out);
            assert!(
                matches!(
                    r,
                    Err(FieldError::Ambiguous {
                        first: 2,
                        second: 3,
                        ..
                    })
                ),
                "{r:?}"
            );
        }
        let o = opts("2,3", "", true);
        assert_eq!(dec(&ring, &o, &enc(&ring, &o, dup)).unwrap(), dup);
    }

    /// A row shorter (or longer) than the header, holding the chosen columns: what
    /// encrypt-fields takes, decrypt-fields gives back (it used to ask every row for the
    /// header's width). Found by the field_values fuzz target.
    #[test]
    fn rows_of_another_width_than_the_header_round_trip() {
        let ring = Keyring::generate().unwrap();
        let input = b"id,email,ssn,note\n1,a@x.org,123\n2,b@x.org,456,x,extra\n3,c\n";
        for o in [
            opts("email", "email,id", true),
            Options {
                bind: Field::parse_list("id"),
                ..opts("2", "2", true)
            },
        ] {
            let e = enc(&ring, &o, input);
            assert_eq!(dec(&ring, &o, &e).unwrap(), input);
        }
        // One column, empty values: a row of one empty value decrypts to `""`, not to an
        // empty line (which is no row), in the middle and at the end without a line end.
        let one = b"v\n\"\"\nx\n\"\"";
        let o = opts("v", "", true);
        assert_eq!(dec(&ring, &o, &enc(&ring, &o, one)).unwrap(), one);
        // A row without a chosen column is named.
        let o = opts("ssn", "", true);
        let mut out = Vec::new();
        let r = encrypt(&ring, &o, &mut &input[..], &mut out);
        assert!(
            matches!(r, Err(FieldError::NoField { line: 4, .. })),
            "{r:?}"
        );
        let e = enc(&ring, &o, &input[..input.len() - 4]);
        let r = dec(&ring, &o, &[&e[..], b"3,c\n"].concat());
        assert!(
            matches!(r, Err(FieldError::NoField { line: 4, .. })),
            "{r:?}"
        );
    }

    /// A column past a header row's width, or past the first row's without one: refused
    /// by both commands. decrypt-fields used to pass such a column through, ciphertext
    /// where plaintext was asked, with status 0.
    #[test]
    fn columns_past_the_header_are_refused_never_passed_through() {
        let ring = Keyring::generate().unwrap();
        let narrow = b"id,email\n1,a@x.org,123\n";
        let mut out = Vec::new();
        for f in ["3", "email,3"] {
            let r = encrypt(&ring, &opts(f, "", true), &mut &narrow[..], &mut out);
            assert!(
                matches!(r, Err(FieldError::NoField { line: 1, .. })),
                "{r:?}"
            );
        }
        let wide = opts("2,3", "", false);
        let sealed = enc(&ring, &wide, b"1,a@x.org,123\n");
        let with_header = [&b"id,email\n"[..], &sealed].concat();
        let r = dec(&ring, &opts("3", "", true), &with_header);
        assert!(
            matches!(r, Err(FieldError::NoField { line: 1, .. })),
            "{r:?}"
        );
        let ragged = [&b"1,a\n"[..], &sealed].concat();
        let r = dec(&ring, &wide, &ragged);
        assert!(
            matches!(r, Err(FieldError::NoField { line: 1, .. })),
            "{r:?}"
        );
        let bound = Options {
            bind: Field::parse_list("4"),
            ..opts("2", "", false)
        };
        let r = dec(&ring, &bound, &sealed);
        assert!(
            matches!(r, Err(FieldError::NoField { line: 1, .. })),
            "{r:?}"
        );
    }
}

#[test]
fn verified_output_is_all_or_nothing_on_every_path() {
    let dir = tmp();
    let path = dir.path().join("r.vkr");
    let ring = Keyring::generate().unwrap();
    let input: Vec<u8> = (0..6000)
        .flat_map(|i| format!("k{i},{}\n", "v".repeat(i % 90)).into_bytes())
        .collect();
    let mut with_header = b"key,value\n".to_vec();
    with_header.extend_from_slice(&input);
    let s = settings(InputFormat::Csv, "key", true, 512);
    seal_bytes(&path, &with_header, &s, &ring).unwrap();
    let unlock = [Unlock::Keyring(&ring)];
    // Held in memory (split between threads), two passes, and streaming.
    for (verified, budget) in [(true, 1 << 30), (true, 1000), (false, 0)] {
        let mut f = RecordFile::open(&path, &unlock, false).unwrap();
        let mut out = Vec::new();
        let n = f
            .write_all(&mut out, verified, budget, &NoProgress)
            .unwrap();
        assert_eq!(out, with_header, "verified {verified} budget {budget}");
        assert_eq!(n, with_header.len() as u64);
    }
    // A page late in the file fails: nothing is written when verifying first.
    let len = std::fs::metadata(&path).unwrap().len();
    let mut bytes = std::fs::read(&path).unwrap();
    // Data pages come first; 60% of the way is a data page in the second thread's half.
    let allocated = RecordFile::open(&path, &unlock, false)
        .unwrap()
        .info()
        .unwrap()
        .allocated;
    let late = 2 * HEADER_SIZE as u64 + allocated * 6 / 10 * 512 + 100;
    assert!(late < len);
    bytes[late as usize] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    for budget in [1 << 30, 1000] {
        let mut f = RecordFile::open(&path, &unlock, false).unwrap();
        let mut out = Vec::new();
        match f.write_all(&mut out, true, budget, &NoProgress) {
            Err(RecordsError::PageAuth { kind: "data", .. }) => {}
            other => panic!("{other:?}"),
        }
        assert!(
            out.is_empty(),
            "budget {budget}: {} bytes written",
            out.len()
        );
    }
}

/// Issue 17, item 1: after a delete and an append, every single-bit flip in the used
/// bytes of either header copy gives the current content or an error: never the
/// previous commit.
#[test]
fn every_header_bit_flip_after_updates_gives_the_current_content_or_an_error() {
    let dir = tmp();
    let ring = Keyring::generate().unwrap();
    let (path, _) = small_file(dir.path(), &ring);
    let mut states = vec![outcome(&path, &ring).unwrap()];
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
    f.commit(Vec::new(), vec![b"3".to_vec()]).unwrap();
    states.push(open_all(&mut f).unwrap());
    append_csv(&mut f, b"77,appended\n");
    let current = open_all(&mut f).unwrap();
    drop(f);
    assert!(states.iter().all(|s| *s != current));
    let bytes = std::fs::read(&path).unwrap();
    let mut file = std::fs::File::options()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let (mut current_seen, mut errors) = (0, 0);
    for copy in 0..2 {
        let base = copy * HEADER_SIZE;
        let used = used_len(&bytes[base..]);
        for (at, &byte) in bytes.iter().enumerate().skip(base).take(used) {
            for bit in 0..8 {
                file.seek(SeekFrom::Start(at as u64)).unwrap();
                file.write_all(&[byte ^ (1 << bit)]).unwrap();
                match outcome_read(&path, &ring) {
                    Ok(all) if all == current => current_seen += 1,
                    Ok(all) => panic!(
                        "flip at {at} bit {bit}: {}",
                        if states.contains(&all) {
                            "an earlier commit read as current"
                        } else {
                            "other content"
                        }
                    ),
                    Err(_) => errors += 1,
                }
                // And verification never passes with a damaged copy.
                assert!(
                    outcome(&path, &ring).is_err(),
                    "flip at {at} bit {bit} verified"
                );
                file.seek(SeekFrom::Start(at as u64)).unwrap();
                file.write_all(&[bytes[at]]).unwrap();
            }
        }
    }
    // Each copy's damage is covered by its twin: the current content every time.
    assert!(
        current_seen > 0 && errors == 0,
        "{current_seen} current, {errors} errors"
    );
}

/// The header's room: thirteen age recipient slots fit beside the largest root; a
/// fourteenth is refused before anything is written.
#[test]
fn slots_leave_room_for_the_largest_root() {
    use super::age::Identity;
    use super::codec::PageRef;
    use super::crypto::FileKeys;
    use super::header::{Header, check_slot_room};
    use super::root::{Compression, PageList, Root};
    let id = Identity::parse(
        "AGE-SECRET-KEY-1Q8THDLU2EMXLSGHEVG3YC0FVS8NZ5WJKSEYN0AKUDQ5V3K5MMGZQW6RHAA",
    )
    .unwrap();
    let file_id = [7u8; 16];
    let dk = [9u8; 32];
    let slot = Slot::for_recipient(&id.recipient(), &file_id, &dk).unwrap();
    let r = PageRef {
        physical: u64::MAX,
        generation: u64::MAX,
        count: u64::MAX,
    };
    let list = PageList {
        depth: 9,
        refs: vec![r; super::root::INLINE_REFS],
    };
    let root = Root {
        records: u64::MAX,
        next_number: u64::MAX,
        generation: u64::MAX,
        allocated: u64::MAX,
        format: InputFormat::Csv,
        header_row: true,
        key_field: "k".repeat(255),
        buckets: u32::MAX,
        index_layout: super::pages::IndexLayout::for_pages(u64::from(u32::MAX)),
        compression: Compression::ZstdDict,
        dictionary: Some(super::root::DictRef {
            level: 22,
            pages: r,
        }),
        prefix: Some(r),
        data: list.clone(),
        index: list,
    };
    let keys = FileKeys::new(&dk);
    let thirteen = vec![slot.clone(); 13];
    check_slot_room(&thirteen, HEADER_SIZE).unwrap();
    let h = Header::new(4096, HEADER_SIZE, file_id, 1, thirteen);
    assert!(h.encode(&keys, &root).is_ok());
    let fourteen = vec![slot; 14];
    assert!(matches!(
        check_slot_room(&fourteen, HEADER_SIZE),
        Err(RecordsError::SlotsTooLarge { .. })
    ));
}
