//! `veilkit records get --keys`: keys read from a file are looked up in batches of up to
//! a million (`RecordFile::get_batch`), keys from a pipe in batches of what has arrived;
//! both answer as the same keys given as arguments (looked up one by one), damage and
//! bad key lines included, and a writer that waits for each answer gets it.

use super::common::{keyfile, std_veilkit, stderr_of, stdout_of, veilkit};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// A record file of `rows` CSV rows (`id,value`) in 512-byte pages.
fn sealed(dir: &Path, rows: usize, key: &Path) -> PathBuf {
    let input: String = (0..rows)
        .map(|i| format!("{i},value of {i}{}\n", "x".repeat(i % 50)))
        .collect();
    let src = dir.join("in.csv");
    std::fs::write(&src, input).unwrap();
    let out = dir.join("in.vkr");
    veilkit()
        .args(["records", "seal"])
        .arg(&src)
        .args([
            "--no-header",
            "--key-field",
            "1",
            "--page-size",
            "512",
            "-o",
        ])
        .arg(&out)
        .arg("--key-file")
        .arg(key)
        .assert()
        .success();
    out
}

/// `records get FILE --keys ...` three ways: the keys file by name, as standard input
/// redirected from it, and through a pipe.
fn three_ways(file: &Path, key: &Path, keys: &Path) -> [Output; 3] {
    let named = veilkit()
        .args(["records", "get"])
        .arg(file)
        .arg("--keys")
        .arg(keys)
        .arg("--key-file")
        .arg(key)
        .output()
        .unwrap();
    let redirected = std_veilkit()
        .args(["records", "get"])
        .arg(file)
        .args(["--keys", "-", "--key-file"])
        .arg(key)
        .stdin(Stdio::from(std::fs::File::open(keys).unwrap()))
        .output()
        .unwrap();
    let piped = veilkit()
        .args(["records", "get"])
        .arg(file)
        .args(["--keys", "-", "--key-file"])
        .arg(key)
        .write_stdin(std::fs::read(keys).unwrap())
        .output()
        .unwrap();
    [named, redirected, piped]
}

/// The keys of `keys` given as arguments: each looked up on its own.
fn one_by_one(file: &Path, key: &Path, keys: &Path) -> Output {
    let text = std::fs::read_to_string(keys).unwrap();
    let args: Vec<&str> = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    veilkit()
        .args(["records", "get"])
        .arg(file)
        .args(&args)
        .arg("--key-file")
        .arg(key)
        .output()
        .unwrap()
}

/// The three ways answer as the keys one by one.
fn assert_alike(outs: &[Output; 3], one: &Output) {
    for o in outs {
        assert_eq!(o.status.code(), one.status.code(), "{}", stderr_of(o));
        assert_eq!(stdout_of(o), stdout_of(one));
        assert_eq!(stderr_of(o), stderr_of(one));
    }
}

#[test]
fn keys_from_a_file_or_a_pipe_are_answered_as_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let file = sealed(dir.path(), 3000, &key);
    let keys: String = (0..5000)
        .map(|i| match i % 5 {
            0 => format!("{}\n", i * 7 % 3000),
            1 => format!("missing {i}\n"),
            2 => "42\r\n".to_string(),
            3 => "\n".to_string(),
            _ => format!("{}\n", (i * 13 + 5) % 4000),
        })
        .collect();
    let keys_path = dir.path().join("keys.txt");
    std::fs::write(&keys_path, keys).unwrap();
    let outs = three_ways(&file, &key, &keys_path);
    assert_eq!(outs[2].status.code(), Some(0), "{}", stderr_of(&outs[2]));
    assert!(stdout_of(&outs[2]).contains("42,value of 42"));
    assert_alike(&outs, &one_by_one(&file, &key, &keys_path));
    // Nothing found: exit status 1 all the same.
    std::fs::write(&keys_path, "none\nnone either\n").unwrap();
    let outs = three_ways(&file, &key, &keys_path);
    assert_eq!(outs[2].status.code(), Some(1));
    assert_alike(&outs, &one_by_one(&file, &key, &keys_path));
}

