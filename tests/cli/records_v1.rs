//! Record files of format version 1, made by the version-1 code (tests/fixtures/
//! records-v1): they keep opening, and updating upgrades their header in place.

use super::common::{run_ok, stderr_of, stdout_of, veilkit};
use std::path::{Path, PathBuf};

const FIXTURES: &str = "tests/fixtures/records-v1";

/// The fixtures copied into a temporary directory.
fn fixtures() -> (tempfile::TempDir, PathBuf) {
    super::common::fixture_copy(FIXTURES)
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    veilkit().args(args).current_dir(dir).output().unwrap()
}

#[test]
fn version_1_files_open_with_every_slot() {
    let (_t, d) = fixtures();
    let expected = std::fs::read(d.join("expected.csv")).unwrap();
    for secret in [
        ["--key-file", "key.txt"],
        ["--passphrase-file", "passphrase.txt"],
    ] {
        let out = run(
            &d,
            &[&["records", "open", "customers-v1.vkr"][..], &secret].concat(),
        );
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert_eq!(out.stdout, expected);
    }
    let out = run(
        &d,
        &[
            "records",
            "get",
            "customers-v1.vkr",
            "7",
            "300",
            "5",
            "--key-file",
            "key.txt",
        ],
    );
    assert_eq!(
        stdout_of(&out),
        "7,Seven Changed,updated\r\n300,Three Hundred,new\r\n\n"
    );
    let out = run(
        &d,
        &[
            "records",
            "verify",
            "customers-v1.vkr",
            "--key-file",
            "key.txt",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let out = run(&d, &["records", "info", "customers-v1.vkr"]);
    assert!(stdout_of(&out).contains("version 1"), "{}", stdout_of(&out));
    assert!(
        stdout_of(&out).contains("copies:    A sequence 3; B sequence 4"),
        "{}",
        stdout_of(&out)
    );
    let out = run(
        &d,
        &["records", "open", "log-v1.vkr", "--key-file", "key.txt"],
    );
    assert_eq!(
        out.stdout,
        std::fs::read(d.join("log-expected.txt")).unwrap()
    );
    let out = run(
        &d,
        &[
            "records",
            "get",
            "log-v1.vkr",
            "--record",
            "52",
            "--key-file",
            "key.txt",
        ],
    );
    assert_eq!(stdout_of(&out), "appended 1\n");
}

#[test]
fn updating_a_version_1_file_upgrades_its_header_in_place() {
    let (_t, d) = fixtures();
    std::fs::write(
        d.join("more.csv"),
        "id,name,note\r\n400,Four Hundred,added\r\n",
    )
    .unwrap();
    let out = run(
        &d,
        &[
            "records",
            "append",
            "customers-v1.vkr",
            "more.csv",
            "--key-file",
            "key.txt",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let out = run(&d, &["records", "info", "customers-v1.vkr"]);
    assert!(stdout_of(&out).contains("version 2"), "{}", stdout_of(&out));
    assert!(
        stdout_of(&out).contains("A sequence 5; B sequence 5"),
        "{}",
        stdout_of(&out)
    );
    let mut expected = std::fs::read(d.join("expected.csv")).unwrap();
    expected.extend_from_slice(b"400,Four Hundred,added\r\n");
    // Every slot still opens it, pages were not rewritten, and it verifies.
    for secret in [
        ["--key-file", "key.txt"],
        ["--passphrase-file", "passphrase.txt"],
    ] {
        let out = run(
            &d,
            &[&["records", "open", "customers-v1.vkr"][..], &secret].concat(),
        );
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert_eq!(out.stdout, expected);
    }
    let out = run(
        &d,
        &[
            "records",
            "delete",
            "customers-v1.vkr",
            "400",
            "1",
            "--key-file",
            "key.txt",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let out = run(
        &d,
        &[
            "records",
            "verify",
            "customers-v1.vkr",
            "--key-file",
            "key.txt",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let out = run(
        &d,
        &[
            "records",
            "get",
            "customers-v1.vkr",
            "1",
            "2",
            "--key-file",
            "key.txt",
        ],
    );
    assert_eq!(stdout_of(&out), "\n2,name 2,note 2\r\n");
    let before = std::fs::metadata(d.join("customers-v1.vkr")).unwrap().len();
    assert!(before >= 2 * 65536, "the format-1 header area is kept");
    // And the line file, appended to after a last line without a line end.
    run_ok(
        veilkit()
            .args([
                "records",
                "append",
                "log-v1.vkr",
                "-",
                "--key-file",
                "key.txt",
            ])
            .current_dir(&d)
            .write_stdin("appended 3\n"),
    );
    let out = run(
        &d,
        &["records", "open", "log-v1.vkr", "--key-file", "key.txt"],
    );
    let mut want = std::fs::read(d.join("log-expected.txt")).unwrap();
    want.extend_from_slice(b"appended 3\n");
    assert_eq!(stdout_of(&out), String::from_utf8(want).unwrap());
}

#[test]
fn a_damaged_copy_of_a_version_1_file_is_never_a_silent_rollback() {
    let (_t, d) = fixtures();
    let path = d.join("customers-v1.vkr");
    let pristine = std::fs::read(&path).unwrap();
    let expected = std::fs::read(d.join("expected.csv")).unwrap();
    // Copy B holds the last commit (sequence 4, the deletion of records 5 and 6).
    for (copy, at) in [('B', 65536 + 33), ('A', 33)] {
        let mut b = pristine.clone();
        b[at] ^= 0x04;
        std::fs::write(&path, &b).unwrap();
        let out = run(
            &d,
            &[
                "records",
                "open",
                "customers-v1.vkr",
                "--key-file",
                "key.txt",
            ],
        );
        assert_eq!(out.status.code(), Some(2), "copy {copy}");
        assert!(out.stdout.is_empty());
        let err = stderr_of(&out);
        assert!(
            err.contains(&format!("header copy {copy} is damaged"))
                && err.contains("--previous-commit"),
            "copy {copy}: {err}"
        );
        // Asked for, the intact copy is read, with a warning saying what may be lost.
        let out = run(
            &d,
            &[
                "records",
                "open",
                "customers-v1.vkr",
                "--previous-commit",
                "--key-file",
                "key.txt",
            ],
        );
        assert!(out.status.success(), "copy {copy}: {}", stderr_of(&out));
        assert!(stderr_of(&out).contains("warning"), "{}", stderr_of(&out));
        if copy == 'A' {
            assert_eq!(out.stdout, expected, "copy B is the current commit");
        } else {
            assert_ne!(out.stdout, expected, "copy A is the commit before");
        }
        // Verification fails while a copy is damaged.
        let out = run(
            &d,
            &[
                "records",
                "verify",
                "customers-v1.vkr",
                "--previous-commit",
                "--key-file",
                "key.txt",
            ],
        );
        assert_eq!(out.status.code(), Some(2));
    }
}
