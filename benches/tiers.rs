//! Compact and filter tiers (issue: breach index at full scale). Figures for the
//! closing note, all in one run beside the exact index they are built from:
//!
//! - build rate of each tier from the exact index (median of 3, into the page cache, no
//!   final sync), bytes per hash, measured false positive rate;
//! - the first batch of a fresh open (lookup blocks verified as first read) beside the
//!   same batch with every block verified;
//! - hot lookup latency, dependent (each lookup chosen by the previous answer, so they
//!   cannot overlap), and independent single calls in a loop, half present half absent:
//!   exact (mapped), compact (mapped and in memory), filter and filter-small (mapped and
//!   in memory), and an exact index behind its in-memory filter (`--filter`).
//!
//! Input: the exact index named by `VEILKIT_BENCH_INDEX` (e.g. `data/hibp-100m.idx`,
//! built from the team generator's 100M-line dump), else one of `VEILKIT_BENCH_N`
//! (default 10,000,000) uniform random hashes generated here.
//!
//! `VEILKIT_BENCH_INDEX=data/hibp-100m.idx cargo bench --bench tiers`
//! (`VEILKIT_BENCH_REUSE=1`: lookups only, with the tiers the last run built;
//! `VEILKIT_BENCH_ONLY=compact`: only the timings whose names contain "compact").
//!
//! `VEILKIT_BENCH_QUERIES_OUT=FILE` also writes the query set (2,000,000 hashes, half
//! present, in the order they are looked up) as raw big-endian hashes, 20 or 16 bytes
//! each, so that another tool's lookups can be timed on exactly the same queries (the
//! closing note of the breach issue compares the Go peer this way).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;
use veilkit::breach::build::{self, Options, Source};
use veilkit::breach::compact::{self, Compact};
use veilkit::breach::filter::{self, Filter};
use veilkit::breach::format::Wide;
use veilkit::breach::index::Index;
use veilkit::breach::tier::AnyIndex;
use veilkit::progress::NoProgress;

mod common;
use common::{Rng, median};

fn exact_index(dir: &Path) -> PathBuf {
    if let Some(p) = std::env::var_os("VEILKIT_BENCH_INDEX") {
        return PathBuf::from(p);
    }
    let n = common::random_hashes_wanted();
    let path = dir.join(format!("tiers-random-{n}.idx"));
    if !path.exists() {
        eprintln!(
            "building an index of {n} random hashes into {}",
            path.display()
        );
        let mut text = Vec::with_capacity(n as usize * 46);
        common::write_random_dump(n, &mut text);
        let mut f = std::fs::File::create(&path).unwrap();
        build::build(
            Source::Stream {
                reader: &mut &text[..],
                name: "dump".into(),
                size: None,
            },
            &mut f,
            Options::default(),
            dir,
            &NoProgress,
        )
        .unwrap();
    }
    path
}

/// Median ns per lookup: dependent chain, and independent calls.
/// Whether a timing named `name` runs: `VEILKIT_BENCH_ONLY=TEXT` keeps those whose name
/// contains TEXT (repeated runs of one figure), default all.
fn wanted(name: &str) -> bool {
    std::env::var("VEILKIT_BENCH_ONLY").map_or(true, |only| name.contains(&only))
}

