//! Building an index from a dump, in one streaming pass and bounded memory.

use super::HashKind;
use super::format::{
    BLOCK_SIZE, ESTIMATE_RECORDS, GROUP_BITS, HEADER_SIZE, Header, OVERFLOW_ENTRY, Params, Wide,
    align,
};
use crate::progress::Progress;
use crate::streams::ChunkWriter;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// Where the dump comes from.
pub enum Source<'a> {
    /// The downloader's single file (or standard input), named for messages.
    Stream {
        /// The bytes (read on a thread of their own).
        reader: &'a mut (dyn Read + Send),
        /// How messages name it (`stdin`, a path).
        name: String,
        /// Its size when known, for progress.
        size: Option<u64>,
    },
    /// The downloader's per-prefix directory (`XXXXX.txt` files).
    Directory(PathBuf),
    /// Ranges already checked and packed (`breach download`'s), in prefix order.
    Packed {
        /// The ranges.
        ranges: &'a mut dyn PackedRanges,
        /// Their hash kind.
        kind: HashKind,
        /// How messages name them.
        name: String,
    },
}

/// Ranges in the packed form of the download journal (docs/BREACH-FORMAT.md, "Download
/// journal"): per hash, the whole hash in big-endian bytes (20 for SHA-1, 16 for NTLM)
/// and its count in unsigned LEB128. Read as they come, without a text form in between.
pub trait PackedRanges {
    /// The next range's packed hashes, or `None` after the last range.
    fn next_range(&mut self) -> io::Result<Option<&[u8]>>;
}

/// What is wrong with one line of a dump.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineProblem {
    /// No `:`.
    #[error("not HASH:COUNT (no ':')")]
    NoColon,
    /// Nothing on the line.
    #[error("empty line")]
    Empty,
    /// A hash of the wrong length.
    #[error("hash is {found} characters, expected {expected} hex digits ({kind})")]
    HashLength {
        /// Found.
        found: usize,
        /// Expected.
        expected: usize,
        /// The dump's kind.
        kind: &'static str,
    },
    /// A hash of the other kind.
    #[error("mixed hash kinds: a {found} hash in a {kind} dump")]
    MixedKinds {
        /// The kind of this line.
        found: &'static str,
        /// The dump's kind.
        kind: &'static str,
    },
    /// A hash with a non-hex character.
    #[error("hash has a character that is not a hex digit")]
    NotHex,
    /// A count that is not a number.
    #[error("count is not a decimal number")]
    CountNotNumber,
    /// A count too large.
    #[error("count does not fit in 64 bits")]
    CountOverflow,
    /// Not after the previous hash.
    #[error(
        "hash is not in order: it sorts before the hash on line {previous} (the dump must be sorted)"
    )]
    Unsorted {
        /// The previous record's line.
        previous: u64,
    },
    /// The same hash again.
    #[error("duplicate hash: the same hash is on line {previous}")]
    Duplicate {
        /// The previous record's line.
        previous: u64,
    },
    /// A line longer than any dump line can be (endless input without line ends).
    #[error(
        "longer than {} (the limit of one line)",
        crate::streams::size_text(crate::streams::LINE_CAP)
    )]
    TooLong,
    /// A packed hash cut short or a malformed count (a damaged download journal).
    #[error("a packed hash cut short or with a malformed count")]
    Packed,
}

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A bad line.
    #[error("{source_name}: line {line}: {problem}")]
    Line {
        /// The file (or `stdin`) holding it.
        source_name: String,
        /// Its number, from 1.
        line: u64,
        /// What is wrong.
        problem: LineProblem,
    },
    /// Reading failed.
    #[error("{0}: cannot read")]
    Read(String, #[source] io::Error),
    /// Writing the index failed.
    #[error("cannot write the index")]
    Write(#[source] io::Error),
    /// No hashes at all.
    #[error("the dump holds no hashes")]
    Empty,
    /// A per-prefix directory without range files.
    #[error("{0}: no range files (00000.txt to FFFFF.txt) in this directory")]
    NoRanges(String),
    /// A range file of the wrong shape.
    #[error("{0}: {1}")]
    Range(String, &'static str),
    /// Bad input, said in full (a range file and its line).
    #[error("{0}")]
    Invalid(String),
    /// A per-prefix directory without every range file (an interrupted download).
    #[error(
        "{dir}: {missing} of the 1048576 range files are missing, the first {first} (an interrupted download?)"
    )]
    Incomplete {
        /// The directory.
        dir: String,
        /// How many are missing.
        missing: usize,
        /// The first missing one.
        first: String,
    },
    /// A dump so unevenly spread that a table group overflows 32 bits.
    #[error(
        "the dump is too unevenly spread for format 1 (over 4 billion hashes in one table group)"
    )]
    Unbalanced,
}

