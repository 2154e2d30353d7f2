//! Record files damaged in arbitrary ways, opened with their key: never a panic, and
//! never a plausible wrong answer. Whatever a get, a batch of gets or a walk of the
//! records returns must be what the undamaged file's last commit holds (an error is
//! always allowed): never an older commit's answer, never a record it does not hold.
//!
//! The input picks one of four files (version 2 with and without compressed pages,
//! both with appended records; the committed version-1 fixtures) and then edits it: a
//! list of (operation, offset, byte) triples that set, flip, insert or delete bytes,
//! or truncate the file.
use crate::keys::Keyring;
use crate::progress::NoProgress;
use crate::records::file::{RecordFile, Settings, seal};
use crate::records::format::{InputFormat, Unlock};
use crate::records::input::{KeyField, parse};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const KEY: &str = include_str!("../../tests/fixtures/records-v1/key.txt");

/// A base file: its bytes, the keys asked, and what the undamaged file answers.
struct Base {
    bytes: Vec<u8>,
    keys: Vec<Vec<u8>>,
    answers: Answers,
}

/// Each key's record, and every record in file order.
#[derive(PartialEq, Debug)]
struct Answers {
    gets: Vec<Option<Vec<u8>>>,
    all: Vec<Vec<u8>>,
}

fn ring() -> Keyring {
    Keyring::parse(KEY).unwrap()
}

fn dir() -> &'static Path {
    static D: OnceLock<tempfile::TempDir> = OnceLock::new();
    D.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

fn answers(path: &Path, keys: &[Vec<u8>]) -> Answers {
    let ring = ring();
    let mut f = RecordFile::open(path, &[Unlock::Keyring(&ring)], false).unwrap();
    let gets = keys.iter().map(|k| f.get(k).unwrap()).collect();
    let mut all = Vec::new();
    f.for_each(&NoProgress, |r| {
        all.push(r.to_vec());
        Ok(())
    })
    .unwrap();
    Answers { gets, all }
}

fn sealed(name: &str, compression: Option<i32>) -> PathBuf {
    let path = dir().join(name);
    let mut csv = String::new();
    for i in 0..60u32 {
        csv.push_str(&format!("k{i},{}\n", "v".repeat((i as usize * 7) % 90)));
    }
    let settings = Settings {
        format: InputFormat::Csv,
        header_row: false,
        key_field: "1".into(),
        page_size: 512,
        next_number: 0,
        threads: 1,
        compression,
        dictionary: true,
        wide_tags: false,
    };
    let (prefix, mut recs) = parse(
        csv.as_bytes(),
        InputFormat::Csv,
        Some(&KeyField::Number(1)),
        false,
        1,
    )
    .unwrap();
    let mut out = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    let ring = ring();
    seal(
        &mut recs,
        prefix,
        &settings,
        &[Unlock::Keyring(&ring)],
        &mut out,
        &NoProgress,
    )
    .unwrap();
    drop(out);
    // Appended records: overflow pages behind some buckets, and a second commit.
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
    let more = "k3,changed\nk70,new\nk71,new too\n";
    let (_, recs) = parse(
        more.as_bytes(),
        InputFormat::Csv,
        Some(&KeyField::Number(1)),
        false,
        1,
    )
    .unwrap();
    let recs = recs.collect::<Result<Vec<_>, _>>().unwrap();
    f.commit(recs, vec![b"k5".to_vec()]).unwrap();
    path
}

fn bases() -> &'static [Base] {
    static B: OnceLock<Vec<Base>> = OnceLock::new();
    B.get_or_init(|| {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/records-v1");
        let mut keys: Vec<Vec<u8>> = (0..80u32).map(|i| format!("k{i}").into_bytes()).collect();
        keys.extend((0..310u32).step_by(7).map(|i| i.to_string().into_bytes()));
        keys.push(b"1".to_vec());
        keys.push(b"5".to_vec());
        keys.push(b"300".to_vec());
        let files = [
            sealed("plain.vkr", None),
            sealed("zstd.vkr", Some(3)),
            fixtures.join("customers-v1.vkr"),
            fixtures.join("log-v1.vkr"),
        ];
        files
            .iter()
            .map(|p| Base {
                bytes: std::fs::read(p).unwrap(),
                keys: keys.clone(),
                answers: answers(p, &keys),
            })
            .collect()
    })
}

/// One input.
pub fn run(data: &[u8]) {
    let Some((&pick, mut edits)) = data.split_first() else {
        return;
    };
    let base = &bases()[usize::from(pick) % 4];
    let mut bytes = base.bytes.clone();
    // Up to 8 edits of 6 bytes each: operation, offset (u32), byte.
    let mut n = 0;
    while edits.len() >= 6 && n < 8 {
        let op = edits[0];
        let at = u32::from_le_bytes(edits[1..5].try_into().unwrap()) as usize;
        let b = edits[5];
        edits = &edits[6..];
        n += 1;
        if bytes.is_empty() {
            break;
        }
        let at = at % bytes.len();
        match op % 5 {
            0 => bytes[at] = b,
            1 => bytes[at] ^= 1 << (b % 8),
            2 => bytes.insert(at, b),
            3 => {
                bytes.remove(at);
            }
            _ => bytes.truncate(at),
        }
    }
    let path = dir().join(format!("case-{}", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let ring = ring();
    let Ok(mut f) = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false) else {
        return;
    };
    let want = &base.answers;
    let mut gets = Vec::new();
    for k in &base.keys {
        match f.get(k) {
            Ok(v) => gets.push(v),
            Err(_) => break,
        }
    }
    assert!(
        want.gets.starts_with(&gets),
        "a get answered what the file does not hold"
    );
    // A batch answers as one get after another.
    let keys: Vec<&[u8]> = base.keys.iter().map(Vec::as_slice).collect();
    let mut batch: Vec<Option<Vec<u8>>> = Vec::new();
    let _ = f.get_batch(&keys, |v| {
        batch.push(v.map(<[u8]>::to_vec));
        Ok::<(), ()>(())
    });
    assert!(
        want.gets.starts_with(&batch),
        "a batch answered what the file does not hold"
    );
    let mut all = Vec::new();
    let walked = f.for_each(&NoProgress, |r| {
        all.push(r.to_vec());
        Ok(())
    });
    if walked.is_ok() {
        assert!(
            want.all == all,
            "a walk of the records gave what the file does not hold"
        );
    } else {
        assert!(
            want.all.starts_with(&all),
            "a failed walk gave what the file does not hold"
        );
    }
    let _ = f.verify(&NoProgress);
    let _ = f.info();
}
