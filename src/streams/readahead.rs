//! A reader that reads ahead on a thread of its own, so that the kernel's copy of the
//! next chunk of a large input runs on another core while this one works on the last.

use std::io::{self, Read};
use std::ops::Range;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};

/// Chunks read but not yet taken: with the one being read and the one being taken, at
/// most `QUEUED + 2` chunks of memory are held.
const QUEUED: usize = 2;

/// A [`Read`] whose reads are made ahead of time by a thread that owns the inner reader.
///
/// Bytes come out in order and unchanged; the inner reader's error is returned in its
/// place in the stream (after every byte read before it), and the stream ends there. A
/// read of the inner reader interrupted by a signal is retried. The thread stops at the
/// end of the input, at an error, or when this reader is dropped and it has a chunk to
/// hand over. A drop after the end (or the error) joins it; an earlier one does not, so
/// that a thread waiting on a read that never returns (a terminal) does not hold it up.
pub struct ReadAhead {
    filled: Receiver<io::Result<(Vec<u8>, usize)>>,
    spare: SyncSender<Vec<u8>>,
    cur: Vec<u8>,
    /// Bytes of `cur` that hold input, and how many of them were taken.
    len: usize,
    pos: usize,
    done: bool,
    /// The reading thread, joined on drop once the stream has ended (it has sent its
    /// last message and is returning), left to end by itself otherwise.
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ReadAhead {
    /// Starts reading `inner` in chunks of `chunk` bytes (at least 1).
    pub fn new<R: Read + Send + 'static>(mut inner: R, chunk: usize) -> ReadAhead {
        let chunk = chunk.max(1);
        let (to_reader, filled) = sync_channel(QUEUED);
        let (spare, spares) = sync_channel::<Vec<u8>>(QUEUED + 2);
        let started = std::thread::Builder::new()
            .name("reader".into())
            .spawn(move || {
                loop {
                    let mut buf = match spares.try_recv() {
                        Ok(b) => b,
                        Err(TryRecvError::Empty | TryRecvError::Disconnected) => vec![0; chunk],
                    };
                    let got = loop {
                        match inner.read(&mut buf) {
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                            other => break other,
                        }
                    };
                    let last = !matches!(got, Ok(n) if n > 0);
                    if to_reader.send(got.map(|n| (buf, n))).is_err() || last {
                        return;
                    }
                }
            });
        // As for the threaded writer: a process that cannot start a thread cannot run.
        let thread = started.expect("a thread can be started");
        ReadAhead {
            filled,
            spare,
            cur: Vec::new(),
            len: 0,
            pos: 0,
            done: false,
            thread: Some(thread),
        }
    }

    /// Hands a used buffer back to the thread for reuse.
    fn give_back(&self, used: Vec<u8>) {
        if !used.is_empty() {
            // Full (the reader has its spares) or gone: the buffer is dropped.
            let _ = self.spare.try_send(used);
        }
    }

    /// Takes the next chunk from the thread (handing `used` back to it for reuse) unless
    /// the stream has ended; an error ends the stream.
    fn refill(&mut self, used: Vec<u8>) -> io::Result<()> {
        self.give_back(used);
        if self.done {
            return Ok(());
        }
        match self.filled.recv() {
            Ok(Ok((buf, n))) => {
                self.cur = buf;
                (self.len, self.pos) = (n, 0);
                self.done = n == 0;
                Ok(())
            }
            Ok(Err(e)) => {
                self.done = true;
                Err(e)
            }
            Err(_) => {
                // The thread ended without saying why: it panicked.
                self.done = true;
                Err(io::Error::other("the reading thread stopped"))
            }
        }
    }

    /// The input's next bytes as a whole chunk instead of a copy: the chunk's buffer and
    /// the part of it that holds them (empty at the end of the input), in order with what
    /// [`Read::read`] gave before. `used`, a buffer an earlier call returned (or an empty
    /// one), goes back to the reading thread for reuse.
    pub fn next_chunk(&mut self, used: Vec<u8>) -> io::Result<(Vec<u8>, Range<usize>)> {
        if self.pos == self.len {
            let cur = std::mem::take(&mut self.cur);
            self.refill(cur)?;
        }
        self.give_back(used);
        let range = self.pos..self.len;
        self.pos = self.len;
        Ok((std::mem::take(&mut self.cur), range))
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        if self.done
            && let Some(t) = self.thread.take()
        {
            // Its last send is made: it is returning, not waiting on the input.
            let _ = t.join();
        }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        while self.pos == self.len {
            if self.done {
                return Ok(0);
            }
            let used = std::mem::take(&mut self.cur);
            self.refill(used)?;
        }
        let n = out.len().min(self.len - self.pos);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A reader that hands out its bytes in the given read sizes, with an interruption
    /// before each read and, optionally, an error after `fail_at` bytes.
    struct Choppy {
        data: Vec<u8>,
        at: usize,
        sizes: Vec<usize>,
        turn: usize,
        interrupted: bool,
        fail_at: Option<usize>,
    }

    impl Read for Choppy {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            self.interrupted = !self.interrupted;
            if self.interrupted {
                return Err(io::ErrorKind::Interrupted.into());
            }
            if self.fail_at.is_some_and(|f| self.at >= f) {
                return Err(io::Error::other("broken disk"));
            }
            let size = self.sizes[self.turn % self.sizes.len()];
            self.turn += 1;
            let end = (self.at + size.min(out.len()))
                .min(self.data.len())
                .min(self.fail_at.unwrap_or(usize::MAX).max(self.at + 1));
            let n = end - self.at;
            out[..n].copy_from_slice(&self.data[self.at..end]);
            self.at = end;
            Ok(n)
        }
    }

