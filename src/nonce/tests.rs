//! Tests of nonces: layouts, ciphers, and uniqueness under an injectable clock.

use super::cipher::NonceCipher;
use super::format::Format;
use super::state::StateFile;
use super::*;
use std::cell::Cell;
use std::collections::HashSet;

/// A clock the test moves; sleeping advances both clocks.
#[derive(Default)]
struct FakeClock {
    wall: Cell<u64>,
    mono: Cell<u64>,
    slept: Cell<u64>,
}

impl FakeClock {
    fn at(unix_ms: u64) -> FakeClock {
        let c = FakeClock::default();
        c.wall.set(unix_ms);
        c
    }
    fn advance(&self, ms: u64) {
        self.wall.set(self.wall.get() + ms);
        self.mono.set(self.mono.get() + ms);
    }
}

impl Clock for &FakeClock {
    fn unix_ms(&self) -> u64 {
        self.wall.get()
    }
    fn monotonic_ms(&self) -> u64 {
        self.mono.get()
    }
    fn sleep_ms(&self, ms: u64) {
        self.slept.set(self.slept.get() + ms);
        self.advance(ms);
    }
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn be(width: Width, v: u128) -> String {
    let mut out = Vec::new();
    Format::Hex.write(width, v, &mut out);
    String::from_utf8(out).unwrap().trim_end().to_string()
}

/// NoNoncense's layout examples (shared vectors, section 4).
#[test]
fn layouts_match_nononcense() {
    let ts = 0x000d_e257_bf17_u64;
    let c64 = Width::W64.floor(ts);
    assert_eq!(
        be(Width::W64, Width::W64.compose(c64, 5)),
        "037895efc5c0a000"
    );
    assert_eq!(
        be(Width::W96, Width::W96.compose(Width::W96.floor(ts) + 1, 5)),
        "037895efc5c0a00000000001"
    );
    assert_eq!(
        be(Width::W128, Width::W128.compose(Width::W128.floor(ts), 5)),
        "037895efc5c0a0000000000000000000"
    );
    for w in [Width::W64, Width::W96, Width::W128] {
        let v = w.compose(w.floor(ts) + 7, 300);
        assert_eq!(w.decompose(v), (ts, 300, 7));
        assert!(v >> w.bits().min(127) == 0 || w.bits() == 128);
    }
}

/// Published test vectors of each cipher, and NoNoncense's derived-key vectors.
#[test]
fn cipher_test_vectors() {
    let check = |w: Width, key: &str, pt: &str, ct: &str| {
        let c = NonceCipher::from_raw(w, &unhex(key)).unwrap();
        let mut pad = [0u8; 16];
        pad[16 - w.bytes()..].copy_from_slice(&unhex(pt));
        let mut v = [u128::from_be_bytes(pad)];
        c.encrypt_many(&mut v);
        assert_eq!(be(w, v[0]), ct, "{w:?} {key}");
        c.decrypt_many(&mut v);
        assert_eq!(be(w, v[0]), pt);
    };
    // FIPS-197 C.3 (AES-256).
    check(
        Width::W128,
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "00112233445566778899aabbccddeeff",
        "8ea2b7ca516745bfeafc49904b496089",
    );
    // Speck96/144 (Beaulieu et al., "The SIMON and SPECK families", appendix C).
    check(
        Width::W96,
        "1514131211100d0c0b0a0908050403020100",
        "656d6974206e69202c726576",
        "2bf31072228a7ae440252ee6",
    );
    // Blowfish (Eric Young's vectors).
    check(
        Width::W64,
        "0000000000000000",
        "0000000000000000",
        "4ef997456198dd78",
    );
    check(
        Width::W64,
        "ffffffffffffffff",
        "ffffffffffffffff",
        "51866fd5b85ecb8a",
    );
    check(
        Width::W64,
        "3000000000000000",
        "1000000000000001",
        "7d856f9a613063f2",
    );
    // NoNoncense v2 (PBKDF2-derived keys given in the vectors).
    check(
        Width::W128,
        "5506b42e8ce90d05c58f38809c50d0889f3856e77fba6d423ecac3ad457f4ff7",
        "0123456789abcdef0011223344556677",
        "9da50d98b5f5975524088236501f2a09",
    );
    check(
        Width::W64,
        "f612dd759c4cb3df5d9601fe9745e4a0",
        "0123456789abcdef",
        "c5ac8e8fbd4a0e6d",
    );
}

const JAN_2026: u64 = EPOCH_UNIX_MS + 365 * 86_400_000;

fn generator<'a>(
    w: Width,
    k: Kind,
    clock: &'a FakeClock,
    r: &'a mut MemoryReserve,
) -> Generator<&'a FakeClock, &'a mut MemoryReserve> {
    let cipher = (k == Kind::Encrypted).then(|| {
        NonceCipher::from_raw(
            w,
            &[7u8; 32][..if w == Width::W96 {
                18
            } else if w == Width::W64 {
                16
            } else {
                32
            }],
        )
        .unwrap()
    });
    Generator::new(w, k, 3, clock, r, cipher).unwrap()
}

