//! Files of record compression 2: a dictionary trained at sealing, kept in dictionary
//! pages, used by every page; round trips, updates, rewrites, damage, and the vector of
//! docs/RECORDS-FORMAT.md.

use super::compress::{Dict, SEAL_LEVEL, frame, unframe};
use super::file::RecordFile;
use super::format::{InputFormat, Unlock};
use super::input::parse;
use super::pages::{KeyIn, parse_data};
use super::root::Compression;
use super::tests::{seal_bytes, settings};
use super::{InputRecord, KeyPlace, RecordsError};
use crate::bench::records::people_csv;
use crate::keys::Keyring;
use crate::progress::NoProgress;

fn open_all(f: &mut RecordFile) -> Vec<u8> {
    let mut out = f.prefix().unwrap().unwrap_or_default();
    f.for_each(&NoProgress, |r| {
        out.extend_from_slice(r);
        Ok(())
    })
    .unwrap();
    out
}

/// A people CSV of `n` rows with a few records spanning lines (quoted line ends) and a
/// last record without a line end.
fn csv(n: usize) -> Vec<u8> {
    let mut input = people_csv(n);
    input.extend_from_slice(b"900001,\"Ann\nLee\",ann@example.com,\"two\r\nlines\"\n");
    input.extend_from_slice(b"900002,Bo,bo@example.com,\"last, no line end\"");
    input
}

/// How many records of a data page are written as lines (raw length 0): the varint
/// before each record's bytes.
fn written_as_lines(page: &[u8], recs: &[super::pages::Rec]) -> usize {
    recs.iter()
        .filter(|r| {
            // The lead varint ends just before the raw bytes: its last byte is < 0x80,
            // the bytes before it (if any) >= 0x80.
            let mut at = r.raw.start - 1;
            while at > 0 && page[at - 1] & 0x80 != 0 {
                at -= 1;
            }
            page[at] >> 1 == 0 && at + 1 == r.raw.start
        })
        .count()
}

/// Every record of `input` (a CSV with a header row, keyed by its first field) found by
/// its key, with `get` adding LF to the last record.
fn check_gets(f: &mut RecordFile, input: &[u8]) {
    let (_, recs) = parse(
        input,
        InputFormat::Csv,
        Some(&super::input::KeyField::Number(1)),
        true,
        1,
    )
    .unwrap();
    for r in recs {
        let r = r.unwrap();
        let got = f.get(r.key_bytes()).unwrap().expect("every key found");
        assert_eq!(&got[..r.raw.len()], &r.raw[..]);
    }
}

