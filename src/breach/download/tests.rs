//! Downloads against a local server that misbehaves as networks and CDNs do: every
//! result is byte-identical to `build` of the same data, or a clear error that keeps the
//! completed ranges for the rerun.

use super::fetch::{Fetcher, Options, Source};
use super::{DownloadError, Plan, download};
use crate::breach::HashKind;
use crate::breach::build::{self, Source as BuildSource};
use crate::progress::NoProgress;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Ranges the tests download.
const RANGES: u32 = 96;

/// What the server does with one request: given the prefix and how many times it was
/// asked before, the fault to inject.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    None,
    Status500,
    Status503,
    TooMany,
    DropMidBody,
    Truncated,
    Malformed,
    Stall,
    NotFound,
    /// A whole answer, late.
    Slow,
    /// The compressed body cut short, sent as if whole.
    CodingTruncated,
    /// One byte of the compressed body changed.
    CodingDamaged,
    /// A content coding veilkit does not read.
    UnknownCoding,
    /// 200 with an empty body (as an edge cache that lost the object might answer).
    Empty,
    /// 302 to the same path on the same origin (a query string added).
    RedirectHere,
    /// 302 to the same path on another origin (`localhost` for `127.0.0.1`).
    RedirectAway,
}

type Plan_ = Arc<dyn Fn(u32, u32) -> Fault + Send + Sync>;

/// A test server of range bodies on loopback (test code: hand-written HTTP/1.1 is fine
/// here, so that every fault can be placed exactly).
struct Server {
    port: u16,
    asked: Arc<Mutex<HashMap<u32, u32>>>,
}

impl Server {
    fn start(bodies: Arc<Vec<Vec<u8>>>, faults: Plan_) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let asked = Arc::new(Mutex::new(HashMap::new()));
        let a = asked.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { return };
                let (b, f, a) = (bodies.clone(), faults.clone(), a.clone());
                std::thread::spawn(move || {
                    let _ = serve_conn(conn, &b, &*f, &a);
                });
            }
        });
        Server { port, asked }
    }

    fn source(&self) -> Source {
        Source::new(
            Some(&format!("http://127.0.0.1:{}/r/{{prefix}}", self.port)),
            HashKind::Sha1,
        )
        .unwrap()
    }

    fn times_asked(&self, prefix: u32) -> u32 {
        self.asked
            .lock()
            .unwrap()
            .get(&prefix)
            .copied()
            .unwrap_or(0)
    }
}

