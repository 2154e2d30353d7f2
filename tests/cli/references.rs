//! The independent implementations in `docs/reference/`, each written from its document
//! alone, run against the documents' test vectors and against what veilkit writes: a
//! document that no longer says how veilkit's bytes are made fails here.

use super::common::{have_program, keyfile, run_ok, veilkit};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A Python that has what the references use (`probe` runs without error in it), or
/// `None` (the test skips, unless CI).
pub fn python(what: &str, probe: &str) -> Option<String> {
    super::common::python(
        &format!("Python with {what}"),
        probe,
        "`pip install cryptography xxhash zstandard`, or set VEILKIT_CLIENT_PYTHON to a \
         Python that has them",
    )
}

/// Runs `docs/reference/SCRIPT` with `args`; its standard output (it must succeed).
pub fn run(python: &str, script: &str, args: &[&std::ffi::OsStr]) -> Vec<u8> {
    let out = run_ok(
        Command::new(python)
            .arg(repo().join("docs/reference").join(script))
            .args(args),
    );
    out.stdout
}

fn doc(name: &str) -> String {
    std::fs::read_to_string(repo().join("docs").join(name)).unwrap()
}

/// The rows of the first Markdown table after `heading` whose first cell is one of `firsts`.
fn table_rows<'a>(text: &'a str, heading: &str, firsts: &[&str]) -> Vec<&'a str> {
    let at = text.find(heading).unwrap_or_else(|| panic!("no {heading}"));
    text[at..]
        .lines()
        .filter(|l| {
            firsts
                .iter()
                .any(|f| l.starts_with(&format!("| {f} |")) || l.starts_with(&format!("| {f},")))
        })
        .collect()
}

#[test]
fn the_reference_implementations_print_their_documents_test_vectors() {
    let Some(python) = python(
        "cryptography",
        "from cryptography.hazmat.primitives.ciphers import Cipher",
    ) else {
        return;
    };
    // docs/IDS.md: the output column of its test vectors, in order.
    let ids = doc("IDS.md");
    let want: Vec<String> = table_rows(&ids, "## Test vectors", &["uuid", "aes128", "cycle-walk"])
        .iter()
        .map(|row| {
            let cell = row.trim_end_matches('|').rsplit('|').next().unwrap().trim();
            cell.trim_matches('`').to_string()
        })
        .collect();
    assert_eq!(want.len(), 10, "the table of docs/IDS.md changed shape");
    let got = String::from_utf8(run(&python, "ids.py", &[])).unwrap();
    assert_eq!(
        got.lines().collect::<Vec<_>>(),
        want,
        "docs/reference/ids.py"
    );

    // docs/NONCES.md: its subkey and value rows, printed exactly.
    let nonces = doc("NONCES.md");
    let want = table_rows(
        &nonces,
        "## Test vectors",
        &["subkey", "counter", "sortable", "encrypted"],
    );
    assert_eq!(want.len(), 12, "the tables of docs/NONCES.md changed shape");
    let got = String::from_utf8(run(&python, "nonces.py", &[])).unwrap();
    assert_eq!(
        got.lines().collect::<Vec<_>>(),
        want,
        "docs/reference/nonces.py"
    );

    // docs/BREACH-FORMAT.md: the filter's descriptor and fingerprint digests.
    let breach = doc("BREACH-FORMAT.md").replace(['\n', ' '], "");
    let got = String::from_utf8(run(&python, "filter.py", &[])).unwrap();
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines.len(), 2, "{got}");
    for line in lines {
        assert!(
            line.contains(
                "seed 0x910a2dec89025cc1, segment length 128, mask 127, \
                 segment count length 1152, 1408 fingerprints"
            ),
            "{line}"
        );
        let digest = line.rsplit(' ').next().unwrap();
        assert!(
            breach.contains(&format!("SHA-256`{digest}`"))
                || breach.contains(&format!("`{digest}`")),
            "docs/BREACH-FORMAT.md does not give the digest {digest} filter.py printed"
        );
    }
}

