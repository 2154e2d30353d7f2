//! Nonces: counter, sortable and encrypted values of 64, 96 and 128 bits that are never
//! repeated within a process, across processes sharing a state file, across restarts,
//! and when the clock steps back (specified in `docs/NONCES.md`).

pub mod cipher;
pub mod format;
pub mod machine;
pub mod pg;
pub mod speck;
pub mod state;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The epoch of the timestamps: 2025-01-01T00:00:00Z, in Unix milliseconds.
pub const EPOCH_UNIX_MS: u64 = 1_735_689_600_000;
/// Bits of the millisecond timestamp.
pub const TS_BITS: u32 = 42;
/// Bits of the machine id.
pub const MACHINE_BITS: u32 = 9;
/// The largest machine id.
pub const MAX_MACHINE: u32 = (1 << MACHINE_BITS) - 1;
/// The most milliseconds of the timeline one reservation covers.
pub const MAX_WINDOW_MS: u64 = 1024;

/// The longest the 64-bit throttle waits for the clock: ten times the longest window a
/// run reserves ahead of it without a count ([`MAX_WINDOW_MS`]). A longer wait means values
/// reserved far ahead of the clock (a large `-n` run of the machine id, going or killed,
/// or a state file's lines without a clock mark) and is refused, not waited out (it
/// could be years).
pub const MAX_WAIT_MS: u64 = 10_000;

/// A nonce width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Width {
    /// 64 bits: `ts:42 ‖ machine:9 ‖ count:13`.
    W64,
    /// 96 bits: `ts:42 ‖ machine:9 ‖ count:45`.
    W96,
    /// 128 bits: `ts:42 ‖ machine:9 ‖ 0:13 ‖ count:64`.
    W128,
}

impl Width {
    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Width::W64 => 64,
            Width::W96 => 96,
            Width::W128 => 128,
        }
    }

    /// The width in bytes.
    pub fn bytes(self) -> usize {
        self.bits() as usize / 8
    }

    /// The width for a number of bits.
    pub fn from_bits(bits: u32) -> Option<Width> {
        match bits {
            64 => Some(Width::W64),
            96 => Some(Width::W96),
            128 => Some(Width::W128),
            _ => None,
        }
    }

    /// Bits of the counter field.
    pub fn count_bits(self) -> u32 {
        match self {
            Width::W64 => 13,
            Width::W96 => 45,
            Width::W128 => 64,
        }
    }

    /// Zero bits between the machine id and the counter.
    fn zero_bits(self) -> u32 {
        match self {
            Width::W128 => 13,
            _ => 0,
        }
    }

    /// The largest counter `C` (timestamp and count together).
    pub fn max_c(self) -> u128 {
        (1u128 << (TS_BITS + self.count_bits())) - 1
    }

    /// The counter at the start of millisecond `ts`.
    pub fn floor(self, ts: u64) -> u128 {
        u128::from(ts) << self.count_bits()
    }

    /// The value of counter `c` on machine `machine`.
    #[inline]
    pub fn compose(self, c: u128, machine: u32) -> u128 {
        let cb = self.count_bits();
        let ts = c >> cb;
        let count = c & ((1u128 << cb) - 1);
        (ts << (MACHINE_BITS + self.zero_bits() + cb))
            | (u128::from(machine) << (self.zero_bits() + cb))
            | count
    }

    /// (timestamp, machine id, count) of a value.
    pub fn decompose(self, v: u128) -> (u64, u32, u128) {
        let cb = self.count_bits();
        let z = self.zero_bits();
        let count = v & ((1u128 << cb) - 1);
        let machine = ((v >> (z + cb)) & u128::from(MAX_MACHINE)) as u32;
        let ts = (v >> (MACHINE_BITS + z + cb)) as u64;
        (ts, machine, count)
    }
}

/// A nonce kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Unique and predictable: a counter from the start's timestamp.
    Counter,
    /// Timestamp of creation first: values sort by creation time.
    Sortable,
    /// A counter value through a block cipher of the width.
    Encrypted,
}

