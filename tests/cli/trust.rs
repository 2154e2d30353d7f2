//! Issue 17 (trust defects), the input and output side: endless input costs bounded
//! memory (item 5), devices and pipes are never replaced by an atomic write (item 4),
//! and CSV is read strictly, never leaving a chosen column in the clear (item 3).

use super::common::{fifo, keyfile, run_ok, std_veilkit, stderr_of, stdout_of, veilkit};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The memory a command reading endless input may use.
const MEMORY_LIMIT: u64 = 100 << 20;

/// Runs `cmd` to its end under a limit of [`MEMORY_LIMIT`] on its data (heap and
/// anonymous memory, `RLIMIT_DATA`), and returns its status and stderr. A process that
/// needs more fails to allocate and aborts, which the callers see as a status other
/// than 2. (Peak resident memory from `wait4` cannot be used: it counts the test
/// process's own memory, which the child shares until it executes.)
#[cfg(target_os = "linux")]
fn run_limited(mut cmd: std::process::Command) -> (i32, String) {
    use std::os::unix::process::CommandExt;
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches only the child's own limits;
    // the closure allocates nothing.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: MEMORY_LIMIT,
                rlim_max: MEMORY_LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    (code, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A small exact index and a record file to point the readers at.
fn fixtures(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let key = keyfile(dir, "k.key");
    let dump = dir.join("dump.txt");
    std::fs::write(
        &dump,
        "0000000A2A30E3B35B7F5A6A2C2A6C0B5E7B6E13:3\n5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:10\n",
    )
    .unwrap();
    let index = dir.join("i.idx");
    veilkit()
        .args(["breach", "build"])
        .arg(&dump)
        .arg("-o")
        .arg(&index)
        .assert()
        .success();
    let lines = dir.join("l.txt");
    std::fs::write(&lines, "a\nb\n").unwrap();
    let records = dir.join("l.vkr");
    veilkit()
        .args(["records", "seal"])
        .arg(&lines)
        .arg("-o")
        .arg(&records)
        .arg("--key-file")
        .arg(&key)
        .assert()
        .success();
    (key, index, records)
}

#[cfg(target_os = "linux")]
#[test]
fn endless_input_without_line_ends_is_refused_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (key, index, records) = fixtures(dir.path());
    let k = key.to_str().unwrap();
    let i = index.to_str().unwrap();
    let r = records.to_str().unwrap();
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    let stdin_cases: Vec<Vec<&str>> = vec![
        vec!["encode", "--key-file", k],
        vec!["decode", "--key-file", k],
        vec!["reencode", "--key-file", k],
        vec!["breach", "query", "-i", i],
        vec!["breach", "query", "-i", i, "--passwords"],
        vec!["breach", "query", "--passwords"],
        vec!["breach", "check", "-i", i],
        vec!["breach", "build", "-", "-o", o],
        vec!["records", "get", r, "--keys", "-", "--key-file", k],
        vec!["records", "delete", r, "--keys", "-", "--key-file", k],
        vec!["records", "seal", "-", "-o", o, "--key-file", k],
        vec!["records", "append", r, "-", "--key-file", k],
        vec![
            "records",
            "encrypt-fields",
            "--fields",
            "1",
            "--key-file",
            k,
        ],
        vec![
            "records",
            "decrypt-fields",
            "--fields",
            "1",
            "--key-file",
            k,
        ],
        vec!["nonce", "--decrypt", "--key-file", k],
    ];
    for args in stdin_cases {
        let mut cmd = std_veilkit();
        cmd.args(&args)
            .stdin(std::fs::File::open("/dev/zero").unwrap());
        let (code, err) = run_limited(cmd);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("longer than 1 MiB") && err.contains("line 1"),
            "{args:?}: {err}"
        );
    }
    // Key, passphrase and state files are read with a small cap.
    let small_cases: Vec<Vec<&str>> = vec![
        vec!["encode", "1", "--key-file", "/dev/zero"],
        vec!["records", "get", r, "1", "--passphrase-file", "/dev/zero"],
    ];
    for args in small_cases {
        let (code, err) = run_limited({
            let mut c = std_veilkit();
            c.args(&args);
            c
        });
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("longer than 1 MiB"), "{args:?}: {err}");
    }
    assert!(!out.exists());
}

