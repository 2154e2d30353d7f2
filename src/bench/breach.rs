//! Breach index: lookup latency of a random hash (half present, half absent) when the
//! index is cold (evicted from the page cache, where the OS allows it), warm (in the
//! page cache, first touch by a fresh map of this process) and hot (repeated), median and
//! p99: the rows of the "50 µs" article (800 µs / 30 µs / 3 µs).
//!
//! Without an index, one is built in a temporary directory from generated hashes.

use super::{BenchError, Column, Figure, Options, Rng, Section, Table, col};
use crate::breach::HashKind;
use crate::breach::build::{self, Source};
use crate::breach::format::Wide;
use crate::breach::index::Index;
use crate::progress::{NoProgress, Progress};
use std::hint::black_box;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

fn columns() -> Vec<Column> {
    vec![
        col("median_us", "median", "µs"),
        col("p99_us", "p99", "µs"),
        col("lookups", "lookups", "n"),
    ]
}

/// A random SHA-1-sized hash.
fn random_hash(rng: &mut Rng) -> Wide {
    Wide([rng.next(), rng.next(), rng.next() & !0xffff_ffff])
}

/// A generated dump, `HASH:COUNT` lines of sorted random SHA-1 hashes, read lazily.
struct Dump {
    hashes: Vec<Wide>,
    at: usize,
    line: Vec<u8>,
    pos: usize,
    rng: Rng,
}

impl Read for Dump {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            if self.pos == self.line.len() {
                let Some(h) = self.hashes.get(self.at) else {
                    break;
                };
                self.at += 1;
                self.line.clear();
                let mut hex = [0u8; 40];
                HashKind::Sha1.write_hex(h, &mut hex);
                self.line.extend_from_slice(&hex);
                self.line.push(b':');
                let mut b = itoa::Buffer::new();
                self.line
                    .extend_from_slice(b.format(1 + self.rng.next() % 1000).as_bytes());
                self.line.push(b'\n');
                self.pos = 0;
            }
            let take = (self.line.len() - self.pos).min(buf.len() - n);
            buf[n..n + take].copy_from_slice(&self.line[self.pos..self.pos + take]);
            self.pos += take;
            n += take;
        }
        Ok(n)
    }
}

/// Builds an index of `n` random hashes at `path`; returns the hashes' sample for
/// "present" queries.
fn generate(n: usize, path: &Path) -> Result<Vec<Wide>, BenchError> {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut hashes: Vec<Wide> = (0..n).map(|_| random_hash(&mut rng)).collect();
    hashes.sort_unstable_by_key(|h| h.0);
    hashes.dedup_by_key(|h| h.0);
    let step = (hashes.len() / 100_000).max(1);
    let sample: Vec<Wide> = hashes.iter().step_by(step).copied().collect();
    let mut out = std::fs::File::create(path).map_err(BenchError::Scratch)?;
    let mut dump = Dump {
        hashes,
        at: 0,
        line: Vec::new(),
        pos: 0,
        rng,
    };
    build::build(
        Source::Stream {
            reader: &mut dump,
            name: "generated".into(),
            size: None,
        },
        &mut out,
        build::Options::default(),
        path.parent().unwrap_or(Path::new(".")),
        &NoProgress,
    )
    .map_err(|e| BenchError::failed("breach", e))?;
    Ok(sample)
}