/// A sorted dump of about `n` pseudo-random hashes of `len` bytes, with heavy-tailed
/// counts (some past every record's count field, so the overflow sections are used), a
/// few count-0 lines, and CRLF line ends when asked. `crowded`: every hash starts with
/// the byte 5A (so a compact index has two full buckets and must shrink its table's
/// groups), and one in a thousand has a twin that shares its first 16 bytes (one compact
/// key for two hashes).
fn dump(n: usize, len: usize, crlf: bool, crowded: bool, seed: u64) -> String {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut hashes: Vec<Vec<u8>> = Vec::with_capacity(n + n / 1000 + 1);
    for i in 0..n {
        let mut h: Vec<u8> = (0..len).map(|_| (next() >> 24) as u8).collect();
        if crowded {
            h[0] = 0x5A;
            if i % 1000 == 0 {
                let mut twin = h.clone();
                twin[len - 1] ^= 1;
                hashes.push(twin);
            }
        }
        hashes.push(h);
    }
    hashes.sort();
    hashes.dedup();
    let mut text = String::new();
    for h in hashes {
        let r = next();
        let count = match r % 100 {
            0 => 0,
            1 | 2 => 4_000 + r % 100_000_000,
            _ => 1 + (r >> 8) % 50,
        };
        for b in h {
            text.push_str(&format!("{b:02X}"));
        }
        text.push_str(&format!(":{count}{}", if crlf { "\r\n" } else { "\n" }));
    }
    text
}

/// A Python for breach_index.py and download_journal.py.
pub fn python_with_xxhash() -> Option<String> {
    python("xxhash", "import xxhash; xxhash.xxh3_64_intdigest(b'')")
}

#[test]
fn the_breach_reference_builds_the_files_veilkit_builds_byte_for_byte() {
    let Some(python) = python_with_xxhash() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Shapes the document's rules tell apart: one bucket (b = 0), the estimate from the
    // first 65,536 hashes, NTLM, more than one 16 MiB block of records, crowded buckets.
    // Each as an exact index and, but the largest, as every tier.
    for (name, n, len, crlf, crowded) in [
        ("tiny", 100, 20, false, false),
        ("estimated", 70_000, 20, true, false),
        ("ntlm", 50_000, 16, false, false),
        ("crowded", 100_000, 20, false, true),
        ("two-blocks", 900_000, 20, false, false),
    ] {
        let text = dump(n, len, crlf, crowded, 0x9E37_79B9_7F4A_7C15 ^ n as u64);
        let input = dir.path().join(format!("{name}.txt"));
        std::fs::write(&input, text).unwrap();
        let tiers: &[&str] = if n > 100_000 {
            &["exact"]
        } else {
            &["exact", "compact", "filter", "filter-small"]
        };
        for tier in tiers {
            let ours = dir.path().join(format!("{name}.{tier}"));
            veilkit()
                .args(["breach", "build", "-q", "--tier", tier])
                .arg(&input)
                .arg("-o")
                .arg(&ours)
                .assert()
                .success();
            let theirs = dir.path().join(format!("{name}.{tier}.py"));
            run(
                &python,
                "breach_index.py",
                &[
                    input.as_os_str(),
                    theirs.as_os_str(),
                    "--tier".as_ref(),
                    tier.as_ref(),
                ],
            );
            let (a, b) = (
                std::fs::read(&ours).unwrap(),
                std::fs::read(&theirs).unwrap(),
            );
            assert_eq!(a.len(), b.len(), "{name}, {tier}: lengths differ");
            if let Some(at) = a.iter().zip(&b).position(|(x, y)| x != y) {
                panic!("{name}, {tier}: the reference's file differs from veilkit's at byte {at}");
            }
        }
    }
}

/// `records open` and `records get` by the reference reader, on `file` opened with `secret`
/// (`--key-file PATH` and the like): the same bytes as veilkit's.
fn same_as_veilkit(python: &str, file: &Path, secret: &[&std::ffi::OsStr], keys: &[String]) {
    let mut ours = veilkit();
    ours.args(["records", "open"]).arg(file).args(secret);
    let want = run_ok(&mut ours);
    let mut args: Vec<&std::ffi::OsStr> = vec![file.as_os_str()];
    args.extend(secret);
    assert!(
        run(python, "records.py", &args) == want.stdout,
        "{}: the reference opens other bytes than veilkit's",
        file.display()
    );
    if keys.is_empty() {
        return;
    }
    let mut ours = veilkit();
    ours.args(["records", "get"])
        .arg(file)
        .args(secret)
        .arg("--");
    ours.args(keys);
    let want = ours.output().unwrap();
    args.push("--get".as_ref());
    args.extend(keys.iter().map(|k| k.as_ref() as &std::ffi::OsStr));
    let got = run(python, "records.py", &args);
    assert!(
        got == want.stdout,
        "{}: the reference gets other records than veilkit's:\n{}",
        file.display(),
        String::from_utf8_lossy(&got)
    );
}

