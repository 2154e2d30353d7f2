//! The conflict guard: a lease on a machine id held in PostgreSQL while a process issues
//! nonces with it, so that two live processes on different hosts never use the same id
//! (docs/NONCES.md, "The guard").
//!
//! The lease is a session advisory lock `(LOCK_CLASS, machine)` on a connection of its
//! own, released by the server when the process or its connection dies. A thread beats
//! a heartbeat into `veilkit_nonce_lease` every [`BEAT`]; the holder issues values only
//! while its last beat was sent less than [`HOLD`] ago, and a process that takes an id
//! over waits until [`TAKEOVER`] after the last beat its holder wrote, so that the two
//! never issue in the same moment even when the server let go of a lock whose holder
//! had not yet seen its connection fail.

use super::super::NonceError;
use super::connect::Target;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The first key of the advisory locks on machine ids: "vk" in ASCII.
pub const LOCK_CLASS: i32 = 0x766b;
/// How often the holder beats.
pub const BEAT: Duration = Duration::from_millis(500);
/// How long after sending its last successful beat the holder stops issuing.
pub const HOLD: Duration = Duration::from_secs(2);
/// How long after the last beat written a new holder may start (more than [`HOLD`]).
pub const TAKEOVER: Duration = Duration::from_secs(3);

const LEASE_TABLE: &str = "CREATE TABLE IF NOT EXISTS veilkit_nonce_lease (
    machine integer PRIMARY KEY CHECK (machine BETWEEN 0 AND 511),
    beat_at timestamptz NOT NULL,
    holder text NOT NULL
)";

/// A machine id held for this process.
pub struct Lease {
    machine: u32,
    /// Milliseconds after `origin` at which the last successful beat was sent.
    beat_sent: Arc<AtomicU64>,
    origin: Instant,
    stop: Option<std::sync::mpsc::Sender<()>>,
    finished: std::sync::mpsc::Receiver<()>,
    shown: String,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lease(machine {} at {})", self.machine, self.shown)
    }
}

/// Which machine id to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// This one.
    Id(u32),
    /// The lowest that no live process holds.
    Lowest,
}

/// Who holds `machine`, as the server sees it, for the refusal's text.
fn holder_of(c: &mut postgres::Client, machine: u32) -> String {
    let row = c.query_opt(
        "SELECT l.holder, to_char(l.beat_at, 'YYYY-MM-DD HH24:MI:SS TZ') \
         FROM veilkit_nonce_lease l WHERE l.machine = $1",
        &[&(machine as i32)],
    );
    match row {
        Ok(Some(r)) => {
            let holder: String = r.get(0);
            let at: String = r.get(1);
            format!("{holder}, last seen {at}")
        }
        _ => "a live process".into(),
    }
}

/// This process, as the lease table names it.
fn me() -> &'static str {
    static ME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ME.get_or_init(|| {
        format!(
            "{} pid {}",
            crate::nonce::machine::host_name(),
            std::process::id()
        )
    })
}

