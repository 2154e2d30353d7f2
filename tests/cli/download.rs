//! `veilkit breach download` through the real binary, from a real `veilkit breach serve`
//! on loopback (HTTPS with a test CA given by --cacert): all 1,048,576 ranges, killed with
//! SIGKILL midway (past its first checkpoints) and run again.

use super::breach::build_from;
use super::common::*;
use super::serve::{Server, tls_fixture};
use super::tiers::password_dump;
use std::time::{Duration, Instant};

/// Hashes of the killed download: over 65,536, so that the index is checkpointed (from
/// about two thirds of the ranges on, with a checkpoint every [`EVERY`] ranges).
const KILLED: usize = 100_000;

/// The killed download's `--checkpoint-every`.
const EVERY: u32 = 4096;

#[test]
#[ignore = "full scale (a million ranges): the CI tier, `cargo test -- --ignored`"]
fn a_download_over_https_killed_midway_resumes_to_the_index_build_gives() {
    let dir = tempfile::tempdir().unwrap();
    let reference = build_from(dir.path(), "ref", &password_dump(KILLED));
    // Over HTTPS, with the test CA given by --cacert as curl users give it.
    let cert = tls_fixture("server.pem");
    let key = tls_fixture("server.key");
    let server = Server::start_with(
        &[&reference],
        &[
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    assert!(server.url.starts_with("https://"));
    let out = dir.path().join("hibp.idx");
    let journal = dir.path().join(".hibp.idx.download");
    let state = dir.path().join(".hibp.idx.download-state");
    let partial = dir.path().join(".hibp.idx.download-index");
    // With a user name and password in the URL (which the server ignores): kept by
    // none of the files a killed download leaves, and a password changed between runs
    // still continues the same download.
    let with_password = |password: &str| {
        server
            .url
            .replacen("https://", &format!("https://mirror:{password}@"), 1)
    };
    let source = std::cell::RefCell::new(with_password("s3cr3t-one"));
    let download = || {
        let mut cmd = std_veilkit();
        cmd.args(["-q", "breach", "download", "--parallel", "16"])
            .args(["--checkpoint-every", &EVERY.to_string(), "--source"])
            .arg(&*source.borrow())
            .arg("--cacert")
            .arg(tls_fixture("ca.pem"))
            .arg("-o")
            .arg(&out);
        cmd
    };

    // Without the CA, the server's certificate is refused, with a clear error.
    let untrusted = std_veilkit()
        .args(["-q", "breach", "download", "--retries", "0", "--source"])
        .arg(&server.url)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(untrusted.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&untrusted.stderr).contains("certificate"),
        "{}",
        String::from_utf8_lossy(&untrusted.stderr)
    );
    assert!(!out.exists());
    for kept in [&journal, &state, &partial] {
        let _ = std::fs::remove_file(kept);
    }

    // Killed once the index is checkpointed and the journal holds ranges since: nothing
    // under the output's name.
    let mut child = download().spawn().unwrap();
    let started = Instant::now();
    // (Records are written from about two thirds of the ranges on, once the build has
    // chosen its parameters; the journal holds at most `EVERY` ranges, a few hundred KB.)
    let len = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
    while len(&partial) < 500_000 || !(20_000..1_000_000).contains(&len(&journal)) {
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "no checkpoint"
        );
        assert!(child.try_wait().unwrap().is_none(), "finished too early");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.exists(), "a killed download left an index");
    for file in [&journal, &state] {
        use std::os::unix::fs::PermissionsExt;
        let bytes = std::fs::read(file).unwrap();
        assert!(
            !bytes.windows(10).any(|w| w == b"s3cr3t-one")
                && bytes.windows(6).any(|w| w == b"https:"),
            "{} keeps the password",
            file.display()
        );
        let mode = std::fs::metadata(file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{}", file.display());
    }
    *source.borrow_mut() = with_password("s3cr3t-two");
    let kept = std::fs::metadata(&journal).unwrap().len();
    let kept_copy = dir.path().join("kept.journal");
    std::fs::copy(&journal, &kept_copy).unwrap();
    let state_copy = dir.path().join("kept.state");
    std::fs::copy(&state, &state_copy).unwrap();
    // The journal holds the ranges since the last checkpoint, not every range: far less
    // than the index being written.
    let index_len = std::fs::metadata(&partial).unwrap().len();
    assert!(
        index_len > 500_000 && kept < index_len / 2,
        "journal {kept}, index {index_len}"
    );

    // The rerun continues, and the result is the build of the same data. The disk has
    // room for it: no warning of that; the one warning says that the source holds only
    // part of the Pwned Passwords data (which has no empty range).
    let rerun = run_ok(&mut download());
    let (empty, first) = empty_ranges(&password_dump(KILLED));
    assert_eq!(
        stderr_of(&rerun),
        format!(
            "veilkit: warning: {empty} of the 1048576 ranges have no hashes (the first: {first}): the source holds only part of the Pwned Passwords data, which has no empty range, and lookups of hashes in those ranges answer \"not found\"\n"
        ),
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&reference).unwrap()
    );
    for kept in [&journal, &state, &partial] {
        assert!(!kept.exists(), "{} outlived the download", kept.display());
    }
    let sidecar = std::fs::read_to_string(dir.path().join("hibp.idx.validators")).unwrap();
    assert_eq!(sidecar.lines().count(), 1_048_576 + 2);
    assert!(sidecar.starts_with("# veilkit range validators 1 sha1\n00000\t"));
    assert!(sidecar.lines().last().unwrap().starts_with("# index "));
    // The journal and state of the killed run and the sidecar, read by the reference
    // written from docs/BREACH-FORMAT.md alone: the state's checkpoints are the start of
    // the finished index (table, block checksums, overflow, the records after the last
    // whole block) and their ranges' validators the sidecar's; the journal holds the
    // hashes of the ranges after the last checkpoint, each with the ETag the server
    // derives from its body; the sidecar names the index's identity and agrees with the
    // journal.
    if let Some(python) = super::references::python_with_xxhash() {
        use super::references::run;
        let sidecar = dir.path().join("hibp.idx.validators");
        let checked = run(
            &python,
            "download_journal.py",
            &[
                "--validators".as_ref(),
                sidecar.as_os_str(),
                "--index".as_ref(),
                out.as_os_str(),
                "--state".as_ref(),
                state_copy.as_os_str(),
                kept_copy.as_os_str(),
            ],
        );
        let checked = String::from_utf8(checked).unwrap();
        let lines: Vec<&str> = checked.lines().collect();
        assert!(lines[0].starts_with("1048576 ranges, index "), "{checked}");
        let last = lines
            .get(1)
            .and_then(|l| l.split(", ranges 0 to ").nth(1))
            .and_then(|r| r.split(',').next())
            .unwrap_or_else(|| panic!("{checked}"));
        let held = run(&python, "download_journal.py", &[kept_copy.as_os_str()]);
        let held = String::from_utf8(held).unwrap();
        let dump = password_dump(KILLED);
        assert!(!held.is_empty() && dump.contains(&held), "{held}");
        // The journal holds the ranges after the state's last checkpoint; killed between
        // that checkpoint's state entry and the emptying of the journal, it still holds
        // that checkpoint's `EVERY` ranges too (which the rerun skips): never any before.
        let last_range = u32::from_str_radix(last, 16).unwrap_or_else(|_| panic!("{last}"));
        let since = format!("{:05X}", (last_range + 1).saturating_sub(EVERY));
        assert!(
            held.lines().all(|l| l[..5] >= *since.as_str()),
            "{last}: {held}"
        );
    }
    std::fs::remove_file(&kept_copy).unwrap();
    std::fs::remove_file(&state_copy).unwrap();
    // No temporary file is left beside it.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(names.is_empty(), "left behind: {names:?}");
}

