//! Every committed fuzz corpus file through its target's entry point
//! (`veilkit::fuzz::TARGET::run`, what libFuzzer runs): the findings of the fuzz campaigns
//! stay fixed without nightly. `fuzz/corpus/TARGET/` holds each target's minimized corpus
//! and the inputs of what it found.

use std::path::Path;

#[test]
fn every_fuzz_corpus_file_replays_through_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut replayed = 0;
    for (name, run) in veilkit::fuzz::TARGETS {
        // Every target is a binary of the fuzz package, and has a corpus.
        let source = root.join("fuzz_targets").join(format!("{name}.rs"));
        assert!(source.exists(), "{} is missing", source.display());
        let dir = root.join("corpus").join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{} is empty", dir.display());
        for file in files {
            let data = std::fs::read(&file).unwrap();
            let caught = std::panic::catch_unwind(|| run(&data));
            assert!(caught.is_ok(), "{} fails its target", file.display());
            replayed += 1;
        }
    }
    let targets = std::fs::read_dir(root.join("fuzz_targets"))
        .unwrap()
        .count();
    assert_eq!(
        targets,
        veilkit::fuzz::TARGETS.len(),
        "a target is not replayed"
    );
    eprintln!("{replayed} corpus files replayed");
}