impl Lease {
    /// Takes the lease on a machine id: `Want::Id` refuses, naming the id and its holder,
    /// while a live process holds it; `Want::Lowest` takes the lowest free one.
    pub fn take(target: &Target, want: Want) -> Result<Lease, NonceError> {
        let err = |e: postgres::Error| target.error(e);
        let mut c = target.connect()?;
        c.batch_execute(LEASE_TABLE).or_else(|e| {
            // Two processes creating the table at once: one of them sees a unique
            // violation on the catalog, and the table is there.
            if e.code()
                .is_some_and(|c| c.code() == "23505" || c.code() == "42P07")
            {
                Ok(())
            } else {
                Err(err(e))
            }
        })?;
        let machine = match want {
            Want::Id(m) => {
                let got: bool = c
                    .query_one(
                        "SELECT pg_try_advisory_lock($1, $2)",
                        &[&LOCK_CLASS, &(m as i32)],
                    )
                    .map_err(err)?
                    .get(0);
                if !got {
                    return Err(NonceError::MachineHeld {
                        machine: m,
                        holder: holder_of(&mut c, m),
                        guard: target.shown().to_string(),
                    });
                }
                m
            }
            Want::Lowest => {
                // The lowest id whose lock is free, taken in one statement: ids are tried
                // in order and the first lock taken ends the scan.
                let row = c
                    .query_opt(
                        "SELECT id FROM generate_series(0, 511) AS id \
                         WHERE pg_try_advisory_lock($1, id) LIMIT 1",
                        &[&LOCK_CLASS],
                    )
                    .map_err(err)?;
                let Some(row) = row else {
                    return Err(NonceError::NoFreeMachine {
                        guard: target.shown().to_string(),
                    });
                };
                let id: i32 = row.get(0);
                // Should the scan have taken more than one, the others are let go.
                c.execute(
                    "SELECT pg_advisory_unlock($1, objid::int) FROM pg_locks \
                     WHERE locktype = 'advisory' AND pid = pg_backend_pid() \
                     AND classid = $1::int::oid AND objsubid = 2 AND objid <> $2::int::oid",
                    &[&LOCK_CLASS, &id],
                )
                .map_err(err)?;
                id as u32
            }
        };
        // Wait out the last holder's hold: it stops issuing HOLD after its last beat
        // was sent, and that beat was written after it was sent.
        let wait: f64 = c
            .query_opt(
                "SELECT greatest(0, extract(epoch FROM (beat_at + make_interval(secs => $2) - clock_timestamp())))::float8 \
                 FROM veilkit_nonce_lease WHERE machine = $1",
                &[&(machine as i32), &TAKEOVER.as_secs_f64()],
            )
            .map_err(err)?
            .map_or(0.0, |r| r.get(0));
        if wait > 0.0 {
            std::thread::sleep(Duration::from_secs_f64(wait.min(TAKEOVER.as_secs_f64())));
        }
        let origin = Instant::now();
        beat(&mut c, machine).map_err(err)?;
        let beat_sent = Arc::new(AtomicU64::new(0));
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let sent = beat_sent.clone();
        std::thread::Builder::new()
            .name("veilkit-lease".into())
            .spawn(move || {
                // The connection lives (and the lock with it) until this thread ends.
                let mut c = c;
                loop {
                    match stopped.recv_timeout(BEAT) {
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                        _ => {
                            // A clean end: this process issues nothing more, so the
                            // next holder need not wait out the hold.
                            let _ = c.execute(
                                "UPDATE veilkit_nonce_lease SET beat_at = 'epoch' \
                                 WHERE machine = $1",
                                &[&(machine as i32)],
                            );
                            let _ = c.execute(
                                "SELECT pg_advisory_unlock($1, $2)",
                                &[&LOCK_CLASS, &(machine as i32)],
                            );
                            let _ = done.send(());
                            return;
                        }
                    }
                    let at = origin.elapsed().as_millis() as u64;
                    if beat(&mut c, machine).is_err() {
                        // The lease may be gone: no more beats, so the holder stops
                        // issuing HOLD after the last good one.
                        return;
                    }
                    sent.fetch_max(at, Ordering::Release);
                }
            })
            .map_err(|e| NonceError::DatabaseUrl(format!("cannot start the lease thread: {e}")))?;
        Ok(Lease {
            machine,
            beat_sent,
            origin,
            stop: Some(stop),
            finished,
            shown: target.shown().to_string(),
        })
    }

    /// The machine id held.
    pub fn machine(&self) -> u32 {
        self.machine
    }

    /// The lease as a generator's fence ([`crate::nonce::Generator::with_fence`]), asked
    /// before every run of values is made: whether values may still be issued, an error
    /// once the last successful beat was sent [`HOLD`] ago or more (the connection lost,
    /// the server gone): another process may take the id over soon after.
    pub fn fence(&self) -> crate::nonce::Fence {
        let (sent, origin, machine, shown) = (
            self.beat_sent.clone(),
            self.origin,
            self.machine,
            self.shown.clone(),
        );
        Box::new(move || {
            let last = Duration::from_millis(sent.load(Ordering::Acquire));
            if origin.elapsed() >= last + HOLD {
                return Err(NonceError::LeaseLost {
                    machine,
                    guard: shown.clone(),
                });
            }
            Ok(())
        })
    }
}

fn beat(c: &mut postgres::Client, machine: u32) -> Result<(), postgres::Error> {
    c.execute(
        "INSERT INTO veilkit_nonce_lease (machine, beat_at, holder) \
         VALUES ($1, clock_timestamp(), $2) \
         ON CONFLICT (machine) DO UPDATE SET beat_at = EXCLUDED.beat_at, holder = EXCLUDED.holder",
        &[&(machine as i32), &me()],
    )
    .map(|_| ())
}

impl Drop for Lease {
    fn drop(&mut self) {
        // The beat thread lets the lease go and says so; a thread stuck on a server
        // that no longer answers is left behind (the lock goes with the process).
        drop(self.stop.take());
        let _ = self.finished.recv_timeout(Duration::from_secs(2));
    }
}