/// The cost of reading the clock twice, to subtract from single-lookup samples.
fn timer_overhead() -> f64 {
    let mut v: Vec<f64> = (0..1001)
        .map(|_| {
            let t = Instant::now();
            black_box(());
            t.elapsed().as_nanos() as f64
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn row(t: &mut Table, label: &str, samples_ns: Vec<f64>, reference: &str) {
    let n = samples_ns.len();
    let f = Figure::of_samples(samples_ns).scaled(1e-3);
    t.row(
        label,
        vec![
            Some(Figure { p99: None, ..f }),
            f.p99.map(|p| Figure {
                median: p,
                p99: None,
                ..f
            }),
            Some(Figure {
                median: n as f64,
                p99: None,
                ..f
            }),
        ],
        Some(reference),
    );
}

pub(super) fn run(options: &Options, progress: &dyn Progress) -> Result<Table, BenchError> {
    let s = options.scale;
    let mut t = Table::new(
        Section::Breach,
        "breach index: latency of one lookup of a random hash, cold, warm and hot (the \"50 µs\" article's rows)",
        columns(),
    );
    progress.set_total(4);
    let scratch = tempfile::Builder::new()
        .prefix("veilkit-bench-")
        .tempdir_in(&options.scratch)
        .map_err(BenchError::Scratch)?;
    let _tracked = crate::streams::track_temp_dir(scratch.path());
    let (path, mut present) = match &options.index {
        Some(p) => {
            let index = Index::open(p).map_err(|e| BenchError::Index(e.to_string()))?;
            let n = index.header().records.max(1);
            let step = (n / 100_000).max(1) as usize;
            let sample = index
                .iter()
                .step_by(step)
                .map(|r| r.map(|(h, _)| h))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| BenchError::Index(e.to_string()))?;
            t.notes.push(format!(
                "index {} ({} hashes)",
                p.display(),
                index.header().records
            ));
            (p.clone(), sample)
        }
        None => {
            let n = s.pick(2_000, 200_000, 2_000_000, 100_000_000);
            let path = scratch.path().join("bench.idx");
            let sample = generate(n, &path)?;
            t.notes.push(format!(
                "a temporary index of {n} generated SHA-1 hashes (--index INDEX to measure yours)"
            ));
            (path, sample)
        }
    };
    progress.advance(1);
    let index = Index::open(&path).map_err(|e| BenchError::Index(e.to_string()))?;
    let kind = index.header().params.kind;
    let width = kind.len();
    let mut rng = Rng(42);
    // Half present, half absent (random hashes of the index's kind).
    let mut queries: Vec<Wide> = Vec::new();
    let want = s.pick(200, 100_000, 1_000_000, 2_000_000);
    while queries.len() < want {
        let p = present[(rng.next() % present.len().max(1) as u64) as usize];
        queries.push(p);
        let mut h = random_hash(&mut rng);
        if width < 20 {
            h = Wide::from_be_prefix(&h.to_be_bytes()[..width]);
        }
        queries.push(h);
    }
    present.clear();
    let overhead = timer_overhead();

    // Cold: evicted from the page cache before each lookup, then a fresh map.
    let cold_n = s.pick(2, 20, 100, 200);
    let mut cold = Vec::new();
    if Index::evict_from_cache(&path) {
        for q in queries.iter().step_by(7).take(cold_n) {
            Index::evict_from_cache(&path);
            let fresh = Index::open(&path).map_err(|e| BenchError::Index(e.to_string()))?;
            let t0 = Instant::now();
            black_box(
                fresh
                    .lookup(q)
                    .map_err(|e| BenchError::Index(e.to_string()))?,
            );
            cold.push((t0.elapsed().as_nanos() as f64 - overhead).max(0.0));
        }
    }
    progress.advance(1);
    // Warm: the whole file in the page cache, a fresh map for each lookup.
    let mut sink = 0u64;
    let mut counts = vec![0u64; queries.len()];
    index
        .lookup_many(&queries, &mut counts)
        .map_err(|e| BenchError::Index(e.to_string()))?;
    if let Ok(mut f) = std::fs::File::open(&path) {
        // Read the file once so every page is cached (the lookups above touched some).
        let mut buf = vec![0u8; 1 << 20];
        while let Ok(n) = f.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink = sink.wrapping_add(u64::from(buf[0]));
        }
    }
    black_box(sink);
    let warm_n = s.pick(5, 200, 2_000, 5_000);
    let mut warm = Vec::new();
    for q in queries.iter().step_by(3).take(warm_n) {
        let fresh = Index::open(&path).map_err(|e| BenchError::Index(e.to_string()))?;
        let t0 = Instant::now();
        black_box(
            fresh
                .lookup(q)
                .map_err(|e| BenchError::Index(e.to_string()))?,
        );
        warm.push((t0.elapsed().as_nanos() as f64 - overhead).max(0.0));
    }
    progress.advance(1);
    // Hot: the same queries again through the one map that has touched them all.
    let mut hot = Vec::with_capacity(queries.len());
    for q in &queries {
        let t0 = Instant::now();
        black_box(
            index
                .lookup(q)
                .map_err(|e| BenchError::Index(e.to_string()))?,
        );
        hot.push((t0.elapsed().as_nanos() as f64 - overhead).max(0.0));
    }
    progress.advance(1);

    if cold.is_empty() {
        t.notes
            .push("cold: the index stayed in the page cache when asked to leave it (a memory file system, or an OS that cannot drop it); row left out: set TMPDIR to a disk-backed directory, or pass --index".into());
    } else {
        let (c, w) = (
            Figure::of_samples(cold.clone()).median,
            Figure::of_samples(warm.clone()).median,
        );
        row(&mut t, "cold (evicted, fresh map)", cold, "article: 800 µs");
        if c < 2.0 * w {
            t.notes.push(
                "cold is close to warm: the OS kept the index cached (a memory file system?); set TMPDIR to a disk-backed directory, or pass --index".into(),
            );
        }
    }
    row(
        &mut t,
        "warm (page cache, first touch)",
        warm,
        "article: 30 µs",
    );
    row(&mut t, "hot (repeated)", hot, "article: 3 µs");
    t.notes.push(format!(
        "one lookup per sample, half present and half absent; the map is opened outside the timed region; {overhead:.0} ns of clock overhead subtracted"
    ));
    Ok(t)
}
