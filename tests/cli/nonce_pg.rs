//! `veilkit nonce` across a fleet, against a real PostgreSQL: the state in a table
//! (`--state postgres://`), the guard's lease on a machine id (`--guard`, `--machine-id
//! auto`), with kill -9 storms and the database restarted under running processes.

use super::common::{std_veilkit, stderr_of, stdout_of};
use super::pg_cluster::Pg;
use std::collections::HashSet;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn nonce(args: &[&str]) -> Command {
    let mut c = std_veilkit();
    c.arg("nonce").args(args);
    c
}

/// A child writing its nonces to a file of its own (so that what a killed child wrote is
/// read back).
fn spawn_to(args: &[&str], out: &std::path::Path) -> Child {
    nonce(args)
        .stdout(std::fs::File::create(out).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn kill9(c: &mut Child) {
    // SAFETY: kill(2) on our own child's pid, which has not been waited for.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(c.id() as i32, libc::SIGKILL);
    }
    let _ = c.wait();
}

/// Every value in `files` (complete lines only: a killed child may leave half a line),
/// each counted once: a value seen twice fails with the files it came from.
fn all_unique(files: &[std::path::PathBuf], width_hex: usize) -> usize {
    let mut seen: HashSet<String> = HashSet::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        for line in text.split_inclusive('\n').filter(|l| l.ends_with('\n')) {
            let v = line.trim_end();
            assert_eq!(v.len(), width_hex, "{}: {v:?}", f.display());
            assert!(
                seen.insert(v.to_string()),
                "{v} issued twice ({})",
                f.display()
            );
        }
    }
    seen.len()
}

/// The arguments of a run of `n` nonces on machine id 7 with its state at `url`.
fn on_seven<'a>(url: &'a str, bits: &'a str, kind: &'a str, n: &'a str) -> [&'a str; 10] {
    [
        "--state",
        url,
        "--machine-id",
        "7",
        "--bits",
        bits,
        "--kind",
        kind,
        "-n",
        n,
    ]
}

/// 50 processes share machine id 7 through the database, mixing counter and sortable
/// nonces of one width, while a storm of 60 more is killed with -9 a few milliseconds
/// into their runs (in the middle of reservations), and the database is stopped as by a
/// crash and started again in the middle: no value is issued twice, and every process
/// not killed ends well.
#[test]
fn fifty_processes_share_one_machine_id_through_postgres_without_a_duplicate() {
    let Some(pg) = Pg::start() else { return };
    let url = pg.url();
    let dir = tempfile::tempdir().unwrap();
    for (bits, hex) in [("128", 32), ("64", 16)] {
        let mut files = Vec::new();
        let mut finishing = Vec::new();
        for i in 0..50 {
            let out = dir.path().join(format!("{bits}-{i}"));
            let kind = if i % 2 == 0 { "counter" } else { "sortable" };
            let n = (2_000 + 397 * i).to_string();
            finishing.push(spawn_to(&on_seven(&url, bits, kind, &n), &out));
            files.push(out);
        }
        // The storm: each killed 0 to 29 ms after it starts (a fixed pseudo-random
        // sequence), the database crashing and coming back after the twentieth.
        let mut ms = 7u64;
        for k in 0..60 {
            let out = dir.path().join(format!("{bits}-k{k}"));
            let kind = if k % 2 == 0 { "counter" } else { "sortable" };
            let mut c = spawn_to(&on_seven(&url, bits, kind, "100000"), &out);
            files.push(out);
            ms = (ms * 1103515245 + 12345) % 2147483648;
            std::thread::sleep(Duration::from_millis(ms % 30));
            kill9(&mut c);
            if k == 20 {
                pg.stop_server();
                std::thread::sleep(Duration::from_millis(500));
                pg.start_server();
            }
        }
        for c in finishing {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", stderr_of(&out));
        }
        let n = all_unique(&files, hex);
        assert!(
            n >= (0..50).map(|i| 2_000 + 397 * i).sum::<usize>(),
            "{n} values"
        );
        // After all that, a new process continues after every value issued.
        let out = dir.path().join(format!("{bits}-after"));
        let mut c = spawn_to(&on_seven(&url, bits, "counter", "1000"), &out);
        assert!(c.wait().unwrap().success());
        files.push(out);
        all_unique(&files, hex);
    }
}

