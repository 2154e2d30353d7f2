//! `veilkit::fuzz::key_file`: the harness lives in the library, so that `cargo test`
//! replays this target's corpus (`fuzz/corpus/key_file/`) through the same code.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veilkit::fuzz::key_file::run(data));