#[test]
fn dictionary_files_round_trip_update_and_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    let ring = Keyring::generate().unwrap();
    let input = csv(14_000);
    assert!(input.len() > super::compress::DICT_MIN_INPUT);
    let mut s = settings(InputFormat::Csv, "1", true, 4096);
    s.compression = Some(SEAL_LEVEL);
    let path = dir.path().join("d.vkr");
    seal_bytes(&path, &input, &s, &ring).unwrap();
    s.dictionary = false;
    let without = dir.path().join("z.vkr");
    seal_bytes(&without, &input, &s, &ring).unwrap();
    let size = |p: &std::path::Path| std::fs::metadata(p).unwrap().len();
    // The dictionary pays for its own pages and more.
    assert!(
        size(&path) * 10 < size(&without) * 9,
        "{} against {}",
        size(&path),
        size(&without)
    );
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
    assert_eq!(f.root.compression, Compression::ZstdDict);
    let d = f.root.dictionary.expect("a dictionary");
    assert_eq!(i32::from(d.level), SEAL_LEVEL);
    assert!(d.pages.count >= 1);
    assert_eq!(open_all(&mut f), input);
    check_gets(&mut f, &input);
    // Most records are written as lines (no length), the ones spanning lines are not.
    let (p, recs) = f.data_page(0).unwrap();
    assert!(recs.len() > 100);
    assert_eq!(written_as_lines(&p, &recs), recs.len());
    let report = f.verify(&NoProgress).unwrap();
    assert_eq!(report.records, 14_002);
    assert_eq!(report.pages, f.info().unwrap().live_pages);
    drop((p, recs));
    // Deletes and appends use the same dictionary and level.
    let gone: Vec<Vec<u8>> = (1..=14_000)
        .step_by(7)
        .map(|i: u32| i.to_string().into_bytes())
        .collect();
    f.commit(Vec::new(), gone.clone()).unwrap();
    let more = b"id,name,email,note\n950000,New Person,new@example.com,\"appended\"\n".to_vec();
    let (_, recs) = parse(
        &more,
        InputFormat::Csv,
        Some(&super::input::KeyField::Number(1)),
        true,
        1,
    )
    .unwrap();
    let recs: Vec<InputRecord<'_>> = recs.collect::<Result<_, _>>().unwrap();
    f.commit(recs, Vec::new()).unwrap();
    drop(f);
    let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], true).unwrap();
    assert_eq!(f.root.dictionary.map(|d| d.pages), Some(d.pages));
    for k in &gone {
        assert_eq!(f.get(k).unwrap(), None);
    }
    assert_eq!(f.get(b"2").unwrap().unwrap(), {
        let row = input.split(|&b| b == b'\n').nth(2).unwrap();
        [row, b"\n"].concat()
    });
    assert_eq!(
        f.get(b"950000").unwrap().unwrap(),
        b"950000,New Person,new@example.com,\"appended\"\n"
    );
    // The record without a line end got one when a record followed it.
    assert_eq!(
        f.get(b"900002").unwrap().unwrap(),
        b"900002,Bo,bo@example.com,\"last, no line end\""
    );
    assert_eq!(f.verify(&NoProgress).unwrap().records, 14_002 - 2000 + 1);
    // A rewrite (rekey --rotate-data-key) trains a new dictionary on the live records.
    let out_path = dir.path().join("r.vkr");
    let mut out = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&out_path)
        .unwrap();
    let make =
        |id: &[u8; 16], dk: &[u8; 32]| super::slots::slots_for(&[Unlock::Keyring(&ring)], id, dk);
    f.rewrite(&mut out, &make, &NoProgress).unwrap();
    let before = open_all(&mut f);
    drop(out);
    let mut g = RecordFile::open(&out_path, &[Unlock::Keyring(&ring)], false).unwrap();
    assert_eq!(g.root.compression, Compression::ZstdDict);
    assert_eq!(open_all(&mut g), before);
    g.verify(&NoProgress).unwrap();
}

/// Under 1 MiB of records, or without compression, no dictionary.
#[test]
fn small_or_plain_files_have_no_dictionary() {
    let dir = tempfile::tempdir().unwrap();
    let ring = Keyring::generate().unwrap();
    for (rows, level, expect) in [
        (2_000, Some(SEAL_LEVEL), Compression::Zstd),
        (12_000, None, Compression::None),
    ] {
        let input = csv(rows);
        let mut s = settings(InputFormat::Csv, "1", true, 4096);
        s.compression = level;
        let path = dir.path().join("s.vkr");
        seal_bytes(&path, &input, &s, &ring).unwrap();
        let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
        assert_eq!(f.root.compression, expect);
        assert_eq!(f.root.dictionary, None);
        // Pages without a dictionary never hold a record written as a line.
        let (p, recs) = f.data_page(0).unwrap();
        assert_eq!(written_as_lines(&p, &recs), 0);
        assert_eq!(open_all(&mut f), input);
    }
}

/// A damaged dictionary page: the file does not open, naming the page; nothing is read
/// without it.
#[test]
fn a_damaged_dictionary_page_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let ring = Keyring::generate().unwrap();
    let mut s = settings(InputFormat::Csv, "1", true, 4096);
    s.compression = Some(SEAL_LEVEL);
    let path = dir.path().join("d.vkr");
    seal_bytes(&path, &csv(12_000), &s, &ring).unwrap();
    let f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    let d = f.root.dictionary.unwrap().pages;
    let at = f.header.pages_at() + (d.physical + d.count - 1) * 4096 + 100;
    drop(f);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[at as usize] ^= 4;
    std::fs::write(&path, &bytes).unwrap();
    match RecordFile::open(&path, &[Unlock::Keyring(&ring)], false) {
        Err(RecordsError::PageAuth { kind, logical }) => {
            assert_eq!((kind, logical), ("dictionary", d.count - 1));
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("opened"),
    }
}

