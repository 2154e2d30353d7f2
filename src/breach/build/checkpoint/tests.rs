//! Each bound a saved state is checked against, just inside and just past it.

use super::*;
use crate::breach::HashKind;
use crate::breach::format::{MAX_TABLE_BITS, Params};

/// What `check` says of `s`: `None` when it passes, else the words of its refusal.
fn refusal(s: &Checkpoint) -> Option<String> {
    let size = match s.table_bits {
        NOT_CHOSEN => 1,
        b => Params::new(HashKind::Sha1, b.min(MAX_TABLE_BITS)).record_size,
    };
    match s.check(size) {
        Ok(()) => None,
        Err(BuildError::Resume(why)) => Some(why),
        Err(e) => panic!("not a refusal to resume: {e}"),
    }
}

/// A state that holds together, with its parameters chosen: 17 table bits, every
/// bucket's offset set (2^17 + 1 of them, three group bases), 10 records.
fn chosen() -> Checkpoint {
    Checkpoint {
        table_bits: 17,
        records: 10,
        padding: 2,
        lines: 12,
        next_bucket: (1 << 17) + 1,
        offsets: vec![0; (1 << 17) + 1],
        bases: vec![0, 5, 5],
        overflow: vec![0; OVERFLOW_ENTRY],
        coverage: Coverage::from_parts(3, Some(7), Some(2)),
        ..Checkpoint::default()
    }
}

/// A state before the parameters are chosen: hashes held, nothing written.
fn early() -> Checkpoint {
    Checkpoint {
        table_bits: NOT_CHOSEN,
        lines: 5,
        pending: vec![(Wide([1, 2, 3]), 4); 5],
        ..Checkpoint::default()
    }
}

/// Each bound of `check`: a state at the bound passes, one just past it is refused
/// with that bound's words (so that no bound is looser, or tighter, than written).
#[test]
fn each_bound_of_a_saved_state_refuses_just_past_it() {
    assert_eq!(refusal(&chosen()), None);
    assert_eq!(refusal(&early()), None);
    let size = Params::new(HashKind::Sha1, 17).record_size;
    type Edit = Box<dyn Fn(&mut Checkpoint)>;
    /// The starting state, the edit, the refusal's words or `None`.
    type Case = (fn() -> Checkpoint, Edit, Option<&'static str>);
    let cases: Vec<Case> = vec![
        (chosen, Box::new(|s| s.lines = 1 << 62), None),
        (
            chosen,
            Box::new(|s| s.lines = (1 << 62) + 1),
            Some("hash counts"),
        ),
        (chosen, Box::new(|s| s.padding = 12), None),
        (chosen, Box::new(|s| s.padding = 13), Some("hash counts")),
        (chosen, Box::new(|s| (s.lines, s.padding) = (10, 0)), None),
        (
            chosen,
            Box::new(|s| (s.lines, s.padding) = (9, 0)),
            Some("hash counts"),
        ),
        (
            chosen,
            Box::new(|s| {
                s.coverage = Coverage::from_parts(PREFIXES, Some(PREFIXES - 1), Some(PREFIXES - 1))
            }),
            None,
        ),
        (
            chosen,
            Box::new(|s| s.coverage = Coverage::from_parts(PREFIXES + 1, None, None)),
            Some("ranges covered"),
        ),
        (
            chosen,
            Box::new(|s| s.coverage = Coverage::from_parts(1, Some(PREFIXES), None)),
            Some("ranges covered"),
        ),
        (
            chosen,
            Box::new(|s| s.coverage = Coverage::from_parts(1, Some(0), Some(PREFIXES))),
            Some("ranges covered"),
        ),
        (
            chosen,
            Box::new(|s| s.pending.push((Wide([0; 3]), 1))),
            Some("hashes held after"),
        ),
        (
            chosen,
            Box::new(|s| s.table_bits = MAX_TABLE_BITS + 1),
            Some("table bits out of range"),
        ),
        (
            chosen,
            Box::new(|s| {
                s.offsets.pop();
            }),
            Some("bucket offsets"),
        ),
        // (`chosen` itself has the most buckets a table of its bits has.)
        (
            chosen,
            Box::new(|s| {
                s.next_bucket += 1;
                s.offsets.push(0);
            }),
            Some("bucket offsets"),
        ),
        (chosen, Box::new(|s| s.bases.push(5)), Some("group bases")),
        (
            chosen,
            Box::new(|s| {
                s.bases.pop();
            }),
            Some("group bases"),
        ),
        (chosen, Box::new(|s| s.bases[0] = 1), Some("group bases")),
        (chosen, Box::new(|s| s.bases = vec![0, 0, 10]), None),
        (
            chosen,
            Box::new(|s| s.bases = vec![0, 6, 5]),
            Some("group bases"),
        ),
        (
            chosen,
            Box::new(|s| s.bases = vec![0, 5, 11]),
            Some("group bases"),
        ),
        (
            chosen,
            Box::new(move |s| {
                (s.records, s.lines) = (BLOCK_SIZE, BLOCK_SIZE);
                s.block_sums = vec![0; size];
            }),
            None,
        ),
        (
            chosen,
            Box::new(move |s| {
                (s.records, s.lines) = (BLOCK_SIZE, BLOCK_SIZE);
                s.block_sums = vec![0; size - 1];
            }),
            Some("block checksums"),
        ),
        (
            chosen,
            Box::new(|s| s.block_sums.push(0)),
            Some("block checksums"),
        ),
        // A record count whose bytes do not fit in 64 bits.
        (
            chosen,
            Box::new(|s| (s.records, s.lines) = (1 << 62, 1 << 62)),
            Some("block checksums"),
        ),
        (
            chosen,
            Box::new(|s| s.overflow.push(0)),
            Some("overflow entries"),
        ),
        (chosen, Box::new(|s| s.overflow.clear()), None),
        (
            early,
            Box::new(|s| s.pending.resize(ESTIMATE_RECORDS - 1, (Wide([0; 3]), 1))),
            None,
        ),
        (
            early,
            Box::new(|s| s.pending.resize(ESTIMATE_RECORDS, (Wide([0; 3]), 1))),
            Some("before the parameters"),
        ),
        (
            early,
            Box::new(|s| s.records = 1),
            Some("before the parameters"),
        ),
        (
            early,
            Box::new(|s| s.next_bucket = 1),
            Some("before the parameters"),
        ),
        (
            early,
            Box::new(|s| s.bases.push(0)),
            Some("before the parameters"),
        ),
        (
            early,
            Box::new(|s| s.offsets.push(0)),
            Some("before the parameters"),
        ),
        (
            early,
            Box::new(|s| s.block_sums.push(0)),
            Some("before the parameters"),
        ),
        (
            early,
            Box::new(|s| s.overflow.push(0)),
            Some("before the parameters"),
        ),
        (early, Box::new(|s| s.padding = 6), Some("hash counts")),
    ];
    for (i, (start, edit, want)) in cases.iter().enumerate() {
        let mut s = start();
        edit(&mut s);
        let got = refusal(&s);
        match (want, &got) {
            (None, None) => {}
            (Some(w), Some(g)) if g.contains(w) => {}
            _ => panic!("case {i}: wanted {want:?}, got {got:?}"),
        }
    }
}