/// How many of the 1,048,576 ranges `dump` leaves without hashes, and the first of them.
fn empty_ranges(dump: &str) -> (usize, String) {
    let held: std::collections::BTreeSet<u32> = dump
        .lines()
        .map(|l| u32::from_str_radix(&l[..5], 16).unwrap())
        .collect();
    let first = (0..1 << 20).find(|p| !held.contains(p)).unwrap();
    ((1 << 20) - held.len(), format!("{first:05X}"))
}

#[test]
fn a_download_names_an_unreachable_source_and_keeps_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // A port nothing listens on.
    let port = super::common::free_port();
    let out = dir.path().join("x.idx");
    let r = std_veilkit()
        .args(["-q", "breach", "download", "--retries", "1", "--source"])
        .arg(format!("http://127.0.0.1:{port}/r/{{prefix}}.txt"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    // The retry is said at once (a warning: -q keeps warnings), then the failure.
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with("veilkit: warning: range ")
            && lines[0].contains("Connection refused")
            && lines[0].contains("attempt 1 of 2, retrying in "),
        "{err}"
    );
    assert!(
        lines[1].starts_with("veilkit: range ")
            && lines[1].contains("Connection refused")
            && lines[1].contains("(after 2 attempts)"),
        "{err}"
    );
    // Nothing was fetched: nothing is kept for a rerun, and nothing is left behind.
    assert!(!err.contains("run the same command again"), "{err}");
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A host name that does not resolve (`.invalid` never does, RFC 6761; the resolver
/// answers without asking the internet) is given up after a few attempts, not the
/// default ten retries' two minutes, and said at once.
#[test]
fn a_download_from_a_name_that_does_not_resolve_gives_up_soon_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.idx");
    let started = std::time::Instant::now();
    let r = std_veilkit()
        .args(["breach", "download", "--source"])
        .arg("http://user:s3cret@no-such-host.invalid/range/{prefix}")
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let took = started.elapsed();
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.starts_with("veilkit: warning: range "), "{err}");
    assert!(err.contains("dns error"), "{err}");
    assert!(err.contains("(after 3 attempts)"), "{err}");
    assert!(!err.contains("s3cret"), "{err}");
    // The default ten retries wait at least a minute in all; three attempts, seconds (plus
    // what the resolver takes to answer).
    assert!(took < std::time::Duration::from_secs(45), "{took:?}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
#[ignore = "full scale (a million ranges): the CI tier, `cargo test -- --ignored`"]
fn an_update_fetches_only_what_changed_and_gives_the_build_of_the_new_data() {
    let dir = tempfile::tempdir().unwrap();
    let dump = password_dump(20_000);
    let a = build_from(dir.path(), "a", &dump);
    // The new data: every 1000th hash removed, every 700th recounted, one added.
    let mut lines: Vec<String> = dump.lines().map(str::to_string).collect();
    let mut removed = 0;
    let mut recounted = 0;
    let mut kept = Vec::new();
    for (i, l) in lines.drain(..).enumerate() {
        if i % 1000 == 999 {
            removed += 1;
            continue;
        }
        if i % 700 == 3 {
            let (h, c) = l.split_once(':').unwrap();
            kept.push(format!("{h}:{}", c.parse::<u64>().unwrap() + 1));
            recounted += 1;
            continue;
        }
        kept.push(l);
    }
    kept.push("FFFFF00000000000000000000000000000000000:3".into());
    kept.sort();
    let b = build_from(dir.path(), "b", &(kept.join("\n") + "\n"));
    let out = dir.path().join("hibp.idx");
    download_to(&Server::start(&[&a]), &out);
    let server = Server::start(&[&b]);
    let update = || {
        let r = run_ok(
            std_veilkit()
                .args(["breach", "update", "--json", "--source"])
                .arg(format!("http://{}", server.addr))
                .arg(&out),
        );
        serde_json::from_slice::<serde_json::Value>(&r.stdout).unwrap()
    };
    let v = update();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(v["ranges_checked"], 1_048_576);
    assert_eq!(v["hashes_added"], 1);
    assert_eq!(v["hashes_removed"], removed);
    assert_eq!(v["hashes_recounted"], recounted);
    let changed = v["ranges_changed"].as_u64().unwrap();
    assert!(
        changed >= (removed + recounted) / 2 && changed <= removed + recounted + 1,
        "{v}"
    );
    assert_eq!(v["ranges_unchanged"].as_u64().unwrap() + changed, 1_048_576);
    assert_eq!(v["ranges_empty"], empty_ranges(&kept.join("\n")).0);
    // Nothing changed since: every range answers 304, nothing is fetched.
    let v = update();
    assert_eq!(v["ranges_unchanged"], 1_048_576, "{v}");
    assert_eq!(v["ranges_changed"], 0);
    assert_eq!(v["body_bytes"], 0);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&b).unwrap());
}

