//! Fetched ranges handed from the fetching thread to the build's thread.
//!
//! Ranges arrive in any order; the build takes them in prefix order. A channel woke the
//! build's thread for nearly every arrival (a futex call by the fetching thread and a
//! context switch each). The inbox wakes it when the range it waits for has arrived
//! together with a batch of arrivals in all (at most [`BATCH`]: fewer for a sender that
//! holds back fewer), or [`GATHER`] after the range it waits for arrived, whichever is
//! first; at once for an urgent arrival (a failure) or the end of the fetching. A
//! receiver that finds a batch waiting (it is the slower side) does not wait at all.
//! Memory stays bounded by what the sender holds back (the download's window).

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The most arrivals a take waits for.
pub const BATCH: usize = 16;

/// The longest a take waits for more arrivals once the one it wants is in.
pub const GATHER: Duration = Duration::from_millis(1);

/// A hand-over point for `(prefix, item)` arrivals.
pub struct Inbox<T> {
    /// Arrivals that make a take worth waking for.
    batch: usize,
    /// How long a take gathers ([`GATHER`]; longer in tests, to tell waiting apart).
    gather: Duration,
    state: Mutex<State<T>>,
    ready: Condvar,
}

struct State<T> {
    items: Vec<(u32, T)>,
    /// The prefix the receiver sleeps for, if it sleeps.
    waiting_for: Option<u32>,
    /// The receiver has what it wants and sleeps for a batch of arrivals.
    gathering: bool,
    /// An urgent arrival or the end came since the last take.
    wake: bool,
    closed: bool,
}

impl<T> Default for Inbox<T> {
    fn default() -> Self {
        Inbox::with_batch(BATCH)
    }
}

impl<T> Inbox<T> {
    /// An empty, open inbox whose takes wait for `batch` arrivals (1 to [`BATCH`]); a
    /// sender that holds back at most `w` arrivals should ask for at most `w / 2`.
    pub fn with_batch(batch: usize) -> Inbox<T> {
        Inbox {
            batch: batch.clamp(1, BATCH),
            gather: GATHER,
            state: Mutex::new(State {
                items: Vec::new(),
                waiting_for: None,
                gathering: false,
                wake: false,
                closed: false,
            }),
            ready: Condvar::new(),
        }
    }