fn serve_conn(
    conn: TcpStream,
    bodies: &[Vec<u8>],
    faults: &(dyn Fn(u32, u32) -> Fault + Send + Sync),
    asked: &Mutex<HashMap<u32, u32>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut conn = conn;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut if_none_match = None;
        let mut accept = String::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h)? == 0 || h == "\r\n" {
                break;
            }
            if let Some(v) = h.strip_prefix("if-none-match: ") {
                if_none_match = Some(v.trim().to_string());
            }
            if let Some(v) = h.strip_prefix("accept-encoding: ") {
                accept = v.trim().to_string();
            }
        }
        let path = line.split(' ').nth(1).unwrap_or("");
        let hex = path.trim_start_matches("/r/");
        let hex = hex.split('?').next().unwrap_or(hex);
        let prefix = u32::from_str_radix(hex, 16).unwrap_or(u32::MAX);
        let n = {
            let mut a = asked.lock().unwrap();
            let n = a.entry(prefix).or_insert(0);
            *n += 1;
            *n - 1
        };
        let text = bodies.get(prefix as usize).cloned().unwrap_or_default();
        let etag = format!("\"{:x}\"", xxhash_rust::xxh3::xxh3_64(&text));
        // Ranges take turns at the codings the client asks for: gzip, Zstandard, none.
        let mut coding = match prefix % 3 {
            0 if accept.contains("gzip") => "gzip",
            1 if accept.contains("zstd") => "zstd",
            _ => "identity",
        };
        let fault = faults(prefix, n);
        // A damaged body is found by gzip's CRC-32; Zstandard frames without a checksum
        // (the default) and plain bodies decode to other text, as over any unchecked
        // transport (TLS is what protects the real API's bodies).
        if fault == Fault::CodingDamaged
            || (fault == Fault::CodingTruncated && coding == "identity")
        {
            coding = "gzip";
        }
        let body = match coding {
            "gzip" => {
                let mut e =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(&text)?;
                e.finish()?
            }
            "zstd" => zstd::bulk::compress(&text, 3)?,
            _ => text.clone(),
        };
        let coding = if fault == Fault::UnknownCoding {
            "deflate"
        } else {
            coding
        };
        let ok = |conn: &mut TcpStream, body: &[u8], len: usize| {
            write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nETag: {etag}\r\nContent-Encoding: {coding}\r\n\r\n"
            )?;
            conn.write_all(body)
        };
        if if_none_match.as_deref() == Some(etag.as_str()) {
            write!(conn, "HTTP/1.1 304 Not Modified\r\nETag: {etag}\r\n\r\n")?;
            continue;
        }
        match fault {
            Fault::None | Fault::UnknownCoding => ok(&mut conn, &body, body.len())?,
            Fault::CodingTruncated => {
                let cut = &body[..body.len() * 2 / 3];
                ok(&mut conn, cut, cut.len())?;
            }
            Fault::CodingDamaged => {
                let mut bad = body.clone();
                let at = bad.len() / 2;
                bad[at] ^= 0x55;
                ok(&mut conn, &bad, bad.len())?;
            }
            Fault::Status500 => {
                conn.write_all(b"HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n")?
            }
            Fault::Status503 => conn.write_all(
                b"HTTP/1.1 503 Busy\r\nRetry-After: 0\r\nContent-Length: 4\r\n\r\nbusy",
            )?,
            Fault::TooMany => conn.write_all(
                b"HTTP/1.1 429 Slow down\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n",
            )?,
            Fault::NotFound => {
                conn.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")?
            }
            Fault::DropMidBody => {
                let half = &body[..body.len() / 2];
                ok(&mut conn, half, body.len() + 10)?;
                return Ok(());
            }
            Fault::Truncated => {
                // A complete response whose body was cut by whatever produced it.
                let cut = &body[..body.len().saturating_sub(7)];
                ok(&mut conn, cut, cut.len())?;
            }
            Fault::Malformed => {
                let bad = b"<html>Service Unavailable</html>";
                ok(&mut conn, bad, bad.len())?;
            }
            Fault::Stall => {
                std::thread::sleep(Duration::from_secs(3));
                return Ok(());
            }
            Fault::Slow => {
                std::thread::sleep(Duration::from_millis(400));
                ok(&mut conn, &body, body.len())?
            }
            Fault::Empty => write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nETag: {etag}\r\n\r\n"
            )?,
            Fault::RedirectHere => write!(
                conn,
                "HTTP/1.1 302 Found\r\nLocation: /r/{hex}?moved=1\r\nContent-Length: 0\r\n\r\n"
            )?,
            Fault::RedirectAway => {
                let port = conn.local_addr()?.port();
                write!(
                    conn,
                    "HTTP/1.1 302 Found\r\nLocation: http://localhost:{port}/r/{hex}\r\nContent-Length: 0\r\n\r\n"
                )?
            }
        }
    }
}

/// Random SHA-1 hashes in the first [`RANGES`] prefixes: the dump text and the range
/// bodies (CRLF, upper case, as the API sends them).
fn data(seed: u64) -> (Vec<u8>, Arc<Vec<Vec<u8>>>) {
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut hashes: Vec<(String, u64)> = (0..4000)
        .map(|_| {
            let p = (next() % u64::from(RANGES)) as u32;
            let rest = format!("{:016X}{:016X}{:03X}", next(), next(), next() & 0xfff);
            (format!("{p:05X}{rest}"), next() % 100_000 + 1)
        })
        .collect();
    hashes.sort();
    hashes.dedup_by(|a, b| a.0 == b.0);
    // A large count, which the index keeps in its overflow table (in a range no fault
    // truncates: a cut count would be a plausible body that no client can detect).
    let big = hashes
        .iter()
        .position(|(h, _)| h.ends_with('0') && &h[4..5] == "0")
        .unwrap();
    hashes[big].1 = 1 << 40;
    let mut dump = Vec::new();
    let mut bodies = vec![Vec::new(); RANGES as usize];
    for (h, c) in &hashes {
        dump.extend_from_slice(format!("{h}:{c}\n").as_bytes());
        let p = usize::from_str_radix(&h[..5], 16).unwrap();
        let b = &mut bodies[p];
        if !b.is_empty() {
            b.extend_from_slice(b"\r\n");
        }
        b.extend_from_slice(format!("{}:{c}", &h[5..]).as_bytes());
    }
    (dump, Arc::new(bodies))
}