/// A character device like /dev/null (`mknod`, as root), or `None` with the reason.
#[cfg(unix)]
fn device(dir: &Path) -> Result<PathBuf, String> {
    let p = dir.join("null");
    let made = std::process::Command::new("mknod")
        .arg(&p)
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if made {
        Ok(p)
    } else {
        Err("mknod needs root (CAP_MKNOD)".into())
    }
}

#[cfg(unix)]
fn kind(p: &Path) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = std::fs::symlink_metadata(p).unwrap().file_type();
    if t.is_char_device() {
        "char"
    } else if t.is_fifo() {
        "fifo"
    } else if t.is_file() {
        "file"
    } else {
        "other"
    }
}

/// The commands whose outputs must be replaced whole: each refuses a device or a pipe,
/// which is still there afterwards.
#[cfg(unix)]
fn assert_atomic_outputs_refuse(dir: &Path, target: &Path, key: &Path, dump: &Path) {
    let want = kind(target);
    let t = target.to_str().unwrap();
    let k = key.to_str().unwrap();
    let d = dump.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["nonce", "--state", t],
        vec!["keygen", "-o", t, "--force"],
        vec!["breach", "build", d, "-o", t, "--force"],
        vec!["records", "seal", d, "-o", t, "--force", "--key-file", k],
    ];
    for args in cases {
        let out = veilkit().args(&args).current_dir(dir).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr_of(&out);
        assert!(
            err.contains("not a regular file")
                || err.contains("is a character device")
                || err.contains("is a named pipe"),
            "{args:?}: {err}"
        );
        assert_eq!(kind(target), want, "{args:?} replaced the {want}");
    }
}

#[cfg(unix)]
#[test]
fn devices_and_pipes_are_written_into_or_refused_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let (key, _, records) = fixtures(dir.path());
    let dump = dir.path().join("dump.txt");
    // A FIFO: atomic outputs refuse it; streamed output is written into it.
    let pipe = fifo(dir.path(), "pipe");
    assert_atomic_outputs_refuse(dir.path(), &pipe, &key, &dump);
    let reader = {
        let p = pipe.clone();
        std::thread::spawn(move || std::fs::read(p).unwrap())
    };
    veilkit()
        .args(["records", "open"])
        .arg(&records)
        .arg("-o")
        .arg(&pipe)
        .arg("--key-file")
        .arg(&key)
        .assert()
        .success();
    assert_eq!(reader.join().unwrap(), b"a\nb\n");
    assert_eq!(kind(&pipe), "fifo");
    // A character device.
    match device(dir.path()) {
        Ok(null) => {
            assert_atomic_outputs_refuse(dir.path(), &null, &key, &dump);
            for args in [
                vec!["records", "open"],
                vec!["records", "encrypt-fields", "--fields", "1"],
            ] {
                let mut cmd = veilkit();
                cmd.args(&args);
                if args[1] == "open" {
                    cmd.arg(&records);
                } else {
                    cmd.write_stdin("x,y\n");
                }
                cmd.arg("-o")
                    .arg(&null)
                    .arg("--key-file")
                    .arg(&key)
                    .assert()
                    .success();
                assert_eq!(kind(&null), "char", "{args:?}");
            }
        }
        Err(why) => {
            super::common::have("a character device made by mknod", &why, false);
        }
    }
    // `-o /dev/stdout` streams to standard output.
    let out = run_ok(
        veilkit()
            .args(["records", "open"])
            .arg(&records)
            .args(["-o", "/dev/stdout", "--key-file"])
            .arg(&key),
    );
    assert_eq!(out.stdout, b"a\nb\n");
    // Also when standard output is a regular file (a shell's `> FILE`): written into,
    // not refused as an existing file, and not replaced by rename.
    let file = dir.path().join("redirected.txt");
    std::fs::write(&file, b"").unwrap();
    let status = std_veilkit()
        .args(["records", "open"])
        .arg(&records)
        .args(["-o", "/dev/stdout", "--key-file"])
        .arg(&key)
        .stdout(
            std::fs::OpenOptions::new()
                .append(true)
                .open(&file)
                .unwrap(),
        )
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read(&file).unwrap(), b"a\nb\n");
}

