//! `veilkit breach` through the real binary.

use super::common::*;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

/// SHA-1 of "password", "123456" and "hunter2", with counts.
const DUMP: &str = "\
5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493
7C4A8D09CA3762AF61E59520943DC26494F8941B:37359195
F3BBBD66A63D4BF1747940578EC3D0103530E21D:17043
";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A sorted dump of the given hashes with count = position + 1, plus the fixture.
fn built(dir: &Path) -> PathBuf {
    let dump = write(dir, "dump.txt", DUMP);
    let idx = dir.join("hibp.idx");
    veilkit()
        .args(["breach", "build"])
        .arg(&dump)
        .arg("-o")
        .arg(&idx)
        .assert()
        .success()
        .stderr(predicate::str::contains("built ").and(predicate::str::contains("3 SHA-1 hashes")));
    idx
}

#[test]
fn quick_start_needs_no_index() {
    veilkit()
        .args(["breach", "query", "--passwords"])
        .write_stdin("password\n")
        .assert()
        .success()
        .stdout("2\n");
    veilkit()
        .args(["breach", "query", "--passwords"])
        .write_stdin("Correct-Horse-Battery-Staple-97\n")
        .assert()
        .code(1)
        .stdout("0\n");
}

#[test]
fn query_hashes_from_arguments_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let idx = built(dir.path());
    veilkit()
        .args(["breach", "query", "-i"])
        .arg(&idx)
        .args(["5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8", "0000000000000000000000000000000000000000"])
        .assert()
        .success()
        .stdout("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493\n0000000000000000000000000000000000000000:0\n");
    veilkit()
        .args(["breach", "query", "-i"])
        .arg(&idx)
        .write_stdin("0000000000000000000000000000000000000001\r\n7C4A8D09CA3762AF61E59520943DC26494F8941B\n")
        .assert()
        .success()
        .stdout("0000000000000000000000000000000000000001:0\n7C4A8D09CA3762AF61E59520943DC26494F8941B:37359195\n");
    // A list saved by a Windows editor: its byte order mark is skipped.
    veilkit()
        .args(["breach", "query", "-i"])
        .arg(&idx)
        .write_stdin("\u{feff}7c4a8d09ca3762af61e59520943dc26494f8941b\r\n")
        .assert()
        .success()
        .stdout("7C4A8D09CA3762AF61E59520943DC26494F8941B:37359195\n");
    // None found: status 1.
    veilkit()
        .args(["breach", "query", "-i"])
        .arg(&idx)
        .write_stdin("0000000000000000000000000000000000000001\n")
        .assert()
        .code(1);
}

