//! Nonce state and machine-id leases in PostgreSQL, for fleets: `--state postgres://...`
//! shares what the state file holds between hosts, and `--guard postgres://...` keeps two
//! live processes from using one machine id (docs/NONCES.md).

mod connect;
mod guard;
mod state;

pub use connect::{RETRY_FOR, START_RETRY_FOR, Target, is_url};
pub use guard::{BEAT, HOLD, LOCK_CLASS, Lease, TAKEOVER, Want};
pub use state::{PgState, SCHEMA};
