//! The nonce state in a PostgreSQL table: what the state file holds, shared by every
//! process on every host that names the database, under a row lock in place of the
//! file lock (docs/NONCES.md, "State in PostgreSQL").
//!
//! Statements go as simple queries, several to a round trip (their only values are
//! numbers this module formats), so that a one-off run costs few round trips: the mark
//! read at start, the reservation in two, the give-back in one.

use super::super::{Mark, NonceError, Reserve, Width, next_range};
use super::connect::{RETRY_FOR, START_RETRY_FOR, Target, with_retries};
use postgres::SimpleQueryMessage;
use std::collections::HashMap;

/// The schema, created on first use.
pub const SCHEMA: &str = include_str!("schema.sql");

/// The advisory lock (`pg_advisory_xact_lock`) under which the schema is created, so that
/// processes starting together do not race to create it: "veilkit n" in ASCII.
const SCHEMA_LOCK: i64 = 0x7665_696c_6b69_746e;

/// SQLSTATE of a table that does not exist.
const UNDEFINED_TABLE: &str = "42P01";

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

/// The first row of a simple query's answer.
fn first_row(messages: &[SimpleQueryMessage]) -> Option<&postgres::SimpleQueryRow> {
    messages.iter().find_map(|m| match m {
        SimpleQueryMessage::Row(r) => Some(r),
        _ => None,
    })
}

/// A mark as the table holds it: `highest` and `at_ts` as text (numeric(39,0) holds every
/// u128); no row, or a row without a mark, is none.
fn mark_of(row: Option<&postgres::SimpleQueryRow>) -> Result<Option<Mark>, NonceError> {
    let Some(row) = row else {
        return Ok(None);
    };
    let bad = |v: &str| {
        NonceError::DatabaseUrl(format!(
            "veilkit_nonce_state holds {v:?} where a counter value belongs"
        ))
    };
    let Some(h) = row.get(0) else {
        return Ok(None);
    };
    let highest = h.parse::<u128>().map_err(|_| bad(h))?;
    let at = row.get(1).unwrap_or("0");
    let at_ts = at.parse::<u64>().map_err(|_| bad(at))?;
    Ok(Some(Mark { highest, at_ts }))
}

/// Whether `e` says that the table does not exist yet.
fn missing_table(e: &postgres::Error) -> bool {
    e.code().is_some_and(|c| c.code() == UNDEFINED_TABLE)
}

/// Creates the schema, under a lock so that processes starting together do not race.
fn create_schema(c: &mut postgres::Client) -> Result<(), postgres::Error> {
    let mut t = c.transaction()?;
    t.batch_execute(&format!("SELECT pg_advisory_xact_lock({SCHEMA_LOCK})"))?;
    t.batch_execute(SCHEMA)?;
    t.commit()
}

/// Ends an open transaction after an error, so that the connection can be used again
/// (a broken connection is dropped by the retry loop instead).
fn rollback(c: &mut postgres::Client) {
    if !c.is_closed() {
        let _ = c.batch_execute("ROLLBACK");
    }
}

impl PgState {
    /// Connects to the database at `target` (the table is created when first needed).
    pub fn open(target: Target) -> Result<PgState, NonceError> {
        let mut state = PgState {
            target,
            client: None,
            mine: HashMap::new(),
        };
        with_retries(
            &state.target,
            START_RETRY_FOR,
            &mut state.client,
            |_| Ok(()),
        )?;
        Ok(state)
    }

    /// The database, without its password.
    pub fn shown(&self) -> &str {
        self.target.shown()
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
        let bits = width.bits();
        let mine = self.mine.get(&(machine, bits)).copied();
        let target = self.target.clone();
        // The outer result is the database's (retried); the inner one is the answer
        // (an error there rolls the transaction back and is not retried).
        let answer = with_retries(&target, RETRY_FOR, &mut self.client, |c| {
            // Durable before any value of the range is issued, whatever the server's
            // default: a crash of the database after the commit keeps the reservation.
            // The row, created when missing, stays locked until the commit: every other
            // process reserving for this machine id and width waits here.
            let lock = format!(
                "BEGIN; SET LOCAL synchronous_commit = on; \
                 INSERT INTO veilkit_nonce_state (machine, width) VALUES ({machine}, {bits}) \
                 ON CONFLICT (machine, width) DO UPDATE SET machine = EXCLUDED.machine \
                 RETURNING highest::text, at_ts::text"
            );
            let got = match c.simple_query(&lock) {
                Ok(m) => m,
                Err(e) if missing_table(&e) => {
                    rollback(c);
                    create_schema(c)?;
                    c.simple_query(&lock).inspect_err(|_| rollback(c))?
                }
                Err(e) => {
                    rollback(c);
                    return Err(e);
                }
            };
            let last = match mark_of(first_row(&got)) {
                Ok(m) => m,
                Err(e) => {
                    rollback(c);
                    return Ok(Err(e));
                }
            };
            if let Some(mine) = mine
                && last.is_none_or(|m| m.highest < mine)
            {
                rollback(c);
                return Ok(Err(NonceError::StateWentBack {
                    state: target.shown().to_string(),
                    machine,
                    bits,
                    found: last.map_or_else(|| "no value".into(), |m| m.highest.to_string()),
                    mine,
                }));
            }
            let (start, mark) = match next_range(machine, last, width, want, floor, now_ts) {
                Ok(r) => r,
                Err(e) => {
                    rollback(c);
                    return Ok(Err(e));
                }
            };
            c.batch_execute(&format!(
                "UPDATE veilkit_nonce_state SET highest = {}, at_ts = {} \
                 WHERE machine = {machine} AND width = {bits}; COMMIT",
                mark.highest, mark.at_ts
            ))
            .inspect_err(|_| rollback(c))?;
            Ok(Ok((start, mark.highest)))
        })?;
        let (start, highest) = answer?;
        self.mine.insert((machine, bits), highest);
        Ok(start)
    }

    fn mark(&mut self, machine: u32, width: Width) -> Result<Option<Mark>, NonceError> {
        let bits = width.bits();
        let target = self.target.clone();
        let got = with_retries(&target, RETRY_FOR, &mut self.client, |c| {
            match c.simple_query(&format!(
                "SELECT highest::text, at_ts::text FROM veilkit_nonce_state \
                 WHERE machine = {machine} AND width = {bits}"
            )) {
                // No table yet: no mark (the first reservation creates it).
                Err(e) if missing_table(&e) => Ok(Vec::new()),
                other => other,
            }
        })?;
        mark_of(first_row(&got))
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
        let bits = width.bits();
        let target = self.target.clone();
        // Only when nobody reserved after this process (docs/NONCES.md): the state
        // file's rule. Not waited for on disk: a give-back lost in a crash of the
        // database only wastes the values it gave back.
        with_retries(&target, RETRY_FOR, &mut self.client, |c| {
            c.batch_execute(&format!(
                "BEGIN; SET LOCAL synchronous_commit = off; SET LOCAL veilkit.release = 'on'; \
                 UPDATE veilkit_nonce_state SET highest = {keep} \
                 WHERE machine = {machine} AND width = {bits} AND highest = {reserved}; COMMIT"
            ))
            .inspect_err(|_| rollback(c))
        })?;
        if self.mine.get(&(machine, bits)) == Some(&reserved) {
            self.mine.insert((machine, bits), keep);
        }
        Ok(())
    }
}
