//! `veilkit::fuzz::range_body`: the harness lives in the library, so that `cargo test`
//! replays this target's corpus (`fuzz/corpus/range_body/`) through the same code.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veilkit::fuzz::range_body::run(data));