#[test]
fn query_passwords_against_an_index_never_prints_them() {
    let dir = tempfile::tempdir().unwrap();
    let idx = built(dir.path());
    let out = veilkit()
        .args(["breach", "query", "--passwords", "-i"])
        .arg(&idx)
        .write_stdin("hunter2\nnot-in-there\npassword\n 123456\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // " 123456" is not trimmed: it is another password.
    assert_eq!(stdout_of(&out), "17043\n0\n3861493\n0\n");
    assert!(!stdout_of(&out).contains("hunter2"));
}

/// `-0`: NUL ends each password, so one may hold a newline or end in a carriage return;
/// `query` and `check` read the same records, and the last needs no NUL.
#[test]
fn nul_separated_passwords_may_hold_newlines() {
    let dir = tempfile::tempdir().unwrap();
    let idx = built(dir.path());
    let input = "hunter2\0pass\nword\0password\r\0password";
    let out = veilkit()
        .args(["breach", "query", "--passwords", "-0", "-i"])
        .arg(&idx)
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(
        (out.status.code(), stderr_of(&out)),
        (Some(0), String::new())
    );
    assert_eq!(stdout_of(&out), "17043\n0\n0\n3861493\n");
    veilkit()
        .args(["breach", "check", "--null", "-i"])
        .arg(&idx)
        .write_stdin(input)
        .assert()
        .success()
        .stdout("found 17043 times\nnot found\nnot found\nfound 3861493 times\n");
    // Without -0, the same bytes are two lines, neither of them a known password.
    veilkit()
        .args(["breach", "query", "--passwords", "-i"])
        .arg(&idx)
        .write_stdin(input)
        .assert()
        .code(1)
        .stdout("0\n0\n");
}

#[test]
fn bad_query_lines_stop_with_the_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let idx = built(dir.path());
    let out = veilkit()
        .args(["breach", "query", "-i"])
        .arg(&idx)
        .write_stdin("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8\n8846F7EAEE8FB117AD06BDD830B7586C\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout_of(&out),
        "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493\n"
    );
    assert_eq!(
        stderr_of(&out),
        "veilkit: stdin: line 2: hash is 32 characters, expected 40 hex digits (SHA-1)\n"
    );
    veilkit()
        .args(["breach", "query"])
        .write_stdin("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("hint: "));
    // A password piped where hashes are read: the error says how to look it up, and does
    // not echo it.
    for line in ["hunter2\n", "correct horse battery staple\n"] {
        let out = veilkit()
            .args(["breach", "query", "-i"])
            .arg(&idx)
            .write_stdin(line)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = stderr_of(&out);
        assert!(
            err.starts_with("veilkit: stdin: line 1: ")
                && err.ends_with(
                    "  hint: to look up passwords rather than hashes, add --passwords\n"
                ),
            "{err}"
        );
        assert!(!err.contains(line.trim_end()), "{err}");
    }
}

/// A password given to `breach check` as an argument is refused without being echoed
/// (clap's own error would quote it), and the message says why and what to do instead.
#[test]
fn check_refuses_a_password_argument_without_echoing_it() {
    let out = veilkit()
        .args(["breach", "check", "hunter2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(err.contains("never taken as arguments"), "{err}");
    assert!(err.contains("hint: run `veilkit breach check`"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}

#[test]
fn check_answers_each_line_when_not_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let idx = built(dir.path());
    veilkit()
        .args(["breach", "check", "-i"])
        .arg(&idx)
        .write_stdin("password\nzzz-not-found\n")
        .assert()
        .success()
        .stdout("found 3861493 times\nnot found\n");
    veilkit()
        .args(["breach", "check"])
        .write_stdin("PASSWORD\n123456\n")
        .assert()
        .success()
        .stdout(
            "found ignoring case: rank 2 of the 30000 most common passwords\n\
             found: rank 1 of the 30000 most common passwords\n",
        );
}

/// The prompt on a real terminal (a pseudo-terminal from `script`): the password is not
/// echoed, the answer comes at once, end of input ends the loop.
#[cfg(target_os = "linux")]
#[test]
fn check_prompts_without_echo_on_a_terminal() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        return;
    }
    let cmd = format!("{} breach check", bin().display());
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env_remove("VEILKIT_KEY")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            // Type a password, then end of input (Ctrl-D) at the next prompt.
            std::thread::sleep(std::time::Duration::from_millis(300));
            stdin.write_all(b"s3cret-password\r")?;
            std::thread::sleep(std::time::Duration::from_millis(300));
            stdin.write_all(b"password\r")?;
            std::thread::sleep(std::time::Duration::from_millis(300));
            stdin.write_all(b"\x04")?;
            drop(stdin);
            child.wait_with_output()
        })
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("Password (hidden; Ctrl-D to end):"),
        "{text:?}"
    );
    assert!(
        text.contains("not found among the 30000 most common passwords"),
        "{text:?}"
    );
    assert!(text.contains("found: rank 2 of the 30000"), "{text:?}");
    assert!(
        !text.contains("s3cret-password"),
        "the password was echoed: {text:?}"
    );
    // Ctrl-D at the last prompt ends its line, so the shell's prompt is not left after it.
    let after_last = text.rsplit("Ctrl-D to end): ").next().unwrap();
    assert!(
        after_last.starts_with("\r\n") || after_last.starts_with('\n'),
        "{text:?}"
    );
    assert_eq!(out.status.code(), Some(0), "{text:?}");
}

