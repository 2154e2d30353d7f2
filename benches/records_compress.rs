//! Compressed record files (issue: records compression): size, seal rate and random gets
//! by key, uncompressed and with `--compress zstd` (levels 3 and 9) side by side in one
//! run (rounds interleaved, medians and ranges), on two workloads:
//!
//! - 1M records (100K with `--quick`) of 8-byte keys and 100-byte values of realistic
//!   text (a person's name, e-mail address and note), TSV, keyed by the first field:
//!   Tkrzw's workload with text instead of random letters;
//! - a 200,000-row CSV of people (`id,name,email,note`, about 95 bytes a row), keyed by id.
//!
//! Each workload's line for `zstd -3 of the whole input` is the size reference: Zstandard
//! of the whole input at once, and each sealed file's size as a multiple of it.
//!
//! Gets run in-process on a freshly opened file (first pass: every page read, decrypted
//! and decompressed once, then cached), one thread. Tkrzw's published table for the same
//! 1M-record shape (its own semi-random alphabet values) is printed beside.
//!
//! `cargo bench --bench records_compress` (`-- --quick` for a short run)

use std::fs::File;
use std::path::Path;
use std::time::Instant;
use veilkit::bench::records::{access_log, people_csv, people_input, people_jsonl};
use veilkit::keys::Keyring;
use veilkit::progress::NoProgress;
use veilkit::records::file::{RecordFile, Settings, seal};
use veilkit::records::format::{InputFormat, Unlock};
use veilkit::records::input::{KeyField, parse};

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn range(v: &[f64]) -> (f64, f64) {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(0.0, f64::max);
    (lo, hi)
}

struct Workload {
    name: &'static str,
    data: Vec<u8>,
    format: InputFormat,
    header: bool,
    keys: Vec<Vec<u8>>,
    records: usize,
}

fn seal_once(w: &Workload, mode: &Mode, path: &Path, ring: &Keyring) -> f64 {
    let start = Instant::now();
    let key = match w.format {
        InputFormat::Jsonl => KeyField::Name("id".into()),
        _ => KeyField::Number(1),
    };
    let (prefix, mut recs) = parse(&w.data, w.format, Some(&key), w.header, 1).unwrap();
    let mut f = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .unwrap();
    let settings = Settings {
        format: w.format,
        header_row: w.header,
        key_field: key.to_text(),
        compression: mode.level,
        dictionary: mode.dictionary,
        ..Settings::default()
    };
    seal(
        &mut recs,
        prefix,
        &settings,
        &[Unlock::Keyring(ring)],
        &mut f,
        &NoProgress,
    )
    .unwrap();
    start.elapsed().as_secs_f64()
}

/// How a file is sealed.
struct Mode {
    label: &'static str,
    level: Option<i32>,
    dictionary: bool,
}

fn gets(path: &Path, ring: &Keyring, keys: &[Vec<u8>]) -> f64 {
    let mut f = RecordFile::open(path, &[Unlock::Keyring(ring)], false).unwrap();
    let mut buf = Vec::with_capacity(256);
    let start = Instant::now();
    for k in keys {
        buf.clear();
        assert!(f.get_into(k, &mut buf).unwrap());
    }
    keys.len() as f64 / start.elapsed().as_secs_f64()
}

