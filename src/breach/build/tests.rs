//! A build of packed ranges cut off and continued from its checkpoints gives the index
//! an uncut build gives, byte for byte; records that do not match their saved state are
//! refused; a forged state is refused or continued, never a panic.

use super::*;
use crate::breach::coverage::Coverage;
use std::sync::atomic::{AtomicU64, Ordering};

/// Sorted random SHA-1 hashes over the whole hash space, packed as the download packs
/// them, in chunks of about `per` hashes; some counts large (overflow), some 0 (padding).
fn chunks(seed: u64, n: usize, per: usize) -> Vec<Vec<u8>> {
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut hashes: Vec<([u8; 20], u64)> = (0..n)
        .map(|i| {
            let mut h = [0u8; 20];
            h[..8].copy_from_slice(&next().to_be_bytes());
            h[8..16].copy_from_slice(&next().to_be_bytes());
            h[16..].copy_from_slice(&(next() as u32).to_be_bytes());
            let count = match i % 997 {
                0 => 1 << 40,
                1 => 0,
                _ => next() % 300 + 1,
            };
            (h, count)
        })
        .collect();
    hashes.sort();
    hashes.dedup_by(|a, b| a.0 == b.0);
    hashes
        .chunks(per)
        .map(|c| {
            let mut out = Vec::new();
            for &(h, count) in c {
                let mut count = count;
                out.extend_from_slice(&h);
                loop {
                    let b = (count & 0x7f) as u8;
                    count >>= 7;
                    if count == 0 {
                        out.push(b);
                        break;
                    }
                    out.push(b | 0x80);
                }
            }
            out
        })
        .collect()
}

/// Packed ranges from `from` on, with a checkpoint every `every`, failing at `fail_at`.
struct Feed<'a> {
    chunks: &'a [Vec<u8>],
    next: usize,
    every: usize,
    last: usize,
    fail_at: Option<usize>,
    saved: Vec<(usize, Checkpoint)>,
}

impl PackedRanges for Feed<'_> {
    fn next_range(&mut self) -> io::Result<Option<&[u8]>> {
        if Some(self.next) == self.fail_at {
            return Err(io::Error::other("cut off"));
        }
        let c = self.chunks.get(self.next);
        self.next += 1;
        Ok(c.map(Vec::as_slice))
    }

    fn checkpoint_due(&self) -> bool {
        self.next - self.last >= self.every
    }

    fn checkpoint(&mut self, state: Checkpoint) -> io::Result<()> {
        self.saved.push((self.next, state));
        self.last = self.next;
        Ok(())
    }
}

fn build_packed(
    chunks: &[Vec<u8>],
    out: &mut File,
    from: usize,
    every: usize,
    fail_at: Option<usize>,
    resume: Option<Box<Checkpoint>>,
) -> (Result<Summary, BuildError>, Vec<(usize, Checkpoint)>) {
    let dir = tempfile::tempdir().unwrap();
    let mut feed = Feed {
        chunks,
        next: from,
        every,
        last: from,
        fail_at,
        saved: Vec::new(),
    };
    let r = build(
        Source::Packed {
            ranges: &mut feed,
            kind: HashKind::Sha1,
            name: "test".into(),
            resume,
        },
        out,
        Options {
            kind: Some(HashKind::Sha1),
            direct: true,
            ..Options::default()
        },
        dir.path(),
        &crate::progress::NoProgress,
    );
    (r, feed.saved)
}

fn bytes(f: &mut File) -> Vec<u8> {
    let mut v = Vec::new();
    f.seek(SeekFrom::Start(0)).unwrap();
    f.read_to_end(&mut v).unwrap();
    v
}

/// The checkpoints up to and including the `k`th, joined.
fn joined(saved: &[(usize, Checkpoint)], k: usize) -> (usize, Checkpoint) {
    let mut whole = saved[0].1.clone();
    for (_, cp) in &saved[1..=k] {
        whole.extend(cp.clone());
    }
    (saved[k].0, whole)
}

static RUNS: AtomicU64 = AtomicU64::new(0);

/// Builds `n` hashes in chunks of `per`, with a checkpoint every `every` chunks, cut off
/// at a spread of places and continued from the checkpoints before each cut.
fn cut_and_continue(n: usize, per: usize, every: usize, whole_blocks: usize) {
    let chunks = chunks(RUNS.fetch_add(1, Ordering::Relaxed) + 5, n, per);
    let mut whole = tempfile::tempfile().unwrap();
    let (r, saved) = build_packed(&chunks, &mut whole, 0, every, None, None);
    let want_summary = r.unwrap();
    let want = bytes(&mut whole);
    assert!(saved.len() > 10, "{} checkpoints", saved.len());
    // The lists hold only what each checkpoint added: joined, they are the whole state.
    let (_, all) = joined(&saved, saved.len() - 1);
    assert!(all.overflow.len() >= 16 * 100, "overflow entries saved");
    assert_eq!(all.block_sums.len(), whole_blocks);

    // Cut right after a checkpoint, between two, and after the last; continued from
    // the last checkpoint before the cut, or the one before it (a checkpoint whose
    // saving was cut off: the file then holds records past the state).
    let at = |k: usize| saved[k].0;
    for cut in [at(0), at(3) + 4, at(8) - 1, chunks.len() - 1] {
        for back in 0..2 {
            let mut out = tempfile::tempfile().unwrap();
            let (r, got) = build_packed(&chunks, &mut out, 0, every, Some(cut), None);
            assert!(r.is_err(), "cut at {cut}");
            assert_eq!(got[..], saved[..got.len()], "the same checkpoints");
            let Some(k) = got.len().checked_sub(1 + back) else {
                continue;
            };
            let (from, state) = joined(&got, k);
            let (r, _) = build_packed(&chunks, &mut out, from, every, None, Some(Box::new(state)));
            let summary = r.unwrap();
            assert_eq!(summary.header, want_summary.header);
            assert_eq!(summary.ranges, want_summary.ranges);
            assert_eq!(summary.padding_skipped, want_summary.padding_skipped);
            assert!(
                bytes(&mut out) == want,
                "continued from checkpoint {k} (cut at {cut})"
            );
        }
    }
}

