//! Reading lines: with their numbers, with a cap on their length, in blocks for batch
//! readers; and reading small files with a cap.

use super::ReadAhead;
use std::io::{self, BufRead, Read};
use std::ops::Range;

/// The longest line any line reader accepts, line end included: 1 MiB. A longer line
/// is an error naming it (`line N: longer than 1 MiB`), so that endless input without
/// line ends (`< /dev/zero`) costs bounded memory instead of all of it.
pub const LINE_CAP: usize = 1 << 20;

/// The most bytes read from a key, passphrase or state file: such files are a few
/// hundred bytes, and a path naming something endless (`/dev/zero`) must not be read
/// whole.
pub const SMALL_FILE_CAP: usize = 1 << 20;

/// A UTF-8 byte order mark, as spreadsheet programs put before CSV and Windows editors
/// before text: line readers that know their lines cannot hold it skip it; the others
/// keep it and say so in an error on line 1.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line longer than [`LINE_CAP`] (or another reader's cap), by its number from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: longer than {} (the limit of one line)", size_text(*.cap))]
pub struct LineTooLong {
    /// The line's number, from 1.
    pub line: u64,
    /// The limit.
    pub cap: usize,
}

impl LineTooLong {
    /// As an I/O error of kind `InvalidData` (for readers that return `io::Result`).
    pub fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, self)
    }
}

/// A byte count in the largest binary unit that divides it (`1 MiB`, `640 KiB`,
/// `100 bytes`).
pub fn size_text(n: usize) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} bytes")
}

/// A byte count to a tenth of the largest binary unit not above it (`4.2 MiB`, `38.0
/// GiB`, `512 bytes`): for sizes that are measured or estimated, where [`size_text`]
/// names exact limits.
pub fn approx_size(n: u64) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift {
            return format!("{:.1} {unit}", n as f64 / (1u64 << shift) as f64);
        }
    }
    format!("{n} bytes")
}

/// Reads at most `cap` bytes of `reader` to its end; more is an error of kind
/// `InvalidData` saying so. For key, passphrase and state files, which may name a
/// device or a pipe that never ends.
pub fn read_capped(reader: &mut dyn Read, cap: usize) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let n = reader.take(cap as u64 + 1).read_to_end(&mut out)?;
    if n > cap {
        out.iter_mut().for_each(|b| *b = 0);
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("longer than {}: not a file of this kind", size_text(cap)),
        ));
    }
    Ok(out)
}

/// Reads lines from a [`BufRead`], reusing one buffer, counting lines from 1, and
/// stripping the line end (`\n` or `\r\n`; with [`Lines::ending_with`]`(NUL)`, the NUL
/// alone). Nothing else is trimmed. A line longer than [`LINE_CAP`] is an error
/// ([`LineTooLong`] as an `InvalidData` I/O error).
pub struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    line_no: u64,
    cap: usize,
    end: u8,
}

/// The byte that ends a record of `-0`/`--null` input (as `find -print0`, `xargs -0`,
/// `rg -0` write): a record may then hold any other byte, a newline or a carriage
/// return included.
pub const NUL: u8 = 0;

/// Strips the end of a line read with `end` as its terminator: the terminator, and for
/// `\n` a `\r` before it.
#[inline]
pub fn strip_end(line: &[u8], end: u8) -> &[u8] {
    if end == b'\n' {
        return strip_line_end(line);
    }
    match line {
        [rest @ .., e] if *e == end => rest,
        _ => line,
    }
}

impl<R: BufRead> Lines<R> {
    /// Wraps a reader.
    pub fn new(reader: R) -> Self {
        Lines {
            reader,
            buf: Vec::with_capacity(256),
            line_no: 0,
            cap: LINE_CAP,
            end: b'\n',
        }
    }

    /// Records end with `end` in place of `\n` ([`NUL`] for `-0`).
    pub fn ending_with(mut self, end: u8) -> Self {
        self.end = end;
        self
    }

