//! `veilkit breach okon` and the `okon-cli` name: okon-cli's arguments, output and exit
//! status, and KeePassXC's `keepassxc-cli analyze --okon` driving it on a real vault.

use super::breach::build_from;
use super::common::*;
use sha1::Digest;
use std::path::{Path, PathBuf};
use std::process::Command;

fn sha1_hex(password: &str) -> String {
    sha1::Sha1::digest(password.as_bytes())
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect()
}

/// An index of the leaked passwords with counts, and a link named `okon-cli` to the
/// binary.
fn setup(dir: &Path, leaked: &[&str]) -> (PathBuf, PathBuf) {
    let mut lines: Vec<String> = leaked
        .iter()
        .enumerate()
        .map(|(n, p)| format!("{}:{}", sha1_hex(p), n + 7))
        .collect();
    lines.sort();
    let idx = build_from(dir, "hibp", &(lines.join("\n") + "\n"));
    let okon = dir.join("hibp.okon");
    std::os::unix::fs::symlink(&idx, &okon).unwrap();
    let cli = dir.join("okon-cli");
    std::os::unix::fs::symlink(bin(), &cli).unwrap();
    (okon, cli)
}

#[test]
fn okon_answers_with_okon_clis_output_and_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let (okon, cli) = setup(dir.path(), &["password", "123456"]);
    let ask = |program: &Path, pre: &[&str], path: &Path, hash: &str| {
        let out = Command::new(program)
            .args(pre)
            .arg("--path")
            .arg(path)
            .arg("--hash")
            .arg(hash)
            .output()
            .unwrap();
        (out.status.code(), stdout_of(&out), stderr_of(&out))
    };
    let leaked = sha1_hex("password");
    for (program, pre) in [(bin(), &["breach", "okon"][..]), (cli.clone(), &[][..])] {
        // Present: 1 and status 1, in either case of hex (keepassxc-cli sends lower).
        for h in [leaked.clone(), leaked.to_lowercase()] {
            assert_eq!(
                ask(&program, pre, &okon, &h),
                (Some(1), "1\n".into(), String::new())
            );
        }
        // Absent: 0 and status 0.
        assert_eq!(
            ask(
                &program,
                pre,
                &okon,
                &sha1_hex("correct horse battery staple")
            ),
            (Some(0), "0\n".into(), String::new())
        );
        // Errors are status 2 (keepassxc-cli's "failed to load"): any other status would
        // read as "not leaked".
        let (code, out, err) = ask(&program, pre, &okon, "5baa61e4");
        assert_eq!((code, out.as_str()), (Some(2), ""), "{err}");
        assert!(err.contains("--hash: not a SHA-1 hash"), "{err}");
        let junk = dir.path().join("junk.okon");
        std::fs::write(&junk, "not an index\n").unwrap();
        let (code, out, _) = ask(&program, pre, &junk, &leaked);
        assert_eq!((code, out.as_str()), (Some(2), ""));
        let (code, _, _) = ask(&program, pre, &dir.path().join("none.okon"), &leaked);
        assert_eq!(code, Some(2));
    }
    // An NTLM index is refused, not answered 0.
    let ntlm = build_from(dir.path(), "ntlm", "8846F7EAEE8FB117AD06BDD830B7586C:5\n");
    let (code, _, err) = ask(&cli, &[], &ntlm, &leaked);
    assert_eq!(code, Some(2));
    assert!(err.contains("NTLM index"), "{err}");
}

/// Runs keepassxc-cli with `args` and `input` on its standard input.
fn keepassxc(args: &[&std::ffi::OsStr], input: &str) -> std::process::Output {
    run_with_input(Command::new("keepassxc-cli").args(args), input.as_bytes())
}

/// A vault made with keepassxc-cli: (title, password) entries, database password
/// `dbpass`.
fn vault(dir: &Path, entries: &[(&str, &str)]) -> PathBuf {
    let db = dir.join("vault.kdbx");
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    let out = keepassxc(
        &[
            os("db-create"),
            os("-q"),
            os("--set-password"),
            os("-t"),
            os("100"),
            db.as_os_str(),
        ],
        "dbpass\ndbpass\n",
    );
    assert!(out.status.success(), "db-create: {}", stderr_of(&out));
    for (title, password) in entries {
        let out = keepassxc(
            &[
                os("add"),
                os("-q"),
                os("-p"),
                db.as_os_str(),
                std::ffi::OsStr::new(title),
            ],
            &format!("dbpass\n{password}\n"),
        );
        assert!(out.status.success(), "add {title}: {}", stderr_of(&out));
    }
    db
}