/// A Python for records.py and fields.py.
fn python_for_records() -> Option<String> {
    python(
        "cryptography 44 or later, xxhash and zstandard",
        "import xxhash, zstandard\n\
         from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV\n\
         from cryptography.hazmat.primitives.kdf.argon2 import Argon2id\n\
         AESGCMSIV(bytes(32))",
    )
}

/// Runs `veilkit records ARGS`, which must succeed.
fn records(args: &[&str]) {
    veilkit().arg("records").args(args).assert().success();
}

/// A path as an argument (test paths are UTF-8).
fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn the_records_reference_reads_what_veilkit_writes() {
    let Some(python) = python_for_records() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let key = keyfile(d, "k.key");
    let with_key: [&std::ffi::OsStr; 2] = ["--key-file".as_ref(), key.as_os_str()];
    let path = |name: &str| d.join(name);

    // CSV keyed by a quoted field, 512-byte pages: two levels of directories and index
    // chains with overflow pages.
    let mut csv = String::from("id,name,note\n");
    for i in 0..20_000u32 {
        let note = i.wrapping_mul(2_654_435_761);
        csv.push_str(&format!("{i},\"na,me {i}\",note {note}\n"));
    }
    std::fs::write(path("c.csv"), &csv).unwrap();
    let (c, k) = (path("c.vkr"), p(&key));
    let sealed = ["--key-field", "name", "--page-size", "512", "-o", p(&c)];
    records(
        &[
            &["seal", "-q", p(&path("c.csv")), "--key-file", k],
            &sealed[..],
        ]
        .concat(),
    );
    let mut keys: Vec<String> = (0..20_500)
        .step_by(97)
        .map(|i| format!("na,me {i}"))
        .collect();
    keys.push("absent".into());
    same_as_veilkit(&python, &c, &with_key, &keys);

    // Then updated in place: appended (one record superseded), deleted from, a
    // passphrase slot added; read by key and by passphrase.
    std::fs::write(
        path("ch.csv"),
        "id,name,note\n5,\"na,me 5\",changed\n9,new,x\n",
    )
    .unwrap();
    std::fs::write(path("pp.txt"), "correct horse battery staple\n").unwrap();
    let pp = path("pp.txt");
    records(&["append", "-q", p(&c), p(&path("ch.csv")), "--key-file", k]);
    records(&[
        "delete",
        "-q",
        p(&c),
        "na,me 7",
        "na,me 11",
        "--key-file",
        k,
    ]);
    records(&[
        "rekey",
        "-q",
        p(&c),
        "--key-file",
        k,
        "--add-passphrase-file",
        p(&pp),
    ]);
    keys.extend(["new".into(), "na,me 7".into()]);
    same_as_veilkit(&python, &c, &with_key, &keys);
    let with_pp: [&std::ffi::OsStr; 2] = ["--passphrase-file".as_ref(), pp.as_os_str()];
    same_as_veilkit(&python, &c, &with_pp, &keys[..5]);

    // A line file whose last line has no line end, appended to; JSON lines compressed.
    let mut lines = String::new();
    for i in 0..3000 {
        lines.push_str(&format!("line {i} {}\n", "x".repeat(i * 7 % 300)));
    }
    lines.push_str("last, without a line end");
    std::fs::write(path("l.txt"), &lines).unwrap();
    std::fs::write(path("more.txt"), "appended\n").unwrap();
    let l = path("l.vkr");
    records(&[
        "seal",
        "-q",
        p(&path("l.txt")),
        "-o",
        p(&l),
        "--key-file",
        k,
    ]);
    records(&["append", "-q", p(&l), p(&path("more.txt")), "--key-file", k]);
    let numbers: Vec<String> = ["1", "3000", "3001", "3002", "3003"]
        .map(String::from)
        .into();
    same_as_veilkit(&python, &l, &with_key, &numbers);
    let mut json = String::new();
    for i in 0..5000 {
        let v = "y".repeat(i % 50);
        json.push_str(&format!(
            "{{\"k\": \"key{i}\", \"n\": {i}, \"v\": \"{v}\"}}\n"
        ));
    }
    let jsonl = path("j.jsonl");
    std::fs::write(&jsonl, &json).unwrap();
    let j = path("j.vkr");
    let zstd = ["--key-field", "k", "--compress", "zstd"];
    records(
        &[
            &["seal", "-q", p(&jsonl), "-o", p(&j), "--key-file", k],
            &zstd[..],
        ]
        .concat(),
    );
    let json_keys: Vec<String> = (0..5200).step_by(211).map(|i| format!("key{i}")).collect();
    same_as_veilkit(&python, &j, &with_key, &json_keys);
    // A file with a dictionary (record compression 2: over 1 MiB of records), CSV with
    // records spanning lines and keys that need unquoting, appended to and deleted from.
    let mut big = String::from("id,name,note\n");
    for i in 0..24_000 {
        let note = ["order refund", "call back", "damaged in transit"][i % 3];
        big.push_str(&format!(
            "id{i},Person {i},\"{note} {}\"\n",
            "z".repeat(i % 40)
        ));
    }
    big.push_str("\"q\"\"1\",Quote,\"two\nlines\"\n");
    let dcsv = path("d.csv");
    std::fs::write(&dcsv, &big).unwrap();
    assert!(big.len() > 1 << 20);
    let d = path("d.vkr");
    records(&[
        "seal",
        "-q",
        p(&dcsv),
        "-o",
        p(&d),
        "--key-file",
        k,
        "--key-field",
        "id",
        "--compress",
        "zstd",
    ]);
    std::fs::write(
        path("dmore.csv"),
        "id,name,note\nid24000,New,\"appended\"\n",
    )
    .unwrap();
    records(&[
        "append",
        "-q",
        p(&d),
        p(&path("dmore.csv")),
        "--key-file",
        k,
    ]);
    records(&["delete", "-q", p(&d), "id5", "id6", "--key-file", k]);
    let info = veilkit()
        .args(["records", "info", p(&d), "--key-file", k])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&info.stdout).contains("and the file's dictionary"),
        "{}",
        String::from_utf8_lossy(&info.stdout)
    );
    let dkeys: Vec<String> = ["id0", "id5", "id7", "id23999", "id24000", "q\"1"]
        .map(String::from)
        .into();
    same_as_veilkit(&python, &d, &with_key, &dkeys);
    // 32-bit index tags.
    let j32 = path("j32.vkr");
    records(&[
        "seal",
        "-q",
        p(&jsonl),
        "-o",
        p(&j32),
        "--key-file",
        k,
        "--key-field",
        "k",
        "--tag-bits",
        "32",
    ]);
    same_as_veilkit(&python, &j32, &with_key, &json_keys);

    // The committed version-1 files.
    let v1 = repo().join("tests/fixtures/records-v1");
    let v1_key = v1.join("key.txt");
    let with_v1: [&std::ffi::OsStr; 2] = ["--key-file".as_ref(), v1_key.as_os_str()];
    let ids: Vec<String> = (1..10).map(|i| i.to_string()).collect();
    same_as_veilkit(&python, &v1.join("customers-v1.vkr"), &with_v1, &ids);
    same_as_veilkit(&python, &v1.join("log-v1.vkr"), &with_v1, &ids[..3]);

    // An age recipient slot (the identity from age-keygen).
    if !have_program("age-keygen", "--version", "apt-get install age") {
        return;
    }
    let identity = path("id.txt");
    run_ok(Command::new("age-keygen").arg("-o").arg(&identity));
    let recipient = Command::new("age-keygen")
        .arg("-y")
        .arg(&identity)
        .output()
        .unwrap();
    let recipient = String::from_utf8(recipient.stdout).unwrap();
    let a = path("a.vkr");
    let to = ["--key-field", "n", "--recipient", recipient.trim()];
    records(&[&["seal", "-q", p(&jsonl), "-o", p(&a)], &to[..]].concat());
    let with_identity: [&std::ffi::OsStr; 2] = ["--identity".as_ref(), identity.as_os_str()];
    same_as_veilkit(&python, &a, &with_identity, &ids);
}