    /// The same with another cap on line length (tests).
    pub fn with_cap(reader: R, cap: usize) -> Self {
        Lines {
            cap,
            ..Lines::new(reader)
        }
    }

    /// The next line without its line end, with its number (counted from 1), or `None` at
    /// the end of input. A final line without a line end is returned as well.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, &[u8])>> {
        self.buf.clear();
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            let (take, done) = match memchr::memchr(self.end, chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            if self.buf.len() + take > self.cap {
                return Err(LineTooLong {
                    line: self.line_no + 1,
                    cap: self.cap,
                }
                .into_io());
            }
            self.buf.extend_from_slice(&chunk[..take]);
            self.reader.consume(take);
            if done {
                break;
            }
        }
        if self.buf.is_empty() {
            return Ok(None);
        }
        self.line_no += 1;
        Ok(Some((self.line_no, strip_end(&self.buf, self.end))))
    }

    /// The number of the last line returned (0 before the first).
    pub fn line_no(&self) -> u64 {
        self.line_no
    }
}

/// Reads a stream in large chunks and hands out blocks of whole lines, for the batch
/// readers that answer tens of millions of lines per second (`encode`, `decode`,
/// `breach query`). A block ends with a line end, except the last block of an input
/// whose last line has none. A line longer than the cap is an error before more than
/// the cap and one chunk are held.
pub struct LineBlocks<'r> {
    reader: Source<'r>,
    /// Read mode: the bytes read. Chunk mode: the start of a line carried over from an
    /// earlier chunk (and nothing else).
    buf: Vec<u8>,
    /// Read mode: bytes of `buf` read so far.
    len: usize,
    /// Bytes at the start of `buf` handed out by the last call, dropped by the next.
    handed: usize,
    eof: bool,
    cap: usize,
    /// Chunk mode: the chunk in hand, and the part of it not yet handed out.
    chunk: Vec<u8>,
    at: Range<usize>,
    /// Whether a [`BOM`] at the start of the input is still to be skipped.
    skip_bom: bool,
    /// The byte that ends a line.
    end: u8,
}

/// What a line reader reads: any reader, whose bytes it copies into its own buffer, or
/// a [`ReadAhead`], whose chunks it hands out whole lines of without a copy (only a
/// line that spans two chunks is put together in its buffer).
pub enum Source<'r> {
    /// A reader.
    Read(&'r mut dyn Read),
    /// A reader's thread's chunks.
    Ahead(&'r mut ReadAhead),
}

impl<'r> From<&'r mut dyn Read> for Source<'r> {
    fn from(r: &'r mut dyn Read) -> Self {
        Source::Read(r)
    }
}

impl<'r> From<&'r mut ReadAhead> for Source<'r> {
    fn from(r: &'r mut ReadAhead) -> Self {
        Source::Ahead(r)
    }
}

impl Source<'_> {
    /// As a plain reader.
    pub fn as_read(&mut self) -> &mut dyn Read {
        match self {
            Source::Read(r) => &mut **r,
            Source::Ahead(r) => &mut **r,
        }
    }
}

/// Bytes a [`LineBlocks`] asks its reader for at a time.
pub const BLOCK_READ: usize = 1 << 20;

/// Why [`LineBlocks::next_block`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    /// Reading failed.
    #[error(transparent)]
    Read(#[from] io::Error),
    /// The line after those already handed out is longer than the cap (the caller, which
    /// counts the lines, names it).
    #[error("a line is longer than {}", size_text(*.0))]
    TooLong(usize),
}

impl<'r> LineBlocks<'r> {
    /// Reads `reader` with lines of at most [`LINE_CAP`] bytes.
    pub fn new(reader: impl Into<Source<'r>>) -> Self {
        LineBlocks::with_cap(reader, LINE_CAP)
    }