/// The quote opened on line 2 never closes: a lenient reader makes one field of the rest
/// of the input, and writes the ssn of every later row in the clear inside it.
const SSN_CSV_UNTERMINATED: &str =
    "id,ssn,note\n1,078-05-1120,\"open note\n2,219-09-9999,x\n3,457-55-5462,y\n";

#[test]
fn an_unterminated_quote_is_an_error_and_no_ssn_leaks() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let out = veilkit()
        .args(["records", "encrypt-fields", "--fields", "ssn", "--key-file"])
        .arg(&key)
        .write_stdin(SSN_CSV_UNTERMINATED)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr_of(&out),
        "veilkit: stdin: line 2: not valid CSV: a quoted field opens here and is never closed\n"
    );
    let text = stdout_of(&out);
    for ssn in ["078-05-1120", "219-09-9999", "457-55-5462"] {
        assert!(!text.contains(ssn), "{ssn} written in the clear: {text}");
    }
    // The sealer refuses the same input instead of making one record of it.
    let src = dir.path().join("in.csv");
    std::fs::write(&src, SSN_CSV_UNTERMINATED).unwrap();
    let out = veilkit()
        .args(["records", "seal"])
        .arg(&src)
        .args(["--key-field", "id", "-o"])
        .arg(dir.path().join("x.vkr"))
        .arg("--key-file")
        .arg(&key)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out)
            .contains("line 2: not valid CSV: a quoted field opens here and is never closed"),
        "{}",
        stderr_of(&out)
    );
    assert!(!dir.path().join("x.vkr").exists());
}

/// A quoted field that closes only past the limit of one record (1 MiB) is named with
/// the limit, and not called unclosed: the readers stop at the limit and do not know.
#[test]
fn a_quote_closing_past_the_record_limit_is_not_called_unclosed() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let mut input = b"id,note\n1,\"".to_vec();
    input.extend(b"x\n".repeat(1 << 20));
    input.extend_from_slice(b"\"\n2,b\n");
    let cases: [&[&str]; 2] = [
        &["records", "encrypt-fields", "--fields", "note"],
        &["encode", "--csv", "--header", "--field", "1"],
    ];
    for args in cases {
        let out = veilkit()
            .args(args)
            .arg("--key-file")
            .arg(&key)
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            stderr_of(&out),
            "veilkit: stdin: line 2: a quoted field opens here and does not close within 1 MiB \
             (the limit of one record)\n",
            "{args:?}"
        );
    }
}

#[test]
fn a_character_after_a_closing_quote_is_an_error_not_a_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    for cmd in ["encrypt-fields", "decrypt-fields"] {
        let out = veilkit()
            .args(["records", cmd, "--fields", "ssn", "--key-file"])
            .arg(&key)
            .write_stdin("id,note,ssn\n1,\"x\"y,078-05-1120\n")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert_eq!(
            stderr_of(&out),
            "veilkit: stdin: line 2: not valid CSV: a character follows a closing quote (RFC 4180 allows only a delimiter or a line end)\n",
            "{cmd}"
        );
        assert!(!stdout_of(&out).contains("078-05-1120"));
    }
}

