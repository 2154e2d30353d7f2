//! `veilkit records` on files at a URL: nginx (Debian) serving a directory on loopback,
//! its access log counting the requests and bytes each command made.

use super::common::{have, have_program, keyfile, stderr_of, stdout_of, veilkit};
use std::path::{Path, PathBuf};

/// A throwaway nginx serving `root` on a loopback port, logging each request's range and
/// bytes sent; stopped when dropped.
pub struct Nginx {
    dir: tempfile::TempDir,
    pub port: u16,
    tls: bool,
}

impl Nginx {
    /// Starts nginx, or `None` (skipping, or failing under CI) when it is not installed.
    pub fn start(root: &Path) -> Option<Nginx> {
        Nginx::start_with(root, false)
    }

    /// [`Nginx::start`], serving HTTPS with a certificate for 127.0.0.1 from a CA of its
    /// own (`ca.pem` in [`Nginx::dir`]) when `tls`.
    pub fn start_with(root: &Path, tls: bool) -> Option<Nginx> {
        let present = ["nginx", "/usr/sbin/nginx"].iter().any(|p| {
            std::process::Command::new(p)
                .arg("-v")
                .output()
                .is_ok_and(|o| o.status.success())
        });
        if !have("nginx", "apt-get install nginx-light", present) {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let port = super::common::free_port();
        if tls {
            super::common::test_certificates(dir.path())?;
        }
        let d = dir.path().display();
        let listen = if tls {
            format!(
                "listen 127.0.0.1:{port} ssl; ssl_certificate {d}/server.pem; ssl_certificate_key {d}/server.key;"
            )
        } else {
            format!("listen 127.0.0.1:{port};")
        };
        // As root, nginx's workers would run as nobody, which cannot read a test's
        // files (sealed 0600): they run as this user then.
        let user = if rustix_is_root() { "user root;" } else { "" };
        let conf = format!(
            "worker_processes 1;\n{user}\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
             events {{ worker_connections 256; }}\n\
             http {{\n\
               log_format r '$status $body_bytes_sent \"$http_range\"';\n\
               access_log {d}/access.log r;\n\
               client_body_temp_path {d}/b; proxy_temp_path {d}/p; fastcgi_temp_path {d}/f;\n\
               uwsgi_temp_path {d}/u; scgi_temp_path {d}/s;\n\
               server {{ {listen} root {}; gzip off;\n\
                 location /down/ {{ return 503; }} }}\n\
             }}\n",
            root.display()
        );
        std::fs::write(dir.path().join("nginx.conf"), conf).unwrap();
        let bin = if Path::new("/usr/sbin/nginx").exists() {
            "/usr/sbin/nginx"
        } else {
            "nginx"
        };
        let out = std::process::Command::new(bin)
            .arg("-c")
            .arg(dir.path().join("nginx.conf"))
            .arg("-p")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "nginx: {}", stderr_of(&out));
        Some(Nginx { dir, port, tls })
    }

    /// Where its files are (`ca.pem` with TLS).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The URL of `name` under the root.
    pub fn url(&self, name: &str) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}/{name}", self.port)
    }

    /// The requests logged since the last call (status, bytes, range), and the log
    /// emptied.
    pub fn take_log(&self) -> Vec<(u16, u64, String)> {
        let path = self.dir.path().join("access.log");
        // nginx writes each line as its request ends, before the client has the last
        // byte: a command that has exited has all of its lines there.
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        std::fs::write(&path, "").unwrap();
        text.lines()
            .map(|l| {
                let mut p = l.splitn(3, ' ');
                (
                    p.next().unwrap().parse().unwrap(),
                    p.next().unwrap().parse().unwrap(),
                    p.next().unwrap().trim_matches('"').to_string(),
                )
            })
            .collect()
    }
}

