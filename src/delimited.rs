//! Delimited text, strictly: CSV as RFC 4180 defines it, and TSV (tab-separated, no
//! quoting). One record at a time, in place: a record's fields are ranges of its bytes,
//! so that a caller can pass untouched fields through exactly as they were.
//!
//! Strict means that nothing is guessed. An unterminated quoted field, a character after
//! a closing quote (`"x"y`) and a quote inside an unquoted field (`a"b`) are errors
//! naming the line, never a record that swallows the rest of the input or a field
//! rewritten on the way. A record ends at a line feed (with or without a carriage return
//! before it) outside quotes, or at the end of the input; a quoted field may span lines.

use std::borrow::Cow;

/// The delimiter, and whether fields may be quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// The field separator.
    pub delimiter: u8,
    /// CSV: fields may be enclosed in double quotes. TSV: quotes are ordinary bytes.
    pub quoting: bool,
}

impl Dialect {
    /// Comma-separated values with RFC 4180 quoting.
    pub const CSV: Dialect = Dialect {
        delimiter: b',',
        quoting: true,
    };
    /// Tab-separated values, no quoting.
    pub const TSV: Dialect = Dialect {
        delimiter: b'\t',
        quoting: false,
    };

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        if self.quoting { "CSV" } else { "TSV" }
    }
}

/// One field of a record: its bytes are `record[start..end]`; for a quoted field, the
/// bytes between the quotes, in which `escaped` says doubled quotes occur.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Field {
    /// Where the field's bytes start in the record.
    pub start: usize,
    /// Where they end.
    pub end: usize,
    /// Whether the field was enclosed in quotes (which are outside `start..end`).
    pub quoted: bool,
    /// Whether it holds doubled quotes (`""`) that stand for one.
    pub escaped: bool,
}

impl Field {
    /// The field's value: its bytes, with doubled quotes undoubled.
    pub fn value<'a>(&self, record: &'a [u8]) -> Cow<'a, [u8]> {
        let raw = &record[self.start..self.end];
        if !self.escaped {
            return Cow::Borrowed(raw);
        }
        let mut out = Vec::with_capacity(raw.len());
        let mut i = 0;
        while i < raw.len() {
            out.push(raw[i]);
            i += if raw[i] == b'"' { 2 } else { 1 };
        }
        Cow::Owned(out)
    }

    /// The field's bytes as the record holds them, quotes included.
    pub fn raw<'a>(&self, record: &'a [u8]) -> &'a [u8] {
        &record[self.raw_range()]
    }

    /// Where the field's bytes are in the record, quotes included.
    pub fn raw_range(&self) -> std::ops::Range<usize> {
        if self.quoted {
            self.start - 1..self.end + 1
        } else {
            self.start..self.end
        }
    }
}

/// Where a parsed record ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// Its length in bytes, line end included.
    pub len: usize,
    /// Where its line end starts (`len` when it has none: the last line of an input).
    pub body_end: usize,
    /// The lines it spans (more than one when a quoted field holds line ends).
    pub lines: u64,
}

/// What is wrong with a record. `line` counts from the record's first line (0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DelimitedError {
    /// A quoted field that never closes.
    #[error("a quoted field opens here and is never closed")]
    Unterminated {
        /// The line where it opened.
        line: u64,
    },
    /// Something other than a delimiter or a line end after a closing quote.
    #[error("a character follows a closing quote (RFC 4180 allows only a delimiter or a line end)")]
    AfterQuote {
        /// The line.
        line: u64,
    },
    /// A quote inside a field that does not start with one.
    #[error(
        "a quote inside an unquoted field (RFC 4180: quote the whole field and double the quote)"
    )]
    BareQuote {
        /// The line.
        line: u64,
    },
}

impl DelimitedError {
    /// The line of the problem, counted from the record's first line (0).
    pub fn line(&self) -> u64 {
        match *self {
            DelimitedError::Unterminated { line }
            | DelimitedError::AfterQuote { line }
            | DelimitedError::BareQuote { line } => line,
        }
    }
}