/// Why nonces could not be issued.
#[derive(Debug, thiserror::Error)]
pub enum NonceError {
    /// The state file could not be used.
    #[error("state file {path}")]
    State {
        /// Its path.
        path: String,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// The state file's path names a device, a pipe, a socket or a directory.
    #[error(
        "state file {path}: not a regular file (a device, pipe or directory): a state file must be a file of its own"
    )]
    StateNotRegular {
        /// Its path.
        path: String,
    },
    /// The state file holds something else.
    #[error("state file {path}: line {line}: not a veilkit nonce state line")]
    StateFormat {
        /// Its path.
        path: String,
        /// The line.
        line: usize,
    },
    /// The state file is empty (0 bytes): cut short by something else, since veilkit
    /// replaces it whole. Never read as a fresh state, which would issue again every
    /// value reserved in it.
    #[error(
        "state file {0}: empty, where a state file holds at least its header line: it was cut short (a full disk, a crash, `> FILE`), and starting afresh could issue nonces issued before; if no nonce was ever issued with it, remove it"
    )]
    StateEmpty(String),
    /// A machine id out of range.
    #[error("machine id {0} is out of range (0 to {MAX_MACHINE})")]
    Machine(u32),
    /// A state line that is well formed but impossible (a mark past the width's last
    /// counter, a second line for the same machine and width, an unknown width).
    #[error("state file {path}: line {line}: {why}")]
    StateLine {
        /// Its path.
        path: String,
        /// The line.
        line: usize,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The 42-bit timestamp is exhausted (the year 2164) or the clock is before 2025.
    #[error("the clock is outside the nonce epoch (2025 to 2164)")]
    Epoch,
    /// The next 64-bit values are reserved further ahead of the clock than the throttle
    /// waits ([`MAX_WAIT_MS`]).
    #[error(
        "machine id {machine}: its next 64-bit values are reserved {} s ahead of the clock, and 64-bit values never run ahead of it (veilkit waits at most {} s)",
        .ms.div_ceil(1000),
        MAX_WAIT_MS / 1000
    )]
    Ahead {
        /// The machine id.
        machine: u32,
        /// How long the wait would be, in milliseconds.
        ms: u64,
    },
    /// Fewer counter values are left for the machine id and width than were asked for.
    #[error("{}", exhausted_text(*.machine, *.bits, *.left))]
    Exhausted {
        /// The machine id.
        machine: u32,
        /// The width in bits.
        bits: u32,
        /// Values left.
        left: u128,
    },
    /// A PostgreSQL URL or its TLS settings that cannot be used.
    #[error("{0}")]
    DatabaseUrl(String),
    /// The database failed (after retries where a retry could help).
    #[error("database {url}: {why}")]
    Database {
        /// The URL without its password.
        url: String,
        /// What failed.
        why: String,
    },
    /// The state shows less than this process itself reserved: edited by hand or
    /// restored from a backup. Issuing from it could repeat values.
    #[error(
        "nonce state {state}: machine id {machine}'s highest reserved {bits}-bit value is {found}, below the {mine} this process reserved: the state went back (edited by hand, or restored from a backup), and issuing from it could repeat nonces"
    )]
    StateWentBack {
        /// Where the state is.
        state: String,
        /// The machine id.
        machine: u32,
        /// The width in bits.
        bits: u32,
        /// What the state shows.
        found: String,
        /// What this process reserved.
        mine: u128,
    },
    /// Another live process holds the machine id under the guard.
    #[error(
        "machine id {machine} is held by another live process ({holder}) under the guard {guard}"
    )]
    MachineHeld {
        /// The machine id.
        machine: u32,
        /// Who holds it, as far as the server says.
        holder: String,
        /// The guard's database.
        guard: String,
    },
    /// `--machine-id auto` found every id held.
    #[error("every machine id (0 to 511) is held by a live process under the guard {guard}")]
    NoFreeMachine {
        /// The guard's database.
        guard: String,
    },
    /// The guard's lease could not be renewed in time: another process may take the id.
    #[error(
        "machine id {machine}: the lease under the guard {guard} could not be renewed (the database unreachable or restarted); stopped issuing, since another process may now take the id"
    )]
    LeaseLost {
        /// The machine id.
        machine: u32,
        /// The guard's database.
        guard: String,
    },
}

fn exhausted_text(machine: u32, bits: u32, left: u128) -> String {
    if left == 0 {
        format!("machine id {machine} has used every {bits}-bit value: its counter is exhausted")
    } else {
        format!("machine id {machine} has only {left} {bits}-bit values left, fewer than asked for")
    }
}

/// Time, injectable for tests.
pub trait Clock {
    /// Milliseconds since the Unix epoch (the wall clock; may step backwards).
    fn unix_ms(&self) -> u64;
    /// Milliseconds on a monotonic clock (never steps backwards).
    fn monotonic_ms(&self) -> u64;
    /// Waits about `ms` milliseconds.
    fn sleep_ms(&self, ms: u64);
}

/// The operating system's clocks.
#[derive(Debug)]
pub struct SystemClock {
    start: Instant,
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock {
            start: Instant::now(),
        }
    }
}

