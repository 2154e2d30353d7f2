//! Streams of ids, one per line: encode, decode or re-encode each line (or one field of
//! each line), in order, in batches so that the AES work of many lines runs together.

use super::text::Format;
use super::{Codec, Form, InputError};
use crate::block::Block;
use crate::streams::Handoff;

pub use super::job::{LineError, Op, Options, StreamError, Summary};

/// The output is handed on once this much has gathered (to a threaded writer: one wake-up
/// of its thread per chunk).
const OUT_CHUNK: usize = 1 << 20;

/// The output of a stream: a buffer whose bytes are overwritten (zeroed only where it
/// grows, including after a hand-off leaves another buffer in its place), written with
/// fixed-size copies where possible (a libc call per short variable-length copy costs
/// more than the AES work).
struct Out {
    buf: Vec<u8>,
    pos: usize,
}

impl Out {
    fn new() -> Out {
        Out {
            buf: vec![0; OUT_CHUNK * 2],
            pos: 0,
        }
    }

    #[inline(always)]
    fn room(&mut self, n: usize) -> &mut [u8] {
        if self.pos + n > self.buf.len() {
            // After a hand-off the buffer may be another one, of any length; its bytes
            // are overwritten, and only its growth is zeroed.
            let size = (self.buf.len() * 2).max(self.pos + n).max(2 * OUT_CHUNK);
            self.buf.resize(size, 0);
        }
        &mut self.buf[self.pos..self.pos + n]
    }

    #[inline]
    fn push(&mut self, b: u8) {
        self.room(1)[0] = b;
        self.pos += 1;
    }

    #[inline]
    fn put(&mut self, s: &[u8]) {
        self.room(s.len()).copy_from_slice(s);
        self.pos += s.len();
    }

    #[inline(always)]
    fn put_u64(&mut self, v: u64) {
        let n = super::decimal::write_decimal(v, self.room(20));
        self.pos += n;
    }

    #[inline]
    fn put_id(&mut self, format: Format, v: &Block) {
        let n = format.write_to(v, self.room(36));
        self.pos += n;
    }

    fn len(&self) -> usize {
        self.pos
    }

    /// Hands the filled part of the buffer to `output` (which may take the buffer
    /// itself and leave another in its place).
    fn flush_to(&mut self, output: &mut dyn Handoff) -> Result<(), StreamError> {
        if self.pos == 0 {
            return Ok(());
        }
        self.buf.truncate(self.pos);
        self.pos = 0;
        output.hand_off(&mut self.buf).map_err(StreamError::Write)
    }
}
const BATCH: usize = 4096;

#[derive(Clone, Copy, Default)]
struct Rec {
    start: usize,
    end: usize,
    cr: bool,
    /// The value's range within the line buffer (field or whole line, prefix excluded).
    v_start: usize,
    v_end: usize,
    /// The nonce field's range, when there is one.
    n_start: usize,
    n_end: usize,
}

struct Batch {
    recs: Vec<Rec>,
    ids: Vec<u64>,
    nonces: Vec<u64>,
    blocks: Vec<Block>,
    errors: Vec<Option<InputError>>,
    codec_errors: Vec<Option<InputError>>,
    first_line: u64,
    /// Lines in the batch (`recs` holds them, except where `run` parses as it splits).
    lines: usize,
    /// The bad lines `parse_lines` found (their index in the batch, and what is wrong).
    bad: Vec<(usize, InputError)>,
}

