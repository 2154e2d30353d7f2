//! Writing a bodies file: every prefix's range body made from the index, compressed,
//! decoded again and compared with the body before it is kept.

use super::{ENTRY, FRAMES_AT, HEADER_SIZE, HEADER_USED, INDEX_AT, INDEX_HEADER, TABLE_LEN};
use crate::breach::format::PREFIXES;
use crate::breach::index::{Index, IndexError};
use crate::progress::Progress;
use std::io::{Seek, SeekFrom, Write};
use xxhash_rust::xxh3::xxh3_64;

/// Prefixes a thread compresses at a time.
const BATCH: u32 = 1024;

/// What was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteSummary {
    /// Hashes in the bodies.
    pub hashes: u64,
    /// Bytes of the bodies, uncompressed.
    pub body_bytes: u64,
    /// Bytes of the frames.
    pub frame_bytes: u64,
    /// The file's length.
    pub file_len: u64,
}

/// Why writing failed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The index is damaged.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Writing (or compressing) failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A level Zstandard does not have.
    #[error("Zstandard has no level {0} (1 to 22)")]
    Level(i32),
    /// A frame did not decode to its body: never kept.
    #[error("the frame of prefix {0:05X} did not decode to its body")]
    Mismatch(u32),
}

/// One batch's frames and table entries.
struct Batch {
    frames: Vec<u8>,
    /// Per prefix: frame length, body XXH3-64, frame XXH3-64.
    entries: Vec<(u64, u64, u64)>,
    hashes: u64,
    body_bytes: u64,
}

fn compress_batch(index: &Index, level: i32, first: u32) -> Result<Batch, WriteError> {
    let mut c = zstd::bulk::Compressor::new(level)?;
    c.include_checksum(true)?;
    c.include_contentsize(true)?;
    let mut d = zstd::bulk::Decompressor::new()?;
    let mut batch = Batch {
        frames: Vec::new(),
        entries: Vec::with_capacity(BATCH as usize),
        hashes: 0,
        body_bytes: 0,
    };
    let mut body = Vec::with_capacity(8 << 10);
    let mut back = Vec::with_capacity(8 << 10);
    for p in first..(first + BATCH).min(PREFIXES) {
        body.clear();
        batch.hashes += crate::breach::ranges::range_body(index, p, &mut body)?;
        let frame = c.compress(&body)?;
        back.clear();
        back.reserve(body.len());
        d.decompress_to_buffer(&frame, &mut back)?;
        if back != body {
            return Err(WriteError::Mismatch(p));
        }
        batch.body_bytes += body.len() as u64;
        batch
            .entries
            .push((frame.len() as u64, xxh3_64(&body), xxh3_64(&frame)));
        batch.frames.extend_from_slice(&frame);
    }
    Ok(batch)
}

/// Writes the bodies file of `index` to `out` (from its start) with Zstandard at `level`,
/// on `threads` threads; progress in prefixes (after the bytes of a whole verification
/// for an index of format 1 or 2, whose records lookups do not check).
pub fn write(
    index: &Index,
    level: i32,
    threads: usize,
    out: &mut (impl Write + Seek),
    progress: &dyn Progress,
) -> Result<WriteSummary, WriteError> {
    if !(1..=22).contains(&level) {
        return Err(WriteError::Level(level));
    }
    let threads = threads.max(1) as u32;
    if index.needs_whole_check() {
        // Records of older formats are not checked as they are read: every block is
        // checked first, so that no frame is made from a byte nobody checked.
        progress.phase("verifying");
        index.verify(progress)?;
        progress.phase("compressing");
    }
    progress.restart(u64::from(PREFIXES));
    out.seek(SeekFrom::Start(0))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut *out);
    w.write_all(&vec![0u8; FRAMES_AT])?;
    let mut table = vec![0u8; TABLE_LEN];
    let (mut end, mut hashes, mut body_bytes) = (0u64, 0u64, 0u64);
    let mut next = 0u32;
    while next < PREFIXES {
        // A round of one batch a thread, written in order.
        let firsts: Vec<u32> = (0..threads)
            .map(|t| next + t * BATCH)
            .filter(|&f| f < PREFIXES)
            .collect();
        let batches: Vec<Result<Batch, WriteError>> = std::thread::scope(|s| {
            let handles: Vec<_> = firsts
                .iter()
                .map(|&f| s.spawn(move || compress_batch(index, level, f)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
        for (first, batch) in firsts.iter().zip(batches) {
            let batch = batch?;
            w.write_all(&batch.frames)?;
            for (i, (len, body_sum, frame_sum)) in batch.entries.iter().enumerate() {
                end += len;
                let at = (*first as usize + i) * ENTRY;
                table[at..at + 8].copy_from_slice(&end.to_le_bytes());
                table[at + 8..at + 16].copy_from_slice(&body_sum.to_le_bytes());
                table[at + 16..at + 24].copy_from_slice(&frame_sum.to_le_bytes());
            }
            hashes += batch.hashes;
            body_bytes += batch.body_bytes;
            progress.advance(batch.entries.len() as u64);
        }
        next += threads * BATCH;
    }
    w.flush()?;
    drop(w);
    let file_len = FRAMES_AT as u64 + end;
    let mut header = vec![0u8; HEADER_SIZE];
    header[..8].copy_from_slice(super::MAGIC);
    header[8..12].copy_from_slice(&super::VERSION.to_le_bytes());
    header[12] = match index.kind() {
        crate::breach::HashKind::Sha1 => 1,
        crate::breach::HashKind::Ntlm => 2,
    };
    header[13] = super::CODING_ZSTD;
    header[16..20].copy_from_slice(&level.to_le_bytes());
    let fields = [
        u64::from(PREFIXES),
        HEADER_SIZE as u64,
        TABLE_LEN as u64,
        FRAMES_AT as u64,
        end,
        file_len,
        xxh3_64(&table),
        hashes,
        body_bytes,
    ];
    for (i, v) in fields.iter().enumerate() {
        header[24 + 8 * i..32 + 8 * i].copy_from_slice(&v.to_le_bytes());
    }
    header[INDEX_AT..INDEX_AT + INDEX_HEADER].copy_from_slice(&index.bytes()[..INDEX_HEADER]);
    let sum = xxh3_64(&header[..HEADER_USED]);
    header[HEADER_USED..HEADER_USED + 8].copy_from_slice(&sum.to_le_bytes());
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&header)?;
    out.write_all(&table)?;
    out.flush()?;
    Ok(WriteSummary {
        hashes,
        body_bytes,
        frame_bytes: end,
        file_len,
    })
}