/// What a build did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The header written.
    pub header: Header,
    /// Count-0 lines skipped (padding).
    pub padding_skipped: u64,
    /// Lines read.
    pub lines: u64,
    /// The ranges the index's hashes fall in.
    pub ranges: super::coverage::Ranges,
}

/// Options of a build.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// The hash kind, or `None` to detect it from the first line.
    pub kind: Option<HashKind>,
    /// Build from a per-prefix directory that lacks range files, marking the index
    /// partial (`--allow-partial`); without it, a missing range file is an error.
    pub allow_partial: bool,
    /// Mark the index partial whatever it is built from (a merge into a partial index).
    pub partial: bool,
    /// Write the records with direct I/O (Linux `O_DIRECT`), past the page cache, where
    /// the file system allows it: half the CPU time of writing them (no copy into the
    /// cache), for builds whose index is not read at once (`breach download`: at full
    /// scale it is larger than most machines' memory).
    pub direct: bool,
}

/// Builds an index from `source` into `out` (positioned anywhere; the index is written
/// from offset 0). Overflow counts are spooled to an anonymous file in `spool_dir`.
///
/// Three threads: one reads the input in large chunks, this one parses and packs
/// records, one checksums and writes them and starts the disk's writeback as it goes
/// (so that the caller's final sync has little left to wait for).
pub fn build(
    source: Source<'_>,
    out: &mut File,
    options: Options,
    spool_dir: &Path,
    progress: &dyn Progress,
) -> Result<Summary, BuildError> {
    out.set_len(0).map_err(BuildError::Write)?;
    out.seek(SeekFrom::Start(0)).map_err(BuildError::Write)?;
    out.write_all(&[0u8; HEADER_SIZE])
        .map_err(BuildError::Write)?;
    let spool = tempfile::tempfile_in(spool_dir).map_err(BuildError::Write)?;
    let (inputs, total) = match &source {
        Source::Stream { name, size, .. } => (vec![(name.clone(), None, None)], *size),
        Source::Packed { name, .. } => (vec![(name.clone(), None, None)], None),
        Source::Directory(dir) => {
            // Listing and sizing a million files takes seconds: the bar says so, and its
            // total (the files' bytes) is known from the start of the build itself.
            progress.phase("listing range files");
            let files = range_files(dir)?;
            progress.phase("building");
            if files.len() < RANGES && !options.allow_partial {
                return Err(missing_ranges(dir, &files));
            }
            let total = files.iter().map(|(_, _, len)| len).sum();
            let inputs = files
                .into_iter()
                .map(|(prefix, path, _)| {
                    let name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    (name, Some(prefix), Some(path))
                })
                .collect();
            (inputs, Some(total))
        }
    };
    if let Some(t) = total {
        progress.set_total(t);
    }
    let source_kind = match &source {
        Source::Stream { .. } | Source::Packed { .. } => SourceKind::Stream,
        Source::Directory(_) => SourceKind::Directory(inputs.len()),
    };
    let (mut stream, mut packed) = match source {
        Source::Stream { reader, .. } => (Some(reader), None),
        Source::Directory(_) => (None, None),
        Source::Packed { ranges, kind, name } => (None, Some((ranges, kind, name))),
    };
    let mut lines = 0u64;
    let (writer, sums) = std::thread::scope(|scope| -> Result<_, BuildError> {
        let (rec_tx, rec_rx) = mpsc::sync_channel::<(Vec<u8>, usize)>(3);
        let (free_rec_tx, free_rec_rx) = mpsc::channel::<Vec<u8>>();
        let out_ref = &mut *out;
        let direct = options.direct;
        let sink = scope.spawn(move || sink_records(out_ref, rec_rx, free_rec_tx, direct));
        let mut writer = Writer::new(spool, options.kind, rec_tx, free_rec_rx);

        if let Some((ranges, kind, name)) = packed.take() {
            // Packed ranges are read on this thread: no text to split or parse.
            let records_done = feed_packed(ranges, kind, &name, &mut writer, &mut lines)
                .and_then(|()| writer.end_records());
            writer.close_sink();
            let sums = sink.join().expect("the sink thread does not panic");
            let sums = sums.map_err(BuildError::Write)?;
            records_done?;
            return Ok((writer, sums));
        }

        let (chunk_tx, chunk_rx) = mpsc::sync_channel::<ReadMsg>(3);
        let (free_in_tx, free_in_rx) = mpsc::channel::<Vec<u8>>();
        let names: Vec<(String, Option<PathBuf>)> = inputs
            .iter()
            .map(|(n, _, p)| (n.clone(), p.clone()))
            .collect();
        let stream = stream.take();
        let reader = scope.spawn(move || read_inputs(names, stream, chunk_tx, free_in_rx));

        let mut parsers: Vec<Parser> = inputs
            .iter()
            .map(|(name, prefix, _)| Parser::new(name.clone(), *prefix))
            .collect();
        let mut result = Ok(());
        for msg in chunk_rx.iter() {
            let (file, data, len, last) = match msg {
                ReadMsg::Data {
                    file,
                    data,
                    len,
                    last,
                } => (file, data, len, last),
                ReadMsg::Failed(e) => {
                    result = Err(e);
                    break;
                }
            };
            progress.advance(len as u64);
            let parser = &mut parsers[file];
            if let Err(e) = parser.feed(&data[..len], last, &mut writer, &mut lines) {
                result = Err(e);
                break;
            }
            let _ = free_in_tx.send(data);
        }
        // Stop the reader (its sends fail once the receiver is gone) and the sink.
        drop(chunk_rx);
        drop(free_in_tx);
        let records_done = result.and_then(|()| writer.end_records());
        writer.close_sink();
        let sums = sink.join().expect("the sink thread does not panic");
        let read = reader.join().expect("the reader thread does not panic");
        // The sink's own error first: when it stops (a full disk), the records side only
        // sees that it stopped.
        let sums = sums.map_err(BuildError::Write)?;
        records_done?;
        read?;
        Ok((writer, sums))
    })?;
    let padding = writer.padding;
    let ranges = writer.coverage.finish();
    let partial = options.partial
        || match &source_kind {
            SourceKind::Directory(n) => *n < RANGES,
            SourceKind::Stream => false,
        };
    let header = writer.finish(out, sums, partial)?;
    Ok(Summary {
        header,
        padding_skipped: padding,
        lines,
        ranges,
    })
}