#[test]
fn values_are_unique_across_kinds_restarts_and_a_clock_set_back() {
    for w in [Width::W64, Width::W96, Width::W128] {
        let clock = FakeClock::at(JAN_2026);
        let mut reserve = MemoryReserve::default();
        let mut seen = HashSet::new();
        for round in 0..6 {
            let kind = [Kind::Counter, Kind::Sortable, Kind::Encrypted][round % 3];
            // A restart: a new generator on the same reservations.
            let mut g = generator(w, kind, &clock, &mut reserve);
            let mut out = vec![0u128; 20_000];
            g.fill(&mut out).unwrap();
            for v in &out {
                if kind != Kind::Encrypted {
                    assert!(seen.insert(*v), "{w:?} {kind:?} repeated a value");
                }
            }
            let distinct: HashSet<_> = out.iter().collect();
            assert_eq!(distinct.len(), out.len());
            clock.advance(3);
            if round == 2 {
                // The clock is set back by an hour.
                clock.wall.set(clock.wall.get() - 3_600_000);
            }
        }
        // No stall of the size of the step back.
        assert!(
            clock.slept.get() < 60_000,
            "{w:?} slept {} ms",
            clock.slept.get()
        );
    }
}

#[test]
fn sixty_four_bit_counters_never_run_ahead_of_the_clock() {
    let clock = FakeClock::at(JAN_2026);
    let mut reserve = MemoryReserve::default();
    for kind in [Kind::Counter, Kind::Sortable, Kind::Encrypted] {
        let mut g = generator(Width::W64, kind, &clock, &mut reserve);
        let mut out = vec![0u128; 8192 * 3 + 5];
        let before = clock.slept.get();
        g.fill(&mut out).unwrap();
        // 3 ms worth from a clock that only moves when we wait: we had to wait.
        assert!(clock.slept.get() > before, "{kind:?} did not wait");
        let now = clock.wall.get() - EPOCH_UNIX_MS;
        if kind != Kind::Encrypted {
            for v in &out {
                let (ts, m, _) = Width::W64.decompose(*v);
                assert!(ts <= now, "timestamp ahead of the clock");
                assert_eq!(m, 3);
            }
        }
        let distinct: HashSet<_> = out.iter().collect();
        assert_eq!(distinct.len(), out.len());
    }
}

/// 64-bit values reserved far ahead of the clock (a state line without a clock mark, or
/// a large run's reservation) are refused, not waited out: the throttle used to sleep
/// until the clock reached them, years for a mark near the end of the epoch. A wait up
/// to the bound is waited; the refused reservation is given back.
#[test]
fn sixty_four_bit_values_far_ahead_of_the_clock_are_refused_not_waited_for() {
    let now = JAN_2026 - EPOCH_UNIX_MS;
    for kind in [Kind::Counter, Kind::Sortable, Kind::Encrypted] {
        for (ahead_ms, refused) in [
            (MAX_WAIT_MS - 1, false),
            (MAX_WAIT_MS, false),
            (MAX_WAIT_MS + 1, true),
            (1 << 41, true),
        ] {
            let clock = FakeClock::at(JAN_2026);
            let mut reserve = MemoryReserve::default();
            // The last value reserved: `ahead_ms` past now, no clock mark (as a line of
            // three fields reads).
            let highest = Width::W64.floor(now + ahead_ms) - 1;
            let mark = Mark { highest, at_ts: 0 };
            reserve.marks.insert((3, Width::W64), mark);
            let mut g = generator(Width::W64, kind, &clock, &mut reserve);
            let mut out = vec![0u128; 10];
            let got = g.fill(&mut out);
            if refused {
                match got {
                    Err(NonceError::Ahead { machine: 3, ms }) => {
                        assert_eq!(ms, ahead_ms, "{kind:?}")
                    }
                    other => panic!("{kind:?} {ahead_ms} ms ahead: {other:?}"),
                }
                assert_eq!(clock.slept.get(), 0, "{kind:?} waited before refusing");
                drop(g);
                assert_eq!(reserve.marks[&(3, Width::W64)].highest, highest);
            } else {
                got.unwrap();
                assert_eq!(clock.slept.get(), ahead_ms, "{kind:?}");
                let first = Width::W64.decompose(out[0]);
                if kind != Kind::Encrypted {
                    assert_eq!(first, (now + ahead_ms, 3, 0), "{kind:?}");
                }
            }
        }
    }
}