/// `veilkit records ARGS`, which must succeed: its standard output.
fn records_out(args: &[&str]) -> Vec<u8> {
    run_ok(veilkit().arg("records").args(args)).stdout
}

#[test]
fn the_records_reference_writer_seals_files_that_veilkit_opens_and_updates() {
    let Some(python) = python_for_records() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let key = keyfile(d, "k.key");
    let k = p(&key);
    let path = |name: &str| d.join(name);

    // TSV keyed by its second field. 512-byte pages: two levels of data directories and
    // index chains with overflow pages; 4096-byte pages: one level; and Zstandard pages
    // with a passphrase slot beside the keyring's, used by veilkit's updates.
    let mut tsv = String::new();
    for i in 0..20_000u32 {
        tsv.push_str(&format!(
            "{}\tk{i}\tv{}\n",
            i % 7,
            i.wrapping_mul(2_654_435_761)
        ));
    }
    std::fs::write(path("t.tsv"), &tsv).unwrap();
    let lines: Vec<&str> = tsv.lines().collect();
    let pp = path("pp.txt");
    std::fs::write(&pp, "correct horse\n").unwrap();
    let by_pp = ["--passphrase-file", p(&pp)];
    let by_key = ["--key-file", k];
    for (page, extra, secret) in [
        ("512", &[][..], by_key),
        ("4096", &[][..], by_key),
        ("4096", &["--compress", by_pp[0], by_pp[1]][..], by_pp),
        ("4096", &["--tag-bits", "32"][..], by_key),
    ] {
        let f = path(&format!("t{page}{}.vkr", extra.len()));
        let mut cmd = Command::new(&python);
        cmd.arg(repo().join("docs/reference/records_seal.py"))
            .arg(path("t.tsv"))
            .args([
                "--tsv-key",
                "2",
                "--page-size",
                page,
                "--key-file",
                k,
                "-o",
                p(&f),
            ])
            .args(extra);
        run_ok(&mut cmd);
        let what = format!("sealed by records_seal.py with {page}-byte pages {extra:?}");
        let file = p(&f);
        run_ok(veilkit().args(["records", "verify", file]).args(secret));
        let open = records_out(&[&["open", file][..], &secret].concat());
        assert!(open == tsv.as_bytes(), "{what}: veilkit opens other bytes");
        let keys = ["k0", "k19999", "k777", "k20000"];
        let got = records_out(&[&["get", file][..], &secret, &keys].concat());
        let want = format!("{}\n{}\n{}\n\n", lines[0], lines[19_999], lines[777]);
        assert_eq!(String::from_utf8_lossy(&got), want, "{what}");

        // veilkit updates it: an append and a delete, then the reader reference reads
        // what veilkit wrote over the reference's pages.
        std::fs::write(path("more.tsv"), "9\tk20000\tnew\n").unwrap();
        let more = path("more.tsv");
        records(&[&["append", file, p(&more), "-q"][..], &secret].concat());
        records(&[&["delete", file, "k5", "-q"][..], &secret].concat());
        run_ok(veilkit().args(["records", "verify", file]).args(secret));
        let mut want: String = lines
            .iter()
            .filter(|l| !l.contains("\tk5\t"))
            .map(|l| format!("{l}\n"))
            .collect();
        want.push_str("9\tk20000\tnew\n");
        let open = records_out(&[&["open", file][..], &secret].concat());
        assert!(open == want.as_bytes(), "{what}, then updated: other bytes");
        let secret: Vec<&std::ffi::OsStr> = secret.iter().map(|a| a.as_ref()).collect();
        same_as_veilkit(&python, &f, &secret, &["k20000".into(), "k5".into()]);
    }

    // CSV with a header row (the prefix page), keyed by a column whose values are plain,
    // quoted, or quoted with doubled quotes (a key of its own in the record), and rows
    // that span lines.
    let mut csv = String::from("n,id,v\r\n");
    for i in 0..3_000u32 {
        let id = match i % 3 {
            0 => format!("\"k{i}\""),
            1 => format!("\"k\"\"{i}\""),
            _ => format!("k{i}"),
        };
        let v = if i % 5 == 0 { "two\r\nlines" } else { "one" };
        csv.push_str(&format!("{i},{id},\"{v} {i}\"\r\n"));
    }
    std::fs::write(path("c.csv"), &csv).unwrap();
    let c = path("c.vkr");
    let mut cmd = Command::new(&python);
    cmd.arg(repo().join("docs/reference/records_seal.py"))
        .args([p(&path("c.csv")), "--csv-key", "id", "--page-size", "512"])
        .args(["--key-file", k, "-o", p(&c)]);
    run_ok(&mut cmd);
    run_ok(veilkit().args(["records", "verify", p(&c), "--key-file", k]));
    assert!(records_out(&["open", p(&c), "--key-file", k]) == csv.as_bytes());
    let got = records_out(&["get", p(&c), "--key-file", k, "k0", "k\"1", "k2", "k1"]);
    assert_eq!(
        String::from_utf8_lossy(&got),
        "0,\"k0\",\"two\r\nlines 0\"\r\n1,\"k\"\"1\",\"one 1\"\r\n2,k2,\"one 2\"\r\n\n"
    );
    std::fs::write(path("c2.csv"), "n,id,v\r\n9,\"new\"\"\",x\r\n").unwrap();
    records(&["append", p(&c), p(&path("c2.csv")), "--key-file", k, "-q"]);
    let with_key: [&std::ffi::OsStr; 2] = ["--key-file".as_ref(), key.as_os_str()];
    same_as_veilkit(&python, &c, &with_key, &["new\"".into(), "k\"2998".into()]);

    // JSON lines keyed by a member: strings with escapes, numbers as written, booleans.
    let mut jsonl = String::new();
    for i in 0..2_000u32 {
        let id = match i % 4 {
            0 => format!("\"k\\u00e9{i}\""),
            1 => format!("{i}e1"),
            2 => format!("\"q\\\"{i}\""),
            _ => format!("{}", u64::from(i) * 1_000_000_007),
        };
        jsonl.push_str(&format!(
            "{{\"n\": {{\"id\": 0}}, \"id\": {id}, \"v\": {i}}}\n"
        ));
    }
    jsonl.push_str("{\"id\": true}\n");
    std::fs::write(path("j.jsonl"), &jsonl).unwrap();
    let j = path("j.vkr");
    let mut cmd = Command::new(&python);
    cmd.arg(repo().join("docs/reference/records_seal.py"))
        .args([
            p(&path("j.jsonl")),
            "--json-key",
            "id",
            "--page-size",
            "512",
        ])
        .args(["--key-file", k, "-o", p(&j)]);
    run_ok(&mut cmd);
    run_ok(veilkit().args(["records", "verify", p(&j), "--key-file", k]));
    assert!(records_out(&["open", p(&j), "--key-file", k]) == jsonl.as_bytes());
    let keys = ["kéé0", "ké0", "5e1", "q\"6", "3000000021", "true", "50"];
    let got = records_out(&[&["get", p(&j), "--key-file", k][..], &keys].concat());
    let line = |i: usize| jsonl.lines().nth(i).unwrap().to_string();
    let want = format!(
        "\n{}\n{}\n{}\n{}\n{}\n\n",
        line(0),
        line(5),
        line(6),
        line(3),
        line(2000)
    );
    assert_eq!(String::from_utf8_lossy(&got), want);

    // A line file of one page: no index, and an appended line gets the next number.
    let text: String = (1..=300).map(|i| format!("line {i}\n")).collect();
    std::fs::write(path("l.txt"), &text).unwrap();
    let l = path("l.vkr");
    let mut cmd = Command::new(&python);
    cmd.arg(repo().join("docs/reference/records_seal.py"))
        .args([p(&path("l.txt")), "--key-file", k, "-o", p(&l)]);
    run_ok(&mut cmd);
    assert!(records_out(&["open", p(&l), "--key-file", k]) == text.as_bytes());
    std::fs::write(path("l2.txt"), "line 301\n").unwrap();
    records(&["append", p(&l), p(&path("l2.txt")), "--key-file", k, "-q"]);
    let got = records_out(&["get", p(&l), "--key-file", k, "7", "301"]);
    assert_eq!(String::from_utf8_lossy(&got), "line 7\nline 301\n");
}

