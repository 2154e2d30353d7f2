//! Appending to a file past the page cache (Linux `O_DIRECT`), for files written once and
//! read back only after a crash, such as the download journal: copying them into the
//! page cache costs a second of CPU per gigabyte on the virtual machines measured here,
//! and they would only push out data that is read.
//!
//! The bytes are gathered in a buffer aligned to [`DIRECT_ALIGN`] and written in pieces
//! of [`PIECE`] bytes at aligned file offsets. [`DirectAppend::sync`] makes the bytes
//! appended so far durable: it writes the partial last piece padded with zeros to a
//! whole block, cuts the file back to its true length and waits for the disk. A crash
//! between the two leaves zeros after the true end, which a reader of an append-only log
//! must take for a cut-off write (the journal does: its entries are checksummed).
//!
//! Where direct I/O is refused (another system, a file system without it), the same
//! writes go through the page cache.

use super::DIRECT_ALIGN;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// The size of the pieces written.
pub const PIECE: usize = 1 << 20;

/// Turns direct I/O on for `file` (Linux `O_DIRECT`) and runs `prove`, a first write
/// through it: whether direct I/O is now on. Where the system refuses either, the file
/// is left as it was (page cache).
pub fn direct_io_on(file: &File, prove: impl FnOnce(&File) -> io::Result<()>) -> bool {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
        let Ok(flags) = fcntl_getfl(file) else {
            return false;
        };
        if fcntl_setfl(file, flags | OFlags::DIRECT).is_err() {
            return false;
        }
        if prove(file).is_ok() {
            return true;
        }
        let _ = fcntl_setfl(file, flags);
        false
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, prove);
        false
    }
}

/// Turns direct I/O off for `file` (writes of any length go through the page cache).
pub fn direct_io_off(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
        if let Ok(flags) = fcntl_getfl(file) {
            let _ = fcntl_setfl(file, flags - OFlags::DIRECT);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// An appender to a file, past the page cache where the system allows it.
pub struct DirectAppend {
    file: File,
    /// The buffer; its window `buf[start..start + PIECE]` is aligned.
    buf: Vec<u8>,
    start: usize,
    /// Bytes in the window, which belong at file offset `base`.
    len: usize,
    /// An aligned file offset.
    base: u64,
    direct: bool,
}

impl DirectAppend {
    /// Appends to `file` from offset `end` (its length: anything after is cut off at the
    /// first [`DirectAppend::sync`]). The file must be open for reading and writing.
    pub fn new(file: File, end: u64) -> io::Result<DirectAppend> {
        let base = end - end % DIRECT_ALIGN as u64;
        let len = (end - base) as usize;
        let mut buf: Vec<u8> = vec![0; PIECE + DIRECT_ALIGN];
        let start = buf.as_ptr().align_offset(DIRECT_ALIGN).min(DIRECT_ALIGN);
        // The partial block the next bytes continue: read back, to be written whole.
        file.read_exact_at(&mut buf[start..start + len], base)?;
        let mut a = DirectAppend {
            file,
            buf,
            start,
            len,
            base,
            direct: false,
        };
        a.direct = a.turn_direct_on();
        Ok(a)
    }

    /// Whether direct I/O is in use.
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    /// Turns direct I/O on, proved by rewriting the partial block as it is.
    fn turn_direct_on(&mut self) -> bool {
        let w = &self.buf[self.start..self.start + DIRECT_ALIGN];
        let (base, end) = (self.base, self.base + self.len as u64);
        direct_io_on(&self.file, |f| {
            f.write_all_at(w, base)?;
            f.set_len(end)
        })
    }

    /// Appends `data` (buffered: [`DirectAppend::sync`] makes it durable).
    pub fn append(&mut self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            let take = (PIECE - self.len).min(data.len());
            let at = self.start + self.len;
            self.buf[at..at + take].copy_from_slice(&data[..take]);
            self.len += take;
            data = &data[take..];
            if self.len == PIECE {
                self.file
                    .write_all_at(&self.buf[self.start..self.start + PIECE], self.base)?;
                self.base += PIECE as u64;
                self.len = 0;
            }
        }
        Ok(())
    }

    /// The file.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The file offset of the next byte appended.
    pub fn position(&self) -> u64 {
        self.base + self.len as u64
    }

    /// Writes what is buffered and waits for the disk.
    pub fn sync(&mut self) -> io::Result<()> {
        if self.len > 0 {
            let whole = if self.direct {
                self.len.next_multiple_of(DIRECT_ALIGN)
            } else {
                self.len
            };
            let w = &mut self.buf[self.start..self.start + whole];
            w[self.len..].fill(0);
            self.file.write_all_at(w, self.base)?;
        }
        self.file.set_len(self.position())?;
        self.file.sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, Write};

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        #[test]
        fn appends_and_syncs_leave_exactly_the_bytes(
            head in 0usize..3 * DIRECT_ALIGN,
            parts in proptest::collection::vec((0usize..PIECE * 2 + 100, proptest::prelude::any::<bool>()), 0..6),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("log");
            let mut want: Vec<u8> = (0..head).map(|i| i as u8 ^ 0x5a).collect();
            // A file with more after the end given, which is cut off.
            let mut f = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&path).unwrap();
            f.write_all(&want).unwrap();
            f.write_all(b"left over by a crash").unwrap();
            let mut a = DirectAppend::new(f, head as u64).unwrap();
            for (i, (n, sync)) in parts.iter().enumerate() {
                let part: Vec<u8> = (0..*n).map(|j| (i * 7 + j) as u8).collect();
                a.append(&part).unwrap();
                want.extend_from_slice(&part);
                proptest::prop_assert_eq!(a.position(), want.len() as u64);
                if *sync {
                    a.sync().unwrap();
                    let got = std::fs::read(&path).unwrap();
                    proptest::prop_assert!(got == want, "after a sync");
                }
            }
            a.sync().unwrap();
            let mut got = Vec::new();
            let mut f = std::fs::File::open(&path).unwrap();
            f.rewind().unwrap();
            f.read_to_end(&mut got).unwrap();
            proptest::prop_assert!(got == want);
        }
    }
}