fn reference(dump: &[u8], dir: &std::path::Path) -> Vec<u8> {
    let mut f = tempfile::tempfile().unwrap();
    build::build(
        BuildSource::Stream {
            reader: &mut &dump[..],
            name: "dump".into(),
            size: None,
        },
        &mut f,
        build::Options {
            kind: Some(HashKind::Sha1),
            ..build::Options::default()
        },
        dir,
        &NoProgress,
    )
    .unwrap();
    let mut out = Vec::new();
    use std::io::Seek;
    f.rewind().unwrap();
    f.read_to_end(&mut out).unwrap();
    out
}

/// A download with a checkpoint every 10 ranges.
fn run(server: &Server, dir: &std::path::Path, retries: u32) -> Result<Vec<u8>, DownloadError> {
    run_from(server.source(), dir, retries, None, 10).map(|(index, _, _)| index)
}

/// [`run`], with `outlook` given the download's outlook; also returns the validators'
/// sidecar as written.
fn run_with(
    server: &Server,
    dir: &std::path::Path,
    retries: u32,
    outlook: Option<super::OutlookFn<'_>>,
) -> Result<(Vec<u8>, Vec<u8>), DownloadError> {
    run_from(
        server.source(),
        dir,
        retries,
        outlook,
        super::CHECKPOINT_EVERY,
    )
    .map(|(index, sidecar, _)| (index, sidecar))
}

/// [`run_with`] from `source`, with a checkpoint every `every` ranges into the index
/// file `dir/index` (kept between runs, as the command keeps it); also returns the
/// download's statistics.
fn run_from(
    source: Source,
    dir: &std::path::Path,
    retries: u32,
    outlook: Option<super::OutlookFn<'_>>,
    every: u32,
) -> Result<(Vec<u8>, Vec<u8>, super::Stats), DownloadError> {
    let fetcher = Fetcher::new(
        source,
        HashKind::Sha1,
        Options {
            parallel: 8,
            retries,
            timeout: Duration::from_secs(1),
            backoff: Duration::from_millis(5),
            cacert: None,
            ..Options::default()
        },
    )
    .unwrap();
    let mut out = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join("index"))
        .unwrap();
    let mut validators = Vec::new();
    let stats = download(
        fetcher,
        Plan {
            kind: HashKind::Sha1,
            parallel: 8,
            journal: &dir.join("journal"),
            state: &dir.join("state"),
            checkpoint_every: every,
            spool_dir: dir,
            ranges: RANGES,
            previous: None,
            outlook,
        },
        &mut out,
        &mut validators,
        &NoProgress,
    )?;
    let text = std::str::from_utf8(&validators).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), RANGES as usize + 1);
    assert!(lines[1].starts_with("00000\t\""), "{}", lines[1]);
    let mut bytes = Vec::new();
    use std::io::Seek;
    out.rewind().unwrap();
    out.read_to_end(&mut bytes).unwrap();
    Ok((bytes, validators, stats))
}

