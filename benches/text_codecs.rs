//! Text codecs of ids (issue: fewer hand-rolled codecs): veilkit's fixed-width forms of a
//! 128-bit id beside the well-kept crates for the same bytes, in one run, so that each
//! form keeps a hand-written codec only where this benchmark shows it faster.
//!
//! - hex, 32 digits: `ids::text::Format::Hex` against `const_hex` (encode, and decode of
//!   either case), and a 40-digit SHA-1 hash as `breach query` parses it. veilkit now
//!   encodes with `const-hex` (3 ns against 8.8 ns for the table it had) and keeps its own
//!   decoder (6 ns against 9-13 ns for a hash, on par for an id);
//! - base62, 22 digits: `Format::Base62` against the `base62` crate (its encode into a
//!   buffer, left-padded with `0` to the fixed width, and its decode). veilkit now uses
//!   the crate both ways (22 ns against 52 ns encoding, 24 against 48 decoding);
//! - Crockford base32, 26 digits: veilkit's only (no crate writes a 128-bit number
//!   right-aligned in 26 digits, as docs/IDS.md specifies), shared by ids and nonces.
//!
//! `cargo bench --features bench --bench text_codecs`

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use veilkit::ids::text::Format;

fn ids(n: usize) -> Vec<[u8; 16]> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            let mut b = [0u8; 16];
            for chunk in b.chunks_mut(8) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                chunk.copy_from_slice(&x.to_le_bytes());
            }
            b
        })
        .collect()
}

fn base62_crate_fixed(v: &[u8; 16], out: &mut [u8; 22]) {
    let mut tmp = [0u8; 22];
    let n = base62::encode_bytes(u128::from_be_bytes(*v), &mut tmp).expect("22 bytes hold 2^128");
    out[..22 - n].fill(b'0');
    out[22 - n..].copy_from_slice(&tmp[..n]);
}

fn codecs(c: &mut Criterion) {
    let values = ids(1024);
    let mut g = c.benchmark_group("text codecs, one 128-bit id");
    let mut i = 0usize;
    let mut next = || {
        i = (i + 1) & 1023;
        &values[i]
    };
    for format in [Format::Hex, Format::Base62, Format::Base32] {
        g.bench_function(format!("veilkit {} encode", format.name()), |b| {
            let mut out = [0u8; 36];
            b.iter(|| {
                let n = format.write_to(black_box(next()), &mut out);
                black_box(&out[..n]);
            })
        });
    }
    g.bench_function("const-hex encode", |b| {
        let mut out = [0u8; 32];
        b.iter(|| {
            const_hex::encode_to_slice(black_box(next()), &mut out).unwrap();
            black_box(&out);
        })
    });
    g.bench_function("base62 crate encode (fixed width)", |b| {
        let mut out = [0u8; 22];
        b.iter(|| {
            base62_crate_fixed(black_box(next()), &mut out);
            black_box(&out);
        })
    });
    // Decoding: the same ids' texts.
    let texts = |format: Format| -> Vec<Vec<u8>> {
        values
            .iter()
            .map(|v| {
                let mut s = Vec::new();
                format.write(v, &mut s);
                s
            })
            .collect()
    };
    for format in [Format::Hex, Format::Base62, Format::Base32] {
        let t = texts(format);
        let mut j = 0usize;
        g.bench_function(format!("veilkit {} decode", format.name()), |b| {
            b.iter(|| {
                j = (j + 1) & 1023;
                black_box(format.parse(black_box(&t[j])).unwrap());
            })
        });
    }
    let hex = texts(Format::Hex);
    let mut j = 0usize;
    g.bench_function("const-hex decode", |b| {
        b.iter(|| {
            j = (j + 1) & 1023;
            black_box(const_hex::decode_to_array::<_, 16>(black_box(&hex[j])).unwrap());
        })
    });
    // A SHA-1 hash of a breach query, 40 digits: the breach parser against const-hex
    // into the same words.
    let hashes: Vec<Vec<u8>> = values
        .iter()
        .map(|v| {
            let mut t = const_hex::encode_upper(v).into_bytes();
            t.extend_from_slice(&const_hex::encode_upper(&v[..4]).into_bytes());
            t
        })
        .collect();
    let mut j = 0usize;
    g.bench_function("veilkit SHA-1 hash decode (40 digits)", |b| {
        b.iter(|| {
            j = (j + 1) & 1023;
            black_box(
                veilkit::breach::HashKind::Sha1
                    .parse_hex(black_box(&hashes[j]))
                    .unwrap(),
            );
        })
    });
    let mut j = 0usize;
    g.bench_function("const-hex SHA-1 hash decode (40 digits)", |b| {
        b.iter(|| {
            j = (j + 1) & 1023;
            let a = const_hex::decode_to_array::<_, 20>(black_box(&hashes[j])).unwrap();
            black_box(veilkit::breach::format::Wide::from_be_prefix(&a));
        })
    });
    let b62 = texts(Format::Base62);
    let mut j = 0usize;
    g.bench_function("base62 crate decode", |b| {
        b.iter(|| {
            j = (j + 1) & 1023;
            black_box(base62::decode(black_box(&b62[j])).unwrap());
        })
    });
    g.finish();
}

/// The crates give veilkit's bytes: the comparison is of the same work.
fn same_bytes() {
    for v in ids(10_000) {
        let mut ours = Vec::new();
        Format::Hex.write(&v, &mut ours);
        assert_eq!(ours, const_hex::encode(v).into_bytes());
        ours.clear();
        Format::Base62.write(&v, &mut ours);
        let mut theirs = [0u8; 22];
        base62_crate_fixed(&v, &mut theirs);
        assert_eq!(ours, theirs);
        assert_eq!(
            base62::decode(&ours).unwrap(),
            u128::from_be_bytes(v),
            "base62 decode"
        );
    }
}

fn all(c: &mut Criterion) {
    same_bytes();
    codecs(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = all
}
criterion_main!(benches);
