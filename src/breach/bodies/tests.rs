//! Bodies files against the range bodies they stand for, and damaged ones.

use super::*;
use crate::breach::index::Index;
use crate::breach::tests::{VECTOR_DUMP, build_bytes};
use crate::progress::NoProgress;
use proptest::prelude::*;

/// An index of `n` SHA-1 hashes from `seed`, some sharing a prefix.
fn index(n: usize, seed: u64) -> Index {
    let mut x = seed | 1;
    let mut hashes: Vec<[u8; 20]> = (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut h = [0u8; 20];
            h[..8].copy_from_slice(&x.to_be_bytes());
            h[8..16].copy_from_slice(&x.rotate_left(31).to_be_bytes());
            if i % 3 == 0 {
                // Shares the first 20 bits with the one drawn before.
                h[..2].copy_from_slice(&[0xAB, 0xCD]);
                h[2] = 0xE0 | (h[2] & 0x0F);
            }
            h
        })
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    let dump: String = hashes
        .iter()
        .enumerate()
        .map(|(i, h)| format!("{}:{}\n", const_hex::encode_upper(h), i * 37 + 1))
        .collect();
    Index::from_bytes(build_bytes(dump.as_bytes(), None).unwrap()).unwrap()
}

fn written(index: &Index, level: i32, threads: usize) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let s = write(index, level, threads, &mut out, &NoProgress).unwrap();
    let bytes = out.into_inner();
    assert_eq!(s.file_len, bytes.len() as u64);
    bytes
}

/// Every prefix's frame decodes to the range body the index gives, with its XXH3 as the
/// body checksum; totals as the index's; any thread count writes the same bytes.
#[test]
fn frames_decode_to_the_range_bodies() {
    let index = index(3000, 7);
    let bytes = written(&index, 3, 2);
    assert_eq!(bytes, written(&index, 3, 1));
    let bodies = Bodies::from_bytes(&bytes).unwrap();
    assert!(bodies.made_from(index.bytes()));
    assert_eq!(bodies.kind(), HashKind::Sha1);
    assert_eq!(bodies.level(), 3);
    let mut total = 0;
    for p in 0..PREFIXES {
        let f = bodies.frame(p).unwrap();
        let mut body = Vec::new();
        crate::breach::ranges::range_body(&index, p, &mut body).unwrap();
        let decoded = zstd::decode_all(f.bytes).unwrap();
        assert_eq!(decoded, body, "prefix {p:05X}");
        assert_eq!(f.body_xxh3, xxh3_64(&body));
        // A frame says its content size (clients size their buffer by it).
        assert_eq!(
            zstd::zstd_safe::get_frame_content_size(f.bytes).unwrap(),
            Some(body.len() as u64)
        );
        total += body.len() as u64;
    }
    assert_eq!(bodies.totals(), (index.header().records, total));
    bodies.verify(&NoProgress).unwrap();
    // Made from another index: refused.
    let other = self::index(3000, 8);
    assert!(!bodies.made_from(other.bytes()));
    assert!(matches!(
        bodies.check_made_from(other.bytes()),
        Err(BodiesError::OtherIndex)
    ));
}

/// Levels outside Zstandard's are refused before anything is written.
#[test]
fn levels_outside_zstandards_are_refused() {
    let index = index(10, 1);
    for level in [0, 23, -1] {
        let mut out = std::io::Cursor::new(Vec::new());
        assert!(matches!(
            write(&index, level, 1, &mut out, &NoProgress),
            Err(write::WriteError::Level(_))
        ));
        assert!(out.into_inner().is_empty());
    }
}

