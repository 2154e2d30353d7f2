//! `veilkit encode`, `decode` and `reencode` through the real binary.

use super::common::*;
use predicates::prelude::*;
use std::process::Stdio;

/// The key of docs/KEYS.md and docs/IDS.md: bytes 00..1f, id 1.
pub const FIXED_KEY: &str =
    "veilkit-key-1:1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f:79aebb5e\n";

fn with_key() -> assert_cmd::Command {
    let mut c = veilkit();
    c.env("VEILKIT_KEY", FIXED_KEY);
    c
}

fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let out = with_key()
        .args(args)
        .write_stdin(stdin.to_string())
        .output()
        .unwrap();
    (out.status.code().unwrap(), stdout_of(&out), stderr_of(&out))
}

#[test]
fn documented_vectors_through_the_cli() {
    let (code, out, _) = run(&["encode", "--context", "users"], "0\n1\n42\n");
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "2b41f6ab-9a39-87dc-9bf0-71602fd76308\nd2c11da1-5892-8d8e-91bb-8d7aaa49650d\n20e2525d-36bc-87ea-91d2-deb59e163fee\n"
    );
    let (_, out, _) = run(
        &["encode", "--context", "users", "--scheme", "aes128", "42"],
        "",
    );
    assert_eq!(out, "414a57fd7fbb5fc17b98d27593ed7651\n");
    let (_, out, _) = run(
        &["encode", "--context", "users", "--stored-nonce"],
        "42 7\n",
    );
    assert_eq!(out, "5d27bdf2-615b-8214-98ee-84b07aa5edf1\n");
    let (_, out, _) = run(&["decode", "--context", "users", "--stored-nonce"], &out);
    assert_eq!(out, "42 7\n");
    // A list saved by a Windows editor: the byte order mark before it is skipped.
    let (code, out, _) = run(&["encode", "--context", "users"], "\u{feff}42\r\n");
    assert_eq!(code, 0);
    assert_eq!(out, "20e2525d-36bc-87ea-91d2-deb59e163fee\n");
    let (code, out, _) = run(&["decode", "--context", "users"], &format!("\u{feff}{out}"));
    assert_eq!((code, out.as_str()), (0, "42\n"));
}

#[test]
fn every_scheme_and_format_round_trips() {
    let ids: String = [0u64, 1, 2, 42, 1 << 40, (1 << 60) - 1]
        .iter()
        .map(|i| format!("{i}\n"))
        .collect();
    for scheme in ["uuid", "aes128", "cycle-walk"] {
        for format in ["uuid", "hex", "base32", "base62"] {
            if format == "uuid" && scheme != "uuid" {
                continue;
            }
            for extra in [&[][..], &["--context", "t1", "--prefix", "usr_"][..]] {
                let mut args = vec!["encode", "--scheme", scheme, "--format", format];
                args.extend_from_slice(extra);
                let (code, encoded, err) = run(&args, &ids);
                assert_eq!(code, 0, "{args:?}: {err}");
                args[0] = "decode";
                let (code, decoded, err) = run(&args, &encoded);
                assert_eq!(code, 0, "{args:?}: {err}");
                assert_eq!(decoded, ids, "{args:?}");
            }
        }
    }
}

#[test]
fn uuid_output_is_version_8_with_the_rfc_variant() {
    let (_, out, _) = run(
        &["encode"],
        &(0..200).map(|i| format!("{i}\n")).collect::<String>(),
    );
    for line in out.lines() {
        assert_eq!(line.len(), 36);
        assert_eq!(&line[14..15], "8", "{line}");
        assert!("89ab".contains(&line[19..20]), "{line}");
    }
}

#[test]
fn a_bad_line_stops_the_run_after_earlier_output() {
    let (code, out, err) = run(&["encode"], "1\n2\nthree\n4\n");
    assert_eq!(code, 2);
    assert_eq!(out.lines().count(), 2, "earlier lines are flushed");
    assert_eq!(err, "veilkit: stdin: line 3: not a decimal number\n");
}

#[test]
fn keep_going_keeps_output_aligned_with_input() {
    let (code, out, err) = run(
        &["encode", "--keep-going"],
        "1\n-5\n3\n1152921504606846976\n5\n",
    );
    assert_eq!(code, 2);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[1].is_empty() && lines[3].is_empty());
    assert!(!lines[0].is_empty() && !lines[2].is_empty() && !lines[4].is_empty());
    assert_eq!(
        err,
        "veilkit: stdin: line 2: not a decimal number\n\
         veilkit: stdin: line 4: out of range (at most 1152921504606846975)\n"
    );
}