    /// Reads `reader` with lines of at most `cap` bytes (at least 2).
    pub fn with_cap(reader: impl Into<Source<'r>>, cap: usize) -> Self {
        let cap = cap.max(2);
        let reader = reader.into();
        let buf = match reader {
            Source::Read(_) => vec![0; 2 * BLOCK_READ.min(cap)],
            Source::Ahead(_) => Vec::new(),
        };
        LineBlocks {
            reader,
            buf,
            len: 0,
            handed: 0,
            eof: false,
            cap,
            chunk: Vec::new(),
            at: 0..0,
            skip_bom: false,
            end: b'\n',
        }
    }

    /// Lines end with `end` in place of `\n` ([`NUL`] for `-0`): blocks then end with it,
    /// and [`ends`] finds them.
    pub fn ending_with(mut self, end: u8) -> Self {
        self.end = end;
        self
    }

    /// Skips a [`BOM`] at the start of the input (a list saved by a Windows editor), for
    /// readers whose lines cannot hold one: the first block then starts after it, and an
    /// input of the mark alone is an empty input. The mark still counts toward the first
    /// line's cap.
    pub fn skipping_bom(mut self, skip: bool) -> Self {
        self.skip_bom = skip;
        self
    }

    /// The next block of whole lines, or `None` at the end of the input. Every line of
    /// it is at most the cap long.
    pub fn next_block(&mut self) -> Result<Option<&[u8]>, BlockError> {
        let skip = std::mem::take(&mut self.skip_bom);
        let block = match self.reader {
            Source::Read(_) => self.next_read(),
            Source::Ahead(_) => self.next_chunked(),
        }?;
        // The first block holds the whole first line, so a mark before it is whole too.
        let Some(block) = block else {
            return Ok(None);
        };
        Ok(match block.strip_prefix(BOM) {
            Some([]) if skip => None,
            Some(rest) if skip => Some(rest),
            _ => Some(block),
        })
    }

    /// [`LineBlocks::next_block`] from chunks: the whole lines of the chunk in hand
    /// (at most the cap of them at a time, so that none is longer), or the line carried
    /// over from earlier chunks once its end arrives.
    fn next_chunked(&mut self) -> Result<Option<&[u8]>, BlockError> {
        if self.handed > 0 {
            // The carried line was handed out.
            self.buf.clear();
            self.handed = 0;
        }
        loop {
            if self.at.is_empty() {
                if self.eof {
                    if self.buf.is_empty() {
                        return Ok(None);
                    }
                    self.handed = self.buf.len();
                    return Ok(Some(&self.buf));
                }
                let Source::Ahead(ahead) = &mut self.reader else {
                    unreachable!("chunk mode reads a ReadAhead")
                };
                let used = std::mem::take(&mut self.chunk);
                (self.chunk, self.at) = ahead.next_chunk(used)?;
                self.eof = self.at.is_empty();
                continue;
            }
            let part = &self.chunk[self.at.clone()];
            if !self.buf.is_empty() {
                // A line begun in an earlier chunk: it ends at this part's first line end.
                let (take, ends) = match memchr::memchr(self.end, part) {
                    Some(i) => (i + 1, true),
                    None => (part.len(), false),
                };
                if self.buf.len() + take > self.cap {
                    return Err(BlockError::TooLong(self.cap));
                }
                self.buf.extend_from_slice(&part[..take]);
                self.at.start += take;
                if ends {
                    self.handed = self.buf.len();
                    return Ok(Some(&self.buf));
                }
                continue;
            }
            let window = &part[..part.len().min(self.cap)];
            match memchr::memrchr(self.end, window) {
                Some(p) => {
                    let start = self.at.start;
                    self.at.start += p + 1;
                    return Ok(Some(&self.chunk[start..self.at.start]));
                }
                None if window.len() < part.len() => {
                    return Err(BlockError::TooLong(self.cap));
                }
                None => {
                    // The chunk's last line goes on in the next chunk.
                    self.buf.extend_from_slice(part);
                    self.at.start = self.at.end;
                }
            }
        }
    }

