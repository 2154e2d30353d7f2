//! The dump parser on arbitrary bytes: no panic; a successful build gives an index
//! that verifies and answers every hash of the dump.
use crate::breach::build::{self, Options, Source};
use crate::breach::index::Index;
use crate::progress::NoProgress;

/// One input.
pub fn run(data: &[u8]) {
    let dir = std::env::temp_dir();
    let mut out = tempfile::tempfile_in(&dir).unwrap();
    let mut input = data;
    let built = build::build(
        Source::Stream {
            reader: &mut input,
            name: "fuzz".into(),
            size: None,
        },
        &mut out,
        Options::default(),
        &dir,
        &NoProgress,
    );
    if built.is_ok() {
        use std::io::{Read, Seek};
        out.rewind().unwrap();
        let mut bytes = Vec::new();
        out.read_to_end(&mut bytes).unwrap();
        let index = Index::from_bytes(bytes).unwrap();
        index.verify(&NoProgress).unwrap();
        for record in index.iter() {
            let (hash, count) = record.unwrap();
            assert_eq!(index.lookup(&hash).unwrap(), count);
        }
    }
}