#[test]
fn forged_and_foreign_ids_are_rejected() {
    let (_, good, _) = run(&["encode", "--context", "users"], "7\n");
    let good = good.trim_end().to_string();
    // Change one hex digit of the id half.
    let mut forged = good.clone().into_bytes();
    forged[2] = if forged[2] == b'0' { b'1' } else { b'0' };
    let forged = String::from_utf8(forged).unwrap();
    let (code, _, err) = run(&["decode", "--context", "users"], &format!("{forged}\n"));
    assert_eq!(code, 2);
    assert!(
        err.contains("line 1: not a valid id: forged or mistyped"),
        "{err}"
    );
    // Another context.
    let (code, _, _) = run(&["decode", "--context", "orders"], &format!("{good}\n"));
    assert_eq!(code, 2);
    // Another number of rounds.
    let (code, _, _) = run(
        &["decode", "--context", "users", "--rounds", "4"],
        &format!("{good}\n"),
    );
    assert_eq!(code, 2);
    // Not a UUID of ours (version 4).
    let (code, _, err) = run(&["decode"], "f47ac10b-58cc-4372-a567-0e02b2c3d479\n");
    assert_eq!(code, 2);
    assert!(err.contains("not version 8"), "{err}");
    // Wrong length, wrong prefix.
    let (_, _, err) = run(&["decode"], "abc\n");
    assert!(
        err.contains("expected 36 characters for uuid, found 3"),
        "{err}"
    );
    let (_, _, err) = run(&["decode", "--prefix", "usr_"], &format!("org_{good}\n"));
    assert!(
        err.contains("does not start with the prefix \"usr_\""),
        "{err}"
    );
}

#[test]
fn fields_are_transformed_in_place() {
    let input = "alice\t1\tx\r\nbob\t2\ty\n";
    let (code, out, _) = run(&["encode", "--field", "2"], input);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.split('\n').collect();
    assert!(
        lines[0].starts_with("alice\t") && lines[0].ends_with("\tx\r"),
        "{out:?}"
    );
    assert!(
        lines[1].starts_with("bob\t") && lines[1].ends_with("\ty"),
        "{out:?}"
    );
    let (_, back, _) = run(&["decode", "--field", "2"], &out);
    assert_eq!(back, input);
    // CSV with another delimiter.
    let (_, out, _) = run(&["encode", "--field", "1", "--delimiter", ","], "5,a,b\n");
    let (_, back, _) = run(&["decode", "--field", "1", "--delimiter", ","], &out);
    assert_eq!(back, "5,a,b\n");
    // A spreadsheet's byte order mark before an id in field 1 (cut and CSV): no part of
    // the id, and still first in the output; decoding gives the input back.
    for csv in [&[][..], &["--csv"][..]] {
        let args = [&["encode", "--field", "1", "--delimiter", ","][..], csv].concat();
        let (code, marked, err) = run(&args, "\u{FEFF}5,a,b\n");
        assert_eq!((code, err.as_str()), (0, ""));
        assert_eq!(marked, format!("\u{FEFF}{out}"));
        let args = [&["decode", "--field", "1", "--delimiter", ","][..], csv].concat();
        let (_, back, _) = run(&args, &marked);
        assert_eq!(back, "\u{FEFF}5,a,b\n");
    }
    // A missing field is a line error.
    let (code, _, err) = run(&["encode", "--field", "3"], "1\t2\n");
    assert_eq!(code, 2);
    assert!(err.contains("line 1: has no field 3"), "{err}");
}

#[test]
fn random_nonces_are_printed_for_the_caller_to_store() {
    let (code, out, _) = run(&["encode", "--random-nonce"], "1\n2\n");
    assert_eq!(code, 0);
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0][0], "1");
    assert_eq!(lines[1][0], "2");
    // Decoding gives back `ID NONCE`.
    let encoded: String = lines.iter().map(|l| format!("{}\n", l[2])).collect();
    let (_, decoded, _) = run(&["decode", "--stored-nonce"], &encoded);
    let want: String = lines
        .iter()
        .map(|l| format!("{} {}\n", l[0], l[1]))
        .collect();
    assert_eq!(decoded, want);
    // Two runs draw different nonces.
    let (_, again, _) = run(&["encode", "--random-nonce"], "1\n2\n");
    assert_ne!(again, out);
    // With --field, the nonce goes into --nonce-field.
    let (_, out, _) = run(
        &[
            "encode",
            "--random-nonce",
            "--field",
            "1",
            "--nonce-field",
            "2",
        ],
        "9\t\n",
    );
    let f: Vec<&str> = out.trim_end().split('\t').collect();
    assert_eq!(f.len(), 2);
    assert!(f[1].parse::<u64>().is_ok());
}