/// Not a bodies file, another version, a short file: named.
#[test]
fn foreign_and_short_files_are_named() {
    let index = index(100, 3);
    let bytes = written(&index, 1, 1);
    let mut foreign = bytes.clone();
    foreign[..8].copy_from_slice(b"VKBREACH");
    assert!(matches!(
        Bodies::from_bytes(&foreign),
        Err(BodiesError::Magic)
    ));
    let mut newer = bytes.clone();
    newer[8] = 2;
    assert!(matches!(
        Bodies::from_bytes(&newer),
        Err(BodiesError::Version(2))
    ));
    for cut in [0, 100, FRAMES_AT - 1, bytes.len() - 1] {
        assert!(
            matches!(
                Bodies::from_bytes(&bytes[..cut]),
                Err(BodiesError::Corrupt(_))
            ),
            "cut at {cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Bodies::from_bytes(&longer).is_err());
}

/// A flipped byte anywhere is an error when the file is opened or when the frame it is
/// in is read; a frame read is never other than its body's (the bytes no reader looks
/// at, the header's and the table's zero padding, aside).
#[test]
fn a_flipped_byte_never_yields_another_body() {
    let index = index(400, 11);
    let bytes = written(&index, 1, 1);
    let bodies = Bodies::from_bytes(&bytes).unwrap();
    let good: Vec<(Vec<u8>, u64)> = (0..PREFIXES)
        .map(|p| {
            let f = bodies.frame(p).unwrap();
            (f.bytes.to_vec(), f.body_xxh3)
        })
        .collect();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 48,
        ..ProptestConfig::default()
    });
    // Places that matter: the header's fields, the table, the frames.
    let places = prop_oneof![
        0..HEADER_USED + 8,
        HEADER_SIZE..HEADER_SIZE + TABLE_LEN,
        FRAMES_AT..bytes.len(),
    ];
    runner
        .run(&(places, 1u8..=255), |(at, x)| {
            let mut damaged = bytes.clone();
            damaged[at] ^= x;
            let Ok(b) = Bodies::from_bytes(&damaged) else {
                return Ok(());
            };
            // Opened: the damage is in a frame; reading it is an error, every other
            // frame as it was.
            let mut failed = 0;
            for (p, (frame, sum)) in good.iter().enumerate() {
                match b.frame(p as u32) {
                    Ok(f) => {
                        prop_assert_eq!(f.bytes, &frame[..]);
                        prop_assert_eq!(f.body_xxh3, *sum);
                    }
                    Err(_) => failed += 1,
                }
            }
            prop_assert_eq!(failed, 1);
            prop_assert!(b.verify(&NoProgress).is_err());
            Ok(())
        })
        .unwrap();
}

/// The vector of docs/BREACH-FORMAT.md, "Compressed range bodies".
#[test]
fn bodies_test_vector() {
    let index = Index::from_bytes(build_bytes(VECTOR_DUMP.as_bytes(), None).unwrap()).unwrap();
    let bytes = written(&index, 3, 1);
    let b = Bodies::from_bytes(&bytes).unwrap();
    let hexs = |v: &[u8]| const_hex::encode(v);
    let le = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    // An empty body: a raw block of nothing, content size 0, checksum of nothing.
    let empty = b.frame(0).unwrap();
    assert_eq!(hexs(empty.bytes), "28b52ffd240001000099e9d851");
    assert_eq!(empty.body_xxh3, 0x2d06800538d394c2);
    // 5BAA6: one raw block of its 43-byte body.
    let f = b.frame(0x5BAA6).unwrap();
    assert_eq!(
        hexs(f.bytes),
        concat!(
            "28b52ffd242b590100",
            "31453443394239334633463036383232353042364346383333314237454536384644383a33383631343933",
            "865c63b1"
        )
    );
    let body = b"1E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493";
    assert_eq!(f.body_xxh3, xxh3_64(body));
    assert_eq!(f.body_xxh3, 0x9c02a465da4762fc);
    // Its entry: frame end 4,881,062 (375,462 empty frames of 13 bytes before it, then
    // its 56), body checksum, frame checksum.
    let e = HEADER_SIZE + 0x5BAA6 * ENTRY;
    assert_eq!(
        (le(e), le(e + 8), le(e + 16)),
        (4_881_062, 0x9c02a465da4762fc, 0x11e6100de06d8c03)
    );
    // The header: frames 13,631,654 bytes (1,048,572 empty frames and four of 56, 57, 51
    // and 54: raw blocks of the bodies, 166 bytes in all), the file 38,801,574.
    assert_eq!(&bytes[..8], b"VKBODIES");
    assert_eq!(
        [
            le(24),
            le(32),
            le(40),
            le(48),
            le(56),
            le(64),
            le(80),
            le(88)
        ],
        [
            1 << 20,
            4096,
            25_165_824,
            25_169_920,
            13_631_654,
            38_801_574,
            4,
            166
        ]
    );
    assert_eq!(&bytes[96..96 + 256], &index.bytes()[..256]);
    assert_eq!(le(352), xxh3_64(&bytes[..352]));
}