#[test]
fn a_build_cut_off_and_continued_from_any_checkpoint_is_the_uncut_build() {
    // Over 65,536 hashes, so that the parameters are chosen early (checkpoints only
    // come after that); records in the first 16 MiB block, which is read back.
    cut_and_continue(150_000, 700, 9, 0);
}

#[test]
fn a_build_continued_past_whole_blocks_is_the_uncut_build() {
    // 18-byte records past 16 MiB: one whole block checked by its saved checksum.
    cut_and_continue(1_000_000, 4000, 20, 1);
}

#[test]
fn records_that_differ_from_their_saved_state_are_refused() {
    let chunks = chunks(99, 120_000, 600);
    let mut out = tempfile::tempfile().unwrap();
    let (r, saved) = build_packed(&chunks, &mut out, 0, 20, Some(150), None);
    assert!(r.is_err());
    let (from, state) = joined(&saved, saved.len() - 1);
    let good = bytes(&mut out);
    let end = HEADER_SIZE + state.records as usize * 18;
    assert!(good.len() >= end);
    // A flipped bit among the saved records, or the file cut short: refused, and the
    // file left as it was.
    for damage in 0..2 {
        let mut b = good.clone();
        if damage == 0 {
            b[HEADER_SIZE + 12_345] ^= 4;
        } else {
            b.truncate(end - 1);
        }
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&b).unwrap();
        let (r, _) = build_packed(
            &chunks,
            &mut f,
            from,
            20,
            None,
            Some(Box::new(state.clone())),
        );
        let e = r.expect_err("refused");
        assert!(matches!(e, BuildError::Resume(_)), "{e}");
        assert!(bytes(&mut f) == b, "left as it was");
    }
    // A state whose lists do not hold together: refused.
    let mut bad = state.clone();
    bad.offsets.pop();
    let mut f = tempfile::tempfile().unwrap();
    f.write_all(&good).unwrap();
    let (r, _) = build_packed(&chunks, &mut f, from, 20, None, Some(Box::new(bad)));
    assert!(matches!(r, Err(BuildError::Resume(_))));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
    /// A saved state whose checksums hold but whose counters were changed (a state
    /// written by something else than veilkit): the continued build ends in an index or
    /// an error, never a panic, an abort or an allocation the state alone decides.
    #[test]
    fn a_forged_state_never_panics(field in 0usize..13, value in proptest::prelude::any::<u64>(), small in 0u64..1024) {
        use std::sync::OnceLock;
        /// The chunks, the file a cut build left, and its saved state.
        type Cut = (Vec<Vec<u8>>, Vec<u8>, usize, Checkpoint);
        static CUT: OnceLock<Cut> = OnceLock::new();
        let (chunks, good, from, state) = CUT.get_or_init(|| {
            let chunks = chunks(7, 120_000, 600);
            let mut out = tempfile::tempfile().unwrap();
            let (r, saved) = build_packed(&chunks, &mut out, 0, 20, Some(150), None);
            assert!(r.is_err());
            let (from, state) = joined(&saved, saved.len() - 1);
            (chunks, bytes(&mut out), from, state)
        });
        let mut s = state.clone();
        // Half the cases take a value near the true one (past the first checks).
        let v = |old: u64| if value % 2 == 0 { value } else { old.wrapping_add(small).wrapping_sub(512) };
        match field {
            0 => s.table_bits = v(u64::from(s.table_bits)) as u32,
            1 => s.records = v(s.records),
            2 => s.padding = v(s.padding),
            3 => s.max_count = v(s.max_count),
            4 => s.total_count = v(s.total_count),
            5 => s.next_bucket = v(s.next_bucket),
            6 => s.lines = v(s.lines),
            7 => s.last = s.last.map(|(h, l)| (Wide([v(h.0[0]), h.0[1], h.0[2]]), l)),
            8 => s.last = s.last.map(|(h, l)| (h, v(l))),
            9 => {
                let (held, last, gap) = s.coverage.parts();
                s.coverage = Coverage::from_parts(v(u64::from(held)) as u32, last, gap);
            }
            10 => {
                let (held, last, gap) = s.coverage.parts();
                s.coverage = Coverage::from_parts(held, Some(v(u64::from(last.unwrap_or(0))) as u32), gap);
            }
            11 => {
                if let Some(o) = s.offsets.last_mut() {
                    *o = v(u64::from(*o)) as u32;
                }
            }
            _ => {
                if let Some(b) = s.bases.last_mut() {
                    *b = v(*b);
                }
            }
        }
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(good).unwrap();
        let (r, _) = build_packed(chunks, &mut f, *from, 20, None, Some(Box::new(s)));
        // A state forged so that it is refused leaves the file as it was.
        if let Err(BuildError::Resume(_)) = r {
            proptest::prop_assert!(&bytes(&mut f) == good);
        }
    }
}
