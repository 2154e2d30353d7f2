//! Range files: the public HIBP range API's layout (`XXXXX.txt` per 5-hex-digit prefix,
//! a body of `SUFFIX:COUNT` lines joined by CRLF, upper case, no final line end), written
//! from an index for static hosting, and the difference between two indexes.

use super::HashKind;
use super::format::Wide;
use super::index::{Index, IndexError};
use crate::progress::Progress;
use std::io::Write;
use std::path::{Path, PathBuf};

pub use super::format::{PREFIXES, prefix_of};

/// Errors of exporting or comparing.
#[derive(Debug, thiserror::Error)]
pub enum RangesError {
    /// The index is damaged.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A range file could not be written.
    #[error("{0}")]
    Write(PathBuf, #[source] std::io::Error),
    /// The two indexes hold different kinds of hash.
    #[error("the indexes hold different hash kinds ({0} and {1})")]
    Kinds(&'static str, &'static str),
    /// Output failed.
    #[error("output")]
    Output(#[source] std::io::Error),
}

/// What an export wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportSummary {
    /// Range files written.
    pub files: u64,
    /// Hashes written.
    pub hashes: u64,
    /// Bytes of range bodies.
    pub bytes: u64,
}

/// Appends one range line, `SUFFIX:COUNT`, to `body` (CRLF before every line but the
/// first).
pub fn push_line(kind: HashKind, hash: &Wide, count: u64, body: &mut Vec<u8>) {
    // Written straight into the body, grown by a fixed 64 bytes (more than a line needs)
    // and cut back to the line's end: stores of fixed sizes and nothing read back (a line
    // made in a buffer and then copied stalled on every copy, the buffer's many small
    // stores not yet written when the copy read them).
    let old = body.len();
    body.resize(old + 64, 0);
    let out = &mut body[old..old + 64];
    // The hex of bytes 2.. of the hash from out[1]: out[1] is the digit before the
    // suffix's first (the prefix's fifth), which the line end then overwrites.
    // Sixteen bytes a vector, made from the hash's words: bytes 2..18, then (SHA-1)
    // 8..24 from out[13], the same digits again up to byte 18 and those of 18..20 after
    // them; digits past the hash's are overwritten by the count or cut off.
    let [w0, w1, w2] = hash.0.map(u128::from);
    let len = kind.len();
    let mut sixteen = |v: u128, at: usize| {
        crate::hex::encode_u128_upper(v, (&mut out[at..at + 32]).try_into().expect("32 bytes"));
    };
    sixteen((w0 << 80) | (w1 << 16) | (w2 >> 48), 1);
    if len > 18 {
        sixteen((w1 << 64) | w2, 13);
    }
    let mut n = 2 * (len - 2) + 1;
    if old == 0 {
        // The first line has no line end before it: the suffix moves to the start.
        out.copy_within(2..n, 0);
        n -= 2;
    } else {
        out[..2].copy_from_slice(b"\r\n");
    }
    out[n] = b':';
    n += 1;
    for &d in itoa::Buffer::new().format(count).as_bytes() {
        out[n] = d;
        n += 1;
    }
    body.truncate(old + n);
}

/// Appends the range body of `prefix` (20 bits), exactly as in its range file; returns
/// the number of hashes.
pub fn range_body(index: &Index, prefix: u32, body: &mut Vec<u8>) -> Result<u64, IndexError> {
    let kind = index.kind();
    let mut n = 0;
    index.for_each_in_prefix(prefix, |h, c| {
        push_line(kind, h, c, body);
        n += 1;
    })?;
    Ok(n)
}

/// Writes the range files of `index` into the existing, empty directory `dir`: every one
/// of the 1,048,576 prefixes, or only those holding hashes with `skip_empty`. Progress
/// counts prefixes.
pub fn export(
    index: &Index,
    dir: &Path,
    skip_empty: bool,
    progress: &dyn Progress,
) -> Result<ExportSummary, RangesError> {
    let kind = index.header().params.kind;
    progress.set_total(u64::from(PREFIXES));
    let mut summary = ExportSummary {
        files: 0,
        hashes: 0,
        bytes: 0,
    };
    let mut body: Vec<u8> = Vec::with_capacity(64 << 10);
    let mut next_prefix = 0u32;
    let mut reported = 0u32;
    let write = |prefix: u32, body: &[u8], summary: &mut ExportSummary| {
        let path = dir.join(format!("{prefix:05X}.txt"));
        std::fs::write(&path, body).map_err(|e| RangesError::Write(path, e))?;
        summary.files += 1;
        summary.bytes += body.len() as u64;
        Ok::<_, RangesError>(())
    };
    let mut current: Option<u32> = None;
    for rec in index.iter() {
        let (hash, count) = rec?;
        let p = prefix_of(&hash);
        if current != Some(p) {
            if let Some(c) = current {
                write(c, &body, &mut summary)?;
                body.clear();
                next_prefix = c + 1;
            }
            if !skip_empty {
                for empty in next_prefix..p {
                    write(empty, b"", &mut summary)?;
                }
            }
            progress.advance(u64::from(p - reported));
            reported = p;
            current = Some(p);
        }
        push_line(kind, &hash, count, &mut body);
        summary.hashes += 1;
    }
    if let Some(c) = current {
        write(c, &body, &mut summary)?;
        next_prefix = c + 1;
    }
    if !skip_empty {
        for empty in next_prefix..PREFIXES {
            write(empty, b"", &mut summary)?;
        }
    }
    progress.advance(u64::from(PREFIXES - reported));
    Ok(summary)
}

/// How two indexes differ.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffSummary {
    /// Hashes only in the new index.
    pub added: u64,
    /// Hashes only in the old index.
    pub removed: u64,
    /// Hashes in both with different counts.
    pub recounted: u64,
    /// Hashes in both with equal counts.
    pub same: u64,
}

