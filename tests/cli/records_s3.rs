//! `veilkit records` with `s3://` files on a real S3-compatible server: SeaweedFS (`weed
//! server -s3`, built by `.ci/deps` from the Go module proxy) on loopback, with an
//! identity of its own, so that signatures are checked.

use super::common::{free_port, have, keyfile, stderr_of, stdout_of, veilkit};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ACCESS: &str = "VKTESTACCESS";
const SECRET: &str = "vk-test-secret-0123456789";

/// A throwaway SeaweedFS with its S3 gateway; killed when dropped.
struct Weed {
    child: Child,
    _dir: tempfile::TempDir,
    s3: u16,
}

/// The weed binary: VEILKIT_WEED, else `weed` on PATH.
fn weed_bin() -> Option<PathBuf> {
    let bin = std::env::var_os("VEILKIT_WEED")
        .map(PathBuf::from)
        .unwrap_or_else(|| "weed".into());
    Command::new(&bin)
        .arg("version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| bin)
}

impl Weed {
    fn start() -> Option<Weed> {
        let bin = weed_bin();
        if !have(
            "SeaweedFS (weed)",
            "bash .ci/deps builds it; or set VEILKIT_WEED to a weed binary",
            bin.is_some(),
        ) {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("s3.json");
        std::fs::write(
            &config,
            format!(
                r#"{{"identities":[{{"name":"t","credentials":[{{"accessKey":"{ACCESS}","secretKey":"{SECRET}"}}],"actions":["Admin","Read","Write","List","Tagging"]}}]}}"#
            ),
        )
        .unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        let (master, volume, filer, s3) = (free_port(), free_port(), free_port(), free_port());
        let child = Command::new(bin.unwrap())
            .arg("server")
            .arg(format!("-dir={}", data.display()))
            .args(["-ip=127.0.0.1", "-ip.bind=127.0.0.1"])
            .arg(format!("-master.port={master}"))
            .arg(format!("-volume.port={volume}"))
            .arg(format!("-filer.port={filer}"))
            .arg("-s3")
            .arg(format!("-s3.port={s3}"))
            .arg(format!("-s3.config={}", config.display()))
            .args(["-volume.max=4", "-master.volumeSizeLimitMB=64"])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("weed.log")).unwrap())
            .spawn()
            .unwrap();
        let w = Weed {
            child,
            _dir: dir,
            s3,
        };
        // Ready when a bucket can be made (the gateway answers and the filer is up).
        let started = Instant::now();
        loop {
            let out = Command::new("curl")
                .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT"])
                .args(["--aws-sigv4", "aws:amz:us-east-1:s3", "--user"])
                .arg(format!("{ACCESS}:{SECRET}"))
                .arg(format!("http://127.0.0.1:{s3}/vkbucket"))
                .output()
                .unwrap();
            if String::from_utf8_lossy(&out.stdout) == "200" {
                return Some(w);
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "SeaweedFS did not start: {}",
                std::fs::read_to_string(w._dir.path().join("weed.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.s3)
    }
}

impl Drop for Weed {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `veilkit records ARGS...` with the S3 identity in the environment (or `secret`).
fn records(args: &[&str], key: &Path, secret: &str) -> std::process::Output {
    veilkit()
        .arg("records")
        .args(args)
        .arg("--key-file")
        .arg(key)
        .env("AWS_ACCESS_KEY_ID", ACCESS)
        .env("AWS_SECRET_ACCESS_KEY", secret)
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_ENDPOINT_URL")
        .env("HOME", "/nonexistent")
        .output()
        .unwrap()
}

/// Rows of a CSV of about 70 bytes each.
fn rows(n: u64) -> String {
    let mut s = String::from("id,name,email\n");
    for i in 0..n {
        s.push_str(&format!(
            "{i},person number {i},user{i}@example.com,{}\n",
            i.wrapping_mul(2654435761) % 1_000_003
        ));
    }
    s
}

/// `records seal CSV --key-field id -o URL --endpoint EP` under `secret`.
fn seal_to(csv: &str, url: &str, ep: &str, key: &Path, secret: &str) -> std::process::Output {
    records(
        &[
            "seal",
            csv,
            "--key-field",
            "id",
            "-o",
            url,
            "--endpoint",
            ep,
        ],
        key,
        secret,
    )
}

#[test]
fn seal_to_s3_then_get_open_info_and_verify_from_it() {
    let Some(w) = Weed::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let ep = w.endpoint();
    // One PUT (small) and a multipart upload (past 16 MiB).
    for (name, n) in [("small", 2_000u64), ("large", 320_000)] {
        let csv = dir.path().join(format!("{name}.csv"));
        std::fs::write(&csv, rows(n)).unwrap();
        let url = format!("s3://vkbucket/dir/{name}.vkr");
        let c = csv.to_str().unwrap();
        let out = seal_to(c, &url, &ep, &key, SECRET);
        assert!(out.status.success(), "{name}: {}", stderr_of(&out));
        assert!(
            stderr_of(&out).contains(&format!("into {url}")),
            "{}",
            stderr_of(&out)
        );
        let local = dir.path().join(format!("{name}.vkr"));
        let l = local.to_str().unwrap();
        assert!(
            records(&["seal", c, "--key-field", "id", "-o", l], &key, SECRET)
                .status
                .success()
        );
        let keys = dir.path().join("keys");
        std::fs::write(
            &keys,
            (0..3000u64)
                .map(|i| format!("{}\n", (i * 7919) % (n + 500)))
                .collect::<String>(),
        )
        .unwrap();
        let k = keys.to_str().unwrap();
        for args in [
            vec!["get", "7"],
            vec!["get", "--keys", k],
            vec!["open"],
            vec!["verify", "--json"],
            vec!["info", "--json"],
        ] {
            let mut remote = args.clone();
            remote.insert(1, &url);
            remote.extend(["--endpoint", &ep]);
            let mut here = args.clone();
            here.insert(1, l);
            let (r, h) = (records(&remote, &key, SECRET), records(&here, &key, SECRET));
            assert!(r.status.success(), "{name} {args:?}: {}", stderr_of(&r));
            if args.contains(&"--json") {
                // Two seals of one input: the same records, but index pages and sizes of
                // their own (each file's keyed tokens spread keys differently).
                let json = |o: &std::process::Output| -> serde_json::Value {
                    serde_json::from_str(&stdout_of(o)).unwrap()
                };
                let (jr, jh) = (json(&r), json(&h));
                assert_eq!(jr["records"], jh["records"], "{name} {args:?}");
                assert_eq!(jr["records"], n, "{name} {args:?}");
                assert_eq!(jr["sound"], jh["sound"], "{name} {args:?}");
                if args[0] == "info" && name == "large" {
                    // Sealed to s3:// with 32-bit tags; to a path with 16.
                    assert_eq!(
                        (&jr["index_tag_bits"], &jh["index_tag_bits"]),
                        (&32.into(), &16.into())
                    );
                }
                continue;
            }
            let shown = |o: &std::process::Output| stdout_of(o).replace(&url, "F").replace(l, "F");
            assert_eq!(shown(&r), shown(&h), "{name} {args:?}");
        }
        // The key is taken: no silent replacement.
        let again = seal_to(c, &url, &ep, &key, SECRET);
        assert_eq!(again.status.code(), Some(2));
        assert!(
            stderr_of(&again).contains("the object exists"),
            "{}",
            stderr_of(&again)
        );
    }
}

#[test]
fn a_wrong_secret_is_a_403_that_names_the_object_and_never_the_secret() {
    let Some(w) = Weed::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let csv = dir.path().join("a.csv");
    std::fs::write(&csv, rows(10)).unwrap();
    let ep = w.endpoint();
    let c = csv.to_str().unwrap();
    assert!(
        seal_to(c, "s3://vkbucket/a.vkr", &ep, &key, SECRET)
            .status
            .success()
    );
    let wrong = "not-the-secret-at-all";
    for (what, out) in [
        (
            "get",
            records(
                &["get", "s3://vkbucket/a.vkr", "1", "--endpoint", &ep],
                &key,
                wrong,
            ),
        ),
        ("seal", seal_to(c, "s3://vkbucket/b.vkr", &ep, &key, wrong)),
    ] {
        assert_eq!(out.status.code(), Some(2), "{what}");
        let err = stderr_of(&out);
        assert!(
            err.contains("s3://vkbucket/") && err.contains("403"),
            "{what}: {err}"
        );
        assert!(
            !err.contains(wrong) && !err.contains(SECRET) && !err.contains("Signature="),
            "{err}"
        );
    }
    // Credentials from a profile file instead of the environment.
    let creds = dir.path().join("credentials");
    std::fs::write(
        &creds,
        format!("[ci]\naws_access_key_id = {ACCESS}\naws_secret_access_key = {SECRET}\n"),
    )
    .unwrap();
    let out = veilkit()
        .args([
            "records",
            "get",
            "s3://vkbucket/a.vkr",
            "3",
            "--endpoint",
            &ep,
            "--key-file",
        ])
        .arg(&key)
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env("AWS_SHARED_CREDENTIALS_FILE", &creds)
        .env("AWS_PROFILE", "ci")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        stdout_of(&out).starts_with("3,person number 3,"),
        "{}",
        stdout_of(&out)
    );
}
