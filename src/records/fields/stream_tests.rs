//! encrypt-fields' and decrypt-fields' streams against each row taken alone: every
//! field of every row where the row's structure puts it (passed through as read, quotes
//! included; sealed under its column's name and bound columns' values, as the single
//! value calls open it; its token after it), every line end and empty line kept, the
//! header's token columns named, the first missing column's line named, read in pieces
//! of any size across the output's 64 KiB spills, in CSV and TSV, with and without a
//! header row and a byte order mark; then decrypted back, dropping or keeping the token
//! columns, and stopped at a damaged value with the rows before it written.

use super::value::{FieldKeys, Format, Sealed};
use super::{Field, FieldError, Options, decrypt, encrypt};
use crate::keys::Keyring;
use crate::records::input_tests::{Values, line_end, raw, value_strategy};
use crate::streams::BOM;
use crate::streams::Pieces;
use proptest::prelude::*;

/// A column's part in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Plain,
    Encrypted,
    Bound,
}

/// One line after the header row.
#[derive(Debug, Clone)]
enum Line {
    /// A row: its values, and its `shape`: 0, as many columns as values (which may lack
    /// columns, in the cases that allow it; else as 1-24); 1-24, at least the header's
    /// width; else the header's width (values dropped or `p` added).
    Row { values: Values, shape: u8 },
    /// An empty line.
    Empty,
}

fn line_strategy() -> impl Strategy<Value = Line> {
    prop_oneof![
        12 => (proptest::collection::vec((value_strategy(), any::<bool>()), 1..9), any::<u8>())
            .prop_map(|(values, shape)| Line::Row { values, shape }),
        1 => Just(Line::Empty),
    ]
}

/// Part of the expected output of encrypt-fields.
#[derive(Debug)]
enum Piece {
    /// Bytes as they must be.
    Lit(Vec<u8>),
    /// A sealed value (base64url): of `value`, under the column's name and the bound
    /// columns' names and values, in the line `taken[row]`.
    Hole {
        name: Vec<u8>,
        bound: Option<Vec<(Vec<u8>, Vec<u8>)>>,
        value: Vec<u8>,
        row: usize,
    },
}

/// One line of the input as the reference reads it.
struct Taken {
    /// Its number, from 1.
    line: u64,
    /// The row's values and their bytes as read (none for an empty line).
    fields: Vec<(Vec<u8>, Vec<u8>)>,
    line_end: Vec<u8>,
    header: bool,
}

struct Case {
    csv: bool,
    header: bool,
    /// The header's width: the columns that have parts.
    roles: Vec<Role>,
    tokens: Vec<bool>,
    /// The header's names (the first with the byte order mark, when there is one).
    names: Vec<Vec<u8>>,
    keys: FieldKeys,
}

impl Case {
    fn delimiter(&self) -> u8 {
        if self.csv { b',' } else { b'\t' }
    }

    /// The name a column is sealed under: the header's field as read (mark included), or
    /// its number.
    fn name(&self, i: usize) -> Vec<u8> {
        if self.header && i < self.names.len() {
            self.names[i].clone()
        } else {
            (i + 1).to_string().into_bytes()
        }
    }

    fn role(&self, i: usize) -> Role {
        self.roles.get(i).copied().unwrap_or(Role::Plain)
    }

    fn token(&self, i: usize) -> bool {
        self.tokens.get(i).copied().unwrap_or(false)
    }

    /// encrypt-fields' output for one line, `taken[row]` (its holes keep `row`; a header
    /// row makes none); `Err` when the row lacks a column that has a part.
    fn encrypted(&self, t: &Taken, row: usize, out: &mut Vec<Piece>) -> Result<(), ()> {
        let d = self.delimiter();
        if t.fields.is_empty() {
            out.push(Piece::Lit(t.line_end.clone()));
            return Ok(());
        }
        if t.header {
            for (i, (value, bytes)) in t.fields.iter().enumerate() {
                let mut lit = if i > 0 { vec![d] } else { Vec::new() };
                lit.extend_from_slice(bytes);
                if self.token(i) {
                    lit.push(d);
                    let base = value.strip_prefix(BOM).filter(|_| i == 0).unwrap_or(value);
                    lit.extend(raw(&[base, b"_token"].concat(), false, self.csv));
                }
                out.push(Piece::Lit(lit));
            }
            out.push(Piece::Lit(t.line_end.clone()));
            return Ok(());
        }
        let has_part = |i: usize| self.role(i) != Role::Plain || self.token(i);
        if (0..self.roles.len()).any(|i| has_part(i) && i >= t.fields.len()) {
            return Err(());
        }
        let bound: Option<Vec<(Vec<u8>, Vec<u8>)>> = self.roles.contains(&Role::Bound).then(|| {
            (0..self.roles.len())
                .filter(|&i| self.role(i) == Role::Bound)
                .map(|i| (self.name(i), t.fields[i].0.clone()))
                .collect()
        });
        for (i, (value, bytes)) in t.fields.iter().enumerate() {
            if i > 0 {
                out.push(Piece::Lit(vec![d]));
            }
            if self.role(i) == Role::Encrypted {
                out.push(Piece::Hole {
                    name: self.name(i),
                    bound: bound.clone(),
                    value: value.clone(),
                    row,
                });
            } else {
                out.push(Piece::Lit(bytes.clone()));
            }
            if self.token(i) {
                let mut lit = vec![d];
                lit.extend_from_slice(self.keys.token(value).as_bytes());
                out.push(Piece::Lit(lit));
            }
        }
        out.push(Piece::Lit(t.line_end.clone()));
        Ok(())
    }