/// Splits the record at the start of `input` into `fields` (cleared first). `complete`
/// says that `input` runs to the end of the data: otherwise a record that may go on
/// past `input` gives `Ok(None)`, and the caller reads more. An empty line is a record
/// of one empty field.
pub fn split_record(
    input: &[u8],
    dialect: Dialect,
    complete: bool,
    fields: &mut Vec<Field>,
) -> Result<Option<Record>, DelimitedError> {
    fields.clear();
    let d = dialect.delimiter;
    let mut i = 0;
    let mut line = 0u64;
    loop {
        if dialect.quoting && input.get(i) == Some(&b'"') {
            let opened = line;
            let mut j = i + 1;
            let mut escaped = false;
            let close = loop {
                let Some(k) = memchr::memchr2(b'"', b'\n', &input[j..]) else {
                    return if complete {
                        Err(DelimitedError::Unterminated { line: opened })
                    } else {
                        Ok(None)
                    };
                };
                let p = j + k;
                if input[p] == b'\n' {
                    line += 1;
                    j = p + 1;
                    continue;
                }
                match input.get(p + 1) {
                    Some(b'"') => {
                        escaped = true;
                        j = p + 2;
                    }
                    None if !complete => return Ok(None),
                    _ => break p,
                }
            };
            fields.push(Field {
                start: i + 1,
                end: close,
                quoted: true,
                escaped,
            });
            i = close + 1;
            match input.get(i) {
                Some(&c) if c == d => i += 1,
                Some(b'\n') => return Ok(Some(ended(i, i + 1, line))),
                Some(b'\r') => match input.get(i + 1) {
                    Some(b'\n') => return Ok(Some(ended(i, i + 2, line))),
                    None if !complete => return Ok(None),
                    None => return Ok(Some(ended(i, i + 1, line))),
                    Some(_) => return Err(DelimitedError::AfterQuote { line }),
                },
                None if complete => return Ok(Some(ended(i, i, line))),
                None => return Ok(None),
                Some(_) => return Err(DelimitedError::AfterQuote { line }),
            }
            continue;
        }
        let rest = &input[i..];
        let stop = if dialect.quoting {
            memchr::memchr3(d, b'\n', b'"', rest)
        } else {
            memchr::memchr2(d, b'\n', rest)
        };
        match stop {
            None => {
                if !complete {
                    return Ok(None);
                }
                // The last line of the input, without a line end (a lone carriage
                // return at its very end is taken for one).
                let end = input.len();
                let body = if input.last() == Some(&b'\r') {
                    end - 1
                } else {
                    end
                };
                fields.push(plain(i, body.max(i)));
                return Ok(Some(ended(body.max(i), end, line)));
            }
            Some(k) => {
                let p = i + k;
                match input[p] {
                    b'"' => return Err(DelimitedError::BareQuote { line }),
                    b'\n' => {
                        let body = if p > i && input[p - 1] == b'\r' {
                            p - 1
                        } else {
                            p
                        };
                        fields.push(plain(i, body));
                        return Ok(Some(ended(body, p + 1, line)));
                    }
                    _ => {
                        fields.push(plain(i, p));
                        i = p + 1;
                    }
                }
            }
        }
    }
}

fn plain(start: usize, end: usize) -> Field {
    Field {
        start,
        end,
        quoted: false,
        escaped: false,
    }
}

fn ended(body_end: usize, len: usize, line: u64) -> Record {
    Record {
        len,
        body_end,
        lines: line + 1,
    }
}

/// Reads records one at a time from a stream, holding at most one record (within a
/// cap) and one read.
pub struct Reader<'r> {
    reader: &'r mut dyn std::io::Read,
    dialect: Dialect,
    buf: Vec<u8>,
    start: usize,
    len: usize,
    eof: bool,
    line: u64,
    cap: usize,
    fields: Vec<Field>,
}

/// A record read by [`Reader::next_row`].
#[derive(Debug)]
pub struct Row<'b> {
    /// The line it starts on, from 1.
    pub line: u64,
    /// Its bytes, line end included.
    pub bytes: &'b [u8],
    /// Its fields (ranges of `bytes`).
    pub fields: &'b [Field],
    /// Where it ends.
    pub record: Record,
}

impl Row<'_> {
    /// The record without its line end.
    pub fn body(&self) -> &[u8] {
        &self.bytes[..self.record.body_end]
    }

    /// Its line end (`\n`, `\r\n`, or nothing at the end of the input).
    pub fn line_end(&self) -> &[u8] {
        &self.bytes[self.record.body_end..]
    }
}

