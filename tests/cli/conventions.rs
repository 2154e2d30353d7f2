//! The conventions every subcommand follows: exit statuses, error format, streams,
//! output files.

use super::common::*;
use predicates::prelude::*;
use std::process::Stdio;

#[test]
fn help_and_version_exit_zero() {
    veilkit()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("Exit status"));
    veilkit()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("veilkit "));
    veilkit().args(["keygen", "--help"]).assert().success();
}

#[test]
fn usage_errors_exit_two_in_the_standard_format() {
    veilkit()
        .arg("--no-such-flag")
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("veilkit: usage: "));
    veilkit().arg("no-such-command").assert().code(2);
    // No subcommand at all: help on stderr, status 2.
    veilkit().assert().code(2);
}

#[test]
fn runtime_errors_exit_two_with_where_and_what() {
    let out = veilkit()
        .args(["keys", "--key-file", "/nonexistent/k"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.starts_with("veilkit: key file /nonexistent/k: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one error line: {err}");
}

#[test]
fn control_characters_in_paths_are_escaped_in_errors() {
    let out = veilkit()
        .args(["keys", "--key-file", "/nonexistent/\u{1b}[31mred"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("\\u{1b}[31mred"), "{err:?}");
}

/// A closed pipe on line-oriented text output is a normal end: status 0, no message.
#[test]
fn broken_pipe_on_text_output_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std_veilkit()
        .args(["keys", "--key-file"])
        .arg(&key)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "");
}

/// A closed pipe on secret or binary output is lost data: an error.
#[test]
fn broken_pipe_on_key_output_is_an_error() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std_veilkit()
        .arg("keygen")
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("cut off"), "{}", stderr_of(&out));
}

#[test]
fn output_files_are_never_overwritten_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.key");
    std::fs::write(&path, "precious\n").unwrap();
    let out = veilkit()
        .args(["keygen", "-o"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("already exists"),
        "{}",
        stderr_of(&out)
    );
    assert!(stderr_of(&out).contains("hint: "));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious\n");
    veilkit()
        .args(["keygen", "--force", "-o"])
        .arg(&path)
        .assert()
        .success();
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("veilkit-key-1:1:")
    );
    // Nothing else was left in the directory.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn writing_into_a_missing_directory_fails_cleanly() {
    let out = veilkit()
        .args(["keygen", "-o", "/nonexistent/dir/k.key"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).starts_with("veilkit: /nonexistent/dir/k.key: "));
}

#[test]
fn dash_means_stdout() {
    let out = run_ok(veilkit().args(["keygen", "-o", "-"]));
    assert!(stdout_of(&out).contains("veilkit-key-1:1:"));
}

#[test]
fn no_color_wins_over_forced_colour() {
    let coloured = veilkit()
        .arg("--help")
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert!(
        stdout_of(&coloured).contains('\u{1b}'),
        "colour can be forced"
    );
    let plain = veilkit()
        .arg("--help")
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        !stdout_of(&plain).contains('\u{1b}'),
        "NO_COLOR is respected"
    );
}

/// Progress bars appear only on a terminal: a build into a pipe prints its one summary
/// line, and nothing with --quiet.
#[test]
fn no_progress_bar_off_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("d.txt");
    std::fs::write(&dump, "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3\n").unwrap();
    let out = run_ok(
        veilkit()
            .args(["breach", "build"])
            .arg(&dump)
            .arg("-o")
            .arg(dir.path().join("a.idx")),
    );
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.starts_with("veilkit: built "), "{err:?}");
    assert!(!err.contains('\r') && !err.contains('\u{1b}'));
    veilkit()
        .args(["--quiet", "breach", "build"])
        .arg(&dump)
        .arg("-o")
        .arg(dir.path().join("b.idx"))
        .assert()
        .success()
        .stderr("");
}

/// Stdout that cannot take the output (a full disk: Linux's /dev/full) is an error with
/// status 2 and one message for every command that writes there, help and version
/// included (they once ended with status 0 and nothing said).
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_on_stdout_is_an_error_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let vkr = super::records::seal(
        dir.path(),
        b"id,name\n1,ann\n2,bob\n",
        "r.csv",
        &["--key-field", "id"],
        &key,
    );
    let index = super::breach::build_from(
        dir.path(),
        "i",
        "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493\n",
    );
    let (k, v, i) = (
        key.to_str().unwrap(),
        vkr.to_str().unwrap(),
        index.to_str().unwrap(),
    );
    let cases: &[(&[&str], &str)] = &[
        (&["--help"], ""),
        (&["--version"], ""),
        (&["records", "get", "--help"], ""),
        (&["completions", "bash"], ""),
        (&["man"], ""),
        (&["keys", "--key-file", k], ""),
        (&["keygen"], ""),
        (&["encode", "--key-file", k], "1\n2\n"),
        (&["nonce", "-n", "3"], ""),
        (&["breach", "query", "--passwords"], "password\n"),
        (
            &[
                "breach",
                "okon",
                "--path",
                i,
                "--hash",
                "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8",
            ],
            "",
        ),
        (&["records", "open", v, "--key-file", k], ""),
        (&["records", "get", v, "1", "--key-file", k], ""),
        (&["records", "info", v, "--key-file", k], ""),
    ];
    for (args, stdin) in cases {
        let out = std_veilkit()
            .args(*args)
            .env("VEILKIT_STATE_HOME", dir.path())
            .env("XDG_STATE_HOME", dir.path())
            .stdin(Stdio::piped())
            .stdout(
                std::fs::File::options()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            )
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
                child.wait_with_output()
            })
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("veilkit: ")
                && err.contains("No space left on device")
                && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}

/// `--version` gives the build's details (commit, cargo features, processor features
/// compiled in and present), as `rg --version` does; `-V` stays one line.
#[test]
fn long_version_gives_the_builds_details() {
    let long = veilkit().arg("--version").output().unwrap();
    assert_eq!(long.status.code(), Some(0));
    let text = String::from_utf8(long.stdout).unwrap();
    assert!(
        text.starts_with(concat!("veilkit ", env!("CARGO_PKG_VERSION"), " (rev ")),
        "{text}"
    );
    assert!(text.contains("\nfeatures: "), "{text}");
    assert!(text.contains("\nthis processor: "), "{text}");
    let short = veilkit().arg("-V").output().unwrap();
    assert_eq!(
        String::from_utf8(short.stdout).unwrap(),
        concat!("veilkit ", env!("CARGO_PKG_VERSION"), "\n")
    );
}