fn rustix_is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = std::process::Command::new("/usr/sbin/nginx")
            .arg("-c")
            .arg(self.dir.path().join("nginx.conf"))
            .arg("-p")
            .arg(self.dir.path())
            .args(["-s", "stop"])
            .output();
    }
}

/// `rows` rows of a people CSV (id, name, email, city, score): about 65 bytes a row.
fn people(rows: u64) -> Vec<u8> {
    let mut s = String::from("id,name,email,city,score\n");
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..rows {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.push_str(&format!(
            "{i},name{},user{i}@example.com,city{},0.{:06}\n",
            x % 1_000_000,
            (x >> 20) % 1000,
            (x >> 30) % 1_000_000
        ));
    }
    s.into_bytes()
}

/// A served directory with `people.vkr` (the 200,000-row file of the issue, 13 MB) and
/// its key.
struct Served {
    dir: tempfile::TempDir,
    key: PathBuf,
    nginx: Nginx,
}

impl Served {
    fn new(rows: u64) -> Option<Served> {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("www");
        std::fs::create_dir(&root).unwrap();
        let nginx = Nginx::start(&root)?;
        let key = keyfile(dir.path(), "k.key");
        std::fs::write(dir.path().join("people.csv"), people(rows)).unwrap();
        let s = Served { dir, key, nginx };
        s.seal("people.vkr", &[]);
        Some(s)
    }

    /// Seals the people CSV into the served `name`, with `extra` arguments.
    fn seal(&self, name: &str, extra: &[&str]) {
        veilkit()
            .args(["records", "seal"])
            .arg(self.dir.path().join("people.csv"))
            .args(["--key-field", "id", "-o"])
            .arg(self.dir.path().join("www").join(name))
            .args(extra)
            .arg("--key-file")
            .arg(&self.key)
            .assert()
            .success();
    }

    fn local(&self) -> PathBuf {
        self.dir.path().join("www/people.vkr")
    }

    /// `veilkit records ARGS... --key-file KEY`.
    fn records(&self, args: &[&str]) -> std::process::Output {
        veilkit()
            .arg("records")
            .args(args)
            .arg("--key-file")
            .arg(&self.key)
            .output()
            .unwrap()
    }
}

/// A cold get reads the header copies (one request) and one page a level: 5 requests and
/// 24 KiB on this file. A key whose 16-bit tag another key of its bucket shares (about 1.4%
/// of keys) reads that key's data page too, and maybe its directory page: 6 or 7
/// requests, 32 KiB (in the same round trips: a unit test counts them). Of 20 keys, at
/// most 3 may take more than 5 (a chance of about 2 in 10,000 that more do by collisions
/// alone), none more than 7, none more than 64 KiB. With 32-bit tags (`--tag-bits 32`,
/// the default for `-o s3://`) every one of 40 keys takes 5 requests and 24 KiB (a chance
/// of about 1 in 100,000 that one of them meets a shared tag).
#[test]
fn a_cold_get_from_nginx_takes_five_requests_and_24_kib() {
    let Some(s) = Served::new(200_000) else {
        return;
    };
    s.seal("wide.vkr", &["--tag-bits", "32"]);
    let len = std::fs::metadata(s.local()).unwrap().len();
    assert!(len > 12_000_000, "{len}");
    for (name, keys) in [("people.vkr", 20u64), ("wide.vkr", 40)] {
        let url = s.nginx.url(name);
        let local = s.dir.path().join("www").join(name);
        s.nginx.take_log();
        let mut more = Vec::new();
        for k in 0..keys {
            let key = ((k * 10_007) % 200_010).to_string();
            let remote = s.records(&["get", &url, &key]);
            let here = s.records(&["get", local.to_str().unwrap(), &key]);
            assert_eq!(remote.status.code(), here.status.code(), "{key}");
            assert_eq!(stdout_of(&remote), stdout_of(&here), "{key}");
            let log = s.nginx.take_log();
            let bytes: u64 = log.iter().map(|l| l.1).sum();
            assert!(
                log.len() <= 7 && bytes <= 65_536,
                "{name} {key}: {} requests, {bytes} bytes: {log:?}",
                log.len()
            );
            if log.len() > 5 && name == "people.vkr" {
                more.push((key.clone(), log.len()));
            } else {
                assert_eq!((log.len(), bytes), (5, 24_576), "{name} {key}: {log:?}");
            }
            assert!(log.iter().all(|l| l.0 == 206), "{log:?}");
        }
        assert!(more.len() <= 3, "{more:?}");
    }
    let info = s.records(&["info", "--json", &s.nginx.url("wide.vkr")]);
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&info)).unwrap();
    assert_eq!(json["index_tag_bits"], 32, "{json}");
}

