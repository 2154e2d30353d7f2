//! Nonce benchmarks (issue: nonces): in-process generation rates per kind and width,
//! with 1, 4 and all-core threads, beside the operating system's random source (16-byte
//! reads) as a baseline. Medians of repeated runs.
//!
//! `cargo bench --bench nonces` (`-- --quick` for a short run)

use std::hint::black_box;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use veilkit::keys::MasterKey;
use veilkit::nonce::cipher::NonceCipher;
use veilkit::nonce::{Generator, Kind, MemoryReserve, SystemClock, Width};

fn rate(threads: usize, per_thread: usize, width: Width, kind: Kind) -> f64 {
    let reserve = Arc::new(Mutex::new(MemoryReserve::default()));
    let key = MasterKey::new(1, [3; 32]);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let reserve = reserve.clone();
            let key = &key;
            s.spawn(move || {
                let cipher = (kind == Kind::Encrypted).then(|| NonceCipher::new(width, key));
                let mut g = Generator::new(width, kind, 1, SystemClock::default(), reserve, cipher)
                    .unwrap()
                    .with_batch(1 << 20);
                let mut buf = vec![0u128; 4096];
                let mut left = per_thread;
                while left > 0 {
                    let n = left.min(buf.len());
                    g.fill(&mut buf[..n]).unwrap();
                    black_box(&buf);
                    left -= n;
                }
            });
        }
    });
    (threads * per_thread) as f64 / start.elapsed().as_secs_f64()
}

fn random_rate(threads: usize, per_thread: usize) -> f64 {
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(move || {
                let mut b = [0u8; 16];
                for _ in 0..per_thread {
                    getrandom::fill(&mut b).unwrap();
                    black_box(&b);
                }
            });
        }
    });
    (threads * per_thread) as f64 / start.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    let runs = if quick { 1 } else { 5 };
    let max = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut thread_counts = vec![1, 4];
    if !thread_counts.contains(&max) {
        thread_counts.push(max);
    }
    println!("\nnonces per second, in-process (median of {runs} runs); machine id 1; {max} cores");
    println!(
        "{:<28} {}",
        "kind/width",
        thread_counts
            .iter()
            .map(|t| format!("{:>14}", format!("{t} thread(s)")))
            .collect::<String>()
    );
    for (width, label_w) in [(Width::W64, 64), (Width::W96, 96), (Width::W128, 128)] {
        for (kind, label_k) in [
            (Kind::Counter, "counter"),
            (Kind::Sortable, "sortable"),
            (Kind::Encrypted, "encrypted"),
        ] {
            let total = if width == Width::W64 {
                8_000_000
            } else if quick {
                2_000_000
            } else {
                20_000_000
            };
            let mut row = format!("{:<28}", format!("{label_k} {label_w}"));
            for &t in &thread_counts {
                let r = median((0..runs).map(|_| rate(t, total / t, width, kind)).collect());
                row.push_str(&format!("{:>12.1}M/s", r / 1e6));
            }
            println!("{row}");
        }
    }
    // The 96-bit cipher alone, one thread, interleaved: eight blocks side by side (what
    // encrypted 96-bit nonces use where AVX2 exists) against the `speck-cipher` crate's
    // one block per call (the fallback), on the same 4,096 values.
    {
        use veilkit::nonce::speck::Speck96;
        let key = [7u8; 18];
        let (wide, single) = (Speck96::new(&key), Speck96::new_crate_only(&key));
        let mut values: Vec<u128> = (0..4096u128).collect();
        let mut rates = [Vec::new(), Vec::new()];
        let n = if quick { 2_000_000 } else { 20_000_000 };
        for _ in 0..runs {
            for (i, c) in [&wide, &single].iter().enumerate() {
                let start = Instant::now();
                for _ in 0..n / values.len() {
                    c.encrypt_many(&mut values);
                    black_box(&values);
                }
                rates[i]
                    .push((n / values.len() * values.len()) as f64 / start.elapsed().as_secs_f64());
            }
        }
        for (label, r) in [
            ("Speck96/144, 8 blocks at once", &rates[0]),
            ("Speck96/144, crate (1 block)", &rates[1]),
        ] {
            let mut sorted = r.clone();
            sorted.sort_by(f64::total_cmp);
            println!(
                "{:<28}{:>12.1}M/s  (runs {:.1}-{:.1}M/s, one thread)",
                label,
                median(r.clone()) / 1e6,
                sorted[0] / 1e6,
                sorted[sorted.len() - 1] / 1e6
            );
        }
    }
    let mut row = format!("{:<28}", "OS random (16-byte reads)");
    for &t in &thread_counts {
        let n = if quick { 200_000 } else { 2_000_000 };
        let r = median((0..runs).map(|_| random_rate(t, n / t)).collect());
        row.push_str(&format!("{:>12.1}M/s", r / 1e6));
    }
    println!("{row}");
    println!(
        "targets (one thread): counter 96/128 >= 150M/s, encrypted 128 >= 100M/s, encrypted 96 >= 30M/s; 64-bit: 8.19M/s (layout bound); NoNoncense: counter 15.2M/s, encrypted(128) 3.3M/s"
    );
}
