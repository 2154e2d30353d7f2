//! Building an index from a dump, in one streaming pass and bounded memory.

mod checkpoint;
mod parse;
#[cfg(test)]
mod tests;
mod writer;

pub use checkpoint::{Checkpoint, NOT_CHOSEN};

use super::HashKind;
use super::format::{BLOCK_SIZE, HEADER_SIZE, Header, Wide};
use crate::progress::Progress;
use crate::streams::ChunkWriter;
use parse::Parser;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use writer::Writer;
use xxhash_rust::xxh3::Xxh3;

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
        /// The state of an interrupted build of the same ranges to continue from (its
        /// records are in `out`, and are checked against it first), or `None` to start.
        resume: Option<Box<Checkpoint>>,
    },
}

/// Ranges in the packed form of the download journal (docs/BREACH-FORMAT.md, "Download
/// journal"): per hash, the whole hash in big-endian bytes (20 for SHA-1, 16 for NTLM)
/// and its count in unsigned LEB128. Read as they come, without a text form in between.
pub trait PackedRanges {
    /// The next range's packed hashes, or `None` after the last range.
    fn next_range(&mut self) -> io::Result<Option<&[u8]>>;

    /// Whether to take a [`Checkpoint`] after the range just given (asked after each).
    fn checkpoint_due(&self) -> bool {
        false
    }

