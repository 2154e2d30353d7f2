//! Nonce state and machine-id leases in PostgreSQL, for fleets: `--state postgres://...`
//! shares what the state file holds between hosts, and `--guard postgres://...` keeps two
//! live processes from using one machine id (docs/NONCES.md).

mod connect;
mod guard;
mod state;

pub use connect::{Target, is_url};
pub use guard::{Lease, Want};
pub use state::PgState;
