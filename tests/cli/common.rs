//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// The binary under test, with the environment cleared of anything that would change
/// its behaviour.
pub fn veilkit() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(bin());
    for var in [
        "VEILKIT_KEY",
        "VEILKIT_KEY_FILE",
        "VEILKIT_MACHINE_ID",
        "VEILKIT_NONCE_STATE",
        "VEILKIT_NONCE_GUARD",
        "NO_COLOR",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// The path of the binary under test.
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin!("veilkit").to_path_buf()
}

/// A std command for the binary (for tests that need pipes or signals).
pub fn std_veilkit() -> std::process::Command {
    let mut cmd = std::process::Command::new(bin());
    for var in [
        "VEILKIT_KEY",
        "VEILKIT_KEY_FILE",
        "VEILKIT_MACHINE_ID",
        "VEILKIT_NONCE_STATE",
        "VEILKIT_NONCE_GUARD",
        "NO_COLOR",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// Makes a key file in `dir` and returns its path.
pub fn keyfile(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    veilkit()
        .args(["keygen", "-o"])
        .arg(&path)
        .assert()
        .success();
    path
}

/// Runs a command to its end and returns its output; unless it succeeded, fails the
/// test showing the command line, its status and both of its streams.
#[track_caller]
/// A loopback port free now (nothing listens on it once this returns).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs `cmd` with `input` on its standard input, its output captured.
pub fn run_with_input(cmd: &mut std::process::Command, input: &[u8]) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

pub fn run_ok(cmd: impl assert_cmd::output::OutputOkExt) -> std::process::Output {
    cmd.ok().unwrap_or_else(|e| panic!("{e}"))
}

/// Stderr of an output as text.
pub fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Stdout of an output as text.
pub fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether an outside program a test needs (`what`) is here. When it is not, the test is
/// skipped with one line saying how to install it, unless the variable `CI` is set: CI
/// installs everything (`.ci/run`), so there a missing program fails the test instead of
/// skipping it silently.
pub fn have(what: &str, install: &str, present: bool) -> bool {
    if present {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none_or(|v| v.is_empty()),
        "{what} is missing, and CI must not skip this test: {install}"
    );
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let line = format!("{test}: needs {what} ({install})");
    // Written past libtest's capture (which takes only `eprintln!`), so the skip shows
    // where it happens, and listed again once the summary is out.
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {line}");
    let mut skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
    if skipped.is_empty() {
        // SAFETY: `list_skipped` is an `extern "C"` function taking nothing, as atexit
        // wants; it runs once at exit, after libtest's summary.
        unsafe { libc::atexit(list_skipped) };
    }
    skipped.push(line);
    false
}

/// The tests [`have`] skipped, for [`list_skipped`].
static SKIPPED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Lists the skipped tests after libtest's summary, which counts them as passed.
extern "C" fn list_skipped() {
    let skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "\n{} of the tests above passed by skipping (CI runs them; `bash .ci/deps` installs what they need):",
        skipped.len()
    );
    for line in skipped.iter() {
        let _ = writeln!(err, "  SKIPPED {line}");
    }
}

/// A tmpfs of `size` (as mount's `size=` takes it) mounted at `dir` (made here), unmounted
/// when the guard is dropped; `None` when it cannot be mounted (not root): see [`have`]
/// for what happens then.
#[cfg(target_os = "linux")]
pub fn small_tmpfs(dir: &std::path::Path, size: &str) -> Option<Unmount> {
    std::fs::create_dir(dir).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    have(
        &format!("root, to mount a {size} tmpfs"),
        "run the tests as root",
        mounted,
    )
    .then(|| Unmount(dir.to_path_buf()))
}

/// Unmounts its directory when dropped.
#[cfg(target_os = "linux")]
pub struct Unmount(std::path::PathBuf);

#[cfg(target_os = "linux")]
impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// A Python in which `probe` runs without error (the one `VEILKIT_CLIENT_PYTHON` names,
/// else the environment `.ci/deps` makes in `target/pyclient`, else `python3`), or `None`
/// when there is none: see [`have`] for what happens then. `what` names what the test
/// needs, `install` how to get it.
pub fn python(what: &str, probe: &str, install: &str) -> Option<String> {
    let made = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/pyclient/bin/python");
    let python = std::env::var("VEILKIT_CLIENT_PYTHON").unwrap_or_else(|_| {
        if made.exists() {
            made.display().to_string()
        } else {
            "python3".into()
        }
    });
    let probe = std::process::Command::new(&python)
        .args(["-c", probe])
        .output();
    have(
        what,
        install,
        probe.as_ref().is_ok_and(|o| o.status.success()),
    )
    .then_some(python)
}

/// Whether `program` runs (`program ARG` exits 0); see [`have`] for what happens when it
/// does not.
pub fn have_program(program: &str, arg: &str, install: &str) -> bool {
    let present = std::process::Command::new(program)
        .arg(arg)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    have(program, install, present)
}

/// A named pipe `name` in `dir` that a thread fills with `bytes` once a reader opens it:
/// its path, and the thread (joined for the write's result).
#[cfg(unix)]
pub fn fed_fifo(
    dir: &Path,
    name: &str,
    bytes: Vec<u8>,
) -> (PathBuf, std::thread::JoinHandle<std::io::Result<()>>) {
    let fifo = fifo(dir, name);
    let path = fifo.clone();
    (
        fifo,
        std::thread::spawn(move || std::fs::write(path, bytes)),
    )
}

/// A new named pipe `name` in `dir`.
#[cfg(unix)]
pub fn fifo(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&p)
            .status()
            .unwrap()
            .success()
    );
    p
}

/// A CA of its own and a certificate for 127.0.0.1 and localhost signed by it, made with
/// the openssl program in `d`: `ca.pem`, `server.pem`, `server.key`. `None` (the skip
/// said) without openssl.
pub fn test_certificates(d: &Path) -> Option<()> {
    if !have_program("openssl", "version", "apt-get install openssl") {
        return None;
    }
    let ssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            stderr_of(&out)
        );
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
    ];
    ssl(&[
        &["req", "-x509"][..],
        &ec,
        &[
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=veilkit test CA",
        ],
    ]
    .concat());
    ssl(&[
        &["req"][..],
        &ec,
        &[
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=127.0.0.1",
        ],
    ]
    .concat());
    std::fs::write(
        d.join("server.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    ssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "server.ext",
    ]);
    Some(())
}

/// The files of the fixture directory `dir` (relative to the repository) copied into a
/// temporary directory, `key.txt` with mode 0600 as a key file must have.
pub fn fixture_copy(dir: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), tmp.path().join(entry.file_name())).unwrap();
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let key = tmp.path().join("key.txt");
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let path = tmp.path().to_path_buf();
    (tmp, path)
}
