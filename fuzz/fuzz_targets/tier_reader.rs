//! `veilkit::fuzz::tier_reader`: the harness lives in the library, so that `cargo test`
//! replays this target's corpus (`fuzz/corpus/tier_reader/`) through the same code.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veilkit::fuzz::tier_reader::run(data));
