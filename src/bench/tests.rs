use super::*;
use crate::progress::NoProgress;

fn tiny() -> Options {
    Options {
        scale: Scale::Tiny,
        threads: vec![1, 2],
        index: None,
        scratch: std::env::temp_dir(),
    }
}

#[test]
fn figures_take_medians_and_spreads() {
    let f = Figure::of_runs(vec![3.0, 1.0, 2.0]);
    assert_eq!(f.median, 2.0);
    assert_eq!(f.spread, Some(1.0));
    assert!(f.noisy());
    // From five runs on, the extremes are dropped from the spread.
    let f = Figure::of_runs(vec![10.0, 10.1, 9.9, 100.0, 0.1]);
    assert_eq!(f.median, 10.0);
    assert!((f.spread.unwrap() - 0.02).abs() < 1e-9, "{f:?}");
    assert!(!f.noisy());
    let f = Figure::of_samples((1..=1000).map(f64::from).collect());
    assert_eq!(f.median, 500.5);
    assert_eq!(f.p99, Some(990.0));
    assert_eq!(f.spread, None);
    assert!(!f.noisy());
    assert_eq!(Figure::of_runs(vec![4.0, 2.0]).median, 3.0);
}

#[test]
fn thread_counts_expand_all_cores_and_drop_duplicates() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let o = Options {
        threads: vec![1, 0, 1, cores],
        ..tiny()
    };
    let want: Vec<usize> = if cores == 1 { vec![1] } else { vec![1, cores] };
    assert_eq!(thread_counts(&o), want);
}

#[test]
fn every_section_fills_its_table() {
    for section in Section::ALL {
        let t = run(section, &tiny(), &NoProgress).unwrap();
        assert_eq!(t.section, section);
        assert!(!t.rows.is_empty(), "{section:?}");
        for r in &t.rows {
            assert_eq!(r.figures.len(), t.columns.len(), "{section:?} {}", r.label);
            assert!(
                r.figures.iter().any(Option::is_some),
                "{section:?} {}",
                r.label
            );
            for f in r.figures.iter().flatten() {
                assert!(
                    f.median.is_finite() && f.median >= 0.0,
                    "{section:?} {}: {f:?}",
                    r.label
                );
            }
        }
    }
}

#[test]
fn sections_measure_what_they_name() {
    let ids = run(Section::Ids, &tiny(), &NoProgress).unwrap();
    let labels: Vec<&str> = ids.rows.iter().map(|r| r.label.as_str()).collect();
    assert!(
        labels.iter().any(|l| l.contains("2-round Feistel")),
        "{labels:?}"
    );
    assert!(
        labels.iter().any(|l| l.contains("hardware floor")),
        "{labels:?}"
    );
    let nonces = run(Section::Nonces, &tiny(), &NoProgress).unwrap();
    // 3 widths x 3 kinds + the OS random source; one column per thread count.
    assert_eq!(nonces.rows.len(), 10);
    assert_eq!(nonces.columns.len(), thread_counts(&tiny()).len());
    let codecs = run(Section::Codecs, &tiny(), &NoProgress).unwrap();
    assert_eq!(codecs.rows[0].label, "memory copy");
    // The copy's ratio to itself is 1.
    let ratio = codecs.rows[0].figures[4].unwrap().median;
    assert!((ratio - 1.0).abs() < 1e-9, "{ratio}");
    let breach = run(Section::Breach, &tiny(), &NoProgress).unwrap();
    assert!(breach.rows.iter().any(|r| r.label.starts_with("hot")));
    assert!(breach.rows.iter().any(|r| r.label.starts_with("warm")));
    let records = run(Section::Records, &tiny(), &NoProgress).unwrap();
    assert_eq!(records.rows.len(), 4);
    // Encrypted files are larger than the key and value bytes (at this tiny size the
    // fixed headers dominate); plaintext ones hold the bytes and the line ends.
    let size = records.rows[3].figures[3].unwrap().median;
    assert!(size > 1.0, "{size}");
    let plain = records.rows[2].figures[3].unwrap().median;
    assert!((plain - 110.0 / 108.0).abs() < 1e-9, "{plain}");
}

#[test]
fn a_given_index_is_used_and_a_bad_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.idx");
    std::fs::write(&bad, b"not an index").unwrap();
    let o = Options {
        index: Some(bad),
        ..tiny()
    };
    assert!(matches!(
        run(Section::Breach, &o, &NoProgress),
        Err(BenchError::Index(_))
    ));
}

#[test]
fn json_has_the_documented_shape() {
    let t = run(Section::Ids, &tiny(), &NoProgress).unwrap();
    let j = to_json(&machine(), Scale::Tiny, &[t]);
    assert_eq!(j["schema"], "veilkit-bench/1");
    assert_eq!(j["scale"], "tiny");
    assert!(j["machine"]["cores"].as_u64().unwrap() >= 1);
    assert!(j["machine"]["features"].is_array());
    let s = &j["sections"][0];
    assert_eq!(s["name"], "ids");
    let keys: Vec<&str> = s["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    let row = &s["rows"][1];
    for k in &keys {
        assert!(row["figures"].get(*k).is_some(), "{k}");
    }
    let f = &row["figures"]["encode_ns"];
    assert!(f["median"].as_f64().unwrap() > 0.0);
    assert!(f["runs"].as_u64().unwrap() >= 1);
    assert!(f["noisy"].is_boolean());
    assert_eq!(row["reference"], "Khuong AES-128: 35.2 ticks");
}
