//! Record file benchmarks (issue: records). The Tkrzw benchmark's workload: records with
//! 8-byte keys and 100-byte values (1M; 100K with `--quick`), one thread. Measures
//! sealing, opening, random gets in-process (first and second pass, and with no page
//! cache; the first pass's first tenth apart, beside the cost of first touching fresh
//! memory on this machine, which that tenth pays to fill the cache), `records get --keys` of a
//! file and of a pipe, and a one-off `records get` through the real
//! binary, and the file size; beside, in the same run, Tkrzw's HashDBM and TreeDBM
//! (`tkrzw_dbm_perf sequence`, without encryption: the Debian build has no AES codec; its
//! gets come in the order the keys were set, which is the file's), Tkrzw's HashDBM got in
//! a random order as veilkit is (`benches/tkrzw/random_gets.cc`, built against Debian's
//! `libtkrzw-dev`, and with `TKRZW_SRC=DIR`, a Tkrzw 1.0.32 source tree built with
//! `./configure && make`, also with its AES codec), and SQLCipher 4 (Python
//! `sqlcipher3`), when installed. Medians.
//!
//! `cargo bench --bench records` (`-- --quick` for a short run;
//! `TKRZW_SRC=/path/to/tkrzw cargo bench --bench records` for the AES reference;
//! `VEILKIT_BENCH_BASELINE_BIN=/path/to/another/veilkit` runs that binary's `records get
//! --keys FILE` too, alternating with this build's, on the same file: an older build
//! must read the current record format)

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;
use veilkit::bench::records::{input, keys};
use veilkit::keys::Keyring;
use veilkit::progress::NoProgress;
use veilkit::records::file::{RecordFile, Settings, seal};
use veilkit::records::format::{InputFormat, Unlock};
use veilkit::records::input::{KeyField, parse};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn settings(threads: usize) -> Settings {
    Settings {
        threads,
        format: InputFormat::Tsv,
        header_row: false,
        key_field: "1".into(),
        ..Settings::default()
    }
}

fn seal_once(data: &[u8], path: &Path, ring: &Keyring, threads: usize) -> f64 {
    let start = Instant::now();
    let (prefix, mut recs) =
        parse(data, InputFormat::Tsv, Some(&KeyField::Number(1)), false, 1).unwrap();
    let mut f = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .unwrap();
    seal(
        &mut recs,
        prefix,
        &settings(threads),
        &[Unlock::Keyring(ring)],
        &mut f,
        &NoProgress,
    )
    .unwrap();
    start.elapsed().as_secs_f64()
}

fn gets_per_second(file: &mut RecordFile, keys: &[Vec<u8>]) -> f64 {
    let (rate, _) = gets_timed(file, keys);
    rate
}

/// The gets' rate, and the seconds of the first tenth of them (on a fresh open, the
/// tenth that decrypts nearly every page and fills the cache).
fn gets_timed(file: &mut RecordFile, keys: &[Vec<u8>]) -> (f64, f64) {
    let mut buf = Vec::with_capacity(256);
    let tenth = keys.len() / 10;
    let start = Instant::now();
    let mut first = 0.0;
    for (i, k) in keys.iter().enumerate() {
        if i == tenth {
            first = start.elapsed().as_secs_f64();
        }
        buf.clear();
        assert!(file.get_into(k, &mut buf).unwrap());
    }
    (keys.len() as f64 / start.elapsed().as_secs_f64(), first)
}

/// The rate of `keys` got through [`RecordFile::get_batch`], `chunk` keys a call, each
/// record copied to a reused buffer as [`gets_timed`] copies it.
fn batch_gets_per_second(file: &mut RecordFile, keys: &[Vec<u8>], chunk: usize) -> f64 {
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let mut buf = Vec::with_capacity(256);
    let mut found = 0usize;
    let start = Instant::now();
    for part in refs.chunks(chunk) {
        file.get_batch::<()>(part, |record| {
            buf.clear();
            buf.extend_from_slice(record.expect("every key is in the file"));
            found += 1;
            Ok(())
        })
        .unwrap();
    }
    let rate = keys.len() as f64 / start.elapsed().as_secs_f64();
    assert_eq!(found, keys.len());
    rate
}