#[test]
fn keepassxc_cli_analyze_finds_the_leaked_passwords_of_a_vault_through_okon_cli() {
    if !have_program("keepassxc-cli", "--version", "apt install keepassxc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (okon, cli) = setup(dir.path(), &["password", "123456", "hunter2", "letmein"]);
    let db = vault(
        dir.path(),
        &[
            ("mail", "password"),
            ("bank", "Zq8#vLr2!pXw9@Tk-unique"),
            ("forum", "hunter2"),
            ("work", "another strong one: 7f3e9a1c"),
            ("shop", "123456"),
        ],
    );
    let analyze = |hibp: &Path| {
        keepassxc(
            &[
                std::ffi::OsStr::new("analyze"),
                std::ffi::OsStr::new("-q"),
                std::ffi::OsStr::new("--okon"),
                cli.as_os_str(),
                std::ffi::OsStr::new("--hibp"),
                hibp.as_os_str(),
                db.as_os_str(),
            ],
            "dbpass\n",
        )
    };
    let out = analyze(&okon);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let mut leaked: Vec<String> = stdout_of(&out)
        .lines()
        .filter_map(|l| {
            l.strip_prefix("Password for '")
                .and_then(|r| r.strip_suffix("' has been leaked!"))
                .map(str::to_string)
        })
        .collect();
    leaked.sort();
    assert_eq!(leaked, ["forum", "mail", "shop"], "{}", stdout_of(&out));
    // A damaged index is a failure keepassxc-cli reports, never "nothing leaked".
    let damaged = dir.path().join("damaged.okon");
    // A flip in the header, which every opening checks.
    let mut bytes = std::fs::read(&okon).unwrap();
    bytes[16] ^= 0x40;
    std::fs::write(&damaged, bytes).unwrap();
    let out = analyze(&damaged);
    assert!(!out.status.success(), "{}", stdout_of(&out));
    assert!(
        stderr_of(&out).contains("Failed to load okon processed database"),
        "{}",
        stderr_of(&out)
    );
}

/// A partial index (`--allow-partial`) of the ranges of `present` alone, its compact
/// index and its filter.
fn partial_tiers(dir: &Path, present: &[&str]) -> [PathBuf; 3] {
    let (okon, _) = setup(dir, present);
    let ranges = dir.join("ranges");
    veilkit()
        .args(["-q", "breach", "export-ranges", "--skip-empty", "-i"])
        .arg(&okon)
        .arg("-o")
        .arg(&ranges)
        .assert()
        .success();
    let partial = dir.join("partial.okon");
    veilkit()
        .args(["-q", "breach", "build", "--allow-partial"])
        .arg(&ranges)
        .arg("-o")
        .arg(&partial)
        .assert()
        .success();
    let tier = |name: &str, tier: &str| {
        let out = dir.join(name);
        veilkit()
            .args(["-q", "breach", "build", "--tier", tier])
            .arg(&partial)
            .arg("-o")
            .arg(&out)
            .assert()
            .success();
        out
    };
    [
        partial.clone(),
        tier("compact.okon", "compact"),
        tier("filter.okon", "filter"),
    ]
}

#[test]
fn okon_on_a_partial_index_fails_for_a_hash_of_a_missing_range() {
    let dir = tempfile::tempdir().unwrap();
    // "password" (5BAA6) and "123456" (7C4A8) are there; the other ranges are missing.
    let [exact, compact, filter] = partial_tiers(dir.path(), &["password", "123456"]);
    let ask = |path: &Path, password: &str| {
        let out = std_veilkit()
            .args(["breach", "okon", "--path"])
            .arg(path)
            .arg("--hash")
            .arg(sha1_hex(password))
            .output()
            .unwrap();
        (out.status.code(), stdout_of(&out), stderr_of(&out))
    };
    // A hash absent from a range that is there (5BAA6), different in its seventh digit
    // (which the compact index keeps).
    let mut near = sha1_hex("password").into_bytes();
    near[6] = if near[6] == b'0' { b'1' } else { b'0' };
    let near = String::from_utf8(near).unwrap();
    for path in [&exact, &compact] {
        assert_eq!(ask(path, "password").0, Some(1));
        let out = std_veilkit()
            .args(["breach", "okon", "--path"])
            .arg(path)
            .args(["--hash", &near])
            .output()
            .unwrap();
        assert_eq!(
            (out.status.code(), stdout_of(&out)),
            (Some(0), "0\n".into()),
            "{}",
            stderr_of(&out)
        );
        // "hunter2" (F3BBB) is in a missing range: unknown, status 2, nothing printed.
        let (code, out, err) = ask(path, "hunter2");
        assert_eq!((code, out.as_str()), (Some(2), ""), "{err}");
        assert!(
            err.contains("range F3BBB") && err.contains("missing"),
            "{err}"
        );
    }
    // A filter cannot tell a missing range: an absent answer is refused, a present one
    // given.
    assert_eq!(ask(&filter, "password").0, Some(1));
    let (code, out, err) = ask(&filter, "hunter2");
    assert_eq!((code, out.as_str()), (Some(2), ""), "{err}");
    assert!(err.contains("partial filter"), "{err}");
}

#[test]
fn keepassxc_cli_reports_a_failure_for_a_partial_index_missing_a_vaults_range() {
    if !have_program("keepassxc-cli", "--version", "apt install keepassxc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let [exact, _, _] = partial_tiers(dir.path(), &["password", "123456"]);
    let cli = dir.path().join("okon-cli");
    let db = vault(dir.path(), &[("mail", "password"), ("forum", "hunter2")]);
    let out = keepassxc(
        &[
            std::ffi::OsStr::new("analyze"),
            std::ffi::OsStr::new("-q"),
            std::ffi::OsStr::new("--okon"),
            cli.as_os_str(),
            std::ffi::OsStr::new("--hibp"),
            exact.as_os_str(),
            db.as_os_str(),
        ],
        "dbpass\n",
    );
    // "hunter2" falls in a missing range: a failure, never a clean vault.
    assert!(!out.status.success(), "{}", stdout_of(&out));
    assert!(
        stderr_of(&out).contains("Failed to load okon processed database"),
        "{}",
        stderr_of(&out)
    );
}
