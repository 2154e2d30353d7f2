//! `veilkit ids sql` against a real PostgreSQL with pgcrypto: a throwaway cluster in a
//! temporary directory on a free loopback port, stopped at the end. Every scheme and
//! format gives the same text from the CLI and from SQL, both ways.

use super::common::{run_ok, std_veilkit, stderr_of};
use super::pg_cluster::Pg;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A two-key ring (key 2 current) and the ring of key 1 alone.
fn rings(dir: &Path) -> (PathBuf, PathBuf) {
    let two = dir.join("two.key");
    run_ok(std_veilkit().args(["keygen", "-o"]).arg(&two));
    let one = dir.join("one.key");
    std::fs::copy(&two, &one).unwrap();
    run_ok(std_veilkit().args(["keygen", "--add"]).arg(&two));
    (two, one)
}

fn cli(args: &[&str], key: &Path, input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = std_veilkit()
        .args(args)
        .arg("--key-file")
        .arg(key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

/// The ids every case runs: boundaries (0, 1, 2^k ± 1, the maximum) and random ones up
/// to `n`, all at most `max`.
fn ids(n: usize, max: u64) -> Vec<u64> {
    let mut v = vec![0, 1, max, max - 1];
    for k in 1..64 {
        let p = 1u64 << k;
        for x in [p - 1, p, p + 1] {
            if x <= max {
                v.push(x);
            }
        }
    }
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    while v.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Small ids too, as databases hold.
        v.push(if v.len() % 2 == 0 {
            x % (max + 1)
        } else {
            x % 1_000_000
        });
    }
    v
}

fn lines(v: &[u64]) -> String {
    v.iter().map(|i| format!("{i}\n")).collect()
}

/// One function set: `ids sql ARGS` installed, then SQL and the CLI agree on `n` ids both
/// ways, on ids of the older key, and on forged ids.
fn agree(pg: &Pg, dir: &Path, two: &Path, one: &Path, args: &[&str], suffix: &str, n: usize) {
    let schema = format!("s{}", pg.ok("SELECT nextval('case_no');").trim());
    let mut sql_args = vec!["ids", "sql", "--schema", &schema];
    sql_args.extend_from_slice(args);
    let script = cli(&sql_args, two, b"");
    assert!(script.status.success(), "{}", stderr_of(&script));
    pg.ok(std::str::from_utf8(&script.stdout).unwrap());
    let uuid = !args.contains(&"--scheme");
    let max = if uuid {
        (1u64 << 60) - 1
    } else {
        i64::MAX as u64
    };
    let all: Vec<u64> = ids(n, max)
        .into_iter()
        .filter(|&i| !args.contains(&"--clear-bit") || (i >> 5) & 1 == 0)
        .collect();
    let input = dir.join(format!("{schema}.ids"));
    std::fs::write(&input, lines(&all)).unwrap();
    let mut enc_args = vec!["encode"];
    enc_args.extend(args.iter().copied().filter(|a| *a != "--rotate"));
    let want = cli(&enc_args, two, lines(&all).as_bytes());
    assert!(want.status.success(), "{}", stderr_of(&want));
    let encoded = dir.join(format!("{schema}.enc"));
    std::fs::write(&encoded, &want.stdout).unwrap();
    let got = pg.ok(&format!(
        "CREATE TEMP TABLE ids (ord serial, id bigint);\n\
         \\copy ids (id) from '{}'\n\
         SELECT {schema}.encode{suffix}(id) FROM ids ORDER BY ord;\n",
        input.display()
    ));
    assert!(
        got.as_bytes() == want.stdout.as_slice(),
        "{args:?}: SQL and CLI encodings differ (first lines: {:?} / {:?})",
        got.lines().next(),
        String::from_utf8_lossy(&want.stdout).lines().next()
    );
    // Decoding, in SQL, what the CLI encoded, with the current key and with the old one.
    let old = cli(&enc_args, one, lines(&all[..1000]).as_bytes());
    assert!(old.status.success());
    let mut texts = want.stdout.clone();
    texts.extend_from_slice(&old.stdout);
    let texts_path = dir.join(format!("{schema}.all"));
    std::fs::write(&texts_path, &texts).unwrap();
    let decoded = pg.ok(&format!(
        "CREATE TEMP TABLE enc (ord serial, t text);\n\
         \\copy enc (t) from '{}'\n\
         SELECT {schema}.decode{suffix}(t) FROM enc ORDER BY ord;\n",
        texts_path.display()
    ));
    let mut expect = lines(&all);
    expect.push_str(&lines(&all[..1000]));
    assert!(decoded == expect, "{args:?}: SQL decodes differently");
    // Forged: one character changed. Both refuse; try_decode gives NULL.
    let forged: Vec<String> = String::from_utf8(want.stdout)
        .unwrap()
        .lines()
        .take(1000)
        .map(|l| {
            let mut c: Vec<char> = l.chars().collect();
            let at = c.len() - 3;
            c[at] = if c[at] == '1' { '2' } else { '1' };
            c.into_iter().collect()
        })
        .collect();
    let forged_text: String = forged.iter().map(|l| format!("{l}\n")).collect();
    let mut dec_args = vec!["decode", "--keep-going"];
    dec_args.extend(args.iter().copied());
    let refused = cli(&dec_args, two, forged_text.as_bytes());
    assert_eq!(refused.status.code(), Some(2));
    assert!(refused.stdout.iter().all(|&b| b == b'\n'));
    let forged_path = dir.join(format!("{schema}.forged"));
    std::fs::write(&forged_path, &forged_text).unwrap();
    let nulls = pg.ok(&format!(
        "CREATE TEMP TABLE f (t text);\n\
         \\copy f from '{}'\n\
         SELECT count(*), count({schema}.try_decode{suffix}(t)) FROM f;\n",
        forged_path.display()
    ));
    assert_eq!(nulls.trim(), "1000|0", "{args:?}");
    let out = pg.psql(&format!(
        "\\set VERBOSITY verbose\nSELECT {schema}.decode{suffix}('{}');",
        forged[0]
    ));
    assert!(!out.status.success());
    assert!(stderr_of(&out).contains("22P02"), "{}", stderr_of(&out));
}

#[test]
#[ignore = "every scheme and format through a PostgreSQL cluster: the CI tier, `cargo test -- --ignored`"]
fn sql_functions_give_the_cli_s_ids_for_every_scheme_and_format() {
    let Some(pg) = Pg::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (two, one) = rings(dir.path());
    pg.ok("CREATE SEQUENCE case_no;");
    let n = 100_000;
    let cases: &[(&[&str], &str)] = &[
        (&[], ""),
        (
            &["--format", "hex", "--context", "orders", "--prefix", "ord_"],
            "_orders",
        ),
        (&["--format", "base32", "--rounds", "4"], ""),
        (&["--format", "base62"], ""),
        (&["--scheme", "aes128"], ""),
        (
            &[
                "--scheme",
                "aes128",
                "--format",
                "base32",
                "--context",
                "users",
            ],
            "_users",
        ),
        (
            &["--scheme", "aes128", "--format", "base62", "--prefix", "u_"],
            "",
        ),
        (&["--scheme", "cycle-walk"], ""),
        (&["--scheme", "cycle-walk", "--format", "base32"], ""),
        (
            &[
                "--scheme",
                "cycle-walk",
                "--format",
                "base62",
                "--clear-bit",
                "5",
            ],
            "",
        ),
    ];
    for (args, suffix) in cases {
        agree(&pg, dir.path(), &two, &one, args, suffix, n);
    }
}

#[test]
fn sql_functions_use_indexes_keep_views_and_keep_keys_from_readers() {
    let Some(pg) = Pg::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (two, _) = rings(dir.path());
    let script = cli(&["ids", "sql"], &two, b"");
    assert!(script.status.success());
    pg.ok(std::str::from_utf8(&script.stdout).unwrap());
    pg.ok(
        "CREATE TABLE users AS SELECT i::bigint AS id, 'user ' || i AS name FROM generate_series(1, 100000) i;\n\
         ALTER TABLE users ADD PRIMARY KEY (id);\n\
         ANALYZE users;\n\
         CREATE VIEW api_users AS SELECT veilkit.encode(id) AS id, name FROM users;",
    );
    let id7 = cli(&["encode", "7"], &two, b"");
    let id7 = String::from_utf8(id7.stdout).unwrap().trim().to_string();
    let plan = pg.ok(&format!(
        "EXPLAIN (COSTS OFF) SELECT name FROM users WHERE id = veilkit.decode('{id7}');"
    ));
    assert!(plan.contains("Index Scan using users_pkey"), "{plan}");
    assert_eq!(
        pg.ok(&format!(
            "SELECT name FROM users WHERE id = veilkit.decode('{id7}');"
        )),
        "user 7\n"
    );
    // The view, ordered and limited: the five smallest of the CLI's encodings.
    let all = cli(
        &["encode"],
        &two,
        lines(&(1..=100_000).collect::<Vec<_>>()).as_bytes(),
    );
    let mut sorted: Vec<&str> = std::str::from_utf8(&all.stdout).unwrap().lines().collect();
    sorted.sort_unstable();
    let first: String = sorted[..5].iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(
        pg.ok("SELECT id FROM api_users ORDER BY id LIMIT 5;"),
        first
    );
    // NULL in, NULL out; ids outside the scheme's domain are errors.
    assert_eq!(
        pg.ok("SELECT veilkit.encode(NULL) IS NULL, veilkit.decode(NULL) IS NULL, veilkit.try_decode('not an id') IS NULL;"),
        "t|t|t\n"
    );
    for bad in ["-1", "1152921504606846976"] {
        let out = pg.psql(&format!(
            "\\set VERBOSITY verbose\nSELECT veilkit.encode({bad});"
        ));
        assert!(!out.status.success());
        let e = stderr_of(&out);
        assert!(
            e.contains("22003") && e.contains("outside the range"),
            "{e}"
        );
    }
    // A role without rights reads no key, and still encodes.
    let out = pg.psql(
        "CREATE ROLE reader;\nSET ROLE reader;\nSELECT veilkit.encode(7);\nSELECT * FROM veilkit.id_keys;",
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&id7));
    assert!(
        stderr_of(&out).contains("permission denied"),
        "{}",
        stderr_of(&out)
    );
    // Rotation: a new key in the ring; --rotate replaces the keys, the view stays, new
    // ids use the new key and old ones still decode.
    run_ok(std_veilkit().args(["keygen", "--add"]).arg(&two));
    let keys = cli(&["ids", "sql", "--rotate"], &two, b"");
    assert!(!String::from_utf8_lossy(&keys.stdout).contains("CREATE OR REPLACE FUNCTION"));
    pg.ok(std::str::from_utf8(&keys.stdout).unwrap());
    let new7 = cli(&["encode", "7"], &two, b"");
    let new7 = String::from_utf8(new7.stdout).unwrap().trim().to_string();
    assert_ne!(new7, id7);
    assert_eq!(
        pg.ok(&format!(
            "SELECT id FROM api_users WHERE name = 'user 7';\nSELECT veilkit.decode('{id7}');"
        )),
        format!("{new7}\n7\n")
    );
    // A session that has used the functions sees every later change of the keys: the
    // rotation's, and one made by hand.
    {
        use std::io::{BufRead, Write};
        let mut live = Command::new("psql")
            .args(["-X", "-q", "-At", "-h", "127.0.0.1", "-U", "postgres", "-p"])
            .arg(pg.port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut to = live.stdin.take().unwrap();
        let mut from = std::io::BufReader::new(live.stdout.take().unwrap());
        let mut ask = |sql: &str| -> String {
            writeln!(to, "{sql}").unwrap();
            to.flush().unwrap();
            let mut line = String::new();
            from.read_line(&mut line).unwrap();
            line.trim().to_string()
        };
        assert_eq!(ask("SELECT veilkit.encode(7);"), new7);
        run_ok(std_veilkit().args(["keygen", "--add"]).arg(&two));
        let keys = cli(&["ids", "sql", "--rotate"], &two, b"");
        pg.ok(std::str::from_utf8(&keys.stdout).unwrap());
        let newer7 = cli(&["encode", "7"], &two, b"");
        let newer7 = String::from_utf8(newer7.stdout).unwrap().trim().to_string();
        assert_ne!(newer7, new7);
        assert_eq!(ask("SELECT veilkit.encode(7);"), newer7);
        assert_eq!(ask(&format!("SELECT veilkit.decode('{newer7}');")), "7");
        pg.ok(
            "DELETE FROM veilkit.id_keys WHERE key_id = (SELECT max(key_id) FROM veilkit.id_keys);",
        );
        assert_eq!(ask("SELECT veilkit.encode(7);"), new7);
        assert_eq!(
            ask(&format!("SELECT veilkit.try_decode('{newer7}') IS NULL;")),
            "t"
        );
        drop(to);
        live.wait().unwrap();
        let keys = cli(&["ids", "sql", "--rotate"], &two, b"");
        pg.ok(std::str::from_utf8(&keys.stdout).unwrap());
    }
    // The whole script again, with the view in place.
    let script = cli(&["ids", "sql"], &two, b"");
    pg.ok(std::str::from_utf8(&script.stdout).unwrap());
    // The script holds derived keys, never the master key.
    let ring = std::fs::read_to_string(&two).unwrap();
    for line in ring.lines().filter(|l| l.starts_with("veilkit-key-1:")) {
        let master = line.split(':').nth(2).unwrap();
        assert!(!String::from_utf8_lossy(&script.stdout).contains(master));
    }
}
