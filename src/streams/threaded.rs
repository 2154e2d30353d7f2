//! A writer that hands full buffers to a thread of its own, so that the system calls
//! and the kernel's copy of the output run beside the work that produces the next
//! buffer (on two cores, `encode` through a pipe spends a fifth of its time in writes).

use std::io::{self, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Buffers in flight between the producer and the writing thread.
const IN_FLIGHT: usize = 2;

/// Writes to `inner` on a thread of its own, in buffers of `capacity` bytes. Bytes reach
/// `inner` in order; an error of the thread (a broken pipe included, with its kind) is
/// returned by the next `write` or `flush`, and nothing more is written after it.
pub struct ThreadedWriter {
    buf: Vec<u8>,
    capacity: usize,
    to_thread: Option<SyncSender<Vec<u8>>>,
    spare: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<io::Result<()>>>,
}

/// A flush request: an empty buffer, answered once every earlier one is written.
fn is_flush(b: &[u8]) -> bool {
    b.is_empty()
}

impl ThreadedWriter {
    /// Starts the writing thread.
    pub fn new<W: Write + Send + 'static>(mut inner: W, capacity: usize) -> ThreadedWriter {
        let (tx, rx) = sync_channel::<Vec<u8>>(IN_FLIGHT);
        let (back_tx, back_rx) = sync_channel::<Vec<u8>>(IN_FLIGHT + 2);
        let thread = std::thread::Builder::new()
            .name("writer".into())
            .spawn(move || -> io::Result<()> {
                for b in rx {
                    if is_flush(&b) {
                        inner.flush()?;
                        // The producer waits for this one: it must arrive.
                        if back_tx.send(b).is_err() {
                            break;
                        }
                        continue;
                    }
                    inner.write_all(&b)?;
                    // A spare for the producer, unless it has enough. Its bytes are left
                    // in it: `write` clears it, `hand_off`'s caller overwrites them.
                    let _ = back_tx.try_send(b);
                }
                inner.flush()
            })
            .expect("a thread can be started");
        ThreadedWriter {
            buf: Vec::with_capacity(capacity),
            capacity,
            to_thread: Some(tx),
            spare: back_rx,
            thread: Some(thread),
        }
    }

    /// The thread's error, once it has stopped.
    fn thread_error(&mut self) -> io::Error {
        self.to_thread = None;
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(Err(e))) => e,
            _ => io::Error::other("the output thread stopped"),
        }
    }

    fn send(&mut self, b: Vec<u8>) -> io::Result<()> {
        let sent = match &self.to_thread {
            Some(tx) => tx.send(b).is_ok(),
            None => false,
        };
        if sent {
            Ok(())
        } else {
            Err(self.thread_error())
        }
    }

    fn ship(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let mut next = self
            .spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(self.capacity));
        next.clear();
        let full = std::mem::replace(&mut self.buf, next);
        self.send(full)
    }

    /// Writes everything and waits for the thread to end; its error, if any.
    pub fn finish(mut self) -> io::Result<()> {
        self.ship()?;
        self.to_thread = None;
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(io::Error::other("the output thread panicked")),
            None => Ok(()),
        }
    }
}

impl super::Handoff for ThreadedWriter {
    /// `buf` goes to the thread as it is (after what is buffered), and a spare buffer,
    /// with the bytes it last carried, takes its place: no copy.
    fn hand_off(&mut self, buf: &mut Vec<u8>) -> io::Result<()> {
        if self.to_thread.is_none() {
            return Err(self.thread_error());
        }
        if buf.is_empty() {
            return Ok(());
        }
        self.ship()?;
        let next = self.spare.try_recv().unwrap_or_default();
        let full = std::mem::replace(buf, next);
        self.send(full)
    }
}

impl Write for ThreadedWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.to_thread.is_none() {
            return Err(self.thread_error());
        }
        self.buf.extend_from_slice(data);
        if self.buf.len() >= self.capacity {
            self.ship()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.ship()?;
        self.send(Vec::new())?;
        // Wait until the thread has written and flushed everything sent so far: it
        // sends the flush request's buffer back last.
        loop {
            match self.spare.recv() {
                Ok(b) if b.capacity() == 0 => return Ok(()),
                Ok(_) => {}
                Err(_) => return Err(self.thread_error()),
            }
        }
    }
}

impl Drop for ThreadedWriter {
    /// Like `BufWriter`'s: what is buffered is still written (errors ignored; call
    /// `flush` or `finish` to see them), and the thread is waited for.
    fn drop(&mut self) {
        if self.to_thread.is_some() {
            let _ = self.ship();
        }
        self.to_thread = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    proptest::proptest! {
        #[test]
        fn bytes_arrive_in_order(pieces in proptest::collection::vec(proptest::collection::vec(0u8..255, 0..300), 0..60), cap in 1usize..700) {
            let sink = Shared::default();
            let mut w = ThreadedWriter::new(sink.clone(), cap);
            let mut want = Vec::new();
            for (i, p) in pieces.iter().enumerate() {
                if i % 3 == 1 {
                    // Whole buffers handed over, between bytes written.
                    let mut b = p.clone();
                    super::super::Handoff::hand_off(&mut w, &mut b).unwrap();
                } else {
                    w.write_all(p).unwrap();
                }
                want.extend_from_slice(p);
                if i % 7 == 3 {
                    w.flush().unwrap();
                    proptest::prop_assert_eq!(&*sink.0.lock().unwrap(), &want);
                }
            }
            w.finish().unwrap();
            proptest::prop_assert_eq!(&*sink.0.lock().unwrap(), &want);
        }
    }

    /// Dropped without `flush` or `finish`, the writer still writes what it buffered,
    /// as `BufWriter` does.
    #[test]
    fn dropping_writes_what_is_buffered() {
        let sink = Shared::default();
        let mut w = ThreadedWriter::new(sink.clone(), 1 << 20);
        w.write_all(b"not yet a full buffer\n").unwrap();
        drop(w);
        assert_eq!(&*sink.0.lock().unwrap(), b"not yet a full buffer\n");
    }

    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_broken_pipe_comes_back_with_its_kind() {
        let mut w = ThreadedWriter::new(Broken, 4);
        let mut err = None;
        for _ in 0..100 {
            if let Err(e) = w.write_all(b"12345678") {
                err = Some(e);
                break;
            }
        }
        let e = err.or_else(|| w.flush().err()).expect("an error");
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }
}