impl Clock for SystemClock {
    fn unix_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    }
    fn monotonic_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }
    fn sleep_ms(&self, ms: u64) {
        // Waits at the 64-bit rate limit are about a millisecond: a sleep would overshoot
        // and, for sortable values, lose the millisecond's values for good. Spin on the
        // clock for short waits, sleep for long ones.
        if ms > 2 {
            std::thread::sleep(Duration::from_millis(ms - 1));
            return;
        }
        let until = self.monotonic_ms() + ms;
        while self.monotonic_ms() < until {
            std::hint::spin_loop();
        }
    }
}

/// What a reservation left behind: the highest counter reserved, and the millisecond
/// (since the nonce epoch, by the reserving process's clock) at which it was reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// The highest counter value reserved.
    pub highest: u128,
    /// When it was reserved.
    pub at_ts: u64,
}

/// Hands out ranges of the counter: the state file, or memory for a single process.
pub trait Reserve {
    /// Reserves `want` counter values for `machine` and `width`, starting at or after
    /// `floor` and after everything reserved before, at time `now_ts`; returns the start.
    fn reserve(
        &mut self,
        machine: u32,
        width: Width,
        want: u128,
        floor: u128,
        now_ts: u64,
    ) -> Result<u128, NonceError>;
    /// The last reservation for `machine` and `width`, if any (read when a generator
    /// starts, so that its idea of "now" never falls behind it).
    fn mark(&mut self, machine: u32, width: Width) -> Result<Option<Mark>, NonceError>;
    /// Gives back the unused end of a reservation whose highest value is `reserved`:
    /// when that is still the highest reserved (nobody reserved after it), the highest
    /// becomes `keep`, the last value its holder issued.
    fn release(
        &mut self,
        machine: u32,
        width: Width,
        reserved: u128,
        keep: u128,
    ) -> Result<(), NonceError>;
}

/// [`Reserve::release`] on a map of marks.
pub(crate) fn release_mark(mark: Option<&mut Mark>, reserved: u128, keep: u128) -> bool {
    match mark {
        Some(m) if m.highest == reserved && keep < reserved => {
            m.highest = keep;
            true
        }
        _ => false,
    }
}

/// Reservations held in memory: unique within one process (and what the state file
/// adds to it across processes). Shareable between threads behind a mutex.
#[derive(Debug, Default)]
pub struct MemoryReserve {
    marks: std::collections::HashMap<(u32, Width), Mark>,
}

/// The start of a new reservation after `last`, and its mark.
pub(crate) fn next_range(
    machine: u32,
    last: Option<Mark>,
    width: Width,
    want: u128,
    floor: u128,
    now_ts: u64,
) -> Result<(u128, Mark), NonceError> {
    if floor > width.max_c() {
        return Err(NonceError::Epoch);
    }
    let exhausted = |left: u128| NonceError::Exhausted {
        machine,
        bits: width.bits(),
        left,
    };
    let start = match last {
        Some(m) if m.highest >= width.max_c() => return Err(exhausted(0)),
        Some(m) => floor.max(m.highest + 1),
        None => floor,
    };
    let left = width.max_c() - start + 1;
    if want.max(1) > left {
        return Err(exhausted(left));
    }
    let end = start + (want.max(1) - 1);
    let at_ts = last.map_or(now_ts, |m| m.at_ts.max(now_ts));
    Ok((
        start,
        Mark {
            highest: end,
            at_ts,
        },
    ))
}

impl Reserve for MemoryReserve {
    fn reserve(
        &mut self,
        machine: u32,
        width: Width,
        want: u128,
        floor: u128,
        now_ts: u64,
    ) -> Result<u128, NonceError> {
        let last = self.marks.get(&(machine, width)).copied();
        let (start, mark) = next_range(machine, last, width, want, floor, now_ts)?;
        self.marks.insert((machine, width), mark);
        Ok(start)
    }
    fn mark(&mut self, machine: u32, width: Width) -> Result<Option<Mark>, NonceError> {
        Ok(self.marks.get(&(machine, width)).copied())
    }
    fn release(
        &mut self,
        machine: u32,
        width: Width,
        reserved: u128,
        keep: u128,
    ) -> Result<(), NonceError> {
        release_mark(self.marks.get_mut(&(machine, width)), reserved, keep);
        Ok(())
    }
}

