//! Record files of format version 2 written before record compression 2 (tests/
//! fixtures/records-v2, made by an older veilkit): they keep opening, reading and
//! updating, and keep their compression.

use super::common::{stderr_of, stdout_of, veilkit};
use std::path::{Path, PathBuf};

const FIXTURES: &str = "tests/fixtures/records-v2";

/// The fixtures copied into a temporary directory.
fn fixtures() -> (tempfile::TempDir, PathBuf) {
    super::common::fixture_copy(FIXTURES)
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = veilkit().args(args).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
    out
}

#[test]
fn compressed_files_of_record_compression_1_open_and_update() {
    let (_t, d) = fixtures();
    let key = ["--key-file", "key.txt"];
    let expected = std::fs::read(d.join("expected.jsonl")).unwrap();
    let out = run(
        &d,
        &[&["records", "open", "people-zstd.vkr"][..], &key].concat(),
    );
    assert_eq!(out.stdout, expected);
    let out = run(
        &d,
        &[
            &[
                "records",
                "get",
                "people-zstd.vkr",
                "p2",
                "p3",
                "p400",
                "p401",
            ][..],
            &key,
        ]
        .concat(),
    );
    assert_eq!(
        stdout_of(&out),
        "{\"id\": \"p2\", \"name\": \"Replaced\", \"note\": \"replaced\"}\n\n\
         {\"id\": \"p400\", \"name\": \"Person 400\", \"email\": \"person400@example.com\", \"note\": \"note été\"}\n\
         {\"id\": \"p401\", \"name\": \"Added\", \"note\": \"appended\"}\n"
    );
    run(
        &d,
        &[&["records", "verify", "people-zstd.vkr"][..], &key].concat(),
    );
    let info = |d: &Path| {
        stdout_of(&run(
            d,
            &[&["records", "info", "people-zstd.vkr"][..], &key].concat(),
        ))
    };
    assert!(
        info(&d).contains("records compressed with zstd\n"),
        "{}",
        info(&d)
    );
    // An update by this veilkit keeps record compression 1 (no dictionary).
    std::fs::write(
        d.join("new.jsonl"),
        "{\"id\": \"p500\", \"note\": \"new\"}\n",
    )
    .unwrap();
    run(
        &d,
        &[
            &["records", "append", "people-zstd.vkr", "new.jsonl"][..],
            &key,
        ]
        .concat(),
    );
    run(
        &d,
        &[&["records", "delete", "people-zstd.vkr", "p1"][..], &key].concat(),
    );
    let out = run(
        &d,
        &[&["records", "open", "people-zstd.vkr"][..], &key].concat(),
    );
    let mut want: Vec<u8> = expected
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| !l.starts_with(b"{\"id\": \"p1\","))
        .flatten()
        .copied()
        .collect();
    want.extend_from_slice(b"{\"id\": \"p500\", \"note\": \"new\"}\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&want)
    );
    run(
        &d,
        &[&["records", "verify", "people-zstd.vkr"][..], &key].concat(),
    );
    assert!(!info(&d).contains("dictionary"), "{}", info(&d));
}