/// A forward proxy on loopback, as HTTP_PROXY names one: it answers requests in absolute
/// form (`GET http://host/path HTTP/1.1`) for the host `mirror.invalid` itself, from
/// `bodies`, and counts them; any request not in absolute form, or for another host, is
/// answered 502, so a client that bypassed the proxy could not succeed.
struct Proxy {
    addr: std::net::SocketAddr,
    proxied: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Proxy {
    fn start(bodies: std::collections::HashMap<String, String>) -> Proxy {
        use std::io::{BufRead, BufReader, Write};
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let proxied = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let bodies = std::sync::Arc::new(bodies);
        let count = proxied.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { return };
                let (bodies, count) = (bodies.clone(), count.clone());
                std::thread::spawn(move || -> std::io::Result<()> {
                    let mut reader = BufReader::new(conn.try_clone()?);
                    let mut conn = std::io::BufWriter::new(conn);
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line)? == 0 {
                            return Ok(());
                        }
                        loop {
                            let mut h = String::new();
                            if reader.read_line(&mut h)? == 0 || h == "\r\n" {
                                break;
                            }
                        }
                        let target = line.split(' ').nth(1).unwrap_or("");
                        let Some(path) = target.strip_prefix("http://mirror.invalid/r/") else {
                            conn.write_all(
                                b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n",
                            )?;
                            conn.flush()?;
                            continue;
                        };
                        count.fetch_add(1, Ordering::Relaxed);
                        let body = bodies.get(path).map_or("", String::as_str);
                        write!(
                            conn,
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                            body.len()
                        )?;
                        conn.flush()?;
                    }
                });
            }
        });
        Proxy { addr, proxied }
    }
}

