//! The rows' output of the field commands: whole rows only, in pieces.

use super::FieldError;
use std::io::Write;

/// The output of the rows: written in pieces of 64 KiB and at the end. A run that stops
/// at a bad row still writes the whole rows before it (not the bad row's first fields),
/// as encode and decode write the lines before a bad one.
pub struct RowsOut<'a> {
    buf: Vec<u8>,
    /// The length of `buf` up to the last whole row.
    good: usize,
    output: &'a mut dyn Write,
    finished: bool,
}

impl<'a> RowsOut<'a> {
    pub fn new(output: &'a mut dyn Write) -> RowsOut<'a> {
        RowsOut {
            buf: Vec::with_capacity(1 << 16),
            good: 0,
            output,
            finished: false,
        }
    }

    /// Everything so far is whole rows.
    pub fn mark(&mut self) {
        self.good = self.buf.len();
    }

    /// Writes what is held once it reaches 64 KiB (called after a whole row).
    pub fn spill(&mut self) -> Result<(), FieldError> {
        if self.buf.len() >= 1 << 16 {
            self.output
                .write_all(&self.buf)
                .map_err(FieldError::Write)?;
            self.buf.clear();
            self.good = 0;
        }
        Ok(())
    }

    /// Writes the rest, and flushes.
    pub fn finish(mut self) -> Result<(), FieldError> {
        self.finished = true;
        self.output
            .write_all(&self.buf)
            .map_err(FieldError::Write)?;
        self.output.flush().map_err(FieldError::Write)
    }
}

impl std::ops::Deref for RowsOut<'_> {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.buf
    }
}

impl std::ops::DerefMut for RowsOut<'_> {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }
}

impl Drop for RowsOut<'_> {
    fn drop(&mut self) {
        if !self.finished {
            // Stopped at a bad row (its error is being returned): the rows before it.
            let _ = self.output.write_all(&self.buf[..self.good]);
            let _ = self.output.flush();
        }
    }
}
