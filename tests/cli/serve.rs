//! `veilkit breach serve` through the real binary and a real HIBP client library.

use super::breach::build_from;
use super::common::*;
use super::tiers::password_dump;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

/// A running server, killed when dropped.
pub struct Server {
    child: Child,
    /// `HOST:PORT`.
    pub addr: String,
    /// `http://HOST:PORT` or `https://HOST:PORT`.
    pub url: String,
}

impl Server {
    pub fn start(indexes: &[&Path]) -> Server {
        Server::start_with(indexes, &[])
    }

    pub fn start_with(indexes: &[&Path], extra: &[&str]) -> Server {
        let mut cmd = std_veilkit();
        cmd.args([
            "breach",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--threads",
            "2",
        ]);
        cmd.args(extra);
        for i in indexes {
            cmd.arg("-i").arg(i);
        }
        // Detached from any terminal, as a service runs.
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://") || w.starts_with("https://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        let addr = url.split("://").nth(1).unwrap().to_string();
        Server { child, addr, url }
    }

    /// Sends raw request bytes; returns (status, headers, body).
    fn raw(&self, request: &[u8]) -> (u16, String, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.write_all(request).unwrap();
        let mut all = Vec::new();
        s.read_to_end(&mut all).unwrap();
        let split = all
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no head in {:?}", String::from_utf8_lossy(&all)));
        let head = String::from_utf8_lossy(&all[..split]).into_owned();
        let status = head[9..12].parse().unwrap();
        (status, head, all[split + 4..].to_vec())
    }

    /// Sends SIGHUP (a reload, as the server runs detached).
    #[cfg(unix)]
    pub fn hup(&self) {
        #[allow(unsafe_code)]
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGHUP);
        }
    }

    /// Stops the server (SIGTERM) and returns what it wrote on stderr after its first
    /// line.
    #[cfg(unix)]
    pub fn stop_and_stderr(&mut self) -> String {
        #[allow(unsafe_code)]
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let _ = self.child.wait();
        let mut rest = String::new();
        if let Some(e) = self.child.stderr.as_mut() {
            let _ = e.read_to_string(&mut rest);
        }
        rest
    }

    /// GET `path` with extra header lines; (status, head, body).
    pub fn get(&self, path: &str, headers: &str) -> (u16, String, Vec<u8>) {
        self.raw(
            format!("GET {path} HTTP/1.1\r\nHost: x\r\n{headers}Connection: close\r\n\r\n")
                .as_bytes(),
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn ranges_are_byte_identical_to_the_exported_files() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", &password_dump(3000));
    let ranges = dir.path().join("ranges");
    veilkit()
        .args(["-q", "breach", "export-ranges", "--skip-empty", "-i"])
        .arg(&idx)
        .arg("-o")
        .arg(&ranges)
        .assert()
        .success();
    let server = Server::start(&[&idx]);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&ranges)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() > 2900);
    for (n, f) in files.iter().enumerate() {
        let prefix = f.file_stem().unwrap().to_str().unwrap();
        // Every other request in lower case.
        let asked = if n % 2 == 0 {
            prefix.to_string()
        } else {
            prefix.to_lowercase()
        };
        let (status, head, body) = server.get(&format!("/range/{asked}"), "");
        assert_eq!(status, 200);
        assert!(head.contains("content-type: text/plain"), "{head}");
        assert_eq!(body, std::fs::read(f).unwrap(), "{prefix}");
    }
    // A prefix without hashes: an empty body.
    let (status, _, body) = server.get("/range/00000", "");
    assert_eq!((status, body.len()), (200, 0));
    // The same from indexes read into memory.
    let loaded = Server::start_with(&[&idx], &["--in-memory"]);
    for f in files.iter().step_by(50) {
        let prefix = f.file_stem().unwrap().to_str().unwrap();
        let (_, _, body) = loaded.get(&format!("/range/{prefix}"), "");
        assert_eq!(body, std::fs::read(f).unwrap(), "{prefix}");
    }
}