#[test]
fn the_fields_reference_decrypts_what_encrypt_fields_writes() {
    let Some(python) = python_for_records() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A ring of three keys: the current one (id 3) encrypts.
    let key = keyfile(d, "k.key");
    for _ in 0..2 {
        veilkit()
            .args(["keygen", "-q", "--add"])
            .arg(&key)
            .assert()
            .success();
    }
    let mut csv = String::from("id,name,note\n");
    for i in 0..2000u32 {
        csv.push_str(&format!("{i},\"na,me {i}\",\"say \"\"{}\"\"\"\r\n", i % 7));
    }
    let plain = d.join("plain.csv");
    std::fs::write(&plain, &csv).unwrap();
    // Format 1, then format 2 bound to the id column and the note (in column order,
    // whatever the order given).
    for bind in [&[][..], &["--bind", "note,id"][..]] {
        let fields = if bind.is_empty() { "name,note" } else { "name" };
        let out = run_ok(
            veilkit()
                .args(["records", "encrypt-fields", "--fields", fields])
                .args(["--token-fields", "name", "--context", "users"])
                .args(bind)
                .arg(&plain)
                .arg("--key-file")
                .arg(&key),
        );
        let sealed = d.join("sealed.csv");
        std::fs::write(&sealed, &out.stdout).unwrap();
        let mut args: Vec<&std::ffi::OsStr> = vec![
            plain.as_os_str(),
            sealed.as_os_str(),
            "--key-file".as_ref(),
            key.as_os_str(),
            "--fields".as_ref(),
            fields.as_ref(),
            "--context".as_ref(),
            "users".as_ref(),
        ];
        if !bind.is_empty() {
            args.extend([
                std::ffi::OsStr::new("--bind"),
                std::ffi::OsStr::new("id,note"),
            ]);
        }
        let got = run(&python, "fields.py", &args);
        let values = if bind.is_empty() { 4000 } else { 2000 };
        assert_eq!(
            String::from_utf8(got).unwrap(),
            format!("2000 rows, {values} values decrypted, 2000 tokens checked\n")
        );
    }
}

