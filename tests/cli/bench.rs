//! `veilkit bench` through the real binary, with a handful of iterations (the figures
//! mean nothing at that size; the shape of the output is what is checked).

use super::common::*;

#[test]
fn json_covers_every_section_in_the_documented_schema() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_ok(
        veilkit()
            .args(["bench", "all", "--tiny", "--json", "--threads", "1,2,max"])
            .env("TMPDIR", dir.path()),
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["schema"], "veilkit-bench/1");
    assert_eq!(j["scale"], "tiny");
    assert!(j["noisy"].is_boolean());
    let m = &j["machine"];
    assert!(m["cpu"].is_string() && m["cores"].as_u64().unwrap() >= 1);
    assert!(m["features"].is_array() && m["optimized"].is_boolean());
    let names: Vec<&str> = j["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ids", "nonces", "codecs", "breach", "records"]);
    for s in j["sections"].as_array().unwrap() {
        assert!(s["title"].is_string());
        let keys: Vec<&str> = s["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                assert!(c["label"].is_string() && c["unit"].is_string());
                c["key"].as_str().unwrap()
            })
            .collect();
        let rows = s["rows"].as_array().unwrap();
        assert!(!rows.is_empty(), "{}", s["name"]);
        for r in rows {
            assert!(r["label"].is_string());
            assert!(r["reference"].is_string() || r["reference"].is_null());
            let figs = r["figures"].as_object().unwrap();
            assert_eq!(figs.len(), keys.len());
            for k in &keys {
                let f = &figs[*k];
                if f.is_null() {
                    continue;
                }
                assert!(f["median"].as_f64().unwrap() >= 0.0, "{} {k}", s["name"]);
                assert!(f["runs"].as_u64().unwrap() >= 1);
                assert!(f["noisy"].is_boolean());
                assert!(f["p99"].is_null() || f["p99"].is_number());
                assert!(f["spread"].is_null() || f["spread"].is_number());
            }
        }
        assert!(s["notes"].is_array());
    }
    // Thread columns: 1, 2 and every core (2 and max merge on a 2-core machine).
    let nonces = &j["sections"][1]["columns"];
    assert_eq!(nonces[0]["key"], "threads_1");
    assert_eq!(nonces[1]["key"], "threads_2");
    // Scratch files are gone.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn tables_name_the_machine_and_the_published_figures() {
    let out = run_ok(veilkit().args(["bench", "ids", "--tiny"]));
    let text = stdout_of(&out);
    assert!(text.starts_with("veilkit "), "{text}");
    assert!(text.contains("machine: "), "{text}");
    assert!(text.contains("logical CPU(s)"), "{text}");
    assert!(text.contains("(Khuong's table)"), "{text}");
    assert!(text.contains("Khuong Feistel: 70.3 ticks"), "{text}");
    assert!(text.contains("uuid: deterministic 3-round"), "{text}");
    // Columns carry their units.
    assert!(text.contains("ticks") && text.contains("M ids/s"), "{text}");
}

#[test]
fn bad_options_and_a_bad_index_are_clear_errors() {
    let out = veilkit()
        .args(["bench", "nonces", "--threads", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("not a thread count"),
        "{}",
        stderr_of(&out)
    );
    let out = veilkit()
        .args(["bench", "--quick", "--full"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.idx");
    std::fs::write(&bad, b"VEILKIT? not an index at all").unwrap();
    let out = veilkit()
        .args(["bench", "breach", "--tiny", "--index"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(err.starts_with("veilkit: bench breach: index: "), "{err}");
}