    impl Choppy {
        /// `data` in reads of `sizes` in turn, failing at `fail_at`.
        fn new(data: &[u8], sizes: Vec<usize>, fail_at: Option<usize>) -> Choppy {
            Choppy {
                data: data.to_vec(),
                at: 0,
                sizes,
                turn: 0,
                interrupted: false,
                fail_at,
            }
        }
    }

    /// `got` and `err` are `data`, or every byte of it before `fail_at` and then the
    /// error itself.
    fn same_stream(
        got: &[u8],
        err: Option<io::Error>,
        data: &[u8],
        fail_at: Option<usize>,
    ) -> Result<(), TestCaseError> {
        match fail_at {
            None => {
                prop_assert!(err.is_none());
                prop_assert_eq!(got, data);
            }
            Some(f) => {
                prop_assert_eq!(got, &data[..f]);
                prop_assert_eq!(err.expect("an error").to_string(), "broken disk");
            }
        }
        Ok(())
    }

    fn read_all(r: &mut ReadAhead, sizes: &[usize]) -> (Vec<u8>, Option<io::Error>) {
        let mut got = Vec::new();
        let mut turn = 0;
        loop {
            let mut buf = vec![0u8; sizes[turn % sizes.len()]];
            turn += 1;
            match r.read(&mut buf) {
                Ok(0) => return (got, None),
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) => return (got, Some(e)),
            }
        }
    }

    proptest! {
        #[test]
        fn the_bytes_come_through_in_order(
            data in proptest::collection::vec(any::<u8>(), 0..20_000),
            inner_sizes in proptest::collection::vec(1usize..5_000, 1..8),
            outer_sizes in proptest::collection::vec(1usize..7_000, 1..8),
            chunk in 1usize..9_000,
            fail in proptest::option::of(0usize..20_000),
        ) {
            let fail_at = fail.map(|f| f.min(data.len()));
            let mut r = ReadAhead::new(Choppy::new(&data, inner_sizes, fail_at), chunk);
            let (got, err) = read_all(&mut r, &outer_sizes);
            same_stream(&got, err, &data, fail_at)?;
            // The end (or the error) is final.
            prop_assert_eq!(r.read(&mut [0u8; 16]).unwrap(), 0);
        }
    }

    proptest! {
        /// Reads and whole chunks taken in any mix give the bytes in order, and the
        /// error in its place.
        #[test]
        fn chunks_and_reads_mixed_come_through_in_order(
            data in proptest::collection::vec(any::<u8>(), 0..20_000),
            inner_sizes in proptest::collection::vec(1usize..5_000, 1..8),
            takes in proptest::collection::vec(proptest::option::of(1usize..7_000), 1..8),
            chunk in 1usize..9_000,
            fail in proptest::option::of(0usize..20_000),
        ) {
            let fail_at = fail.map(|f| f.min(data.len()));
            let mut r = ReadAhead::new(Choppy::new(&data, inner_sizes, fail_at), chunk);
            let mut got = Vec::new();
            let mut used = Vec::new();
            let mut err = None;
            for turn in 0.. {
                let step = match takes[turn % takes.len()] {
                    // A read of this many bytes.
                    Some(n) => {
                        let mut buf = vec![0u8; n];
                        r.read(&mut buf).map(|k| {
                            got.extend_from_slice(&buf[..k]);
                            k > 0
                        })
                    }
                    // A whole chunk.
                    None => r.next_chunk(std::mem::take(&mut used)).map(|(c, at)| {
                        let more = !at.is_empty();
                        got.extend_from_slice(&c[at]);
                        used = c;
                        more
                    }),
                };
                match step {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        err = Some(e);
                        break;
                    }
                }
            }
            same_stream(&got, err, &data, fail_at)?;
            let (_, at) = r.next_chunk(used).unwrap();
            prop_assert!(at.is_empty());
        }
    }

    /// A reader of a few bytes that, when its thread drops it, takes a while and then
    /// says so.
    struct SlowToEnd(
        io::Cursor<Vec<u8>>,
        std::sync::Arc<std::sync::atomic::AtomicBool>,
    );

    impl Read for SlowToEnd {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            self.0.read(out)
        }
    }

    impl Drop for SlowToEnd {
        fn drop(&mut self) {
            std::thread::sleep(std::time::Duration::from_millis(50));
            self.1.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[test]
    fn a_drop_after_the_end_joins_the_thread() {
        let ended = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut r = ReadAhead::new(
            SlowToEnd(io::Cursor::new(b"abc".to_vec()), ended.clone()),
            2,
        );
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"abc");
        drop(r);
        assert!(ended.load(std::sync::atomic::Ordering::SeqCst));
    }

    #[test]
    fn dropping_it_early_does_not_wait_for_the_input() {
        // An input that never ends: the thread is left reading it.
        let mut r = ReadAhead::new(io::repeat(7), 1 << 16);
        let mut buf = [0u8; 10];
        assert_eq!(r.read(&mut buf).unwrap(), 10);
        assert_eq!(buf, [7; 10]);
        drop(r);
    }
}