#[test]
fn a_download_goes_through_the_proxy_that_http_proxy_names() {
    let dir = tempfile::tempdir().unwrap();
    let dump = password_dump(3_000);
    let reference = build_from(dir.path(), "ref", &dump);
    // The range bodies as the API sends them: suffix:count, CRLF.
    let mut bodies: std::collections::HashMap<String, String> = Default::default();
    for l in dump.lines() {
        let (prefix, rest) = l.split_at(5);
        bodies
            .entry(prefix.to_string())
            .or_default()
            .push_str(&format!("{rest}\r\n"));
    }
    let proxy = Proxy::start(bodies);
    let out = dir.path().join("hibp.idx");
    // The host does not resolve: only the proxy can answer.
    run_ok(
        std_veilkit()
            .args(["-q", "breach", "download", "--parallel", "16", "--source"])
            .arg("http://mirror.invalid/r/{prefix}")
            .arg("-o")
            .arg(&out)
            .env("HTTP_PROXY", format!("http://{}", proxy.addr))
            .env_remove("http_proxy")
            .env_remove("NO_PROXY")
            .env_remove("no_proxy"),
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&reference).unwrap()
    );
    assert_eq!(
        proxy.proxied.load(std::sync::atomic::Ordering::Relaxed),
        1_048_576
    );
    // NO_PROXY naming the host bypasses the proxy: the name does not resolve, and the
    // error says which range could not be fetched.
    let _ = std::fs::remove_file(dir.path().join(".hibp2.idx.download"));
    let bypass = std_veilkit()
        .args(["-q", "breach", "download", "--retries", "0", "--source"])
        .arg("http://mirror.invalid/r/{prefix}")
        .arg("-o")
        .arg(dir.path().join("hibp2.idx"))
        .env("HTTP_PROXY", format!("http://{}", proxy.addr))
        .env("NO_PROXY", "mirror.invalid")
        .output()
        .unwrap();
    assert_eq!(bypass.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bypass.stderr).starts_with("veilkit: range "),
        "{}",
        String::from_utf8_lossy(&bypass.stderr)
    );
}