#[test]
fn sortable_values_follow_the_clock_and_increase() {
    for w in [Width::W64, Width::W96, Width::W128] {
        let clock = FakeClock::at(JAN_2026);
        let mut reserve = MemoryReserve::default();
        let mut g = generator(w, Kind::Sortable, &clock, &mut reserve);
        let mut last = 0u128;
        for step in 0..50u64 {
            let mut out = [0u128; 10];
            g.fill(&mut out).unwrap();
            for v in out {
                assert!(v > last, "{w:?} not increasing");
                last = v;
                let (ts, _, _) = w.decompose(v);
                assert_eq!(ts, clock.wall.get() - EPOCH_UNIX_MS, "{w:?} step {step}");
            }
            clock.advance(1 + step % 3);
        }
    }
}

#[test]
fn encrypted_values_decrypt_to_their_counters() {
    for w in [Width::W64, Width::W96, Width::W128] {
        let clock = FakeClock::at(JAN_2026);
        let mut r1 = MemoryReserve::default();
        let mut r2 = MemoryReserve::default();
        let mut plain = vec![0u128; 100];
        let mut enc = vec![0u128; 100];
        generator(w, Kind::Counter, &clock, &mut r1)
            .fill(&mut plain)
            .unwrap();
        generator(w, Kind::Encrypted, &clock, &mut r2)
            .fill(&mut enc)
            .unwrap();
        assert_ne!(plain, enc);
        let c = NonceCipher::from_raw(
            w,
            &[7u8; 32][..if w == Width::W96 {
                18
            } else if w == Width::W64 {
                16
            } else {
                32
            }],
        )
        .unwrap();
        c.decrypt_many(&mut enc);
        assert_eq!(plain, enc);
    }
}

/// Millions of encrypted values without a repeat (the fake clock makes the 64-bit
/// throttle free; the CLI test and the bench check real time).
#[test]
fn a_long_encrypted_stream_has_no_duplicates() {
    for (w, n) in [
        (Width::W64, 4_000_000usize),
        (Width::W96, 2_000_000),
        (Width::W128, 2_000_000),
    ] {
        let clock = FakeClock::at(JAN_2026);
        let mut reserve = MemoryReserve::default();
        let mut g = generator(w, Kind::Encrypted, &clock, &mut reserve);
        let mut out = vec![0u128; n];
        g.fill(&mut out).unwrap();
        out.sort_unstable();
        out.dedup();
        assert_eq!(out.len(), n, "{w:?}");
    }
}

#[test]
fn state_files_keep_processes_and_restarts_disjoint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub").join("state");
    let clock = FakeClock::at(JAN_2026);
    let mut all = HashSet::new();
    // Threads with their own handles: like processes, they exclude each other.
    let handles: Vec<_> = (0..6)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                let clock = FakeClock::at(JAN_2026);
                let mut out = Vec::new();
                for _ in 0..20 {
                    let mut state = StateFile::new(&path);
                    let mut g =
                        Generator::new(Width::W96, Kind::Counter, 9, &clock, &mut state, None)
                            .unwrap();
                    let mut v = vec![0u128; 50 + t];
                    g.fill(&mut v).unwrap();
                    out.extend(v);
                }
                out
            })
        })
        .collect();
    for h in handles {
        for v in h.join().unwrap() {
            assert!(all.insert(v), "two processes issued the same value");
        }
    }
    // A restart with the clock an hour back continues after the reserved values.
    clock.wall.set(JAN_2026 - 3_600_000);
    let mut state = StateFile::new(&path);
    let mut g = Generator::new(Width::W96, Kind::Sortable, 9, &clock, &mut state, None).unwrap();
    let mut v = vec![0u128; 1000];
    g.fill(&mut v).unwrap();
    for x in v {
        assert!(all.insert(x));
    }
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("veilkit-nonce-state 1\n9 96 "), "{text}");
    assert_eq!(text.lines().nth(1).unwrap().split(' ').count(), 4, "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    // A damaged state file is an error, not a fresh start.
    std::fs::write(&path, "something else\n").unwrap();
    let mut state = StateFile::new(&path);
    assert!(Generator::new(Width::W96, Kind::Counter, 9, &clock, &mut state, None).is_err());
}

#[test]
fn text_forms_round_trip() {
    for w in [Width::W64, Width::W96, Width::W128] {
        for v in [
            0u128,
            1,
            0x0123_4567_89ab_cdef,
            if w == Width::W128 {
                u128::MAX
            } else {
                (1 << w.bits()) - 1
            },
        ] {
            for f in [Format::Hex, Format::Base64, Format::Base32, Format::Decimal] {
                let mut out = Vec::new();
                f.write(w, v, &mut out);
                assert_eq!(out.last(), Some(&b'\n'));
                let text = &out[..out.len() - 1];
                assert_eq!(f.parse(w, text), Ok(v), "{w:?} {f:?}");
            }
            let mut bin = Vec::new();
            Format::Binary.write(w, v, &mut bin);
            assert_eq!(bin.len(), w.bytes());
        }
    }
    assert!(Format::Hex.parse(Width::W64, b"0123").is_err());
    assert!(
        Format::Decimal
            .parse(Width::W64, b"18446744073709551616")
            .is_err()
    );
}