/// `records get --keys`' path: every key in one batch from a fresh open.
fn batch_gets(path: &Path, ring: &Keyring, keys: &[Vec<u8>]) -> f64 {
    let mut f = RecordFile::open(path, &[Unlock::Keyring(ring)], false).unwrap();
    let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let mut found = 0usize;
    let start = Instant::now();
    f.get_batch(&keys, |r| {
        found += usize::from(r.is_some());
        Ok::<(), ()>(())
    })
    .unwrap();
    let rate = keys.len() as f64 / start.elapsed().as_secs_f64();
    assert_eq!(found, keys.len());
    rate
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    let n = if quick { 100_000 } else { 1_000_000 };
    let rounds = if quick { 1 } else { 5 };
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let ring = Keyring::generate().unwrap();
    let mut rng = 0x1234_5678_9abc_def1u64;
    let mut draw = |n: usize, count: usize, width: bool| -> Vec<Vec<u8>> {
        (0..count)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let k = rng % n as u64;
                if width {
                    format!("{k:08}").into_bytes()
                } else {
                    (k + 1).to_string().into_bytes()
                }
            })
            .collect()
    };
    let workloads = [
        Workload {
            name: "100-byte text values",
            data: people_input(n, 100),
            format: InputFormat::Tsv,
            header: false,
            keys: draw(n, n, true),
            records: n,
        },
        Workload {
            name: "people CSV, 200K rows",
            data: people_csv(200_000),
            format: InputFormat::Csv,
            header: true,
            keys: draw(200_000, 200_000, false),
            records: 200_000,
        },
        Workload {
            name: "people JSON lines, 200K",
            data: people_jsonl(200_000),
            format: InputFormat::Jsonl,
            header: false,
            keys: draw(200_000, 200_000, false),
            records: 200_000,
        },
        Workload {
            name: "access log, 200K lines",
            data: access_log(200_000),
            format: InputFormat::Tsv,
            header: false,
            keys: Vec::new(),
            records: 200_000,
        },
    ];
    let modes = [
        ("none", None, false),
        ("zstd:3", Some(3), false),
        ("zstd:3 +dict", Some(3), true),
        ("zstd:9 +dict", Some(9), true),
    ]
    .map(|(label, level, dictionary)| Mode {
        label,
        level,
        dictionary,
    });
    println!(
        "\ncompressed record files: {rounds} interleaved rounds, medians [ranges]; gets on one thread, sealing on two"
    );
    println!(
        "{:<24} {:<12} {:>10} {:>22} {:>24} {:>24}",
        "workload",
        "pages",
        "size/input",
        "seal (K records/s)",
        "random get (K/s)",
        "batch get (K/s)"
    );
    let mut workloads = workloads;
    for w in &mut workloads {
        if w.keys.is_empty() {
            // Keys of the log: its lines' request ids, in a shuffled order.
            let ids: Vec<Vec<u8>> = w
                .data
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| l[..16].to_vec())
                .collect();
            let picks = draw(ids.len(), ids.len(), false);
            w.keys = picks
                .iter()
                .map(|p| {
                    let i: usize = std::str::from_utf8(p).unwrap().parse().unwrap();
                    ids[i - 1].clone()
                })
                .collect();
        }
    }
    // `ONLY=TEXT` runs the workloads whose name holds TEXT.
    let only = std::env::var("ONLY").unwrap_or_default();
    for w in workloads.iter().filter(|w| w.name.contains(only.as_str())) {
        let mut seal_rates = vec![Vec::new(); modes.len()];
        let mut get_rates = vec![Vec::new(); modes.len()];
        let mut batch_rates = vec![Vec::new(); modes.len()];
        let mut sizes = vec![0u64; modes.len()];
        for _ in 0..rounds {
            for (m, mode) in modes.iter().enumerate() {
                let path = dir.path().join(format!("{m}.vkr"));
                let secs = seal_once(w, mode, &path, &ring);
                seal_rates[m].push(w.records as f64 / secs / 1e3);
                sizes[m] = std::fs::metadata(&path).unwrap().len();
                get_rates[m].push(gets(&path, &ring, &w.keys) / 1e3);
                batch_rates[m].push(batch_gets(&path, &ring, &w.keys) / 1e3);
            }
        }
        // The reference for size: Zstandard of the whole input at once (`zstd -3`).
        let whole = zstd::bulk::compress(&w.data, 3).unwrap().len() as f64;
        println!(
            "{:<24} {:<12} {:>9.3}x (the sealed files: {})",
            w.name,
            "zstd -3 of the whole input",
            whole / w.data.len() as f64,
            modes
                .iter()
                .enumerate()
                .map(|(m, mode)| format!("{} {:.2}x of it", mode.label, sizes[m] as f64 / whole))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for (m, mode) in modes.iter().enumerate() {
            let (slo, shi) = range(&seal_rates[m]);
            let (glo, ghi) = range(&get_rates[m]);
            let (blo, bhi) = range(&batch_rates[m]);
            println!(
                "{:<24} {:<12} {:>9.3}x {:>8.0} [{:>4.0}-{:<4.0}] {:>10.0} [{:>4.0}-{:<4.0}] {:>10.0} [{:>4.0}-{:<4.0}]",
                w.name,
                mode.label,
                sizes[m] as f64 / w.data.len() as f64,
                median(&seal_rates[m]),
                slo,
                shi,
                median(&get_rates[m]),
                glo,
                ghi,
                median(&batch_rates[m]),
                blo,
                bhi
            );
        }
    }
    println!(
        "\nTkrzw's published table (doc/index.xhtml, 1M records, 8-byte keys, 100-byte semi-random\n\
         alphabet values; its machine): compression and encryption are one record_comp mode\n\
         each, never both at once.\n\
         {:<24} {:>12} {:>12} {:>10}\n\
         {:<24} {:>12} {:>12} {:>10}\n\
         {:<24} {:>12} {:>12} {:>10}\n\
         {:<24} {:>12} {:>12} {:>10}\n\
         {:<24} {:>12} {:>12} {:>10}",
        "TreeDBM",
        "sets/s",
        "gets/s",
        "MB",
        "raw",
        "1,399,361",
        "1,658,892",
        "106.49",
        "ZStd",
        "1,040,141",
        "1,159,513",
        "14.84",
        "AES (no integrity)",
        "1,001,877",
        "1,045,518",
        "107.29",
        "HashDBM ZStd (values)",
        "293,260",
        "2,054,519",
        "97.44",
    );
}
