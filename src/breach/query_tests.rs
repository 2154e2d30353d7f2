//! The query stream against a reading of each line alone: every answer in its place,
//! every bad line named with its number and problem, across batches of lookups, blocks
//! of lines and short reads.

use super::HashKind;
use super::format::Wide;
use super::index::Index;
use super::query::{self, Input, LineProblem, QueryError, Source};
use super::tests::{build_bytes, dump_text};
use super::tier::AnyIndex;
use crate::streams::Pieces;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Passwords held in every test index (with the count `100 + i`).
const PASSWORDS: [&str; 6] = ["password", "123456", "hunter2", "pässword", "", "a b\tc"];

/// One input line, before its line end.
#[derive(Debug, Clone)]
enum Line {
    /// A held record's hash (by its place among the records), upper case or not.
    Held(prop::sample::Index, bool),
    /// Any hash of the right length (rarely held).
    Any(Vec<u8>),
    /// Hex digits of another length.
    Length(usize),
    /// A held hash with one byte replaced.
    Byte(prop::sample::Index, prop::sample::Index, u8),
    /// A held password.
    Password(prop::sample::Index),
    /// Any bytes (a password, or a bad hash).
    Bytes(Vec<u8>),
}

fn line_strategy() -> impl Strategy<Value = Line> {
    prop_oneof![
        6 => (any::<prop::sample::Index>(), any::<bool>()).prop_map(|(i, u)| Line::Held(i, u)),
        2 => proptest::collection::vec(any::<u8>(), 20).prop_map(Line::Any),
        1 => (0usize..44).prop_map(Line::Length),
        1 => (any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<u8>())
            .prop_map(|(i, at, b)| Line::Byte(i, at, b)),
        2 => any::<prop::sample::Index>().prop_map(Line::Password),
        1 => proptest::collection::vec(any::<u8>(), 0..12).prop_map(Line::Bytes),
    ]
}

/// A line's answer read alone, with nothing of the query code: its hex digits decoded
/// pair by pair and looked up in the map (hashes), or the password hashed and looked up.
fn reference(
    kind: HashKind,
    input: Input,
    records: &BTreeMap<Vec<u8>, u64>,
    line: &[u8],
) -> Result<String, LineProblem> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match input {
        Input::Passwords => {
            let h = kind.hash_password(line).map_err(|_| LineProblem::NotUtf8)?;
            let count = records.get(&h.to_be_bytes()[..kind.hex_len() / 2]);
            Ok(format!("{}\n", count.copied().unwrap_or(0)))
        }
        Input::Hashes => {
            if line.len() != kind.hex_len() {
                return Err(LineProblem::HashLength {
                    found: line.len(),
                    expected: kind.hex_len(),
                    kind: kind.name(),
                });
            }
            if !line.iter().all(u8::is_ascii_hexdigit) {
                return Err(LineProblem::NotHex);
            }
            let text = std::str::from_utf8(line).expect("hex digits");
            let bytes: Vec<u8> = (0..text.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
                .collect();
            let count = records.get(&bytes).copied().unwrap_or(0);
            Ok(format!("{}:{count}\n", text.to_ascii_uppercase()))
        }
    }
}

