//! Helpers shared by the breach benches (each bench includes this module).
#![allow(dead_code)]

use std::hint::black_box;
use std::io::Write;
use std::time::Instant;
use veilkit::breach::HashKind;
use veilkit::breach::format::Wide;

/// xorshift64: reproducible workloads.
pub struct Rng(pub u64);

impl Rng {
    /// The next value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The median (sorts `v`).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// How many random hashes a bench generates when given no data: `VEILKIT_BENCH_N`,
/// default 10,000,000.
pub fn random_hashes_wanted() -> u64 {
    std::env::var("VEILKIT_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000)
}

/// A dump of `n` uniform random SHA-1 hashes (fewer if any repeat), sorted, with counts
/// 1 to 1000.
pub fn write_random_dump(n: u64, out: &mut impl Write) {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut hashes: Vec<[u64; 3]> = (0..n)
        .map(|_| [rng.next(), rng.next(), rng.next() & !0xffff_ffff])
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    let mut hex = [0u8; 40];
    for h in &hashes {
        HashKind::Sha1.write_hex(&Wide(*h), &mut hex);
        out.write_all(&hex).unwrap();
        writeln!(out, ":{}", 1 + rng.next() % 1000).unwrap();
    }
}

/// The memory floor of a lookup into `bytes`: one dependent read of a random byte per
/// step (the next address depends on the byte read), median ns per step over `rounds`
/// rounds of a million steps.
pub fn memory_floor_ns(bytes: &[u8], rounds: usize) -> f64 {
    let mut samples = Vec::new();
    for _ in 0..rounds {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut k = 0usize;
        let steps = 1_000_000;
        let t = Instant::now();
        for _ in 0..steps {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            k = bytes[((x as usize) ^ k) % bytes.len()] as usize;
        }
        black_box(k);
        samples.push(t.elapsed().as_nanos() as f64 / steps as f64);
    }
    median(&mut samples)
}