/// Feeds the records of packed ranges to `w`, in order.
fn feed_packed(
    ranges: &mut dyn PackedRanges,
    kind: HashKind,
    name: &str,
    w: &mut Writer,
    lines: &mut u64,
) -> Result<(), BuildError> {
    w.set_kind(kind);
    let n = kind.len();
    let fail = |line: u64, problem: LineProblem| BuildError::Line {
        source_name: name.to_string(),
        line,
        problem,
    };
    // The previous record, kept in locals (not in `w.last` through the loop: storing a
    // hash there word by word and reading it back whole stalled every record).
    let mut last = w.last;
    while let Some(packed) = ranges
        .next_range()
        .map_err(|e| BuildError::Read(name.to_string(), e))?
    {
        let mut at = 0;
        while at < packed.len() {
            *lines += 1;
            let Some(bytes) = packed.get(at..at + n) else {
                return Err(fail(*lines, LineProblem::Packed));
            };
            let hash = Wide::from_be_prefix(bytes);
            // Most counts are one byte.
            let (count, len) = match packed.get(at + n) {
                Some(&b) if b < 0x80 => (u64::from(b), 1),
                _ => {
                    match super::download::body::read_leb128(&packed[(at + n).min(packed.len())..])
                    {
                        Some(c) => c,
                        None => return Err(fail(*lines, LineProblem::Packed)),
                    }
                }
            };
            at += n + len;
            if count == 0 {
                w.padding += 1;
                continue;
            }
            if let Some((prev, prev_line)) = last
                && hash <= prev
            {
                return Err(fail(
                    *lines,
                    if hash == prev {
                        LineProblem::Duplicate {
                            previous: prev_line,
                        }
                    } else {
                        LineProblem::Unsorted {
                            previous: prev_line,
                        }
                    },
                ));
            }
            last = Some((hash, *lines));
            w.push(hash, count)?;
        }
    }
    w.last = last;
    Ok(())
}