/// Writes the differences from `old` to `new` to `out`, in hash order, one per line:
/// `+HASH:COUNT` (added), `-HASH:COUNT` (removed), `~HASH:OLD:NEW` (re-counted).
pub fn diff(
    old: &Index,
    new: &Index,
    out: &mut dyn Write,
    json: bool,
    progress: &dyn Progress,
) -> Result<DiffSummary, RangesError> {
    let kind = old.header().params.kind;
    let new_kind = new.header().params.kind;
    if kind != new_kind {
        return Err(RangesError::Kinds(kind.name(), new_kind.name()));
    }
    progress.set_total(old.header().records + new.header().records);
    let mut s = DiffSummary::default();
    let mut a = old.iter();
    let mut b = new.iter();
    let mut x = a.next().transpose()?;
    let mut y = b.next().transpose()?;
    let mut hex = [0u8; 40];
    let n = kind.hex_len();
    let mut line = |sign: u8, h: &Wide, counts: &[u64], out: &mut dyn Write| {
        kind.write_hex(h, &mut hex);
        let mut l = Vec::with_capacity(96);
        let mut num = itoa::Buffer::new();
        if json {
            // {"type":"added","hash":"…","count":N}, or old_count and new_count.
            let kind_name: &[u8] = match sign {
                b'+' => b"added",
                b'-' => b"removed",
                _ => b"recounted",
            };
            l.extend_from_slice(b"{\"type\":\"");
            l.extend_from_slice(kind_name);
            l.extend_from_slice(b"\",\"hash\":\"");
            l.extend_from_slice(&hex[..n]);
            l.push(b'"');
            let names: &[&[u8]] = if counts.len() == 1 {
                &[b"count"]
            } else {
                &[b"old_count", b"new_count"]
            };
            for (name, c) in names.iter().zip(counts) {
                l.extend_from_slice(b",\"");
                l.extend_from_slice(name);
                l.extend_from_slice(b"\":");
                l.extend_from_slice(num.format(*c).as_bytes());
            }
            l.extend_from_slice(b"}\n");
        } else {
            l.push(sign);
            l.extend_from_slice(&hex[..n]);
            for c in counts {
                l.push(b':');
                l.extend_from_slice(num.format(*c).as_bytes());
            }
            l.push(b'\n');
        }
        out.write_all(&l).map_err(RangesError::Output)
    };
    let mut done = 0u64;
    loop {
        match (x, y) {
            (None, None) => break,
            (Some((h, c)), None) => {
                line(b'-', &h, &[c], out)?;
                s.removed += 1;
                x = a.next().transpose()?;
            }
            (None, Some((h, c))) => {
                line(b'+', &h, &[c], out)?;
                s.added += 1;
                y = b.next().transpose()?;
            }
            (Some((h1, c1)), Some((h2, c2))) => match h1.0.cmp(&h2.0) {
                std::cmp::Ordering::Less => {
                    line(b'-', &h1, &[c1], out)?;
                    s.removed += 1;
                    x = a.next().transpose()?;
                }
                std::cmp::Ordering::Greater => {
                    line(b'+', &h2, &[c2], out)?;
                    s.added += 1;
                    y = b.next().transpose()?;
                }
                std::cmp::Ordering::Equal => {
                    if c1 == c2 {
                        s.same += 1;
                    } else {
                        line(b'~', &h1, &[c1, c2], out)?;
                        s.recounted += 1;
                    }
                    x = a.next().transpose()?;
                    y = b.next().transpose()?;
                    done += 1;
                }
            },
        }
        done += 1;
        if done.is_multiple_of(1 << 16) {
            progress.advance(1 << 16);
        }
    }
    if json {
        writeln!(
            out,
            "{{\"type\":\"summary\",\"added\":{},\"removed\":{},\"recounted\":{},\"unchanged\":{}}}",
            s.added, s.removed, s.recounted, s.same
        )
        .map_err(RangesError::Output)?;
    }
    out.flush().map_err(RangesError::Output)?;
    Ok(s)
}

