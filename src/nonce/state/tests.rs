//! Each check of a state file's line, at its bound (read) and just past it (refused,
//! naming the line): a counter read wrongly is a nonce issued twice, so no bound may
//! loosen unnoticed. The CLI tests hold the words of each refusal; these hold the bounds.

use super::super::{MAX_MACHINE, Mark, Reserve, TS_BITS, Width};
use super::StateFile;

/// What reading a state file of `lines` (after the header) says of machine `m`, width
/// `w`: its mark, or the line and words of the refusal (`None` for a line that is not
/// a state line at all).
fn read(lines: &str, m: u32, w: Width) -> Result<Option<Mark>, (usize, Option<&'static str>)> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("state");
    std::fs::write(&path, format!("veilkit-nonce-state 1\n{lines}")).expect("written");
    StateFile::new(&path).mark(m, w).map_err(|e| match e {
        super::NonceError::StateFormat { line, .. } => (line, None),
        super::NonceError::StateLine { line, why, .. } => (line, Some(why)),
        other => panic!("{other}"),
    })
}

fn mark(highest: u128, at_ts: u64) -> Result<Option<Mark>, (usize, Option<&'static str>)> {
    Ok(Some(Mark { highest, at_ts }))
}

#[test]
fn each_check_of_a_state_line_reads_at_its_bound_and_refuses_past_it() {
    let machine = |why| Err((2, Some(why)));
    // The machine id: at most MAX_MACHINE.
    let most = format!("{MAX_MACHINE} 96 5 0\n");
    assert_eq!(read(&most, MAX_MACHINE, Width::W96), mark(5, 0));
    let past = format!("{} 96 5 0\n", MAX_MACHINE + 1);
    assert_eq!(read(&past, 0, Width::W96), machine("machine id above 511"));
    // The width: 64, 96 or 128 bits.
    for bits in [0, 63, 65, 80, 127, 129, 256] {
        assert_eq!(
            read(&format!("1 {bits} 5 0\n"), 1, Width::W96),
            machine("width is not 64, 96 or 128"),
            "{bits} bits"
        );
    }
    // The counter: at most the width's largest.
    for w in [Width::W64, Width::W96, Width::W128] {
        let (bits, max) = (w.bits(), w.max_c());
        assert_eq!(read(&format!("1 {bits} {max} 0\n"), 1, w), mark(max, 0));
        assert_eq!(
            read(&format!("1 {bits} {} 0\n", max + 1), 1, w),
            machine("counter above the largest of its width (a damaged or foreign file)"),
            "{bits} bits"
        );
    }
    // The reservation time: below 2^TS_BITS milliseconds.
    let last = (1u64 << TS_BITS) - 1;
    assert_eq!(
        read(&format!("1 64 5 {last}\n"), 1, Width::W64),
        mark(5, last)
    );
    assert_eq!(
        read(&format!("1 64 5 {}\n", last + 1), 1, Width::W64),
        machine("reservation time past the year 2164 (a damaged or foreign file)")
    );
    // One line per machine id and width; another width or machine is another line.
    let two = "1 96 5 0\n1 64 7 0\n2 96 9 0\n";
    assert_eq!(read(two, 1, Width::W64), mark(7, 0));
    assert_eq!(read(two, 2, Width::W96), mark(9, 0));
    assert_eq!(read(two, 2, Width::W64), Ok(None));
    assert_eq!(
        read("1 96 5 0\n2 64 7 0\n1 96 9 0\n", 1, Width::W96),
        Err((4, Some("a second line for the same machine id and width")))
    );
    // Three or four fields (no clock mark: 0), each a number of its size, written as
    // docs/NONCES.md says: single spaces, plain decimal digits, `\n` after every line.
    assert_eq!(read("1 96 41\n", 1, Width::W96), mark(41, 0));
    assert_eq!(read("0 96 0 0\n", 0, Width::W96), mark(0, 0));
    for line in [
        " 1 96 41 3\n",
        "1\t96 41 3\n",
        "1 96  41 3\n",
        "1 96 41 3 \n",
        "1 96 41 3\r\n",
        "1 96 +41 3\n",
        "1 96 041 3\n",
        "01 96 41 3\n",
        "\n",
        "1 96 41 3",
        "1 96\n",
        "1 96 5 0 0\n",
        "1 96 x 0\n",
        "1 96 -5 0\n",
        "-1 96 5 0\n",
        "4294967296 96 5 0\n",
        "1 4294967296 5 0\n",
        "1 96 5 18446744073709551616\n",
        "1 96 340282366920938463463374607431768211456 0\n",
    ] {
        assert_eq!(read(line, 1, Width::W96), Err((2, None)), "{line:?}");
        assert_eq!(
            read(&format!("2 64 7 0\n{line}"), 1, Width::W96),
            Err((3, None)),
            "{line:?} after a line"
        );
    }
}

#[test]
fn a_state_file_is_its_header_line_first_in_utf_8() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("state");
    for bytes in [
        &b"veilkit-nonce-state 2\n1 96 5 0\n"[..],
        b"veilkit-nonce-state\n",
        b" veilkit-nonce-state 1\n",
        b"1 96 5 0\n",
        b"veilkit-nonce-state 1\n1 96 5 \xff\n",
        b"veilkit-nonce-state 1\r\n",
        b"veilkit-nonce-state 1",
    ] {
        std::fs::write(&path, bytes).expect("written");
        let got = StateFile::new(&path).mark(1, Width::W96);
        assert!(
            matches!(got, Err(super::NonceError::StateFormat { line: 1, .. })),
            "{:?}: {got:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    // The header alone: no marks.
    std::fs::write(&path, b"veilkit-nonce-state 1\n").expect("written");
    assert_eq!(StateFile::new(&path).mark(1, Width::W96).ok(), Some(None));
    // An empty file was cut short by something else (veilkit replaces it whole): an
    // error, never a fresh state that would issue reserved values again.
    std::fs::write(&path, b"").expect("written");
    let got = StateFile::new(&path).mark(1, Width::W96);
    assert!(
        matches!(got, Err(super::NonceError::StateEmpty(_))),
        "{got:?}"
    );
}
