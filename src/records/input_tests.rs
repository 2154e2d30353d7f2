//! The records `records seal` reads from CSV and TSV, against each row taken alone: each
//! record's exact bytes (line end included), its key (the key column's value, unquoted)
//! and its line; the header row's bytes; the first row without the key column, or
//! empty, named with its line and nothing after it; with a header row or not, the key
//! column by name or number, a byte order mark before a plain or quoted first name,
//! quoted fields holding line ends, and LF, CRLF or no end on the last line.

use super::RecordsError;
use super::format::InputFormat;
use super::input::{KeyField, Records, parse};
use proptest::prelude::*;

use crate::streams::BOM;

/// A row's values, each with whether it is quoted where it need not be (CSV).
pub(super) type Values = Vec<(Vec<u8>, bool)>;

/// A field's value: bytes that CSV must quote (or TSV cannot hold) among others.
pub(super) fn value_strategy() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop::sample::select(b"ab7 ,\"\r\n\t\xc3\xa9;-_".to_vec()),
        0..16,
    )
}

/// A field's bytes: quoted (quotes doubled) when it must be or when asked, in CSV.
pub(super) fn raw(value: &[u8], quote: bool, csv: bool) -> Vec<u8> {
    let must = value
        .iter()
        .any(|&c| matches!(c, b',' | b'"' | b'\r' | b'\n'));
    if !(csv && (quote || must)) {
        return value.to_vec();
    }
    let mut out = vec![b'"'];
    for &c in value {
        if c == b'"' {
            out.push(b'"');
        }
        out.push(c);
    }
    out.push(b'"');
    out
}

/// A line's end: CRLF or LF, and the last line's by `last_end`: 0, none; 1, a lone CR
/// (which a reader takes for a line end at the end of its input); else as the others.
pub(super) fn line_end(last: bool, last_end: u8, crlf: bool) -> &'static [u8] {
    match (last, last_end, crlf) {
        (true, 0, _) => b"",
        (true, 1, _) => b"\r",
        (_, _, true) => b"\r\n",
        _ => b"\n",
    }
}

/// What the reference makes of one record (its bytes, key and line), or the problem that
/// stops the input (its line, and how its message starts).
pub(super) type Want = Result<(Vec<u8>, Vec<u8>, u64), (u64, String)>;

