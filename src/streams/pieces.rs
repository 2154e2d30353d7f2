//! A reader for tests: its bytes in pieces of the given sizes, in turn, as a pipe or a
//! socket hands them out, so that readers are seen to carry lines and records across
//! short reads.

use std::io::{self, Read};

/// Reads `bytes` at most `sizes[i]` bytes a call, taking the sizes in turn.
pub(crate) struct Pieces<'a> {
    bytes: &'a [u8],
    sizes: Vec<usize>,
    turn: usize,
}

impl<'a> Pieces<'a> {
    /// A reader of `bytes` in pieces of `sizes` (not empty; each at least 1).
    pub(crate) fn new(bytes: &'a [u8], sizes: Vec<usize>) -> Pieces<'a> {
        assert!(
            !sizes.is_empty() && !sizes.contains(&0),
            "pieces of 1 byte or more"
        );
        Pieces {
            bytes,
            sizes,
            turn: 0,
        }
    }
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.turn % self.sizes.len()];
        self.turn += 1;
        let n = size.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}