#[test]
fn machine_ids_are_checked() {
    let clock = FakeClock::at(JAN_2026);
    let mut r = MemoryReserve::default();
    assert!(Generator::new(Width::W64, Kind::Counter, 512, &clock, &mut r, None).is_err());
    let before = FakeClock::at(EPOCH_UNIX_MS - 1);
    assert!(Generator::new(Width::W64, Kind::Counter, 1, &before, &mut r, None).is_err());
}

#[test]
fn bulk_writing_matches_one_by_one() {
    for w in [Width::W64, Width::W96, Width::W128] {
        let values: Vec<u128> = (0..50u128)
            .map(|i| {
                i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c)
                    & (if w == Width::W128 {
                        u128::MAX
                    } else {
                        (1 << w.bits()) - 1
                    })
            })
            .collect();
        for f in [
            Format::Hex,
            Format::Base64,
            Format::Base32,
            Format::Decimal,
            Format::Binary,
        ] {
            let mut one = Vec::new();
            for &v in &values {
                f.write(w, v, &mut one);
            }
            let mut many = vec![b'x'];
            f.write_many(w, &values, &mut many);
            assert_eq!(&many[1..], &one[..], "{w:?} {f:?}");
        }
    }
}

/// The vectors of docs/NONCES.md ("Test vectors"), read from the document itself: every
/// row's value is recomputed from its kind, width, machine id, timestamp and count, with
/// the key of docs/KEYS.md (bytes 00..1f, id 1), and so are the subkeys listed.
#[test]
fn documented_vectors() {
    use super::cipher::NonceCipher;
    let doc = include_str!("../../docs/NONCES.md");
    let key = crate::keys::MasterKey::new(1, std::array::from_fn(|i| i as u8));
    let section = doc
        .split("## Test vectors")
        .nth(1)
        .expect("docs/NONCES.md has a Test vectors section");
    let mut rows = 0;
    for line in section.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 3 {
            continue;
        }
        match cells[1] {
            "subkey" => {
                // | subkey | purpose | length | hex |
                let mut out = vec![0u8; cells[3].parse().unwrap()];
                key.derive(cells[2].trim_matches('`'), b"", &mut out);
                assert_eq!(
                    crate::hex::lower_string(&out),
                    cells[4].trim_matches('`'),
                    "{line}"
                );
                rows += 1;
            }
            kind @ ("counter" | "sortable" | "encrypted") => {
                // | kind | width | machine | ts | count | value |
                let width = Width::from_bits(cells[2].parse().unwrap()).unwrap();
                let machine: u32 = cells[3].parse().unwrap();
                let ts: u64 = cells[4].parse().unwrap();
                let count: u128 = cells[5].parse().unwrap();
                let c = width.floor(ts) + count;
                let mut v = [width.compose(c, machine)];
                if kind == "encrypted" {
                    NonceCipher::new(width, &key).encrypt_many(&mut v);
                }
                let hex = format!("{:0w$x}", v[0], w = width.bytes() * 2);
                assert_eq!(hex, cells[6].trim_matches('`'), "{line}");
                rows += 1;
            }
            _ => {}
        }
    }
    assert_eq!(rows, 12, "9 values and 3 subkeys");
}

/// A fence (the guard's lease) is asked before every run of values, after any wait of
/// the 64-bit throttle, and its error stops the generator: a lease that lapsed while the
/// generator waited for the clock is caught before a value is made.
#[test]
fn a_fence_is_asked_after_every_wait_and_stops_the_generator() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    let clock = FakeClock::at(JAN_2026);
    let mut reserve = MemoryReserve::default();
    let calls = Arc::new(AtomicU64::new(0));
    let c = calls.clone();
    let mut g = Generator::new(Width::W64, Kind::Counter, 3, &clock, &mut reserve, None)
        .unwrap()
        .with_fence(Box::new(move || {
            if c.fetch_add(1, Ordering::SeqCst) < 2 {
                Ok(())
            } else {
                Err(NonceError::LeaseLost {
                    machine: 3,
                    guard: "test".into(),
                })
            }
        }));
    let mut v = vec![0u128; 8192];
    g.fill(&mut v).unwrap();
    let mut v = vec![0u128; 3 * 8192];
    let e = g.fill(&mut v).unwrap_err();
    assert!(matches!(e, NonceError::LeaseLost { machine: 3, .. }), "{e}");
    assert!(
        clock.slept.get() > 0,
        "the throttle waited before the fence said no"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}
