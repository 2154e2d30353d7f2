//! The nonce state in a PostgreSQL table: what the state file holds, shared by every
//! process on every host that names the database, under a row lock in place of the
//! file lock (docs/NONCES.md, "State in PostgreSQL").

use super::super::{Mark, NonceError, Reserve, Width, next_range};
use super::connect::{RETRY_FOR, START_RETRY_FOR, Target, with_retries};
use std::collections::HashMap;

/// The schema, created on first use.
pub const SCHEMA: &str = include_str!("schema.sql");

/// The advisory lock (`pg_advisory_xact_lock`) under which the schema is created, so that
/// processes starting together do not race to create it: "veilkit n" in ASCII.
const SCHEMA_LOCK: i64 = 0x7665_696c_6b69_746e;

/// The nonce state in a database.
pub struct PgState {
    target: Target,
    client: Option<postgres::Client>,
    /// The highest value this process reserved, per machine id and width: the table
    /// never shows less to it (an edit by hand or a restored backup would bring back
    /// values this process issued).
    mine: HashMap<(u32, u32), u128>,
}

impl std::fmt::Debug for PgState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PgState({})", self.target.shown())
    }
}

impl PgState {
    /// Connects to the database at `target` and creates the table if it is missing.
    pub fn open(target: Target) -> Result<PgState, NonceError> {
        let mut state = PgState {
            target,
            client: None,
            mine: HashMap::new(),
        };
        with_retries(&state.target, START_RETRY_FOR, &mut state.client, |c| {
            let exists: Option<String> = c
                .query_one("SELECT to_regclass('veilkit_nonce_state')::text", &[])?
                .get(0);
            if exists.is_none() {
                let mut t = c.transaction()?;
                t.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])?;
                t.batch_execute(SCHEMA)?;
                t.commit()?;
            }
            Ok(())
        })?;
        Ok(state)
    }

    /// The database, without its password.
    pub fn shown(&self) -> &str {
        self.target.shown()
    }
}

/// A mark as the table holds it: `highest` as text (numeric(39,0) holds every u128).
fn mark_of(row: &postgres::Row) -> Result<Option<Mark>, NonceError> {
    let highest: Option<String> = row.get(0);
    let at_ts: i64 = row.get(1);
    match highest {
        None => Ok(None),
        Some(h) => {
            let highest = h.parse::<u128>().map_err(|_| {
                NonceError::DatabaseUrl(format!(
                    "veilkit_nonce_state holds {h}, not a counter value"
                ))
            })?;
            Ok(Some(Mark {
                highest,
                at_ts: u64::try_from(at_ts).unwrap_or(0),
            }))
        }
    }
}

impl Reserve for PgState {
    fn reserve(
        &mut self,
        machine: u32,
        width: Width,
        want: u128,
        floor: u128,
        now_ts: u64,
    ) -> Result<u128, NonceError> {
        let key = (machine as i32, width.bits() as i32);
        let mine = self.mine.get(&(machine, width.bits())).copied();
        let target = self.target.clone();
        // The outer result is the database's (retried); the inner one is the answer
        // (an error there rolls the transaction back and is not retried).
        let answer = with_retries(&target, RETRY_FOR, &mut self.client, |c| {
            let mut t = c.transaction()?;
            // Durable before any value of the range is issued, whatever the server's
            // default: a crash of the database after this commit keeps the reservation.
            t.batch_execute("SET LOCAL synchronous_commit = on")?;
            // The row, created when missing, locked until commit: every other process
            // reserving for this machine id and width waits here.
            let row = t.query_one(
                "INSERT INTO veilkit_nonce_state (machine, width) VALUES ($1, $2) \
                 ON CONFLICT (machine, width) DO UPDATE SET machine = EXCLUDED.machine \
                 RETURNING highest::text, at_ts",
                &[&key.0, &key.1],
            )?;
            let last = match mark_of(&row) {
                Ok(m) => m,
                Err(e) => return Ok(Err(e)),
            };
            if let Some(mine) = mine
                && last.is_none_or(|m| m.highest < mine)
            {
                return Ok(Err(NonceError::StateWentBack {
                    state: target.shown().to_string(),
                    machine,
                    bits: width.bits(),
                    found: last.map_or_else(|| "no value".into(), |m| m.highest.to_string()),
                    mine,
                }));
            }
            let (start, mark) = match next_range(machine, last, width, want, floor, now_ts) {
                Ok(r) => r,
                Err(e) => return Ok(Err(e)),
            };
            t.execute(
                "UPDATE veilkit_nonce_state SET highest = $3::text::numeric, at_ts = $4 \
                 WHERE machine = $1 AND width = $2",
                &[
                    &key.0,
                    &key.1,
                    &mark.highest.to_string(),
                    &i64::try_from(mark.at_ts).unwrap_or(i64::MAX),
                ],
            )?;
            t.commit()?;
            Ok(Ok((start, mark.highest)))
        })?;
        let (start, highest) = answer?;
        self.mine.insert((machine, width.bits()), highest);
        Ok(start)
    }

    fn mark(&mut self, machine: u32, width: Width) -> Result<Option<Mark>, NonceError> {
        let key = (machine as i32, width.bits() as i32);
        let target = self.target.clone();
        let row = with_retries(&target, RETRY_FOR, &mut self.client, |c| {
            c.query_opt(
                "SELECT highest::text, at_ts FROM veilkit_nonce_state \
                 WHERE machine = $1 AND width = $2",
                &[&key.0, &key.1],
            )
        })?;
        match row {
            Some(r) => mark_of(&r),
            None => Ok(None),
        }
    }

    fn release(
        &mut self,
        machine: u32,
        width: Width,
        reserved: u128,
        keep: u128,
    ) -> Result<(), NonceError> {
        if keep >= reserved {
            return Ok(());
        }
        let key = (machine as i32, width.bits() as i32);
        let target = self.target.clone();
        with_retries(&target, RETRY_FOR, &mut self.client, |c| {
            let mut t = c.transaction()?;
            t.batch_execute("SET LOCAL veilkit.release = 'on'")?;
            // Only when nobody reserved after this process (docs/NONCES.md): the same
            // rule as the state file's.
            t.execute(
                "UPDATE veilkit_nonce_state SET highest = $4::text::numeric \
                 WHERE machine = $1 AND width = $2 AND highest = $3::text::numeric",
                &[&key.0, &key.1, &reserved.to_string(), &keep.to_string()],
            )?;
            t.commit()
        })?;
        Ok(())
    }
}