#[test]
fn ids_of_older_keys_decode_and_reencode_moves_them_forward() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "ring.key");
    let k = key.to_str().unwrap();
    let enc = |stdin: &str, args: &[&str]| {
        let out = run_ok(
            veilkit()
                .args(args)
                .args(["--key-file", k])
                .write_stdin(stdin.to_string()),
        );
        stdout_of(&out)
    };
    let old = enc("10\n11\n", &["encode"]);
    veilkit()
        .args(["-q", "keygen", "--add", k])
        .assert()
        .success();
    assert_eq!(enc(&old, &["decode"]), "10\n11\n");
    let new = enc(&old, &["reencode"]);
    assert_ne!(new, old);
    assert_eq!(new, enc("10\n11\n", &["encode"]));
    // After four more keys, the first key's ids no longer decode.
    for _ in 0..4 {
        veilkit()
            .args(["-q", "keygen", "--add", k])
            .assert()
            .success();
    }
    veilkit()
        .args(["decode", "--key-file", k])
        .write_stdin(old)
        .assert()
        .code(2);
}

#[test]
fn arguments_instead_of_stdin() {
    let (code, out, _) = run(&["encode", "1", "2"], "");
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 2);
    let (code, _, err) = run(&["encode", "1", "x"], "");
    assert_eq!(code, 2);
    assert_eq!(err, "veilkit: argument 2: not a decimal number\n");
}

#[test]
fn bad_option_combinations_are_usage_errors() {
    for args in [
        &["encode", "--scheme", "aes128", "--format", "uuid", "1"][..],
        &["encode", "--clear-bit", "3", "1"][..],
        &["encode", "--rounds", "2", "1"][..],
        &["encode", "--scheme", "aes128", "--rounds", "4", "1"][..],
        &["encode", "--nonce-field", "2", "--field", "1", "1"][..],
        &["encode", "--stored-nonce", "--field", "1", "1"][..],
        &["encode", "--delimiter", "ab", "--field", "1", "1"][..],
    ] {
        let (code, out, err) = run(args, "");
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty());
        assert!(err.starts_with("veilkit: "), "{args:?}: {err}");
    }
}

/// A reader that stops early (`veilkit encode | head -1`) ends the run quietly.
#[test]
fn broken_pipe_on_id_output_ends_quietly() {
    let mut child = std_veilkit()
        .arg("encode")
        .env("VEILKIT_KEY", FIXED_KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let chunk: String = (0..100_000).map(|i| format!("{i}\n")).collect();
        for _ in 0..50 {
            if stdin.write_all(chunk.as_bytes()).is_err() {
                break;
            }
        }
    });
    {
        use std::io::Read;
        let mut first = [0u8; 37];
        child
            .stdout
            .as_mut()
            .unwrap()
            .read_exact(&mut first)
            .unwrap();
    }
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr_of(&out), "");
}

#[test]
fn crlf_input_is_accepted() {
    let (code, out, _) = run(&["encode"], "1\r\n2\r\n");
    assert_eq!(code, 0);
    let (_, back, _) = run(&["decode"], &out.replace('\n', "\r\n"));
    assert_eq!(back, "1\n2\n");
}

#[test]
fn decode_accepts_upper_case() {
    let (_, out, _) = run(&["encode", "--format", "base32", "77"], "");
    let (code, back, _) = run(&["decode", "--format", "base32"], &out.to_uppercase());
    assert_eq!(code, 0);
    assert_eq!(back, "77\n");
    veilkit()
        .arg("encode")
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("--stored-nonce"));
}