    /// [`LineBlocks::next_block`] from a reader: each read asks for at most the cap, so
    /// only a line that spans reads can be longer, and such a line is the first of its
    /// block.
    fn next_read(&mut self) -> Result<Option<&[u8]>, BlockError> {
        let Source::Read(reader) = &mut self.reader else {
            unreachable!("read mode reads a reader")
        };
        self.buf.copy_within(self.handed..self.len, 0);
        self.len -= self.handed;
        self.handed = 0;
        let step = BLOCK_READ.min(self.cap);
        loop {
            if self.eof {
                if self.len == 0 {
                    return Ok(None);
                }
                self.handed = self.len;
                return Ok(Some(&self.buf[..self.len]));
            }
            if self.buf.len() < self.len + step {
                self.buf.resize(self.len + step, 0);
            }
            let n = match reader.read(&mut self.buf[self.len..self.len + step]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            let searched = self.len;
            self.len += n;
            if n == 0 {
                self.eof = true;
            }
            // The first line of what is in hand (the one that may span reads).
            let first = match memchr::memchr(self.end, &self.buf[searched..self.len]) {
                Some(i) => searched + i + 1,
                None => self.len,
            };
            if first > self.cap {
                return Err(BlockError::TooLong(self.cap));
            }
            if n == 0 {
                continue;
            }
            if let Some(p) = memchr::memrchr(self.end, &self.buf[searched..self.len]) {
                self.handed = searched + p + 1;
                return Ok(Some(&self.buf[..self.handed]));
            }
        }
    }
}

/// Strips one trailing `\n` and then one trailing `\r`, if present.
pub fn strip_line_end(mut line: &[u8]) -> &[u8] {
    if let [rest @ .., b'\n'] = line {
        line = rest;
    }
    if let [rest @ .., b'\r'] = line {
        line = rest;
    }
    line
}

/// The positions of every `\n` in `buf`, in order: a bitmask per 64 bytes, so that short
/// lines cost a few instructions each rather than a search's set-up.
pub fn newlines(buf: &[u8]) -> Newlines<'_> {
    ends(buf, b'\n')
}

/// The positions of every `end` byte in `buf`, in order, as [`newlines`] finds `\n`.
pub fn ends(buf: &[u8], end: u8) -> Newlines<'_> {
    Newlines {
        buf,
        base: 0,
        mask: byte_mask(buf, end),
        end,
    }
}

/// Iterator of [`newlines`] and [`ends`].
pub struct Newlines<'a> {
    buf: &'a [u8],
    base: usize,
    mask: u64,
    end: u8,
}

impl Iterator for Newlines<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.base += 64;
            if self.base >= self.buf.len() {
                return None;
            }
            self.mask = byte_mask(&self.buf[self.base..], self.end);
        }
        let bit = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.base + bit)
    }
}