impl<R: Reserve + ?Sized> Reserve for &mut R {
    fn reserve(
        &mut self,
        machine: u32,
        width: Width,
        want: u128,
        floor: u128,
        now_ts: u64,
    ) -> Result<u128, NonceError> {
        (**self).reserve(machine, width, want, floor, now_ts)
    }
    fn mark(&mut self, machine: u32, width: Width) -> Result<Option<Mark>, NonceError> {
        (**self).mark(machine, width)
    }
    fn release(
        &mut self,
        machine: u32,
        width: Width,
        reserved: u128,
        keep: u128,
    ) -> Result<(), NonceError> {
        (**self).release(machine, width, reserved, keep)
    }
}

impl<R: Reserve> Reserve for std::sync::Arc<std::sync::Mutex<R>> {
    fn reserve(
        &mut self,
        machine: u32,
        width: Width,
        want: u128,
        floor: u128,
        now_ts: u64,
    ) -> Result<u128, NonceError> {
        self.lock()
            .unwrap_or_else(|e| e.into_inner())
            .reserve(machine, width, want, floor, now_ts)
    }
    fn mark(&mut self, machine: u32, width: Width) -> Result<Option<Mark>, NonceError> {
        self.lock()
            .unwrap_or_else(|e| e.into_inner())
            .mark(machine, width)
    }
    fn release(
        &mut self,
        machine: u32,
        width: Width,
        reserved: u128,
        keep: u128,
    ) -> Result<(), NonceError> {
        self.lock()
            .unwrap_or_else(|e| e.into_inner())
            .release(machine, width, reserved, keep)
    }
}

/// Issues nonces of one kind and width.
pub struct Generator<C: Clock, R: Reserve> {
    width: Width,
    kind: Kind,
    machine: u32,
    clock: C,
    reserve: R,
    cipher: Option<cipher::NonceCipher>,
    /// The next counter value and the end (exclusive) of the reserved range.
    next: u128,
    end: u128,
    /// Milliseconds of the timeline reserved at a time by kinds that follow the clock:
    /// starts at 1 and doubles with each reservation, up to [`MAX_WINDOW_MS`], so short
    /// runs take little and long runs update the state file about once a second.
    window_ms: u64,
    /// How many values the caller announced (0: unknown), and how many were issued.
    batch: u128,
    issued: u128,
    /// "Now" never goes below `base_ts` plus the monotonic time since `base_mono`.
    base_ts: u64,
    base_mono: u64,
    /// Asked before every run of values is made (after any wait for the clock): a lease
    /// on the machine id that must still hold ([`pg::Lease::fence`]).
    fence: Option<Fence>,
}

/// A check made before values are made: an error stops the generator.
pub type Fence = Box<dyn Fn() -> Result<(), NonceError> + Send + Sync>;

impl<C: Clock, R: Reserve> Generator<C, R> {
    /// A generator. `cipher` is required for [`Kind::Encrypted`] and ignored otherwise.
    pub fn new(
        width: Width,
        kind: Kind,
        machine: u32,
        clock: C,
        mut reserve: R,
        cipher: Option<cipher::NonceCipher>,
    ) -> Result<Self, NonceError> {
        if machine > MAX_MACHINE {
            return Err(NonceError::Machine(machine));
        }
        assert!(
            kind != Kind::Encrypted || cipher.is_some(),
            "encrypted nonces need a cipher"
        );
        if let Some(c) = &cipher {
            assert_eq!(c.width(), width, "cipher of the wrong width");
        }
        let wall = clock
            .unix_ms()
            .checked_sub(EPOCH_UNIX_MS)
            .ok_or(NonceError::Epoch)?;
        // "Now" is never earlier than the last reservation was made: after the clock is
        // set back by an hour, values carry on from the reservations (waiting at most
        // for the last reserved range to come due, never for the hour).
        let reserved_ts = reserve.mark(machine, width)?.map_or(0, |m| m.at_ts);
        let base_mono = clock.monotonic_ms();
        Ok(Generator {
            width,
            kind,
            machine,
            clock,
            reserve,
            cipher: if kind == Kind::Encrypted {
                cipher
            } else {
                None
            },
            next: 0,
            end: 0,
            window_ms: 1,
            batch: 0,
            issued: 0,
            base_ts: wall.max(reserved_ts),
            base_mono,
            fence: None,
        })
    }

    /// Checks `fence` before every run of values is made, after any wait for the clock
    /// (a lease that may have lapsed during a wait of the 64-bit throttle is caught).
    pub fn with_fence(mut self, fence: Fence) -> Self {
        self.fence = Some(fence);
        self
    }

    /// Reserve this many counter values at a time for counter and encrypted kinds
    /// (default: whatever each call asks for).
    pub fn with_batch(mut self, batch: u64) -> Self {
        self.batch = u128::from(batch);
        self
    }