/// A key list saved by a Windows editor: the byte order mark stays part of the first key
/// (keys are exact bytes), which is then not found, and every way of reading the list
/// says so once, as `delete --keys` does; the other keys are answered.
#[test]
fn a_byte_order_mark_before_the_keys_is_kept_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let file = sealed(dir.path(), 100, &key);
    let keys_path = dir.path().join("keys.txt");
    std::fs::write(&keys_path, "\u{feff}5\r\n6\r\n").unwrap();
    for out in three_ways(&file, &key, &keys_path) {
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert_eq!(stdout_of(&out), "\n6,value of 6xxxxxx\n");
        assert_eq!(err.matches("byte order mark").count(), 1, "{err}");
        assert!(err.starts_with("veilkit: warning: "), "{err}");
    }
    let out = veilkit()
        .args(["records", "delete"])
        .arg(&file)
        .arg("--keys")
        .arg(&keys_path)
        .arg("--key-file")
        .arg(&key)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert!(err.contains("byte order mark"), "{err}");
    assert!(err.contains("deleted 1 record (1 key not found)"), "{err}");
    // Without the mark, no warning.
    std::fs::write(&keys_path, "5\n").unwrap();
    let outs = three_ways(&file, &key, &keys_path);
    assert!(!stderr_of(&outs[0]).contains("byte order mark"));
    assert_eq!(stdout_of(&outs[0]), "5,value of 5xxxxx\n");
}

#[test]
fn a_damaged_page_stops_the_keys_where_it_stops_them_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let file = sealed(dir.path(), 3000, &key);
    let keys: String = (0..3000).map(|i| format!("{}\n", i * 7 % 3000)).collect();
    let keys_path = dir.path().join("keys.txt");
    std::fs::write(&keys_path, keys).unwrap();
    let pristine = std::fs::read(&file).unwrap();
    let mut failed = 0;
    for at in [
        pristine.len() / 2,
        pristine.len() * 3 / 4,
        pristine.len() - 100,
    ] {
        let mut bytes = pristine.clone();
        bytes[at] ^= 0x20;
        std::fs::write(&file, &bytes).unwrap();
        let outs = three_ways(&file, &key, &keys_path);
        failed += usize::from(outs[2].status.code() != Some(0));
        assert_alike(&outs, &one_by_one(&file, &key, &keys_path));
    }
    // The flips land in pages some key needs.
    assert!(failed >= 2, "{failed}");
}

#[test]
fn a_key_line_too_long_comes_after_the_answers_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let file = sealed(dir.path(), 300, &key);
    let mut keys = String::from("1\n2\nnope\n3\n");
    keys.push_str(&"9".repeat(2 << 20));
    keys.push_str("\n4\n");
    let keys_path = dir.path().join("keys.txt");
    std::fs::write(&keys_path, keys).unwrap();
    let outs = three_ways(&file, &key, &keys_path);
    assert_ne!(outs[2].status.code(), Some(0));
    assert!(stdout_of(&outs[2]).starts_with("1,value of 1x\n2,value of 2xx\n\n3,"));
    assert!(!stdout_of(&outs[2]).contains("4,value"));
    // The message names the input: it differs between a named file and stdin.
    for o in &outs[..2] {
        assert_eq!(o.status.code(), outs[2].status.code());
        assert_eq!(stdout_of(o), stdout_of(&outs[2]));
    }
    assert_eq!(stderr_of(&outs[1]), stderr_of(&outs[2]));
}

#[test]
fn a_writer_that_waits_for_each_answer_gets_it() {
    // As a coprocess: one key written, its answer read, then the next. Batching what has
    // arrived must neither wait for more keys nor keep the answer in a buffer.
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let file = sealed(dir.path(), 300, &key);
    let mut child = std_veilkit()
        .args(["records", "get"])
        .arg(&file)
        .args(["--keys", "-", "--key-file"])
        .arg(&key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    use std::io::Write;
    let wait = std::time::Duration::from_secs(20);
    for k in ["7", "nope", "12"] {
        stdin.write_all(format!("{k}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        let got = rx.recv_timeout(wait);
        let want = if k == "nope" {
            String::new()
        } else {
            format!("{k},value of {k}")
        };
        assert!(
            got.as_ref()
                .is_ok_and(|g| g.starts_with(&want) && (k != "nope" || g.is_empty())),
            "key {k}: {got:?}"
        );
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}