/// Runs a stream from `input` to `output`. Bad lines stop the run with
/// [`StreamError::Line`] after the output of the lines before them has been written and
/// flushed, or, with `keep_going`, go to `on_error` and become empty output lines.
pub fn run(
    codec: &Codec,
    opts: &Options,
    mut input: crate::streams::Source<'_>,
    output: &mut dyn Handoff,
    on_error: &mut dyn FnMut(&LineError),
) -> Result<Summary, StreamError> {
    if opts.csv && opts.field.is_some() {
        return super::csv::run(codec, opts, input.as_read(), output, on_error);
    }
    // A byte order mark before the first line (a list saved by a Windows editor, a
    // spreadsheet's CSV) is no part of an id or of the header's first field: skipped
    // where the output line is the id alone, and written first where lines pass through
    // (a header, the fields around the id), so that the output starts with it too.
    let mut mark_passes = opts.header || opts.field.is_some();
    let mut blocks = crate::streams::LineBlocks::new(input).skipping_bom(!mark_passes);
    let mut out = Out::new();
    let mut batch = Batch {
        recs: Vec::with_capacity(BATCH),
        ids: Vec::with_capacity(BATCH),
        nonces: Vec::with_capacity(BATCH),
        blocks: Vec::with_capacity(BATCH),
        errors: Vec::with_capacity(BATCH),
        codec_errors: Vec::with_capacity(BATCH),
        first_line: 1,
        lines: 0,
        bad: Vec::new(),
    };
    // Whole lines (the common use: decimal ids to encode, encoded ids to decode): each
    // is parsed as it is found, into `ids` or `blocks` (and `bad`), with no record of
    // where the line was (its output line is the id alone, and its error needs only its
    // number).
    let parse_inline = whole_lines(codec, opts);
    let mut summary = Summary::default();
    let mut header = opts.header;
    loop {
        let buf = match blocks.next_block() {
            Ok(Some(b)) => b,
            Ok(None) => break,
            Err(crate::streams::BlockError::Read(e)) => return Err(StreamError::Read(e)),
            Err(crate::streams::BlockError::TooLong(cap)) => {
                // The lines before it are answered first, as for any bad line.
                out.flush_to(output)?;
                output.flush().map_err(StreamError::Write)?;
                return Err(StreamError::TooLong(crate::streams::LineTooLong {
                    line: summary.lines + 1,
                    cap,
                }));
            }
        };
        let mut pos = 0;
        if std::mem::take(&mut mark_passes) && buf.starts_with(crate::streams::BOM) {
            out.put(crate::streams::BOM);
            pos = crate::streams::BOM.len();
        }
        // (An input of the mark alone has no line.)
        let unterminated = (buf.len() > pos && buf[buf.len() - 1] != b'\n').then_some(buf.len());
        let mut ends = crate::streams::newlines(buf).chain(unterminated);
        loop {
            if parse_inline && !header {
                // Whole lines, in a loop of their own until the batch is full (or the
                // block's lines run out).
                if !parse_lines(codec, opts, buf, &mut pos, &mut ends, &mut batch) {
                    break;
                }
            } else {
                let Some(end) = ends.next() else { break };
                if std::mem::take(&mut header) {
                    // The header line, as it was.
                    out.put(&buf[pos..end]);
                    out.push(b'\n');
                    summary.lines += 1;
                    batch.first_line += 1;
                    pos = end + 1;
                    continue;
                }
                let (line_end, cr) = if end > pos && buf[end - 1] == b'\r' {
                    (end - 1, true)
                } else {
                    (end, false)
                };
                batch.recs.push(Rec {
                    start: pos,
                    end: line_end,
                    cr,
                    ..Rec::default()
                });
                batch.lines += 1;
                pos = end + 1;
            }
            if batch.lines == BATCH {
                process(
                    codec,
                    opts,
                    buf,
                    &mut batch,
                    &mut out,
                    output,
                    on_error,
                    &mut summary,
                )?;
            }
        }
        if batch.lines > 0 {
            process(
                codec,
                opts,
                buf,
                &mut batch,
                &mut out,
                output,
                on_error,
                &mut summary,
            )?;
        }
        if out.len() >= OUT_CHUNK {
            out.flush_to(output)?;
        }
    }
    out.flush_to(output)?;
    output.flush().map_err(StreamError::Write)?;
    Ok(summary)
}

