//! Breach index benchmarks (issue: breach index). Figures for the closing note:
//!
//! - build throughput (library, into the page cache: no final sync, as the Go peer's
//!   figure has none), median of 3 builds;
//! - hot random lookups, half present and half absent, in-process: latency (each lookup
//!   chosen by the previous answer, so they cannot overlap) and batch throughput;
//! - warm lookups (index in the page cache, first touch by a fresh map) and cold
//!   lookups (index evicted from the page cache), median and p99;
//! - the query stream (10M hashes, and 10M passwords with SHA-1) in-process.
//!
//! Input: the dump named by `VEILKIT_BENCH_DUMP` (a file written by the team's
//! generator, e.g. `python3 ../shared/tools/breach_dump.py -n 100000000 -o data/hibp-100m.txt`),
//! else a dump of `VEILKIT_BENCH_N` (default 10,000,000) uniform random hashes generated
//! here. The index is built into `target/bench-data/`.
//!
//! `cargo bench --bench breach`

use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use veilkit::breach::HashKind;
use veilkit::breach::build::{self, Options, Source};
use veilkit::breach::format::Wide;
use veilkit::breach::index::Index;
use veilkit::breach::query::{self, Input};
use veilkit::breach::tier::AnyIndex;
use veilkit::progress::NoProgress;

mod common;
use common::{Rng, median};

fn dump_path(dir: &Path) -> PathBuf {
    if let Some(p) = std::env::var_os("VEILKIT_BENCH_DUMP") {
        return PathBuf::from(p);
    }
    let n = common::random_hashes_wanted();
    let path = dir.join(format!("random-{n}.txt"));
    if !path.exists() {
        eprintln!("generating {n} random hashes into {}", path.display());
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        common::write_random_dump(n, &mut out);
    }
    path
}

