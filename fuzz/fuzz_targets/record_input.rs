//! `veilkit::fuzz::record_input`: the harness lives in the library, so that `cargo test`
//! replays this target's corpus (`fuzz/corpus/record_input/`) through the same code.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veilkit::fuzz::record_input::run(data));