#[test]
fn etags_answer_304_gzip_is_honoured_and_cors_preflights_are_answered() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", &password_dump(3000));
    let server = Server::start(&[&idx]);
    // A range with hashes (the dump's first hash's prefix).
    let first = password_dump(3000)[..5].to_string();
    let (status, head, plain) = server.get(&format!("/range/{first}"), "");
    assert_eq!(status, 200);
    let etag = head
        .lines()
        .find_map(|l| l.strip_prefix("etag: "))
        .unwrap_or_else(|| panic!("no etag in {head}"))
        .to_string();
    assert!(etag.starts_with("\"sha1-") && etag.ends_with('"'), "{etag}");
    // The same range from a rebuilt index keeps its tag (it is the content's).
    let again = build_from(dir.path(), "b", &password_dump(3000));
    let other = Server::start(&[&again]);
    let (_, head2, _) = other.get(&format!("/range/{first}"), "");
    assert!(head2.contains(&format!("etag: {etag}")), "{head2}");
    // If-None-Match: 304 without a body, for the tag, a list holding it, its weak form
    // and `*`; 200 for another tag.
    for inm in [
        etag.clone(),
        format!("\"x\", {etag}"),
        format!("W/{etag}"),
        "*".to_string(),
    ] {
        let (status, head, body) = server.get(
            &format!("/range/{first}"),
            &format!("If-None-Match: {inm}\r\n"),
        );
        assert_eq!((status, body.len()), (304, 0), "{inm}");
        assert!(head.contains(&format!("etag: {etag}")), "{head}");
    }
    let (status, _, body) = server.get(
        &format!("/range/{first}"),
        "If-None-Match: \"sha1-0000000000000000\"\r\n",
    );
    assert_eq!((status, &body), (200, &plain));
    // Last-Modified is the index's time; If-Modified-Since at or after it is 304, before
    // it 200; If-None-Match, when present, decides alone (RFC 9110, 13.2.2).
    let modified = head2_of(&server, &first)
        .lines()
        .find_map(|l| l.strip_prefix("last-modified: ").map(str::to_string))
        .unwrap_or_else(|| panic!("no last-modified"));
    assert!(modified.ends_with(" GMT"), "{modified}");
    let (status, _, body) = server.get(
        &format!("/range/{first}"),
        &format!("If-Modified-Since: {modified}\r\n"),
    );
    assert_eq!((status, body.len()), (304, 0));
    for (headers, want) in [
        (
            "If-Modified-Since: Thu, 01 Jan 2015 00:00:00 GMT\r\n".to_string(),
            200,
        ),
        (
            format!(
                "If-None-Match: \"sha1-0000000000000000\"\r\nIf-Modified-Since: {modified}\r\n"
            ),
            200,
        ),
        ("If-Modified-Since: not a date\r\n".to_string(), 200),
    ] {
        let (status, _, _) = server.get(&format!("/range/{first}"), &headers);
        assert_eq!(status, want, "{headers}");
    }
    // gzip when asked (not with q=0), and the body is the same once decompressed.
    let (status, head, zipped) =
        server.get(&format!("/range/{first}"), "Accept-Encoding: br, gzip\r\n");
    assert_eq!(status, 200);
    assert!(head.contains("content-encoding: gzip"), "{head}");
    assert!(
        head.contains("vary: Add-Padding, Accept-Encoding"),
        "{head}"
    );
    let mut unzipped = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&zipped[..]),
        &mut unzipped,
    )
    .unwrap();
    assert_eq!(unzipped, plain);
    let (_, head, body) = server.get(
        &format!("/range/{first}"),
        "Accept-Encoding: gzip;q=0, identity\r\n",
    );
    assert!(!head.contains("content-encoding"), "{head}");
    assert_eq!(body, plain);
    // A CORS preflight, as the public API's worker answers it.
    let (status, head, _) = server.raw(
        format!(
            "OPTIONS /range/{first} HTTP/1.1\r\nHost: x\r\nOrigin: https://example.org\r\n\
             Access-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: add-padding\r\n\
             Connection: close\r\n\r\n"
        )
        .as_bytes(),
    );
    assert_eq!(status, 204);
    for h in [
        "access-control-allow-origin: *",
        "access-control-allow-methods: GET",
        "access-control-allow-headers: Add-Padding",
        "access-control-max-age: 86400",
    ] {
        assert!(head.contains(h), "{h} missing from {head}");
    }
}