/// Bit `i` is set when `chunk[i]` is `end`, for the first 64 bytes of `chunk`.
#[inline]
fn byte_mask(chunk: &[u8], end: u8) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if chunk.len() >= 64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, and 64 bytes are readable.
        #[allow(unsafe_code)]
        return unsafe { sse2_byte_mask(&chunk[..64], end) };
    }
    chunk
        .iter()
        .take(64)
        .enumerate()
        .fold(0u64, |m, (i, &c)| m | (u64::from(c == end) << i))
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[inline]
#[target_feature(enable = "sse2")]
fn sse2_byte_mask(chunk: &[u8], end: u8) -> u64 {
    use std::arch::x86_64::*;
    assert!(chunk.len() >= 64);
    let nl = _mm_set1_epi8(end as i8);
    let mut mask = 0u64;
    for i in 0..4 {
        // SAFETY: 16 bytes at 16 * i are within the 64 checked above; unaligned load.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().add(16 * i).cast()) };
        let m = _mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) as u32 as u64;
        mask |= m << (16 * i);
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`super::super::Pieces`] of one size owning its bytes, for a [`ReadAhead`]'s
    /// thread.
    struct OwnedTrickle {
        data: Vec<u8>,
        at: usize,
        step: usize,
    }

    impl Read for OwnedTrickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = super::super::Pieces::new(&self.data[self.at..], vec![self.step]).read(buf)?;
            self.at += n;
            Ok(n)
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
        /// From a reader, or from a [`ReadAhead`]'s chunks (of any size, cut anywhere).
        #[test]
        fn line_blocks_hand_out_whole_lines_or_refuse_a_long_one(
            lens in proptest::collection::vec(0usize..40, 0..60),
            last_terminated in proptest::prelude::any::<bool>(),
            cap in 2usize..48,
            step in 1usize..100,
            ahead in proptest::option::of(1usize..100),
            bom in proptest::prelude::any::<bool>(),
            skip in proptest::prelude::any::<bool>(),
            nul in proptest::prelude::any::<bool>(),
        ) {
            // With NUL ends (`-0`), lines hold newlines, which must not end them.
            let (end, other) = if nul { (NUL, b'\n') } else { (b'\n', NUL) };
            let mut data = Vec::new();
            if bom {
                data.extend_from_slice(BOM);
            }
            for (i, n) in lens.iter().enumerate() {
                data.extend((0..*n).map(|j| if j % 7 == 3 { other } else { b'a' + ((i + j) % 26) as u8 }));
                if i + 1 < lens.len() || last_terminated {
                    data.push(end);
                }
            }
            let longest = data.split_inclusive(|&c| c == end).map(<[u8]>::len).max().unwrap_or(0);
            // What the blocks hand out: the mark is skipped when asked for, and counts
            // toward the first line's cap all the same.
            let want = if bom && skip { &data[BOM.len()..] } else { &data[..] };
            let mut r = super::super::Pieces::new(&data, vec![step]);
            let mut chunks = ahead.map(|chunk| {
                ReadAhead::new(OwnedTrickle { data: data.clone(), at: 0, step }, chunk)
            });
            let mut blocks = match &mut chunks {
                Some(c) => LineBlocks::with_cap(c, cap),
                None => LineBlocks::with_cap(&mut r as &mut dyn Read, cap),
            }
            .skipping_bom(skip)
            .ending_with(end);
            let mut got = Vec::new();
            let mut failed = false;
            loop {
                match blocks.next_block() {
                    Ok(Some(b)) => {
                        proptest::prop_assert!(!b.is_empty());
                        proptest::prop_assert!(b.ends_with(&[end]) || (!want.ends_with(&[end]) && got.len() + b.len() == want.len()));
                        got.extend_from_slice(b);
                    }
                    Ok(None) => break,
                    Err(BlockError::TooLong(c)) => { proptest::prop_assert_eq!(c, cap); failed = true; break; }
                    Err(e) => proptest::prop_assert!(false, "{e}"),
                }
            }
            if longest > cap {
                proptest::prop_assert!(failed);
                // What was handed out before the refusal is whole lines within the cap.
                proptest::prop_assert!(want.starts_with(&got));
                proptest::prop_assert!(got.split_inclusive(|&c| c == end).all(|l| l.len() <= cap));
            } else {
                proptest::prop_assert!(!failed);
                proptest::prop_assert_eq!(&got[..], want);
            }
        }
    }

    #[test]
    fn endless_input_without_line_ends_is_refused_in_bounded_memory() {
        let mut zero = io::repeat(0);
        let mut blocks = LineBlocks::new(&mut zero as &mut dyn Read);
        assert!(matches!(
            blocks.next_block(),
            Err(BlockError::TooLong(LINE_CAP))
        ));
        assert!(blocks.buf.len() <= LINE_CAP + BLOCK_READ);
        let mut zero = ReadAhead::new(io::repeat(0), BLOCK_READ);
        let mut blocks = LineBlocks::new(&mut zero);
        assert!(matches!(
            blocks.next_block(),
            Err(BlockError::TooLong(LINE_CAP))
        ));
        assert!(blocks.buf.capacity() <= 2 * LINE_CAP);
        let mut lines = Lines::new(io::BufReader::new(io::repeat(b'x')));
        let e = lines.next_line().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            e.to_string(),
            "line 1: longer than 1 MiB (the limit of one line)"
        );
        let e = read_capped(&mut io::repeat(7), 1000).unwrap_err();
        assert_eq!(
            e.to_string(),
            "longer than 1000 bytes: not a file of this kind"
        );
        assert_eq!(read_capped(&mut &b"key"[..], 3).unwrap(), b"key");
    }

    #[test]
    fn lines_count_the_line_that_is_too_long() {
        let data = b"ok\nfine\ntoo long here\nok\n";
        let mut lines = Lines::with_cap(&data[..], 8);
        assert_eq!(lines.next_line().unwrap().unwrap().1, b"ok");
        assert_eq!(lines.next_line().unwrap().unwrap().1, b"fine");
        let e = lines.next_line().unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: longer than 8 bytes (the limit of one line)"
        );
        assert_eq!(size_text(640 << 10), "640 KiB");
    }

    #[test]
    fn approximate_sizes_take_the_largest_unit_to_a_tenth() {
        assert_eq!(approx_size(0), "0 bytes");
        assert_eq!(approx_size(1023), "1023 bytes");
        assert_eq!(approx_size(1024), "1.0 KiB");
        assert_eq!(approx_size(4_404_019), "4.2 MiB");
        assert_eq!(approx_size(38 << 30), "38.0 GiB");
    }

    #[test]
    fn lines_strip_lf_and_crlf_and_keep_the_rest() {
        let data = b"a\nb\r\n c \r\n\r\nlast";
        let mut lines = Lines::new(&data[..]);
        let mut got = Vec::new();
        while let Some((n, l)) = lines.next_line().unwrap() {
            got.push((n, l.to_vec()));
        }
        assert_eq!(
            got,
            vec![
                (1, b"a".to_vec()),
                (2, b"b".to_vec()),
                (3, b" c ".to_vec()),
                (4, b"".to_vec()),
                (5, b"last".to_vec()),
            ]
        );
    }

    #[test]
    fn a_lone_carriage_return_inside_a_line_is_kept() {
        assert_eq!(strip_line_end(b"a\rb\n"), b"a\rb");
        assert_eq!(strip_line_end(b"\r"), b"");
        assert_eq!(strip_line_end(b"x\r\r\n"), b"x\r");
        assert_eq!(strip_end(b"a\r\n\0", NUL), b"a\r\n");
        assert_eq!(strip_end(b"a\r\n", NUL), b"a\r\n");
        assert_eq!(strip_end(b"a\r\n", b'\n'), b"a");
    }

    proptest::proptest! {
        #[test]
        fn newlines_are_all_found(buf in proptest::collection::vec(
            proptest::prop_oneof![proptest::prelude::Just(b'\n'), proptest::prelude::Just(NUL), proptest::prelude::any::<u8>()], 0..300)) {
            for end in [b'\n', NUL] {
                let want: Vec<usize> = buf.iter().enumerate().filter(|(_, c)| **c == end).map(|(i, _)| i).collect();
                proptest::prop_assert_eq!(ends(&buf, end).collect::<Vec<_>>(), want);
            }
            let want: Vec<usize> = buf.iter().enumerate().filter(|(_, c)| **c == b'\n').map(|(i, _)| i).collect();
            proptest::prop_assert_eq!(newlines(&buf).collect::<Vec<_>>(), want);
        }
    }
}
