//! Reading record input: lines, CSV, TSV or JSON lines, each record with its exact raw
//! bytes (borrowed from the input) and its key. Parsing is lazy: records are yielded one
//! at a time, so sealing never holds a second copy of the input.

use super::format::InputFormat;
use super::{InputRecord, KeyPlace, RecordsError};
use crate::delimited::{DelimitedError, Dialect, Field, split_record};

/// Which field holds the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyField {
    /// Counted from 1.
    Number(usize),
    /// A header row's name (CSV/TSV) or an object member (JSON lines).
    Name(String),
}

impl KeyField {
    /// Parses `--key-field`: a number is a position, anything else a name.
    pub fn parse(s: &str) -> KeyField {
        match s.parse::<usize>() {
            Ok(n) if n > 0 => KeyField::Number(n),
            _ => KeyField::Name(s.to_string()),
        }
    }

    /// As recorded in a file.
    pub fn to_text(&self) -> String {
        match self {
            KeyField::Number(n) => n.to_string(),
            KeyField::Name(s) => s.clone(),
        }
    }
}

enum Mode {
    Lines {
        next: u64,
    },
    Jsonl {
        name: String,
    },
    /// CSV (strict RFC 4180) or TSV.
    Delimited {
        dialect: Dialect,
        index: usize,
        fields: Vec<Field>,
    },
}

/// The records of an input, in order.
pub struct Records<'a> {
    input: &'a [u8],
    at: usize,
    line: u64,
    mode: Mode,
    failed: bool,
}

/// Parses the header row (when `header_row`) and returns it with the records that
/// follow. Line files number their records from `first_number`.
pub fn parse<'a>(
    input: &'a [u8],
    format: InputFormat,
    key: Option<&KeyField>,
    header_row: bool,
    first_number: u64,
) -> Result<(Option<&'a [u8]>, Records<'a>), RecordsError> {
    // With a header row the mark is no part of a name (see `names_column`); without
    // one it is part of the first record, which an error on line 1 then says.
    parse_header(input, format, key, header_row, first_number)
        .map_err(|e| if header_row { e } else { note_bom(input, e) })
}

/// Whether header field `i` (from 0) is named `name`: exactly, or, for the first field,
/// after a [`BOM`] starting the input (a spreadsheet's "CSV UTF-8"), which is no part of
/// the name. The header's bytes are kept as they are.
pub(crate) fn names_column(i: usize, value: &[u8], name: &[u8]) -> bool {
    value == name || (i == 0 && value.strip_prefix(BOM) == Some(name))
}

pub(crate) use crate::streams::BOM;

/// Whether `input` starts with a [`BOM`] right before a quote: a quoted first name after
/// the mark, which CSV reading passes over (R's `write.csv` quotes every name).
pub(crate) fn mark_before_quote(input: &[u8]) -> bool {
    input.starts_with(BOM) && input.get(BOM.len()) == Some(&b'"')
}

/// What an error on line 1 adds when the input starts with [`BOM`].
const BOM_NOTE: &str = "the input starts with a UTF-8 byte order mark, which is \
     kept as part of line 1: remove it, for example with sed '1s/^\\xEF\\xBB\\xBF//'";

/// An error on line 1 of an input that starts with a byte order mark says so: the mark
/// is invisible, and it is kept as part of line 1 (of its first field or member name).
fn note_bom(input: &[u8], e: RecordsError) -> RecordsError {
    match e {
        RecordsError::Input { line: 1, problem } if input.starts_with(BOM) => RecordsError::Input {
            line: 1,
            problem: format!("{problem} ({BOM_NOTE})"),
        },
        e => e,
    }
}

fn parse_header<'a>(
    input: &'a [u8],
    format: InputFormat,
    key: Option<&KeyField>,
    header_row: bool,
    first_number: u64,
) -> Result<(Option<&'a [u8]>, Records<'a>), RecordsError> {
    let mut r = Records {
        input,
        at: 0,
        line: 1,
        mode: Mode::Lines { next: first_number },
        failed: false,
    };
    match format {
        InputFormat::Lines => Ok((None, r)),
        InputFormat::Jsonl => {
            let name = match key {
                Some(k) => k.to_text(),
                None => return Err(RecordsError::NeedKeyField),
            };
            r.mode = Mode::Jsonl { name };
            Ok((None, r))
        }
        InputFormat::Csv | InputFormat::Tsv => {
            let key = key.ok_or(RecordsError::NeedKeyField)?;
            let dialect = if format == InputFormat::Csv {
                Dialect::CSV
            } else {
                Dialect::TSV
            };
            let mut fields = Vec::new();
            let mut prefix = None;
            let index = if header_row {
                // A mark before a quoted first name (R's write.csv quotes every name)
                // is read past, as it is no part of a name; the header keeps it.
                let skip = if dialect.quoting && mark_before_quote(input) {
                    BOM.len()
                } else {
                    0
                };
                let rec =
                    split_record(&input[skip..], dialect, true, &mut fields).map_err(|e| {
                        let e = syntax(dialect, 1, e);
                        if skip == 0 { note_bom(input, e) } else { e }
                    })?;
                let Some(rec) = rec.filter(|r| r.body_end > 0) else {
                    return Err(RecordsError::Input {
                        line: 1,
                        problem: "no header row".into(),
                    });
                };
                let raw = &input[skip..skip + rec.len];
                r.at = skip + rec.len;
                r.line += rec.lines;
                prefix = Some(&input[..skip + rec.len]);
                match key {
                    KeyField::Number(n) => n - 1,
                    KeyField::Name(name) => {
                        let names = fields
                            .iter()
                            .enumerate()
                            .map(|(i, f)| names_column(i, &f.value(raw), name.as_bytes()));
                        // Keying by one of two columns of one name would be a guess.
                        only_column(names).map_err(|twice| RecordsError::Input {
                            line: 1,
                            problem: match twice {
                                None => format!("the header row has no field {name:?}"),
                                Some((first, second)) => format!(
                                    "the header row has field {name:?} more than once (fields {} and {}): give --key-field by number",
                                    first + 1,
                                    second + 1
                                ),
                            },
                        })?
                    }
                }
            } else {
                match key {
                    KeyField::Number(n) => n - 1,
                    KeyField::Name(_) => return Err(RecordsError::NeedHeaderForName),
                }
            };
            r.mode = Mode::Delimited {
                dialect,
                index,
                fields,
            };
            Ok((prefix, r))
        }
    }
}