/// The head of a plain GET of range `prefix`.
fn head2_of(server: &Server, prefix: &str) -> String {
    server.get(&format!("/range/{prefix}"), "").1
}

#[test]
fn padding_check_ntlm_and_bad_requests() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", &password_dump(3000));
    let ntlm = build_from(
        dir.path(),
        "n",
        "8846F7EAEE8FB117AD06BDD830B7586C:12\nF1B094F25BBDCB6FDBAA6CC8B43F0C44:3\n",
    );
    let server = Server::start(&[&idx, &ntlm]);

    // Padding: 800 to 1000 lines, the real ones among them, the rest count 0, sorted.
    let (_, _, plain) = server.get("/range/5BAA6", "");
    let (_, _, exported) = server.get("/range/0A1B2", "");
    for (prefix, real) in [("5BAA6", &plain), ("0A1B2", &exported)] {
        let (status, head, body) = server.get(&format!("/range/{prefix}"), "Add-Padding: true\r\n");
        assert_eq!(status, 200);
        assert!(head.contains("cache-control: no-store"));
        let text = String::from_utf8(body).unwrap();
        let lines: Vec<&str> = text.split("\r\n").collect();
        assert!((800..=1000).contains(&lines.len()), "{}", lines.len());
        let mut sorted = lines.clone();
        sorted.sort();
        assert_eq!(sorted, lines);
        let real_text = String::from_utf8(real.clone()).unwrap();
        for l in real_text.split("\r\n").filter(|l| !l.is_empty()) {
            assert!(lines.contains(&l), "{l}");
        }
        for l in &lines {
            let (suffix, count) = l.split_once(':').unwrap();
            assert_eq!(suffix.len(), 35);
            assert!(
                suffix
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_lowercase())
            );
            assert!(count == "0" || real_text.contains(l), "{l}");
        }
    }

    // NTLM by mode; SHA-1 by default.
    let (status, _, body) = server.get("/range/8846F?mode=ntlm", "");
    assert_eq!(
        (status, body.as_slice()),
        (200, &b"7EAEE8FB117AD06BDD830B7586C:12"[..])
    );
    let (_, _, body) = server.get("/range/8846F", "");
    assert_eq!(body, b"");

    // /check.
    let (status, _, body) = server.get("/check/8846F7EAEE8FB117AD06BDD830B7586C", "");
    assert_eq!((status, body.as_slice()), (200, &b"12"[..]));
    let pw7 = {
        use sha1::Digest;
        let h = sha1::Sha1::digest(b"pw7");
        h.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let (_, _, body) = server.get(&format!("/check/{pw7}"), "");
    assert_eq!(body, b"8");
    let (_, _, body) = server.get("/check/0000000000000000000000000000000000000000", "");
    assert_eq!(body, b"0");

    // Bad requests: a clear status, and the server keeps serving.
    for (path, want) in [
        ("/range/5BAA", 400),
        ("/range/5BAA6G", 400),
        ("/range/ZZZZZ", 400),
        ("/range/5BAA6?mode=md5", 400),
        ("/check/1234", 400),
        ("/check/zz", 400),
        ("/nothing", 404),
    ] {
        assert_eq!(server.get(path, "").0, want, "{path}");
    }
    assert_eq!(server.raw(b"POST /range/5BAA6 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").0, 405);
    let huge = format!(
        "GET /range/5BAA6 HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(64 << 10)
    );
    let mut s = TcpStream::connect(&server.addr).unwrap();
    let _ = s.write_all(huge.as_bytes());
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    assert!(
        answer.starts_with(b"HTTP/1.1 431") || answer.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&answer[..answer.len().min(80)])
    );
    let mut s = TcpStream::connect(&server.addr).unwrap();
    let _ = s.write_all(b"\x00\xff garbage \r\n\r\n");
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    assert!(answer.starts_with(b"HTTP/1.1 400") || answer.is_empty());
    let (status, _, body) = server.get("/range/8846F?mode=ntlm", "");
    assert_eq!((status, body.len()), (200, 30));
}

