//! Records: Tkrzw's and SQL Server's tables. Set and get rates and file size for records
//! with 8-byte keys and 8-byte or 100-byte values, stored in plaintext and encrypted, with
//! the cost of encryption as a multiple of the plaintext figure (as SQL Server's article
//! reports it).
//!
//! Plaintext: the records written to a plain file with an in-memory hash index (key to
//! offset), gets copying the record out of the file's bytes held in memory: the least an
//! unencrypted store without integrity does. Encrypted: `veilkit records` (seal, then random gets
//! by key through a freshly opened file: index lookup, page authentication and decryption).

use super::{BenchError, Column, Figure, Options, Rng, Section, Table, col};
use crate::keys::{Keyring, MasterKey};
use crate::progress::{NoProgress, Progress};
use crate::records::file::{RecordFile, Settings, seal};
use crate::records::format::{InputFormat, Unlock};
use crate::records::input::{KeyField, parse};
use std::collections::HashMap;
use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

fn columns() -> Vec<Column> {
    vec![
        col("sets", "set", "K/s"),
        col("gets", "get", "K/s"),
        col("bytes_per_record", "size", "B/record"),
        col("size_vs_raw", "size / key+value", "x"),
        col("set_cost", "set cost", "x plain"),
        col("get_cost", "get cost", "x plain"),
    ]
}

/// The workload: `n` TSV lines of an 8-digit key and `value` random letters and digits.
pub fn input(n: usize, value: usize) -> Vec<u8> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let alphabet = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut out = Vec::with_capacity(n * (value + 10));
    let mut key = itoa::Buffer::new();
    for i in 0..n {
        let k = key.format(i);
        out.extend(std::iter::repeat_n(b'0', 8usize.saturating_sub(k.len())));
        out.extend_from_slice(k.as_bytes());
        out.push(b'\t');
        for _ in 0..value {
            out.push(alphabet[(rng.next() % alphabet.len() as u64) as usize]);
        }
        out.push(b'\n');
    }
    out
}

const FIRST: &[&str] = &[
    "James",
    "Mary",
    "John",
    "Patricia",
    "Robert",
    "Jennifer",
    "Michael",
    "Linda",
    "William",
    "Elizabeth",
    "David",
    "Barbara",
    "Richard",
    "Susan",
    "Joseph",
    "Jessica",
    "Thomas",
    "Sarah",
    "Chris",
    "Karen",
    "Ana",
    "Mohammed",
    "Wei",
    "Yuki",
    "Olga",
    "Pierre",
    "Sven",
    "Priya",
];
const LAST: &[&str] = &[
    "Smith",
    "Johnson",
    "Williams",
    "Brown",
    "Jones",
    "Garcia",
    "Miller",
    "Davis",
    "Rodriguez",
    "Martinez",
    "Hernandez",
    "Lopez",
    "Gonzalez",
    "Wilson",
    "Anderson",
    "Thomas",
    "Taylor",
    "Moore",
    "Jackson",
    "Martin",
    "Lee",
    "Nguyen",
    "Kowalski",
    "Rossi",
    "Dubois",
    "Okafor",
];
const DOMAINS: &[&str] = &[
    "example.com",
    "mail.example.org",
    "corp.example.net",
    "inbox.example",
    "post.example.de",
];
const WORDS: &[&str] = &[
    "the",
    "order",
    "was",
    "shipped",
    "late",
    "please",
    "call",
    "back",
    "customer",
    "asked",
    "about",
    "refund",
    "invoice",
    "attached",
    "account",
    "closed",
    "renewal",
    "pending",
    "address",
    "changed",
    "prefers",
    "email",
    "no",
    "contact",
    "after",
    "6pm",
    "VIP",
    "escalated",
    "ticket",
    "resolved",
    "awaiting",
    "payment",
    "duplicate",
    "charge",
    "for",
    "March",
    "delivery",
    "damaged",
    "replacement",
    "sent",
    "twice",
    "manager",
    "approved",
];