/// Why a [`Reader`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A record that RFC 4180 does not allow.
    #[error("line {line}: not valid {dialect}: {error}")]
    Syntax {
        /// The line of the problem, from 1.
        line: u64,
        /// CSV or TSV.
        dialect: &'static str,
        /// What is wrong.
        error: DelimitedError,
    },
    /// A quoted field still open after as many bytes as the cap (whether it closes later
    /// is not read).
    #[error("line {line}: a quoted field opens here and does not close within {} (the limit of one record)", crate::streams::size_text(*.cap))]
    OpenPastCap {
        /// The line where it opens.
        line: u64,
        /// The limit.
        cap: usize,
    },
    /// A record longer than the cap.
    #[error("line {line}: a record longer than {} (the limit of one record)", crate::streams::size_text(*.cap))]
    TooLong {
        /// The line it starts on.
        line: u64,
        /// The limit.
        cap: usize,
    },
}

impl<'r> Reader<'r> {
    /// Reads `reader` with records of at most [`LINE_CAP`](crate::streams::LINE_CAP)
    /// bytes.
    pub fn new(reader: &'r mut dyn std::io::Read, dialect: Dialect) -> Self {
        Reader::with_cap(reader, dialect, crate::streams::LINE_CAP)
    }

    /// Reads `reader` with records of at most `cap` bytes.
    pub fn with_cap(reader: &'r mut dyn std::io::Read, dialect: Dialect, cap: usize) -> Self {
        Reader {
            reader,
            dialect,
            buf: vec![0; 1 << 16],
            start: 0,
            len: 0,
            eof: false,
            line: 1,
            cap,
            fields: Vec::new(),
        }
    }