#[test]
fn bad_dumps_are_named_errors_and_leave_no_index() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "7C4A8D09CA3762AF61E59520943DC26494F8941B:1\n5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:1\n",
            "line 2: hash is not in order: it sorts before the hash on line 1",
        ),
        (
            "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:1\n5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:2\n",
            "line 2: duplicate hash: the same hash is on line 1",
        ),
        (
            "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:1\n8846F7EAEE8FB117AD06BDD830B7586C:1\n",
            "line 2: mixed hash kinds: a NTLM hash in a SHA-1 dump",
        ),
        (
            "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:99999999999999999999\n",
            "line 1: count does not fit in 64 bits",
        ),
        (
            "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8 3\n",
            "line 1: not HASH:COUNT",
        ),
        ("", "the dump holds no hashes"),
    ];
    for (text, want) in cases {
        let dump = write(dir.path(), "bad.txt", text);
        let idx = dir.path().join("bad.idx");
        let out = veilkit()
            .args(["breach", "build"])
            .arg(&dump)
            .arg("-o")
            .arg(&idx)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{want}");
        let err = stderr_of(&out);
        assert!(err.contains(want), "{err}");
        assert!(err.starts_with("veilkit: "), "{err}");
        assert!(!idx.exists(), "an index was left after: {want}");
        // Nothing else was left either (no temporary files).
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }
}

#[test]
fn stdin_and_per_prefix_layouts_build_the_same_index() {
    let dir = tempfile::tempdir().unwrap();
    let a = built(dir.path());
    let b = dir.path().join("b.idx");
    veilkit()
        .args(["-q", "breach", "build", "-", "-o"])
        .arg(&b)
        .write_stdin(DUMP.replace('\n', "\r\n").to_lowercase())
        .assert()
        .success();
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let ranges = dir.path().join("ranges");
    std::fs::create_dir(&ranges).unwrap();
    for line in DUMP.lines() {
        std::fs::write(
            ranges.join(format!("{}.txt", &line[..5])),
            format!("\u{feff}{}", &line[5..]),
        )
        .unwrap();
    }
    // The directory holds only the dump's three ranges: it builds only when allowed to
    // be partial, into the same index but for the header's partial flag.
    let c = dir.path().join("c.idx");
    veilkit()
        .args(["-q", "breach", "build"])
        .arg(&ranges)
        .arg("-o")
        .arg(&c)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("range files are missing"));
    veilkit()
        .args(["-q", "breach", "build", "--allow-partial"])
        .arg(&ranges)
        .arg("-o")
        .arg(&c)
        .assert()
        .success();
    assert_eq!(std::fs::read(&a).unwrap(), unflagged(&c));
}

/// An index's bytes with its header's partial flag cleared.
pub fn unflagged(path: &std::path::Path) -> Vec<u8> {
    use veilkit::breach::format::{HEADER_SIZE, Header};
    let mut b = std::fs::read(path).unwrap();
    let mut h = Header::decode(&b, b.len() as u64).unwrap();
    assert!(h.partial());
    h.flags = 0;
    b[..HEADER_SIZE].copy_from_slice(&h.encode());
    b
}

#[test]
fn build_refuses_to_overwrite_and_to_write_over_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let idx = built(dir.path());
    let dump = dir.path().join("dump.txt");
    veilkit()
        .args(["breach", "build"])
        .arg(&dump)
        .arg("-o")
        .arg(&idx)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already exists"));
    veilkit()
        .args(["breach", "build", "--force"])
        .arg(&dump)
        .arg("-o")
        .arg(&dump)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is the same file as the input"));
    assert_eq!(std::fs::read_to_string(&dump).unwrap(), DUMP);
}