/// A person's row after its id: `name,e-mail,"note"` (a quoted note of 3 to 9 words).
fn person(rng: &mut Rng, out: &mut Vec<u8>) {
    let pick =
        |rng: &mut Rng, from: &[&'static str]| from[(rng.next() % from.len() as u64) as usize];
    let (first, last) = (pick(rng, FIRST), pick(rng, LAST));
    let number = rng.next() % 999 + 1;
    let domain = pick(rng, DOMAINS);
    out.extend_from_slice(
        format!(
            "{first} {last},{}.{}{number}@{domain},\"",
            first.to_lowercase(),
            last.to_lowercase()
        )
        .as_bytes(),
    );
    for w in 0..3 + rng.next() % 7 {
        if w > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(pick(rng, WORDS).as_bytes());
    }
    out.push(b'"');
}

/// A CSV of `n` people (`id,name,email,note`, a header row, ids from 1): names,
/// e-mail addresses and notes of a few words, about 95 bytes a row.
pub fn people_csv(n: usize) -> Vec<u8> {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut out = b"id,name,email,note\n".to_vec();
    for i in 1..=n {
        out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
        out.push(b',');
        person(&mut rng, &mut out);
        out.push(b'\n');
    }
    out
}

/// JSON lines of `n` people: `{"id":N,"name":...,"email":...,"note":...,"active":B}`,
/// ids from 1, the same kind of values as [`people_csv`] (about 125 bytes a line).
pub fn people_jsonl(n: usize) -> Vec<u8> {
    let mut rng = Rng(0x6A09_E667_F3BC_C909);
    let mut out = Vec::new();
    let mut row = Vec::new();
    for i in 1..=n {
        row.clear();
        person(&mut rng, &mut row);
        // name,email,"note" as three JSON strings (none holds a comma or a quote).
        let text = std::str::from_utf8(&row).expect("ASCII");
        let mut parts = text.splitn(3, ',');
        let (name, email, note) = (
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or("\"\"").trim_matches('"'),
        );
        let active = !rng.next().is_multiple_of(3);
        out.extend_from_slice(
            format!(
                "{{\"id\":{i},\"name\":\"{name}\",\"email\":\"{email}\",\"note\":\"{note}\",\"active\":{active}}}\n"
            )
            .as_bytes(),
        );
    }
    out
}

/// `n` lines of a web server's access log in the combined format, each starting with
/// a request id (its key, 16 hex digits) and a tab: client addresses, times a second
/// apart, paths, statuses, sizes, referrers and user agents (about 200 bytes a line).
pub fn access_log(n: usize) -> Vec<u8> {
    const PATHS: &[&str] = &[
        "/",
        "/login",
        "/logout",
        "/api/v1/orders",
        "/api/v1/orders/",
        "/api/v1/users/",
        "/static/app.js",
        "/static/app.css",
        "/images/logo.png",
        "/search?q=",
        "/cart",
        "/checkout",
        "/account/settings",
        "/api/v1/health",
    ];
    const AGENTS: &[&str] = &[
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
        "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
        "curl/8.5.0",
        "python-requests/2.31.0",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    ];
    const STATUS: &[u16] = &[200, 200, 200, 200, 200, 304, 302, 404, 500, 201];
    let mut rng = Rng(0xBB67_AE85_84CA_A73B);
    let mut out = Vec::new();
    let months = ["Nov", "Dec"];
    for i in 0..n as u64 {
        let id = rng.next();
        let ip = rng.next();
        let t = i;
        let (day, hour, min, sec) = (1 + t / 86_400 % 28, t / 3600 % 24, t / 60 % 60, t % 60);
        let month = months[(t / (86_400 * 28) % 2) as usize];
        let path = PATHS[(rng.next() % PATHS.len() as u64) as usize];
        let tail = if path.ends_with('/') || path.ends_with('=') {
            (rng.next() % 100_000).to_string()
        } else {
            String::new()
        };
        let method = if path.starts_with("/api") && rng.next().is_multiple_of(4) {
            "POST"
        } else {
            "GET"
        };
        let status = STATUS[(rng.next() % STATUS.len() as u64) as usize];
        let size = if status == 304 {
            0
        } else {
            rng.next() % 60_000 + 120
        };
        let agent = AGENTS[(rng.next() % AGENTS.len() as u64) as usize];
        out.extend_from_slice(
            format!(
                "{id:016x}\t{}.{}.{}.{} - - [{day:02}/{month}/2026:{hour:02}:{min:02}:{sec:02} +0000] \"{method} {path}{tail} HTTP/1.1\" {status} {size} \"https://shop.example.com/\" \"{agent}\"\n",
                10 + ip % 200,
                ip >> 8 & 255,
                ip >> 16 & 255,
                ip >> 24 & 255
            )
            .as_bytes(),
        );
    }
    out
}

/// The workload of [`input`] with values of realistic text instead of random letters:
/// `n` TSV lines of an 8-digit key and a `value`-byte person row (cut or padded with
/// more notes to exactly that length).
pub fn people_input(n: usize, value: usize) -> Vec<u8> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::with_capacity(n * (value + 10));
    let mut row = Vec::new();
    for i in 0..n {
        out.extend_from_slice(format!("{i:08}\t").as_bytes());
        row.clear();
        while row.len() < value {
            if !row.is_empty() {
                row.push(b' ');
            }
            person(&mut rng, &mut row);
        }
        out.extend_from_slice(&row[..value]);
        out.push(b'\n');
    }
    out
}