/// Milliseconds to first touch `bytes` of fresh memory asked to be backed by huge pages,
/// as the page cache's memory is (the cost a first pass pays for filling its cache):
/// the kernel zeroes each page, and on a virtual machine whose host takes back free
/// memory (free page reporting) the host must back it again, which can cost tenfold.
fn fresh_touch_ms(bytes: usize) -> f64 {
    const HUGE: usize = 2 << 20;
    let layout = std::alloc::Layout::from_size_align(bytes, HUGE).unwrap();
    #[allow(unsafe_code)]
    // SAFETY: a non-zero size; the memory is only written below, then freed once with the
    // same layout.
    let p = unsafe { std::alloc::alloc(layout) };
    assert!(!p.is_null());
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    // SAFETY: the range is the allocation just made, aligned to 2 MiB; the advice changes
    // only how the kernel backs it.
    let _ = unsafe { rustix::mm::madvise(p.cast(), bytes, rustix::mm::Advice::LinuxHugepage) };
    let start = Instant::now();
    for at in (0..bytes).step_by(4096) {
        #[allow(unsafe_code)]
        // SAFETY: `at` is inside the allocation.
        unsafe {
            p.add(at).write_volatile(1)
        };
    }
    let ms = start.elapsed().as_secs_f64() * 1e3;
    #[allow(unsafe_code)]
    // SAFETY: allocated above with this layout, freed once.
    unsafe {
        std::alloc::dealloc(p, layout)
    };
    ms
}

/// `tkrzw_dbm_perf sequence` set and get rates, when installed.
fn tkrzw(dbm: &str, n: usize, dir: &Path) -> Option<(f64, f64, u64)> {
    let path = dir.join(format!("tkrzw.{dbm}"));
    // Sequential keys: --random_key would repeat keys and store fewer records.
    let out = Command::new("tkrzw_dbm_perf")
        .args([
            "sequence",
            "--dbm",
            dbm,
            "--iter",
            &n.to_string(),
            "--size",
            "100",
            "--path",
        ])
        .arg(&path)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |prefix: &str, name: &str| -> Option<f64> {
        let line = text.lines().find(|l| l.trim_start().starts_with(prefix))?;
        let at = line.find(&format!("{name}="))? + name.len() + 1;
        line[at..].split_whitespace().next()?.parse().ok()
    };
    Some((
        field("Setting done:", "qps")?,
        field("Getting done:", "qps")?,
        field("file_size=", "file_size")? as u64,
    ))
}

