//! `veilkit::fuzz::age_files`: the harness lives in the library, so that `cargo test`
//! replays this target's corpus (`fuzz/corpus/age_files/`) through the same code.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veilkit::fuzz::age_files::run(data));