#[test]
fn batch_gets_info_open_and_verify_at_a_url_answer_as_the_local_file_fetching_each_page_once() {
    let Some(s) = Served::new(30_000) else {
        return;
    };
    let url = s.nginx.url("people.vkr");
    let local = s.local();
    let local = local.to_str().unwrap();
    let len = std::fs::metadata(s.local()).unwrap().len();
    // Keys present and absent, repeated, in random order.
    let keys: String = (0..20_000u64)
        .map(|i| format!("{}\n", (i * 7919) % 33_000))
        .collect();
    let keys_path = s.dir.path().join("keys.txt");
    std::fs::write(&keys_path, keys).unwrap();
    let kp = keys_path.to_str().unwrap();
    s.nginx.take_log();
    let remote = s.records(&["get", &url, "--keys", kp, "--parallel", "16"]);
    let log = s.nginx.take_log();
    let here = s.records(&["get", local, "--keys", kp]);
    assert!(remote.status.success(), "{}", stderr_of(&remote));
    assert_eq!(remote.stdout, here.stdout);
    // Every page at most once: the bytes fetched are at most the file's.
    let bytes: u64 = log.iter().map(|l| l.1).sum();
    assert!(bytes <= len, "{bytes} bytes fetched of a {len}-byte file");
    let mut ranges: Vec<&str> = log.iter().map(|l| l.2.as_str()).collect();
    ranges.sort_unstable();
    let n = ranges.len();
    ranges.dedup();
    assert_eq!(ranges.len(), n, "a range fetched twice");

    for cmd in [
        vec!["open"],
        vec!["verify", "--json"],
        vec!["info", "--json"],
    ] {
        let mut a = cmd.clone();
        a.push(&url);
        let mut b = cmd.clone();
        b.push(local);
        let (ra, rb) = (s.records(&a), s.records(&b));
        assert!(ra.status.success(), "{cmd:?}: {}", stderr_of(&ra));
        let shown = |o: &std::process::Output| stdout_of(o).replace(&url, "F").replace(local, "F");
        assert_eq!(shown(&ra), shown(&rb), "{cmd:?}");
    }
    assert_eq!(
        s.records(&["open", &url]).stdout,
        std::fs::read(s.dir.path().join("people.csv")).unwrap()
    );
}

