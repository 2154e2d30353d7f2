//! `veilkit nonce` through the real binary.

use super::common::*;
use predicates::prelude::*;
use std::collections::HashSet;
use std::path::Path;

fn nonces(state: &Path, args: &[&str]) -> Vec<String> {
    let out = run_ok(veilkit().arg("nonce").arg("--state").arg(state).args(args));
    stdout_of(&out).lines().map(str::to_string).collect()
}

#[test]
fn defaults_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("state");
    let one = nonces(&st, &[]);
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].len(), 32);
    assert!(
        one[0]
            .bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );
    for (bits, hex) in [("64", 16), ("96", 24), ("128", 32)] {
        let v = nonces(&st, &["--bits", bits, "-n", "3"]);
        assert!(v.iter().all(|l| l.len() == hex), "{v:?}");
        let b32 = nonces(&st, &["--bits", bits, "--format", "base32", "-n", "2"]);
        let width = (hex * 4usize).div_ceil(5);
        assert!(b32.iter().all(|l| l.len() == width), "{b32:?}");
        let dec = nonces(&st, &["--bits", bits, "--format", "decimal"]);
        assert!(dec[0].parse::<u128>().is_ok());
    }
    let b64 = nonces(&st, &["--format", "base64"]);
    assert_eq!(b64[0].len(), 24);
    let out = veilkit()
        .args([
            "nonce", "--format", "binary", "--bits", "96", "-n", "5", "--state",
        ])
        .arg(&st)
        .output()
        .unwrap();
    assert_eq!(out.stdout.len(), 60);
}

#[test]
fn sortable_values_sort_by_creation_across_runs() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("state");
    let mut all = Vec::new();
    for _ in 0..5 {
        all.extend(nonces(
            &st,
            &["--kind", "sortable", "--bits", "96", "-n", "100"],
        ));
    }
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "sortable values are in creation order");
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), all.len());
}

#[test]
fn concurrent_processes_and_restarts_never_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("state");
    for bits in ["64", "96", "128"] {
        for kind in ["counter", "sortable"] {
            let children: Vec<_> = (0..8)
                .map(|_| {
                    std_veilkit()
                        .args([
                            "nonce", "--bits", bits, "--kind", kind, "-n", "3000", "--state",
                        ])
                        .arg(&st)
                        .stdout(std::process::Stdio::piped())
                        .spawn()
                        .unwrap()
                })
                .collect();
            let mut seen = HashSet::new();
            for c in children {
                let out = c.wait_with_output().unwrap();
                assert!(out.status.success());
                for line in stdout_of(&out).lines() {
                    assert!(
                        seen.insert(line.to_string()),
                        "{bits} {kind}: {line} issued twice"
                    );
                }
            }
            assert_eq!(seen.len(), 8 * 3000);
            // Restarts after them continue after every value issued.
            for _ in 0..3 {
                for line in nonces(&st, &["--bits", bits, "--kind", kind, "-n", "500"]) {
                    assert!(seen.insert(line), "{bits} {kind}: repeated after a restart");
                }
            }
        }
    }
}

#[test]
fn encrypted_nonces_decrypt_to_counters() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("state");
    let key = keyfile(dir.path(), "k.key");
    for bits in ["64", "96", "128"] {
        let enc = run_ok(
            veilkit()
                .args([
                    "nonce",
                    "--kind",
                    "encrypted",
                    "--bits",
                    bits,
                    "-n",
                    "50",
                    "--key-file",
                ])
                .arg(&key)
                .arg("--state")
                .arg(&st),
        );
        let text = stdout_of(&enc);
        let dec = run_ok(
            veilkit()
                .args(["nonce", "--decrypt", "--bits", bits, "--key-file"])
                .arg(&key)
                .write_stdin(text.clone()),
        );
        let counters: Vec<u128> = stdout_of(&dec)
            .lines()
            .map(|l| u128::from_str_radix(l, 16).unwrap())
            .collect();
        // Consecutive counters: the encrypted values were one counter range.
        for w in counters.windows(2) {
            assert_eq!(w[1], w[0] + 1, "{bits}");
        }
        assert_ne!(stdout_of(&dec), text);
        // A bad line after good ones: the good ones are answered, then the error (they
        // were dropped with the batch).
        let bad = veilkit()
            .args(["nonce", "--decrypt", "--bits", bits, "--key-file"])
            .arg(&key)
            .write_stdin(format!("{text}zz\n"))
            .output()
            .unwrap();
        assert_eq!(bad.status.code(), Some(2));
        assert_eq!(stdout_of(&bad), stdout_of(&dec), "{bits}");
        assert!(
            stderr_of(&bad).contains("stdin: line 51:"),
            "{}",
            stderr_of(&bad)
        );
    }
    // Raw bytes cut off inside a nonce: the whole nonces before it are answered, then
    // the error (they were dropped with their chunk).
    let raw = run_ok(
        veilkit()
            .args(["nonce", "--kind", "encrypted", "--bits", "96", "-n", "5000"])
            .args(["--format", "binary", "--key-file"])
            .arg(&key)
            .arg("--state")
            .arg(&st),
    )
    .stdout;
    let decrypt = |input: &[u8]| {
        veilkit()
            .args(["nonce", "--decrypt", "--bits", "96", "--format", "binary"])
            .arg("--key-file")
            .arg(&key)
            .write_stdin(input.to_vec())
            .output()
            .unwrap()
    };
    let whole = decrypt(&raw);
    assert_eq!(whole.status.code(), Some(0));
    assert_eq!(whole.stdout.len(), raw.len());
    let cut = decrypt(&raw[..raw.len() - 5]);
    assert_eq!(cut.status.code(), Some(2));
    assert_eq!(cut.stdout, whole.stdout[..whole.stdout.len() - 12]);
    assert!(
        stderr_of(&cut).contains("59995 bytes is not a whole number of 96-bit nonces"),
        "{}",
        stderr_of(&cut)
    );
    // Encrypted nonces need a key.
    veilkit()
        .args(["nonce", "--kind", "encrypted", "--state"])
        .arg(&st)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no key given"));
    // A bad line names itself.
    veilkit()
        .args(["nonce", "--decrypt", "--key-file"])
        .arg(&key)
        .write_stdin("zz\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "stdin: line 1: not a 128-bit nonce in hex",
        ));
}