/// `count` keys of `input(n, _)` drawn at random.
pub fn keys(n: usize, count: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|_| format!("{:08}", rng.next() % n as u64).into_bytes())
        .collect()
}

/// Plaintext store: (sets/s, gets/s, bytes).
fn plain(data: &[u8], path: &Path, gets: &[Vec<u8>]) -> Result<(f64, f64, u64), BenchError> {
    let lines = data.iter().filter(|&&b| b == b'\n').count();
    let t = Instant::now();
    let file = std::fs::File::create(path).map_err(BenchError::Scratch)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    // Keys borrowed from the input and a fast hash: no allocation per record.
    let mut index: HashMap<&[u8], (u64, u32), xxhash_rust::xxh3::Xxh3Builder> =
        HashMap::with_capacity_and_hasher(lines, xxhash_rust::xxh3::Xxh3Builder::new());
    let mut at = 0u64;
    let mut n = 0usize;
    for line in data.split_inclusive(|&b| b == b'\n') {
        let key = line.split(|&b| b == b'\t').next().unwrap_or(line);
        out.write_all(line).map_err(BenchError::Scratch)?;
        index.insert(key, (at, line.len() as u32));
        at += line.len() as u64;
        n += 1;
    }
    out.flush().map_err(BenchError::Scratch)?;
    let sets = n as f64 / t.elapsed().as_secs_f64();
    drop(out);
    // Gets from the file's bytes in memory: the fastest a plaintext store can be.
    let bytes = std::fs::read(path).map_err(BenchError::Scratch)?;
    let mut buf = Vec::with_capacity(256);
    let t = Instant::now();
    for k in gets {
        let &(at, len) = index
            .get(k.as_slice())
            .ok_or_else(|| BenchError::failed("records", "a plaintext key is missing"))?;
        buf.clear();
        buf.extend_from_slice(&bytes[at as usize..at as usize + len as usize]);
        black_box(&buf);
    }
    let rate = gets.len() as f64 / t.elapsed().as_secs_f64();
    Ok((sets, rate, at))
}

/// Encrypted record file: (sets/s, gets/s, bytes).
fn encrypted(
    data: &[u8],
    path: &Path,
    gets: &[Vec<u8>],
    ring: &Keyring,
) -> Result<(f64, f64, u64), BenchError> {
    let fail = |e: crate::records::RecordsError| BenchError::failed("records", e);
    let t = Instant::now();
    let (prefix, mut recs) =
        parse(data, InputFormat::Tsv, Some(&KeyField::Number(1)), false, 1).map_err(fail)?;
    let mut f = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(BenchError::Scratch)?;
    let settings = Settings {
        format: InputFormat::Tsv,
        key_field: "1".into(),
        ..Settings::default()
    };
    let sealed = seal(
        &mut recs,
        prefix,
        &settings,
        &[Unlock::Keyring(ring)],
        &mut f,
        &NoProgress,
    )
    .map_err(fail)?;
    let sets = sealed.records as f64 / t.elapsed().as_secs_f64();
    drop(f);
    let mut file = RecordFile::open(path, &[Unlock::Keyring(ring)], false).map_err(fail)?;
    let mut buf = Vec::with_capacity(256);
    let t = Instant::now();
    for k in gets {
        buf.clear();
        if !file.get_into(k, &mut buf).map_err(fail)? {
            return Err(BenchError::failed("records", "a sealed key is missing"));
        }
        black_box(&buf);
    }
    let rate = gets.len() as f64 / t.elapsed().as_secs_f64();
    Ok((sets, rate, sealed.bytes))
}