#[test]
fn untouched_fields_pass_through_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let input =
        "id,\"quoted name\",ssn\r\n1,\"Smith, J\",078-05-1120\r\n\r\n2,\"plain\",\"219\"\r\n";
    let enc = run_ok(
        veilkit()
            .args(["records", "encrypt-fields", "--fields", "ssn", "--key-file"])
            .arg(&key)
            .write_stdin(input),
    );
    let text = stdout_of(&enc);
    assert!(
        text.starts_with("id,\"quoted name\",ssn\r\n1,\"Smith, J\","),
        "{text}"
    );
    assert!(text.contains("\r\n\r\n2,\"plain\","), "{text}");
    let dec = run_ok(
        veilkit()
            .args(["records", "decrypt-fields", "--fields", "ssn", "--key-file"])
            .arg(&key)
            .write_stdin(enc.stdout.clone()),
    );
    // The quotes of the last ssn are not kept (it was re-encoded), all else is.
    assert_eq!(stdout_of(&dec), input.replace("\"219\"", "219"),);
}

/// Item 2: concurrent appends, deletions and data-key rotations on one file; every
/// command that exits 0 is reflected in the final file.
#[test]
fn concurrent_updates_and_rotations_lose_nothing_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let rounds = 20;
    let mut csv = String::from("id,v\n");
    for r in 0..rounds {
        csv.push_str(&format!("old-{r},{r}\n"));
    }
    let src = dir.path().join("in.csv");
    std::fs::write(&src, &csv).unwrap();
    let file = dir.path().join("f.vkr");
    veilkit()
        .args(["records", "seal"])
        .arg(&src)
        .args(["--key-field", "id", "-o"])
        .arg(&file)
        .arg("--key-file")
        .arg(&key)
        .assert()
        .success();
    let mut appended = Vec::new();
    let mut deleted = Vec::new();
    for r in 0..rounds {
        let add = dir.path().join(format!("add-{r}.csv"));
        std::fs::write(&add, format!("id,v\nnew-{r},{r}\n")).unwrap();
        let spawn = |args: Vec<std::ffi::OsString>| {
            std_veilkit()
                .args(args)
                .arg("--key-file")
                .arg(&key)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let rotate = spawn(vec![
            "records".into(),
            "rekey".into(),
            file.clone().into(),
            "--rotate-data-key".into(),
        ]);
        let append = spawn(vec![
            "records".into(),
            "append".into(),
            file.clone().into(),
            add.clone().into(),
        ]);
        let delete = spawn(vec![
            "records".into(),
            "delete".into(),
            file.clone().into(),
            format!("old-{r}").into(),
        ]);
        let ok = |c: std::process::Child| {
            let out = c.wait_with_output().unwrap();
            out.status.success()
        };
        let rotated = ok(rotate);
        if ok(append) {
            appended.push(r);
        }
        if ok(delete) {
            deleted.push(r);
        }
        assert!(rotated, "round {r}: the rotation failed");
    }
    assert_eq!(appended.len(), rounds, "an append failed");
    assert_eq!(deleted.len(), rounds, "a deletion failed");
    for r in 0..rounds {
        let got = veilkit()
            .args(["records", "get"])
            .arg(&file)
            .args([format!("new-{r}"), format!("old-{r}")])
            .arg("--key-file")
            .arg(&key)
            .output()
            .unwrap();
        let text = stdout_of(&got);
        assert!(
            text.starts_with(&format!("new-{r},{r}\n")),
            "round {r}: lost append: {text:?}"
        );
        assert!(
            !text.contains(&format!("old-{r},")),
            "round {r}: lost deletion: {text:?}"
        );
    }
}

