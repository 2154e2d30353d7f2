//! The records `records seal` reads from JSON lines and line files, against each line
//! taken alone (docs/RECORDS-FORMAT.md, "Keys"): each record's exact bytes (line end
//! and a first line's byte order mark included), its line and its key: in JSON lines the
//! named member's string unescaped, or a number's or boolean's text as written; in line
//! files the line's number from the first one given. In JSON lines the first line that
//! is empty, not one JSON object, or without exactly one scalar member of the name is
//! named with its line, and nothing after it is read.

use super::format::InputFormat;
use super::input::{KeyField, parse};
use super::input_tests::{Want, check_records, line_end};
use crate::streams::BOM;
use proptest::prelude::*;

/// Characters of strings: ones JSON must escape, and ones beyond ASCII and the BMP.
const CHARS: &[char] = &[
    'a', '7', ' ', '"', '\\', '/', '\n', '\r', '\t', '\u{1}', '\u{7f}', 'é', '€', '\u{2028}', '😀',
];

/// A JSON string of `text`, each character written plainly or escaped as `pick` says
/// (characters JSON forbids unescaped always are).
fn json_string(text: &str, pick: &mut impl FnMut() -> u8) -> String {
    let mut s = String::from("\"");
    for c in text.chars() {
        let forced = matches!(c, '"' | '\\') || (c as u32) < 0x20;
        let escape = |c: u32| format!("\\u{c:04x}");
        match pick() % 4 {
            0 if !forced => s.push(c),
            1 if matches!(c, '"' | '\\' | '/' | '\n' | '\r' | '\t') => {
                s.push('\\');
                s.push(match c {
                    '\n' => 'n',
                    '\r' => 'r',
                    '\t' => 't',
                    c => c,
                });
            }
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let e = escape(u32::from(*u));
                    s.push_str(&if pick().is_multiple_of(2) {
                        e
                    } else {
                        e.to_uppercase().replacen("\\U", "\\u", 1)
                    });
                }
            }
        }
    }
    s.push('"');
    s
}

/// A member's value, as the reference sees it.
#[derive(Debug, Clone)]
enum Value {
    Str(String),
    /// A number's or boolean's text.
    Scalar(&'static str),
    /// null, an array or an object (which may hold a member of the key's name).
    Other(&'static str),
}

/// A value that can be a key: a string, a number or a boolean.
fn key_strategy() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => proptest::collection::vec(prop::sample::select(CHARS), 0..8)
            .prop_map(|c| Value::Str(c.into_iter().collect())),
        2 => prop::sample::select(&[
            "0", "-0", "42", "1e2", "1.0", "-12.5E-3", "123456789012345678901234567890",
            "true", "false",
        ][..]).prop_map(Value::Scalar),
    ]
}

/// Any value: also null, arrays and objects (with members of the names keyed by).
fn value_strategy() -> impl Strategy<Value = Value> {
    prop_oneof![
        5 => key_strategy(),
        1 => prop::sample::select(&["null", "[]", "[1,\"x\"]", "{}", "{\"id\":2,\"k\\\"é\":3,\"7\":4}"][..])
            .prop_map(Value::Other),
    ]
}