/// The test vector of docs/RECORDS-FORMAT.md, "Dictionary".
#[test]
fn dictionary_test_vector() {
    let dict = Dict::new(b"id,name,email,note\n,Smith,@example.com,\"order refund\"\n".to_vec());
    let rows: [&[u8]; 2] = [
        b"1,Ann Smith,ann.smith@example.com,\"order refund\"\n",
        b"2,Bo Smith,bo.smith@example.com,\"refund\"\n",
    ];
    let mut page = vec![2, 0];
    for r in rows {
        super::pages::encode_record(&mut page, r, &KeyPlace::InRaw(0..1), true);
    }
    let framed = frame(&page, 9, Some(&dict), 4068).unwrap();
    let frame_bytes = &framed[5..];
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    assert_eq!(hex(dict.bytes()), DICT_HEX);
    assert_eq!(hex(&page), PAGE_HEX);
    assert_eq!(hex(frame_bytes), FRAME_HEX);
    assert_eq!(hex(&framed[..5]), FRAMED_HEX);
    // Read back with the dictionary; without it the frame does not decompress.
    let back = unframe(&framed, 4096, Some(&dict)).unwrap();
    assert_eq!(back, page);
    assert!(unframe(&framed, 4096, None).is_err());
    let recs = parse_data(&back).unwrap();
    assert_eq!(recs.len(), 2);
    for (r, row) in recs.iter().zip(rows) {
        assert_eq!(&back[r.raw.clone()], row);
        assert!(matches!(r.key, KeyIn::InRaw(ref k) if k == &(0..1)));
    }
    // The vector is in the document.
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/RECORDS-FORMAT.md"
    ))
    .unwrap();
    for v in [DICT_HEX, PAGE_HEX, FRAME_HEX, FRAMED_HEX] {
        assert!(doc.contains(v), "{v} is not in RECORDS-FORMAT.md");
    }
}

const DICT_HEX: &str = "69642c6e616d652c656d61696c2c6e6f74650a2c536d6974682c406578616d706c652e636f6d2c226f7264657220726566756e64220a";
const PAGE_HEX: &str = "020000312c416e6e20536d6974682c616e6e2e736d697468406578616d706c652e636f6d2c226f7264657220726566756e64220a000100322c426f20536d6974682c626f2e736d697468406578616d706c652e636f6d2c22726566756e64220a0001";
const FRAME_HEX: &str = "28b52ffd2062550100b8020000312c416e6e20616e6e2e73000100322c426f626f06004f6da02a8aad72ed2a062d41bb411d01";
const FRAMED_HEX: &str = "0133000000";

/// Compressed pages packed on two threads (runs of 64 KiB in the tests) and on one give
/// the same records in the same order, the index matching them (verify), for an empty
/// input, one record, and many runs; with and without a dictionary.
#[test]
fn packing_on_two_threads_keeps_records_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let ring = Keyring::generate().unwrap();
    for input in [
        b"id,name,email,note\n".to_vec(),
        b"id,name,email,note\n1,A,a@example.com,\"x\"\n".to_vec(),
        csv(3_000),
        csv(14_000),
    ] {
        for dictionary in [false, true] {
            let mut sizes = Vec::new();
            for threads in [1, 2] {
                let mut s = settings(InputFormat::Csv, "1", true, 4096);
                s.compression = Some(3);
                s.dictionary = dictionary;
                s.threads = threads;
                let path = dir.path().join(format!("t{threads}.vkr"));
                seal_bytes(&path, &input, &s, &ring).unwrap();
                let mut f = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
                assert_eq!(open_all(&mut f), input, "{threads} threads");
                f.verify(&NoProgress).unwrap();
                check_gets(&mut f, &input);
                sizes.push(std::fs::metadata(&path).unwrap().len());
            }
            // Runs end in a short page each: a little larger (runs of 64 KiB here, of
            // 4 MiB in a release build: 0.2 % there), never much.
            assert!(sizes[1] * 100 <= sizes[0] * 110, "{sizes:?}");
        }
    }
}
