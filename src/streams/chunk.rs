//! A writer that hands large files to the kernel in 2 MiB-aligned pieces.

use std::io::{self, Write};

/// The piece size of [`ChunkWriter`]: the size of a huge page on x86-64 and of the
/// largest page-cache folio that Linux maps with one page-table entry.
pub const CHUNK: usize = 2 << 20;

/// A buffered writer whose every write to the inner writer ends on a multiple of
/// [`CHUNK`] of the file offset (except the last, at `flush`).
///
/// Why: Linux file systems with large folios (ext4 on recent kernels, 6.18 here) give a
/// buffered write a page-cache folio no larger than the write and aligned to the file
/// offset. Written in 2 MiB-aligned pieces, a file stays cached in 2 MiB folios, and a
/// memory map of it then uses huge page-table entries, even with random-access advice:
/// random lookups into a freshly built index then miss the TLB as rarely as if it were
/// read into huge pages (`std::io::BufWriter` hands over its buffer wherever it fills,
/// so the pieces straddle the boundaries and the folios stay 4 KiB). Elsewhere it is an
/// ordinary buffered writer.
///
/// Nothing is written when it is dropped: call [`Write::flush`] and check the result.
pub struct ChunkWriter<W: Write> {
    inner: W,
    /// The buffered bytes are `buf[start..]`.
    buf: Vec<u8>,
    /// Where the buffered bytes start in `buf`: 0, or for [`ChunkWriter::aligned`] the
    /// first byte aligned to [`DIRECT_ALIGN`] (the buffer never grows, so it never moves).
    start: usize,
    /// Every write comes from the aligned buffer (none straight from the caller's bytes).
    aligned: bool,
    /// The file offset of `buf[start]`.
    offset: u64,
}

/// The alignment of memory, file offsets and lengths that writes to a file opened for
/// direct I/O (`O_DIRECT`) need on Linux: the page size, which covers every logical
/// block size of the disks in use.
pub const DIRECT_ALIGN: usize = 4096;

impl<W: Write> ChunkWriter<W> {
    /// A writer whose first byte lands at file offset `offset` of `inner`.
    pub fn new(inner: W, offset: u64) -> ChunkWriter<W> {
        ChunkWriter {
            inner,
            buf: Vec::with_capacity(CHUNK),
            start: 0,
            aligned: false,
            offset,
        }
    }

    /// A writer for a file in direct I/O: every piece but the last is written from a
    /// buffer aligned to [`DIRECT_ALIGN`], and starts and ends on multiples of it when
    /// `offset` is one. The last piece (at `flush`) has whatever length is left: the
    /// caller turns direct I/O off before flushing.
    pub fn aligned(inner: W, offset: u64) -> ChunkWriter<W> {
        let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + DIRECT_ALIGN);
        let start = buf.as_ptr().align_offset(DIRECT_ALIGN).min(DIRECT_ALIGN);
        buf.resize(start, 0);
        ChunkWriter {
            inner,
            buf,
            start,
            aligned: true,
            offset,
        }
    }

    /// Bytes buffered.
    fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    /// The file offset of the next byte written.
    pub fn position(&self) -> u64 {
        self.offset + self.buffered() as u64
    }

    /// The file offset up to which bytes have been handed to the inner writer.
    pub fn written(&self) -> u64 {
        self.offset
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// Bytes from `offset` to the next multiple of [`CHUNK`].
    fn to_boundary(&self) -> usize {
        CHUNK - (self.offset % CHUNK as u64) as usize
    }
}

impl<W: Write> Write for ChunkWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    fn write_all(&mut self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            let want = self.to_boundary();
            if !self.aligned && self.buffered() == 0 && data.len() >= want {
                // A whole piece in hand: no copy.
                self.inner.write_all(&data[..want])?;
                self.offset += want as u64;
                data = &data[want..];
                continue;
            }
            let take = (want - self.buffered()).min(data.len());
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.buffered() == want {
                self.inner.write_all(&self.buf[self.start..])?;
                self.offset += want as u64;
                self.buf.truncate(self.start);
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buffered() > 0 {
            self.inner.write_all(&self.buf[self.start..])?;
            self.offset += self.buffered() as u64;
            self.buf.truncate(self.start);
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the length of every write it is given.
    #[derive(Default)]
    struct Pieces {
        data: Vec<u8>,
        writes: Vec<usize>,
    }

    impl Write for Pieces {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.writes.push(buf.len());
            self.data.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
        #[test]
        fn chunk_writer_ends_every_piece_on_a_boundary_and_keeps_the_bytes(
            start in 0u64..3 * CHUNK as u64,
            sizes in proptest::collection::vec(0usize..3 * CHUNK, 0..8),
        ) {
            let mut w = ChunkWriter::new(Pieces::default(), start);
            let mut a = ChunkWriter::aligned(Pieces::default(), start);
            let mut want = Vec::new();
            for (i, n) in sizes.iter().enumerate() {
                let part: Vec<u8> = (0..*n).map(|j| (i * 31 + j) as u8).collect();
                w.write_all(&part).unwrap();
                a.write_all(&part).unwrap();
                want.extend_from_slice(&part);
            }
            a.flush().unwrap();
            // The aligned writer writes the same pieces, from its aligned buffer.
            proptest::prop_assert!(a.inner.data == want);
            proptest::prop_assert_eq!(a.buf.capacity(), CHUNK + DIRECT_ALIGN);
            proptest::prop_assert_eq!((a.buf.as_ptr() as usize + a.start) % DIRECT_ALIGN, 0);
            proptest::prop_assert_eq!(w.position(), start + want.len() as u64);
            w.flush().unwrap();
            let inner = w.inner;
            proptest::prop_assert!(inner.data == want);
            proptest::prop_assert_eq!(&a.inner.writes, &inner.writes);
            // Every piece but the last ends on a multiple of CHUNK.
            let mut at = start;
            for (k, n) in inner.writes.iter().enumerate() {
                at += *n as u64;
                if k + 1 < inner.writes.len() {
                    proptest::prop_assert_eq!(at % CHUNK as u64, 0);
                }
            }
        }
    }
}