/// Item 1's crash safety: `delete`, `rekey` (slots) and `rekey --rotate-data-key`
/// killed with SIGKILL at spread-out moments each leave the old or the new content,
/// and a file that verifies.
#[test]
fn every_updating_command_killed_at_any_moment_leaves_old_or_new_content() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let key2 = keyfile(dir.path(), "k2.key");
    let base: String = (0..20_000)
        .map(|i| format!("{i},record number {i} with some text\n"))
        .collect();
    let src = dir.path().join("base.csv");
    std::fs::write(&src, &base).unwrap();
    let file = dir.path().join("f.vkr");
    veilkit()
        .args(["records", "seal"])
        .arg(&src)
        .args(["--key-field", "1", "--no-header", "-o"])
        .arg(&file)
        .arg("--key-file")
        .arg(&key)
        .assert()
        .success();
    let pristine = std::fs::read(&file).unwrap();
    let open_with = |k: &Path| {
        veilkit()
            .args(["records", "open"])
            .arg(&file)
            .arg("--key-file")
            .arg(k)
            .output()
            .unwrap()
    };
    let old = open_with(&key).stdout;
    let deleted: Vec<String> = (0..20_000).step_by(3).map(|i| i.to_string()).collect();
    let keys_path = dir.path().join("doomed.txt");
    std::fs::write(&keys_path, deleted.join("\n")).unwrap();
    let cases: Vec<(&str, Vec<std::ffi::OsString>)> = vec![
        (
            "delete",
            vec![
                "records".into(),
                "delete".into(),
                file.clone().into(),
                "--keys".into(),
                keys_path.clone().into(),
            ],
        ),
        (
            "rekey",
            vec![
                "records".into(),
                "rekey".into(),
                file.clone().into(),
                "--add-key-file".into(),
                key2.clone().into(),
            ],
        ),
        (
            "rotate",
            vec![
                "records".into(),
                "rekey".into(),
                file.clone().into(),
                "--rotate-data-key".into(),
            ],
        ),
    ];
    for (name, args) in cases {
        // The content and the keys that open it once the command completes.
        std::fs::write(&file, &pristine).unwrap();
        veilkit()
            .args(&args)
            .arg("--key-file")
            .arg(&key)
            .assert()
            .success();
        let new = open_with(&key).stdout;
        let new_opens_with_key2 = open_with(&key2).status.success();
        for i in 0..12u64 {
            std::fs::write(&file, &pristine).unwrap();
            let mut child = std_veilkit()
                .args(&args)
                .arg("--key-file")
                .arg(&key)
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(std::time::Duration::from_millis(2 + i * i * 2));
            let _ = child.kill();
            let _ = child.wait();
            let out = open_with(&key);
            assert!(
                out.status.success(),
                "{name}: after a kill at step {i}: {}",
                stderr_of(&out)
            );
            assert!(
                out.stdout == old || out.stdout == new,
                "{name}: after a kill at step {i}: neither the old nor the new content"
            );
            if name == "rekey" {
                // The slot change is all or nothing as well.
                let with2 = open_with(&key2);
                assert!(
                    !with2.status.success() || new_opens_with_key2,
                    "{name}: step {i}"
                );
            }
            veilkit()
                .args(["records", "verify"])
                .arg(&file)
                .arg("--key-file")
                .arg(&key)
                .assert()
                .success();
        }
    }
}