#[test]
fn machine_ids_separate_machines() {
    let dir = tempfile::tempdir().unwrap();
    let a = nonces(
        &dir.path().join("a"),
        &["--machine-id", "1", "--bits", "64", "-n", "100"],
    );
    let out = veilkit()
        .args(["nonce", "--bits", "64", "-n", "100", "--state"])
        .arg(dir.path().join("b"))
        .env("VEILKIT_MACHINE_ID", "2")
        .output()
        .unwrap();
    let b: Vec<String> = stdout_of(&out).lines().map(str::to_string).collect();
    let machine = |v: &str| (u64::from_str_radix(v, 16).unwrap() >> 13) & 511;
    assert!(a.iter().all(|v| machine(v) == 1));
    assert!(b.iter().all(|v| machine(v) == 2));
    veilkit()
        .args(["nonce", "--machine-id", "512"])
        .assert()
        .code(2);
}

#[test]
fn binary_output_cut_off_is_an_error_and_text_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("state");
    for (format, code) in [("binary", 2), ("hex", 0)] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = std_veilkit()
            .args(["nonce", "-n", "100000", "--format", format, "--state"])
            .arg(&st)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{format}: {}",
            stderr_of(&out)
        );
    }
}

#[test]
fn a_damaged_state_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("state");
    std::fs::write(&st, "not a state file\n").unwrap();
    veilkit()
        .args(["nonce", "--state"])
        .arg(&st)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("line 1: not a veilkit nonce state line")
                .and(predicate::str::contains("hint:")),
        );
}

/// Issue 17 item 9: each impossible state is its own precise error, and the documented
/// three-field form (no clock mark) is read (issue 23).
#[test]
fn impossible_state_files_and_exhaustion_are_precise_errors() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("state");
    // The largest counters (42-bit timestamp and the count): 2^106 - 1 and 2^87 - 1.
    let max128 = ((1u128 << 106) - 1).to_string();
    let max96 = ((1u128 << 87) - 1).to_string();
    for (text, args, want) in [
        // The last counter cannot be exceeded: exhaustion, not a wrap to 0.
        (
            format!("veilkit-nonce-state 1\n1 128 {max128} 0\n"),
            vec!["--bits", "128"],
            "machine id 1 has used every 128-bit value: its counter is exhausted",
        ),
        (
            format!("veilkit-nonce-state 1\n1 96 {max96}\n"),
            vec!["--bits", "96"],
            "machine id 1 has used every 96-bit value",
        ),
        // Asking for more than is left.
        (
            format!("veilkit-nonce-state 1\n1 96 {}\n", (1u128 << 87) - 10),
            vec!["--bits", "96", "-n", "100"],
            "machine id 1 has only 9 96-bit values left, fewer than asked for",
        ),
        (
            "veilkit-nonce-state 1\n1 96 5 0\n1 96 900 0\n".to_string(),
            vec!["--bits", "96"],
            "line 3: a second line for the same machine id and width",
        ),
        (
            format!("veilkit-nonce-state 1\n1 96 {max128} 0\n"),
            vec!["--bits", "96"],
            "line 2: counter above the largest of its width",
        ),
        (
            format!("veilkit-nonce-state 1\n1 128 {} 0\n", u128::MAX),
            vec!["--bits", "128"],
            "line 2: counter above the largest of its width",
        ),
        (
            "veilkit-nonce-state 1\n1 80 5 0\n".to_string(),
            vec!["--bits", "96"],
            "line 2: width is not 64, 96 or 128",
        ),
        // A reservation time past 2^42 ms is the file's damage, not the clock's.
        (
            format!("veilkit-nonce-state 1\n1 64 5 {}\n", 1u64 << 42),
            vec!["--bits", "64"],
            "line 2: reservation time past the year 2164",
        ),
    ] {
        std::fs::write(&st, &text).unwrap();
        let out = veilkit()
            .args(["nonce", "--machine-id", "1", "--state"])
            .arg(&st)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}");
        let err = stderr_of(&out);
        assert!(err.contains(want), "{text}: {err}");
        assert!(!err.contains("epoch"), "{text}: {err}");
        // Nothing was written over the file.
        assert_eq!(std::fs::read_to_string(&st).unwrap(), text);
    }
    // The documented form without the clock mark is accepted and continues after it.
    std::fs::write(&st, "veilkit-nonce-state 1\n1 128 41\n").unwrap();
    run_ok(
        veilkit()
            .args(["nonce", "--machine-id", "1", "--kind", "counter", "--state"])
            .arg(&st),
    );
}