fn syntax(dialect: Dialect, first_line: u64, e: DelimitedError) -> RecordsError {
    RecordsError::Input {
        line: first_line + e.line(),
        problem: format!("not valid {}: {e}", dialect.name()),
    }
}

fn is_blank(line: &[u8]) -> bool {
    crate::streams::strip_line_end(line).is_empty()
}

impl<'a> Records<'a> {
    fn next_line(&mut self) -> Option<&'a [u8]> {
        if self.at >= self.input.len() {
            return None;
        }
        let rest = &self.input[self.at..];
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        self.at += end;
        Some(&rest[..end])
    }

    fn blank(line: u64) -> Option<Result<InputRecord<'a>, RecordsError>> {
        Some(Err(RecordsError::Input {
            line,
            problem: "empty line (only line files may hold empty records)".into(),
        }))
    }

    fn step(&mut self) -> Option<Result<InputRecord<'a>, RecordsError>> {
        let line = self.line;
        match &mut self.mode {
            Mode::Lines { next } => {
                let n = *next;
                *next += 1;
                let raw = self.next_line()?;
                self.line += 1;
                let mut buf = itoa::Buffer::new();
                Some(Ok(InputRecord {
                    raw: raw.into(),
                    key: KeyPlace::Own(buf.format(n).as_bytes().to_vec()),
                    line,
                }))
            }
            Mode::Jsonl { name } => {
                let name = name.clone();
                let raw = self.next_line()?;
                self.line += 1;
                // A byte order mark before the first line (as PowerShell 5 writes UTF-8)
                // is no part of its JSON (RFC 8259 lets a parser ignore it); the record
                // keeps its bytes as they were.
                let json = match raw.strip_prefix(BOM) {
                    Some(rest) if line == 1 => rest,
                    _ => raw,
                };
                if is_blank(json) {
                    return Self::blank(line);
                }
                Some(jsonl_key(json, &name, line).map(|k| InputRecord {
                    raw: raw.into(),
                    // Where the key's bytes are in the line as they are (a number, a
                    // string without escapes), a slice of it: not stored twice.
                    key: match memchr::memmem::find(raw, &k) {
                        Some(at) => KeyPlace::InRaw(at..at + k.len()),
                        None => KeyPlace::Own(k),
                    },
                    line,
                }))
            }
            Mode::Delimited {
                dialect,
                index,
                fields,
            } => {
                let (dialect, index) = (*dialect, *index);
                let rest = &self.input[self.at..];
                if rest.is_empty() {
                    return None;
                }
                let rec = match split_record(rest, dialect, true, fields) {
                    Ok(Some(r)) => r,
                    Ok(None) => return None,
                    Err(e) => return Some(Err(syntax(dialect, line, e))),
                };
                let raw = &rest[..rec.len];
                let key = fields.get(index).map(|f| match f.value(raw) {
                    // The key is a slice of the record when it needs no unescaping.
                    std::borrow::Cow::Borrowed(_) => KeyPlace::InRaw(f.start..f.end),
                    std::borrow::Cow::Owned(v) => KeyPlace::Own(v),
                });
                self.at += rec.len;
                self.line += rec.lines;
                if rec.body_end == 0 {
                    return Self::blank(line);
                }
                match key {
                    Some(key) => Some(Ok(InputRecord {
                        raw: raw.into(),
                        key,
                        line,
                    })),
                    None => Some(Err(RecordsError::Input {
                        line,
                        problem: format!("has no field {}", index + 1),
                    })),
                }
            }
        }
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<InputRecord<'a>, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        // (In JSON lines the mark is no part of line 1's JSON: nothing to say of it.)
        let jsonl = matches!(self.mode, Mode::Jsonl { .. });
        let item = self.step()?;
        // An error is the last item, whatever its kind: nothing after it is read.
        self.failed = item.is_err();
        Some(item.map_err(|e| if jsonl { e } else { note_bom(self.input, e) }))
    }
}

fn jsonl_key(raw: &[u8], name: &str, line: u64) -> Result<Vec<u8>, RecordsError> {
    use super::json_key::{Problem, key};
    let text = crate::streams::strip_line_end(raw);
    key(text, name).map_err(|p| RecordsError::Input {
        line,
        problem: match p {
            Problem::NotJson(e) => format!("not a JSON object: {e}"),
            Problem::Missing => format!("has no field {name:?}"),
            Problem::Twice => format!("names the field {name:?} more than once"),
            Problem::NotScalar => format!("field {name:?} is not a string, number or boolean"),
        },
    })
}

/// Where the one column that `matches` is, from 0; else `None` when no column matches, or
/// the first two that do.
pub(super) fn only_column(
    matches: impl IntoIterator<Item = bool>,
) -> Result<usize, Option<(usize, usize)>> {
    let mut at = matches
        .into_iter()
        .enumerate()
        .filter(|&(_, m)| m)
        .map(|(i, _)| i);
    let first = at.next().ok_or(None)?;
    match at.next() {
        Some(second) => Err(Some((first, second))),
        None => Ok(first),
    }
}