/// Item 7: two independent key files (both with key id 1): adding the second keeps the
/// first; slots are named by fingerprint.
#[test]
fn adding_a_key_with_the_same_id_keeps_the_other_slot() {
    let dir = tempfile::tempdir().unwrap();
    let k1 = keyfile(dir.path(), "k1.key");
    let k2 = keyfile(dir.path(), "k2.key");
    let src = dir.path().join("in.txt");
    std::fs::write(&src, "one\ntwo\n").unwrap();
    let file = dir.path().join("f.vkr");
    veilkit()
        .args(["records", "seal"])
        .arg(&src)
        .arg("-o")
        .arg(&file)
        .arg("--key-file")
        .arg(&k1)
        .assert()
        .success();
    let out = run_ok(
        veilkit()
            .args(["records", "rekey"])
            .arg(&file)
            .arg("--key-file")
            .arg(&k1)
            .arg("--add-key-file")
            .arg(&k2),
    );
    let fp = |k: &Path| {
        let out = veilkit()
            .arg("keys")
            .arg("--key-file")
            .arg(k)
            .output()
            .unwrap();
        stdout_of(&out)
            .lines()
            .nth(1)
            .unwrap()
            .split('\t')
            .nth(2)
            .unwrap()
            .to_string()
    };
    let (fp1, fp2) = (fp(&k1), fp(&k2));
    assert_ne!(fp1, fp2);
    let msg = stderr_of(&out);
    assert!(msg.contains(&fp1) && msg.contains(&fp2), "{msg}");
    let opens = |k: &Path| {
        veilkit()
            .args(["records", "open"])
            .arg(&file)
            .arg("--key-file")
            .arg(k)
            .output()
            .unwrap()
    };
    for k in [&k1, &k2] {
        let out = opens(k);
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert_eq!(out.stdout, b"one\ntwo\n");
    }
    let info = stdout_of(
        &veilkit()
            .args(["records", "info"])
            .arg(&file)
            .output()
            .unwrap(),
    );
    assert!(
        info.contains(&format!(
            "keyring key 1 (fingerprint {fp1}); keyring key 1 (fingerprint {fp2})"
        )),
        "{info}"
    );
    // An id that names two slots is refused; the fingerprint names one.
    let out = veilkit()
        .args(["records", "rekey"])
        .arg(&file)
        .arg("--key-file")
        .arg(&k1)
        .args(["--remove-key", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("name the slot by its fingerprint"),
        "{}",
        stderr_of(&out)
    );
    veilkit()
        .args(["records", "rekey"])
        .arg(&file)
        .arg("--key-file")
        .arg(&k2)
        .args(["--remove-key", &fp1])
        .assert()
        .success();
    assert_eq!(opens(&k1).status.code(), Some(2));
    assert!(opens(&k2).status.success());
}

/// Item 9: temporary files left by a writer killed with SIGKILL are removed by the next
/// write of the same output.
#[cfg(target_os = "linux")]
#[test]
fn the_next_build_removes_temporaries_of_killed_builds() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("d.txt");
    std::fs::write(&dump, "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3\n").unwrap();
    // The name a killed process (its id no longer in use) left.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = dir.path().join(format!(".out.idx.pid{dead}.x1Y2z3.tmp"));
    std::fs::write(&stale, vec![0u8; 100_000]).unwrap();
    veilkit()
        .args(["breach", "build"])
        .arg(&dump)
        .arg("-o")
        .arg(dir.path().join("out.idx"))
        .assert()
        .success();
    assert!(!stale.exists());
}

/// Item 9: `--key-file -` reads the key from standard input, which then cannot also be
/// the input.
#[test]
fn a_key_file_of_dash_reads_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let text = std::fs::read_to_string(&key).unwrap();
    let by_file = veilkit()
        .args(["encode", "42", "--key-file"])
        .arg(&key)
        .output()
        .unwrap();
    let by_stdin = run_ok(
        veilkit()
            .args(["encode", "42", "--key-file", "-"])
            .write_stdin(text.clone()),
    );
    assert_eq!(by_stdin.stdout, by_file.stdout);
    let both = veilkit()
        .args(["encode", "--key-file", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    assert!(
        stderr_of(&both).contains("stdin: cannot hold the input: it already holds the key"),
        "{}",
        stderr_of(&both)
    );
}

/// Item 9: an update of a record file the user may not write says so (not "cannot read").
#[cfg(target_os = "linux")]
#[test]
fn an_update_of_a_read_only_record_file_says_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let src = dir.path().join("in.txt");
    std::fs::write(&src, "a\n").unwrap();
    let file = dir.path().join("f.vkr");
    veilkit()
        .args(["records", "seal"])
        .arg(&src)
        .arg("-o")
        .arg(&file)
        .arg("--key-file")
        .arg(&key)
        .assert()
        .success();
    // Root may write a file of mode 0444; an immutable file it may not.
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let locked = if root {
        std::process::Command::new("chattr")
            .arg("+i")
            .arg(&file)
            .status()
            .is_ok_and(|s| s.success())
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).is_ok()
    };
    if !super::common::have(
        "a file the tests can make read-only (chattr as root)",
        "e2fsprogs",
        locked,
    ) {
        return;
    }
    let out = veilkit()
        .args(["records", "delete"])
        .arg(&file)
        .arg("1")
        .arg("--key-file")
        .arg(&key)
        .output()
        .unwrap();
    if root {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&file)
            .status();
    }
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains("cannot open for writing") && err.contains("need write permission"),
        "{err}"
    );
    assert!(!err.contains("cannot read"), "{err}");
}
