//! Opaque ids: Khuong's table ("Plan B for UUIDs: double AES-128"). Latency of one encode
//! and one decode in a dependent chain (each input is the previous output, so nothing
//! overlaps), in timestamp-counter ticks and ns, beside the hardware floor of one AES-128
//! block; and throughput of independent batches.

use super::{Column, Figure, Options, Section, Table, col, ticks};
use crate::block::Aes128;
use crate::ids::{Codec, Form, Scheme, Spec};
use crate::keys::{Keyring, MasterKey};
use crate::progress::Progress;
use std::hint::black_box;
use std::time::Instant;

fn columns() -> Vec<Column> {
    vec![
        col("encode_cycles", "encode", "ticks"),
        col("encode_ns", "encode", "ns"),
        col("decode_cycles", "decode", "ticks"),
        col("decode_ns", "decode", "ns"),
        col("batch", "batch encode", "M ids/s"),
    ]
}

fn codec(scheme: Scheme, form: Form) -> Codec {
    // A fixed key: the figures do not depend on it, and no secret is involved.
    let ring = Keyring::single(MasterKey::new(1, [7; 32]));
    Codec::new(&ring, Spec::new(scheme, form)).expect("a valid built-in spec")
}

/// (cycles, ns) per operation of `runs` runs of `n` chained operations.
fn chain(runs: usize, n: u64, mut f: impl FnMut(u64, u64) -> u64) -> (Option<Figure>, Figure) {
    let mut ns = Vec::with_capacity(runs);
    let mut tk = Vec::with_capacity(runs);
    let mut x = 1u64;
    // One unmeasured run warms caches and branch predictors.
    x = black_box(f(black_box(x), n.min(10_000)));
    for _ in 0..runs {
        let (t0, c0) = (Instant::now(), ticks());
        x = black_box(f(black_box(x), n));
        let (c1, t1) = (ticks(), Instant::now());
        ns.push((t1 - t0).as_nanos() as f64 / n as f64);
        if let (Some(a), Some(b)) = (c0, c1) {
            tk.push(b.wrapping_sub(a) as f64 / n as f64);
        }
    }
    let cycles = (!tk.is_empty()).then(|| Figure::of_runs(tk));
    (cycles, Figure::of_runs(ns))
}

/// Millions of ids per second encoding independent batches of 4096.
fn batch(runs: usize, total: usize, codec: &Codec) -> Figure {
    const N: usize = 4096;
    let ids: Vec<u64> = (0..N as u64).collect();
    let mask = codec.nonce_mask();
    let nonces: Vec<u64> = (0..N as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask)
        .collect();
    let mut out = vec![[0u8; 16]; N];
    let rounds = (total / N).max(1);
    let rates = (0..runs)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..rounds {
                codec.encode_many(black_box(&ids), &nonces, &mut out);
                black_box(&out);
            }
            (rounds * N) as f64 / t.elapsed().as_secs_f64() / 1e6
        })
        .collect();
    Figure::of_runs(rates)
}

pub(super) fn run(options: &Options, progress: &dyn Progress) -> Table {
    let s = options.scale;
    let runs = s.pick(3, 5, 11, 21);
    let n: u64 = s.pick(2_000, 50_000, 400_000, 2_000_000);
    let total = s.pick(4096, 400_000, 4_000_000, 20_000_000);
    let mut t = Table::new(
        Section::Ids,
        "opaque ids: latency of one operation in a dependent chain, and batch throughput (Khuong's table)",
        columns(),
    );
    progress.set_total(5);

    let floor = Aes128::new(&[7; 16]);
    let (c, ns) = chain(runs, n, |x, n| {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&x.to_le_bytes());
        let out = floor.chain(&b, n);
        u64::from_le_bytes(out[..8].try_into().expect("8 bytes"))
    });
    t.row(
        "hardware floor: one AES-128 block",
        vec![c, Some(ns), None, None, None],
        None,
    );
    progress.advance(1);

    let rows: [(&str, Scheme, Form, Option<&str>); 4] = [
        (
            "aes128: one AES-128 block",
            Scheme::Aes128,
            Form::Deterministic,
            Some("Khuong AES-128: 35.2 ticks"),
        ),
        (
            "cycle-walk (bit 63 clear)",
            Scheme::CycleWalk,
            Form::Deterministic,
            None,
        ),
        (
            "uuid: 2-round Feistel, stored nonce",
            Scheme::Uuid,
            Form::StoredNonce,
            Some("Khuong Feistel: 70.3 ticks"),
        ),
        (
            "uuid: deterministic 3-round (default)",
            Scheme::Uuid,
            Form::Deterministic,
            None,
        ),
    ];
    for (label, scheme, form, reference) in rows {
        let codec = codec(scheme, form);
        // Cycle walking needs ids below 2^63; a shift keeps the chain in range.
        let shift = u32::from(scheme == Scheme::CycleWalk);
        let (ec, en) = chain(runs, n, |x, n| codec.encode_chain(x >> shift, n));
        let (dc, dn) = chain(runs, n, |x, n| codec.decode_chain(x >> shift, n));
        let b = batch(runs, total, &codec);
        t.row(label, vec![ec, Some(en), dc, Some(dn), Some(b)], reference);
        progress.advance(1);
    }
    t.notes.push(format!(
        "chains of {n} operations, median of {runs} runs; ticks are timestamp-counter ticks (the JSON keys say cycles); batches of 4096 ids, one thread"
    ));
    t.notes.push(
        "Khuong's figures: his published C, timed as a dependent chain in this harness's unit (TSC ticks) on this team's machine (2026-11-23); his own loops report 52 and 107 core cycles, not comparable with ticks".into(),
    );
    t
}