/// The merged dump of an index and a directory of range files, as `HASH:COUNT` lines in
/// hash order: each prefix with a range file takes that file's lines; every other prefix
/// keeps the index's hashes. Range files are checked line by line; a bad one is a read
/// error naming the file and line.
struct MergeReader<'a, I: Iterator<Item = Result<(Wide, u64), IndexError>>> {
    kind: HashKind,
    records: std::iter::Peekable<I>,
    files: std::vec::IntoIter<(u32, PathBuf, u64)>,
    next_file: Option<(u32, PathBuf, u64)>,
    out: Vec<u8>,
    at: usize,
    /// Range files applied so far (read by the progress adapter on another thread).
    done: &'a std::sync::atomic::AtomicU64,
    replaced: u64,
}

/// The most bytes of one range file (bodies are tens of kilobytes).
const RANGE_CAP: usize = 16 << 20;

fn bad(path: &Path, line: usize, what: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("{}: line {line}: {what}", path.display()),
    )
}

impl<I: Iterator<Item = Result<(Wide, u64), IndexError>>> MergeReader<'_, I> {
    /// Refills `out` with the next prefix's lines (or the next index hashes); false at
    /// the end.
    fn refill(&mut self) -> std::io::Result<bool> {
        self.out.clear();
        self.at = 0;
        let index_prefix = match self.records.peek() {
            Some(Ok((h, _))) => Some(prefix_of(h)),
            Some(Err(_)) => {
                let e = self
                    .records
                    .next()
                    .expect("peeked")
                    .expect_err("peeked an error");
                return Err(std::io::Error::other(e));
            }
            None => None,
        };
        let file_prefix = self.next_file.as_ref().map(|f| f.0);
        match (file_prefix, index_prefix) {
            (None, None) => Ok(false),
            (Some(fp), ip) if ip.is_none_or(|ip| fp <= ip) => {
                let (prefix, path, _) = self.next_file.take().expect("a file");
                self.next_file = self.files.next();
                // The index's hashes of this prefix are replaced.
                while let Some(Ok((h, _))) = self.records.peek() {
                    if prefix_of(h) != prefix {
                        break;
                    }
                    self.records.next();
                    self.replaced += 1;
                }
                self.range_file(prefix, &path)?;
                self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(true)
            }
            _ => {
                // Index hashes up to the next file's prefix, a few thousand at a time.
                let stop = file_prefix.unwrap_or(u32::MAX);
                let mut hex = [0u8; 40];
                let n = self.kind.hex_len();
                for _ in 0..4096 {
                    match self.records.peek() {
                        Some(Ok((h, _))) if prefix_of(h) < stop => {}
                        _ => break,
                    }
                    let (h, c) = self
                        .records
                        .next()
                        .expect("peeked")
                        .map_err(std::io::Error::other)?;
                    self.kind.write_hex(&h, &mut hex);
                    self.out.extend_from_slice(&hex[..n]);
                    self.out.push(b':');
                    self.out
                        .extend_from_slice(itoa::Buffer::new().format(c).as_bytes());
                    self.out.push(b'\n');
                }
                Ok(true)
            }
        }
    }

    /// Appends a range file's lines with their prefix, checked.
    fn range_file(&mut self, prefix: u32, path: &Path) -> std::io::Result<()> {
        // A range body is tens of kilobytes; anything past the cap is not one.
        let body = crate::streams::read_capped(&mut std::fs::File::open(path)?, RANGE_CAP)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&body);
        let want = self.kind.hex_len() - 5;
        let head = format!("{prefix:05X}");
        let mut previous: Option<(Vec<u8>, usize)> = None;
        for (i, line) in body.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                continue;
            }
            let Some(colon) = line.iter().position(|&b| b == b':') else {
                return Err(bad(path, i + 1, "not SUFFIX:COUNT (no ':')"));
            };
            let (suffix, count) = (&line[..colon], &line[colon + 1..]);
            if suffix.len() != want || !suffix.iter().all(u8::is_ascii_hexdigit) {
                return Err(bad(
                    path,
                    i + 1,
                    &format!("the suffix is not {want} hex digits ({})", self.kind.name()),
                ));
            }
            if count.is_empty() || !count.iter().all(u8::is_ascii_digit) {
                return Err(bad(path, i + 1, "the count is not a number"));
            }
            let upper: Vec<u8> = suffix.iter().map(u8::to_ascii_uppercase).collect();
            if let Some((prev, line_no)) = &previous {
                if upper == *prev {
                    return Err(bad(
                        path,
                        i + 1,
                        &format!("duplicate hash: the same suffix is on line {line_no}"),
                    ));
                }
                if upper < *prev {
                    return Err(bad(
                        path,
                        i + 1,
                        &format!(
                            "not in order: it sorts before the suffix on line {line_no} (a range is sorted)"
                        ),
                    ));
                }
            }
            previous = Some((upper, i + 1));
            self.out.extend_from_slice(head.as_bytes());
            self.out.extend(suffix.iter().map(u8::to_ascii_uppercase));
            self.out.push(b':');
            self.out.extend_from_slice(count);
            self.out.push(b'\n');
        }
        Ok(())
    }
}