/// The table only grows: an edit by hand that lowers a mark or deletes a row is refused
/// by the database; a process that sees the state go back (the trigger disabled) stops
/// with an error rather than issue again.
#[test]
fn the_state_table_never_goes_back() {
    let Some(pg) = Pg::start() else { return };
    let url = pg.url();
    let out = nonce(&["--state", &url, "-n", "5"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    for sql in [
        "UPDATE veilkit_nonce_state SET highest = 1",
        "DELETE FROM veilkit_nonce_state",
        "TRUNCATE veilkit_nonce_state",
    ] {
        let o = pg.psql(sql);
        assert!(!o.status.success(), "{sql} was allowed");
        assert!(
            stderr_of(&o).contains("veilkit_nonce_state:"),
            "{}",
            stderr_of(&o)
        );
    }
    // A state restored from an old backup under a running process: it stops.
    let c = nonce(&["--state", &url, "--kind", "sortable", "-n", "2000000000"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    pg.ok("ALTER TABLE veilkit_nonce_state DISABLE TRIGGER USER; \
         UPDATE veilkit_nonce_state SET highest = 1; \
         ALTER TABLE veilkit_nonce_state ENABLE TRIGGER USER;");
    let started = Instant::now();
    let out = c.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(err.contains("the state went back"), "{err}");
}

/// The lease: a second process with the same id refuses while the first lives, naming
/// the id, and starts once it has ended (killed with -9 included); `auto` gives 20
/// concurrent processes 20 distinct ids.
#[test]
fn the_guard_keeps_two_live_processes_off_one_machine_id() {
    let Some(pg) = Pg::start() else { return };
    let url = pg.url();
    let dir = tempfile::tempdir().unwrap();
    let state = |n: &str| dir.path().join(n).display().to_string();
    let (sa, sb) = (state("a"), state("b"));
    for how in ["ends", "kill -9"] {
        let mut first = nonce(&[
            "--guard",
            &url,
            "--machine-id",
            "9",
            "--state",
            &sa,
            "--kind",
            "sortable",
            "-n",
            "2000000000",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        std::thread::sleep(Duration::from_millis(800));
        let second = nonce(&["--guard", &url, "--machine-id", "9", "--state", &sb])
            .output()
            .unwrap();
        assert_eq!(second.status.code(), Some(2), "{how}");
        let err = stderr_of(&second);
        assert!(
            err.contains("machine id 9 is held by another live process"),
            "{err}"
        );
        // Another id starts at once.
        let other = nonce(&["--guard", &url, "--machine-id", "10", "--state", &sb])
            .output()
            .unwrap();
        assert!(other.status.success(), "{}", stderr_of(&other));
        match how {
            "ends" => {
                // SAFETY: SIGTERM to our own child.
                #[allow(unsafe_code)]
                unsafe {
                    libc::kill(first.id() as i32, libc::SIGTERM);
                }
                let _ = first.wait();
            }
            _ => kill9(&mut first),
        }
        let started = Instant::now();
        let mut last = String::new();
        loop {
            let o = nonce(&["--guard", &url, "--machine-id", "9", "--state", &sb])
                .output()
                .unwrap();
            if o.status.success() {
                break;
            }
            last = stderr_of(&o);
            assert!(started.elapsed() < Duration::from_secs(20), "{how}: {last}");
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = last;
    }
    // auto: 20 concurrent processes, 20 distinct ids, each said on stderr as it starts.
    let mut children: Vec<Child> = (0..20)
        .map(|i| {
            nonce(&[
                "--guard",
                &url,
                "--machine-id",
                "auto",
                "--state",
                &state(&format!("auto{i}")),
                "--kind",
                "sortable",
                "-n",
                "2000000000",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    let mut ids = HashSet::new();
    for c in &mut children {
        use std::io::BufRead;
        let mut line = String::new();
        std::io::BufReader::new(c.stderr.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let id: u32 = line
            .strip_prefix("veilkit: machine id ")
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no id said: {line}"));
        ids.insert(id);
    }
    for c in &mut children {
        kill9(c);
    }
    let _ = stdout_of;
    assert_eq!(ids.len(), 20, "{ids:?}");
    assert_eq!(
        ids,
        (0..20).collect::<HashSet<u32>>(),
        "the lowest free ids"
    );
}

/// A reservation that waits on a row lock past its statement timeout is cancelled by the
/// server and tried again until the lock is let go: it succeeds, late, without a
/// duplicate.
#[test]
fn a_statement_timeout_is_retried() {
    let Some(pg) = Pg::start() else { return };
    let url = pg.url();
    let first = nonce(&["--state", &url, "-n", "3"]).output().unwrap();
    assert!(first.status.success(), "{}", stderr_of(&first));
    // Another session holds the row for 2 s.
    let holder = {
        let mut c = Command::new("psql");
        c.args([
            "-X",
            "-q",
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-p",
        ])
        .arg(pg.port.to_string())
        .args([
            "-c",
            "BEGIN; SELECT * FROM veilkit_nonce_state FOR UPDATE; SELECT pg_sleep(2); COMMIT;",
        ])
        .stdout(Stdio::null());
        c.spawn().unwrap()
    };
    std::thread::sleep(Duration::from_millis(300));
    let timed = format!("{url}?options=-c%20statement_timeout%3D200");
    let started = Instant::now();
    let second = nonce(&["--state", &timed, "-n", "3"]).output().unwrap();
    let took = started.elapsed();
    assert!(second.status.success(), "{}", stderr_of(&second));
    assert!(
        took > Duration::from_millis(1200),
        "did not wait for the lock: {took:?}"
    );
    let mut holder = holder;
    assert!(holder.wait().unwrap().success());
    let all: Vec<String> = [first, second]
        .iter()
        .flat_map(|o| stdout_of(o).lines().map(str::to_string).collect::<Vec<_>>())
        .collect();
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), 6, "{all:?}");
}

/// A guarded run whose database goes away stops within seconds, saying why, rather than
/// go on issuing while another process may take its id.
#[test]
fn a_guarded_run_stops_when_its_lease_cannot_be_renewed() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s").display().to_string();
    let c = nonce(&[
        "--guard",
        &pg.url(),
        "--machine-id",
        "4",
        "--state",
        &state,
        "--kind",
        "sortable",
        "-n",
        "2000000000",
        "--format",
        "binary",
    ])
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    pg.stop_server();
    let stopped = Instant::now();
    let out = c.wait_with_output().unwrap();
    assert!(
        stopped.elapsed() < Duration::from_secs(6),
        "{:?}",
        stopped.elapsed()
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(err.contains("machine id 4: the lease"), "{err}");
    assert!(err.contains("could not be renewed"), "{err}");
}

/// `--machine-id-from`: this host's place in the node list is its id; a host not in the
/// list is an error that says so.
#[test]
fn machine_ids_come_from_a_node_list() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("nodes");
    std::fs::write(&list, "# the fleet\nweb-1\nweb-2.example.com\n\nweb-3\n").unwrap();
    let state = dir.path().join("s");
    for (host, id) in [("web-1", 0u128), ("web-2", 1), ("WEB-3.example.com", 2)] {
        let out = nonce(&["-n", "2"])
            .arg("--state")
            .arg(&state)
            .arg("--machine-id-from")
            .arg(&list)
            .env("VEILKIT_HOSTNAME", host)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        for line in stdout_of(&out).lines() {
            let v = u128::from_str_radix(line, 16).unwrap();
            assert_eq!((v >> 77) & 511, id, "{host}: {line}");
        }
    }
    let out = nonce(&[])
        .arg("--state")
        .arg(&state)
        .arg("--machine-id-from")
        .arg(&list)
        .env("VEILKIT_HOSTNAME", "db-1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains("host db-1 is not in the node list (3 names)"),
        "{err}"
    );
    assert!(err.contains("hint: add this host's name"), "{err}");
    // Not both.
    let out = nonce(&["--machine-id", "3"])
        .arg("--machine-id-from")
        .arg(&list)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// TLS where asked: with `sslmode=require` and the server's CA in `sslrootcert` the state
/// is reached over TLS (the server refuses anything else); without the CA the server's
/// certificate is not trusted and the error says so; `sslmode=disable` is refused by
/// the server.
#[test]
fn the_database_is_reached_over_tls_where_asked() {
    let Some(pg) = Pg::start() else { return };
    let Some(ca) = pg.require_tls() else { return };
    let url = pg.url();
    let ok = nonce(&["-n", "2"])
        .arg("--state")
        .arg(format!(
            "{url}?sslmode=require&sslrootcert={}",
            ca.display()
        ))
        .output()
        .unwrap();
    assert!(ok.status.success(), "{}", stderr_of(&ok));
    assert_eq!(stdout_of(&ok).lines().count(), 2);
    let started = Instant::now();
    let untrusted = nonce(&["--state", &format!("{url}?sslmode=require")])
        .output()
        .unwrap();
    assert_eq!(untrusted.status.code(), Some(2));
    let err = stderr_of(&untrusted);
    assert!(err.to_lowercase().contains("certificate"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "a verification failure is not retried"
    );
    let plain = nonce(&["--state", &format!("{url}?sslmode=disable")])
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(2));
    assert!(
        stderr_of(&plain).contains("no encryption"),
        "{}",
        stderr_of(&plain)
    );
}

/// A password in a URL on the command line is refused without being echoed; from the
/// environment it is taken, and no message names it.
#[test]
fn database_passwords_are_never_printed() {
    let out = nonce(&["--state", "postgres://alice:hunter2@127.0.0.1:1/db"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains("process list") && !err.contains("hunter2"),
        "{err}"
    );
    for (var, option) in [
        ("VEILKIT_NONCE_STATE", "--state"),
        ("VEILKIT_NONCE_GUARD", "--guard"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut c = nonce(&[]);
        c.env(var, "postgres://alice:hunter2@127.0.0.1:1/db");
        if option == "--guard" {
            c.arg("--state").arg(dir.path().join("s"));
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = stderr_of(&out);
        assert!(
            err.contains("postgres://alice@127.0.0.1:1/db") && !err.contains("hunter2"),
            "{err}"
        );
    }
}
