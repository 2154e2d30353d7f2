//! `veilkit::fuzz::records_file`: the harness lives in the library, so that `cargo test`
//! replays this target's corpus (`fuzz/corpus/records_file/`) through the same code.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veilkit::fuzz::records_file::run(data));
