//! Streams of hashes or passwords answered from an index or the embedded list, one
//! answer per input line, in order.

use super::error::IndexError;
use super::format::Wide;
use super::tier::AnyIndex;
use super::{HashKind, common};
use std::io::{self, Read, Write};

/// What a line is checked against.
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// A breach index of any tier: answers are counts (on a filter, 1 for "probably
    /// present" and 0 for "absent").
    Index(&'a AnyIndex),
    /// The embedded list of common passwords: answers are ranks (passwords only).
    Common,
}

/// What is wrong with one input line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineProblem {
    /// A hash of the wrong length.
    #[error("hash is {found} characters, expected {expected} hex digits ({kind})")]
    HashLength {
        /// Found.
        found: usize,
        /// Expected.
        expected: usize,
        /// The index's kind.
        kind: &'static str,
    },
    /// A non-hex character.
    #[error("hash has a character that is not a hex digit")]
    NotHex,
    /// A password NTLM cannot hash.
    #[error("password is not valid UTF-8 (NTLM hashes text as UTF-16)")]
    NotUtf8,
}

/// Why a query stopped.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// A bad line (the output of earlier lines has been written).
    #[error("line {line}: {problem}")]
    Line {
        /// Its number, from 1.
        line: u64,
        /// What is wrong.
        problem: LineProblem,
    },
    /// Reading failed.
    #[error("cannot read input")]
    Read(#[source] io::Error),
    /// Writing failed.
    #[error("cannot write output")]
    Write(#[source] io::Error),
    /// The index is damaged.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A line longer than the cap.
    #[error(transparent)]
    TooLong(crate::streams::LineTooLong),
}

/// What a query did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Lines answered.
    pub lines: u64,
    /// Lines found (count or rank above 0).
    pub found: u64,
    /// Bad lines answered `?` ([`run_keep_going`]).
    pub bad: u64,
}

/// The input kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// Hex hashes; answers are `HASH:COUNT` in upper case.
    Hashes,
    /// Passwords (the bytes of each line, nothing trimmed); answers are one number per
    /// line.
    Passwords,
}

const CHUNK: usize = 1 << 20;
const BATCH: usize = 1024;

/// Answers every line of `input`, in order. Stops at the first bad line after writing
/// and flushing the answers before it. Lines end with `end`: `\n` (a `\r` before it is
/// no part of the line, and a byte order mark before the first line is skipped) or
/// [`crate::streams::NUL`] (`-0`: everything else is part of the line).
pub fn run(
    source: Source<'_>,
    input: Input,
    end: u8,
    reader: &mut dyn Read,
    output: &mut dyn Write,
) -> Result<Summary, QueryError> {
    run_inner(source, input, end, reader, output, None)
}

/// What [`run_keep_going`] calls with each bad line's number and problem.
pub type OnBad<'a> = &'a mut dyn FnMut(u64, &LineProblem);

/// Answers every line of `input`, in order, going on past bad lines: each is answered
/// `?` (so that output lines stay aligned with input lines) and handed to `on_bad` with
/// its number. Errors of reading, writing and the index still stop it.
pub fn run_keep_going(
    source: Source<'_>,
    input: Input,
    end: u8,
    reader: &mut dyn Read,
    output: &mut dyn Write,
    on_bad: OnBad<'_>,
) -> Result<Summary, QueryError> {
    run_inner(source, input, end, reader, output, Some(on_bad))
}