fn latency(name: &str, queries: &[Wide], rounds: usize, lookup: impl Fn(&Wide) -> u64) {
    if !wanted(name) {
        return;
    }
    let mut dep = Vec::new();
    let mut ind = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        let mut k = 0usize;
        for _ in 0..queries.len() {
            let c = lookup(&queries[k]);
            k = (k + 1 + (c as usize & 1)) % queries.len();
        }
        black_box(k);
        dep.push(t.elapsed().as_nanos() as f64 / queries.len() as f64);
        let t = Instant::now();
        let mut sum = 0u64;
        for q in queries {
            sum = sum.wrapping_add(lookup(q));
        }
        black_box(sum);
        ind.push(t.elapsed().as_nanos() as f64 / queries.len() as f64);
    }
    println!(
        "{name:<34} dependent median {:>4.0} ns   independent median {:>4.0} ns",
        median(&mut dep),
        median(&mut ind)
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let idx = exact_index(&dir);
    let index = Index::open(&idx).unwrap();
    let n = index.header().records;
    println!(
        "\nexact index {}: {n} hashes, {:.2} bytes/hash",
        idx.display(),
        index.header().file_len as f64 / n as f64
    );

    // Build each tier (median of 3 builds).
    let runs = if quick { 1 } else { 3 };
    let mut paths = Vec::new();
    let reuse = std::env::var_os("VEILKIT_BENCH_REUSE").is_some();
    for (name, tier) in [("compact", 0), ("filter", 1), ("filter-small", 2)] {
        let path = dir.join(format!("tiers.{name}"));
        if reuse && AnyIndex::open(&path).is_ok() {
            println!("{name}: reusing {} (VEILKIT_BENCH_REUSE)", path.display());
            paths.push(path);
            continue;
        }
        let mut rates = Vec::new();
        let mut size = 0;
        for _ in 0..runs {
            let mut f = std::fs::File::create(&path).unwrap();
            let t = Instant::now();
            let h = match tier {
                0 => compact::build(&index, &mut f, &NoProgress),
                1 => filter::build(&index, false, 2, &mut f, &NoProgress),
                _ => filter::build(&index, true, 2, &mut f, &NoProgress),
            }
            .unwrap();
            rates.push(n as f64 / t.elapsed().as_secs_f64());
            size = h.file_len;
        }
        println!(
            "build {name:<13} median {:>5.1}M hashes/s over {runs} runs, {:.3} bytes/hash{}",
            median(&mut rates) / 1e6,
            size as f64 / n as f64,
            if tier > 0 { " (target >= 20M/s)" } else { "" }
        );
        paths.push(path);
    }

    // Queries: half present (spread over the index), half absent (random).
    let n_q = if quick { 200_000 } else { 2_000_000 };
    let mut rng = Rng(42);
    let mut queries: Vec<Wide> = index
        .iter()
        .step_by((n as usize / (n_q / 2)).max(1))
        .take(n_q / 2)
        .map(|r| r.unwrap().0)
        .collect();
    let present = queries.len();
    while queries.len() < n_q {
        queries.push(Wide([rng.next(), rng.next(), rng.next() & !0xffff_ffff]));
    }
    for i in (1..queries.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        queries.swap(i, j);
    }

    if let Some(out) = std::env::var_os("VEILKIT_BENCH_QUERIES_OUT") {
        let width = index.kind().len();
        let bytes: Vec<u8> = queries
            .iter()
            .flat_map(|q| q.to_be_bytes().into_iter().take(width))
            .collect();
        std::fs::write(&out, bytes).unwrap();
        println!("queries written to {}", PathBuf::from(out).display());
    }

    let compact_map = Compact::open(&paths[0]).unwrap();
    let compact_mem = Compact::open_in_memory(&paths[0]).unwrap();
    let filter_map = Filter::open(&paths[1]).unwrap();
    let filter_mem = Filter::open_in_memory(&paths[1]).unwrap();
    let small_map = Filter::open(&paths[2]).unwrap();
    let small_mem = Filter::open_in_memory(&paths[2]).unwrap();
    let paired =
        AnyIndex::filtered(AnyIndex::Exact(Index::open(&idx).unwrap()), &paths[1]).unwrap();

    // False positives on absent hashes, and no false negatives.
    let absent: Vec<Wide> = (0..if quick { 1_000_000 } else { 10_000_000 })
        .map(|_| Wide([rng.next(), rng.next(), 0]))
        .collect();
    for (name, f) in [("filter", &filter_mem), ("filter-small", &small_mem)] {
        let fp = absent.iter().filter(|h| f.contains(h).unwrap()).count();
        println!(
            "{name:<13} false positives: {fp} of {} absent hashes ({:.5}%; stated {:.5}%)",
            absent.len(),
            fp as f64 * 100.0 / absent.len() as f64,
            f.false_positive_rate() * 100.0
        );
    }
    let fp = absent
        .iter()
        .take(1_000_000)
        .filter(|h| compact_mem.lookup(h).unwrap() > 0)
        .count();
    println!(
        "compact false positives: {fp} of 1000000 absent hashes (stated rate {:.1e})",
        compact_mem.false_positive_rate()
    );
    let mut exact_counts = vec![0; queries.len()];
    index.lookup_many(&queries, &mut exact_counts).unwrap();
    let mut c = vec![0; queries.len()];
    compact_mem.lookup_many(&queries, &mut c).unwrap();
    assert!(
        c.iter().zip(&exact_counts).all(|(a, b)| a >= b),
        "compact lost a count"
    );
    filter_map.contains_many(&queries, &mut c).unwrap();
    assert!(
        c.iter().zip(&exact_counts).all(|(a, b)| *b == 0 || *a == 1),
        "filter false negative"
    );
    println!("queries: {} ({present} present)", queries.len());

    // Hot latency, everything warmed first.
    let rounds = if quick { 3 } else { 11 };
    latency("exact (mapped, reference)", &queries, rounds, |q| {
        index.lookup(q).unwrap()
    });
    latency("exact (mapped, scan)", &queries, rounds, |q| {
        index.lookup_scan(q).unwrap()
    });
    let exact_mem = Index::open_in_memory(&idx).unwrap();
    latency("exact (in memory)", &queries, rounds, |q| {
        exact_mem.lookup(q).unwrap()
    });
    drop(exact_mem);
    latency("compact (mapped)", &queries, rounds, |q| {
        compact_map.lookup(q).unwrap()
    });
    latency("compact (in memory)", &queries, rounds, |q| {
        compact_mem.lookup(q).unwrap()
    });
    latency("compact (in memory, scan)", &queries, rounds, |q| {
        compact_mem.lookup_scan(q).unwrap()
    });
    latency("compact (mapped, scan)", &queries, rounds, |q| {
        compact_map.lookup_scan(q).unwrap()
    });
    latency("filter (mapped)", &queries, rounds, |q| {
        u64::from(filter_map.contains(q).unwrap())
    });
    latency("filter (in memory)", &queries, rounds, |q| {
        u64::from(filter_mem.contains(q).unwrap())
    });
    latency("filter-small (mapped)", &queries, rounds, |q| {
        u64::from(small_map.contains(q).unwrap())
    });
    latency("filter-small (in memory)", &queries, rounds, |q| {
        u64::from(small_mem.contains(q).unwrap())
    });
    latency("exact behind filter (--filter)", &queries, rounds, |q| {
        paired.lookup(q).unwrap()
    });
    // Batches (what `query` does): independent lookups with their memory accesses
    // overlapped.
    let batch = |name: &str, f: &dyn Fn(&[Wide], &mut [u64])| {
        if !wanted(name) {
            return;
        }
        let mut out = vec![0u64; queries.len()];
        let mut v = Vec::new();
        for _ in 0..rounds {
            let t = Instant::now();
            f(&queries, &mut out);
            v.push(t.elapsed().as_nanos() as f64 / queries.len() as f64);
        }
        black_box(&out);
        println!(
            "{name:<34} batch median {:>4.0} ns per hash",
            median(&mut v)
        );
    };
    batch("exact (mapped, reference)", &|q, o| {
        index.lookup_many(q, o).unwrap()
    });
    batch("compact (mapped)", &|q, o| {
        compact_map.lookup_many(q, o).unwrap()
    });
    batch("filter (mapped)", &|q, o| {
        filter_map.contains_many(q, o).unwrap()
    });

    // What verifying the lookup blocks costs a fresh open (docs/BREACH-FORMAT.md, "What
    // lookups check"): the first batch of the queries on a newly opened index, whose
    // blocks it verifies as it first reads them, beside the same batch once they are
    // (the batch timings above), and the same first batch after a whole verification.
    if wanted("first batch") {
        let mut out = vec![0u64; queries.len()];
        let mut cold = Vec::new();
        let mut verified = Vec::new();
        for _ in 0..rounds.min(5) {
            let fresh = Index::open(&idx).unwrap();
            let t = Instant::now();
            fresh.lookup_many(&queries, &mut out).unwrap();
            cold.push(t.elapsed().as_nanos() as f64 / queries.len() as f64);
            let fresh = Index::open(&idx).unwrap();
            fresh.verify(&NoProgress).unwrap();
            let t = Instant::now();
            fresh.lookup_many(&queries, &mut out).unwrap();
            verified.push(t.elapsed().as_nanos() as f64 / queries.len() as f64);
        }
        black_box(&out);
        println!(
            "exact (mapped), first batch of a fresh open: median {:.0} ns per hash; after a whole verification {:.0} ns",
            median(&mut cold),
            median(&mut verified)
        );
    }

    // The memory floor: one dependent random read per step in a buffer the size of the
    // compact index (heap memory, normal pages), in the same run.
    let buf = std::fs::read(&paths[0]).unwrap();
    let floor = common::memory_floor_ns(&buf, rounds);
    println!(
        "memory floor: one dependent random read in {} MB: median {:.0} ns",
        buf.len() >> 20,
        floor
    );
    drop(buf);

    // The layout's bucket size, side by side (VEILKIT_BENCH_BUCKETS=1 to run).
    if std::env::var_os("VEILKIT_BENCH_BUCKETS").is_some() {
        let base = compact::bucket_bits(n);
        for b in [base.saturating_sub(3), base, base + 2, base + 3] {
            let p = dir.join("tiers.compact-b");
            let mut f = std::fs::File::create(&p).unwrap();
            compact::build_with_bucket_bits(&index, b, &mut f, &NoProgress).unwrap();
            let c = Compact::open_in_memory(&p).unwrap();
            latency(
                &format!("compact in memory, {b} bucket bits"),
                &queries,
                rounds,
                |q| c.lookup(q).unwrap(),
            );
        }
    }
    let absent_q: Vec<Wide> = absent.iter().take(n_q).copied().collect();
    latency("exact behind filter, absent only", &absent_q, rounds, |q| {
        paired.lookup(q).unwrap()
    });
}
