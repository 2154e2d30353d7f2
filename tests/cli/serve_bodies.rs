//! `breach compress-ranges` and `breach serve --zstd-bodies` through the real binary and
//! curl: Zstandard answers sent as compressed ahead, only beside the index they were made
//! from, never a damaged frame.

use super::breach::build_from;
use super::common::*;
use super::serve::Server;
use super::tiers::password_dump;
use std::path::{Path, PathBuf};

/// The bodies file of `idx`, written as `name`.
fn compress(dir: &Path, idx: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    veilkit()
        .args(["-q", "breach", "compress-ranges", "-i"])
        .arg(idx)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    out
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
}

/// The prefixes of the dump's hashes, and some without any.
fn prefixes(dump: &str) -> Vec<String> {
    let mut p: Vec<String> = dump.lines().map(|l| l[..5].to_string()).collect();
    p.dedup();
    p.extend(["00000", "FFFFF", "12345"].map(String::from));
    p
}

#[test]
fn zstd_answers_are_the_bodies_compressed_ahead_and_decode_to_the_plain_ones() {
    let dir = tempfile::tempdir().unwrap();
    let dump = password_dump(3000);
    let idx = build_from(dir.path(), "a", &dump);
    let bodies = compress(dir.path(), &idx, "a.bodies");
    let plain = Server::start(&[&idx]);
    let server = Server::start_with(&[&idx], &["--zstd-bodies", bodies.to_str().unwrap()]);
    let stored = std::fs::read(&bodies).unwrap();
    for p in prefixes(&dump).iter().step_by(7) {
        let (status, plain_head, body) = plain.get(&format!("/range/{p}"), "");
        assert_eq!(status, 200);
        let (status, head, frame) = server.get(&format!("/range/{p}"), "Accept-Encoding: zstd\r\n");
        assert_eq!(status, 200);
        assert_eq!(header(&head, "content-encoding"), Some("zstd"), "{head}");
        assert_eq!(header(&head, "etag"), header(&plain_head, "etag"), "{p}");
        assert!(header(&head, "last-modified").is_some(), "{head}");
        assert_eq!(zstd::decode_all(&frame[..]).unwrap(), body, "{p}");
        // Sent as stored: the frame is in the file, not made for this request.
        assert!(
            stored.windows(frame.len()).any(|w| w == &frame[..]),
            "{p}: not the stored frame"
        );
        // gzip and identity as before.
        let (_, head, zipped) = server.get(&format!("/range/{p}"), "Accept-Encoding: gzip\r\n");
        assert_eq!(header(&head, "content-encoding"), Some("gzip"));
        let mut unzipped = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&zipped[..]),
            &mut unzipped,
        )
        .unwrap();
        assert_eq!(unzipped, body);
        assert_eq!(server.get(&format!("/range/{p}"), "").2, body);
    }
    // A conditional request: 304, no body, no coding.
    let p = &dump[..5];
    let (_, head, _) = server.get(&format!("/range/{p}"), "Accept-Encoding: zstd\r\n");
    let etag = header(&head, "etag").unwrap().to_string();
    let (status, head, body) = server.get(
        &format!("/range/{p}"),
        &format!("Accept-Encoding: zstd\r\nIf-None-Match: {etag}\r\n"),
    );
    assert_eq!((status, body.len()), (304, 0));
    assert_eq!(header(&head, "content-encoding"), None, "{head}");
    // Padded: compressed for the request (random lines), at least 800 lines decoded.
    let (status, head, frame) = server.get(
        &format!("/range/{p}"),
        "Accept-Encoding: zstd\r\nAdd-Padding: true\r\n",
    );
    assert_eq!(status, 200);
    assert_eq!(header(&head, "content-encoding"), Some("zstd"));
    let padded = zstd::decode_all(&frame[..]).unwrap();
    assert!(padded.split(|&b| b == b'\n').count() >= 800);
    // NTLM asked of a server without an NTLM index: 404 as before.
    let (status, _, _) = server.get(
        &format!("/range/{p}?mode=ntlm"),
        "Accept-Encoding: zstd\r\n",
    );
    assert_eq!(status, 404);
    // curl, a real client, decodes the answers to the plain bodies.
    if have_program("curl", "--version", "apt install curl") {
        let out = std::process::Command::new("curl")
            .args([
                "-sS",
                "--compressed",
                "-H",
                "Accept-Encoding: zstd",
                "-D",
                "-",
            ])
            .arg(format!("{}/range/{p}", server.url))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            text.to_ascii_lowercase().contains("content-encoding: zstd"),
            "{text}"
        );
        let body = plain.get(&format!("/range/{p}"), "").2;
        assert!(out.stdout.ends_with(&body));
    }
}

