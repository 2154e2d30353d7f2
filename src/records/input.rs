//! Reading record input: lines, CSV, TSV or JSON lines, each record with its exact raw
//! bytes (borrowed from the input) and its key. Parsing is lazy: records are yielded one
//! at a time, so sealing never holds a second copy of the input.

use super::format::InputFormat;
use super::{InputRecord, KeyPlace, RecordsError};

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

enum Mode<'a> {
    Lines {
        next: u64,
    },
    Jsonl {
        name: String,
    },
    /// Delimited input without quoting (TSV, or CSV without a quote anywhere).
    Plain {
        delim: u8,
        index: usize,
    },
    /// CSV with quotes: the csv crate finds record boundaries.
    Quoted {
        rdr: Box<csv::Reader<&'a [u8]>>,
        index: usize,
        rec: csv::ByteRecord,
    },
}

/// The records of an input, in order.
pub struct Records<'a> {
    input: &'a [u8],
    at: usize,
    line: u64,
    mode: Mode<'a>,
    failed: bool,
    quoted_start: usize,
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
    let mut r = Records {
        input,
        at: 0,
        line: 1,
        mode: Mode::Lines { next: first_number },
        failed: false,
        quoted_start: 0,
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
            let delim = if format == InputFormat::Csv {
                b','
            } else {
                b'\t'
            };
            let quoted = format == InputFormat::Csv && memchr::memchr(b'"', input).is_some();
            let mut prefix = None;
            let index = if header_row {
                let (raw, fields) = if quoted {
                    let mut rdr = reader(input, delim);
                    let mut rec = csv::ByteRecord::new();
                    if !rdr
                        .read_byte_record(&mut rec)
                        .map_err(|e| csv_error(&e, delim))?
                    {
                        return Err(RecordsError::Input {
                            line: 1,
                            problem: "no header row".into(),
                        });
                    }
                    let end = crlf_end(input, rdr.position().byte() as usize);
                    (
                        &input[..end],
                        rec.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(),
                    )
                } else {
                    let end = memchr::memchr(b'\n', input).map_or(input.len(), |i| i + 1);
                    let raw = &input[..end];
                    let body = crate::streams::strip_line_end(raw);
                    (
                        raw,
                        body.split(|&c| c == delim).map(<[u8]>::to_vec).collect(),
                    )
                };
                if crate::streams::strip_line_end(raw).is_empty() {
                    return Err(RecordsError::Input {
                        line: 1,
                        problem: "no header row".into(),
                    });
                }
                r.at = raw.len();
                r.line += count_newlines(raw);
                prefix = Some(raw);
                match key {
                    KeyField::Number(n) => n - 1,
                    KeyField::Name(name) => fields
                        .iter()
                        .position(|f| f == name.as_bytes())
                        .ok_or_else(|| RecordsError::Input {
                            line: 1,
                            problem: format!("the header row has no field {name:?}"),
                        })?,
                }
            } else {
                match key {
                    KeyField::Number(n) => n - 1,
                    KeyField::Name(_) => return Err(RecordsError::NeedHeaderForName),
                }
            };
            r.mode = if quoted {
                let rdr = reader(&input[r.at..], delim);
                r.quoted_start = r.at;
                Mode::Quoted {
                    rdr: Box::new(rdr),
                    index,
                    rec: csv::ByteRecord::new(),
                }
            } else {
                Mode::Plain { delim, index }
            };
            Ok((prefix, r))
        }
    }
}

fn reader(input: &[u8], delim: u8) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .delimiter(delim)
        .has_headers(false)
        .flexible(true)
        .quoting(delim == b',')
        .from_reader(input)
}

fn csv_error(e: &csv::Error, delim: u8) -> RecordsError {
    RecordsError::Input {
        line: e.position().map_or(0, |p| p.line()),
        problem: format!(
            "not valid {}: {e}",
            if delim == b',' { "CSV" } else { "TSV" }
        ),
    }
}

/// The csv reader ends a record terminated by CRLF after the CR; the LF belongs to it.
fn crlf_end(input: &[u8], end: usize) -> usize {
    if end > 0 && input[end - 1] == b'\r' && input.get(end) == Some(&b'\n') {
        end + 1
    } else {
        end
    }
}

