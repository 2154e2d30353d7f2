//! `--json` of every command that has one: the schemas of docs/JSON.md, checked on the
//! real binary's output.

use super::breach::build_from;
use super::common::{keyfile, std_veilkit, stderr_of, veilkit};
use serde_json::Value;
use std::path::Path;

fn json_of(args: &[&str], path: &Path, key: Option<&Path>) -> (Option<i32>, Value, String) {
    let mut cmd = std_veilkit();
    cmd.args(args).arg(path);
    if let Some(k) = key {
        cmd.arg("--key-file").arg(k);
    }
    let out = cmd.output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", stderr_of(&out)));
    (out.status.code(), v, stderr_of(&out))
}

/// The object's keys, sorted.
fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

const DUMP: &str = "\
5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493
7C4A8D09CA3762AF61E59520943DC26494F8941B:37359195
B1B3773A05C0ED0176787A4F1574FF0075F7521E:1
";

#[test]
fn breach_info_verify_and_diff_print_their_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let a = build_from(dir.path(), "a", DUMP);
    let (code, v, _) = json_of(&["breach", "info", "--json"], &a, None);
    assert_eq!(code, Some(0));
    assert_eq!(
        keys(&v),
        [
            "bytes",
            "count_bits",
            "file",
            "format",
            "hashes",
            "identity",
            "kind",
            "max_count",
            "overflow_entries",
            "partial",
            "record_bytes",
            "table_bits",
            "table_bytes",
            "tier",
            "total_count",
            "version"
        ]
    );
    assert_eq!(v["hashes"], 3);
    assert_eq!(v["kind"], "sha1");
    assert_eq!(v["tier"], "exact");
    assert_eq!(v["format"], "exact");
    assert_eq!(v["partial"], false);
    assert_eq!(v["max_count"], 37359195);
    assert_eq!(v["total_count"], 3861493 + 37359195 + 1);
    assert_eq!(v["bytes"], std::fs::metadata(&a).unwrap().len());
    assert_eq!(v["identity"].as_str().unwrap().len(), 16);

    // A compact tier built from it names it as its source.
    let c = dir.path().join("a.compact");
    veilkit()
        .args(["-q", "breach", "build", "--tier", "compact"])
        .arg(&a)
        .arg("-o")
        .arg(&c)
        .assert()
        .success();
    let (_, t, _) = json_of(&["breach", "info", "--json"], &c, None);
    assert_eq!(t["format"], "compact");
    assert_eq!(t["tier"], "compact");
    assert_eq!(t["source_identity"], v["identity"]);
    assert_eq!(t["counts"], true);
    assert!(t["false_positive_rate"].as_f64().unwrap() < 1e-6);

    let (code, v, _) = json_of(&["breach", "verify", "--json"], &a, None);
    assert_eq!(code, Some(0));
    assert_eq!(
        keys(&v),
        [
            "entries",
            "file",
            "first_empty_range",
            "kind",
            "ranges_empty",
            "ranges_held",
            "sound",
            "tier"
        ]
    );
    assert_eq!(v["sound"], true);
    assert_eq!(v["entries"], 3);
    // The dump's three hashes lie in three ranges, none of them 00000.
    assert_eq!(v["ranges_held"], 3);
    assert_eq!(v["ranges_empty"], (1 << 20) - 3);
    assert_eq!(v["first_empty_range"], "00000");
    // A compact index keeps no whole hashes: no ranges.
    let (code, t, _) = json_of(&["breach", "verify", "--json"], &c, None);
    assert_eq!(code, Some(0));
    assert_eq!(keys(&t), ["entries", "file", "kind", "sound", "tier"]);

    // A damaged copy: sound false, the error in the object and on stderr, status 2.
    let bad = dir.path().join("bad.idx");
    let mut bytes = std::fs::read(&a).unwrap();
    let last = bytes.len() - 30;
    bytes[last] ^= 1;
    std::fs::write(&bad, &bytes).unwrap();
    let (code, v, err) = json_of(&["breach", "verify", "--json"], &bad, None);
    assert_eq!(code, Some(2));
    assert_eq!(v["sound"], false);
    let msg = v["error"].as_str().unwrap();
    assert!(
        !msg.is_empty() && err.contains(msg.split(':').next().unwrap()),
        "{v} {err}"
    );

    // diff: JSON Lines, one per change, then the summary.
    let b = build_from(
        dir.path(),
        "b",
        "\
5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3861494
7C4A8D09CA3762AF61E59520943DC26494F8941B:37359195
C000000000000000000000000000000000000000:2
",
    );
    let out = std_veilkit()
        .args(["breach", "diff", "--json"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stderr.is_empty(), "{}", stderr_of(&out));
    let lines: Vec<Value> = std::str::from_utf8(&out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            serde_json::json!({"type":"recounted","hash":"5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8","old_count":3861493,"new_count":3861494}),
            serde_json::json!({"type":"removed","hash":"B1B3773A05C0ED0176787A4F1574FF0075F7521E","count":1}),
            serde_json::json!({"type":"added","hash":"C000000000000000000000000000000000000000","count":2}),
            serde_json::json!({"type":"summary","added":1,"removed":1,"recounted":1,"unchanged":1}),
        ]
    );
}