#[test]
fn info_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let idx = built(dir.path());
    veilkit()
        .args(["breach", "info"])
        .arg(&idx)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("kind: SHA-1")
                .and(predicate::str::contains("hashes: 3\n"))
                .and(predicate::str::contains("largest count: 37359195"))
                .and(predicate::str::contains("version 3")),
        );
    // Three hashes in three ranges: said, without a warning below 2^26 hashes.
    veilkit()
        .args(["breach", "verify"])
        .arg(&idx)
        .assert()
        .success()
        .stderr(
            predicate::str::contains(
                "sound (3 records of a SHA-1 exact index; hashes in 3 of the 1048576 ranges, the first without: 00000)",
            )
            .and(predicate::str::contains("warning").not()),
        );
    // Damage in the records: verify names it and fails; lookups never crash.
    let mut bytes = std::fs::read(&idx).unwrap();
    bytes[4096 + 5] ^= 0x10;
    let bad = dir.path().join("bad.idx");
    std::fs::write(&bad, &bytes).unwrap();
    veilkit()
        .args(["breach", "verify"])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("records block 0")
                .and(predicate::str::contains("checksum mismatch")),
        );
    // A truncated index is refused at once.
    std::fs::write(&bad, &bytes[..bytes.len() - 10]).unwrap();
    veilkit()
        .args(["breach", "query", "-i"])
        .arg(&bad)
        .arg("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("truncated"));
    // Not an index at all.
    veilkit()
        .args(["breach", "info"])
        .arg(dir.path().join("dump.txt"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("not a veilkit breach index")
                .or(predicate::str::contains("too short")),
        );
}

#[test]
fn ntlm_dumps_and_passwords() {
    let dir = tempfile::tempdir().unwrap();
    // NTLM("password") and NTLM("pässword").
    let dump = write(
        dir.path(),
        "ntlm.txt",
        "8846F7EAEE8FB117AD06BDD830B7586C:12\nF1B094F25BBDCB6FDBAA6CC8B43F0C44:3\n",
    );
    let idx = dir.path().join("ntlm.idx");
    veilkit()
        .args(["-q", "breach", "build"])
        .arg(&dump)
        .arg("-o")
        .arg(&idx)
        .assert()
        .success();
    veilkit()
        .args(["breach", "info"])
        .arg(&idx)
        .assert()
        .stdout(predicate::str::contains("kind: NTLM"));
    veilkit()
        .args(["breach", "query", "--passwords", "-i"])
        .arg(&idx)
        .write_stdin("password\npässword\n")
        .assert()
        .success()
        .stdout("12\n3\n");
    veilkit()
        .args(["breach", "query", "--passwords", "-i"])
        .arg(&idx)
        .write_stdin(&b"password\n\xff\xfe\n"[..])
        .assert()
        .code(2)
        .stdout("12\n")
        .stderr(
            "veilkit: stdin: line 2: password is not valid UTF-8 (NTLM hashes text as UTF-16)\n",
        );
}

/// SIGINT during a build: status 130 and nothing under the final name, not even the
/// temporary file.
#[cfg(unix)]
#[test]
fn an_interrupted_build_leaves_no_file() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("hibp.idx");
    let mut child = std_veilkit()
        .args(["breach", "build", "-", "-o"])
        .arg(&idx)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(DUMP.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // The build is running, waiting for more input; its temporary file exists.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::fs::read_dir(dir.path()).unwrap().count() == 0
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    #[allow(unsafe_code)]
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    drop(stdin);
    assert_eq!(status.code(), Some(130));
    assert!(!idx.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "a temporary file was left"
    );
}

pub fn build_from(dir: &Path, name: &str, dump: &str) -> PathBuf {
    let d = write(dir, &format!("{name}.txt"), dump);
    let idx = dir.join(format!("{name}.idx"));
    veilkit()
        .args(["-q", "breach", "build"])
        .arg(&d)
        .arg("-o")
        .arg(&idx)
        .assert()
        .success();
    idx
}

#[test]
fn export_ranges_writes_the_range_api_bodies_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    // Two hashes share the prefix 5BAA6.
    let dump = "\
5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493
5BAA6FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:1
7C4A8D09CA3762AF61E59520943DC26494F8941B:37359195
F3BBBD66A63D4BF1747940578EC3D0103530E21D:17043
";
    let idx = build_from(dir.path(), "a", dump);
    let out = dir.path().join("ranges");
    veilkit()
        .args(["breach", "export-ranges", "--skip-empty", "-i"])
        .arg(&idx)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("wrote 3 range files (4 hashes"));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["5BAA6.txt", "7C4A8.txt", "F3BBB.txt"]);
    // CRLF between lines, none at the end, suffixes without the prefix.
    assert_eq!(
        std::fs::read(out.join("5BAA6.txt")).unwrap(),
        b"1E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493\r\nFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:1"
    );
    assert_eq!(
        std::fs::read(out.join("F3BBB.txt")).unwrap(),
        b"D66A63D4BF1747940578EC3D0103530E21D:17043"
    );
    // Back to a byte-identical index (but for the partial flag: the empty ranges were
    // skipped).
    let again = dir.path().join("again.idx");
    veilkit()
        .args(["-q", "breach", "build", "--allow-partial"])
        .arg(&out)
        .arg("-o")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(std::fs::read(&idx).unwrap(), unflagged(&again));
    // An existing, non-empty directory is refused and left alone; no temporary remains.
    veilkit()
        .args(["breach", "export-ranges", "-i"])
        .arg(&idx)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("exists and is not empty"));
    let leftovers = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".veilkit")
        })
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn diff_lists_added_removed_and_recounted_hashes() {
    let dir = tempfile::tempdir().unwrap();
    let old = build_from(
        dir.path(),
        "old",
        "\
5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493
7C4A8D09CA3762AF61E59520943DC26494F8941B:37359195
F3BBBD66A63D4BF1747940578EC3D0103530E21D:17043
",
    );
    let new = build_from(
        dir.path(),
        "new",
        "\
5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861500
6BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:2
F3BBBD66A63D4BF1747940578EC3D0103530E21D:17043
",
    );
    veilkit()
        .args(["breach", "diff"])
        .arg(&old)
        .arg(&new)
        .assert()
        .code(1)
        .stdout(
            "~5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493:3861500\n\
             +6BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:2\n\
             -7C4A8D09CA3762AF61E59520943DC26494F8941B:37359195\n",
        )
        .stderr(predicate::str::contains(
            "1 added, 1 removed, 1 re-counted, 1 unchanged",
        ));
    veilkit()
        .args(["-q", "breach", "diff"])
        .arg(&old)
        .arg(&old)
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
    // Different kinds are an error.
    let ntlm = build_from(dir.path(), "ntlm", "8846F7EAEE8FB117AD06BDD830B7586C:1\n");
    veilkit()
        .args(["breach", "diff"])
        .arg(&old)
        .arg(&ntlm)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("different hash kinds"));
}