/// A piece of input from the reader thread.
enum ReadMsg {
    /// Bytes of input `file`; `last` when they end it.
    Data {
        file: usize,
        data: Vec<u8>,
        len: usize,
        last: bool,
    },
    /// Reading failed.
    Failed(BuildError),
}

const READ_CHUNK: usize = 1 << 20;

/// Reads every input in order, in chunks, recycling buffers the parser returns.
fn read_inputs(
    inputs: Vec<(String, Option<PathBuf>)>,
    mut stream: Option<&mut (dyn Read + Send)>,
    tx: mpsc::SyncSender<ReadMsg>,
    free: mpsc::Receiver<Vec<u8>>,
) -> Result<(), BuildError> {
    for (file, (name, path)) in inputs.into_iter().enumerate() {
        let mut opened;
        let reader: &mut dyn Read = match (&path, stream.as_mut()) {
            (Some(p), _) => {
                opened = match File::open(p) {
                    Ok(f) => f,
                    Err(e) => {
                        let _ = tx.send(ReadMsg::Failed(BuildError::Read(name, e)));
                        return Ok(());
                    }
                };
                &mut opened
            }
            (None, Some(s)) => &mut **s,
            (None, None) => return Ok(()),
        };
        loop {
            let mut data = free.try_recv().unwrap_or_else(|_| vec![0u8; READ_CHUNK]);
            // Fill the chunk (short reads from pipes are common).
            let mut len = 0;
            let mut eof = false;
            while len < data.len() {
                match reader.read(&mut data[len..]) {
                    Ok(0) => {
                        eof = true;
                        break;
                    }
                    Ok(n) => len += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        let _ = tx.send(ReadMsg::Failed(BuildError::Read(name, e)));
                        return Ok(());
                    }
                }
            }
            if tx
                .send(ReadMsg::Data {
                    file,
                    data,
                    len,
                    last: eof,
                })
                .is_err()
            {
                // The parser stopped (an error, reported there).
                return Ok(());
            }
            if eof {
                break;
            }
        }
    }
    Ok(())
}

/// Checksums and writes record buffers in 2 MiB-aligned pieces (so that the built index
/// sits in the page cache in huge folios: see [`ChunkWriter`]), starting writeback
/// every 64 MiB.
fn sink_records(
    out: &mut File,
    rx: mpsc::Receiver<(Vec<u8>, usize)>,
    free: mpsc::Sender<Vec<u8>>,
    direct: bool,
) -> io::Result<Vec<u64>> {
    let mut block = Xxh3::new();
    let mut fill = 0u64;
    let mut sums = Vec::new();
    let mut started = 0u64;
    let direct = direct && direct_records(out);
    let mut chunks = if direct {
        ChunkWriter::aligned(&mut *out, HEADER_SIZE as u64)
    } else {
        ChunkWriter::new(&mut *out, HEADER_SIZE as u64)
    };
    for (buf, len) in rx.iter() {
        let mut data = &buf[..len];
        while !data.is_empty() {
            let take = ((BLOCK_SIZE - fill) as usize).min(data.len());
            block.update(&data[..take]);
            fill += take as u64;
            if fill == BLOCK_SIZE {
                sums.push(block.digest());
                block.reset();
                fill = 0;
            }
            data = &data[take..];
        }
        chunks.write_all(&buf[..len])?;
        if chunks.position() - started >= WRITEBACK_STEP {
            // What has reached the file: the writer may still hold up to 2 MiB.
            let end = chunks.written();
            start_writeback(chunks.get_ref(), started, end - started);
            started = end;
        }
        let _ = free.send(buf);
    }
    if direct {
        // The last piece has any length: written through the page cache.
        crate::streams::direct_io_off(chunks.get_ref());
    }
    chunks.flush()?;
    if fill > 0 {
        sums.push(block.digest());
    }
    Ok(sums)
}

const WRITEBACK_STEP: u64 = 64 << 20;

// The records start on an aligned offset, and the probe rewrites exactly the header.
const _: () = assert!(HEADER_SIZE == crate::streams::DIRECT_ALIGN);

/// Turns direct I/O on for `out` where the system allows it, proved by rewriting the
/// file's first block (the zero header, not yet written) from an aligned buffer.
fn direct_records(out: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let align = crate::streams::DIRECT_ALIGN;
        let zeros = vec![0u8; 2 * align];
        let at = zeros.as_ptr().align_offset(align).min(align);
        crate::streams::direct_io_on(out, |f| f.write_all_at(&zeros[at..at + align], 0))
    }
    #[cfg(not(unix))]
    {
        let _ = out;
        false
    }
}