/// The records read are the ones wanted, the last maybe a problem at its line.
pub(super) fn check_records(records: Records<'_>, want: &[Want]) -> Result<(), TestCaseError> {
    let got: Vec<Want> = records
        .map(|r| match r {
            Ok(rec) => Ok((rec.raw.to_vec(), rec.key_bytes().to_vec(), rec.line)),
            Err(RecordsError::Input { line, problem }) => Err((line, problem)),
            Err(e) => Err((0, e.to_string())),
        })
        .collect();
    prop_assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        match (g, w) {
            (Ok(g), Ok(w)) => prop_assert_eq!(g, w),
            (Err((gl, gp)), Err((wl, wp))) => {
                prop_assert_eq!(gl, wl);
                prop_assert!(gp.starts_with(wp.as_str()), "{} against {}", gp, wp);
            }
            _ => prop_assert!(false, "{:?} against {:?}", g, w),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_record_is_its_row_read_alone(
        csv in any::<bool>(),
        header in any::<bool>(),
        bom in any::<bool>(),
        width in 1usize..6,
        key_at in any::<prop::sample::Index>(),
        by_name in any::<bool>(),
        name_quoted in any::<bool>(),
        name_break in any::<bool>(),
        leading_empty in prop::bool::weighted(0.05),
        rows in proptest::collection::vec(
            (proptest::collection::vec((value_strategy(), any::<bool>()), 0..8), any::<u8>(), any::<bool>()),
            0..400,
        ),
        last_end in 0u8..4,
    ) {
        let clean = |v: &[u8]| -> Vec<u8> {
            if csv {
                v.to_vec()
            } else {
                v.iter().map(|&c| if matches!(c, b'\t' | b'\r' | b'\n') { b'x' } else { c }).collect()
            }
        };
        let key = key_at.index(width);
        // Names that hold a line end (quoted, in CSV) make a header of several lines.
        let name = |i: usize| format!("n{i}{}", if csv && name_break { "\r\n." } else { "" });
        let names: Vec<Vec<u8>> = (0..width).map(|i| name(i).into_bytes()).collect();
        let key_field = if header && by_name {
            KeyField::Name(name(key))
        } else {
            KeyField::Number(key + 1)
        };
        let bom = bom && header && !leading_empty;
        // Every line as written: its values (none: an empty line).
        let mut lines: Vec<Option<Values>> = Vec::new();
        if leading_empty {
            lines.push(None);
        }
        if header {
            lines.push(Some(names.iter().map(|n| (n.clone(), name_quoted)).collect()));
        }
        for (values, shape, _) in &rows {
            let mut v: Values = values.iter().map(|(b, q)| (clean(b), *q)).collect();
            match shape {
                // An empty line.
                0 => {
                    lines.push(None);
                    continue;
                }
                // As many fields as values (maybe without the key column).
                1..=3 => {}
                _ => v.resize(v.len().max(width), (b"p".to_vec(), false)),
            }
            if v.is_empty() {
                v.push((b"q".to_vec(), false));
            }
            // A row of one empty unquoted value would be an empty line.
            if v.len() == 1 && v[0].0.is_empty() {
                if csv { v[0].1 = true } else { v[0].0 = b"x".to_vec() }
            }
            lines.push(Some(v));
        }

        let mut input = Vec::new();
        let mut prefix_len = None;
        let mut want: Vec<Want> = Vec::new();
        let mut line_no = 1u64;
        let count = lines.len();
        for (k, row) in lines.iter().enumerate() {
            let last = k + 1 == count;
            let crlf = rows.get(k.wrapping_sub(usize::from(header) + usize::from(leading_empty))).is_some_and(|r| r.2);
            let line_end = line_end(last, last_end, crlf);
            if row.is_none() && last && line_end.is_empty() {
                // An empty last line without a line end is no line.
                break;
            }
            let start = input.len();
            let values = row.as_deref().unwrap_or(&[]);
            for (i, (value, quote)) in values.iter().enumerate() {
                if i > 0 {
                    input.push(if csv { b',' } else { b'\t' });
                }
                if bom && k == 0 && i == 0 {
                    input.extend_from_slice(BOM);
                }
                input.extend(raw(value, *quote, csv));
            }
            input.extend_from_slice(line_end);
            // The next line starts after this one's line ends (its quoted fields' too).
            let line = line_no;
            line_no += input[start..].iter().filter(|&&c| c == b'\n').count() as u64;
            if header && !leading_empty && k == 0 {
                prefix_len = Some(input.len());
                continue;
            }
            let stopped = want.last().is_some_and(Result::is_err);
            if stopped {
                continue;
            }
            want.push(if row.is_none() {
                Err((line, "empty line".to_string()))
            } else if values.len() <= key {
                Err((line, format!("has no field {}", key + 1)))
            } else {
                Ok((input[start..].to_vec(), values[key].0.clone(), line))
            });
        }

        let format = if csv { InputFormat::Csv } else { InputFormat::Tsv };
        let got = parse(&input, format, Some(&key_field), header, 1);
        if header && leading_empty {
            match got {
                Err(RecordsError::Input { line: 1, problem }) => prop_assert_eq!(problem, "no header row"),
                other => prop_assert!(false, "{:?}", other.map(|(p, _)| p)),
            }
            return Ok(());
        }
        let (prefix, records) = match got {
            Ok(p) => p,
            Err(e) => return Err(TestCaseError::fail(format!("{e:?}"))),
        };
        prop_assert_eq!(prefix.map(<[u8]>::to_vec), prefix_len.map(|n| input[..n].to_vec()));
        check_records(records, &want)?;
    }
}