/// Bodies of another index (a rebuilt one with other hashes, or of another kind) are
/// refused before the server listens, with the way to make the right ones.
#[test]
fn bodies_of_another_index_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = build_from(dir.path(), "a", &password_dump(3000));
    let b = build_from(dir.path(), "b", &password_dump(3001));
    let bodies_b = compress(dir.path(), &b, "b.bodies");
    let out = std_veilkit()
        .args(["breach", "serve", "--listen", "127.0.0.1:0", "-i"])
        .arg(&a)
        .arg("--zstd-bodies")
        .arg(&bodies_b)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            concat!(
                "veilkit: --zstd-bodies {}: made from another index than the one served (its header differs)\n",
                "  hint: make it from the index served: `veilkit breach compress-ranges -i INDEX -o FILE --force`\n"
            ),
            bodies_b.display()
        )
    );
    // The same file twice: one per index.
    let bodies_a = compress(dir.path(), &a, "a.bodies");
    let out = std_veilkit()
        .args(["breach", "serve", "--listen", "127.0.0.1:0", "-i"])
        .arg(&a)
        .args(["--zstd-bodies", bodies_a.to_str().unwrap()])
        .args(["--zstd-bodies", bodies_a.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("two files of compressed SHA-1 range bodies"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Not a bodies file: named.
    let out = std_veilkit()
        .args(["breach", "serve", "--listen", "127.0.0.1:0", "-i"])
        .arg(&a)
        .arg("--zstd-bodies")
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a file of compressed range bodies"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A damaged frame: serve's verification refuses the file at the start; with
/// --no-verify the damaged range is a 500 (never a wrong body) and the others answer.
#[test]
fn a_damaged_frame_is_refused_at_start_and_never_sent() {
    let dir = tempfile::tempdir().unwrap();
    let dump = password_dump(3000);
    let idx = build_from(dir.path(), "a", &dump);
    let bodies = compress(dir.path(), &idx, "a.bodies");
    let first = &dump[..5];
    // The frame of the first hash's prefix: find it by its bytes.
    let frame = Server::start_with(&[&idx], &["--zstd-bodies", bodies.to_str().unwrap()])
        .get(&format!("/range/{first}"), "Accept-Encoding: zstd\r\n")
        .2;
    let mut bytes = std::fs::read(&bodies).unwrap();
    let at = bytes
        .windows(frame.len())
        .position(|w| w == &frame[..])
        .unwrap();
    bytes[at + frame.len() / 2] ^= 0x10;
    std::fs::write(&bodies, &bytes).unwrap();
    let out = std_veilkit()
        .args(["breach", "serve", "--listen", "127.0.0.1:0", "-i"])
        .arg(&idx)
        .arg("--zstd-bodies")
        .arg(&bodies)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "damaged: the frame of prefix {first} does not match its checksum"
        )),
        "{err}"
    );
    let server = Server::start_with(
        &[&idx],
        &[
            "--quiet",
            "--no-verify",
            "--zstd-bodies",
            bodies.to_str().unwrap(),
        ],
    );
    let (status, _, body) = server.get(&format!("/range/{first}"), "Accept-Encoding: zstd\r\n");
    assert_eq!(status, 500, "{}", String::from_utf8_lossy(&body));
    let other = &dump[dump.len() - 46..dump.len() - 41];
    assert_ne!(other, first);
    let (status, _, frame) = server.get(&format!("/range/{other}"), "Accept-Encoding: zstd\r\n");
    assert_eq!(status, 200);
    assert_eq!(
        zstd::decode_all(&frame[..]).unwrap(),
        server.get(&format!("/range/{other}"), "").2
    );
    // Plain and gzip answers come from the index: unaffected.
    assert_eq!(server.get(&format!("/range/{first}"), "").0, 200);
}