/// Reads one response's head and its Content-Length bytes of body from a kept-alive
/// connection.
fn read_one_response(s: &mut TcpStream) -> std::io::Result<(String, Vec<u8>)> {
    let mut all = Vec::new();
    let mut byte = [0u8; 1];
    while !all.ends_with(b"\r\n\r\n") {
        if s.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        all.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&all).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap())
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    s.read_exact(&mut body)?;
    Ok((head, body))
}

/// `--max-connections`: with one allowed, a second client's request waits, unanswered,
/// while the first keeps its connection open, and is answered once it closes (the
/// server's threads share the one limit).
#[test]
fn a_connection_past_max_connections_waits_for_one_to_close() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", &password_dump(10));
    let server = Server::start_with(&[&idx], &["--max-connections", "1"]);
    let request = b"GET /range/5BAA6 HTTP/1.1\r\nHost: x\r\n\r\n";
    let mut first = TcpStream::connect(&server.addr).unwrap();
    first.write_all(request).unwrap();
    assert!(
        read_one_response(&mut first)
            .unwrap()
            .0
            .starts_with("HTTP/1.1 200")
    );
    let mut second = TcpStream::connect(&server.addr).unwrap();
    second.write_all(request).unwrap();
    second
        .set_read_timeout(Some(std::time::Duration::from_millis(700)))
        .unwrap();
    let waited = read_one_response(&mut second).unwrap_err();
    assert!(
        matches!(
            waited.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
        "{waited}"
    );
    // The first still has its connection: it is answered again.
    first.write_all(request).unwrap();
    assert!(
        read_one_response(&mut first)
            .unwrap()
            .0
            .starts_with("HTTP/1.1 200")
    );
    drop(first);
    second
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    assert!(
        read_one_response(&mut second)
            .unwrap()
            .0
            .starts_with("HTTP/1.1 200")
    );
}