/// `veilkit nonce NONCE_ARGS` with `--state state`; its nonces, one hex value a line,
/// written to `dir/name`.
fn nonces(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let out = run_ok(
        veilkit()
            .arg("nonce")
            .args(args)
            .arg("--state")
            .arg(dir.join("state")),
    );
    let path = dir.join(name);
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

#[test]
fn the_nonce_state_reference_reads_what_veilkit_reserves() {
    let Some(python) = python("Python 3", "pass") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let counter96 = [
        "--kind",
        "counter",
        "--bits",
        "96",
        "-n",
        "1000",
        "--machine-id",
        "5",
    ];
    let first = nonces(d, "first", &counter96);
    let second = nonces(d, "second", &counter96);
    let sortable = [
        "--kind",
        "sortable",
        "--bits",
        "128",
        "-n",
        "500",
        "--machine-id",
        "9",
    ];
    let third = nonces(d, "third", &sortable);
    let counter64 = [
        "--kind",
        "counter",
        "--bits",
        "64",
        "-n",
        "100",
        "--machine-id",
        "5",
    ];
    let fourth = nonces(d, "fourth", &counter64);
    // `MACHINE C` of each nonce, decoded by the reference.
    let decoded = |width: &str, file: &Path| -> Vec<(u32, u128)> {
        let text = run(
            &python,
            "nonce_state.py",
            &["--decode".as_ref(), width.as_ref(), file.as_os_str()],
        );
        String::from_utf8(text)
            .unwrap()
            .lines()
            .map(|l| {
                let (m, c) = l.split_once(' ').unwrap();
                (m.parse().unwrap(), c.parse().unwrap())
            })
            .collect()
    };
    let (a, b) = (decoded("96", &first), decoded("96", &second));
    let (c, e) = (decoded("128", &third), decoded("64", &fourth));
    assert_eq!((a.len(), b.len(), c.len(), e.len()), (1000, 1000, 500, 100));
    let max = |v: &[(u32, u128)]| v.iter().map(|x| x.1).max().unwrap();
    let min = |v: &[(u32, u128)]| v.iter().map(|x| x.1).min().unwrap();
    assert!(a.iter().chain(&b).chain(&e).all(|x| x.0 == 5) && c.iter().all(|x| x.0 == 9));
    // The second run starts after everything the first reserved.
    assert!(min(&b) > max(&a));
    // The state: one line per machine id and width, each mark lowered at the run's end
    // to the last value it issued.
    let state = run(&python, "nonce_state.py", &[d.join("state").as_os_str()]);
    let mut rows: Vec<(u32, u32, u128)> = String::from_utf8(state)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert!(
                f[3].parse::<u64>().unwrap() > 0,
                "{l}: veilkit writes the clock mark"
            );
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect();
    rows.sort();
    assert_eq!(
        rows,
        [(5, 64, max(&e)), (5, 96, max(&b)), (9, 128, max(&c))]
    );
}
