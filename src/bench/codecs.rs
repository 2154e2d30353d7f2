//! Codecs: Tkrzw's codec table. Time to encrypt and to decrypt texts of 10,000 bytes with
//! each AEAD and mode veilkit uses (AES-256-GCM-SIV for records and fields: aws-lc-rs's,
//! beside RustCrypto's, which a build without the `aws-lc` feature uses) and the
//! usual references (AES-256-GCM, ChaCha20-Poly1305, AES-256-CTR, AES-256-CBC), beside a
//! plain memory copy of the same bytes: GB/s, the time for 100,000 texts, and the ratio to
//! the copy.
//!
//! Every operation reads one text and writes another buffer (as the copy does), cycling
//! through 64 distinct texts so the working set stays in cache for every codec alike.
//! Keys and nonces are fixed: this measures speed, not a way to use the ciphers.

use super::{Column, Figure, Options, Section, Table, col};
use crate::progress::Progress;
use aes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit, StreamCipher};
use aes_gcm::aead::inout::InOutBuf;
use aes_gcm::aead::{AeadInOut, KeyInit};
use std::hint::black_box;
use std::time::Instant;

const TEXT: usize = 10_000;
const POOL: usize = 64;

fn columns() -> Vec<Column> {
    vec![
        col("encrypt_gbps", "encrypt", "GB/s"),
        col("decrypt_gbps", "decrypt", "GB/s"),
        col("encrypt_100k_s", "encrypt 100K texts", "s"),
        col("decrypt_100k_s", "decrypt 100K texts", "s"),
        col("encrypt_vs_copy", "encrypt / copy", "x"),
    ]
}

/// One codec: encrypts text `i` of `input` into `out`, or decrypts.
type Op<'a> = Box<dyn FnMut(&[u8], &mut [u8], usize) + 'a>;

struct Codec<'a> {
    label: &'static str,
    reference: Option<&'static str>,
    encrypt: Op<'a>,
    decrypt: Op<'a>,
    /// Extra bytes a ciphertext carries (the tag), stored beside it here.
    tag: usize,
}

/// GB/s over `runs` runs of `texts` operations of `op` on the pool `from`.
fn measure(runs: usize, texts: usize, from: &[Vec<u8>], op: &mut Op<'_>) -> Figure {
    let mut out = vec![0u8; TEXT + 16];
    let rates = (0..runs)
        .map(|_| {
            let t = Instant::now();
            for i in 0..texts {
                op(black_box(&from[i % POOL]), &mut out, i);
                black_box(&out);
            }
            (texts * TEXT) as f64 / t.elapsed().as_secs_f64() / 1e9
        })
        .collect();
    Figure::of_runs(rates)
}