    /// The next record, or `None` at the end of the input.
    pub fn next_row(&mut self) -> Result<Option<Row<'_>>, ReadError> {
        loop {
            let avail = &self.buf[self.start..self.len];
            if avail.is_empty() && self.eof {
                return Ok(None);
            }
            let syntax = |line: u64, error: DelimitedError| ReadError::Syntax {
                line: line + error.line(),
                dialect: self.dialect.name(),
                error,
            };
            match split_record(avail, self.dialect, self.eof, &mut self.fields) {
                Ok(Some(record)) => {
                    let (at, line) = (self.start, self.line);
                    self.start += record.len;
                    self.line += record.lines;
                    return Ok(Some(Row {
                        line,
                        bytes: &self.buf[at..at + record.len],
                        fields: &self.fields,
                        record,
                    }));
                }
                Err(e) => return Err(syntax(self.line, e)),
                Ok(None) => {}
            }
            if avail.len() > self.cap {
                // Name a quoted field still open at the cap, the likely cause; it may close
                // past the cap, so it is not said to be unclosed.
                if let Err(DelimitedError::Unterminated { line }) =
                    split_record(avail, self.dialect, true, &mut self.fields)
                {
                    return Err(ReadError::OpenPastCap {
                        line: self.line + line,
                        cap: self.cap,
                    });
                }
                return Err(ReadError::TooLong {
                    line: self.line,
                    cap: self.cap,
                });
            }
            self.fill()?;
        }
    }

    /// Reads more, keeping the unread bytes.
    fn fill(&mut self) -> std::io::Result<()> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.len, 0);
            self.len -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.len < (1 << 15) {
            let grown = (self.buf.len() * 2).min(self.cap + (1 << 16));
            self.buf.resize(grown.max(self.len + (1 << 15)), 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.len..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.len += n;
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// Whether a value must be quoted to be written as one CSV field.
pub fn needs_quotes(value: &[u8], dialect: Dialect) -> bool {
    dialect.quoting
        && value
            .iter()
            .any(|&c| c == dialect.delimiter || c == b'"' || c == b'\n' || c == b'\r')
}

/// Appends `value` as one field: quoted (with doubled quotes) when it must be, in CSV.
pub fn write_field(out: &mut Vec<u8>, value: &[u8], dialect: Dialect) {
    if !needs_quotes(value, dialect) {
        out.extend_from_slice(value);
        return;
    }
    out.push(b'"');
    for &c in value {
        if c == b'"' {
            out.push(b'"');
        }
        out.push(c);
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    type Split = Option<(Vec<Vec<u8>>, Record)>;

    fn values(input: &[u8], d: Dialect) -> Result<Split, DelimitedError> {
        let mut f = Vec::new();
        Ok(split_record(input, d, true, &mut f)?.map(|r| {
            (
                f.iter()
                    .map(|x| x.value(&input[..r.len]).into_owned())
                    .collect(),
                r,
            )
        }))
    }

    fn v(fields: &[&str]) -> Vec<Vec<u8>> {
        fields.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn rfc_4180_records() {
        let (f, r) = values(b"a,b,c\nnext", Dialect::CSV).unwrap().unwrap();
        assert_eq!(
            (f, r.len, r.body_end, r.lines),
            (v(&["a", "b", "c"]), 6, 5, 1)
        );
        let (f, r) = values(
            b"\"a,1\",\"say \"\"hi\"\"\",\"two\r\nlines\"\r\nx",
            Dialect::CSV,
        )
        .unwrap()
        .unwrap();
        assert_eq!(f, v(&["a,1", "say \"hi\"", "two\r\nlines"]));
        assert_eq!(
            (
                r.lines,
                &b"\"a,1\",\"say \"\"hi\"\"\",\"two\r\nlines\"\r\nx"[r.len..]
            ),
            (2, &b"x"[..])
        );
        let (f, r) = values(b",,", Dialect::CSV).unwrap().unwrap();
        assert_eq!((f, r.len), (v(&["", "", ""]), 2));
        let (f, _) = values(b"\"\"\n", Dialect::CSV).unwrap().unwrap();
        assert_eq!(f, v(&[""]));
        let (f, _) = values(b"\n", Dialect::CSV).unwrap().unwrap();
        assert_eq!(f, v(&[""]));
        let (f, r) = values(b"last\r", Dialect::CSV).unwrap().unwrap();
        assert_eq!((f, r.body_end, r.len), (v(&["last"]), 4, 5));
        // TSV: quotes are ordinary.
        let (f, _) = values(b"\"a\"b\tc\n", Dialect::TSV).unwrap().unwrap();
        assert_eq!(f, v(&["\"a\"b", "c"]));
    }

    #[test]
    fn what_rfc_4180_forbids_is_an_error_naming_the_line() {
        let mut f = Vec::new();
        let err =
            |input: &[u8]| split_record(input, Dialect::CSV, true, &mut Vec::new()).unwrap_err();
        assert_eq!(
            err(b"a,\"open\nb,c\nd,e\n"),
            DelimitedError::Unterminated { line: 0 }
        );
        assert_eq!(err(b"a,\"x\"y\n"), DelimitedError::AfterQuote { line: 0 });
        assert_eq!(
            err(b"a,\"x\ny\"z\n"),
            DelimitedError::AfterQuote { line: 1 }
        );
        assert_eq!(err(b"a,\"x\"\rz\n"), DelimitedError::AfterQuote { line: 0 });
        assert_eq!(err(b"a,b\"c\n"), DelimitedError::BareQuote { line: 0 });
        assert_eq!(err(b" \"a\"\n"), DelimitedError::BareQuote { line: 0 });
        // Not complete: more input may close the quote.
        assert_eq!(
            split_record(b"a,\"open\nb", Dialect::CSV, false, &mut f),
            Ok(None)
        );
        assert_eq!(split_record(b"a,b", Dialect::CSV, false, &mut f), Ok(None));
        assert_eq!(
            split_record(b"\"a\"", Dialect::CSV, false, &mut f),
            Ok(None)
        );
        assert_eq!(
            split_record(b"\"a\"\r", Dialect::CSV, false, &mut f),
            Ok(None)
        );
    }

    fn field_value() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                Just(b','),
                Just(b'"'),
                Just(b'\n'),
                Just(b'\r'),
                Just(b'\t'),
                b'a'..=b'e'
            ],
            0..8,
        )
    }

    proptest! {
        #[test]
        fn written_records_split_back_into_their_values(
            rows in proptest::collection::vec(proptest::collection::vec(field_value(), 1..5), 1..6),
            crlf in any::<bool>(),
        ) {
            let mut text = Vec::new();
            for row in &rows {
                for (i, value) in row.iter().enumerate() {
                    if i > 0 {
                        text.push(b',');
                    }
                    write_field(&mut text, value, Dialect::CSV);
                }
                text.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
            let mut at = 0;
            let mut fields = Vec::new();
            for row in &rows {
                let r = split_record(&text[at..], Dialect::CSV, true, &mut fields).unwrap().unwrap();
                let rec = &text[at..at + r.len];
                let got: Vec<Vec<u8>> = fields.iter().map(|f| f.value(rec).into_owned()).collect();
                // A row of one empty value and an empty line are the same record.
                prop_assert_eq!(&got, row);
                for (f, value) in fields.iter().zip(row) {
                    prop_assert_eq!(f.quoted, needs_quotes(value, Dialect::CSV));
                }
                at += r.len;
            }
            prop_assert_eq!(at, text.len());
        }

        #[test]
        fn any_input_splits_or_fails_without_panicking(input in proptest::collection::vec(
            prop_oneof![Just(b','), Just(b'"'), Just(b'\n'), Just(b'\r'), b'a'..=b'b'], 0..40),
            complete in any::<bool>(), quoting in any::<bool>()) {
            let d = Dialect { delimiter: b',', quoting };
            let mut fields = Vec::new();
            if let Ok(Some(r)) = split_record(&input, d, complete, &mut fields) {
                prop_assert!(r.len <= input.len() && r.body_end <= r.len);
                for f in &fields {
                    prop_assert!(f.start <= f.end && f.end <= r.body_end);
                }
            }
        }
    }

    #[test]
    fn a_stream_reader_names_the_line_of_a_quote_that_never_closes() {
        let data = b"id,ssn\n1,\"111\n2,222\n3,333\n".to_vec();
        let mut input = &data[..];
        let mut r = Reader::new(&mut input, Dialect::CSV);
        assert_eq!(r.next_row().unwrap().unwrap().line, 1);
        let e = r.next_row().unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: not valid CSV: a quoted field opens here and is never closed"
        );
        // Beyond the cap the quote is named, not just the size, and not said to be
        // unclosed: past the cap it may close (here on line 3, and a record of 3 lines
        // follows), which is not read.
        for closes in [false, true] {
            // Longer than the reader's first buffer (64 KiB), so that it reads again.
            let mut long = b"a,b\n1,\"x\n".to_vec();
            long.extend(std::iter::repeat_n(b'x', 100_000));
            if closes {
                long.extend_from_slice(b"\n\"\n2,c\n");
            }
            let mut input = &long[..];
            let mut r = Reader::with_cap(&mut input, Dialect::CSV, 1000);
            assert_eq!(r.next_row().unwrap().unwrap().line, 1);
            let e = r.next_row().unwrap_err();
            assert!(matches!(e, ReadError::OpenPastCap { line: 2, cap: 1000 }));
            assert_eq!(
                e.to_string(),
                "line 2: a quoted field opens here and does not close within 1000 bytes \
                 (the limit of one record)"
            );
        }
        let mut zero = std::io::repeat(b'z');
        let mut r = Reader::with_cap(&mut zero, Dialect::CSV, 1000);
        assert!(matches!(
            r.next_row(),
            Err(ReadError::TooLong { line: 1, cap: 1000 })
        ));
    }

    proptest! {
        #[test]
        fn a_stream_reader_gives_the_records_of_a_slice(
            input in proptest::collection::vec(
                prop_oneof![Just(b','), Just(b'"'), Just(b'\n'), Just(b'\r'), b'a'..=b'b'], 0..60),
            step in 1usize..9,
        ) {
            // The reference: split_record over the whole slice.
            let mut want = Vec::new();
            let mut at = 0;
            let mut fields = Vec::new();
            let expect_err = loop {
                if at == input.len() { break false; }
                match split_record(&input[at..], Dialect::CSV, true, &mut fields) {
                    Ok(Some(r)) => { want.push(input[at..at + r.len].to_vec()); at += r.len; }
                    Ok(None) => unreachable!(),
                    Err(_) => break true,
                }
            };
            let mut t = crate::streams::Pieces::new(&input, vec![step]);
            let mut r = Reader::new(&mut t, Dialect::CSV);
            let mut got = Vec::new();
            let failed = loop {
                match r.next_row() {
                    Ok(Some(row)) => got.push(row.bytes.to_vec()),
                    Ok(None) => break false,
                    Err(_) => break true,
                }
            };
            prop_assert_eq!(failed, expect_err);
            prop_assert_eq!(got, want);
        }
    }
}