#[test]
fn merge_replaces_the_prefixes_a_range_directory_holds() {
    let dir = tempfile::tempdir().unwrap();
    let old = build_from(
        dir.path(),
        "old",
        "\
5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493
7C4A8D09CA3762AF61E59520943DC26494F8941B:37359195
F3BBBD66A63D4BF1747940578EC3D0103530E21D:17043
",
    );
    let ranges = dir.path().join("changed");
    std::fs::create_dir(&ranges).unwrap();
    // A new prefix, a re-counted one with a new hash (lower case, BOM), an emptied one.
    std::fs::write(
        ranges.join("00000.txt"),
        "0005AD76BD555C1D6D771DE417A4B87E4B4:7",
    )
    .unwrap();
    std::fs::write(
        ranges.join("5BAA6.txt"),
        "\u{feff}1E4C9B93F3F0682250B6CF8331B7EE68FD8:3861500\r\nfffffffffffffffffffffffffffffffffff:2",
    )
    .unwrap();
    std::fs::write(ranges.join("7C4A8.txt"), "").unwrap();
    let merged = dir.path().join("new.idx");
    veilkit()
        .args(["breach", "merge"])
        .arg(&old)
        .arg(&ranges)
        .arg("-o")
        .arg(&merged)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "merged 3 range files (2 old hashes replaced): 4 hashes",
        ));
    let direct = build_from(
        dir.path(),
        "direct",
        "\
000000005AD76BD555C1D6D771DE417A4B87E4B4:7
5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861500
5BAA6FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:2
F3BBBD66A63D4BF1747940578EC3D0103530E21D:17043
",
    );
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&direct).unwrap()
    );
    veilkit()
        .args(["breach", "diff"])
        .arg(&old)
        .arg(&merged)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "2 added, 1 removed, 1 re-counted, 1 unchanged",
        ));
    // A bad range file names itself and its line; nothing is written.
    std::fs::write(
        ranges.join("7C4A8.txt"),
        "D09CA3762AF61E59520943DC26494F8941B:1\r\nXYZ:2",
    )
    .unwrap();
    let failed = dir.path().join("failed.idx");
    veilkit()
        .args(["breach", "merge"])
        .arg(&old)
        .arg(&ranges)
        .arg("-o")
        .arg(&failed)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "7C4A8.txt: line 2: the suffix is not 35 hex digits",
        ));
    assert!(!failed.exists());
}