/// True when each line is one id as a whole (no `--field`, and not the `ID NONCE` lines
/// of a stored-nonce encode): the lines [`parse_lines`] takes.
fn whole_lines(codec: &Codec, opts: &Options) -> bool {
    let stored = codec.spec().form == Form::StoredNonce;
    opts.field.is_none() && !(opts.op == Op::Encode && stored && !opts.random_nonce)
}

/// Parses whole lines of `buf`, from `*pos` to each end `ends` yields: decimal ids into
/// the batch's `ids` (to encode), encoded ids into its `blocks` (to decode or re-encode),
/// a bad line's error into `bad` with a dummy in its slot, until the batch is full (true)
/// or the ends run out (false). `*pos` is left after the last line taken.
#[inline(never)]
fn parse_lines(
    codec: &Codec,
    opts: &Options,
    buf: &[u8],
    pos: &mut usize,
    ends: &mut impl Iterator<Item = usize>,
    batch: &mut Batch,
) -> bool {
    if opts.op == Op::Encode {
        return take_lines(buf, pos, ends, batch, |batch, line, i| {
            match codec.parse_id_in(buf, line.start, line.end) {
                Ok(id) => batch.ids.push(id),
                Err(e) => {
                    batch.ids.push(0);
                    batch.bad.push((i, e));
                }
            }
        });
    }
    let (format, prefix) = (opts.format, &opts.prefix[..]);
    take_lines(buf, pos, ends, batch, |batch, line, i| {
        let line = &buf[line];
        // (Without a prefix, no call to compare none.)
        let text = if prefix.is_empty() {
            Some(line)
        } else {
            line.strip_prefix(prefix)
        };
        let parsed = match text {
            Some(text) => format.parse(text).map_err(InputError::from),
            None => Err(InputError::Prefix(
                String::from_utf8_lossy(prefix).into_owned(),
            )),
        };
        match parsed {
            Ok(block) => batch.blocks.push(block),
            Err(e) => {
                batch.blocks.push([0; 16]);
                batch.bad.push((i, e));
            }
        }
    })
}

