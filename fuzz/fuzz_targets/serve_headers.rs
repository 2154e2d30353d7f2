//! `veilkit::fuzz::serve_headers`: the harness lives in the library, so that `cargo test`
//! replays this target's corpus (`fuzz/corpus/serve_headers/`) through the same code.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veilkit::fuzz::serve_headers::run(data));