/// The outlook of a download that ends before [`super::OUTLOOK_AFTER`] ranges comes once,
/// after its last range, and counts exactly what it wrote: its journal's entries, its
/// sidecar's lines and its hashes packed (the journal's entries less their framing and
/// validators).
#[test]
fn the_outlook_counts_what_the_download_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let (_, bodies) = data(3);
    let server = Server::start(bodies, Arc::new(|_, _| Fault::None));
    let told = Mutex::new(Vec::new());
    let tell = |o: super::Outlook| told.lock().unwrap().push(o);
    let (_, sidecar) = run_with(&server, dir.path(), 0, Some(super::OutlookFn(&tell))).unwrap();
    let told = told.into_inner().unwrap();
    assert_eq!(told.len(), 1, "{told:?}");
    let n = u64::from(RANGES);
    let header = 8 + 1 + 3 + 4 + server.source().template().len() as u64 + 8;
    let entries = std::fs::metadata(dir.path().join("journal")).unwrap().len() - header;
    let first_line = sidecar.iter().position(|&b| b == b'\n').unwrap() as u64 + 1;
    let lines = sidecar.len() as u64 - first_line;
    let packed = entries - 20 * n - (lines - 8 * n);
    assert!(packed > 0);
    assert_eq!(told[0].written, entries + lines + packed);
    assert_eq!(told[0].total, told[0].written);
    assert_eq!(told[0].more(), 0);
}

/// The outlook scales what the first ranges wrote to all of them.
#[test]
fn the_outlook_scales_the_first_ranges_to_all() {
    let o = super::Outlook::of(0, 4096, 4096, 1 << 20, 1_000_000, 50_000, 8192);
    let written = 28 * 4096 + 2 * 50_000 + 2 * 1_000_000;
    assert_eq!(o.written, written);
    // The index and sidecar scaled; the journal of at most 8192 ranges; the state of the
    // rest.
    let kept = 8 * 4096 + 50_000 + 1_000_000;
    let journal = 20 * 8192 + 1_050_000 * 2;
    let saved = 4 * ((1 << 20) - 8192) + 50_000 * 254;
    assert_eq!(o.total, kept * 256 + journal + saved);
    assert_eq!(o.more(), o.total - written);
    // Past a checkpoint: the journal holds only the ranges since.
    let later = super::Outlook::of(0, 4096, 96, 1 << 20, 1_000_000, 50_000, 4000);
    let journal = 20 * 96 + 1_050_000 * 96 / 4096;
    assert_eq!(
        later.written,
        kept + journal + 4 * 4000 + 50_000 * 4000 / 4096
    );
    let none = super::Outlook::of(0, 0, 0, 1 << 20, 0, 0, 8192);
    assert_eq!((none.written, none.total), (0, 0));
    // A run resumed at range 8192 that fed the same sizes over its first 4096 ranges:
    // the ranges before it are counted at the sizes of this run's.
    let resumed = super::Outlook::of(8192, 8192 + 4096, 4096, 1 << 20, 1_000_000, 50_000, 8192);
    let journal = 20 * 4096 + 1_050_000;
    assert_eq!(resumed.written, kept * 3 + journal + 4 * 8192 + 50_000 * 2);
    assert_eq!(resumed.total, o.total);
}

#[test]
fn every_fault_is_retried_and_the_index_is_the_build_of_the_same_data() {
    let dir = tempfile::tempdir().unwrap();
    let (dump, bodies) = data(7);
    let want = reference(&dump, dir.path());
    let faults: Plan_ = Arc::new(|p, n| {
        if n > 0 {
            return Fault::None;
        }
        match p % 10 {
            1 => Fault::Status500,
            2 => Fault::Status503,
            3 => Fault::DropMidBody,
            4 => Fault::Truncated,
            5 => Fault::Malformed,
            6 if p < 20 => Fault::Stall,
            7 if p < 10 => Fault::TooMany,
            8 => Fault::CodingTruncated,
            9 => Fault::CodingDamaged,
            0 if p % 20 == 0 && p > 0 => Fault::UnknownCoding,
            _ => Fault::None,
        }
    });
    let server = Server::start(bodies.clone(), faults);
    let got = run(&server, dir.path(), 3).unwrap();
    assert!(got == want, "the download differs from the build");
    // Every faulty range was asked again; the others once.
    for p in 0..RANGES {
        let faulty = matches!(p % 10, 1..=5 | 8 | 9)
            || (p % 10 == 6 && p < 20)
            || p == 7
            || (p % 20 == 0 && p > 0);
        let truncated_but_plausible = p % 10 == 4 && bodies[p as usize].is_empty();
        let n = server.times_asked(p);
        if faulty && !truncated_but_plausible {
            assert!(n >= 2, "range {p} asked {n} times");
        } else if !faulty {
            assert_eq!(n, 1, "range {p}");
        }
    }
    // The journal stays until the caller removes it.
    assert!(dir.path().join("journal").exists());
}