    /// An empty, open inbox.
    pub fn new() -> Inbox<T> {
        Inbox::default()
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A panic elsewhere while holding the lock leaves the state whole (every
        // change under it is a single push or assignment).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Puts an arrival, waking the receiver if it waits for `prefix` or if `urgent`.
    pub fn put(&self, prefix: u32, item: T, urgent: bool) {
        let mut s = self.lock();
        s.items.push((prefix, item));
        let wanted = s.waiting_for == Some(prefix) || (s.gathering && s.items.len() >= self.batch);
        if urgent {
            s.wake = true;
        }
        if wanted || urgent {
            drop(s);
            self.ready.notify_one();
        }
    }

    /// Ends the arrivals (wakes the receiver). Later puts are still taken.
    pub fn close(&self) {
        let mut s = self.lock();
        s.closed = true;
        s.wake = true;
        drop(s);
        self.ready.notify_one();
    }

    /// Moves every arrival into `into`, first waiting until one of them is `want`, one
    /// was urgent, or the inbox is closed (and, once `want` is in, for up to [`GATHER`]
    /// until a batch of arrivals is). Returns `false` when the inbox is closed and
    /// nothing was left to take.
    pub fn take(&self, want: u32, into: &mut Vec<(u32, T)>) -> bool {
        let mut s = self.lock();
        // Only what arrived since the last take is looked through: it is all moved out.
        while !(s.wake || s.closed || s.items.iter().any(|(p, _)| *p == want)) {
            s.waiting_for = Some(want);
            s = self.ready.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.waiting_for = None;
        let deadline = Instant::now() + self.gather;
        while s.items.len() < self.batch && !s.wake && !s.closed {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break;
            };
            s.gathering = true;
            s = self
                .ready
                .wait_timeout(s, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            s.gathering = false;
        }
        s.wake = false;
        let any = !s.items.is_empty();
        into.append(&mut s.items);
        any || !s.closed
    }
}

/// Closes an inbox when dropped: the sending thread's guard, so that the receiver
/// learns of its end however it ends (a panic included).
pub struct CloseOnDrop<'a, T>(pub &'a Inbox<T>);

impl<T> Drop for CloseOnDrop<'_, T> {
    fn drop(&mut self) {
        self.0.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn takes_everything_once_the_wanted_one_is_in() {
        let inbox = Inbox::new();
        inbox.put(3, "c", false);
        inbox.put(1, "a", false);
        let mut got = Vec::new();
        assert!(inbox.take(1, &mut got));
        assert_eq!(got, vec![(3, "c"), (1, "a")]);
    }

    #[test]
    fn waits_for_the_wanted_one_not_for_others() {
        let inbox = Arc::new(Inbox::new());
        let sender = inbox.clone();
        let t = std::thread::spawn(move || {
            for p in [5, 4, 3, 2] {
                sender.put(p, p * 10, false);
                std::thread::sleep(Duration::from_millis(5));
            }
            sender.put(1, 10, false);
        });
        let mut got = Vec::new();
        assert!(inbox.take(1, &mut got));
        t.join().unwrap();
        // Woken only by the wanted one: everything sent before it comes in one take.
        got.sort();
        assert_eq!(got, vec![(1, 10), (2, 20), (3, 30), (4, 40), (5, 50)]);
    }

    /// An inbox whose gather lasts long enough to tell a take that waited it out from
    /// one that did not, on any machine.
    fn slow<T>(batch: usize) -> Inbox<T> {
        Inbox {
            gather: Duration::from_secs(2),
            ..Inbox::with_batch(batch)
        }
    }

    #[test]
    fn the_wanted_one_alone_is_handed_over_after_the_gather() {
        let inbox = slow(4);
        inbox.put(0, (), false);
        let t = Instant::now();
        let mut got = Vec::new();
        assert!(inbox.take(0, &mut got));
        assert_eq!(got.len(), 1);
        let waited = t.elapsed();
        assert!(waited >= Duration::from_secs(2), "{waited:?}");
        assert!(waited < Duration::from_secs(30), "{waited:?}");
        // The real gather is short.
        let inbox = Inbox::new();
        inbox.put(0, (), false);
        let t = Instant::now();
        assert!(inbox.take(0, &mut got));
        assert!(t.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn a_full_batch_is_taken_without_waiting() {
        let inbox = slow(BATCH);
        for p in (0..BATCH as u32).rev() {
            inbox.put(p, (), false);
        }
        let t = Instant::now();
        let mut got = Vec::new();
        assert!(inbox.take(0, &mut got));
        assert_eq!(got.len(), BATCH);
        assert!(t.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn a_small_batch_is_taken_without_waiting() {
        let inbox = slow(2);
        inbox.put(1, (), false);
        inbox.put(0, (), false);
        let t = Instant::now();
        let mut got = Vec::new();
        assert!(inbox.take(0, &mut got));
        assert_eq!(got.len(), 2);
        assert!(t.elapsed() < Duration::from_secs(1));
        assert_eq!(Inbox::<()>::with_batch(0).batch, 1);
        assert_eq!(Inbox::<()>::with_batch(1000).batch, BATCH);
    }

    #[test]
    fn a_gathering_receiver_is_woken_by_the_batch_or_the_end() {
        for by_the_end in [false, true] {
            let inbox = Arc::new(slow(BATCH));
            let sender = inbox.clone();
            let t = std::thread::spawn(move || {
                sender.put(0, (), false);
                std::thread::sleep(Duration::from_millis(100));
                if by_the_end {
                    sender.close();
                } else {
                    for p in 1..BATCH as u32 {
                        sender.put(p, (), false);
                    }
                }
            });
            let start = Instant::now();
            let mut got = Vec::new();
            assert!(inbox.take(0, &mut got));
            // Woken, not the 2 s gather waited out.
            let took = start.elapsed();
            assert!(took < Duration::from_millis(1500), "{took:?}");
            assert_eq!(got.len(), if by_the_end { 1 } else { BATCH });
            t.join().unwrap();
        }
    }

    #[test]
    fn an_urgent_arrival_wakes_the_receiver() {
        let inbox = Arc::new(Inbox::new());
        let sender = inbox.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(10));
            sender.put(9, "failed", true);
        });
        let mut got = Vec::new();
        assert!(inbox.take(0, &mut got));
        assert_eq!(got, vec![(9, "failed")]);
        t.join().unwrap();
        // The wake was spent: the next take waits again (here for the close).
        let closer = inbox.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(10));
            drop(CloseOnDrop(&*closer));
        });
        got.clear();
        assert!(!inbox.take(0, &mut got));
        assert!(got.is_empty());
        t.join().unwrap();
    }

    #[test]
    fn a_close_hands_over_what_is_left_then_says_so() {
        let inbox = Inbox::new();
        inbox.put(7, (), false);
        inbox.close();
        let mut got = Vec::new();
        assert!(inbox.take(0, &mut got));
        assert_eq!(got.len(), 1);
        got.clear();
        assert!(!inbox.take(0, &mut got));
        assert!(!inbox.take(0, &mut got));
    }

    #[test]
    fn a_sender_that_panics_still_closes() {
        let inbox = Arc::new(Inbox::<u8>::new());
        let sender = inbox.clone();
        let t = std::thread::spawn(move || {
            let _guard = CloseOnDrop(&*sender);
            panic!("the fetching thread failed");
        });
        let mut got = Vec::new();
        assert!(!inbox.take(0, &mut got));
        assert!(t.join().is_err());
    }
}
