//! One-off lookups from a script (issue: breach index): a fresh
//! `veilkit breach query -i INDEX HASH` process, index in the page cache, against
//! `look HASH DUMP` (binary search of the sorted text dump, the usual shell answer), in
//! one run, interleaved, wall time from spawn to exit, medians.
//!
//! Binaries: the dynamically linked release build (`CARGO_BIN_EXE_veilkit`) and, when it
//! exists, the statically linked build as shipped (`cargo build-static`, found at
//! `target/x86_64-unknown-linux-gnu/release/veilkit`, or named by
//! `VEILKIT_BENCH_STATIC_BIN`). Data: `VEILKIT_BENCH_DUMP` (a sorted dump, e.g. the
//! team generator's `data/hibp-100m.txt`) with `VEILKIT_BENCH_INDEX` (its index); else
//! a dump of `VEILKIT_BENCH_N` random hashes generated and indexed here.
//!
//! A baseline (an earlier build of veilkit and the index it built, e.g. of the previous
//! format) runs beside them in the same loop when `VEILKIT_BENCH_BASELINE_BIN` and
//! `VEILKIT_BENCH_BASELINE_INDEX` name them.
//!
//! `cargo build-static && VEILKIT_BENCH_DUMP=data/hibp-100m.txt VEILKIT_BENCH_INDEX=data/hibp-100m.idx cargo bench --bench oneshot`

use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

mod common;
use common::{Rng, median};

/// The dump and its index: given, or generated here.
fn data(dir: &Path) -> (PathBuf, PathBuf) {
    if let (Some(d), Some(i)) = (
        std::env::var_os("VEILKIT_BENCH_DUMP"),
        std::env::var_os("VEILKIT_BENCH_INDEX"),
    ) {
        return (PathBuf::from(d), PathBuf::from(i));
    }
    let n = common::random_hashes_wanted();
    let dump = dir.join(format!("oneshot-{n}.txt"));
    let index = dir.join(format!("oneshot-{n}.idx"));
    if !index.exists() {
        eprintln!("generating {n} random hashes into {}", dump.display());
        let mut out = std::io::BufWriter::new(std::fs::File::create(&dump).unwrap());
        common::write_random_dump(n, &mut out);
        drop(out);
        let ok = Command::new(env!("CARGO_BIN_EXE_veilkit"))
            .args(["breach", "build", "--quiet", "--force", "-o"])
            .arg(&index)
            .arg(&dump)
            .status()
            .unwrap();
        assert!(ok.success(), "breach build failed");
    }
    (dump, index)
}

/// `k` hashes of the dump (lines at random offsets) and `k` random ones.
fn queries(dump: &Path, k: usize) -> Vec<String> {
    let mut rng = Rng(7);
    let mut f = BufReader::new(std::fs::File::open(dump).unwrap());
    let len = f.get_ref().metadata().unwrap().len();
    let mut out = Vec::new();
    while out.len() < k {
        f.seek(SeekFrom::Start(rng.next() % len)).unwrap();
        let mut line = String::new();
        f.read_line(&mut line).unwrap(); // the rest of a line
        line.clear();
        if f.read_line(&mut line).unwrap() > 40 {
            out.push(line[..40].to_string());
        }
    }
    for _ in 0..k {
        out.push(format!(
            "{:016X}{:016X}{:08X}",
            rng.next(),
            rng.next(),
            rng.next() as u32
        ));
    }
    out
}

fn run(program: &Path, args: &[&str]) -> (f64, String) {
    let t = Instant::now();
    let out = Command::new(program)
        .args(args)
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let us = t.elapsed().as_secs_f64() * 1e6;
    (us, String::from_utf8_lossy(&out.stdout).into_owned())
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let (dump, index) = data(&dir);
    let (dump_s, index_s) = (dump.to_str().unwrap(), index.to_str().unwrap());
    // Warm the page cache: both files, whole.
    for p in [&dump, &index] {
        std::io::copy(&mut std::fs::File::open(p).unwrap(), &mut std::io::sink()).unwrap();
    }

    // (name, binary, index it reads)
    let mut contestants: Vec<(String, PathBuf, String)> = vec![(
        "veilkit (dynamically linked)".into(),
        PathBuf::from(env!("CARGO_BIN_EXE_veilkit")),
        index_s.to_string(),
    )];
    let static_bin = std::env::var_os("VEILKIT_BENCH_STATIC_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/x86_64-unknown-linux-gnu/release/veilkit"));
    if let (Some(bin), Some(idx)) = (
        std::env::var_os("VEILKIT_BENCH_BASELINE_BIN"),
        std::env::var_os("VEILKIT_BENCH_BASELINE_INDEX"),
    ) {
        std::io::copy(
            &mut std::fs::File::open(&idx).unwrap(),
            &mut std::io::sink(),
        )
        .unwrap();
        contestants.push((
            format!("baseline ({})", Path::new(&bin).display()),
            PathBuf::from(bin),
            idx.to_string_lossy().into_owned(),
        ));
    }
    if static_bin.exists() {
        contestants.push((
            "veilkit (static, cargo build-static)".into(),
            static_bin,
            index_s.to_string(),
        ));
    } else {
        println!(
            "no static build at {} (run `cargo build-static`)",
            static_bin.display()
        );
    }
    let look = Path::new("/usr/bin/look");
    let have_look = look.exists();
    if !have_look {
        println!("`look` is not installed (Debian: bsdextrautils): no reference");
    }

    let qs = queries(&dump, 10);
    // Every contestant gives the same answer as `look` (count 0 when look finds nothing).
    for q in &qs {
        let want = if have_look {
            let (_, text) = run(look, &[q, dump_s]);
            text.lines().next().map(|l| l.trim_end().to_string())
        } else {
            None
        };
        for (name, bin, idx) in &contestants {
            let (_, text) = run(bin, &["breach", "query", "-i", idx, q]);
            let got = text.trim_end();
            if let Some(w) = &want {
                assert_eq!(got, w, "{name} and look disagree on {q}");
            } else if have_look {
                assert_eq!(got, format!("{q}:0"), "{name}: {q} should be absent");
            }
        }
    }

    let rounds = if quick { 20 } else { 500 };
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); contestants.len() + 1];
    for r in 0..rounds {
        let q = qs[r % qs.len()].as_str();
        for (i, (_, bin, idx)) in contestants.iter().enumerate() {
            times[i].push(run(bin, &["breach", "query", "-i", idx, q]).0);
        }
        if have_look {
            times[contestants.len()].push(run(look, &[q, dump_s]).0);
        }
    }
    println!(
        "\none-off lookup process, index {} in the page cache, {rounds} runs each, interleaved:",
        index.display()
    );
    let look_median = if have_look {
        median(&mut times[contestants.len()])
    } else {
        f64::NAN
    };
    for (i, (name, _, _)) in contestants.iter().enumerate() {
        let m = median(&mut times[i]);
        let t = &times[i];
        let (q1, q3) = (t[t.len() / 4], t[t.len() * 3 / 4]);
        println!(
            "  {name:<38} median {m:>6.0} µs (quartiles {q1:.0}-{q3:.0})   {:.2}x the time of look",
            m / look_median
        );
    }
    if have_look {
        println!(
            "  {:<38} median {look_median:>6.0} µs   (target: veilkit faster)",
            "look HASH DUMP"
        );
    }
}