#[test]
fn a_range_that_keeps_failing_names_its_prefix_and_the_rerun_fetches_only_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (dump, bodies) = data(11);
    let want = reference(&dump, dir.path());
    // Range 40 fails until the server is mended; range 35, still in flight when 40
    // gives up, arrives late and must be journaled all the same.
    let mended = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let m = mended.clone();
    let server = Server::start(
        bodies.clone(),
        Arc::new(move |p, n| {
            if p == 40 && !m.load(std::sync::atomic::Ordering::Relaxed) {
                Fault::Status500
            } else if p == 35 && n == 0 {
                Fault::Slow
            } else {
                Fault::None
            }
        }),
    );
    let e = run(&server, dir.path(), 2).err().unwrap();
    assert_eq!(
        e.to_string(),
        "range 00028: HTTP 500 Internal Server Error (after 3 attempts)"
    );
    assert_eq!(server.times_asked(40), 3);
    let before: Vec<u32> = (0..RANGES).map(|p| server.times_asked(p)).collect();
    // A 404 is not retried.
    let dir404 = tempfile::tempdir().unwrap();
    let missing = Server::start(
        bodies.clone(),
        Arc::new(|p, _| if p == 3 { Fault::NotFound } else { Fault::None }),
    );
    let e = run(&missing, dir404.path(), 5).err().unwrap();
    assert_eq!(e.to_string(), "range 00003: HTTP 404 Not Found");
    assert_eq!(missing.times_asked(3), 1);

    // The rerun reads ranges 0 to 39 from the journal and fetches from 40 on; it gives
    // its own outlook, the sizes of the ranges before it estimated from its own.
    mended.store(true, std::sync::atomic::Ordering::Relaxed);
    let told = Mutex::new(Vec::new());
    let tell = |o: super::Outlook| told.lock().unwrap().push(o);
    let (got, _, stats) = run_from(
        server.source(),
        dir.path(),
        0,
        Some(super::OutlookFn(&tell)),
        10,
    )
    .unwrap();
    assert!(got == want, "the resumed download differs from the build");
    assert_eq!(stats.replayed, 40, "{stats:?}");
    let whole = tempfile::tempdir().unwrap();
    let exact = Mutex::new(Vec::new());
    let tell_exact = |o: super::Outlook| exact.lock().unwrap().push(o);
    let fresh = Server::start(bodies.clone(), Arc::new(|_, _| Fault::None));
    run_from(
        fresh.source(),
        whole.path(),
        0,
        Some(super::OutlookFn(&tell_exact)),
        10,
    )
    .unwrap();
    let (told, exact) = (told.into_inner().unwrap(), exact.into_inner().unwrap());
    assert_eq!((told.len(), exact.len()), (1, 1), "{told:?} {exact:?}");
    let ratio = told[0].total as f64 / exact[0].total as f64;
    assert!((0.8..1.25).contains(&ratio), "{told:?} against {exact:?}");
    for p in 0..RANGES {
        let again = server.times_asked(p) - before[p as usize];
        assert_eq!(
            again,
            u32::from(p >= 40),
            "range {p} fetched {again} times by the rerun"
        );
    }
}