/// A file with a compression dictionary (record compression 2) at a URL: a cold get
/// reads the dictionary's pages in one request after the header, then one page a level
/// (6 requests; an absent key, 4: no data directory or page); batch gets, open, verify and info answer as the local file.
#[test]
fn a_file_with_a_dictionary_at_a_url_reads_it_in_one_request() {
    let Some(s) = Served::new(30_000) else {
        return;
    };
    s.seal("dict.vkr", &["--compress", "zstd", "--tag-bits", "32"]);
    let url = s.nginx.url("dict.vkr");
    let local = s.dir.path().join("www/dict.vkr");
    let local = local.to_str().unwrap();
    let info = s.records(&["info", "--json", local]);
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&info)).unwrap();
    let dict_pages = json["dictionary_pages"].as_u64().unwrap();
    assert!(dict_pages >= 1, "{json}");
    for key in ["0", "12345", "29999", "30000"] {
        s.nginx.take_log();
        let remote = s.records(&["get", &url, key]);
        let log = s.nginx.take_log();
        assert_eq!(
            stdout_of(&remote),
            stdout_of(&s.records(&["get", local, key]))
        );
        let bytes: u64 = log.iter().map(|l| l.1).sum();
        let want = if key == "30000" { 4 } else { 6 };
        assert_eq!(log.len(), want, "{key}: {log:?}");
        assert_eq!(log[1].1, dict_pages * 4096, "{log:?}");
        if key != "30000" {
            assert_eq!(bytes, 8192 + (dict_pages + 4) * 4096, "{log:?}");
        }
    }
    let keys: String = (0..5_000u64)
        .map(|i| format!("{}\n", (i * 7919) % 33_000))
        .collect();
    let keys_path = s.dir.path().join("dkeys.txt");
    std::fs::write(&keys_path, keys).unwrap();
    let kp = keys_path.to_str().unwrap();
    let remote = s.records(&["get", &url, "--keys", kp]);
    assert!(remote.status.success(), "{}", stderr_of(&remote));
    assert_eq!(
        remote.stdout,
        s.records(&["get", local, "--keys", kp]).stdout
    );
    for cmd in ["open", "verify", "info"] {
        let (ra, rb) = (s.records(&[cmd, &url]), s.records(&[cmd, local]));
        assert!(ra.status.success(), "{cmd}: {}", stderr_of(&ra));
        let shown = |o: &std::process::Output| stdout_of(o).replace(&url, "F").replace(local, "F");
        assert_eq!(shown(&ra), shown(&rb), "{cmd}");
    }
}