impl<I: Iterator<Item = Result<(Wide, u64), IndexError>>> std::io::Read for MergeReader<'_, I> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.out.len() {
            if !self.refill()? {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.out.len() - self.at);
        buf[..n].copy_from_slice(&self.out[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// What a merge did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeSummary {
    /// The new index's build.
    pub build: super::build::Summary,
    /// Range files applied.
    pub ranges: u64,
    /// Hashes of the old index that the range files replaced.
    pub replaced: u64,
}

/// Builds into `out` the index of `index` with the content of every prefix that has a
/// range file in `dir` (the downloader's per-prefix layout, possibly partial) replaced
/// by that file's, in one streaming pass. Progress counts range files.
pub fn merge(
    index: &Index,
    dir: &Path,
    out: &mut std::fs::File,
    spool_dir: &Path,
    progress: &dyn Progress,
) -> Result<MergeSummary, super::build::BuildError> {
    let files = super::build::range_files(dir)?;
    let ranges = files.len() as u64;
    progress.set_total(ranges);
    let kind = index.header().params.kind;
    let mut files = files.into_iter();
    let next_file = files.next();
    let done = std::sync::atomic::AtomicU64::new(0);
    let mut reader = MergeReader {
        kind,
        records: index.iter().peekable(),
        files,
        next_file,
        out: Vec::with_capacity(1 << 18),
        at: 0,
        done: &done,
        replaced: 0,
    };
    let files_done = FilesDone {
        done: &done,
        progress,
        shown: std::cell::Cell::new(0),
    };
    let build = super::build::build(
        super::build::Source::Stream {
            reader: &mut reader,
            name: "merged ranges".into(),
            size: None,
        },
        out,
        super::build::Options {
            kind: Some(kind),
            allow_partial: false,
            partial: index.header().partial(),
            direct: false,
        },
        spool_dir,
        &files_done,
    )
    .map_err(|e| match e {
        // A bad range file: its own message names the file and the line.
        super::build::BuildError::Read(_, io) if io.kind() == std::io::ErrorKind::InvalidData => {
            super::build::BuildError::Invalid(io.to_string())
        }
        other => other,
    })?;
    files_done.advance(0);
    Ok(MergeSummary {
        build,
        ranges,
        replaced: reader.replaced,
    })
}

/// Forwards the count of applied range files whenever the build reports progress.
struct FilesDone<'a> {
    done: &'a std::sync::atomic::AtomicU64,
    progress: &'a dyn Progress,
    shown: std::cell::Cell<u64>,
}

impl Progress for FilesDone<'_> {
    fn advance(&self, _delta: u64) {
        let now = self.done.load(std::sync::atomic::Ordering::Relaxed);
        let shown = self.shown.get();
        if now > shown {
            self.progress.advance(now - shown);
            self.shown.set(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Lines are the suffix's upper-case hex, a colon and the count, CRLF between.
        #[test]
        fn lines_are_as_the_api_writes_them(
            lines in proptest::collection::vec((any::<[u8; 20]>(), any::<u64>()), 0..6),
            ntlm in any::<bool>(),
        ) {
            let kind = if ntlm { HashKind::Ntlm } else { HashKind::Sha1 };
            let (mut got, mut want) = (Vec::new(), String::new());
            for (i, (hash, count)) in lines.iter().enumerate() {
                let w = Wide::from_be_prefix(&hash[..kind.len()]);
                push_line(kind, &w, *count, &mut got);
                let hex: String = hash[..kind.len()].iter().map(|b| format!("{b:02X}")).collect();
                if i > 0 {
                    want.push_str("\r\n");
                }
                want.push_str(&format!("{}:{count}", &hex[5..]));
            }
            prop_assert_eq!(String::from_utf8(got).unwrap(), want);
        }
    }
}