/// Tkrzw's HashDBM with its gets in a random order, as veilkit's are
/// (`benches/tkrzw/random_gets.cc`, built here with the system's C++ compiler): against
/// the system's libtkrzw (Debian `libtkrzw-dev` 1.0.25, which has no cipher), and, when
/// `TKRZW_SRC` names a Tkrzw source tree built with `make` (1.0.32 has the AES record
/// codec), against it without and with AES. Rows: label, sets/s, gets/s on the first and
/// the second pass (medians of `runs` processes); or why there are none.
fn tkrzw_random(n: usize, dir: &Path, runs: usize) -> Result<Vec<(String, f64, f64, f64)>, String> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/tkrzw/random_gets.cc");
    let build = |out: &Path, src_tree: Option<&str>| -> bool {
        let mut cmd = Command::new("c++");
        cmd.args(["-O2", "-std=c++17"])
            .arg(&source)
            .arg("-o")
            .arg(out);
        if let Some(t) = src_tree {
            cmd.arg("-DWITH_AES")
                .arg(format!("-I{t}"))
                .arg(format!("-L{t}"))
                .arg(format!("-Wl,-rpath,{t}"));
        }
        cmd.args(["-ltkrzw", "-lpthread"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let mut variants: Vec<(String, std::path::PathBuf, bool)> = Vec::new();
    let system = dir.join("tkrzw-random-system");
    if build(&system, None) {
        variants.push(("Tkrzw hashDBM 1.0.25, no encryption".into(), system, false));
    }
    let tree = std::env::var("TKRZW_SRC").ok();
    if let Some(t) = &tree {
        let own = dir.join("tkrzw-random-src");
        if !build(&own, Some(t)) {
            return Err(format!(
                "TKRZW_SRC={t}: random_gets.cc does not build against it"
            ));
        }
        variants.push((
            "Tkrzw hashDBM (TKRZW_SRC), no encryption".into(),
            own.clone(),
            false,
        ));
        variants.push(("Tkrzw hashDBM (TKRZW_SRC), AES codec".into(), own, true));
    }
    if variants.is_empty() {
        return Err(
            "benches/tkrzw/random_gets.cc did not build (it needs c++ and libtkrzw: apt \
             install g++ libtkrzw-dev; TKRZW_SRC=a built Tkrzw 1.0.32 source tree adds its \
             AES codec)"
                .into(),
        );
    }
    let db = dir.join("tkrzw-random.tkh");
    let mut rows = Vec::new();
    for (label, exe, aes) in variants {
        let mut cols: [Vec<f64>; 3] = Default::default();
        for _ in 0..runs {
            let mut cmd = Command::new(&exe);
            cmd.arg(n.to_string()).arg(&db);
            if aes {
                cmd.arg("aes");
            }
            let out = cmd.output().map_err(|e| format!("{label}: {e}"))?;
            let text = String::from_utf8_lossy(&out.stdout);
            let f: Vec<f64> = text
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if !out.status.success() || f.len() != 3 {
                return Err(format!("{label}: failed ({})", out.status));
            }
            for (c, x) in cols.iter_mut().zip(f) {
                c.push(x);
            }
        }
        let [a, b, c] = cols.map(median);
        rows.push((label, a, b, c));
    }
    let _ = std::fs::remove_file(&db);
    Ok(rows)
}

const SQLCIPHER: &str = r#"
import sqlcipher3, sys, time, random, os
n, path, inp = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rows = [l.rstrip(b"\n").split(b"\t") for l in open(inp, "rb")]
rows = [(r[0].decode(), r[1]) for r in rows]
if os.path.exists(path): os.remove(path)
db = sqlcipher3.connect(path)
db.execute("pragma key = 'bench passphrase'")
db.execute("create table kv (k text primary key, v blob) without rowid")
t = time.perf_counter()
with db:
    db.executemany("insert into kv values (?, ?)", rows)
ins = n / (time.perf_counter() - t)
random.seed(7)
keys = [rows[random.randrange(n)][0] for _ in range(min(n, 200000))]
cur = db.cursor()
t = time.perf_counter()
for k in keys:
    cur.execute("select v from kv where k = ?", (k,)).fetchone()
gets = len(keys) / (time.perf_counter() - t)
db.close()
print(ins, gets, os.path.getsize(path))
"#;

/// SQLCipher insert and get rates and file size, when `sqlcipher3` is importable.
fn sqlcipher(n: usize, input: &Path, dir: &Path) -> Option<(f64, f64, u64)> {
    let script = dir.join("sqlcipher_bench.py");
    std::fs::write(&script, SQLCIPHER).ok()?;
    let out = Command::new("python3")
        .arg(&script)
        .arg(n.to_string())
        .arg(dir.join("bench.sqlcipher"))
        .arg(input)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let f: Vec<&str> = text.split_whitespace().collect();
    Some((
        f.first()?.parse().ok()?,
        f.get(1)?.parse().ok()?,
        f.get(2)?.parse().ok()?,
    ))
}

/// Opening a 4 KiB page (4068 bytes of ciphertext and a tag): the AEAD veilkit uses
/// (aws-lc-rs's with the default `aws-lc` feature) beside RustCrypto's `aes-gcm-siv`,
/// interleaved rounds of 32K pages each.
fn page_aead_rows(runs: usize) {
    use aes_gcm_siv::aead::{AeadInOut, KeyInit};
    let (key, nonce, aad) = ([7u8; 32], [9u8; 12], [1u8; 37]);
    let ours = veilkit::records::aead::GcmSiv::new(&key);
    let rc = aes_gcm_siv::Aes256GcmSiv::new_from_slice(&key).unwrap();
    let mut sealed = vec![3u8; 4096 - 28];
    let tag = ours.seal(&nonce, &aad, &mut sealed).unwrap();
    sealed.extend_from_slice(&tag);
    let pages = 32_768;
    let mut buf = sealed.clone();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(3) * 3 {
        let start = Instant::now();
        for _ in 0..pages {
            buf.copy_from_slice(&sealed);
            assert!(ours.open(&nonce, &aad, &mut buf).is_some());
        }
        a.push(start.elapsed().as_secs_f64() / pages as f64);
        let start = Instant::now();
        for _ in 0..pages {
            buf.copy_from_slice(&sealed);
            let (body, tag) = buf.split_at_mut(4096 - 28);
            let tag: [u8; 16] = (&*tag).try_into().unwrap();
            rc.decrypt_inout_detached(&nonce.into(), &aad, body.into(), &tag.into())
                .unwrap();
        }
        b.push(start.elapsed().as_secs_f64() / pages as f64);
    }
    let which = if cfg!(feature = "aws-lc") {
        "aws-lc-rs"
    } else {
        "RustCrypto"
    };
    for (label, secs) in [
        (format!("open a 4 KiB page ({which}, in use)"), a),
        ("  RustCrypto aes-gcm-siv, same rounds".to_string(), b),
    ] {
        let lo = secs.iter().cloned().fold(f64::MAX, f64::min);
        let hi = secs.iter().cloned().fold(0.0, f64::max);
        let m = median(secs);
        println!(
            "{label:<44} {:>10.0} ns/page ({:.2} GB/s; {:.0}-{:.0} ns)",
            m * 1e9,
            4068.0 / m / 1e9,
            lo * 1e9,
            hi * 1e9
        );
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    let n = if quick { 100_000 } else { 1_000_000 };
    let runs = if quick { 1 } else { 3 };
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let ring = Keyring::generate().unwrap();
    let key_path = dir.path().join("k.key");
    std::fs::write(&key_path, ring.to_text().as_bytes()).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(
        &key_path,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    let data = input(n, 100);
    let input_path = dir.path().join("in.tsv");
    std::fs::write(&input_path, &data).unwrap();
    let raw = (n * 108) as f64;
    let path = dir.path().join("bench.vkr");

    println!(
        "\nrecord files: {n} records, 8-byte keys, 100-byte values (TSV input, {} bytes), one thread",
        data.len()
    );
    let one: Vec<f64> = (0..runs)
        .map(|_| seal_once(&data, &path, &ring, 1))
        .collect();
    let seal_secs: Vec<f64> = (0..runs)
        .map(|_| seal_once(&data, &path, &ring, 0))
        .collect();
    let seal_rate = n as f64 / median(seal_secs);
    let size = std::fs::metadata(&path).unwrap().len() as f64;
    println!(
        "{:<44} {:>10.2}M records/s   (target >= 3M)",
        "seal (default: packing | encrypting threads)",
        seal_rate / 1e6
    );
    println!(
        "{:<44} {:>10.2}M records/s",
        "seal on one thread",
        n as f64 / median(one) / 1e6
    );
    println!(
        "{:<44} {:>10.3}x key+value bytes, {:.3}x the input file (target <= 1.2x)",
        "file size",
        size / raw,
        size / data.len() as f64
    );

    page_aead_rows(runs);

    let mut file = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    for (label, verified) in [
        ("open, streaming (-o FILE)", false),
        ("open, verified before output (stdout)", true),
    ] {
        let secs: Vec<f64> = (0..runs)
            .map(|_| {
                let start = Instant::now();
                let bytes = file
                    .write_all(&mut std::io::sink(), verified, 256 << 20, &NoProgress)
                    .unwrap();
                assert_eq!(bytes as usize, data.len());
                start.elapsed().as_secs_f64()
            })
            .collect();
        println!(
            "{label:<44} {:>10.2} GB/s of plaintext (target >= 1)",
            data.len() as f64 / median(secs) / 1e9
        );
    }

    // The gets below open the file afresh, as a process that only gets would: the
    // whole-file reads above kept their decrypted pages, which are not the gets' own.
    drop(file);
    let wanted = keys(n, n, 42);
    let mut fresh = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    let (first, first_tenth) = gets_timed(&mut fresh, &wanted);
    let second = gets_per_second(&mut fresh, &keys(n, n, 43));
    // Measured after the gets, so that the first pass's cache cannot reuse this memory.
    let fresh_ms = fresh_touch_ms(128 << 20);
    let again_ms = fresh_touch_ms(128 << 20);
    let mut uncached = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    uncached.set_cache_bytes(0);
    let none = gets_per_second(&mut uncached, &wanted[..n / 5]);
    drop(uncached);
    // The same keys in batches: one call for all of them on a fresh open, then the
    // second pass's keys 4096 to a call (as `records get --keys -` takes a pipe's).
    let mut batched = RecordFile::open(&path, &[Unlock::Keyring(&ring)], false).unwrap();
    let batch_first = batch_gets_per_second(&mut batched, &wanted, n);
    let batch_second = batch_gets_per_second(&mut batched, &keys(n, n, 43), 4096);
    drop(batched);
    println!(
        "{:<44} {:>10.0}K gets/s   (target >= 1M)",
        "random get by key, first pass (256 MiB cache)",
        first / 1e3
    );
    println!(
        "{:<44} {:>10.0} ms, the rest {:.0}K gets/s",
        "  its first tenth (decrypts the pages)",
        first_tenth * 1e3,
        (n - n / 10) as f64 / (n as f64 / first - first_tenth) / 1e3
    );
    println!(
        "{:<44} {:>10.0} ms   (again, just freed: {:.0} ms)",
        "  128 MiB of fresh huge pages first touched", fresh_ms, again_ms
    );
    println!(
        "{:<44} {:>10.0}K gets/s",
        "random get by key, second pass",
        second / 1e3
    );
    println!(
        "{:<44} {:>10.0}K gets/s",
        "random get by key, no page cache",
        none / 1e3
    );

    println!(
        "{:<44} {:>10.0}K gets/s   (target >= 1M)",
        "get_batch, first pass (all keys, one call)",
        batch_first / 1e3
    );
    println!(
        "{:<44} {:>10.0}K gets/s",
        "get_batch, second pass (4096 keys a call)",
        batch_second / 1e3
    );

    let bin = env!("CARGO_BIN_EXE_veilkit");
    let batch = keys(n, 200_000, 44);
    let keys_path = dir.path().join("keys.txt");
    let mut kf = Vec::new();
    for k in &batch {
        kf.extend_from_slice(k);
        kf.push(b'\n');
    }
    std::fs::write(&keys_path, kf).unwrap();
    // `--keys FILE` and `--keys -` from a pipe (`cat keys |`), interleaved.
    let keys_run_with = |bin: &Path, piped: bool| {
        let mut cmd = Command::new(bin);
        cmd.args(["records", "get"])
            .arg(&path)
            .arg("--keys")
            .arg(if piped {
                Path::new("-")
            } else {
                keys_path.as_path()
            })
            .arg("--key-file")
            .arg(&key_path)
            .stdout(Stdio::null());
        let start = Instant::now();
        let st = if piped {
            let mut cat = Command::new("cat")
                .arg(&keys_path)
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let st = cmd.stdin(cat.stdout.take().unwrap()).status().unwrap();
            assert!(cat.wait().unwrap().success());
            st
        } else {
            cmd.status().unwrap()
        };
        assert!(st.success());
        start.elapsed().as_secs_f64()
    };
    let baseline = std::env::var_os("VEILKIT_BENCH_BASELINE_BIN").map(std::path::PathBuf::from);
    let (mut file_secs, mut pipe_secs, mut base_secs) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        file_secs.push(keys_run_with(Path::new(bin), false));
        pipe_secs.push(keys_run_with(Path::new(bin), true));
        if let Some(b) = &baseline {
            base_secs.push(keys_run_with(b, false));
        }
    }
    let mut rows = vec![
        ("records get --keys FILE, end to end (200K)", file_secs),
        ("cat keys | records get --keys - (200K)", pipe_secs),
    ];
    if baseline.is_some() {
        rows.push(("  the same, VEILKIT_BENCH_BASELINE_BIN", base_secs));
    }
    for (label, secs) in rows {
        let rates: Vec<String> = secs
            .iter()
            .map(|s| format!("{:.0}K", batch.len() as f64 / s / 1e3))
            .collect();
        println!(
            "{:<44} {:>10.0}K gets/s   (target >= 500K; runs: {})",
            label,
            batch.len() as f64 / median(secs.clone()) / 1e3,
            rates.join(", ")
        );
    }
    let one: Vec<f64> = (0..if quick { 5 } else { 31 })
        .map(|i| {
            let start = Instant::now();
            let st = Command::new(bin)
                .args(["records", "get"])
                .arg(&path)
                .arg(format!("{:08}", (i * 7919) % n))
                .arg("--key-file")
                .arg(&key_path)
                .stdout(Stdio::null())
                .status()
                .unwrap();
            assert!(st.success());
            start.elapsed().as_secs_f64()
        })
        .collect();
    println!(
        "{:<44} {:>10.2} ms median   (target < 2 ms)",
        "one-off records get KEY (process start to exit)",
        median(one) * 1e3
    );
    let noop: Vec<f64> = (0..if quick { 5 } else { 31 })
        .map(|_| {
            let start = Instant::now();
            Command::new(bin)
                .arg("--version")
                .stdout(Stdio::null())
                .status()
                .unwrap();
            start.elapsed().as_secs_f64()
        })
        .collect();
    println!(
        "{:<44} {:>10.2} ms median",
        "  (veilkit --version, for scale)",
        median(noop) * 1e3
    );

    // Field-level encryption of the same TSV (the 100-byte values, keys as the token
    // column), end to end through the CLI, encrypt and decrypt interleaved.
    let enc_path = dir.path().join("fields.tsv");
    let fields_run = |decrypt: bool| {
        let mut cmd = Command::new(bin);
        cmd.arg("records")
            .arg(if decrypt {
                "decrypt-fields"
            } else {
                "encrypt-fields"
            })
            .args([
                "--input-format",
                "tsv",
                "--no-header",
                "--fields",
                "2",
                "--token-fields",
                "1",
                "--force",
                "--key-file",
            ])
            .arg(&key_path)
            .arg(if decrypt { &enc_path } else { &input_path })
            .arg("-o")
            .arg(if decrypt {
                dir.path().join("fields-plain.tsv")
            } else {
                enc_path.clone()
            });
        let start = Instant::now();
        assert!(cmd.status().unwrap().success());
        start.elapsed().as_secs_f64()
    };
    let (mut enc_secs, mut dec_secs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        enc_secs.push(fields_run(false));
        dec_secs.push(fields_run(true));
    }
    assert_eq!(
        std::fs::read(dir.path().join("fields-plain.tsv")).unwrap(),
        data,
        "decrypt-fields gives back the input"
    );
    for (label, secs) in [
        ("records encrypt-fields (values, tokens)", enc_secs),
        ("records decrypt-fields", dec_secs),
    ] {
        println!(
            "{:<44} {:>10.2}M rows/s",
            label,
            n as f64 / median(secs) / 1e6
        );
    }

    println!("\nreferences, same machine, same run:");
    println!(
        "{:<44} {:>14} {:>14} {:>12}",
        "", "sets/s", "gets/s", "size"
    );
    println!(
        "{:<44} {:>13.0}K {:>13.0}K {:>11.2}x",
        "veilkit records (seal / random get)",
        seal_rate / 1e3,
        first / 1e3,
        size / raw
    );
    println!(
        "{:<44} {:>14} {:>13.0}K",
        "  veilkit records, second pass",
        "",
        second / 1e3
    );
    match tkrzw_random(n, dir.path(), runs) {
        Ok(rows) => {
            for (label, set, get, again) in rows {
                println!(
                    "{:<44} {:>13.0}K {:>13.0}K   (random gets; second pass {:.0}K)",
                    label,
                    set / 1e3,
                    get / 1e3,
                    again / 1e3
                );
            }
        }
        Err(why) => println!("Tkrzw, random gets: {why}"),
    }
    for dbm in ["hash", "tree"] {
        match tkrzw(dbm, n, dir.path()) {
            Some((set, get, bytes)) => println!(
                "{:<44} {:>13.0}K {:>13.0}K {:>11.2}x",
                format!("Tkrzw {dbm}DBM, no encryption, keys in order"),
                set / 1e3,
                get / 1e3,
                bytes as f64 / raw
            ),
            None => {
                println!("Tkrzw {dbm}DBM: tkrzw_dbm_perf not installed (apt install tkrzw-utils)")
            }
        }
    }
    match sqlcipher(n, &input_path, dir.path()) {
        Some((ins, get, bytes)) => println!(
            "{:<44} {:>13.0}K {:>13.0}K {:>11.2}x",
            "SQLCipher 4 (Python sqlcipher3)",
            ins / 1e3,
            get / 1e3,
            bytes as f64 / raw
        ),
        None => println!(
            "SQLCipher: python3 module sqlcipher3 not installed (pip install sqlcipher3-binary)"
        ),
    }
}