/// A second download into the same index while one runs is refused, with its own
/// message, and touches nothing: the first ends with the index a build gives (the two
/// once appended to the same journal).
#[test]
#[ignore = "full scale (a million ranges): the CI tier, `cargo test -- --ignored`"]
fn a_second_download_into_the_same_index_is_refused_while_one_runs() {
    let dir = tempfile::tempdir().unwrap();
    let reference = build_from(dir.path(), "ref", &password_dump(20_000));
    let server = Server::start(&[&reference]);
    let out = dir.path().join("hibp.idx");
    let journal = dir.path().join(".hibp.idx.download");
    let download = || {
        let mut cmd = std_veilkit();
        cmd.args(["-q", "breach", "download", "--parallel", "4", "--source"])
            .arg(&server.url)
            .arg("-o")
            .arg(&out)
            .stderr(std::process::Stdio::piped());
        cmd
    };
    let first = download().spawn().unwrap();
    let started = Instant::now();
    while std::fs::metadata(&journal).map_or(0, |m| m.len()) < 100_000 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the journal did not grow"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let second = download().output().unwrap();
    assert_eq!(second.status.code(), Some(2));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains("another download into the same index is running"),
        "{err}"
    );
    let first = first.wait_with_output().unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&reference).unwrap()
    );
    assert!(!journal.exists());
}

/// A download into a file system too small for it says so in its first seconds (once,
/// from its first 4,096 ranges, with `--quiet` too: a warning), then stops with the
/// system's error when the disk fills, its hint saying that the journal keeps what it
/// did. A download with room enough (every other test here) warns of nothing.
#[cfg(target_os = "linux")]
#[test]
fn a_download_into_a_disk_too_small_warns_in_its_first_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let reference = build_from(dir.path(), "ref", &password_dump(2_000));
    let small = dir.path().join("small");
    let Some(_mounted) = small_tmpfs(&small, "4m") else {
        return;
    };
    let server = Server::start_with(&[&reference], &[]);
    let out = std_veilkit()
        .args(["-q", "breach", "download", "--parallel", "16", "--source"])
        .arg(&server.url)
        .arg("-o")
        .arg(small.join("hibp.idx"))
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let warned = err
        .find("veilkit: warning: ")
        .unwrap_or_else(|| panic!("no warning: {err}"));
    assert_eq!(err.matches("warning").count(), 1, "{err}");
    assert!(
        err.contains("needs about") && err.contains("is free"),
        "{err}"
    );
    let failed = err
        .find("No space left on device")
        .unwrap_or_else(|| panic!("no error: {err}"));
    assert!(warned < failed, "{err}");
    // The error names what it was writing: the index, its validators or its journal.
    let line = err[..failed].rsplit('\n').next().unwrap_or_default();
    assert!(
        line.starts_with(&format!("veilkit: {}/", small.display())),
        "{err}"
    );
    // Not the temporary it was written to.
    assert!(!err.contains(" at path "), "{err}");
    assert!(!small.join("hibp.idx").exists());
}