fn run_inner(
    source: Source<'_>,
    input: Input,
    end: u8,
    reader: &mut dyn Read,
    output: &mut dyn Write,
    mut on_bad: Option<OnBad<'_>>,
) -> Result<Summary, QueryError> {
    // Positions in the batch of lines answered `?`.
    let mut bad: Vec<usize> = Vec::new();
    // A byte order mark before the first line (a list saved by a Windows editor) is no
    // part of a hash or a password: skipped, as `build` does. NUL-ended input is taken
    // byte for byte.
    let by_line = end == b'\n';
    let mut blocks = crate::streams::LineBlocks::new(reader)
        .skipping_bom(by_line)
        .ending_with(end);
    let mut out: Vec<u8> = Vec::with_capacity(CHUNK + 4096);
    let mut summary = Summary::default();
    let mut hashes: Vec<Wide> = Vec::with_capacity(BATCH);
    let mut counts: Vec<u64> = vec![0; BATCH];
    let mut lines: Vec<(usize, usize)> = Vec::with_capacity(BATCH);
    let mut pending: Option<QueryError> = None;
    while pending.is_none() {
        let buf = match blocks.next_block() {
            Ok(Some(b)) => b,
            Ok(None) => break,
            Err(crate::streams::BlockError::Read(e)) => return Err(QueryError::Read(e)),
            Err(crate::streams::BlockError::TooLong(cap)) => {
                pending = Some(QueryError::TooLong(crate::streams::LineTooLong {
                    line: summary.lines + 1,
                    cap,
                }));
                break;
            }
        };
        let tail = (buf.last() != Some(&end)).then_some(buf.len());
        let mut pos = 0;
        let mut ends = crate::streams::ends(buf, end).chain(tail).peekable();
        while ends.peek().is_some() && pending.is_none() {
            lines.clear();
            hashes.clear();
            bad.clear();
            for at in ends.by_ref().take(BATCH) {
                let mut line = &buf[pos..at];
                if let [rest @ .., b'\r'] = line
                    && by_line
                {
                    line = rest;
                }
                lines.push((pos, pos + line.len()));
                pos = at + 1;
                let parsed = parse_line(source, input, line);
                match parsed {
                    Ok(h) => hashes.push(h),
                    Err(problem) if on_bad.is_some() => {
                        let number = summary.lines + lines.len() as u64;
                        if let Some(f) = on_bad.as_mut() {
                            f(number, &problem);
                        }
                        // A placeholder looked up with the rest; its answer is `?`.
                        bad.push(hashes.len());
                        hashes.push(Wide::default());
                    }
                    Err(problem) => {
                        pending = Some(QueryError::Line {
                            line: summary.lines + lines.len() as u64,
                            problem,
                        });
                        lines.pop();
                        break;
                    }
                }
            }
            let counts = &mut counts[..hashes.len()];
            match source {
                Source::Index(index) => index.lookup_many(&hashes, counts)?,
                Source::Common => {
                    for ((c, _), &(s, e)) in counts.iter_mut().zip(&hashes).zip(&lines) {
                        *c = u64::from(common::rank(&buf[s..e]).unwrap_or(0));
                    }
                }
            }
            let kind = match source {
                Source::Index(index) => index.kind(),
                Source::Common => HashKind::Sha1,
            };
            let mut num = itoa::Buffer::new();
            let mut next_bad = bad.iter().copied().peekable();
            for (i, (h, &c)) in hashes.iter().zip(counts.iter()).enumerate() {
                if next_bad.peek() == Some(&i) {
                    next_bad.next();
                    out.extend_from_slice(b"?\n");
                    summary.bad += 1;
                    continue;
                }
                if input == Input::Hashes {
                    let mut hex = [0u8; 40];
                    kind.write_hex(h, &mut hex);
                    out.extend_from_slice(&hex[..kind.hex_len()]);
                    out.push(b':');
                }
                out.extend_from_slice(num.format(c).as_bytes());
                out.push(b'\n');
                summary.found += u64::from(c > 0);
            }
            summary.lines += hashes.len() as u64;
            if out.len() >= CHUNK {
                output.write_all(&out).map_err(QueryError::Write)?;
                out.clear();
            }
        }
    }
    output.write_all(&out).map_err(QueryError::Write)?;
    output.flush().map_err(QueryError::Write)?;
    match pending {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// The hash a line stands for (for the embedded list, any value: it looks passwords up
/// by their bytes).
#[inline]
fn parse_line(source: Source<'_>, input: Input, line: &[u8]) -> Result<Wide, LineProblem> {
    match (source, input) {
        (Source::Common, _) => Ok(Wide::default()),
        (Source::Index(index), Input::Passwords) => index
            .kind()
            .hash_password(line)
            .map_err(|_| LineProblem::NotUtf8),
        (Source::Index(index), Input::Hashes) => {
            let kind = index.kind();
            if line.len() != kind.hex_len() {
                return Err(LineProblem::HashLength {
                    found: line.len(),
                    expected: kind.hex_len(),
                    kind: kind.name(),
                });
            }
            kind.parse_hex(line).ok_or(LineProblem::NotHex)
        }
    }
}