/// Many clients at once over kept-alive connections, spread over the server's threads:
/// every answer is the range's.
#[test]
fn many_kept_alive_connections_get_every_answer_right() {
    let dir = tempfile::tempdir().unwrap();
    let dump = password_dump(2000);
    let idx = build_from(dir.path(), "a", &dump);
    let server = Server::start(&[&idx]);
    // Prefixes of hashes in the index, so that every answer has lines of its own.
    let prefixes: Vec<String> = dump
        .lines()
        .step_by(31)
        .map(|l| l[..5].to_string())
        .collect();
    let want: Vec<Vec<u8>> = prefixes
        .iter()
        .map(|p| server.get(&format!("/range/{p}"), "").2)
        .collect();
    assert!(want.iter().all(|b| !b.is_empty()) && prefixes.len() > 60);
    let clients: Vec<_> = (0..16)
        .map(|c| {
            let (addr, prefixes, want) = (server.addr.clone(), prefixes.clone(), want.clone());
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(&addr).unwrap();
                for round in 0..50 {
                    let i = (c * 7 + round * 13) % prefixes.len();
                    let req = format!("GET /range/{} HTTP/1.1\r\nHost: x\r\n\r\n", prefixes[i]);
                    s.write_all(req.as_bytes()).unwrap();
                    let (_, body) = read_one_response(&mut s).unwrap();
                    assert_eq!(body, want[i], "client {c} round {round}");
                }
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
}

#[test]
fn the_server_stops_cleanly_on_sigterm_and_listens_on_loopback_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", &password_dump(10));
    let mut server = Server::start(&[&idx]);
    assert!(server.addr.starts_with("127.0.0.1:"));
    assert_eq!(server.get("/range/5BAA6", "").0, 200);
    // SAFETY-free: kill(1) by command, as a user would.
    let pid = server.child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = server.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    // The default listen address is loopback.
    veilkit()
        .args(["breach", "serve", "--help"])
        .assert()
        .success()
        .stdout(predicates::str::contains("[default: 127.0.0.1:8000]"));
}

/// The published Python client `pyhibp` (its base URL pointed at the server) gets the
/// answers `veilkit breach query` gives from the index, with and without padding.
#[test]
fn a_published_hibp_client_gets_the_index_answers() {
    let Some(python) = super::common::python(
        "the HIBP client library pyhibp",
        "import pyhibp",
        "`pip install pyhibp`, or set VEILKIT_CLIENT_PYTHON to a Python that has it",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", &password_dump(3000));
    let server = Server::start(&[&idx]);
    let passwords: Vec<String> = (0..3000)
        .step_by(37)
        .map(|i| format!("pw{i}"))
        .chain((0..40).map(|i| format!("absent{i}")))
        .collect();
    let want = veilkit()
        .args(["breach", "query", "--passwords", "-i"])
        .arg(&idx)
        .write_stdin(
            passwords
                .iter()
                .map(|p| format!("{p}\n"))
                .collect::<String>(),
        )
        .output()
        .unwrap();
    let want = stdout_of(&want);
    let script = format!(
        r#"
import sys, pyhibp, pyhibp.pwnedpasswords as pw
pyhibp.set_user_agent(ua="veilkit-test")
pw.PWNED_PASSWORDS_API_BASE_URI = "http://{}/"
for line in sys.stdin.read().splitlines():
    plain = pw.is_password_breached(password=line)
    padded = pw.is_password_breached(password=line, add_padding=True)
    assert plain == padded, (line, plain, padded)
    print(plain)
"#,
        server.addr
    );
    let input: String = passwords.iter().map(|p| format!("{p}\n")).collect();
    let out = run_with_input(
        std::process::Command::new(&python).args(["-c", &script]),
        input.as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), want);
    assert!(want.lines().filter(|l| *l != "0").count() > 80);
}

#[test]
fn listen_takes_a_host_name_and_the_address_is_printed_even_when_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", &password_dump(100));
    // The first line of standard error, with --quiet or without it.
    for quiet in [&["-q"][..], &[]] {
        let mut child = std_veilkit()
            .args(quiet)
            .args(["breach", "serve", "--listen", "localhost:0", "-i"])
            .arg(&idx)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            line.starts_with("veilkit: listening on http://127.0.0.1:")
                || line.starts_with("veilkit: listening on http://[::1]:"),
            "{quiet:?}: {line}"
        );
        let port: u16 = line.trim().rsplit(':').next().unwrap().parse().unwrap();
        assert_ne!(port, 0);
    }
    let bad = veilkit()
        .args([
            "breach",
            "serve",
            "--listen",
            "no-such-host.invalid:80",
            "-i",
        ])
        .arg(&idx)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("--listen no-such-host.invalid:80"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

#[test]
fn the_published_hibp_downloader_syncs_from_serve() {
    let Some(python) = super::common::python(
        "the downloader hibp-downloader",
        "import hibp_downloader",
        "`pip install hibp-downloader`, or set VEILKIT_CLIENT_PYTHON to a Python that has it",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dump = password_dump(3000);
    let idx = build_from(dir.path(), "a", &dump);
    let server = Server::start(&[&idx]);
    let first = u32::from_str_radix(&dump[..5], 16).unwrap();
    let last = first + 0x3f;
    let data = dir.path().join("hd");
    // Its API address is a module constant: the test points it at the server.
    let script = format!(
        r#"
import sys
import hibp_downloader.commands.hibp_download as m
m.PWNEDPASSWORDS_API_URL = "http://{}"
from hibp_downloader.main import entrypoint
sys.argv = ["hibp-downloader", "--data-path", sys.argv[1], "download",
            "--first-hash", "{first:05x}", "--last-hash", "{last:05x}", "--processes", "1"] + sys.argv[2:]
entrypoint()
"#,
        server.addr
    );
    let run = |extra: &[&str]| {
        let out = std::process::Command::new(&python)
            .arg("-c")
            .arg(&script)
            .arg(&data)
            .args(extra)
            .output()
            .unwrap();
        let all = format!("{}{}", stdout_of(&out), stderr_of(&out));
        assert!(out.status.success(), "{all}");
        assert!(
            !all.contains("ERROR") && !all.contains("WARNING: Prefix"),
            "{all}"
        );
        all
    };
    run(&[]);
    // Every range it stored is the server's body.
    for p in first..=last {
        let hex = format!("{p:05x}");
        let path = data
            .join("sha1")
            .join(&hex[..2])
            .join(&hex[2..4])
            .join(format!("{hex}.gz"));
        let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut text).unwrap();
        let (_, _, body) = server.get(&format!("/range/{}", hex.to_uppercase()), "");
        assert_eq!(text, body, "range {hex}");
    }
    // Again, ignoring its local cache: conditional requests, answered 304 (its files stay).
    run(&["--local-cache-ttl", "0"]);
}

/// The test certificate authority and the server pair it signed (localhost, 127.0.0.1,
/// ::1), committed under tests/fixtures/tls; not secret.
pub fn tls_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tls")
        .join(name)
}

