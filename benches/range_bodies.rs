//! Range bodies as `breach download` reads them (issue 18: client CPU per GB): one
//! full-scale body (about 1,950 lines, 76 KB, as the real API's ranges are at 2 billion
//! hashes) decoded from each content coding, beside the decoder reqwest would have used
//! for gzip (flate2's miniz_oxide), and then checked and packed.
//!
//! Throughput is per byte *received* (compressed), the unit of a link's speed: at 1 Gbit/s
//! (125 MB/s), a decoder at 250 MB/s costs half a core.
//!
//! `cargo bench --features bench --bench range_bodies`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::io::{Read, Write};
use veilkit::breach::HashKind;
use veilkit::breach::download::body;
use veilkit::breach::download::decode::{Decoder, Encoding};

/// A body of `lines` sorted random suffixes with heavy-tailed counts, CRLF-joined.
fn range_body(lines: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut suffixes: Vec<(u64, u64, u64)> = (0..lines)
        .map(|_| (next() >> 4, next(), next() & 0xffff))
        .collect();
    suffixes.sort();
    let mut out = Vec::new();
    for (i, (a, b, c)) in suffixes.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\r\n");
        }
        // P(count >= k) = 1/k, as in the real data's long tail.
        let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
        let count = (1.0 / (1.0 - u)).floor().min(5e6) as u64;
        write!(out, "{a:015X}{b:016X}{c:04X}:{count}").unwrap();
    }
    out
}

fn bodies(c: &mut Criterion) {
    let text = range_body(1950);
    assert_eq!(body::pack(HashKind::Sha1, 0, &text).unwrap().hashes, 1950);
    let gzip = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(&text).unwrap();
        e.finish().unwrap()
    };
    let zstd = zstd::bulk::compress(&text, 3).unwrap();
    let brotli = {
        let mut out = Vec::new();
        let params = brotli::enc::BrotliEncoderParams {
            quality: 5,
            ..Default::default()
        };
        brotli::BrotliCompress(&mut &text[..], &mut out, &params).unwrap();
        out
    };
    eprintln!(
        "body {} bytes; gzip -6 {} ({:.2}x), zstd -3 {} ({:.2}x), brotli 5 {} ({:.2}x)",
        text.len(),
        gzip.len(),
        text.len() as f64 / gzip.len() as f64,
        zstd.len(),
        text.len() as f64 / zstd.len() as f64,
        brotli.len(),
        text.len() as f64 / brotli.len() as f64,
    );
    let mut g = c.benchmark_group("one full-scale range body, per byte received");
    let mut d = Decoder::new();
    for (name, enc, data) in [
        ("gzip (libdeflate, veilkit)", Encoding::Gzip, &gzip),
        ("zstd (veilkit)", Encoding::Zstd, &zstd),
        (
            "br (brotli-decompressor, veilkit)",
            Encoding::Brotli,
            &brotli,
        ),
    ] {
        g.throughput(Throughput::Bytes(data.len() as u64));
        g.bench_function(format!("decode {name}"), |b| {
            b.iter(|| black_box(d.decode(enc, black_box(data)).unwrap().len()))
        });
        g.bench_function(format!("decode and pack {name}"), |b| {
            b.iter(|| {
                let t = d.decode(enc, black_box(data)).unwrap();
                black_box(body::pack(HashKind::Sha1, 0, t).unwrap().hashes)
            })
        });
    }
    g.throughput(Throughput::Bytes(gzip.len() as u64));
    g.bench_function("decode gzip (flate2 with miniz_oxide, reqwest's)", |b| {
        let mut out = Vec::with_capacity(text.len());
        b.iter(|| {
            out.clear();
            flate2::read::GzDecoder::new(black_box(&gzip[..]))
                .read_to_end(&mut out)
                .unwrap();
            black_box(out.len())
        })
    });
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("pack (identity: per byte of text)", |b| {
        b.iter(|| {
            black_box(
                body::pack(HashKind::Sha1, 0, black_box(&text))
                    .unwrap()
                    .hashes,
            )
        })
    });
    g.finish();
}

criterion_group!(benches, bodies);
criterion_main!(benches);
