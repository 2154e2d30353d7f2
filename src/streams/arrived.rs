//! Reading what has arrived: from a pipe, a socket or a terminal, everything that can be
//! read without waiting, so that a reader can answer a large batch when the writer is
//! ahead and each line as it comes when the writer is slow (or a person typing).

use std::io::{self, Read};
use std::os::fd::AsFd;
use std::time::Duration;

/// A read at least this large says the writer is ahead (it filled the pipe): more is
/// worth waiting for a moment.
const BULK: usize = 64 << 10;

/// How long a reader behind a writer that is ahead waits for its next bytes before it
/// takes what it has: long enough for a writer blocked on a full pipe to be scheduled
/// and write again, short beside any answer a person waits for.
pub const LINGER: Duration = Duration::from_millis(5);

/// Whether `fd` has input (or its end) ready within `within` (zero: now).
pub fn ready_within(fd: impl AsFd, within: Duration) -> io::Result<bool> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    let timeout = Timespec {
        tv_sec: within.as_secs() as i64,
        tv_nsec: i64::from(within.subsec_nanos()),
    };
    loop {
        match poll(&mut fds, Some(&timeout)) {
            Ok(n) => return Ok(n > 0),
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
}

/// Whether `fd` has input (or its end) ready now.
pub fn ready_now(fd: impl AsFd) -> io::Result<bool> {
    ready_within(fd, Duration::ZERO)
}

/// Appends to `buf` what `input` has: waits for the first bytes (or the end), then reads
/// on while more is ready and `buf` holds fewer than `max` bytes. More is ready when it
/// is there at once, or, after a read of a writer that is ahead (a large read), when it
/// comes within `linger`. Returns whether the input ended.
pub fn read_arrived<R: Read + AsFd>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
    linger: Duration,
) -> io::Result<bool> {
    const CHUNK: usize = 1 << 20;
    // The size of the last read (none yet).
    let mut last: Option<usize> = None;
    loop {
        if let Some(n) = last {
            let within = if n >= BULK { linger } else { Duration::ZERO };
            if !ready_within(input.as_fd(), within)? {
                return Ok(false);
            }
        }
        let at = buf.len();
        let room = max.saturating_sub(at).clamp(1, CHUNK);
        buf.resize(at + room, 0);
        let n = loop {
            match input.read(&mut buf[at..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    buf.truncate(at);
                    return Err(e);
                }
            }
        };
        buf.truncate(at + n);
        if n == 0 {
            return Ok(true);
        }
        last = Some(n);
        if buf.len() >= max {
            return Ok(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn takes_what_is_there_without_waiting_for_more() {
        let (r, w) = rustix::pipe::pipe().unwrap();
        let (mut r, mut w) = (std::fs::File::from(r), std::fs::File::from(w));
        w.write_all(b"one\ntwo\n").unwrap();
        let mut buf = Vec::new();
        // The writer is still open: this returns with what is there, not waiting.
        assert!(!read_arrived(&mut r, &mut buf, 1 << 20, Duration::ZERO).unwrap());
        assert_eq!(buf, b"one\ntwo\n");
        assert!(!ready_now(&r).unwrap());
        // At most `max` bytes past what the buffer held, then the end.
        w.write_all(b"three\nfour\n").unwrap();
        drop(w);
        assert!(!read_arrived(&mut r, &mut buf, 12, Duration::ZERO).unwrap());
        assert_eq!(buf, b"one\ntwo\nthre");
        assert!(read_arrived(&mut r, &mut buf, 1 << 20, Duration::ZERO).unwrap());
        assert_eq!(buf, b"one\ntwo\nthree\nfour\n");
    }

    #[test]
    fn waits_for_the_first_bytes() {
        let (r, w) = rustix::pipe::pipe().unwrap();
        let (mut r, mut w) = (std::fs::File::from(r), std::fs::File::from(w));
        let writer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            w.write_all(b"late\n").unwrap();
            w
        });
        let mut buf = Vec::new();
        assert!(!read_arrived(&mut r, &mut buf, 1 << 20, Duration::ZERO).unwrap());
        assert_eq!(buf, b"late\n");
        drop(writer.join().unwrap());
        assert!(read_arrived(&mut r, &mut buf, 1 << 20, Duration::ZERO).unwrap());
        assert_eq!(buf, b"late\n");
    }

    #[test]
    fn lingers_only_behind_a_writer_that_is_ahead() {
        // A large read, then more within the linger: one batch. A small read: no wait.
        let (r, w) = rustix::pipe::pipe().unwrap();
        let _ = rustix::pipe::fcntl_setpipe_size(&w, 1 << 20);
        let (mut r, mut w) = (std::fs::File::from(r), std::fs::File::from(w));
        let big = vec![b'x'; BULK];
        w.write_all(&big).unwrap();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            w.write_all(b"more\n").unwrap();
            std::thread::sleep(Duration::from_millis(500));
            w.write_all(b"late\n").unwrap();
            w
        });
        let mut buf = Vec::new();
        let linger = Duration::from_secs(2);
        assert!(!read_arrived(&mut r, &mut buf, 4 << 20, linger).unwrap());
        assert_eq!(
            buf.len(),
            BULK + 5,
            "the bytes 30 ms later came into the batch"
        );
        // "more" was a small read: no lingering for "late", 500 ms later.
        assert!(buf.ends_with(b"more\n"));
        let w = writer.join().unwrap();
        buf.clear();
        assert!(!read_arrived(&mut r, &mut buf, 4 << 20, linger).unwrap());
        assert_eq!(buf, b"late\n");
        drop(w);
    }
}