#[test]
fn records_info_verify_and_keys_print_their_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let key = keyfile(dir.path(), "k.key");
    let src = dir.path().join("in.csv");
    std::fs::write(&src, "id,name\n1,ann\n2,bob\n").unwrap();
    let file = dir.path().join("f.vkr");
    veilkit()
        .args(["-q", "records", "seal", "--key-field", "id"])
        .arg(&src)
        .arg("-o")
        .arg(&file)
        .arg("--key-file")
        .arg(&key)
        .assert()
        .success();
    let (code, keyring, _) = json_of(&["keys", "--json", "--key-file"], &key, None);
    assert_eq!(code, Some(0));
    let k = &keyring.as_array().unwrap()[0];
    assert_eq!(keys(k), ["fingerprint", "id", "low2", "status"]);
    assert_eq!(k["status"], "current");
    assert_eq!(k["fingerprint"].as_str().unwrap().len(), 16);

    // Without a key: what the header says in the clear.
    let (code, v, _) = json_of(&["records", "info", "--json"], &file, None);
    assert_eq!(code, Some(0));
    assert_eq!(
        keys(&v),
        [
            "bytes",
            "commits",
            "copies",
            "file",
            "page_size",
            "slots",
            "version"
        ]
    );
    assert_eq!(
        v["slots"],
        serde_json::json!([{"kind":"keyring","key_id":k["id"],"fingerprint":k["fingerprint"]}])
    );
    assert_eq!(v["copies"][0]["state"], "readable");
    assert_eq!(v["bytes"], std::fs::metadata(&file).unwrap().len());

    // With it: the records and the pages too.
    let (_, v, _) = json_of(&["records", "info", "--json"], &file, Some(&key));
    assert_eq!(v["records"], 2);
    assert_eq!(v["input"], "csv");
    assert_eq!(v["key_field"], "id");
    assert_eq!(v["header_row"], true);
    assert_eq!(v["copies"][0]["state"], "current");
    assert!(v["pages_in_use"].as_u64().unwrap() > 0);

    let (code, v, _) = json_of(&["records", "verify", "--json"], &file, Some(&key));
    assert_eq!(code, Some(0));
    assert_eq!(keys(&v), ["file", "pages", "records", "sound"]);
    assert_eq!(v["records"], 2);

    // A wrong key: sound false, status 2, the error on stderr too.
    let other = keyfile(dir.path(), "other.key");
    let (code, v, err) = json_of(&["records", "verify", "--json"], &file, Some(&other));
    assert_eq!(code, Some(2));
    assert_eq!(v["sound"], false);
    assert!(err.contains("wrong key"), "{err}");
}