#[test]
fn a_tampered_byte_at_a_url_is_an_error_and_nothing_is_printed() {
    let Some(s) = Served::new(30_000) else {
        return;
    };
    let url = s.nginx.url("people.vkr");
    let path = s.local();
    let mut bytes = std::fs::read(&path).unwrap();
    let good = bytes.clone();
    // One byte in every data page's first record area: any get reads a damaged page.
    let page = 4096;
    for at in (8192 + 100..bytes.len()).step_by(page) {
        bytes[at] ^= 0x20;
    }
    std::fs::write(&path, &bytes).unwrap();
    for args in [
        vec!["get", url.as_str(), "77"],
        vec!["open", url.as_str()],
        vec!["verify", url.as_str()],
    ] {
        let out = s.records(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = stderr_of(&out);
        assert!(err.contains("fails authentication"), "{args:?}: {err}");
        assert!(err.contains(&url), "{err}");
    }
    std::fs::write(&path, good).unwrap();
}

#[test]
fn a_pin_refuses_an_older_copy_served_again() {
    let Some(s) = Served::new(2_000) else {
        return;
    };
    let url = s.nginx.url("people.vkr");
    let pin = s.dir.path().join("pins");
    let pin_s = pin.to_str().unwrap();
    let old = std::fs::read(s.local()).unwrap();
    let ok = s.records(&["get", &url, "5", "--pin", pin_s]);
    assert!(ok.status.success(), "{}", stderr_of(&ok));
    // A new commit published, then the old copy served again.
    let more = s.dir.path().join("more.csv");
    std::fs::write(&more, "id,name,email,city,score\n90001,n,e,c,0\n").unwrap();
    veilkit()
        .args(["records", "append"])
        .arg(s.local())
        .arg(&more)
        .arg("--key-file")
        .arg(&s.key)
        .assert()
        .success();
    let newer = s.records(&["get", &url, "90001", "--pin", pin_s]);
    assert!(newer.status.success(), "{}", stderr_of(&newer));
    let text = std::fs::read_to_string(&pin).unwrap();
    assert!(text.lines().nth(1).unwrap().ends_with(" 2"), "{text}");
    std::fs::write(s.local(), &old).unwrap();
    let replay = s.records(&["get", &url, "5", "--pin", pin_s]);
    assert_eq!(replay.status.code(), Some(2));
    assert!(replay.stdout.is_empty());
    let err = stderr_of(&replay);
    assert!(
        err.contains("holds commit 1, and commit 2 of the same file was seen before"),
        "{err}"
    );
    // Without the pin the old copy reads (nothing can tell it is old).
    assert!(s.records(&["get", &url, "5"]).status.success());
    // A local file is pinned the same way.
    let local = s.records(&["get", s.local().to_str().unwrap(), "5", "--pin", pin_s]);
    assert_eq!(local.status.code(), Some(2), "{}", stderr_of(&local));
}

#[test]
fn remote_failures_name_the_url_and_never_a_credential() {
    let Some(s) = Served::new(100) else {
        return;
    };
    let missing = s.nginx.url("nope.vkr");
    let out = s.records(&["get", &missing, "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains(&format!("{missing}: HTTP 404 Not Found")),
        "{}",
        stderr_of(&out)
    );
    // A password in the URL: refused before any request, and not echoed.
    let with_pw = format!("http://alice:hunter2@127.0.0.1:{}/people.vkr", s.nginx.port);
    let out = s.records(&["get", &with_pw, "1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        !err.contains("hunter2") && err.contains("password in a URL"),
        "{err}"
    );
    // A presigned URL's signature is not shown either.
    let signed = format!("{missing}?X-Amz-Signature=deadbeef");
    let err = stderr_of(&s.records(&["get", &signed, "1"]));
    assert!(!err.contains("deadbeef") && err.contains(&missing), "{err}");
    // Updates refuse a URL, saying what to do.
    let url = s.nginx.url("people.vkr");
    let out = s.records(&["delete", &url, "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("read only"), "{}", stderr_of(&out));
}

#[test]
fn a_server_without_ranges_is_named_as_such() {
    if !have_program("python3", "--version", "apt-get install python3") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    std::fs::write(dir.path().join("a.txt"), "x\ny\n").unwrap();
    veilkit()
        .args(["records", "seal"])
        .arg(dir.path().join("a.txt"))
        .arg("-o")
        .arg(dir.path().join("a.vkr"))
        .arg("--key-file")
        .arg(&key)
        .assert()
        .success();
    let port = super::common::free_port();
    // Python's http.server answers every GET with the whole file (no Range support).
    let mut server = std::process::Command::new("python3")
        .args([
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            &port.to_string(),
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/a.vkr");
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    let out = veilkit()
        .args(["records", "get", &url, "1", "--key-file"])
        .arg(&key)
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("does not answer Range requests"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn https_urls_are_read_with_the_ca_given_and_refused_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("www");
    std::fs::create_dir(&root).unwrap();
    let Some(nginx) = Nginx::start_with(&root, true) else {
        return;
    };
    let key = keyfile(dir.path(), "k.key");
    std::fs::write(dir.path().join("a.txt"), "first\nsecond\n").unwrap();
    veilkit()
        .args(["records", "seal"])
        .arg(dir.path().join("a.txt"))
        .arg("-o")
        .arg(root.join("a.vkr"))
        .arg("--key-file")
        .arg(&key)
        .assert()
        .success();
    let url = nginx.url("a.vkr");
    assert!(url.starts_with("https://"));
    let ca = nginx.dir().join("ca.pem");
    let out = veilkit()
        .args(["records", "get", &url, "2", "--cacert"])
        .arg(&ca)
        .arg("--key-file")
        .arg(&key)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "second\n");
    // Without the CA: the certificate does not verify, said at once (not retried).
    let started = std::time::Instant::now();
    let out = veilkit()
        .args(["records", "get", &url, "2", "--key-file"])
        .arg(&key)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains(&url) && err.to_lowercase().contains("certificate"),
        "{err}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "retried: {err}"
    );
}