fn count_newlines(b: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', b).count() as u64
}

fn is_blank(line: &[u8]) -> bool {
    crate::streams::strip_line_end(line).is_empty()
}

/// The range of field `index` in an unquoted line body.
fn field_range(body: &[u8], delim: u8, index: usize) -> Option<std::ops::Range<usize>> {
    let mut start = 0;
    for _ in 0..index {
        start += memchr::memchr(delim, &body[start..])? + 1;
    }
    let end = memchr::memchr(delim, &body[start..]).map_or(body.len(), |i| start + i);
    Some(start..end)
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

    fn blank(&mut self, line: u64) -> Option<Result<InputRecord<'a>, RecordsError>> {
        self.failed = true;
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
                if is_blank(raw) {
                    return self.blank(line);
                }
                Some(jsonl_key(raw, &name, line).map(|k| InputRecord {
                    raw: raw.into(),
                    key: KeyPlace::Own(k),
                    line,
                }))
            }
            Mode::Plain { delim, index } => {
                let (delim, index) = (*delim, *index);
                let raw = self.next_line()?;
                self.line += 1;
                if is_blank(raw) {
                    return self.blank(line);
                }
                let body = crate::streams::strip_line_end(raw);
                match field_range(body, delim, index) {
                    Some(r) => Some(Ok(InputRecord {
                        raw: raw.into(),
                        key: KeyPlace::InRaw(r),
                        line,
                    })),
                    None => {
                        self.failed = true;
                        Some(Err(RecordsError::Input {
                            line,
                            problem: format!("has no field {}", index + 1),
                        }))
                    }
                }
            }
            Mode::Quoted { .. } => {
                if self.at < self.input.len() && matches!(self.input[self.at], b'\n' | b'\r') {
                    return self.blank(line);
                }
                let Mode::Quoted { rdr, index, rec } = &mut self.mode else {
                    unreachable!()
                };
                let index = *index;
                let base = self.at;
                match rdr.read_byte_record(rec) {
                    Ok(true) => {}
                    Ok(false) => return None,
                    Err(e) => {
                        self.failed = true;
                        return Some(Err(RecordsError::Input {
                            line,
                            problem: format!("not valid CSV: {e}"),
                        }));
                    }
                }
                // The reader started at the first record after the header row.
                let end = crlf_end(
                    self.input,
                    self.quoted_start + rdr.position().byte() as usize,
                );
                let raw = &self.input[base..end];
                let field = rec.get(index).map(<[u8]>::to_vec);
                self.at = end;
                self.line += count_newlines(raw);
                let Some(field) = field else {
                    self.failed = true;
                    return Some(Err(RecordsError::Input {
                        line,
                        problem: format!("has no field {}", index + 1),
                    }));
                };
                let place = match memchr::memchr(b'"', raw) {
                    None => field_range(crate::streams::strip_line_end(raw), b',', index)
                        .map_or(KeyPlace::Own(field), KeyPlace::InRaw),
                    Some(_) => KeyPlace::Own(field),
                };
                Some(Ok(InputRecord {
                    raw: raw.into(),
                    key: place,
                    line,
                }))
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
        self.step()
    }
}

fn jsonl_key(raw: &[u8], name: &str, line: u64) -> Result<Vec<u8>, RecordsError> {
    let text = crate::streams::strip_line_end(raw);
    let v: serde_json::Value = serde_json::from_slice(text).map_err(|e| RecordsError::Input {
        line,
        problem: format!("not JSON: {e}"),
    })?;
    match v.get(name) {
        Some(serde_json::Value::String(s)) => Ok(s.clone().into_bytes()),
        Some(serde_json::Value::Number(n)) => Ok(n.to_string().into_bytes()),
        Some(serde_json::Value::Bool(b)) => Ok(b.to_string().into_bytes()),
        Some(_) => Err(RecordsError::Input {
            line,
            problem: format!("field {name:?} is not a string, number or boolean"),
        }),
        None => Err(RecordsError::Input {
            line,
            problem: format!("has no field {name:?}"),
        }),
    }
}