/// A mirror (or a wrong `{prefix}` template) answering every range with a valid body of
/// 32 MiB (some 860,000 hashes, where real ranges hold about 2,000): the download's
/// memory stays within its byte budget (128 MiB of range data ahead of the build, plus
/// the range the build waits for: about 400 MiB in all here), not four ranges per
/// request in flight (1.4 GB after 8 s here before, and rising), and its journal within
/// 1 GiB (a checkpoint empties it).
#[cfg(target_os = "linux")]
#[test]
fn a_download_s_memory_follows_a_byte_budget_whatever_the_server_sends() {
    use std::io::{BufRead, BufReader, Write};
    let mut body = Vec::with_capacity(33 << 20);
    let mut i = 0u64;
    while body.len() < 32 << 20 {
        write!(body, "{i:035X}:1\r\n").unwrap();
        i += 1;
    }
    let body = std::sync::Arc::new(body);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { return };
            let body = body.clone();
            std::thread::spawn(move || -> std::io::Result<()> {
                let mut reader = BufReader::new(conn.try_clone()?);
                let mut conn = conn;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line)? == 0 {
                        return Ok(());
                    }
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h)? == 0 || h == "\r\n" {
                            break;
                        }
                    }
                    write!(
                        conn,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n",
                        body.len()
                    )?;
                    conn.write_all(&body)?;
                }
            });
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join(".hibp.idx.download");
    let mut child = std_veilkit()
        .args(["-q", "breach", "download", "--parallel", "32", "--source"])
        .arg(format!("http://{addr}/r/{{prefix}}"))
        .arg("-o")
        .arg(dir.path().join("hibp.idx"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let kib = |field: &str| -> u64 {
        std::fs::read_to_string(&status)
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with(field))
                    .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            })
            .unwrap_or(0)
    };
    let started = Instant::now();
    let (mut peak, mut journal_peak) = (0u64, 0u64);
    while started.elapsed() < Duration::from_secs(8) {
        assert!(child.try_wait().unwrap().is_none(), "the download ended");
        peak = peak.max(kib("VmHWM:"));
        journal_peak = journal_peak.max(std::fs::metadata(&journal).map_or(0, |m| m.len()));
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // Fetched and built all along: the journal holds ranges.
    assert!(journal_peak > 64 << 20, "journal {journal_peak}");
    assert!(
        journal_peak < (1 << 30) + (64 << 20),
        "journal {journal_peak}"
    );
    assert!(
        peak < 512 << 10,
        "the download's memory peaked at {} MiB",
        peak >> 10
    );
}

/// Without a terminal (cron, CI), a long download prints a progress line every minute
/// (`VEILKIT_PROGRESS_EVERY` seconds here) on stderr: ranges done of all, data received,
/// rate and time left.
#[test]
#[ignore = "full scale (a million ranges): the CI tier, `cargo test -- --ignored`"]
fn a_download_without_a_terminal_prints_progress_lines() {
    let dir = tempfile::tempdir().unwrap();
    let reference = build_from(dir.path(), "ref", &password_dump(2_000));
    let server = Server::start_with(&[&reference], &[]);
    let r = std_veilkit()
        .args(["breach", "download", "--source"])
        .arg(&server.url)
        .arg("-o")
        .arg(dir.path().join("got.idx"))
        .env("VEILKIT_PROGRESS_EVERY", "1")
        .output()
        .unwrap();
    let err = stderr_of(&r);
    assert_eq!(r.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("veilkit: ranges: "))
        .collect();
    assert!(!lines.is_empty(), "no progress line: {err}");
    for l in &lines {
        assert!(
            l.contains(" of 1048576 (") && l.contains("MB received") && l.contains("ranges/s"),
            "{l}"
        );
    }
}

/// An update of an index of format 2 (what an older veilkit downloaded) checks it whole
/// before any of its ranges is kept: a damaged record stops the update, with the index
/// left as it was, instead of being carried into the new index under fresh checksums.
#[test]
fn an_update_checks_an_older_index_whole_before_keeping_its_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/breach-v1/exact-v2.idx");
    let out = dir.path().join("hibp.idx");
    let server = Server::start(&[&fixture]);
    download_to(&server, &out);
    // The index replaced by the fixture itself (the same ranges, so every one would
    // answer 304 and be kept), one record damaged.
    let damaged = super::breach_trust::damaged_copy(dir.path(), "exact-v2.idx");
    std::fs::copy(&damaged, &out).unwrap();
    let bytes = std::fs::read(&damaged).unwrap();
    let o = std_veilkit()
        .args(["breach", "update", "--source"])
        .arg(format!("http://{}", server.addr))
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("checksum mismatch"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
}

/// A quiet `breach download` of everything `server` serves into `out`.
fn download_to(server: &Server, out: &std::path::Path) {
    run_ok(
        std_veilkit()
            .args(["-q", "breach", "download", "--source"])
            .arg(format!("http://{}", server.addr))
            .arg("-o")
            .arg(out),
    );
}
