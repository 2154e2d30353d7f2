//! Key files and keyrings through the real binary.

use super::common::*;
use predicates::prelude::*;

#[cfg(unix)]
#[test]
fn key_files_are_created_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn key_file_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let out = run_ok(veilkit().args(["keys", "--key-file"]).arg(&key));
    let text = stdout_of(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[1].starts_with("1\t1\t"));
    assert!(lines[1].ends_with("\tcurrent"));
    // The key itself never appears in the listing.
    let key_text = std::fs::read_to_string(&key).unwrap();
    let secret = key_text.lines().last().unwrap().split(':').nth(2).unwrap();
    assert!(!text.contains(&secret[..16]));
    // Two fresh keys differ.
    let other = keyfile(dir.path(), "k2.key");
    assert_ne!(std::fs::read_to_string(&other).unwrap(), key_text);
}

#[test]
fn a_one_character_typo_is_caught_without_echoing_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let text = std::fs::read_to_string(&key).unwrap();
    let line = text.lines().last().unwrap();
    let secret = line.split(':').nth(2).unwrap().to_string();
    // Change the 20th hex digit of the key.
    let pos = line.find(&secret).unwrap() + 20;
    let mut bytes = line.as_bytes().to_vec();
    bytes[pos] = if bytes[pos] == b'7' { b'8' } else { b'7' };
    let typo = String::from_utf8(bytes).unwrap();
    std::fs::write(&key, text.replace(line, &typo)).unwrap();
    let out = veilkit()
        .args(["keys", "--key-file"])
        .arg(&key)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(err.contains(": line 3: checksum does not match"), "{err}");
    assert!(
        !err.contains(&secret[..12]),
        "the key leaked into the error"
    );
}

#[test]
fn keyring_with_two_keys() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let before = std::fs::read_to_string(&key).unwrap();
    veilkit()
        .args(["keygen", "--add"])
        .arg(&key)
        .assert()
        .success()
        .stderr(predicate::str::contains("added key 2"));
    let after = std::fs::read_to_string(&key).unwrap();
    // The old key is kept, unchanged, and the new one follows it.
    assert!(after.contains(before.lines().last().unwrap()));
    assert!(
        after
            .lines()
            .last()
            .unwrap()
            .starts_with("veilkit-key-1:2:")
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    let out = veilkit()
        .args(["keys", "--key-file"])
        .arg(&key)
        .output()
        .unwrap();
    let text = stdout_of(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[1].starts_with("1\t1\t") && lines[1].ends_with("\tdecrypts"));
    assert!(lines[2].starts_with("2\t2\t") && lines[2].ends_with("\tcurrent"));
    // --quiet silences the informational line.
    veilkit()
        .args(["--quiet", "keygen", "--add"])
        .arg(&key)
        .assert()
        .success()
        .stderr("");
}

#[test]
fn key_from_each_source_and_their_precedence() {
    let dir = tempfile::tempdir().unwrap();
    let a = keyfile(dir.path(), "a.key");
    let b = keyfile(dir.path(), "b.key");
    let listing = |cmd: &mut assert_cmd::Command| {
        let out = run_ok(cmd);
        stdout_of(&out)
    };
    let from_a = listing(veilkit().args(["keys", "--key-file"]).arg(&a));
    let from_b = listing(veilkit().args(["keys", "--key-file"]).arg(&b));
    assert_ne!(from_a, from_b);
    // VEILKIT_KEY_FILE
    assert_eq!(
        listing(veilkit().arg("keys").env("VEILKIT_KEY_FILE", &a)),
        from_a
    );
    // VEILKIT_KEY (the text)
    let text_b = std::fs::read_to_string(&b).unwrap();
    assert_eq!(
        listing(veilkit().arg("keys").env("VEILKIT_KEY", &text_b)),
        from_b
    );
    // --key-file beats both variables; the file variable beats the text variable.
    assert_eq!(
        listing(
            veilkit()
                .args(["keys", "--key-file"])
                .arg(&a)
                .env("VEILKIT_KEY_FILE", &b)
                .env("VEILKIT_KEY", &text_b)
        ),
        from_a
    );
    assert_eq!(
        listing(
            veilkit()
                .arg("keys")
                .env("VEILKIT_KEY_FILE", &a)
                .env("VEILKIT_KEY", &text_b)
        ),
        from_a
    );
    // A file descriptor, through /dev/fd (Linux).
    #[cfg(target_os = "linux")]
    {
        let out = run_ok(
            veilkit()
                .args(["keys", "--key-file", "/dev/stdin"])
                .write_stdin(text_b.clone()),
        );
        assert_eq!(stdout_of(&out), from_b);
    }
}

#[cfg(unix)]
#[test]
fn a_key_file_readable_by_others_gets_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    veilkit()
        .args(["keys", "--key-file"])
        .arg(&key)
        .assert()
        .success()
        .stderr(
            predicate::str::contains("veilkit: warning: key file")
                .and(predicate::str::contains("chmod 600")),
        );
}

#[test]
fn add_to_a_missing_keyring_fails() {
    let dir = tempfile::tempdir().unwrap();
    veilkit()
        .args(["keygen", "--add"])
        .arg(dir.path().join("none.key"))
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("veilkit: key file "));
}

/// Runs of `keygen --add` at once each add their key: none replaces the ring another
/// has just written (every one said "added key N", while all but one key were lost).
#[test]
fn keys_added_at_once_are_all_kept() {
    let dir = tempfile::tempdir().unwrap();
    let ring = keyfile(dir.path(), "ring.key");
    let runs = 12;
    let children: Vec<_> = (0..runs)
        .map(|_| {
            std_veilkit()
                .args(["-q", "keygen", "--add"])
                .arg(&ring)
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = std::fs::read_to_string(&ring).unwrap();
    let keys: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("veilkit-key-"))
        .collect();
    assert_eq!(keys.len(), 1 + runs, "{text}");
    let mut ids: Vec<&str> = keys.iter().map(|k| k.split(':').nth(1).unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 1 + runs, "{text}");
}
