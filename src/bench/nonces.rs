//! Nonces: NoNoncense's table. Generation rate of each kind and width in-process, with
//! the requested thread counts drawing from one shared reservation (as concurrent users
//! of one generator state would), beside the operating system's random source.

use super::{BenchError, Column, Figure, Options, Section, Table, col, thread_counts};
use crate::keys::MasterKey;
use crate::nonce::cipher::NonceCipher;
use crate::nonce::{Generator, Kind, MemoryReserve, SystemClock, Width};
use crate::progress::Progress;
use std::hint::black_box;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Values per second with `threads` threads each drawing `per_thread` values.
fn rate(threads: usize, per_thread: usize, width: Width, kind: Kind) -> Result<f64, BenchError> {
    let reserve = Arc::new(Mutex::new(MemoryReserve::default()));
    let key = MasterKey::new(1, [3; 32]);
    let start = Instant::now();
    let results: Vec<Result<(), BenchError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let reserve = reserve.clone();
                let key = &key;
                s.spawn(move || {
                    let cipher = (kind == Kind::Encrypted).then(|| NonceCipher::new(width, key));
                    let mut g =
                        Generator::new(width, kind, 1, SystemClock::default(), reserve, cipher)
                            .map_err(|e| BenchError::failed("nonces", e))?
                            .with_batch(per_thread as u64);
                    let mut buf = vec![0u128; 4096];
                    let mut left = per_thread;
                    while left > 0 {
                        let n = left.min(buf.len());
                        g.fill(&mut buf[..n])
                            .map_err(|e| BenchError::failed("nonces", e))?;
                        black_box(&buf);
                        left -= n;
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    results.into_iter().collect::<Result<Vec<()>, _>>()?;
    Ok((threads * per_thread) as f64 / start.elapsed().as_secs_f64())
}

fn random_rate(threads: usize, per_thread: usize) -> Result<f64, BenchError> {
    let start = Instant::now();
    let ok = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(move || {
                    let mut b = [0u8; 16];
                    for _ in 0..per_thread {
                        getrandom::fill(&mut b).map_err(|e| e.to_string())?;
                        black_box(&b);
                    }
                    Ok::<_, String>(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<Result<Vec<()>, String>>()
    });
    ok.map_err(|e| BenchError::failed("nonces", e))?;
    Ok((threads * per_thread) as f64 / start.elapsed().as_secs_f64())
}

pub(super) fn run(options: &Options, progress: &dyn Progress) -> Result<Table, BenchError> {
    let s = options.scale;
    let runs = s.pick(1, 3, 5, 7);
    let threads = thread_counts(options);
    let columns: Vec<Column> = threads
        .iter()
        .map(|t| col(format!("threads_{t}"), format!("{t} thread(s)"), "M/s"))
        .collect();
    let mut t = Table::new(
        Section::Nonces,
        "nonces: values per second in-process, by kind, width and threads (NoNoncense's table)",
        columns,
    );
    progress.set_total(10);
    for width in [Width::W64, Width::W96, Width::W128] {
        for kind in [Kind::Counter, Kind::Sortable, Kind::Encrypted] {
            // 64-bit nonces are bound by their layout (13 counter bits per millisecond:
            // 8.19M/s), so fewer of them keep every row about as long.
            let total = match (width, kind) {
                (Width::W64, _) => s.pick(4096, 400_000, 2_000_000, 8_000_000),
                (_, Kind::Encrypted) => s.pick(4096, 2_000_000, 10_000_000, 40_000_000),
                _ => s.pick(4096, 8_000_000, 40_000_000, 160_000_000),
            };
            let mut figures = Vec::new();
            for &th in &threads {
                let rates = (0..runs)
                    .map(|_| rate(th, (total / th).max(1), width, kind).map(|r| r / 1e6))
                    .collect::<Result<Vec<f64>, _>>()?;
                figures.push(Some(Figure::of_runs(rates)));
            }
            let reference = match (width, kind) {
                (Width::W128, Kind::Counter) => Some("NoNoncense counter(128): 15.2M/s"),
                (Width::W128, Kind::Encrypted) => Some("NoNoncense encrypted(128): 3.3M/s"),
                (Width::W64, _) => Some("layout bound: 8.19M/s (13 counter bits per ms)"),
                _ => None,
            };
            let name = match kind {
                Kind::Counter => "counter",
                Kind::Sortable => "sortable",
                Kind::Encrypted => "encrypted",
            };
            t.row(format!("{name} {}", width.bits()), figures, reference);
            progress.advance(1);
        }
    }
    let per = s.pick(256, 100_000, 400_000, 2_000_000);
    let mut figures = Vec::new();
    for &th in &threads {
        let rates = (0..runs)
            .map(|_| random_rate(th, (per / th).max(1)).map(|r| r / 1e6))
            .collect::<Result<Vec<f64>, _>>()?;
        figures.push(Some(Figure::of_runs(rates)));
    }
    t.row("OS random source, 16-byte reads", figures, None);
    progress.advance(1);
    t.notes.push(format!(
        "median of {runs} runs; threads share one in-memory reservation (no state file); machine id 1; encrypted: Blowfish (64), Speck96 (96), AES-256 (128); NoNoncense measured on this team's machine, one task"
    ));
    Ok(t)
}