/// Redirects on the source's origin are followed; one to another origin is an error
/// naming both, at once (not retried), never followed without a word.
#[test]
fn redirects_are_followed_on_the_source_s_origin_and_refused_to_another() {
    let dir = tempfile::tempdir().unwrap();
    let (dump, bodies) = data(5);
    let want = reference(&dump, dir.path());
    let here = Server::start(
        bodies.clone(),
        Arc::new(|p, n| {
            if p % 7 == 3 && n == 0 {
                Fault::RedirectHere
            } else {
                Fault::None
            }
        }),
    );
    assert!(run(&here, dir.path(), 3).unwrap() == want);
    assert_eq!(here.times_asked(3), 2);
    let away_dir = tempfile::tempdir().unwrap();
    let away = Server::start(
        bodies,
        Arc::new(|p, _| {
            if p == 10 {
                Fault::RedirectAway
            } else {
                Fault::None
            }
        }),
    );
    let e = run(&away, away_dir.path(), 5).err().unwrap().to_string();
    let port = away.port;
    assert_eq!(
        e,
        format!(
            "range 0000A: error following redirect: redirected from http://127.0.0.1:{port} to another origin, http://localhost:{port}: give that one as --source to download from it"
        )
    );
    assert_eq!(away.times_asked(10), 1);
}

/// The Pwned Passwords data has no empty range: from a source that holds all of it (the
/// public API), a body without hashes is damage, retried and then an error naming the
/// range, never built in as an empty range (lookups of its hashes would answer "not
/// found"). From a mirror, an empty range is data, and the download counts it.
#[test]
fn an_empty_body_from_a_source_of_every_range_is_damage_and_from_a_mirror_is_counted() {
    let (dump, bodies) = data(17);
    assert!(bodies.iter().all(|b| !b.is_empty()));
    let want = reference(&dump, tempfile::tempdir().unwrap().path());
    let once = Server::start(
        bodies.clone(),
        Arc::new(|p, n| {
            if p == 5 && n == 0 {
                Fault::Empty
            } else {
                Fault::None
            }
        }),
    );
    let dir = tempfile::tempdir().unwrap();
    let (got, _, stats) = run_from(
        once.source().every_range_holds_hashes(),
        dir.path(),
        2,
        None,
        10,
    )
    .unwrap();
    assert!(got == want, "the download differs from the build");
    assert_eq!(once.times_asked(5), 2);
    let ranges = stats.build.unwrap().ranges;
    assert_eq!((ranges.held, ranges.first_empty), (RANGES, Some(RANGES)));

    let always = Server::start(
        bodies.clone(),
        Arc::new(|p, _| if p == 5 { Fault::Empty } else { Fault::None }),
    );
    let dir = tempfile::tempdir().unwrap();
    let e = run_from(
        always.source().every_range_holds_hashes(),
        dir.path(),
        2,
        None,
        10,
    )
    .err()
    .unwrap();
    assert_eq!(
        e.to_string(),
        "range 00005: a body without hashes, where every range of the Pwned Passwords data holds hundreds (after 3 attempts)"
    );
    assert_eq!(always.times_asked(5), 3);

    // A mirror's empty range is built in as one, and counted.
    let dir = tempfile::tempdir().unwrap();
    let (_, _, stats) = run_from(always.source(), dir.path(), 2, None, 10).unwrap();
    let ranges = stats.build.unwrap().ranges;
    assert_eq!((ranges.held, ranges.first_empty), (RANGES - 1, Some(5)));
    assert_eq!(always.times_asked(5), 4);
}

#[test]
fn a_journal_cut_anywhere_resumes_to_the_same_index() {
    let dir = tempfile::tempdir().unwrap();
    let (dump, bodies) = data(13);
    let want = reference(&dump, dir.path());
    let server = Server::start(bodies, Arc::new(|_, _| Fault::None));
    run(&server, dir.path(), 0).unwrap();
    let journal = std::fs::read(dir.path().join("journal")).unwrap();
    // Cuts at a spread of places, as a kill -9 leaves the journal.
    for i in 0..12 {
        let cut = journal.len() * i / 12 + i * 7 % 5;
        std::fs::write(dir.path().join("journal"), &journal[..cut]).unwrap();
        let got = run(&server, dir.path(), 0).unwrap();
        assert!(got == want, "cut at {cut}");
        assert_eq!(std::fs::read(dir.path().join("journal")).unwrap(), journal);
    }
}