#[test]
fn csv_fields_are_read_as_records_read_csv() {
    // A header, a quoted id, a quoted note holding the delimiter and a line end, CRLF.
    let input = "id,name,note\r\n\"42\",ann,\"a, b\r\nc\"\r\n0,bob,x\r\n";
    let (code, out, err) = run(
        &[
            "encode",
            "--context",
            "users",
            "--field",
            "1",
            "--csv",
            "--header",
        ],
        input,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "id,name,note\r\n20e2525d-36bc-87ea-91d2-deb59e163fee,ann,\"a, b\r\nc\"\r\n\
         2b41f6ab-9a39-87dc-9bf0-71602fd76308,bob,x\r\n"
    );
    let (code, back, _) = run(
        &[
            "decode",
            "--context",
            "users",
            "--field",
            "1",
            "--csv",
            "--header",
        ],
        &out,
    );
    assert_eq!(code, 0);
    assert_eq!(back, "id,name,note\r\n42,ann,\"a, b\r\nc\"\r\n0,bob,x\r\n");
    // Cut-style splitting (no --csv) sees the quotes as part of the field.
    let (code, _, err) = run(&["encode", "--field", "1", "-d", ",", "--header"], input);
    assert_eq!(code, 2);
    assert!(err.contains("stdin: line 2:"), "{err}");
    // A bad id names the line its record starts on; input that is not CSV names its line.
    let (code, _, err) = run(
        &["encode", "--field", "1", "--csv", "--header"],
        "id,note\n1,\"two\nlines\"\nx,y\n",
    );
    assert_eq!(code, 2);
    assert!(err.starts_with("veilkit: stdin: line 4: "), "{err}");
    let (code, _, err) = run(&["encode", "--field", "1", "--csv"], "1,\"open\n2,x\n");
    assert_eq!(code, 2);
    assert!(
        err.starts_with("veilkit: stdin: line 1: not valid CSV"),
        "{err}"
    );
    // --header without --field passes the first line through too.
    let (code, out, _) = run(&["encode", "--context", "users", "--header"], "id\n42\n");
    assert_eq!(code, 0);
    assert_eq!(out, "id\n20e2525d-36bc-87ea-91d2-deb59e163fee\n");
}

/// A regular file as standard input is read ahead on a thread of its own: the same
/// output, the same errors with the same line numbers and the same status as the same
/// bytes through a pipe, over several megabytes (many chunks), a bad line in the middle
/// and a last line without its line end.
#[test]
fn a_file_as_stdin_gives_what_a_pipe_gives() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..400_000u64 {
        text.push_str(&(i * 7919).to_string());
        text.push('\n');
        if i == 250_000 {
            text.push_str("12x4\n");
        }
    }
    text.push_str("99");
    let file = dir.path().join("ids.txt");
    std::fs::write(&file, &text).unwrap();
    for args in [&["encode", "--keep-going"][..], &["encode"][..]] {
        let piped = with_key()
            .args(args)
            .write_stdin(text.clone())
            .output()
            .unwrap();
        let filed = std_veilkit()
            .env("VEILKIT_KEY", FIXED_KEY)
            .args(args)
            .stdin(Stdio::from(std::fs::File::open(&file).unwrap()))
            .output()
            .unwrap();
        assert_eq!(filed.status.code(), Some(2), "{args:?}");
        assert_eq!(filed.status.code(), piped.status.code(), "{args:?}");
        assert_eq!(stderr_of(&filed), stderr_of(&piped), "{args:?}");
        assert!(
            stderr_of(&filed).contains("line 250002"),
            "{}",
            stderr_of(&filed)
        );
        assert!(filed.stdout == piped.stdout, "{args:?}: outputs differ");
    }
    // And back: decode of the encoded file, read ahead, gives the numbers again.
    let good: String = text
        .lines()
        .filter(|l| !l.contains('x'))
        .map(|l| format!("{l}\n"))
        .collect();
    let encoded = run_ok(with_key().arg("encode").write_stdin(good.clone()));
    let uuids = dir.path().join("uuids.txt");
    std::fs::write(&uuids, &encoded.stdout).unwrap();
    let decoded = run_ok(
        std_veilkit()
            .env("VEILKIT_KEY", FIXED_KEY)
            .arg("decode")
            .stdin(Stdio::from(std::fs::File::open(&uuids).unwrap())),
    );
    assert!(
        decoded.stdout == good.as_bytes(),
        "decode did not give the ids back"
    );
}

#[test]
fn ids_sql_refuses_postgresql_s_own_schemas_before_writing_anything() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    for schema in ["pg_catalog", "pg_temp", "information_schema"] {
        let out = veilkit()
            .args(["ids", "sql", "--schema", schema, "--key-file"])
            .arg(&key)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{schema}");
        assert!(out.stdout.is_empty(), "{schema}");
        assert!(
            stderr_of(&out).contains("is PostgreSQL's own"),
            "{}",
            stderr_of(&out)
        );
    }
    run_ok(
        veilkit()
            .args(["ids", "sql", "--schema", "public", "--key-file"])
            .arg(&key),
    );
}
