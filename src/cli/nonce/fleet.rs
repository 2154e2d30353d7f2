//! Where a run of `veilkit nonce` keeps its state and which machine id it takes: a state
//! file or a PostgreSQL table; an id given, this host's place in a node list, or the
//! lowest id free under the guard.

use super::Args;
use crate::nonce::Reserve;
use crate::nonce::machine;
use crate::nonce::pg::{Lease, PgState, Target, Want, is_url};
use crate::nonce::state::StateFile;
use anyhow::Context;
use std::ffi::OsStr;

/// `--machine-id`: a number or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MachineArg {
    /// This id.
    Id(u32),
    /// The lowest free under the guard.
    Auto,
}

/// Parses `--machine-id`.
pub fn parse_machine(s: &str) -> Result<MachineArg, String> {
    if s == "auto" {
        return Ok(MachineArg::Auto);
    }
    match s.parse::<u32>() {
        Ok(n) if n <= crate::nonce::MAX_MACHINE => Ok(MachineArg::Id(n)),
        _ => Err(
            "a machine id is 0 to 511, or `auto` (with --guard or --state postgres://...)".into(),
        ),
    }
}

/// Where reservations are made.
pub enum Store {
    /// A state file.
    File(StateFile),
    /// A database.
    Pg(Box<PgState>),
}

impl Store {
    /// As the generator takes it.
    pub fn reserve(&mut self) -> &mut dyn Reserve {
        match self {
            Store::File(f) => f,
            Store::Pg(p) => &mut **p,
        }
    }
}

/// What a run issues under.
pub struct Setup {
    /// Its state.
    pub store: Store,
    /// Its machine id.
    pub machine: u32,
    /// Its lease, under `--guard` (or `auto`).
    pub lease: Option<Lease>,
}

/// A database URL given as an option: refused when it holds a password and came from
/// the command line (every user sees it in the process list); from its environment
/// variable it is taken.
fn url_option(value: &OsStr, option: &str, env: &str) -> anyhow::Result<Target> {
    let text = value
        .to_str()
        .with_context(|| format!("{option}: not UTF-8"))?;
    let from_env = std::env::var_os(env).is_some_and(|v| v == value);
    let authority = text
        .split_once("://")
        .map(|(_, rest)| rest.split(['/', '?']).next().unwrap_or(""))
        .unwrap_or("");
    let has_password = authority
        .rsplit_once('@')
        .is_some_and(|(user, _)| user.contains(':'));
    if has_password && !from_env {
        return Err(super::super::report::hinted(
            format!(
                "{option}: a password in the URL would be visible to every user in the process list"
            ),
            format!("give the password in PGPASSWORD or ~/.pgpass, or the whole URL in {env}"),
        ));
    }
    Target::parse(text)
        .map_err(anyhow::Error::new)
        .with_context(|| option.to_string())
}

/// The state, machine id and lease of a run, from its arguments.
pub fn setup(args: &Args) -> anyhow::Result<Setup> {
    let state_db = match &args.state {
        Some(s) if is_url(&s.to_string_lossy()) => {
            Some(url_option(s.as_os_str(), "--state", "VEILKIT_NONCE_STATE")?)
        }
        _ => None,
    };
    let guard = match &args.guard {
        Some(g) => Some(url_option(g.as_os_str(), "--guard", "VEILKIT_NONCE_GUARD")?),
        None => None,
    };
    let machine = match (&args.machine_id_from, args.machine_id) {
        (Some(list), _) => Some(machine_from_list(list)?),
        (None, MachineArg::Id(m)) => Some(m),
        (None, MachineArg::Auto) => None,
    };
    // `auto` needs somewhere to take an id from: the guard, else the state's database.
    let lease_at = guard.as_ref().or(match machine {
        None => state_db.as_ref(),
        Some(_) => None,
    });
    let lease = match lease_at {
        Some(t) => {
            let want = machine.map_or(Want::Lowest, Want::Id);
            let lease = Lease::take(t, want).map_err(super::state_hint)?;
            if machine.is_none() {
                super::super::report::notice(format!(
                    "machine id {} (the lowest free under the guard {})",
                    lease.machine(),
                    t.shown()
                ));
            }
            Some(lease)
        }
        None if machine.is_none() => {
            return Err(super::super::report::hinted(
                "--machine-id auto: no guard to take an id from",
                "add --guard postgres://USER@HOST/DB (or keep the state there: --state postgres://...)",
            ));
        }
        None => None,
    };
    let machine = machine
        .or(lease.as_ref().map(Lease::machine))
        .expect("taken");
    let store = match state_db {
        Some(t) => Store::Pg(Box::new(PgState::open(t).map_err(super::state_hint)?)),
        None => {
            let path = match &args.state {
                Some(p) => p.clone(),
                None => StateFile::default_path().ok_or_else(|| {
                    super::super::report::hinted(
                        "nonce: no state directory (neither XDG_STATE_HOME nor HOME is set)",
                        "pass --state FILE: processes that share it never issue the same nonce",
                    )
                })?,
            };
            Store::File(StateFile::new(path))
        }
    };
    Ok(Setup {
        store,
        machine,
        lease,
    })
}

/// `--machine-id-from FILE`: this host's place in the node list.
fn machine_from_list(list: &std::path::Path) -> anyhow::Result<u32> {
    let shown = list.display();
    let mut f = std::fs::File::open(list).with_context(|| format!("--machine-id-from {shown}"))?;
    let bytes = crate::streams::read_capped(&mut f, crate::streams::SMALL_FILE_CAP)
        .with_context(|| format!("--machine-id-from {shown}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("--machine-id-from {shown}: not UTF-8 text"))?;
    let host = std::env::var("VEILKIT_HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| machine::host_name().to_owned());
    machine::from_list(&text, &host).map_err(|e| {
        let hint = match e {
            machine::ListError::NotListed { .. } => {
                "add this host's name to the list (the same list on every host), or give --machine-id"
            }
            _ => "one host name a line, each once; blank lines and # comments take no place",
        };
        super::super::report::with_hint(
            anyhow::Error::new(e).context(format!("--machine-id-from {shown}")),
            hint,
        )
    })
}