/// The text of one line.
fn line_text(kind: HashKind, held: &[(&Vec<u8>, &u64)], line: &Line) -> Vec<u8> {
    let hex = |h: &[u8]| {
        let mut out = vec![0u8; kind.hex_len()];
        kind.write_hex(&Wide::from_be_prefix(h), &mut out);
        out
    };
    match line {
        Line::Held(i, upper) => {
            let t = hex(i.get(held).0);
            if *upper { t } else { t.to_ascii_lowercase() }
        }
        Line::Any(h) => hex(&h[..kind.hex_len() / 2]),
        Line::Length(n) => b"0123456789abcdefABCDEF".repeat(3)[..*n].to_vec(),
        Line::Byte(i, at, b) => {
            let mut t = hex(i.get(held).0);
            let at = at.index(t.len());
            t[at] = if *b == b'\n' { b'g' } else { *b };
            t
        }
        Line::Password(i) => i.get(&PASSWORDS).as_bytes().to_vec(),
        Line::Bytes(b) => b
            .iter()
            .map(|&c| if c == b'\n' { b'x' } else { c })
            .collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Up to two and a half batches of lines (1,024 each) of every kind, read in pieces
    /// of any size: with `--keep-going` every line gets its own answer or `?` in its
    /// place and every bad one is named with its number; without, the answers before
    /// the first bad line are written and that line is named.
    #[test]
    fn every_line_is_answered_as_it_reads_alone(
        ntlm in any::<bool>(),
        passwords in any::<bool>(),
        extra in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 20), 0..200),
        lines in proptest::collection::vec((line_strategy(), any::<bool>()), 0..2600),
        last_terminated in any::<bool>(),
        bom in any::<bool>(),
        sizes in proptest::collection::vec(prop_oneof![1usize..64, 64usize..70_000], 1..5),
    ) {
        let kind = if ntlm { HashKind::Ntlm } else { HashKind::Sha1 };
        let input = if passwords { Input::Passwords } else { Input::Hashes };
        let width = kind.hex_len() / 2;
        let mut records: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
        for (i, p) in PASSWORDS.iter().enumerate() {
            let h = kind.hash_password(p.as_bytes()).unwrap();
            records.insert(h.to_be_bytes()[..width].to_vec(), 100 + i as u64);
        }
        for (i, h) in extra.iter().enumerate() {
            records.insert(h[..width].to_vec(), i as u64 + 1);
        }
        let bytes = build_bytes(dump_text(kind, &records).as_bytes(), Some(kind)).unwrap();
        let index = AnyIndex::Exact(Index::from_bytes(bytes).unwrap());
        let held: Vec<_> = records.iter().collect();

        let mut text: Vec<u8> = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        let mut texts = Vec::new();
        for (i, (line, crlf)) in lines.iter().enumerate() {
            let mut t = line_text(kind, &held, line);
            text.extend_from_slice(&t);
            if *crlf {
                text.push(b'\r');
                t.push(b'\r');
            }
            if i + 1 < lines.len() || last_terminated {
                text.push(b'\n');
            }
            texts.push(t);
        }
        // An empty last line without a line end is no line: the input ends before it.
        if !last_terminated && texts.last().is_some_and(Vec::is_empty) {
            texts.pop();
        }
        let want: Vec<_> = texts.iter().map(|t| reference(kind, input, &records, t)).collect();

        // Going on past bad lines.
        let mut out = Vec::new();
        let mut named = Vec::new();
        let mut on_bad = |n: u64, p: &LineProblem| named.push((n, p.clone()));
        let mut reader = Pieces::new(&text, sizes.clone());
        let summary = query::run_keep_going(Source::Index(&index), input, b'\n', &mut reader, &mut out, &mut on_bad).unwrap();
        let want_out: String = want.iter().map(|w| w.clone().unwrap_or_else(|_| "?\n".into())).collect();
        prop_assert_eq!(String::from_utf8_lossy(&out), want_out);
        let want_named: Vec<_> = want.iter().enumerate()
            .filter_map(|(i, w)| w.clone().err().map(|p| (i as u64 + 1, p))).collect();
        prop_assert_eq!(&named, &want_named);
        let found = want.iter().filter(|w| w.as_ref().is_ok_and(|a| !a.ends_with(":0\n") && a != "0\n")).count();
        prop_assert_eq!(
            (summary.lines, summary.found, summary.bad),
            (want.len() as u64, found as u64, want_named.len() as u64)
        );

        // Stopping at the first.
        let mut out = Vec::new();
        let mut reader = Pieces::new(&text, sizes);
        let got = query::run(Source::Index(&index), input, b'\n', &mut reader, &mut out);
        let first_bad = want.iter().position(Result::is_err);
        let before: String = want[..first_bad.unwrap_or(want.len())].iter()
            .map(|w| w.clone().unwrap()).collect();
        prop_assert_eq!(String::from_utf8_lossy(&out), before);
        match (got, first_bad) {
            (Ok(s), None) => prop_assert_eq!((s.lines, s.found, s.bad), (want.len() as u64, found as u64, 0)),
            (Err(QueryError::Line { line, problem }), Some(at)) => {
                prop_assert_eq!(line, at as u64 + 1);
                prop_assert_eq!(Err(problem), want[at].clone());
            }
            (got, _) => prop_assert!(false, "{:?}", got.map_err(|e| e.to_string())),
        }
    }
}
