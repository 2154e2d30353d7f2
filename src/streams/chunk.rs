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
    buf: Vec<u8>,
    /// The file offset of `buf[0]`.
    offset: u64,
}

impl<W: Write> ChunkWriter<W> {
    /// A writer whose first byte lands at file offset `offset` of `inner`.
    pub fn new(inner: W, offset: u64) -> ChunkWriter<W> {
        ChunkWriter {
            inner,
            buf: Vec::with_capacity(CHUNK),
            offset,
        }
    }

    /// The file offset of the next byte written.
    pub fn position(&self) -> u64 {
        self.offset + self.buf.len() as u64
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
            if self.buf.is_empty() && data.len() >= want {
                // A whole piece in hand: no copy.
                self.inner.write_all(&data[..want])?;
                self.offset += want as u64;
                data = &data[want..];
                continue;
            }
            let take = (want - self.buf.len()).min(data.len());
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.buf.len() == want {
                self.inner.write_all(&self.buf)?;
                self.offset += want as u64;
                self.buf.clear();
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            self.inner.write_all(&self.buf)?;
            self.offset += self.buf.len() as u64;
            self.buf.clear();
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
            let mut want = Vec::new();
            for (i, n) in sizes.iter().enumerate() {
                let part: Vec<u8> = (0..*n).map(|j| (i * 31 + j) as u8).collect();
                w.write_all(&part).unwrap();
                want.extend_from_slice(&part);
            }
            proptest::prop_assert_eq!(w.position(), start + want.len() as u64);
            w.flush().unwrap();
            let inner = w.inner;
            proptest::prop_assert!(inner.data == want);
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