/// Asks the kernel to start writing a range to disk now, without waiting (Linux); the
/// final sync then finds most of the file already written.
fn start_writeback(out: &File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        #[allow(unsafe_code)]
        // SAFETY: sync_file_range only schedules writeback of the descriptor's pages; it
        // touches no memory of ours, and failure is harmless (the final sync covers it).
        unsafe {
            libc::sync_file_range(
                out.as_raw_fd(),
                offset as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (out, offset, len);
}

/// The number of ranges of the Pwned Passwords API: every 5-digit hex prefix.
pub const RANGES: usize = 1 << 20;

/// What a build reads, for its header's flags.
enum SourceKind {
    Stream,
    /// A per-prefix directory with this many range files.
    Directory(usize),
}

/// The error for a per-prefix directory without every range file: how many are missing,
/// and the first one.
fn missing_ranges(dir: &Path, files: &[(u32, PathBuf, u64)]) -> BuildError {
    let mut first = None;
    let mut want = 0u32;
    for (prefix, _, _) in files {
        if *prefix != want {
            first = Some(want);
            break;
        }
        want += 1;
    }
    let first = first.unwrap_or(want);
    BuildError::Incomplete {
        dir: dir.display().to_string(),
        missing: RANGES - files.len(),
        first: format!("{first:05X}.txt"),
    }
}

/// The range files of a per-prefix directory, in prefix order: (prefix, path, size).
pub(crate) fn range_files(dir: &Path) -> Result<Vec<(u32, PathBuf, u64)>, BuildError> {
    let shown = dir.display().to_string();
    let entries = std::fs::read_dir(dir).map_err(|e| BuildError::Read(shown.clone(), e))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| BuildError::Read(shown.clone(), e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(stem) = name
            .strip_suffix(".txt")
            .or_else(|| name.strip_suffix(".TXT"))
        else {
            continue;
        };
        if stem.len() != 5 || !stem.bytes().all(|c| c.is_ascii_hexdigit()) {
            continue;
        }
        let prefix = u32::from_str_radix(stem, 16).expect("checked hex");
        let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
        files.push((prefix, entry.path(), len));
    }
    if files.is_empty() {
        return Err(BuildError::NoRanges(shown));
    }
    files.sort_by_key(|f| f.0);
    if let Some(w) = files.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(BuildError::Range(
            w[1].1.display().to_string(),
            "two range files for the same prefix",
        ));
    }
    Ok(files)
}

/// Parses lines of one stream (a single file, or one range file with its prefix),
/// chunk by chunk.
struct Parser {
    name: String,
    /// The range file's prefix as 5 upper-case hex digits.
    prefix: Option<[u8; 5]>,
    line: u64,
    /// The start of a line that continues in the next chunk.
    carry: Vec<u8>,
}

impl Parser {
    fn new(name: String, prefix: Option<u32>) -> Parser {
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
    fn feed(
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

/// Packs records as they come; decides the parameters after the first records. Full
/// buffers of records go to the sink thread.
struct Writer {
    kind: Option<HashKind>,
    /// Records held until the parameters are chosen.
    pending: Vec<(Wide, u64)>,
    params: Option<Params>,
    last: Option<(Wide, u64)>,
    padding: u64,
    records: u64,
    max_count: u64,
    total_count: u64,
    /// Record bytes not yet handed to the sink.
    buf: Vec<u8>,
    buf_len: usize,
    sink: Option<mpsc::SyncSender<(Vec<u8>, usize)>>,
    free: mpsc::Receiver<Vec<u8>>,
    overflow: BufWriter<File>,
    overflow_entries: u64,
    /// Bucket offsets relative to their group base, filled as buckets are passed.
    offsets: Vec<u32>,
    bases: Vec<u64>,
    next_bucket: u64,
    /// The ranges the records fall in.
    coverage: super::coverage::Coverage,
}

const RECORD_BUF: usize = 1 << 20;

impl Writer {
    fn new(
        spool: File,
        kind: Option<HashKind>,
        sink: mpsc::SyncSender<(Vec<u8>, usize)>,
        free: mpsc::Receiver<Vec<u8>>,
    ) -> Writer {
        Writer {
            kind,
            pending: Vec::new(),
            params: None,
            last: None,
            padding: 0,
            records: 0,
            max_count: 0,
            total_count: 0,
            buf: vec![0u8; RECORD_BUF],
            buf_len: 0,
            sink: Some(sink),
            free,
            overflow: BufWriter::new(spool),
            overflow_entries: 0,
            offsets: Vec::new(),
            bases: Vec::new(),
            next_bucket: 0,
            coverage: super::coverage::Coverage::default(),
        }
    }

    fn set_kind(&mut self, kind: HashKind) {
        self.kind = Some(kind);
    }

    #[inline]
    fn push(&mut self, hash: Wide, count: u64) -> Result<(), BuildError> {
        if self.params.is_none() {
            self.pending.push((hash, count));
            if self.pending.len() == ESTIMATE_RECORDS {
                self.choose(false)?;
            }
            return Ok(());
        }
        self.emit(hash, count)
    }

    /// Chooses the parameters from the records held (all of them at the end of input).
    fn choose(&mut self, at_end: bool) -> Result<(), BuildError> {
        let kind = self.kind.unwrap_or(HashKind::Sha1);
        let estimate = if at_end {
            self.pending.len() as u64
        } else {
            let first = self.pending[0].0.0[0];
            let last = self.pending[ESTIMATE_RECORDS - 1].0.0[0];
            let span = u128::from(last - first) + 1;
            let e = ((ESTIMATE_RECORDS as u128 - 1) << 64) / span;
            e.min(u128::from(u64::MAX)) as u64
        };
        let params = Params::new(kind, Params::table_bits_for(estimate));
        self.offsets = Vec::with_capacity(params.buckets() as usize + 1);
        self.bases = Vec::with_capacity(params.groups() as usize);
        self.params = Some(params);
        for (h, c) in std::mem::take(&mut self.pending) {
            self.emit(h, c)?;
        }
        Ok(())
    }

    /// Fills bucket offsets up to and including `bucket` with the current record index.
    #[inline]
    fn pass_buckets(&mut self, bucket: u64) -> Result<(), BuildError> {
        while self.next_bucket <= bucket {
            let k = self.next_bucket;
            if k.is_multiple_of(1 << GROUP_BITS) {
                self.bases.push(self.records);
            }
            let base = *self.bases.last().expect("pushed above");
            let rel = u32::try_from(self.records - base).map_err(|_| BuildError::Unbalanced)?;
            self.offsets.push(rel);
            self.next_bucket += 1;
        }
        Ok(())
    }

    #[inline]
    fn emit(&mut self, hash: Wide, count: u64) -> Result<(), BuildError> {
        let p = self.params.expect("chosen before emitting");
        let bucket = p.bucket(&hash);
        if bucket >= self.next_bucket {
            self.pass_buckets(bucket)?;
        }
        self.coverage.note(super::ranges::prefix_of(&hash));
        let sat = p.saturated();
        if count >= sat {
            let mut e = [0u8; OVERFLOW_ENTRY];
            e[..8].copy_from_slice(&self.records.to_le_bytes());
            e[8..].copy_from_slice(&count.to_le_bytes());
            self.overflow.write_all(&e).map_err(BuildError::Write)?;
            self.overflow_entries += 1;
        }
        if self.buf_len + 24 > self.buf.len() {
            self.flush_records()?;
        }
        p.pack(
            &hash,
            count.min(sat),
            &mut self.buf[self.buf_len..self.buf_len + 24],
        );
        self.buf_len += p.record_size;
        self.records += 1;
        self.max_count = self.max_count.max(count);
        self.total_count = self.total_count.saturating_add(count);
        Ok(())
    }

    /// Hands the buffered records to the sink.
    fn flush_records(&mut self) -> Result<(), BuildError> {
        if self.buf_len == 0 {
            return Ok(());
        }
        let next = self
            .free
            .try_recv()
            .unwrap_or_else(|_| vec![0u8; RECORD_BUF]);
        let full = std::mem::replace(&mut self.buf, next);
        let sink = self.sink.as_ref().expect("open until the records end");
        if sink.send((full, self.buf_len)).is_err() {
            // The sink stopped on a write error, which it reports.
            return Err(BuildError::Write(io::Error::other(
                "the index writer stopped",
            )));
        }
        self.buf_len = 0;
        Ok(())
    }

    /// Chooses the parameters if the input was short, and hands over the last records.
    fn end_records(&mut self) -> Result<(), BuildError> {
        if self.params.is_none() {
            if self.pending.is_empty() {
                return Err(BuildError::Empty);
            }
            self.choose(true)?;
        }
        self.flush_records()
    }

    /// Lets the sink finish.
    fn close_sink(&mut self) {
        self.sink = None;
    }

    /// Appends the overflow, table, block checksum and table checksum sections and
    /// writes the header.
    fn finish(
        mut self,
        file: &mut File,
        block_sums: Vec<u64>,
        partial: bool,
    ) -> Result<Header, BuildError> {
        let p = self.params.expect("chosen");
        self.pass_buckets(p.buckets())?;
        // The sentinel bucket 2^b starts the last group when b >= 16.
        debug_assert_eq!(self.bases.len() as u64, p.groups());
        let records_at = (HEADER_SIZE as u64, self.records * p.record_size as u64);
        let mut at = records_at.0 + records_at.1;
        let mut out = ChunkWriter::new(&mut *file, at);

        // Overflow: copy the spool.
        let overflow_off = align(at);
        pad(&mut out, at, overflow_off)?;
        let overflow_len = self.overflow_entries * OVERFLOW_ENTRY as u64;
        let mut spool = self
            .overflow
            .into_inner()
            .map_err(|e| BuildError::Write(e.into_error()))?;
        spool.seek(SeekFrom::Start(0)).map_err(BuildError::Write)?;
        let mut overflow_sum = Xxh3::new();
        let mut chunk = vec![0u8; 1 << 20];
        let mut left = overflow_len;
        while left > 0 {
            let n = (chunk.len() as u64).min(left) as usize;
            spool
                .read_exact(&mut chunk[..n])
                .map_err(BuildError::Write)?;
            overflow_sum.update(&chunk[..n]);
            out.write_all(&chunk[..n]).map_err(BuildError::Write)?;
            left -= n as u64;
        }
        at = overflow_off + overflow_len;

        // Table.
        let table_off = align(at);
        pad(&mut out, at, table_off)?;
        let mut table = Vec::with_capacity(p.table_len() as usize);
        for b in &self.bases {
            table.extend_from_slice(&b.to_le_bytes());
        }
        for o in &self.offsets {
            table.extend_from_slice(&o.to_le_bytes());
        }
        debug_assert_eq!(table.len() as u64, p.table_len());
        out.write_all(&table).map_err(BuildError::Write)?;
        at = table_off + table.len() as u64;

        // Block checksums.
        let blocks_off = align(at);
        pad(&mut out, at, blocks_off)?;
        let blocks: Vec<u8> = block_sums.iter().flat_map(|s| s.to_le_bytes()).collect();
        out.write_all(&blocks).map_err(BuildError::Write)?;
        at = blocks_off + blocks.len() as u64;

        // The table's chunk checksums, checked on the lookup path.
        let sums_off = align(at);
        pad(&mut out, at, sums_off)?;
        let table_sums = super::checked::chunk_sums(&table);
        out.write_all(&table_sums).map_err(BuildError::Write)?;
        let file_len = sums_off + table_sums.len() as u64;

        let header = Header {
            params: p,
            records: self.records,
            overflow_entries: self.overflow_entries,
            max_count: self.max_count,
            total_count: self.total_count,
            records_at,
            overflow_at: (overflow_off, overflow_len),
            table_at: (table_off, table.len() as u64),
            blocks_at: (blocks_off, blocks.len() as u64),
            overflow_sum: overflow_sum.digest(),
            table_sum: xxh3_64(&table),
            blocks_sum: xxh3_64(&blocks),
            file_len,
            version: super::format::VERSION,
            flags: if partial {
                super::format::FLAG_PARTIAL
            } else {
                0
            },
            sums_at: (sums_off, table_sums.len() as u64),
        };
        out.flush().map_err(BuildError::Write)?;
        drop(out);
        file.seek(SeekFrom::Start(0)).map_err(BuildError::Write)?;
        file.write_all(&header.encode())
            .map_err(BuildError::Write)?;
        file.seek(SeekFrom::End(0)).map_err(BuildError::Write)?;
        Ok(header)
    }
}

/// Writes zeros from offset `at` up to `to`.
fn pad(out: &mut impl Write, at: u64, to: u64) -> Result<(), BuildError> {
    let zeros = vec![0u8; (to - at) as usize];
    out.write_all(&zeros).map_err(BuildError::Write)
}