pub(super) fn run(options: &Options, progress: &dyn Progress) -> Result<Table, BenchError> {
    let s = options.scale;
    let n = s.pick(1_000, 50_000, 300_000, 1_000_000);
    let runs = s.pick(1, 3, 3, 3);
    let mut t = Table::new(
        Section::Records,
        "record files: sets and gets per second and size, plaintext against encrypted (Tkrzw's and SQL Server's tables)",
        columns(),
    );
    progress.set_total(4);
    let scratch = tempfile::Builder::new()
        .prefix("veilkit-bench-")
        .tempdir_in(&options.scratch)
        .map_err(BenchError::Scratch)?;
    let _tracked = crate::streams::track_temp_dir(scratch.path());
    let ring = Keyring::single(MasterKey::new(1, [9; 32]));
    for value in [8usize, 100] {
        let data = input(n, value);
        // As many gets as records, as Tkrzw's workload (which the reference is) gets
        // each record once: a fresh open's first decrypts of the file's pages are then
        // a part of the gets in the proportion the reference pays for its own reads.
        let gets = keys(n, n, 7);
        let raw = (n * (8 + value)) as f64;
        let mut p = (Vec::new(), Vec::new(), 0u64);
        let mut e = (Vec::new(), Vec::new(), 0u64);
        for _ in 0..runs {
            let (s1, g1, b1) = plain(&data, &scratch.path().join("plain.tsv"), &gets)?;
            p.0.push(s1 / 1e3);
            p.1.push(g1 / 1e3);
            p.2 = b1;
            let (s2, g2, b2) = encrypted(&data, &scratch.path().join("sealed.vkr"), &gets, &ring)?;
            e.0.push(s2 / 1e3);
            e.1.push(g2 / 1e3);
            e.2 = b2;
        }
        let (ps, pg) = (Figure::of_runs(p.0), Figure::of_runs(p.1));
        let (es, eg) = (Figure::of_runs(e.0), Figure::of_runs(e.1));
        let exact = |v: f64| Figure {
            median: v,
            p99: None,
            spread: None,
            runs: 1,
        };
        t.row(
            format!("plaintext, in memory + hash index, {value}-byte values"),
            vec![
                Some(ps),
                Some(pg),
                Some(exact(p.2 as f64 / n as f64)),
                Some(exact(p.2 as f64 / raw)),
                None,
                None,
            ],
            None,
        );
        progress.advance(1);
        let reference = (value == 100).then_some(
            "Tkrzw AES HashDBM: 1020K set/s, 840K get/s, 1.45x; SQLCipher: 258K/64K, 1.27x",
        );
        t.row(
            format!("veilkit records (AES-256-GCM-SIV), {value}-byte values"),
            vec![
                Some(es),
                Some(eg),
                Some(exact(e.2 as f64 / n as f64)),
                Some(exact(e.2 as f64 / raw)),
                // Cost: time per set (get) encrypted over plaintext = rate ratio inverted.
                Some(exact(ps.median / es.median)),
                Some(exact(pg.median / eg.median)),
            ],
            reference,
        );
        progress.advance(1);
    }
    t.notes.push(format!(
        "{n} records with 8-byte keys (the published size: 1M, --full), as many random gets by key from a fresh open, median of {runs} runs; sets are a bulk seal (encrypted: parsing and tokens on one thread, encryption on a second) or buffered appends and a hash index (plaintext), without fsync"
    ));
    t.notes.push(
        "reference figures were measured by this team on this class of machine (1M records, 100-byte values)".into(),
    );
    Ok(t)
}