fn build_index(dump: &Path, out: &Path) -> f64 {
    let mut f = std::fs::File::create(out).unwrap();
    let mut input = std::fs::File::open(dump).unwrap();
    let t = Instant::now();
    let s = build::build(
        Source::Stream {
            reader: &mut input,
            name: "dump".into(),
            size: None,
        },
        &mut f,
        Options::default(),
        out.parent().unwrap(),
        &NoProgress,
    )
    .unwrap();
    let secs = t.elapsed().as_secs_f64();
    s.lines as f64 / secs
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p) as usize]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dump_path(&dir);
    let idx = dir.join("bench.idx");

    // Build throughput.
    let runs = if quick { 1 } else { 3 };
    let mut rates: Vec<f64> = (0..runs).map(|_| build_index(&dump, &idx)).collect();
    let index = Index::open(&idx).unwrap();
    let h = index.header().clone();
    println!(
        "\nindex: {} hashes, {} bytes ({:.2} bytes/hash), table {} bytes",
        h.records,
        h.file_len,
        h.file_len as f64 / h.records as f64,
        h.table_at.1
    );
    println!(
        "build (library, no final sync): median {:.1}M lines/s over {runs} runs (target 25M; Go peer ~11M)",
        median(&mut rates) / 1e6
    );

    // Query hashes: half present (sampled from the dump), half absent (random).
    let n_q = if quick { 200_000 } else { 2_000_000 };
    let mut rng = Rng(42);
    let present: Vec<Wide> = index
        .iter()
        .step_by((h.records as usize / (n_q / 2)).max(1))
        .take(n_q / 2)
        .map(|r| r.unwrap().0)
        .collect();
    let mut queries: Vec<Wide> = present.clone();
    while queries.len() < n_q {
        queries.push(Wide([rng.next(), rng.next(), rng.next() & !0xffff_ffff]));
    }
    // Shuffle.
    for i in (1..queries.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        queries.swap(i, j);
    }
    // Warm the page cache and this process's map.
    let mut counts = vec![0u64; queries.len()];
    index.lookup_many(&queries, &mut counts).unwrap();
    let found = counts.iter().filter(|&&c| c > 0).count();
    println!("queries: {} ({} present)", queries.len(), found);

    // Hot latency: each lookup chosen by the previous answer (no overlap).
    let mut samples = Vec::new();
    for _round in 0..if quick { 3 } else { 11 } {
        let t = Instant::now();
        let mut k = 0usize;
        for _ in 0..queries.len() {
            let c = index.lookup(&queries[k]).unwrap();
            k = (k + 1 + (c as usize & 1)) % queries.len();
        }
        black_box(k);
        samples.push(t.elapsed().as_nanos() as f64 / queries.len() as f64);
    }
    println!(
        "hot lookup latency (dependent): median {:.0} ns (target <= 250; Go peer 370 ns at 100M)",
        median(&mut samples)
    );

    // Independent single lookups in a loop (what a Go benchmark loop measures): the
    // processor overlaps consecutive lookups a little.
    let mut samples = Vec::new();
    for _ in 0..if quick { 3 } else { 11 } {
        let t = Instant::now();
        let mut sum = 0u64;
        for q in &queries {
            sum = sum.wrapping_add(index.lookup(q).unwrap());
        }
        black_box(sum);
        samples.push(t.elapsed().as_nanos() as f64 / queries.len() as f64);
    }
    println!(
        "hot lookups, independent single calls in a loop: median {:.0} ns per lookup",
        median(&mut samples)
    );

    // One random byte of the records per step, dependent: the memory latency floor of
    // any lookup into this map, measured in the same run.
    let (rec_off, rec_len) = (h.records_at.0 as usize, h.records_at.1 as usize);
    let floor = common::memory_floor_ns(
        &index.bytes()[rec_off..rec_off + rec_len],
        if quick { 3 } else { 11 },
    );
    println!(
        "memory floor: one dependent random read of the mapped records: median {:.0} ns",
        floor
    );

    // Hot throughput, independent lookups in batches.
    let mut samples = Vec::new();
    for _ in 0..if quick { 3 } else { 11 } {
        let t = Instant::now();
        index.lookup_many(&queries, &mut counts).unwrap();
        samples.push(t.elapsed().as_nanos() as f64 / queries.len() as f64);
    }
    println!(
        "hot lookup throughput (batches): median {:.0} ns per hash, {:.1}M/s",
        median(&mut samples),
        1e3 / median(&mut samples)
    );

    // Warm: in the page cache, first touch by this process (a fresh map each time).
    let mut warm = Vec::new();
    for q in queries.iter().take(if quick { 200 } else { 2000 }) {
        let t = Instant::now();
        let fresh = Index::open(&idx).unwrap();
        black_box(fresh.lookup(q).unwrap());
        warm.push(t.elapsed().as_nanos() as f64 / 1e3);
    }
    println!(
        "warm lookup (open + first touch, in page cache): median {:.1} µs, p99 {:.1} µs (article: 30 µs)",
        median(&mut warm),
        pct(&mut warm, 0.99)
    );

    // Cold: evicted from the page cache before each lookup.
    let mut cold = Vec::new();
    let evictable = Index::evict_from_cache(&idx);
    if evictable {
        for q in queries.iter().take(if quick { 20 } else { 200 }) {
            Index::evict_from_cache(&idx);
            let t = Instant::now();
            let fresh = Index::open(&idx).unwrap();
            black_box(fresh.lookup(q).unwrap());
            cold.push(t.elapsed().as_nanos() as f64 / 1e3);
        }
        println!(
            "cold lookup (evicted from page cache, open + lookup): median {:.0} µs, p99 {:.0} µs (target <= 100 µs; Go peer 4-7 ms)",
            median(&mut cold),
            pct(&mut cold, 0.99)
        );
    } else {
        println!("cold lookup: this OS cannot evict the index from its page cache");
    }
    // Leave the index hot again for what follows.
    index.lookup_many(&queries, &mut counts).unwrap();

    // The query stream, in-process: hex hashes in, HASH:COUNT out.
    let index = AnyIndex::Exact(index);
    let n_s = if quick { 500_000 } else { 10_000_000 };
    let mut text = Vec::with_capacity(n_s * 41);
    let mut hex = [0u8; 40];
    for i in 0..n_s {
        HashKind::Sha1.write_hex(&queries[i % queries.len()], &mut hex);
        text.extend_from_slice(&hex);
        text.push(b'\n');
    }
    let mut sink = Vec::with_capacity(n_s * 50);
    let mut samples = Vec::new();
    for _ in 0..if quick { 1 } else { 5 } {
        sink.clear();
        let t = Instant::now();
        query::run(
            query::Source::Index(&index),
            Input::Hashes,
            b'\n',
            &mut &text[..],
            &mut sink,
        )
        .unwrap();
        samples.push(n_s as f64 / t.elapsed().as_secs_f64());
    }
    println!(
        "query stream, hashes (in-process): median {:.1}M/s (target >= 4M/s end to end)",
        median(&mut samples) / 1e6
    );
    let mut pw = Vec::with_capacity(n_s * 10);
    for i in 0..n_s {
        writeln!(pw, "pw{}x{}", i, i % 977).unwrap();
    }
    let mut samples = Vec::new();
    for _ in 0..if quick { 1 } else { 5 } {
        sink.clear();
        let t = Instant::now();
        query::run(
            query::Source::Index(&index),
            Input::Passwords,
            b'\n',
            &mut &pw[..],
            &mut sink,
        )
        .unwrap();
        samples.push(n_s as f64 / t.elapsed().as_secs_f64());
    }
    println!(
        "query stream, passwords with SHA-1 (in-process): median {:.1}M/s (target >= 3M/s end to end)",
        median(&mut samples) / 1e6
    );
}