#[test]
fn query_keep_going_reports_bad_lines_and_keeps_the_output_aligned() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(
        dir.path(),
        "k",
        "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493\n",
    );
    let input = "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8\nhunter2\n\
                 0000000000000000000000000000000000000000\nZZZZ61E4C9B93F3F0682250B6CF8331B7EE68FD8\n";
    let out = veilkit()
        .args(["breach", "query", "--keep-going", "-i"])
        .arg(&idx)
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout_of(&out),
        "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493\n?\n\
         0000000000000000000000000000000000000000:0\n?\n"
    );
    let err = stderr_of(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(lines[0].starts_with("veilkit: stdin: line 2: "), "{err}");
    assert!(lines[1].starts_with("veilkit: stdin: line 4: "), "{err}");
    assert!(lines[2].contains("2 bad lines"), "{err}");
    // Never the bad line itself (it may be a secret typed in the wrong place).
    assert!(!err.contains("hunter2") && !err.contains("ZZZZ"), "{err}");
    // Without --keep-going the first bad line stops it, after the answers before it.
    let out = veilkit()
        .args(["breach", "query", "-i"])
        .arg(&idx)
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout_of(&out),
        "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493\n"
    );
    // Arguments are numbered as arguments.
    let out = veilkit()
        .args(["breach", "query", "--keep-going", "-i"])
        .arg(&idx)
        .args(["5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8", "xyz"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).starts_with("veilkit: argument 2: "),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn quiet_query_answers_with_the_status_alone() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(
        dir.path(),
        "q",
        "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493\n",
    );
    for (hash, code) in [
        ("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8", 0),
        ("0000000000000000000000000000000000000000", 1),
        ("bad", 2),
    ] {
        let out = veilkit()
            .args(["-q", "breach", "query", "-i"])
            .arg(&idx)
            .write_stdin(format!("{hash}\n"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{hash}");
        assert!(out.stdout.is_empty(), "{hash}: {}", stdout_of(&out));
        // Errors still show.
        assert_eq!(out.stderr.is_empty(), code != 2, "{}", stderr_of(&out));
    }
}

/// `export-ranges` writes a directory: `-o -` is refused; SIGTERM while it writes ends
/// it with status 143 and nothing left (the directory being filled was once left behind,
/// emptied while files were still being added to it); a directory left by SIGKILL is
/// removed by the next export of the same name; a link to an empty directory is filled,
/// and stays a link.
#[cfg(unix)]
#[test]
fn an_interrupted_export_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", DUMP);
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let export = |out: &str| {
        let mut cmd = std_veilkit();
        cmd.args(["-q", "breach", "export-ranges", "-i"])
            .arg(&idx)
            .args(["-o", out])
            .current_dir(&work)
            .stderr(std::process::Stdio::piped());
        cmd
    };
    let refused = export("-").output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("writes a directory"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let entries = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&work)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert!(entries().is_empty(), "{:?}", entries());
    // Interrupted once its temporary directory holds files.
    let started = |child: &mut std::process::Child| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            assert!(
                std::time::Instant::now() < deadline,
                "no temporary directory"
            );
            assert!(child.try_wait().unwrap().is_none(), "finished too early");
            let filling = std::fs::read_dir(&work).unwrap().flatten().any(|e| {
                e.path().is_dir()
                    && std::fs::read_dir(e.path()).is_ok_and(|d| d.take(2000).count() == 2000)
            });
            if filling {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    };
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let mut child = export("ranges").spawn().unwrap();
        started(&mut child);
        #[allow(unsafe_code)]
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(128 + signal));
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(entries().is_empty(), "left behind: {:?}", entries());
    }
    // SIGKILL leaves the directory being filled; the next export of the name removes it.
    let mut child = export("ranges").spawn().unwrap();
    started(&mut child);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(entries().len(), 1, "{:?}", entries());
    run_ok(&mut export("ranges"));
    assert_eq!(entries(), ["ranges"]);
    assert_eq!(
        std::fs::read_dir(work.join("ranges")).unwrap().count(),
        1 << 20
    );
    // A link to an empty directory: filled, and still a link.
    std::fs::create_dir(work.join("real")).unwrap();
    std::os::unix::fs::symlink("real", work.join("link")).unwrap();
    run_ok(export("link").arg("--skip-empty"));
    assert!(
        std::fs::symlink_metadata(work.join("link"))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_dir(work.join("real")).unwrap().count(),
        DUMP.lines().count()
    );
}