#[test]
fn https_is_served_with_a_certificate_that_curl_trusts_through_cacert() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", &password_dump(3000));
    let first = password_dump(3000)[..5].to_string();
    let plain = Server::start(&[&idx]);
    let (_, _, want) = plain.get(&format!("/range/{first}"), "");
    let cert = tls_fixture("server.pem");
    let key = tls_fixture("server.key");
    let server = Server::start_with(
        &[&idx],
        &[
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    assert!(
        server.url.starts_with("https://127.0.0.1:"),
        "{}",
        server.url
    );
    // Plain HTTP to the TLS port gets no answer and does not stop the server.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    let _ = s.write_all(b"GET /range/00000 HTTP/1.1\r\nHost: x\r\n\r\n");
    let mut junk = Vec::new();
    let _ = s.read_to_end(&mut junk);
    assert!(!junk.starts_with(b"HTTP/1.1 200"), "answered plain HTTP");
    drop(s);
    if !have_program("curl", "--version", "apt install curl") {
        return;
    }
    let curl = |extra: &[&str]| {
        std::process::Command::new("curl")
            .args(["-sS", "--compressed"])
            .args(extra)
            .arg(format!("{}/range/{first}", server.url))
            .output()
            .unwrap()
    };
    let trusted = curl(&["--cacert", tls_fixture("ca.pem").to_str().unwrap()]);
    assert!(trusted.status.success(), "{}", stderr_of(&trusted));
    assert_eq!(trusted.stdout, want);
    // Without the CA the certificate is not trusted (curl's exit 60).
    let untrusted = curl(&[]);
    assert_eq!(
        untrusted.status.code(),
        Some(60),
        "{}",
        stderr_of(&untrusted)
    );
    // A key that is not the certificate's, a missing key file, and files far larger
    // than any PEM (capped at 1 MiB, as other files of secrets are: an endless one is an
    // error, not all of memory) are errors.
    let large = dir.path().join("large.pem");
    std::fs::write(&large, vec![b'A'; (1 << 20) + 1]).unwrap();
    let zero = std::path::PathBuf::from("/dev/zero");
    for (cert, key, says) in [
        (&cert, tls_fixture("ca.key"), "cannot be used together"),
        (&cert, dir.path().join("nope.key"), "nope.key: cannot read"),
        (&cert, large.clone(), "--tls-key"),
        (&large, key.clone(), "longer than 1 MiB"),
        (
            &zero,
            key.clone(),
            "--tls-cert /dev/zero: cannot read: longer than 1 MiB",
        ),
        (
            &cert,
            zero.clone(),
            "--tls-key /dev/zero: cannot read: longer than 1 MiB",
        ),
    ] {
        let r = veilkit()
            .args(["-q", "breach", "serve", "--listen", "127.0.0.1:0", "-i"])
            .arg(&idx)
            .arg("--tls-cert")
            .arg(cert)
            .arg("--tls-key")
            .arg(&key)
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        assert_eq!(r.status.code(), Some(2), "{}", stderr_of(&r));
        assert!(stderr_of(&r).contains(says), "{}", stderr_of(&r));
    }
}

/// An index shortened under a running server (another program truncating it) ends the
/// server with status 2 and one line saying so, not the shell's "Bus error" and not an
/// answer read from the lost part.
#[cfg(unix)]
#[test]
fn an_index_shortened_under_the_server_stops_it_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", &password_dump(3000));
    let mut server = Server::start(&[&idx]);
    let (status, _, body) = server.get("/range/FFFFF", "");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    std::fs::File::options()
        .write(true)
        .open(&idx)
        .unwrap()
        .set_len(8192)
        .unwrap();
    // The request itself gets no answer: the server stops while reading for it.
    if let Ok(mut s) = TcpStream::connect(&server.addr) {
        let _ = s.write_all(b"GET /range/FFFFE HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
        assert!(
            !String::from_utf8_lossy(&rest).contains("200 OK"),
            "answered"
        );
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let code = loop {
        if let Some(st) = server.child.try_wait().unwrap() {
            break st.code();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server kept running"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut err = String::new();
    server
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(code, Some(2), "{err}");
    // The file is named (the path the server mapped, absolute as the kernel shows it).
    let named = format!(
        "veilkit: {}: became unreadable through its memory map",
        idx.canonicalize().unwrap().display()
    );
    assert!(err.contains(&named), "{err}");
}

/// SIGHUP: the index now at the path (replaced, as `breach update` does) is opened,
/// verified and served from then on, with its own ETags; a bad file there is refused
/// and the server goes on serving what it served. (SIGHUP ended the server.)
#[cfg(unix)]
#[test]
fn sighup_serves_the_index_now_at_the_path_or_keeps_the_one_it_had() {
    let dir = tempfile::tempdir().unwrap();
    let old = build_from(dir.path(), "old", &password_dump(3000));
    let new = build_from(dir.path(), "new", &password_dump(5000));
    let live = dir.path().join("live.idx");
    std::fs::copy(&old, &live).unwrap();
    let mut server = Server::start(&[&live]);
    let check = |pw: &str| {
        use sha1::Digest;
        let h = sha1::Sha1::digest(pw.as_bytes());
        let hex: String = h.iter().map(|b| format!("{b:02x}")).collect();
        let (status, _, body) = server.get(&format!("/check/{hex}"), "");
        assert_eq!(status, 200);
        String::from_utf8(body).unwrap()
    };
    // The range of pw4000, which only the new index holds.
    let range = {
        use sha1::Digest;
        let h = sha1::Sha1::digest(b"pw4000");
        format!("/range/{:02X}{:02X}{:X}", h[0], h[1], h[2] >> 4)
    };
    let etag = || {
        let (_, head, _) = server.get(&range, "");
        head.lines()
            .find(|l| l.to_ascii_lowercase().starts_with("etag:"))
            .map(str::to_string)
    };
    assert_eq!(check("pw4000"), "0");
    let before = etag();
    // Replaced by rename, as an update in place does.
    let tmp = dir.path().join("live.tmp");
    std::fs::copy(&new, &tmp).unwrap();
    std::fs::rename(&tmp, &live).unwrap();
    server.hup();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while check("pw4000") != "4001" {
        assert!(std::time::Instant::now() < deadline, "not reloaded");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(check("pw7"), "8");
    assert_ne!(etag(), before, "the range's ETag follows its content");
    // A damaged file at the path: refused; the server keeps the index it had.
    std::fs::write(&tmp, &std::fs::read(&new).unwrap()[..4096]).unwrap();
    std::fs::rename(&tmp, &live).unwrap();
    server.hup();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(check("pw4000"), "4001");
    assert!(server.child.try_wait().is_ok_and(|s| s.is_none()));
}

/// On a terminal, SIGHUP is the terminal hanging up: the server stops cleanly (status 0)
/// rather than reloading and living on, holding its port, after its window closed.
#[cfg(target_os = "linux")]
#[test]
fn sighup_on_a_terminal_stops_the_server() {
    use std::os::fd::FromRawFd;
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", &password_dump(100));
    let (mut master, mut slave) = (0, 0);
    #[allow(unsafe_code)]
    // SAFETY: openpty(3) writes two descriptors it opened into the two integers; the
    // name and settings arguments may be null.
    let made = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(made, 0, "openpty");
    #[allow(unsafe_code)]
    // SAFETY: both descriptors were just opened by openpty and are owned here alone.
    let (master, slave) = unsafe {
        (
            std::fs::File::from_raw_fd(master),
            std::fs::File::from_raw_fd(slave),
        )
    };
    let mut child = std_veilkit()
        .args(["breach", "serve", "--listen", "127.0.0.1:0", "-i"])
        .arg(&idx)
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::null())
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    // The server is up once it has said where it listens.
    let mut line = String::new();
    BufReader::new(&master).read_line(&mut line).unwrap();
    assert!(line.contains("http://127.0.0.1:"), "{line:?}");
    #[allow(unsafe_code)]
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGHUP);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "still running");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}

/// `--in-memory` with a file larger than the machine's memory is refused before anything
/// is read, with what it needs and a hint, instead of the kernel's bare "Cannot allocate
/// memory" (or, below the overcommit limit, the process killed as it filled its pages).
/// The file is sparse: it takes no disk.
#[cfg(target_os = "linux")]
#[test]
fn an_index_larger_than_the_memory_is_refused_in_memory_with_a_hint() {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let field = |name: &str| -> u64 {
        meminfo
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .map_or(0, |v| v.trim().parse::<u64>().unwrap() * 1024)
    };
    // Past the memory and swap: even were the check gone, the allocation would fail
    // rather than fill the machine.
    let size = field("MemTotal:") + field("SwapTotal:") + (1 << 30);
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("large.idx");
    let mut f = std::fs::File::create(&idx).unwrap();
    f.write_all(b"VKBREACH").unwrap();
    f.set_len(size).unwrap();
    let out = veilkit()
        .args([
            "breach",
            "serve",
            "--in-memory",
            "--listen",
            "127.0.0.1:0",
            "-i",
        ])
        .arg(&idx)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains("large.idx: reading it into memory needs ")
            && err.contains(" of memory is available")
            && err.contains("hint: serve it mapped (without --in-memory)"),
        "{err}"
    );

    // The same file put at the path of an index served in memory, then SIGHUP: the
    // reload is refused with that said, and the server answers from what it had.
    let live = build_from(dir.path(), "live", &password_dump(300));
    let mut server = Server::start_with(&[&live], &["--in-memory"]);
    std::fs::rename(&idx, &live).unwrap();
    server.hup();
    let mut said = String::new();
    let mut stderr = BufReader::new(server.child.stderr.take().unwrap());
    while !said.contains("reload failed") {
        assert!(stderr.read_line(&mut said).unwrap() > 0, "{said}");
    }
    assert!(
        said.contains("still serving the indexes loaded before")
            && said.contains("live.idx: reading it into memory needs "),
        "{said}"
    );
    let (status, _, body) = server.get("/check/5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8", "");
    assert_eq!((status, body.is_empty()), (200, false));
    assert!(server.child.try_wait().is_ok_and(|s| s.is_none()));
}