    /// Milliseconds since the nonce epoch, never earlier than at start-up plus the
    /// monotonic time since.
    fn now_ts(&self) -> u64 {
        let wall = self.clock.unix_ms().saturating_sub(EPOCH_UNIX_MS);
        let mono = self.base_ts + (self.clock.monotonic_ms() - self.base_mono);
        wall.max(mono)
    }

    /// Gives back the unused end of the current reservation (see [`Reserve::release`]),
    /// so that the next process starts right after the last value issued. Called on
    /// drop too (ignoring errors: a reservation kept wastes values, never reuses them).
    pub fn finish(&mut self) -> Result<(), NonceError> {
        if self.end > self.next && self.next > 0 {
            let (reserved, keep) = (self.end - 1, self.next - 1);
            self.end = self.next;
            self.reserve
                .release(self.machine, self.width, reserved, keep)?;
        }
        Ok(())
    }

    fn refill(&mut self, want: u128, floor: u128, now: u64) -> Result<(), NonceError> {
        let start = self
            .reserve
            .reserve(self.machine, self.width, want, floor, now)?;
        self.next = start;
        self.end = start + want;
        Ok(())
    }

    /// Fills `out` with fresh values (as big-endian integers of the width).
    pub fn fill(&mut self, out: &mut [u128]) -> Result<(), NonceError> {
        let cb = self.width.count_bits();
        let throttled = self.width == Width::W64;
        let per_ms = 1u128 << cb;
        let mut i = 0;
        while i < out.len() {
            let now = self.now_ts();
            let floor = self.width.floor(now);
            if self.kind == Kind::Sortable && self.next < floor {
                self.next = floor;
            }
            if self.next >= self.end || (self.kind == Kind::Sortable && floor >= self.end) {
                let remaining = (out.len() - i) as u128;
                let want = if self.kind == Kind::Sortable {
                    // Follow the clock: a window of the timeline at a time, at least
                    // what the announced batch needs at the 64-bit rate limit.
                    let mut w = u128::from(self.window_ms);
                    self.window_ms = (self.window_ms * 2).min(MAX_WINDOW_MS);
                    if throttled && self.batch > self.issued {
                        w = w.max((self.batch - self.issued).div_ceil(per_ms) + 1);
                    }
                    per_ms * w
                } else if self.batch > self.issued {
                    // Counter kinds reserve what was announced, once: the throttle paces
                    // issuing, not reservations.
                    (self.batch - self.issued).max(remaining)
                } else if throttled {
                    let w = per_ms * u128::from(self.window_ms);
                    self.window_ms = (self.window_ms * 2).min(MAX_WINDOW_MS);
                    w
                } else {
                    remaining
                };
                self.refill(want, floor, now)?;
                continue;
            }
            // How many values can be issued now (counted in u128: ranges can exceed usize).
            let mut take = (self.end - self.next).min((out.len() - i) as u128);
            if throttled {
                // Never a timestamp later than now: at most up to the end of this ms.
                let limit = self.width.floor(now + 1);
                if self.next >= limit {
                    let wait = ((self.next >> cb) as u64).saturating_sub(now).max(1);
                    if wait > MAX_WAIT_MS {
                        return Err(NonceError::Ahead {
                            machine: self.machine,
                            ms: wait,
                        });
                    }
                    self.clock.sleep_ms(wait);
                    continue;
                }
                take = take.min(limit - self.next);
            }
            if self.kind == Kind::Sortable && !throttled {
                // Values of this millisecond; the next call refreshes the timestamp.
                let ms_end = self.width.floor(now + 1);
                take = take.min(ms_end.saturating_sub(self.next).max(1));
            }
            let take = take as usize;
            if let Some(fence) = &self.fence {
                fence()?;
            }
            let count_mask = per_ms - 1;
            if (self.next & count_mask) + take as u128 <= per_ms {
                // No carry out of the count field: consecutive values differ by one.
                let mut v = self.width.compose(self.next, self.machine);
                for slot in out[i..i + take].iter_mut() {
                    *slot = v;
                    v = v.wrapping_add(1);
                }
            } else {
                for (k, slot) in out[i..i + take].iter_mut().enumerate() {
                    *slot = self.width.compose(self.next + k as u128, self.machine);
                }
            }
            if let Some(c) = &self.cipher {
                c.encrypt_many(&mut out[i..i + take]);
            }
            self.next += take as u128;
            self.issued += take as u128;
            i += take;
        }
        Ok(())
    }
}

impl<C: Clock, R: Reserve> Drop for Generator<C, R> {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

#[cfg(test)]
mod tests;