/// One line of JSON lines.
#[derive(Debug, Clone)]
enum Line {
    /// An object: members (whether one is named as the key, else another name).
    Object(Vec<(bool, Value)>),
    /// An empty line.
    Empty,
    /// Not one JSON object.
    Bad(&'static str),
}

/// A line with a key: one member of the key's name, a string or a scalar, among others.
fn keyed_line() -> impl Strategy<Value = Line> {
    (
        proptest::collection::vec(value_strategy(), 0..4),
        key_strategy(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(mut others, key, at)| {
            let i = at.index(others.len() + 1);
            others.insert(i, key);
            Line::Object(
                others
                    .into_iter()
                    .enumerate()
                    .map(|(j, v)| (j == i, v))
                    .collect(),
            )
        })
}

/// A line that stops the input: no member of the name, two, one that is not a scalar;
/// empty; not one JSON object.
fn bad_line() -> impl Strategy<Value = Line> {
    prop_oneof![
        2 => (proptest::collection::vec((prop::bool::weighted(0.5), value_strategy()), 0..4))
            .prop_map(Line::Object),
        1 => (proptest::collection::vec(value_strategy(), 0..3), any::<prop::sample::Index>()).prop_map(|(mut others, at)| {
            let i = at.index(others.len() + 1);
            others.insert(i, Value::Other("null"));
            Line::Object(others.into_iter().enumerate().map(|(j, v)| (j == i, v)).collect())
        }),
        1 => Just(Line::Empty),
        1 => Just(Line::Bad(" ")),
        // A byte order mark is no part of JSON but before the first line.
        1 => Just(Line::Bad("\u{feff}{\"7\":1}")),
        1 => prop::sample::select(&["[1]", "{\"id\":1,}", "{\"a\":01}", "{\"a\":1} x", "\"id\"", "{"][..])
            .prop_map(Line::Bad),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_json_line_is_read_alone(
        name in prop::sample::select(&["id", "k\"é", "7"][..]),
        lines in proptest::collection::vec((keyed_line(), bad_line(), 0u16..1000, any::<bool>()), 0..300),
        // Lines in a thousand that stop the input: none, few, or most.
        bad_rate in prop_oneof![Just(0u16), 0u16..20, 0u16..1000],
        bom in any::<bool>(),
        last_end in 0u8..4,
        seed in any::<u64>(),
    ) {
        let mut x = seed | 1;
        let mut pick = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        };
        let space = |p: u8| [" ", "", "\t", "", " \r "][usize::from(p) % 5];
        let mut input = Vec::new();
        let mut want: Vec<Want> = Vec::new();
        for (k, (good, bad, roll, crlf)) in lines.iter().enumerate() {
            let line = if *roll < bad_rate { bad } else { good };
            let n = k as u64 + 1;
            let last = k + 1 == lines.len();
            let end = line_end(last, last_end, *crlf);
            if matches!(line, Line::Empty) && last && end.is_empty() && !(bom && k == 0) {
                // An empty last line without a line end is no line.
                break;
            }
            let start = input.len();
            if bom && k == 0 {
                input.extend_from_slice(BOM);
            }
            let problem = match line {
                Line::Empty => Some("empty line".to_string()),
                Line::Bad(text) => {
                    if k == 0 && !bom && text.starts_with('\u{feff}') {
                        // On the first line a mark is read past: a second one is not.
                        input.extend_from_slice(BOM);
                    }
                    input.extend_from_slice(text.as_bytes());
                    Some("not a JSON object".to_string())
                }
                Line::Object(members) => {
                    let mut text = format!("{}{{", space(pick()));
                    let mut keys = Vec::new();
                    for (i, (is_key, value)) in members.iter().enumerate() {
                        if i > 0 {
                            text.push(',');
                        }
                        // Other members: other names, one of them maybe the name in
                        // other letters' case.
                        let upper = name.to_ascii_uppercase();
                        let member = match (is_key, i % 3) {
                            (true, _) => name.to_string(),
                            (false, 1) if upper != name => upper,
                            _ => format!("{name}_{i}"),
                        };
                        text.push_str(space(pick()));
                        text.push_str(&json_string(&member, &mut pick));
                        text.push_str(space(pick()));
                        text.push(':');
                        text.push_str(space(pick()));
                        match value {
                            Value::Str(s) => text.push_str(&json_string(s, &mut pick)),
                            Value::Scalar(s) | Value::Other(s) => text.push_str(s),
                        }
                        text.push_str(space(pick()));
                        if *is_key {
                            keys.push(value.clone());
                        }
                    }
                    text.push('}');
                    text.push_str(space(pick()));
                    input.extend_from_slice(text.as_bytes());
                    match keys.as_slice() {
                        [] => Some(format!("has no field {name:?}")),
                        [Value::Other(_)] => Some(format!("field {name:?} is not a string, number or boolean")),
                        [Value::Str(s)] => {
                            input.extend_from_slice(end);
                            want.push(Ok((input[start..].to_vec(), s.as_bytes().to_vec(), n)));
                            None
                        }
                        [Value::Scalar(s)] => {
                            input.extend_from_slice(end);
                            want.push(Ok((input[start..].to_vec(), s.as_bytes().to_vec(), n)));
                            None
                        }
                        _ => Some(format!("names the field {name:?} more than once")),
                    }
                }
            };
            if let Some(problem) = problem {
                input.extend_from_slice(end);
                want.push(Err((n, problem)));
                // Lines after it are written, never read.
            }
        }
        let stop = want.iter().position(Result::is_err).map_or(want.len(), |i| i + 1);
        want.truncate(stop);

        let got = parse(&input, InputFormat::Jsonl, Some(&KeyField::parse(name)), false, 1);
        let (prefix, records) = match got {
            Ok(p) => p,
            Err(e) => return Err(TestCaseError::fail(format!("{e:?}"))),
        };
        prop_assert!(prefix.is_none());
        check_records(records, &want)?;
    }

    /// Line files: every line a record, empty ones too, keyed by its number counted from
    /// the first number given.
    #[test]
    fn every_line_of_a_line_file_is_a_record(
        lines in proptest::collection::vec(
            (proptest::collection::vec(prop::sample::select(b"a \r\t\"\xc3\xa9{".to_vec()), 0..12), any::<bool>()),
            0..300,
        ),
        bom in any::<bool>(),
        last_end in 0u8..4,
        first in prop_oneof![Just(0u64), Just(1), any::<u64>().prop_map(|n| n % (1 << 40))],
    ) {
        let mut input = Vec::new();
        let mut want = Vec::new();
        for (k, (bytes, crlf)) in lines.iter().enumerate() {
            let last = k + 1 == lines.len();
            let end = line_end(last, last_end, *crlf);
            let start = input.len();
            if bom && k == 0 {
                input.extend_from_slice(BOM);
            }
            input.extend_from_slice(bytes);
            input.extend_from_slice(end);
            if input.len() == start {
                // An empty last line without a line end is no line.
                break;
            }
            want.push((input[start..].to_vec(), (first + k as u64).to_string().into_bytes(), k as u64 + 1));
        }
        let (prefix, records) = parse(&input, InputFormat::Lines, None, false, first).unwrap();
        prop_assert!(prefix.is_none());
        let got: Vec<_> = records
            .map(|r| r.map(|rec| (rec.raw.to_vec(), rec.key_bytes().to_vec(), rec.line)))
            .collect::<Result<_, _>>()
            .unwrap();
        prop_assert_eq!(got, want);
    }
}
