//! `veilkit::fuzz::dump_parser`: the harness lives in the library, so that `cargo test`
//! replays this target's corpus (`fuzz/corpus/dump_parser/`) through the same code.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veilkit::fuzz::dump_parser::run(data));