/// compress-ranges writes atomically: an existing file needs --force, a kill -9 leaves
/// nothing at the name, a compact index (no full hashes) is refused.
#[test]
fn compress_ranges_is_atomic_and_needs_an_exact_index() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build_from(dir.path(), "a", &password_dump(2000));
    let out = dir.path().join("a.bodies");
    std::fs::write(&out, "keep").unwrap();
    let cmd = || {
        let mut c = std_veilkit();
        c.args(["-q", "breach", "compress-ranges", "-i"])
            .arg(&idx)
            .arg("-o")
            .arg(&out);
        c
    };
    let o = cmd().output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    // Killed midway: the old file stays as it was, and no temporary file is left
    // once the next run completes.
    let mut child = cmd().arg("--force").arg("-j1").spawn().unwrap();
    // Killed once frames are being written to its temporary file (past the header and
    // the table's room).
    let known = ["a.txt", "a.idx", "a.bodies"];
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        assert!(std::time::Instant::now() < deadline, "no temporary file");
        assert!(child.try_wait().unwrap().is_none(), "finished too early");
        let writing = std::fs::read_dir(dir.path()).unwrap().flatten().any(|e| {
            !known.contains(&e.file_name().to_str().unwrap())
                && e.metadata().is_ok_and(|m| m.len() > 26_000_000)
        });
        if writing {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    assert!(cmd().arg("--force").status().unwrap().success());
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(".a.bodies") || n.contains(".tmp"))
        .collect();
    assert!(names.is_empty(), "left behind: {names:?}");
    assert!(std::fs::read(&out).unwrap().starts_with(b"VKBODIES"));
    // A compact index.
    let compact = dir.path().join("a.compact");
    veilkit()
        .args(["-q", "breach", "build", "--tier", "compact"])
        .arg(&idx)
        .arg("-o")
        .arg(&compact)
        .assert()
        .success();
    let o = std_veilkit()
        .args(["breach", "compress-ranges", "-i"])
        .arg(&compact)
        .args(["-o", dir.path().join("c.bodies").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs an exact index"));
    assert!(!dir.path().join("c.bodies").exists());
}

/// A reload (SIGHUP) after an update whose bodies were not made again keeps serving the
/// old index and its bodies, with a warning; once the bodies are made, the next reload
/// serves both new.
#[cfg(unix)]
#[test]
fn a_reload_takes_the_index_and_its_bodies_together() {
    let dir = tempfile::tempdir().unwrap();
    let old = build_from(dir.path(), "old", &password_dump(3000));
    let new = build_from(dir.path(), "new", &password_dump(5000));
    let live = dir.path().join("live.idx");
    std::fs::copy(&old, &live).unwrap();
    let bodies = compress(dir.path(), &live, "live.bodies");
    let mut server = Server::start_with(&[&live], &["--zstd-bodies", bodies.to_str().unwrap()]);
    let range = {
        use sha1::Digest;
        let h = sha1::Sha1::digest(b"pw4000");
        format!("/range/{:02X}{:02X}{:X}", h[0], h[1], h[2] >> 4)
    };
    let zstd_body =
        |s: &Server| zstd::decode_all(&s.get(&range, "Accept-Encoding: zstd\r\n").2[..]).unwrap();
    let before = zstd_body(&server);
    assert_eq!(before, server.get(&range, "").2);
    let tmp = dir.path().join("live.tmp");
    std::fs::copy(&new, &tmp).unwrap();
    std::fs::rename(&tmp, &live).unwrap();
    server.hup();
    std::thread::sleep(std::time::Duration::from_millis(700));
    // Refused: both answers still the old index's.
    assert_eq!(zstd_body(&server), before);
    assert_eq!(server.get(&range, "").2, before);
    veilkit()
        .args(["-q", "breach", "compress-ranges", "--force", "-i"])
        .arg(&live)
        .arg("-o")
        .arg(&bodies)
        .assert()
        .success();
    server.hup();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while server.get(&range, "").2 == before {
        assert!(std::time::Instant::now() < deadline, "not reloaded");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let after = server.get(&range, "").2;
    assert!(String::from_utf8_lossy(&after).contains(":4001"));
    assert_eq!(zstd_body(&server), after);
    let stderr = server.stop_and_stderr();
    assert!(
        stderr.contains("reload failed, still serving the indexes loaded before")
            && stderr.contains("made from another index"),
        "{stderr}"
    );
}

/// `breach verify` checks a bodies file too: sound, or the damaged frame named.
#[test]
fn verify_checks_a_bodies_file() {
    let dir = tempfile::tempdir().unwrap();
    let dump = password_dump(1000);
    let idx = build_from(dir.path(), "a", &dump);
    let bodies = compress(dir.path(), &idx, "a.bodies");
    let out = std_veilkit()
        .args(["breach", "verify"])
        .arg(&bodies)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "sound (compressed range bodies of a SHA-1 index: 1048576 frames, 1000 hashes, level 3"
        ),
        "{err}"
    );
    let out = std_veilkit()
        .args(["breach", "verify", "--json"])
        .arg(&bodies)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sound"], true);
    assert_eq!(v["tier"], "bodies");
    assert_eq!(v["kind"], "sha1");
    assert_eq!(v["hashes"], 1000);
    // The last byte of the last frame (prefix FFFFF's checksum).
    let mut bytes = std::fs::read(&bodies).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    std::fs::write(&bodies, &bytes).unwrap();
    let out = std_veilkit()
        .args(["breach", "verify", "--json"])
        .arg(&bodies)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sound"], false);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the frame of prefix FFFFF does not match its checksum"),
        "{err}"
    );
}

/// An index of format 2 (records not checked as they are read) is verified whole before
/// any frame is made from it: a damaged record stops compress-ranges, nothing is written.
#[test]
fn an_older_index_is_verified_before_its_bodies_are_made() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/breach-v1/exact-v2.idx");
    let good = compress(dir.path(), &fixture, "v2.bodies");
    let server = Server::start_with(&[&fixture], &["--zstd-bodies", good.to_str().unwrap()]);
    let (status, head, _) = server.get("/range/5BAA6", "Accept-Encoding: zstd\r\n");
    assert_eq!(status, 200);
    assert_eq!(header(&head, "content-encoding"), Some("zstd"));
    let damaged = super::breach_trust::damaged_copy(dir.path(), "exact-v2.idx");
    let out_path = dir.path().join("d.bodies");
    let out = std_veilkit()
        .args(["breach", "compress-ranges", "-i"])
        .arg(&damaged)
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("damaged-exact-v2.idx") && err.contains("block"),
        "{err}"
    );
    assert!(!out_path.exists());
}