    /// A checkpoint after the range just given: every record before it is in the index
    /// file and durable, and `state` (its lists: what was added since the previous
    /// checkpoint) is what [`Source::Packed`]'s `resume` needs to continue from here.
    fn checkpoint(&mut self, state: Checkpoint) -> io::Result<()> {
        let _ = state;
        Ok(())
    }
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
    /// A saved build state that does not hold together, or the index file it describes
    /// does not match it.
    #[error("the interrupted build's saved state cannot be continued: {0}")]
    Resume(String),
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
    let mut source = source;
    // Packed ranges are appended by a sink that can make them durable at checkpoints,
    // and may continue an interrupted build.
    // The records' lookup block checksums, spooled as the records are written and copied
    // after the other sections at the end.
    let lookup_spool = || {
        tempfile::tempfile_in(spool_dir)
            .map(|f| BlockSums::at(HEADER_SIZE as u64, f))
            .map_err(BuildError::Write)
    };
    let (append, resume) = match &mut source {
        Source::Packed { resume, kind, .. } => match resume.take() {
            Some(cp) => {
                progress.phase("checking the partial index");
                (
                    Some(resume_records(out, *kind, &cp, lookup_spool()?)?),
                    Some(cp),
                )
            }
            None => (Some(lookup_spool()?), None),
        },
        _ => (None, None),
    };
    let fresh_sums = match append {
        Some(_) => None,
        None => Some(lookup_spool()?),
    };
    if resume.is_none() {
        out.set_len(0).map_err(BuildError::Write)?;
        out.seek(SeekFrom::Start(0)).map_err(BuildError::Write)?;
        out.write_all(&[0u8; HEADER_SIZE])
            .map_err(BuildError::Write)?;
    }
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
        Source::Packed {
            ranges, kind, name, ..
        } => (None, Some((ranges, kind, name))),
    };
    let mut lines = 0u64;
    let (writer, sums) = std::thread::scope(|scope| -> Result<_, BuildError> {
        let (rec_tx, rec_rx) = mpsc::sync_channel::<SinkMsg>(3);
        let (free_rec_tx, free_rec_rx) = mpsc::channel::<Vec<u8>>();
        let out_ref = &mut *out;
        let direct = options.direct;
        let sink = scope.spawn(move || match (append, fresh_sums) {
            (Some(start), _) => sink_append(out_ref, rec_rx, free_rec_tx, start),
            (None, Some(sums)) => sink_records(out_ref, rec_rx, free_rec_tx, direct, sums),
            (None, None) => unreachable!("one of the two is made above"),
        });
        let mut writer = Writer::new(spool, options.kind, rec_tx, free_rec_rx);

        if let Some((ranges, kind, name)) = packed.take() {
            let restored = match resume {
                Some(cp) => {
                    lines = cp.lines;
                    writer.restore(kind, *cp)
                }
                None => Ok(()),
            };
            // Packed ranges are read on this thread: no text to split or parse.
            let records_done = restored
                .and_then(|()| feed_packed(ranges, kind, &name, &mut writer, &mut lines))
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
    let (block_sums, lookup_sums) = sums;
    let header = writer.finish(out, block_sums, lookup_sums, partial)?;
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
                    match crate::breach::download::body::read_leb128(
                        &packed[(at + n).min(packed.len())..],
                    ) {
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
        if ranges.checkpoint_due() {
            w.last = last;
            let cp = w.checkpoint(*lines)?;
            ranges
                .checkpoint(cp)
                .map_err(|e| BuildError::Read(name.to_string(), e))?;
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

/// What the index writer hands the sink.
pub(super) enum SinkMsg {
    /// A buffer of records and the length used.
    Records(Vec<u8>, usize),
    /// Make every record so far durable, and answer with the block checksums completed
    /// since the last such request and the checksum of the records after them.
    Sync(mpsc::SyncSender<io::Result<(Vec<u64>, u64)>>),
}

/// The checksums of the records' blocks, as the records come, from file offset `at`:
/// the 16 MiB blocks' (kept), and the lookup blocks' (written to a spool file).
struct BlockSums {
    at: u64,
    block: Xxh3,
    fill: u64,
    sums: Vec<u64>,
    lookup: crate::breach::checked::BlockSummer<io::BufWriter<File>>,
}

impl BlockSums {
    /// No records yet; the next go to offset `at`; lookup block sums go to `spool`.
    fn at(at: u64, spool: File) -> BlockSums {
        BlockSums {
            at,
            block: Xxh3::new(),
            fill: 0,
            sums: Vec::new(),
            lookup: crate::breach::checked::BlockSummer::new(io::BufWriter::with_capacity(
                1 << 16,
                spool,
            )),
        }
    }

    fn add(&mut self, mut data: &[u8]) -> io::Result<()> {
        self.lookup.add(data)?;
        self.at += data.len() as u64;
        while !data.is_empty() {
            let take = ((BLOCK_SIZE - self.fill) as usize).min(data.len());
            self.block.update(&data[..take]);
            self.fill += take as u64;
            if self.fill == BLOCK_SIZE {
                self.sums.push(self.block.digest());
                self.block.reset();
                self.fill = 0;
            }
            data = &data[take..];
        }
        Ok(())
    }

    /// Every block's checksum, the last one partial, and the spool of the lookup
    /// blocks' checksums, complete.
    fn finish(mut self) -> io::Result<(Vec<u64>, File)> {
        if self.fill > 0 {
            self.sums.push(self.block.digest());
        }
        let spool = self
            .lookup
            .finish()?
            .into_inner()
            .map_err(|e| e.into_error())?;
        Ok((self.sums, spool))
    }
}

/// Checks the records an interrupted build left in `out` against its saved state `cp`
/// (every whole block's checksum), and gives the sink's state after them.
fn resume_records(
    out: &File,
    kind: HashKind,
    cp: &Checkpoint,
    mut sums: BlockSums,
) -> Result<BlockSums, BuildError> {
    use std::os::unix::fs::FileExt;
    let size = match cp.table_bits {
        // No record written yet: any size checks the same.
        checkpoint::NOT_CHOSEN => 1,
        b if b > super::format::MAX_TABLE_BITS => {
            return Err(BuildError::Resume("table bits out of range".into()));
        }
        b => super::format::Params::new(kind, b).record_size,
    };
    cp.check(size)?;
    let size = size as u64;
    let end = cp
        .records
        .checked_mul(size)
        .and_then(|b| b.checked_add(HEADER_SIZE as u64))
        .ok_or_else(|| BuildError::Resume("record count out of range".into()))?;
    let len = out.metadata().map_err(BuildError::Write)?.len();
    if len < end {
        return Err(BuildError::Resume(format!(
            "the partial index holds {len} bytes, and its saved state says {end}"
        )));
    }
    let mut buf = vec![0u8; 1 << 20];
    while sums.at < end {
        let n = (buf.len() as u64).min(end - sums.at) as usize;
        out.read_exact_at(&mut buf[..n], sums.at)
            .map_err(BuildError::Write)?;
        let before = sums.sums.len();
        sums.add(&buf[..n]).map_err(BuildError::Write)?;
        for i in before..sums.sums.len() {
            if cp.block_sums.get(i) != Some(&sums.sums[i]) {
                return Err(BuildError::Resume(format!(
                    "block {i} of the partial index's records differs from its saved checksum"
                )));
            }
        }
    }
    if sums.sums.len() != cp.block_sums.len() || sums.block.digest() != cp.tail_sum {
        return Err(BuildError::Resume(format!(
            "block {} of the partial index's records differs from its saved checksum",
            sums.sums.len()
        )));
    }
    Ok(sums)
}

/// Checksums and appends record buffers, past the page cache where the system allows
/// it, from where `sums` is; makes them durable when asked ([`SinkMsg::Sync`]).
fn sink_append(
    out: &File,
    rx: mpsc::Receiver<SinkMsg>,
    free: mpsc::Sender<Vec<u8>>,
    mut sums: BlockSums,
) -> io::Result<(Vec<u64>, File)> {
    let mut told = sums.sums.len();
    let mut append = crate::streams::DirectAppend::new(out.try_clone()?, sums.at)?;
    for msg in rx.iter() {
        match msg {
            SinkMsg::Records(buf, len) => {
                sums.add(&buf[..len])?;
                append.append(&buf[..len])?;
                let _ = free.send(buf);
            }
            SinkMsg::Sync(reply) => {
                if let Err(e) = append.sync() {
                    let _ = reply.send(Err(io::Error::new(e.kind(), e.to_string())));
                    return Err(e);
                }
                let _ = reply.send(Ok((sums.sums[told..].to_vec(), sums.block.digest())));
                told = sums.sums.len();
            }
        }
    }
    append.sync()?;
    // What follows the records has any length: written through the page cache.
    crate::streams::direct_io_off(append.file());
    sums.finish()
}

/// Checksums and writes record buffers in 2 MiB-aligned pieces (so that the built index
/// sits in the page cache in huge folios: see [`ChunkWriter`]), starting writeback
/// every 64 MiB.
fn sink_records(
    out: &mut File,
    rx: mpsc::Receiver<SinkMsg>,
    free: mpsc::Sender<Vec<u8>>,
    direct: bool,
    mut sums: BlockSums,
) -> io::Result<(Vec<u64>, File)> {
    let mut started = 0u64;
    let direct = direct && direct_records(out);
    let mut chunks = if direct {
        ChunkWriter::aligned(&mut *out, HEADER_SIZE as u64)
    } else {
        ChunkWriter::new(&mut *out, HEADER_SIZE as u64)
    };
    for msg in rx.iter() {
        let (buf, len) = match msg {
            SinkMsg::Records(buf, len) => (buf, len),
            SinkMsg::Sync(reply) => {
                let e = || io::Error::other("only packed ranges are built with checkpoints");
                let _ = reply.send(Err(e()));
                return Err(e());
            }
        };
        sums.add(&buf[..len])?;
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
    sums.finish()
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
