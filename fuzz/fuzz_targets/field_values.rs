//! `veilkit::fuzz::field_values`: the harness lives in the library, so that `cargo test`
//! replays this target's corpus (`fuzz/corpus/field_values/`) through the same code.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veilkit::fuzz::field_values::run(data));