    /// decrypt-fields' output for one line encrypt-fields took.
    fn decrypted(&self, t: &Taken, keep: bool, out: &mut Vec<u8>) {
        let d = self.delimiter();
        if t.header && keep {
            let mut pieces = Vec::new();
            self.encrypted(t, 0, &mut pieces).expect("a header row");
            for p in pieces {
                let Piece::Lit(b) = p else { unreachable!() };
                out.extend(b);
            }
            return;
        }
        let start = out.len();
        for (i, (value, bytes)) in t.fields.iter().enumerate() {
            if i > 0 {
                out.push(d);
            }
            if !t.header && self.role(i) == Role::Encrypted {
                out.extend(raw(value, false, self.csv));
            } else {
                out.extend_from_slice(bytes);
            }
            if keep && self.token(i) {
                out.push(d);
                out.extend_from_slice(self.keys.token(value).as_bytes());
            }
        }
        if !t.fields.is_empty() && out.len() == start && self.csv {
            out.extend_from_slice(b"\"\"");
        }
        out.extend_from_slice(&t.line_end);
    }
}

fn is_base64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

/// Matches `out` against `pieces`: the place of each sealed value in `out`, or what
/// differs.
fn holes_in(out: &[u8], pieces: &[Piece]) -> Result<Vec<std::ops::Range<usize>>, String> {
    let mut at = 0;
    let mut holes = Vec::new();
    for p in pieces {
        match p {
            Piece::Lit(b) => {
                if !out[at..].starts_with(b) {
                    return Err(format!(
                        "at byte {at}: want {:?}, have {:?}",
                        String::from_utf8_lossy(b),
                        String::from_utf8_lossy(&out[at..out.len().min(at + b.len() + 20)])
                    ));
                }
                at += b.len();
            }
            Piece::Hole { .. } => {
                let n = out[at..].iter().take_while(|&&c| is_base64url(c)).count();
                holes.push(at..at + n);
                at += n;
            }
        }
    }
    if at != out.len() {
        return Err(format!(
            "{} bytes more than expected: {:?}",
            out.len() - at,
            String::from_utf8_lossy(&out[at..out.len().min(at + 40)])
        ));
    }
    Ok(holes)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn every_row_is_what_single_values_make_of_it(
        csv in any::<bool>(),
        header in any::<bool>(),
        bom in any::<bool>(),
        parts in proptest::collection::vec((0u8..6, any::<bool>(), any::<bool>(), any::<bool>()), 1..7),
        names in proptest::collection::vec(0usize..6, 7),
        leading_empty in 0usize..3,
        narrow in any::<bool>(),
        lines in proptest::collection::vec((line_strategy(), any::<bool>()), 0..1500),
        last_end in 0u8..4,
        ctl in any::<u8>(),
        damage in proptest::option::weighted(0.3, (any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<prop::sample::Index>())),
        sizes in proptest::collection::vec(prop_oneof![1usize..64, 64usize..100_000], 1..5),
    ) {
        let width = parts.len();
        let mut roles: Vec<Role> = parts
            .iter()
            .map(|p| match p.0 {
                0..=2 => Role::Plain,
                3 | 4 => Role::Encrypted,
                _ => Role::Bound,
            })
            .collect();
        if !roles.contains(&Role::Encrypted) {
            roles[usize::from(ctl) % width] = Role::Encrypted;
        }
        let tokens: Vec<bool> = parts.iter().map(|p| p.1).collect();
        let by_name = |i: usize| header && parts[i].2;
        let pool = ["id", "e mail", "a,b", "q\"t", "n\nl", "\u{e9}"];
        let clean = |v: Vec<u8>| -> Vec<u8> {
            if csv {
                v
            } else {
                v.into_iter().map(|c| if matches!(c, b'\t' | b'\r' | b'\n') { b'x' } else { c }).collect()
            }
        };
        let plain_names: Vec<Vec<u8>> = (0..width)
            .map(|i| clean(format!("{}{i}", pool[names[i]]).into_bytes()))
            .collect();
        // A mark starts the input, before the header row.
        let bom = bom && header && leading_empty == 0;
        let mut case_names = plain_names.clone();
        if bom {
            case_names[0].splice(0..0, BOM.iter().copied());
        }
        let ring = Keyring::generate().unwrap();
        let context = if ctl & 0x40 != 0 { b"tenant-7".to_vec() } else { Vec::new() };
        let case = Case {
            csv,
            header,
            roles: roles.clone(),
            tokens: tokens.clone(),
            names: case_names,
            keys: FieldKeys::new(ring.current(), &context),
        };
        let spec = |i: usize| {
            if by_name(i) {
                Field::Name(String::from_utf8(plain_names[i].clone()).unwrap())
            } else {
                Field::Number(i + 1)
            }
        };
        let list = |want: &dyn Fn(usize) -> bool| -> Vec<Field> {
            let mut l: Vec<Field> = (0..width).filter(|&i| want(i)).map(spec).collect();
            if ctl & 1 != 0 {
                l.reverse();
            }
            l
        };
        let mut bind = list(&|i| roles[i] == Role::Bound);
        if ctl & 2 != 0 && !bind.is_empty() {
            // A column listed twice counts once.
            bind.push(bind[0].clone());
        }
        let opts = Options {
            delimiter: case.delimiter(),
            header,
            fields: list(&|i| roles[i] == Role::Encrypted),
            token_fields: list(&|i| tokens[i]),
            context,
            bind,
            keep_tokens: false,
        };

        // The input, and each line as the reference takes it.
        let mut input = Vec::new();
        let mut taken: Vec<Taken> = Vec::new();
        let mut all: Vec<(Option<Values>, bool)> = Vec::new();
        for _ in 0..leading_empty {
            all.push((None, false));
        }
        if header {
            let first = plain_names.iter().enumerate().map(|(i, n)| (n.clone(), parts[i].3)).collect();
            all.push((Some(first), true));
        }
        for (line, crlf) in &lines {
            all.push((
                match line {
                    Line::Empty => None,
                    Line::Row { values, shape } => {
                        let mut v: Values = values.iter().map(|(b, q)| (clean(b.clone()), *q)).collect();
                        if *shape > 0 || !narrow {
                            v.resize(v.len().max(width), (b"p".to_vec(), false));
                        }
                        if *shape > 24 {
                            v.truncate(width);
                        }
                        // A row of one empty unquoted value would be an empty line.
                        if v.len() == 1 && v[0].0.is_empty() {
                            if csv { v[0].1 = true } else { v[0].0 = b"x".to_vec() }
                        }
                        Some(v)
                    }
                },
                *crlf,
            ));
        }
        let mut line_no = 1u64;
        let count = all.len();
        let mut header_seen = false;
        for (k, (row, crlf)) in all.into_iter().enumerate() {
            let last = k + 1 == count;
            let line_end = line_end(last, last_end, crlf);
            if row.is_none() && last && line_end.is_empty() {
                // An empty last line without a line end is no line.
                break;
            }
            let mut fields = Vec::new();
            for (i, (value, quote)) in row.iter().flatten().enumerate() {
                let mut bytes = raw(value, *quote, csv);
                let mut value = value.clone();
                if bom && !header_seen && i == 0 {
                    bytes.splice(0..0, BOM.iter().copied());
                    value.splice(0..0, BOM.iter().copied());
                }
                fields.push((value, bytes));
            }
            let is_header = header && !header_seen && row.is_some();
            header_seen |= is_header;
            for (i, (_, bytes)) in fields.iter().enumerate() {
                if i > 0 {
                    input.push(case.delimiter());
                }
                input.extend_from_slice(bytes);
            }
            input.extend_from_slice(line_end);
            let t = Taken { line: line_no, fields, line_end: line_end.to_vec(), header: is_header };
            line_no += 1 + t.fields.iter().map(|(_, b)| b.iter().filter(|&&c| c == b'\n').count() as u64).sum::<u64>();
            taken.push(t);
        }

        // encrypt-fields.
        let mut template = Vec::new();
        let mut stop = None;
        let mut rows = 0u64;
        // The lines of encrypt-fields' output, where sealed values hold no line ends.
        let mut sealed_line = 1u64;
        let mut sealed_lines = Vec::new();
        for (k, t) in taken.iter().enumerate() {
            let before = template.len();
            if case.encrypted(t, k, &mut template).is_err() {
                template.truncate(before);
                stop = Some(k);
                break;
            }
            rows += u64::from(!t.fields.is_empty() && !t.header);
            sealed_lines.push(sealed_line);
            for p in &template[before..] {
                if let Piece::Lit(b) = p {
                    sealed_line += b.iter().filter(|&&c| c == b'\n').count() as u64;
                }
            }
        }
        let mut sealed = Vec::new();
        let got = encrypt(&ring, &opts, &mut Pieces::new(&input, sizes.clone()), &mut sealed);
        match (got, stop) {
            (Ok(n), None) => prop_assert_eq!(n, rows, "rows encrypted"),
            (Err(FieldError::NoField { line, field }), Some(k)) => {
                prop_assert_eq!(line, taken[k].line);
                let n: usize = field.parse().unwrap();
                prop_assert!(n > taken[k].fields.len() && n <= width, "{}", field);
            }
            (got, _) => prop_assert!(false, "{:?}, want a stop at {:?}", got, stop.map(|k| taken[k].line)),
        }
        let holes = holes_in(&sealed, &template).map_err(TestCaseError::fail)?;
        let mut buf = Vec::new();
        let wanted = template.iter().filter_map(|p| match p {
            Piece::Hole { name, bound, value, row } => Some((name, bound, value, taken[*row].line)),
            Piece::Lit(_) => None,
        });
        for (range, (name, bound, value, line)) in holes.iter().zip(wanted) {
            let s = Sealed::parse(&sealed[range.clone()]);
            prop_assert!(s.is_some(), "line {}: not a sealed value", line);
            let s = s.unwrap();
            prop_assert_eq!(s.format, if bound.is_some() { Format::Bound } else { Format::Column });
            prop_assert_eq!(s.id_bits, ring.current().id() & 0x3f);
            let bound: Option<Vec<(&[u8], &[u8])>> = bound.as_ref().map(|b| b.iter().map(|(n, v)| (&n[..], &v[..])).collect());
            let plain = case.keys.open(&s, name, bound.as_deref(), &mut buf);
            prop_assert_eq!(plain, Some(&value[..]), "line {}", line);
        }

        // decrypt-fields of what it wrote, with the ring as it was or with a newer key.
        let mut ring = ring;
        if ctl & 4 != 0 {
            ring.add_generated().unwrap();
        }
        let lines_in: Vec<u64> = template.iter().filter_map(|p| match p {
            Piece::Hole { row, .. } => Some(sealed_lines[*row]),
            Piece::Lit(_) => None,
        }).collect();
        let damaged = damage.filter(|_| !holes.is_empty()).map(|(h, at, c)| {
            let h = h.index(holes.len());
            let range = holes[h].clone();
            let at = range.start + at.index(range.len());
            let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            let mut c = alphabet[c.index(alphabet.len())];
            if c == sealed[at] {
                c = if c == b'A' { b'B' } else { b'A' };
            }
            sealed[at] = c;
            lines_in[h]
        });
        let taken_enc = &taken[..stop.unwrap_or(taken.len())];
        for keep in [false, true] {
            let mut want = Vec::new();
            let mut rows = 0u64;
            for (t, &line) in taken_enc.iter().zip(&sealed_lines) {
                if damaged == Some(line) {
                    break;
                }
                case.decrypted(t, keep, &mut want);
                rows += u64::from(!t.fields.is_empty() && !t.header);
            }
            let o = Options { keep_tokens: keep, ..opts.clone() };
            let mut out = Vec::new();
            let got = decrypt(&ring, &o, &mut Pieces::new(&sealed, sizes.clone()), &mut out);
            prop_assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&want), "keep {}", keep);
            match (got, damaged) {
                (Ok(n), None) => prop_assert_eq!(n, rows, "rows decrypted, keep {}", keep),
                (
                    Err(
                        FieldError::Decrypt { line, .. }
                        | FieldError::Bound { line, .. }
                        | FieldError::Unbound { line, .. }
                        | FieldError::UnknownKey { line, .. },
                    ),
                    Some(l),
                ) => prop_assert_eq!(line, l, "keep {}", keep),
                (got, _) => prop_assert!(false, "{:?}, want a stop at {:?}", got, damaged),
            }
        }
    }
}