#[test]
fn an_update_fetches_only_changed_ranges_and_gives_the_build_of_the_new_data() {
    let dir = tempfile::tempdir().unwrap();
    let (dump, bodies) = data(17);
    let server = Server::start(bodies.clone(), Arc::new(|_, _| Fault::None));
    let old = run(&server, dir.path(), 0).unwrap();
    std::fs::remove_file(dir.path().join("journal")).unwrap();
    std::fs::remove_file(dir.path().join("state")).unwrap();
    let old_path = dir.path().join("old.idx");
    std::fs::write(&old_path, &old).unwrap();
    assert!(old == reference(&dump, dir.path()));
    // The validators as the first download recorded them.
    let validators: Vec<super::fetch::Validators> = bodies
        .iter()
        .map(|b| super::fetch::Validators {
            etag: Some(format!("\"{:x}\"", xxhash_rust::xxh3::xxh3_64(b))),
            last_modified: None,
        })
        .collect();
    // New data: range 3 recounted, range 5 emptied, range 9 gains a hash, the rest alike.
    let text = String::from_utf8(dump).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let first_of = |p: &str, lines: &[String]| lines.iter().position(|l| l.starts_with(p));
    let i3 = first_of("00003", &lines).unwrap();
    let (h, c) = lines[i3].split_once(':').unwrap();
    lines[i3] = format!("{h}:{}", c.parse::<u64>().unwrap() + 1);
    let removed = lines.iter().filter(|l| l.starts_with("00005")).count() as u64;
    lines.retain(|l| !l.starts_with("00005"));
    lines.push("00009FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:5".into());
    lines.sort();
    let new_dump = lines.join("\n") + "\n";
    let mut new_bodies = vec![Vec::new(); RANGES as usize];
    for l in &lines {
        let p = usize::from_str_radix(&l[..5], 16).unwrap();
        let b: &mut Vec<u8> = &mut new_bodies[p];
        if !b.is_empty() {
            b.extend_from_slice(b"\r\n");
        }
        b.extend_from_slice(&l.as_bytes()[5..]);
    }
    let changed: Vec<u32> = (0..RANGES)
        .filter(|&p| new_bodies[p as usize] != bodies[p as usize])
        .collect();
    assert!(
        changed == vec![3, 5, 9] || changed == vec![3, 9],
        "{changed:?}"
    );
    let server = Server::start(Arc::new(new_bodies), Arc::new(|_, _| Fault::None));
    let index = crate::breach::index::Index::open(&old_path).unwrap();
    let validators = Arc::new(validators);
    let fetcher = Fetcher::new(server.source(), HashKind::Sha1, Options::default()).unwrap();
    let mut out = tempfile::tempfile().unwrap();
    let stats = download(
        fetcher,
        Plan {
            kind: HashKind::Sha1,
            parallel: 4,
            journal: &dir.path().join("journal"),
            state: &dir.path().join("state"),
            checkpoint_every: 7,
            spool_dir: dir.path(),
            ranges: RANGES,
            previous: Some(super::Previous {
                index: &index,
                validators: &validators,
            }),
            outlook: None,
        },
        &mut out,
        &mut std::io::sink(),
        &NoProgress,
    )
    .unwrap();
    let mut got = Vec::new();
    use std::io::Seek;
    out.rewind().unwrap();
    out.read_to_end(&mut got).unwrap();
    assert!(
        got == reference(new_dump.as_bytes(), dir.path()),
        "the update differs from the build"
    );
    assert_eq!(stats.changed as usize, changed.len());
    assert_eq!(stats.unchanged as usize, RANGES as usize - changed.len());
    assert_eq!(stats.fetched, RANGES);
    assert_eq!(
        stats.change,
        super::body::Change {
            added: 1,
            removed,
            recounted: 1
        }
    );
}

