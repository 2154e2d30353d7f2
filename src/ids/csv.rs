//! Ids in one field of CSV records (RFC 4180, strictly, as `records` reads CSV): each
//! record is written back byte for byte except the id field (and the nonce field where
//! one is written), so quoted fields, embedded line ends and CRLF pass through as they
//! were. One id at a time: CSV is read for its structure, not at the line stream's rate.

use super::job::{LineError, Op, Options, StreamError, Summary};
use super::{Codec, Form, InputError};
use crate::delimited::{Dialect, ReadError, Reader, write_field};
use std::io::{Read, Write};

/// Transforms field `opts.field` of every CSV record of `input` (the delimiter is
/// `opts.delimiter`), writing the records to `output` in order. The first record is
/// copied unchanged when `opts.header`. Bad values are handled as by
/// `stream::run`: reported (with the line the record starts on)
/// and replaced by an empty line with `keep_going`, else the end of the run. A record
/// that is not valid CSV always ends the run: its extent is unknown.
pub fn run(
    codec: &Codec,
    opts: &Options,
    input: &mut dyn Read,
    output: &mut dyn Write,
    on_error: &mut dyn FnMut(&LineError),
) -> Result<Summary, StreamError> {
    let field = opts.field.expect("CSV mode transforms one field");
    let dialect = Dialect {
        delimiter: opts.delimiter,
        quoting: true,
    };
    let stored = codec.spec().form == Form::StoredNonce;
    let write_nonce = opts.nonce_field.is_some()
        && stored
        && ((opts.op == Op::Encode && opts.random_nonce) || opts.op == Op::Decode);
    let mut out: Vec<u8> = Vec::with_capacity(1 << 16);
    // A byte order mark before the first record (a spreadsheet's CSV) is no part of its
    // first field: written first, so that the output starts with it too.
    let mut head = Vec::with_capacity(3);
    (&mut *input)
        .take(3)
        .read_to_end(&mut head)
        .map_err(StreamError::Read)?;
    if head == crate::streams::BOM {
        out.extend_from_slice(crate::streams::BOM);
        head.clear();
    }
    let mut input = (&head[..]).chain(input);
    let mut reader = Reader::new(&mut input, dialect);
    let mut summary = Summary::default();
    let mut first = true;
    loop {
        let row = match reader.next_row() {
            Ok(Some(row)) => row,
            Ok(None) => break,
            Err(e) => {
                output.write_all(&out).map_err(StreamError::Write)?;
                output.flush().map_err(StreamError::Write)?;
                return Err(match e {
                    ReadError::Io(e) => StreamError::Read(e),
                    other => StreamError::Csv(other.to_string()),
                });
            }
        };
        summary.lines += 1;
        if std::mem::take(&mut first) && opts.header {
            out.extend_from_slice(row.bytes);
            continue;
        }
        let value = |n: usize| -> Result<Vec<u8>, InputError> {
            let f = row.fields.get(n - 1).ok_or(InputError::MissingField(n))?;
            Ok(f.value(row.bytes).into_owned())
        };
        let random = if opts.op == Op::Encode && stored && opts.random_nonce {
            let mut b = [0u8; 8];
            getrandom::fill(&mut b).map_err(|e| StreamError::Random(e.to_string()))?;
            Some(u64::from_le_bytes(b) & codec.nonce_mask())
        } else {
            None
        };
        let result = (|| -> Result<(Vec<u8>, Option<u64>), InputError> {
            let text = value(field)?;
            let nonce_in = match opts.nonce_field {
                Some(nf) if opts.op == Op::Encode && stored && random.is_none() => {
                    let t = value(nf)?;
                    Some(codec.parse_nonce(&t)?)
                }
                _ => random,
            };
            transform(codec, opts, stored, &text, nonce_in)
        })();
        match result {
            Ok((replacement, nonce)) => {
                // Replace the id field (and the nonce field), in the order they appear.
                let mut pieces = vec![(row.fields[field - 1].raw_range(), replacement)];
                if let (true, Some(nf), Some(n)) = (write_nonce, opts.nonce_field, nonce) {
                    match row.fields.get(nf - 1) {
                        Some(f) => pieces.push((f.raw_range(), n.to_string().into_bytes())),
                        None => {
                            fail(
                                &mut summary,
                                &out,
                                output,
                                opts,
                                on_error,
                                row.line,
                                InputError::MissingField(nf),
                            )?;
                            out.extend_from_slice(row.line_end());
                            continue;
                        }
                    }
                }
                pieces.sort_by_key(|p| p.0.start);
                let mut at = 0;
                for (range, text) in pieces {
                    out.extend_from_slice(&row.bytes[at..range.start]);
                    write_field(&mut out, &text, dialect);
                    at = range.end;
                }
                out.extend_from_slice(&row.bytes[at..]);
            }
            Err(e) => {
                fail(&mut summary, &out, output, opts, on_error, row.line, e)?;
                let end = row.line_end();
                out.extend_from_slice(if end.is_empty() { b"\n" } else { end });
            }
        }
        if out.len() >= 1 << 16 {
            output.write_all(&out).map_err(StreamError::Write)?;
            out.clear();
        }
    }
    output.write_all(&out).map_err(StreamError::Write)?;
    output.flush().map_err(StreamError::Write)?;
    Ok(summary)
}

/// A bad value on the record starting at `line`: reported and counted with
/// `keep_going`, else the output so far is written and the run ends.
fn fail(
    summary: &mut Summary,
    out: &[u8],
    output: &mut dyn Write,
    opts: &Options,
    on_error: &mut dyn FnMut(&LineError),
    line: u64,
    error: InputError,
) -> Result<(), StreamError> {
    summary.errors += 1;
    let err = LineError { line, error };
    if !opts.keep_going {
        summary.lines -= 1;
        output.write_all(out).map_err(StreamError::Write)?;
        output.flush().map_err(StreamError::Write)?;
        return Err(StreamError::Line(err));
    }
    on_error(&err);
    Ok(())
}

/// One value: the new field text, and the nonce (stored-nonce form).
fn transform(
    codec: &Codec,
    opts: &Options,
    stored: bool,
    text: &[u8],
    nonce_in: Option<u64>,
) -> Result<(Vec<u8>, Option<u64>), InputError> {
    let encoded = |id: u64, nonce: u64| -> Result<Vec<u8>, InputError> {
        let block = codec.encode(id, nonce)?;
        let mut v = opts.prefix.clone();
        opts.format.write(&block, &mut v);
        Ok(v)
    };
    match opts.op {
        Op::Encode => {
            let id = codec.parse_id(text)?;
            let nonce = match (stored, nonce_in) {
                (false, _) => 0,
                (true, Some(n)) => n,
                (true, None) => return Err(InputError::MissingNonce),
            };
            Ok((encoded(id, nonce)?, stored.then_some(nonce)))
        }
        Op::Decode | Op::Reencode => {
            let body = text.strip_prefix(&opts.prefix[..]).ok_or_else(|| {
                InputError::Prefix(String::from_utf8_lossy(&opts.prefix).into_owned())
            })?;
            let block = opts.format.parse(body)?;
            let (mut id, mut nonce, mut err) = ([0u64], [0u64], [None]);
            codec.decode_many(&[block], opts.key_id, &mut id, &mut nonce, &mut err);
            if let Some(e) = err[0].take() {
                return Err(e);
            }
            if opts.op == Op::Decode {
                Ok((id[0].to_string().into_bytes(), stored.then_some(nonce[0])))
            } else {
                Ok((encoded(id[0], nonce[0])?, None))
            }
        }
    }
}
