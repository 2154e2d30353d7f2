//! Parsing the text of a dump, line by line, into the writer.

use super::writer::Writer;
use super::{BuildError, LineProblem};
use crate::breach::HashKind;

/// Parses lines of one stream (a single file, or one range file with its prefix),
/// chunk by chunk.
pub(super) struct Parser {
    name: String,
    /// The range file's prefix as 5 upper-case hex digits.
    prefix: Option<[u8; 5]>,
    line: u64,
    /// The start of a line that continues in the next chunk.
    carry: Vec<u8>,
}

impl Parser {
    pub(super) fn new(name: String, prefix: Option<u32>) -> Parser {
        let prefix = prefix.map(|p| {
            let mut t = [0u8; 5];
            t.copy_from_slice(format!("{p:05X}").as_bytes());
            t
        });
        Parser {
            name,
            prefix,
            line: 0,
            carry: Vec::new(),
        }
    }

    fn fail(&self, problem: LineProblem) -> BuildError {
        BuildError::Line {
            source_name: self.name.clone(),
            line: self.line,
            problem,
        }
    }

    #[inline]
    fn one(&mut self, mut line: &[u8], w: &mut Writer, lines: &mut u64) -> Result<(), BuildError> {
        self.line += 1;
        *lines += 1;
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        self.line_of(line, w)
    }

    /// Parses the lines of `data`; `last` when it ends the input.
    pub(super) fn feed(
        &mut self,
        data: &[u8],
        last: bool,
        w: &mut Writer,
        lines: &mut u64,
    ) -> Result<(), BuildError> {
        let mut data = data;
        if !self.carry.is_empty() {
            match memchr::memchr(b'\n', data) {
                Some(nl) => {
                    let mut line = std::mem::take(&mut self.carry);
                    line.extend_from_slice(&data[..nl]);
                    self.one(&line, w, lines)?;
                    data = &data[nl + 1..];
                }
                None => {
                    self.carry_more(data)?;
                    if last {
                        let line = std::mem::take(&mut self.carry);
                        self.one(&line, w, lines)?;
                    }
                    return Ok(());
                }
            }
        }
        let complete = if last {
            data.len()
        } else {
            memchr::memrchr(b'\n', data).map_or(0, |p| p + 1)
        };
        let mut pos = 0;
        let tail = (last && complete > 0 && data[complete - 1] != b'\n').then_some(complete);
        for end in crate::streams::newlines(&data[..complete]).chain(tail) {
            self.one(&data[pos..end], w, lines)?;
            pos = end + 1;
        }
        if !last {
            self.carry_more(&data[complete..])?;
        }
        Ok(())
    }

    /// Keeps the start of a line that goes on in the next chunk, within the line cap.
    fn carry_more(&mut self, part: &[u8]) -> Result<(), BuildError> {
        if self.carry.len() + part.len() > crate::streams::LINE_CAP {
            self.carry = Vec::new();
            self.line += 1;
            return Err(self.fail(LineProblem::TooLong));
        }
        self.carry.extend_from_slice(part);
        Ok(())
    }

    #[inline]
    fn line_of(&self, mut line: &[u8], w: &mut Writer) -> Result<(), BuildError> {
        if let Some(rest) = line.strip_prefix(crate::streams::BOM) {
            line = rest;
        }
        // The prefix of a range file supplies the first 5 digits.
        let skip = if self.prefix.is_some() { 5 } else { 0 };
        let kind = match w.kind {
            Some(k) => k,
            None => {
                let colon = memchr::memchr(b':', line);
                let Some(colon) = colon else {
                    return Err(self.fail(if line.is_empty() {
                        LineProblem::Empty
                    } else {
                        LineProblem::NoColon
                    }));
                };
                let kind = HashKind::from_hex_len(colon + skip).ok_or_else(|| {
                    self.fail(LineProblem::HashLength {
                        found: colon,
                        expected: 40 - skip,
                        kind: "SHA-1",
                    })
                })?;
                w.set_kind(kind);
                kind
            }
        };
        let hex_len = kind.hex_len() - skip;
        if line.len() <= hex_len || line[hex_len] != b':' {
            return Err(self.fail(self.diagnose(line, kind, skip)));
        }
        let mut text = [0u8; 40];
        let digits = if let Some(prefix) = self.prefix {
            text[..5].copy_from_slice(&prefix);
            text[5..5 + hex_len].copy_from_slice(&line[..hex_len]);
            &text[..kind.hex_len()]
        } else {
            &line[..hex_len]
        };
        let hash = kind
            .parse_hex(digits)
            .ok_or_else(|| self.fail(LineProblem::NotHex))?;
        let count = parse_count(&line[hex_len + 1..]).map_err(|p| self.fail(p))?;
        if count == 0 {
            w.padding += 1;
            return Ok(());
        }
        if let Some((prev, prev_line)) = w.last
            && hash <= prev
        {
            return Err(self.fail(if hash == prev {
                LineProblem::Duplicate {
                    previous: prev_line,
                }
            } else {
                LineProblem::Unsorted {
                    previous: prev_line,
                }
            }));
        }
        w.last = Some((hash, self.line));
        w.push(hash, count)
    }

    fn diagnose(&self, line: &[u8], kind: HashKind, skip: usize) -> LineProblem {
        if line.is_empty() {
            return LineProblem::Empty;
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            return LineProblem::NoColon;
        };
        match HashKind::from_hex_len(colon + skip) {
            Some(other) if other != kind => LineProblem::MixedKinds {
                found: other.name(),
                kind: kind.name(),
            },
            _ => LineProblem::HashLength {
                found: colon,
                expected: kind.hex_len() - skip,
                kind: kind.name(),
            },
        }
    }
}

fn parse_count(text: &[u8]) -> Result<u64, LineProblem> {
    if text.is_empty() {
        return Err(LineProblem::CountNotNumber);
    }
    let mut v: u64 = 0;
    for &c in text {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return Err(LineProblem::CountNotNumber);
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or(LineProblem::CountOverflow)?;
    }
    Ok(v)
}