/// The loop of [`parse_lines`]: `each` gets each line's range (without its `\r\n` or
/// `\n`) and its index in the batch.
#[inline(always)]
fn take_lines(
    buf: &[u8],
    pos: &mut usize,
    ends: &mut impl Iterator<Item = usize>,
    batch: &mut Batch,
    mut each: impl FnMut(&mut Batch, std::ops::Range<usize>, usize),
) -> bool {
    let mut p = *pos;
    let mut lines = batch.lines;
    while lines < BATCH {
        let Some(end) = ends.next() else { break };
        let line_end = if end > p && buf[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        each(batch, p..line_end, lines);
        lines += 1;
        p = end + 1;
    }
    *pos = p;
    batch.lines = lines;
    lines == BATCH
}

/// Finds field `n` (counted from 1) of `line`, as a range relative to the line.
fn field_range(line: &[u8], delimiter: u8, n: usize) -> Option<(usize, usize)> {
    let mut start = 0;
    for _ in 1..n {
        start += memchr::memchr(delimiter, &line[start..])? + 1;
    }
    let end = memchr::memchr(delimiter, &line[start..]).map_or(line.len(), |i| start + i);
    Some((start, end))
}

fn split_two(line: &[u8]) -> (&[u8], Option<&[u8]>, bool) {
    let is_space = |c: &u8| *c == b' ' || *c == b'\t';
    let mut parts = line.split(is_space).filter(|p| !p.is_empty());
    let a = parts.next().unwrap_or(&[]);
    let b = parts.next();
    let extra = parts.next().is_some();
    (a, b, extra)
}

#[allow(clippy::too_many_arguments)]
fn process(
    codec: &Codec,
    opts: &Options,
    buf: &[u8],
    batch: &mut Batch,
    out: &mut Out,
    output: &mut dyn Handoff,
    on_error: &mut dyn FnMut(&LineError),
    summary: &mut Summary,
) -> Result<(), StreamError> {
    let n = batch.lines;
    let stored = codec.spec().form == Form::StoredNonce;
    let encoding = opts.op == Op::Encode;
    // The slots are empty at the start of a batch (or `ids` or `blocks` holds what `run`
    // parsed, one per line, and `bad` the errors); every one added here is written
    // below.
    batch.ids.resize(n, 0);
    batch.nonces.resize(n, 0);
    batch.blocks.resize(n, [0; 16]);
    // Where `run` parsed the ids, `errors` holds no error at the start of a batch (the
    // last batch's were taken as its lines were written) and gets those of `bad`.
    batch.errors.resize(n, None);
    batch.codec_errors.resize(n, None);
    for (i, e) in batch.bad.drain(..) {
        batch.errors[i] = Some(e);
    }

    if encoding && stored && opts.random_nonce {
        let mut bytes = vec![0u8; n * 8];
        getrandom::fill(&mut bytes).map_err(|e| StreamError::Random(e.to_string()))?;
        let mask = codec.nonce_mask();
        for (nonce, b) in batch.nonces.iter_mut().zip(bytes.chunks_exact(8)) {
            *nonce = u64::from_le_bytes(b.try_into().expect("8 bytes")) & mask;
        }
    }

    // Parse every line not parsed yet (`run` parsed whole lines, into `ids` or `blocks`).
    let whole_line = whole_lines(codec, opts);
    for i in (0..n).filter(|_| !whole_line) {
        let rec = &mut batch.recs[i];
        let line = &buf[rec.start..rec.end];
        let parsed: Result<(), InputError> = (|| {
            let (value, nonce_text): (&[u8], Option<&[u8]>) = match opts.field {
                Some(f) => {
                    let (s, e) =
                        field_range(line, opts.delimiter, f).ok_or(InputError::MissingField(f))?;
                    rec.v_start = rec.start + s;
                    rec.v_end = rec.start + e;
                    let nt = match opts.nonce_field {
                        Some(nf) => {
                            let (s, e) = field_range(line, opts.delimiter, nf)
                                .ok_or(InputError::MissingField(nf))?;
                            rec.n_start = rec.start + s;
                            rec.n_end = rec.start + e;
                            Some(&line[s..e])
                        }
                        None => None,
                    };
                    (&line[s..e], nt)
                }
                None if encoding && stored && !opts.random_nonce => {
                    let (a, b, extra) = split_two(line);
                    if extra {
                        return Err(InputError::Extra("`ID NONCE`"));
                    }
                    (a, Some(b.ok_or(InputError::MissingNonce)?))
                }
                None => {
                    rec.v_start = rec.start;
                    rec.v_end = rec.end;
                    (line, None)
                }
            };
            if encoding {
                let id = codec.parse_id(value)?;
                batch.ids[i] = id;
                if stored && !opts.random_nonce {
                    let nt = nonce_text.ok_or(InputError::MissingNonce)?;
                    let nonce = codec.parse_nonce(nt)?;
                    batch.nonces[i] = nonce;
                }
            } else {
                let text = value.strip_prefix(&opts.prefix[..]).ok_or_else(|| {
                    InputError::Prefix(String::from_utf8_lossy(&opts.prefix).into_owned())
                })?;
                batch.blocks[i] = opts.format.parse(text)?;
            }
            Ok(())
        })();
        batch.errors[i] = match parsed {
            Ok(()) => None,
            Err(e) => {
                // Keep the slots valid for the batch: a dummy that every codec accepts.
                batch.ids[i] = 0;
                batch.nonces[i] = 0;
                Some(e)
            }
        };
    }

    // The AES work, for the whole batch at once.
    match opts.op {
        Op::Encode => {
            let (ids, nonces) = (&batch.ids, &batch.nonces);
            codec.encode_many(ids, if stored { nonces } else { &[] }, &mut batch.blocks);
        }
        Op::Decode | Op::Reencode => {
            codec.decode_many(
                &batch.blocks,
                opts.key_id,
                &mut batch.ids,
                &mut batch.nonces,
                &mut batch.codec_errors,
            );
            // (Read first: most lines have neither, and a write of every slot costs.)
            for (e, d) in batch.errors.iter_mut().zip(batch.codec_errors.iter_mut()) {
                if d.is_some() && e.is_none() {
                    *e = d.take();
                }
            }
            if opts.op == Op::Reencode {
                // Valid ids of the old key are valid ids now; errored lines keep dummies.
                for i in 0..n {
                    if batch.errors[i].is_some() {
                        batch.ids[i] = 0;
                        batch.nonces[i] = 0;
                    }
                }
                let (ids, nonces) = (&batch.ids, &batch.nonces);
                codec.encode_many(ids, if stored { nonces } else { &[] }, &mut batch.blocks);
            }
        }
    }

    // Write the lines in order. The choices that do not change within a run are made
    // here, once per batch, so the per-line closures are small and inlined.
    let prefix = &opts.prefix[..];
    let format = opts.format;
    match (opts.field, opts.op, stored) {
        (None, Op::Decode, false) if batch.errors.iter().all(Option::is_none) => {
            // The common case, every line good: the batch's lines in one pass.
            let room = out.room(n * 21);
            let mut at = 0;
            for &id in &batch.ids[..n] {
                at += super::decimal::write_decimal(id, &mut room[at..]);
                room[at] = b'\n';
                at += 1;
            }
            out.pos += at;
        }
        (None, Op::Decode, false) => {
            emit(batch, out, output, opts, on_error, summary, |out, b, i| {
                out.put_u64(b.ids[i])
            })?
        }
        (None, Op::Decode, true) => {
            emit(batch, out, output, opts, on_error, summary, |out, b, i| {
                out.put_u64(b.ids[i]);
                out.push(b' ');
                out.put_u64(b.nonces[i]);
            })?
        }
        (None, Op::Encode, true) if opts.random_nonce => {
            // Random nonces: `ID NONCE OPAQUE`.
            emit(batch, out, output, opts, on_error, summary, |out, b, i| {
                out.put_u64(b.ids[i]);
                out.push(b' ');
                out.put_u64(b.nonces[i]);
                out.push(b' ');
                out.put(prefix);
                out.put_id(format, &b.blocks[i]);
            })?
        }
        (None, _, _) if batch.errors.iter().all(Option::is_none) => {
            // The common case, every line good: the batch's lines in one pass.
            let room = out.room(n * (prefix.len() + format.width() + 1));
            let written = format.write_lines(&batch.blocks[..n], prefix, room);
            out.pos += written;
        }
        (None, _, _) => emit(batch, out, output, opts, on_error, summary, |out, b, i| {
            out.put(prefix);
            out.put_id(format, &b.blocks[i]);
        })?,
        (Some(_), op, _) => {
            // Replace the value field (and the nonce field, where we write one).
            let write_nonce = opts.nonce_field.is_some()
                && stored
                && ((op == Op::Encode && opts.random_nonce) || op == Op::Decode);
            emit_fields(
                batch,
                buf,
                out,
                output,
                opts,
                on_error,
                summary,
                write_nonce,
            )?
        }
    }
    summary.lines += n as u64;
    batch.first_line += n as u64;
    batch.recs.clear();
    batch.ids.clear();
    if whole_line && !encoding {
        // (Elsewhere they are overwritten, by the encoding, in place.)
        batch.blocks.clear();
    }
    batch.lines = 0;
    if out.len() >= OUT_CHUNK {
        out.flush_to(output)?;
    }
    Ok(())
}

/// Reports line `i`'s error: with `keep_going` through `on_error` (and an empty output
/// line follows); otherwise the output so far is written and the error returned.
fn line_failed(
    batch: &mut Batch,
    i: usize,
    out: &mut Out,
    output: &mut dyn Handoff,
    opts: &Options,
    on_error: &mut dyn FnMut(&LineError),
    summary: &mut Summary,
) -> Result<(), StreamError> {
    let error = batch.errors[i]
        .take()
        .expect("called for lines with errors");
    let err = LineError {
        line: batch.first_line + i as u64,
        error,
    };
    summary.errors += 1;
    if !opts.keep_going {
        summary.lines += i as u64;
        out.flush_to(output)?;
        output.flush().map_err(StreamError::Write)?;
        return Err(StreamError::Line(err));
    }
    on_error(&err);
    Ok(())
}

/// Writes one output line per input line with `value`, or an empty line for a bad one.
#[inline]
fn emit(
    batch: &mut Batch,
    out: &mut Out,
    output: &mut dyn Handoff,
    opts: &Options,
    on_error: &mut dyn FnMut(&LineError),
    summary: &mut Summary,
    value: impl Fn(&mut Out, &Batch, usize),
) -> Result<(), StreamError> {
    for i in 0..batch.lines {
        if batch.errors[i].is_some() {
            line_failed(batch, i, out, output, opts, on_error, summary)?;
        } else {
            value(out, batch, i);
        }
        out.push(b'\n');
    }
    Ok(())
}

/// The `--field` form: each line as it was, with the value field (and the nonce field,
/// when `write_nonce`) replaced.
#[allow(clippy::too_many_arguments)]
fn emit_fields(
    batch: &mut Batch,
    buf: &[u8],
    out: &mut Out,
    output: &mut dyn Handoff,
    opts: &Options,
    on_error: &mut dyn FnMut(&LineError),
    summary: &mut Summary,
    write_nonce: bool,
) -> Result<(), StreamError> {
    for i in 0..batch.recs.len() {
        if batch.errors[i].is_some() {
            line_failed(batch, i, out, output, opts, on_error, summary)?;
            out.push(b'\n');
            continue;
        }
        let rec = batch.recs[i];
        let mut pieces: [(usize, usize, bool); 2] = [(rec.v_start, rec.v_end, false), (0, 0, true)];
        let count = if write_nonce {
            pieces[1] = (rec.n_start, rec.n_end, true);
            if pieces[1].0 < pieces[0].0 {
                pieces.swap(0, 1);
            }
            2
        } else {
            1
        };
        let mut at = rec.start;
        for &(s, e, is_nonce) in &pieces[..count] {
            out.put(&buf[at..s]);
            if is_nonce {
                out.put_u64(batch.nonces[i]);
            } else if opts.op == Op::Decode {
                out.put_u64(batch.ids[i]);
            } else {
                out.put(&opts.prefix);
                out.put_id(opts.format, &batch.blocks[i]);
            }
            at = e;
        }
        out.put(&buf[at..rec.end]);
        if rec.cr {
            out.push(b'\r');
        }
        out.push(b'\n');
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found() {
        assert_eq!(field_range(b"a\tbb\tc", b'\t', 1), Some((0, 1)));
        assert_eq!(field_range(b"a\tbb\tc", b'\t', 2), Some((2, 4)));
        assert_eq!(field_range(b"a\tbb\tc", b'\t', 3), Some((5, 6)));
        assert_eq!(field_range(b"a\tbb\tc", b'\t', 4), None);
        assert_eq!(field_range(b"", b',', 1), Some((0, 0)));
    }

    #[test]
    fn long_decimals_are_written_whole() {
        let mut out = Out::new();
        for v in [0, 7, 99_999_999, 100_000_000, 123_456_789_012, u64::MAX] {
            out.put_u64(v);
            out.push(b' ');
        }
        let text = String::from_utf8(out.buf[..out.pos].to_vec()).unwrap();
        assert_eq!(
            text,
            "0 7 99999999 100000000 123456789012 18446744073709551615 "
        );
    }
}