/// An update stopped midway (a range failing for good) and run again counts every
/// range, not only the second run's: ranges the first run checkpointed into the index,
/// ranges replayed from its journal and ranges fetched by the second, changed or not
/// (`changed + unchanged` is every range, a range fetched again with the same content
/// being unchanged), with the same hash counts as an update that was never stopped.
#[test]
fn a_resumed_update_counts_every_range_as_one_run_would() {
    let dir = tempfile::tempdir().unwrap();
    let (dump, bodies) = data(23);
    let server = Server::start(bodies.clone(), Arc::new(|_, _| Fault::None));
    let old = run(&server, dir.path(), 0).unwrap();
    for f in ["journal", "state", "index"] {
        std::fs::remove_file(dir.path().join(f)).unwrap();
    }
    let old_path = dir.path().join("old.idx");
    std::fs::write(&old_path, &old).unwrap();
    // Validators for the ranges below 50 only: the others are asked unconditionally and
    // come back with the same content.
    let validators: Arc<Vec<super::fetch::Validators>> = Arc::new(
        bodies
            .iter()
            .enumerate()
            .map(|(p, b)| super::fetch::Validators {
                etag: (p < 50).then(|| format!("\"{:x}\"", xxhash_rust::xxh3::xxh3_64(b))),
                last_modified: None,
            })
            .collect(),
    );
    // The first run fails at range 0x3A (asked unconditionally: no 304 for it), after
    // its checkpoint at 0x38. Changes in ranges it checkpointed (3, 9), in its journal
    // (0x39) and fetched by the second run (0x3C): a hash recounted in each, one added
    // in 9.
    let text = String::from_utf8(dump).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for p in ["00003", "00009", "00039", "0003C"] {
        let i = lines.iter().position(|l| l.starts_with(p)).unwrap();
        let (h, c) = lines[i].split_once(':').unwrap();
        lines[i] = format!("{h}:{}", c.parse::<u64>().unwrap() + 1);
    }
    lines.push("00009FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:5".into());
    lines.sort();
    let mut new_bodies = vec![Vec::new(); RANGES as usize];
    for l in &lines {
        let b: &mut Vec<u8> = &mut new_bodies[usize::from_str_radix(&l[..5], 16).unwrap()];
        if !b.is_empty() {
            b.extend_from_slice(b"\r\n");
        }
        b.extend_from_slice(&l.as_bytes()[5..]);
    }
    let mended = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let m = mended.clone();
    let server = Server::start(
        Arc::new(new_bodies),
        Arc::new(move |p, _| {
            if p == 0x3A && !m.load(std::sync::atomic::Ordering::Relaxed) {
                Fault::Status500
            } else {
                Fault::None
            }
        }),
    );
    let index = crate::breach::index::Index::open(&old_path).unwrap();
    let update = || {
        let fetcher = Fetcher::new(
            server.source(),
            HashKind::Sha1,
            Options {
                retries: 0,
                ..Options::default()
            },
        )
        .unwrap();
        let mut out = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.path().join("index"))
            .unwrap();
        download(
            fetcher,
            Plan {
                kind: HashKind::Sha1,
                parallel: 4,
                journal: &dir.path().join("journal"),
                state: &dir.path().join("state"),
                checkpoint_every: 7,
                spool_dir: dir.path(),
                ranges: RANGES,
                previous: Some(super::Previous {
                    index: &index,
                    validators: &validators,
                }),
                outlook: None,
            },
            &mut out,
            &mut std::io::sink(),
            &NoProgress,
        )
    };
    let e = update().err().unwrap();
    assert!(e.to_string().starts_with("range 0003A"), "{e}");
    mended.store(true, std::sync::atomic::Ordering::Relaxed);
    let stats = update().unwrap();
    assert!(
        std::fs::read(dir.path().join("index")).unwrap()
            == reference((lines.join("\n") + "\n").as_bytes(), dir.path()),
        "the update differs from the build"
    );
    // The second run kept ranges from the first: checkpointed ones and journaled ones.
    assert!(
        stats.replayed >= 0x3A && stats.fetched < RANGES,
        "{stats:?}"
    );
    assert_eq!(
        (stats.changed, stats.unchanged),
        (4, RANGES - 4),
        "{stats:?}"
    );
    assert_eq!(
        stats.change,
        super::body::Change {
            added: 1,
            removed: 0,
            recounted: 4
        }
    );
}
