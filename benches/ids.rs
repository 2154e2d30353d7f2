//! Opaque id benchmarks (issue: opaque ids).
//!
//! 1. Latency of one encode and one decode in a dependent chain, in ns and timestamp-
//!    counter ticks, beside the hardware floor (one AES-128 block chained in registers)
//!    and the RustCrypto `aes` crate called once per block: medians of repeated runs, the
//!    rows taking turns, printed as a table.
//! 2. Throughput (criterion): batch encode, the in-process line stream, and the peers the
//!    issue names (FF1 from the `fpe` crate, sqids, hashids) measured in the same run.
//!
//! `cargo bench --features bench --bench ids`; `cargo bench --features bench --bench ids -- --quick` for a short run.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use std::hint::black_box;
use std::time::Instant;
use veilkit::block::Aes128;
use veilkit::ids::stream::{self, Op, Options};
use veilkit::ids::text::Format;
use veilkit::ids::{Codec, Form, Scheme, Spec};
use veilkit::keys::{Keyring, MasterKey};

fn ring() -> Keyring {
    Keyring::single(MasterKey::new(1, [7; 32]))
}

fn codec(scheme: Scheme, form: Form, rounds: Option<u32>) -> Codec {
    let mut spec = Spec::new(scheme, form);
    if let Some(r) = rounds {
        spec.rounds = r;
    }
    Codec::new(&ring(), spec).expect("valid spec")
}

fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY-free: reading the timestamp counter has no preconditions.
        #[allow(unused_unsafe)]
        unsafe {
            std::arch::x86_64::_rdtsc()
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// One run of `n` chained operations starting from `x`: (ns per op, ticks per op, the
/// last output, fed to the row's next run).
fn chain_run(n: u64, x: u64, f: &mut dyn FnMut(u64) -> u64) -> (f64, f64, u64) {
    let (t0, c0) = (Instant::now(), ticks());
    let x = black_box(f(black_box(x)));
    let (c1, t1) = (ticks(), Instant::now());
    let ns = (t1 - t0).as_nanos() as f64 / n as f64;
    (ns, c1.wrapping_sub(c0) as f64 / n as f64, x)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn latency_table(quick: bool) {
    let (runs, n) = if quick { (5, 200_000) } else { (21, 2_000_000) };
    let floor_aes = Aes128::new(&[7; 16]);
    let crate_aes = {
        use aes::cipher::{Array, KeyInit};
        aes::Aes128::new(&Array::from([7u8; 16]))
    };
    let det_aes = codec(Scheme::Aes128, Form::Deterministic, None);
    let walk = codec(Scheme::CycleWalk, Form::Deterministic, None);
    let feistel2 = codec(Scheme::Uuid, Form::StoredNonce, None);
    let det3 = codec(Scheme::Uuid, Form::Deterministic, None);
    let det4 = codec(Scheme::Uuid, Form::Deterministic, Some(4));

    /// What a row is held to: nothing, at most 1.10x its number of AES blocks times the
    /// floor, or at most 1.20x the median of the named chained row (single calls).
    enum Goal {
        None,
        Blocks(f64),
        Chained(&'static str),
    }
    type Row<'a> = (&'a str, Box<dyn FnMut(u64) -> u64 + 'a>, Goal);
    let table: Vec<[u8; 16]> = (0..1024).map(|i| det3.encode(i, 0).unwrap()).collect();
    let rows: Vec<Row> = vec![
        (
            "hardware floor: 1 AES-128 block, chained in registers",
            Box::new(|x| {
                let mut b = [0u8; 16];
                b[..8].copy_from_slice(&x.to_le_bytes());
                let out = floor_aes.chain(&b, n);
                u64::from_le_bytes(out[..8].try_into().unwrap())
            }),
            Goal::None,
        ),
        (
            "reference: aes crate, one call per block",
            Box::new(|x| {
                use aes::cipher::{Array, BlockCipherEncrypt};
                let mut v = x;
                for _ in 0..n {
                    let mut b = Array::from([0u8; 16]);
                    b[..8].copy_from_slice(&v.to_le_bytes());
                    crate_aes.encrypt_block(&mut b);
                    v = u64::from_le_bytes(b[..8].try_into().unwrap());
                }
                v
            }),
            Goal::None,
        ),
        (
            "aes128 encode (deterministic)",
            Box::new(|x| det_aes.encode_chain(x, n)),
            Goal::Blocks(1.0),
        ),
        (
            "aes128 decode (deterministic)",
            Box::new(|x| det_aes.decode_chain(x, n)),
            Goal::Blocks(1.0),
        ),
        (
            "cycle-walk encode (expect ~2 blocks)",
            Box::new(|x| walk.encode_chain(x >> 1, n)),
            Goal::None,
        ),
        (
            "cycle-walk decode",
            Box::new(|x| walk.decode_chain(x >> 1, n)),
            Goal::None,
        ),
        (
            "uuid 2-round Feistel encode (post)",
            Box::new(|x| feistel2.encode_chain(x, n)),
            Goal::Blocks(2.0),
        ),
        (
            "uuid 2-round Feistel decode",
            Box::new(|x| feistel2.decode_chain(x, n)),
            Goal::Blocks(2.0),
        ),
        (
            "uuid deterministic 3-round encode",
            Box::new(|x| det3.encode_chain(x, n)),
            Goal::Blocks(3.0),
        ),
        (
            "uuid deterministic 3-round decode",
            Box::new(|x| det3.decode_chain(x, n)),
            Goal::Blocks(3.0),
        ),
        (
            "uuid deterministic 4-round encode",
            Box::new(|x| det4.encode_chain(x, n)),
            Goal::Blocks(4.0),
        ),
        // The public single-id calls a library user makes, in the same dependent chain
        // (each id taken from the previous output), beside the chained paths above.
        (
            "aes128 Codec::encode, one call per id",
            Box::new(|x| {
                let mut v = x;
                for _ in 0..n {
                    let b = det_aes.encode(v, 0).unwrap();
                    v = u64::from_le_bytes(b[..8].try_into().unwrap());
                }
                v
            }),
            Goal::Chained("aes128 encode (deterministic)"),
        ),
        (
            "uuid 3-round Codec::encode, one call per id",
            Box::new(|x| {
                let mut v = x & ((1 << 60) - 1);
                for _ in 0..n {
                    let b = det3.encode(v, 0).unwrap();
                    v = u64::from_le_bytes(b[8..].try_into().unwrap()) & ((1 << 60) - 1);
                }
                v
            }),
            Goal::Chained("uuid deterministic 3-round encode"),
        ),
        (
            "uuid 3-round Codec::decode, one call per id",
            Box::new(|x| {
                // The next id to decode is chosen by this one's answer (a table of the
                // encodings of 0..1024, in the L1 cache).
                let table = &table;
                let mut id = x & 1023;
                for _ in 0..n {
                    id = det3.decode(&table[((id + 1) & 1023) as usize]).unwrap().0;
                }
                id
            }),
            Goal::Chained("uuid deterministic 3-round decode"),
        ),
    ];
    println!(
        "\nLatency of one operation in a dependent chain (median of {runs} interleaved runs of {n}; AES-NI: {})",
        veilkit::block::has_aesni()
    );
    println!(
        "{:<56} {:>8} {:>11} {:>9} {:>8}",
        "construction", "ns", "TSC ticks", "x floor", "target"
    );
    // The rows take turns, one run each, so that a noisy machine slows every row alike
    // and a single-call row is compared with its chained row run by run (the median of
    // the per-run ratios, and their range).
    let mut rows = rows;
    let mut xs = vec![1u64; rows.len()];
    let mut ns = vec![Vec::with_capacity(runs); rows.len()];
    let mut tk = vec![Vec::with_capacity(runs); rows.len()];
    for _ in 0..runs {
        for (i, (_, f, _)) in rows.iter_mut().enumerate() {
            let (a, b, x) = chain_run(n, xs[i], f.as_mut());
            ns[i].push(a);
            tk[i].push(b);
            xs[i] = x;
        }
    }
    let floor_ticks = median(tk[0].clone());
    for (i, (name, _, goal)) in rows.iter().enumerate() {
        let ticks = median(tk[i].clone());
        let ratio = ticks / floor_ticks;
        let target = match goal {
            Goal::None => String::new(),
            Goal::Blocks(blocks) => {
                let ok = ratio <= blocks * 1.10;
                format!("{:.2} {}", blocks * 1.10, if ok { "ok" } else { "MISS" })
            }
            Goal::Chained(row) => {
                let c = rows.iter().position(|r| r.0 == *row).expect("row");
                let per_run: Vec<f64> = tk[i].iter().zip(&tk[c]).map(|(s, c)| s / c).collect();
                let (lo, hi) = per_run
                    .iter()
                    .fold((f64::MAX, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
                let of = median(per_run);
                let ok = of <= 1.20;
                let verdict = if ok { "ok" } else { "MISS" };
                format!("{of:.2}x chained ({lo:.2}-{hi:.2}; 1.20) {verdict}")
            }
        };
        let ns = median(ns[i].clone());
        println!("{name:<56} {ns:>8.2} {ticks:>11.1} {ratio:>9.2} {target:>8}");
    }
    println!();
}

fn throughput(c: &mut Criterion) {
    let mut g = c.benchmark_group("ids/batch");
    const N: usize = 4096;
    let ids: Vec<u64> = (0..N as u64).collect();
    let mut out = vec![[0u8; 16]; N];
    for (name, codec) in [
        ("uuid-det3", codec(Scheme::Uuid, Form::Deterministic, None)),
        (
            "aes128-det",
            codec(Scheme::Aes128, Form::Deterministic, None),
        ),
        (
            "cycle-walk-det",
            codec(Scheme::CycleWalk, Form::Deterministic, None),
        ),
    ] {
        g.throughput(Throughput::Elements(N as u64));
        g.bench_function(BenchmarkId::new("encode_many", name), |b| {
            b.iter(|| codec.encode_many(black_box(&ids), &[], &mut out))
        });
        codec.encode_many(&ids, &[], &mut out);
        let (mut i2, mut n2, mut e2) = (vec![0u64; N], vec![0u64; N], vec![None; N]);
        g.bench_function(BenchmarkId::new("decode_many", name), |b| {
            b.iter(|| codec.decode_many(black_box(&out), None, &mut i2, &mut n2, &mut e2))
        });
    }
    g.finish();

    // The whole line pipeline in memory: decimal in, UUID text out, and back.
    let mut g = c.benchmark_group("ids/stream");
    const LINES: u64 = 1_000_000;
    let input: Vec<u8> = (1..=LINES)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    let det3 = codec(Scheme::Uuid, Form::Deterministic, None);
    let opts = |op| Options {
        op,
        format: Format::Uuid,
        prefix: Vec::new(),
        field: None,
        nonce_field: None,
        delimiter: b'\t',
        csv: false,
        header: false,
        random_nonce: false,
        keep_going: false,
        key_id: None,
    };
    let mut encoded = Vec::new();
    stream::run(
        &det3,
        &opts(Op::Encode),
        veilkit::streams::Source::Read(&mut &input[..]),
        &mut encoded,
        &mut |_| {},
    )
    .unwrap();
    g.throughput(Throughput::Elements(LINES));
    g.sample_size(10);
    g.bench_function("encode 1M lines", |b| {
        let mut sink = Vec::with_capacity(encoded.len());
        b.iter(|| {
            sink.clear();
            stream::run(
                &det3,
                &opts(Op::Encode),
                veilkit::streams::Source::Read(&mut &input[..]),
                &mut sink,
                &mut |_| {},
            )
            .unwrap()
        })
    });
    g.bench_function("decode 1M lines", |b| {
        let mut sink = Vec::with_capacity(input.len());
        b.iter(|| {
            sink.clear();
            stream::run(
                &det3,
                &opts(Op::Decode),
                veilkit::streams::Source::Read(&mut &encoded[..]),
                &mut sink,
                &mut |_| {},
            )
            .unwrap()
        })
    });
    g.finish();
}

fn peers(c: &mut Criterion) {
    let mut g = c.benchmark_group("ids/one-id-vs-peers");
    let det3 = codec(Scheme::Uuid, Form::Deterministic, None);
    let mut id = 1u64;
    g.bench_function("veilkit uuid det3 encode (single call)", |b| {
        b.iter(|| {
            id = id.wrapping_add(1) & ((1 << 60) - 1);
            det3.encode(black_box(id), 0).unwrap()
        })
    });
    #[cfg(feature = "peers")]
    peer_crates(&mut g, &mut id);
    g.finish();
}

/// The peers' crates, compiled only with `--features peers` so that `cargo test` never
/// builds them.
#[cfg(feature = "peers")]
fn peer_crates(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: &mut u64,
) {
    let ff1 = fpe::ff1::FF1::<aes::Aes128>::new(&[7; 16], 2).unwrap();
    g.bench_function("fpe FF1, 64-bit binary", |b| {
        b.iter(|| {
            *id = id.wrapping_add(1);
            let ns = fpe::ff1::BinaryNumeralString::from_bytes_le(&id.to_le_bytes());
            ff1.encrypt(&[], black_box(&ns)).unwrap()
        })
    });
    let sq = sqids::Sqids::default();
    g.bench_function("sqids encode", |b| {
        b.iter(|| {
            *id = id.wrapping_add(1) & ((1 << 50) - 1);
            sq.encode(&[black_box(*id)]).unwrap()
        })
    });
    let hs = harsh::Harsh::default();
    g.bench_function("hashids (harsh) encode", |b| {
        b.iter(|| {
            *id = id.wrapping_add(1);
            hs.encode(&[black_box(*id)])
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .measurement_time(std::time::Duration::from_secs(3))
        .warm_up_time(std::time::Duration::from_secs(1));
    targets = throughput, peers
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    if !std::env::args().any(|a| a == "--test") {
        latency_table(quick);
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