/// 64-bit values reserved far ahead of the clock (here a line without a clock mark whose
/// counter is near the end of the epoch, as another implementation or a killed run with
/// a huge `-n` could leave) are an error at once, with what to do instead; the throttle
/// used to wait for the clock to reach them, silently, for some 134 years. The file's
/// counter stays where it was.
#[test]
fn sixty_four_bit_values_reserved_far_ahead_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("state");
    // The last value of the millisecond 2^42 - 2^30 (in the year 2160).
    let highest = (((1u128 << 42) - (1 << 30)) << 13) - 1;
    std::fs::write(&st, format!("veilkit-nonce-state 1\n1 64 {highest}\n")).unwrap();
    for kind in ["counter", "sortable", "encrypted"] {
        let mut cmd = veilkit();
        cmd.args(["nonce", "--machine-id", "1", "--bits", "64", "--kind", kind])
            .arg("--state")
            .arg(&st)
            .timeout(std::time::Duration::from_secs(60));
        if kind == "encrypted" {
            cmd.arg("--key-file").arg(keyfile(dir.path(), "k.key"));
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{kind}: {}", stderr_of(&out));
        assert!(out.stdout.is_empty(), "{kind}");
        let err = stderr_of(&out);
        assert!(
            err.starts_with("veilkit: machine id 1: its next 64-bit values are reserved ")
                && err.contains(" s ahead of the clock, and 64-bit values never run ahead of it (veilkit waits at most 10 s)\n")
                && err.contains("hint: another --machine-id, or 96- or 128-bit nonces"),
            "{kind}: {err}"
        );
        let text = std::fs::read_to_string(&st).unwrap();
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("1 64 {highest}"))),
            "{kind}: {text}"
        );
    }
    // Another machine id starts at once.
    let v = nonces(&st, &["--machine-id", "2", "--bits", "64"]);
    assert_eq!(v.len(), 1);
}

/// The state file after a run holds the last value issued, not the end of what the run
/// reserved: sortable windows and counter reservations are trimmed at exit, and the next
/// run continues right after (docs/NONCES.md, "What each kind reserves").
#[test]
fn reservations_are_trimmed_to_the_last_value_issued() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("state");
    let key = keyfile(dir.path(), "k.key");
    let key = key.to_str().unwrap();
    let mark = |bits: u32| -> u128 {
        let text = std::fs::read_to_string(&st).unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("3 {bits} ")))
            .unwrap_or_else(|| panic!("{text}"));
        line.split(' ').nth(2).unwrap().parse().unwrap()
    };
    for (kind, bits, n) in [
        ("sortable", "64", "5000"),
        ("sortable", "96", "3"),
        ("counter", "128", "10"),
        ("encrypted", "64", "20000"),
    ] {
        let values = nonces(
            &st,
            &[
                "--kind",
                kind,
                "--bits",
                bits,
                "--machine-id",
                "3",
                "-n",
                n,
                "--format",
                "decimal",
                "--key-file",
                key,
            ],
        );
        let b: u32 = bits.parse().unwrap();
        if kind != "encrypted" {
            // The counter of the last value: the value without its machine id.
            let last: u128 = values.last().unwrap().parse().unwrap();
            let cb = match b {
                64 => 13,
                96 => 45,
                _ => 64,
            };
            let c = if b == 128 {
                ((last >> 86) << 64) | (last & ((1 << 64) - 1))
            } else {
                ((last >> (cb + 9)) << cb) | (last & ((1 << cb) - 1))
            };
            assert_eq!(mark(b), c, "{kind} {bits}");
        }
        // The next run starts right after the last one.
        let next = nonces(
            &st,
            &[
                "--kind",
                "counter",
                "--bits",
                bits,
                "--machine-id",
                "3",
                "-n",
                "1",
                "--format",
                "decimal",
            ],
        );
        let first: u128 = next[0].parse().unwrap();
        if kind != "encrypted" {
            let last: u128 = values.last().unwrap().parse().unwrap();
            assert!(first > last, "{kind} {bits}: {first} after {last}");
        }
    }
}
