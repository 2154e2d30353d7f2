//! `veilkit breach build --tier`, and every command on the smaller tiers.

use super::common::*;
use predicates::prelude::*;
use sha1::Digest;
use std::path::{Path, PathBuf};

/// A dump of the SHA-1 hashes of `pw0` .. `pw{n-1}`, count i + 1, sorted.
pub fn password_dump(n: usize) -> String {
    let mut lines: Vec<String> = (0..n)
        .map(|i| {
            let h = sha1::Sha1::digest(format!("pw{i}").as_bytes());
            let hex: String = h.iter().map(|b| format!("{b:02X}")).collect();
            format!("{hex}:{}\n", i + 1)
        })
        .collect();
    lines.sort();
    lines.concat()
}

fn build(dir: &Path, input: &Path, name: &str, tier: &str) -> PathBuf {
    let out = dir.join(name);
    veilkit()
        .args(["breach", "build", "--tier", tier])
        .arg(input)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains(format!(
            "built {}: {tier} of 3000 SHA-1 hashes",
            out.display()
        )));
    out
}

#[test]
fn every_tier_answers_queries_and_says_what_it_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("dump.txt");
    std::fs::write(&dump, password_dump(3000)).unwrap();
    let exact = dir.path().join("exact.idx");
    veilkit()
        .args(["-q", "breach", "build"])
        .arg(&dump)
        .arg("-o")
        .arg(&exact)
        .assert()
        .success();
    // From the exact index, and straight from the dump (through a temporary index).
    let compact = build(dir.path(), &exact, "c.idx", "compact");
    let filter = build(dir.path(), &exact, "f.idx", "filter");
    let small = build(dir.path(), &dump, "s.idx", "filter-small");
    let from_dump = build(dir.path(), &dump, "f2.idx", "filter");
    assert_eq!(
        std::fs::read(&filter).unwrap(),
        std::fs::read(&from_dump).unwrap()
    );
    // Nothing but the outputs is left in the directory.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["c.idx", "dump.txt", "exact.idx", "f.idx", "f2.idx", "s.idx"]
    );

    let passwords = "pw0\npw1234\npw2999\nnot-in-it\n";
    let answers = |idx: &Path, extra: &[&str]| {
        let out = veilkit()
            .args(["breach", "query", "--passwords", "-i"])
            .arg(idx)
            .args(extra)
            .write_stdin(passwords)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        stdout_of(&out)
    };
    assert_eq!(answers(&exact, &[]), "1\n1235\n3000\n0\n");
    assert_eq!(answers(&compact, &[]), "1\n1235\n3000\n0\n");
    assert_eq!(answers(&filter, &[]), "1\n1\n1\n0\n");
    assert_eq!(answers(&small, &[]), "1\n1\n1\n0\n");
    let f = filter.to_str().unwrap();
    assert_eq!(answers(&exact, &["--filter", f]), "1\n1235\n3000\n0\n");

    // Hashes: HASH:1 / HASH:0 on a filter.
    veilkit()
        .args(["breach", "query", "-i"])
        .arg(&filter)
        .arg("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8")
        .assert()
        .code(1)
        .stdout("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:0\n");

    // check says what a filter's "found" means.
    veilkit()
        .args(["breach", "check", "-i"])
        .arg(&filter)
        .write_stdin("pw7\nnot-in-it\n")
        .assert()
        .success()
        .stdout(
            "probably found (a filter: no counts; 0.0015% of absent passwords are reported found)\nnot found\n",
        );
    veilkit()
        .args(["breach", "check", "-i"])
        .arg(&compact)
        .write_stdin("pw7\n")
        .assert()
        .success()
        .stdout("found 8 times\n");

    // info states the tier, the false positive rate and whether counts exist.
    veilkit()
        .args(["breach", "info"])
        .arg(&filter)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("counts are not available")
                .and(predicate::str::contains("false positive rate: 1.526e-5"))
                .and(predicate::str::contains("counts: not available")),
        );
    veilkit()
        .args(["breach", "info"])
        .arg(&compact)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("tier: compact")
                .and(predicate::str::contains("counts: exact"))
                .and(predicate::str::contains("largest count: 3000")),
        );
    for idx in [&compact, &filter, &small] {
        veilkit()
            .args(["breach", "verify"])
            .arg(idx)
            .assert()
            .success()
            .stderr(predicate::str::contains("sound"));
    }
}

#[test]
fn tier_mistakes_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("dump.txt");
    std::fs::write(&dump, password_dump(3000)).unwrap();
    let other_dump = dir.path().join("other.txt");
    std::fs::write(&other_dump, password_dump(2999)).unwrap();
    let exact = dir.path().join("exact.idx");
    let other = dir.path().join("other.idx");
    for (d, i) in [(&dump, &exact), (&other_dump, &other)] {
        veilkit()
            .args(["-q", "breach", "build"])
            .arg(d)
            .arg("-o")
            .arg(i)
            .assert()
            .success();
    }
    let filter = build(dir.path(), &exact, "f.idx", "filter");
    // A filter of another index.
    veilkit()
        .args(["breach", "query", "--passwords", "-i"])
        .arg(&other)
        .arg("--filter")
        .arg(&filter)
        .write_stdin("pw1\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the filter was built from another index",
        ));
    // Commands that need full hashes refuse a filter.
    veilkit()
        .args(["breach", "export-ranges", "-i"])
        .arg(&filter)
        .arg("-o")
        .arg(dir.path().join("r"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a filter index keeps no full hashes; this needs an exact index",
        ));
    // A filter is not rebuilt into another tier, nor an index built as a dump.
    veilkit()
        .args(["breach", "build", "--tier", "compact"])
        .arg(&filter)
        .arg("-o")
        .arg(dir.path().join("x"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "cannot be rebuilt into another tier",
        ));
    veilkit()
        .args(["breach", "build"])
        .arg(&exact)
        .arg("-o")
        .arg(dir.path().join("y"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("this is already an exact index"));
    // A truncated filter.
    let bytes = std::fs::read(&filter).unwrap();
    let cut = dir.path().join("cut.idx");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    veilkit()
        .args(["breach", "query", "-i"])
        .arg(&cut)
        .arg("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("truncated"));
}
