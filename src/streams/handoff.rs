//! Outputs that can take over a filled buffer instead of copying it: the ids stream fills
//! a buffer with a batch of lines, and the threaded writer swaps it for an empty one
//! (copying it cost a sixth of `encode`'s time).

use std::io::{self, LineWriter, Write};

/// A [`Write`] that can also take a whole buffer.
pub trait Handoff: Write {
    /// Writes all of `buf`. Afterwards `buf` may be another buffer, holding bytes of no
    /// meaning and of any length, for the caller to overwrite (so that a buffer's bytes
    /// need not be zeroed again each time it comes back); by default the bytes are
    /// written with [`Write::write_all`] and `buf` is left as it was.
    fn hand_off(&mut self, buf: &mut Vec<u8>) -> io::Result<()> {
        self.write_all(buf)
    }
}

impl Handoff for Vec<u8> {}
impl<W: Write> Handoff for LineWriter<W> {}

impl<T: Handoff + ?Sized> Handoff for Box<T> {
    fn hand_off(&mut self, buf: &mut Vec<u8>) -> io::Result<()> {
        (**self).hand_off(buf)
    }
}