pub(super) fn run(options: &Options, progress: &dyn Progress) -> Table {
    let s = options.scale;
    let runs = s.pick(1, 3, 5, 5);
    let texts = s.pick(64, 3_000, 20_000, 100_000);
    let mut t = Table::new(
        Section::Codecs,
        "codecs: encrypting and decrypting texts of 10,000 bytes, one thread (Tkrzw's codec table)",
        columns(),
    );
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let plain: Vec<Vec<u8>> = (0..POOL)
        .map(|_| {
            (0..TEXT)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect()
        })
        .collect();
    let key = [0x42u8; 32];
    let iv = [0x24u8; 16];
    let nonce = [0x24u8; 12];
    let siv = aes_gcm_siv::Aes256GcmSiv::new(&key.into());
    let pages = crate::records::aead::GcmSiv::new(&key);
    let gcm = aes_gcm::Aes256Gcm::new(&key.into());
    let chacha = chacha20poly1305::ChaCha20Poly1305::new(&key.into());
    type Ctr = ctr::Ctr128BE<aes::Aes256>;
    type CbcEnc = cbc::Encryptor<aes::Aes256>;
    type CbcDec = cbc::Decryptor<aes::Aes256>;

    // Ciphertext + tag of the AEADs, in one buffer; the caller's `out` gets the text.
    fn aead<'a, A: AeadInOut>(a: &'a A, nonce: &'a [u8; 12], tag_len: usize) -> (Op<'a>, Op<'a>) {
        let enc: Op<'a> = Box::new(move |text, out, _| {
            let (body, tag_out) = out.split_at_mut(text.len());
            let tag = a
                .encrypt_inout_detached(
                    nonce.as_slice().try_into().expect("12-byte nonce"),
                    b"",
                    InOutBuf::new(text, body).expect("equal lengths"),
                )
                .expect("a 10,000-byte text is within every AEAD's limit");
            tag_out[..tag_len].copy_from_slice(&tag);
        });
        let dec: Op<'a> = Box::new(move |sealed, out, _| {
            let (body, tag) = sealed.split_at(sealed.len() - tag_len);
            a.decrypt_inout_detached(
                nonce.as_slice().try_into().expect("12-byte nonce"),
                b"",
                InOutBuf::new(body, &mut out[..body.len()]).expect("equal lengths"),
                tag.try_into().expect("16-byte tag"),
            )
            .expect("the benchmark's own ciphertext authenticates");
        });
        (enc, dec)
    }

    let mut codecs: Vec<Codec<'_>> = Vec::new();
    codecs.push(Codec {
        label: "memory copy",
        reference: None,
        encrypt: Box::new(|text, out, _| out[..text.len()].copy_from_slice(text)),
        decrypt: Box::new(|text, out, _| out[..text.len()].copy_from_slice(text)),
        tag: 0,
    });
    // The records' and fields' cipher as veilkit calls it for fields and for pages read
    // with pread: the text copied into the buffer, then sealed in place; the sealed text
    // copied into a buffer, then opened in place (a page read from a map is opened
    // straight into its buffer, without that copy).
    codecs.push(Codec {
        label: if cfg!(feature = "aws-lc") {
            "AES-256-GCM-SIV, aws-lc-rs (records, fields)"
        } else {
            "AES-256-GCM-SIV, RustCrypto (records, fields)"
        },
        reference: None,
        encrypt: Box::new(|text, out, _| {
            let (body, tag_out) = out.split_at_mut(text.len());
            body.copy_from_slice(text);
            let tag = pages
                .seal(&nonce, b"", body)
                .expect("a 10,000-byte text is within the AEAD's limit");
            tag_out[..16].copy_from_slice(&tag);
        }),
        decrypt: Box::new(|sealed, out, _| {
            out[..sealed.len()].copy_from_slice(sealed);
            pages
                .open(&nonce, b"", &mut out[..sealed.len()])
                .expect("the benchmark's own ciphertext authenticates");
        }),
        tag: 16,
    });
    let (e, d) = aead(&siv, &nonce, 16);
    codecs.push(Codec {
        label: "AES-256-GCM-SIV, RustCrypto (built without aws-lc)",
        reference: None,
        encrypt: e,
        decrypt: d,
        tag: 16,
    });
    let (e, d) = aead(&gcm, &nonce, 16);
    codecs.push(Codec {
        label: "AES-256-GCM",
        reference: Some("OpenSSL GCM here: 5.9 GB/s"),
        encrypt: e,
        decrypt: d,
        tag: 16,
    });
    let (e, d) = aead(&chacha, &nonce, 16);
    codecs.push(Codec {
        label: "ChaCha20-Poly1305",
        reference: None,
        encrypt: e,
        decrypt: d,
        tag: 16,
    });
    let ctr_op = || -> Op<'_> {
        Box::new(move |text, out, _| {
            let mut c = Ctr::new(&key.into(), &iv.into());
            c.apply_keystream_b2b(text, &mut out[..text.len()]);
        })
    };
    codecs.push(Codec {
        label: "AES-256-CTR",
        reference: Some("Tkrzw's software AES: ~0.4 GB/s"),
        encrypt: ctr_op(),
        decrypt: ctr_op(),
        tag: 0,
    });
    codecs.push(Codec {
        label: "AES-256-CBC",
        reference: Some("Tkrzw's software AES: ~0.4 GB/s"),
        encrypt: Box::new(move |text, out, _| {
            let (from, _) = aes::cipher::Array::slice_as_chunks(text);
            let (to, _) = aes::cipher::Array::slice_as_chunks_mut(&mut out[..TEXT]);
            CbcEnc::new(&key.into(), &iv.into())
                .encrypt_blocks_b2b(from, to)
                .expect("equal lengths");
        }),
        decrypt: Box::new(move |text, out, _| {
            let (from, _) = aes::cipher::Array::slice_as_chunks(text);
            let (to, _) = aes::cipher::Array::slice_as_chunks_mut(&mut out[..TEXT]);
            CbcDec::new(&key.into(), &iv.into())
                .decrypt_blocks_b2b(from, to)
                .expect("equal lengths");
        }),
        tag: 0,
    });
    progress.set_total(codecs.len() as u64);

    let mut copy_secs = None;
    for mut c in codecs {
        // The ciphertext pool for decryption, made by this codec.
        let sealed: Vec<Vec<u8>> = plain
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut out = vec![0u8; TEXT + 16];
                (c.encrypt)(p, &mut out, i);
                out.truncate(TEXT + c.tag);
                out
            })
            .collect();
        let enc = measure(runs, texts, &plain, &mut c.encrypt);
        let dec = measure(runs, texts, &sealed, &mut c.decrypt);
        // Seconds for 100,000 texts at the median rate.
        let per_100k = |f: Figure| Figure {
            median: 100_000.0 * TEXT as f64 / (f.median * 1e9),
            ..f
        };
        let e100 = per_100k(enc);
        let copy = *copy_secs.get_or_insert(e100.median);
        let ratio = Figure {
            median: e100.median / copy,
            spread: None,
            ..e100
        };
        t.row(
            c.label,
            vec![
                Some(enc),
                Some(dec),
                Some(e100),
                Some(per_100k(dec)),
                Some(ratio),
            ],
            c.reference,
        );
        progress.advance(1);
    }
    t.notes.push(format!(
        "{texts} texts per run (--full: 100,000, the published size), median of {runs} runs; times for 100K texts are computed from the median rate"
    ));
    t
}
