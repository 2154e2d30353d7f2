//! A throwaway PostgreSQL cluster for the tests that drive a real server: a temporary
//! directory, a free loopback port, trust authentication, stopped when dropped.

use super::common::{have, run_ok, run_with_input, stderr_of};
use std::path::PathBuf;
use std::process::{Command, Output};

const INSTALL: &str = "apt-get install postgresql postgresql-contrib";

/// A PostgreSQL cluster of its own, stopped when dropped.
pub struct Pg {
    pub dir: tempfile::TempDir,
    bin: PathBuf,
    pub port: u16,
    /// The user the server runs as, when the tests run as root (initdb refuses root).
    runas: Option<String>,
}

fn bindir() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").exists())
        .collect();
    dirs.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    if let Some(d) = dirs.pop() {
        return Some(d);
    }
    let out = Command::new("pg_config").arg("--bindir").output().ok()?;
    let d = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    d.join("initdb").exists().then_some(d)
}

impl Pg {
    /// A new cluster, started; `None` (the skip said) without PostgreSQL.
    pub fn start() -> Option<Pg> {
        let bin = bindir();
        let psql = Command::new("psql")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !have(
            "PostgreSQL (initdb, pg_ctl, psql)",
            INSTALL,
            bin.is_some() && psql,
        ) {
            return None;
        }
        let bin = bin.expect("checked");
        let dir = tempfile::tempdir().unwrap();
        // SAFETY: getuid has no preconditions and cannot fail.
        #[allow(unsafe_code)]
        let root = unsafe { libc::getuid() } == 0;
        let runas = root.then(|| "postgres".to_string());
        if let Some(user) = &runas {
            let id = |flag: &str| -> u32 {
                let out = Command::new("id").args([flag, user]).output().unwrap();
                assert!(out.status.success(), "no user {user} to run PostgreSQL as");
                String::from_utf8(out.stdout)
                    .unwrap()
                    .trim()
                    .parse()
                    .unwrap()
            };
            std::os::unix::fs::chown(dir.path(), Some(id("-u")), Some(id("-g"))).unwrap();
        }
        let port = super::common::free_port();
        let pg = Pg {
            dir,
            bin,
            port,
            runas,
        };
        let data = pg.dir.path().join("data");
        run_ok(
            pg.server_cmd("initdb")
                .args([
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "-E",
                    "UTF8",
                    "--no-sync",
                    "-D",
                ])
                .arg(&data),
        );
        pg.start_server();
        Some(pg)
    }

    /// Starts the server of the cluster (again).
    pub fn start_server(&self) {
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
            self.port,
            self.dir.path().display()
        );
        let out = self
            .server_cmd("pg_ctl")
            .args(["-w", "-t", "60", "-o", &opts, "-l"])
            .arg(self.dir.path().join("log"))
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .arg("start")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pg_ctl start: {}{}",
            stderr_of(&out),
            std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
        );
    }

    /// Stops the server at once (`-m immediate`: as a crash, every connection cut).
    pub fn stop_server(&self) {
        let out = self
            .server_cmd("pg_ctl")
            .args(["-m", "immediate", "-w", "-D"])
            .arg(self.dir.path().join("data"))
            .arg("stop")
            .output()
            .unwrap();
        assert!(out.status.success(), "pg_ctl stop: {}", stderr_of(&out));
    }

    /// Turns TLS on with a server certificate for 127.0.0.1 signed by a CA of its own,
    /// and refuses connections without TLS; returns the CA's PEM file. `None` (the skip
    /// said) without the openssl program to make them.
    pub fn require_tls(&self) -> Option<PathBuf> {
        let d = self.dir.path();
        super::common::test_certificates(d)?;
        let data = d.join("data");
        for f in ["server.pem", "server.key"] {
            std::fs::copy(d.join(f), data.join(f)).unwrap();
        }
        if let Some(user) = &self.runas {
            let out = Command::new("chown")
                .arg(user)
                .arg(data.join("server.pem"))
                .arg(data.join("server.key"))
                .output()
                .unwrap();
            assert!(out.status.success());
        }
        std::fs::set_permissions(
            data.join("server.key"),
            std::os::unix::fs::PermissionsExt::from_mode(0o600),
        )
        .unwrap();
        let conf = data.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).unwrap();
        text.push_str("\nssl = on\nssl_cert_file = 'server.pem'\nssl_key_file = 'server.key'\n");
        std::fs::write(&conf, text).unwrap();
        let hba = data.join("pg_hba.conf");
        let text = std::fs::read_to_string(&hba).unwrap();
        std::fs::write(
            &hba,
            format!(
                "hostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n{text}"
            ),
        )
        .unwrap();
        self.stop_server();
        self.start_server();
        Some(d.join("ca.pem"))
    }

    /// The URL of its database `postgres` as user `postgres`.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn server_cmd(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        match &self.runas {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(path);
                c
            }
            None => Command::new(path),
        }
    }

    /// psql with `sql` on its standard input: unaligned, tuples only, stopping at the
    /// first error.
    pub fn psql(&self, sql: &str) -> Output {
        let mut cmd = Command::new("psql");
        cmd.args([
            "-X",
            "-q",
            "-At",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            "127.0.0.1",
            "-U",
        ])
        .arg("postgres")
        .arg("-p")
        .arg(self.port.to_string())
        .arg("-d")
        .arg("postgres");
        run_with_input(&mut cmd, sql.as_bytes())
    }

    /// psql's output, which must succeed.
    pub fn ok(&self, sql: &str) -> String {
        let out = self.psql(sql);
        assert!(out.status.success(), "psql: {}\n{sql}", stderr_of(&out));
        String::from_utf8(out.stdout).unwrap()
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        let _ = self
            .server_cmd("pg_ctl")
            .args(["-m", "immediate", "-D"])
            .arg(self.dir.path().join("data"))
            .arg("stop")
            .output();
    }
}
