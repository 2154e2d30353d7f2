//! `veilkit::fuzz::compressed_pages`: the harness lives in the library, so that `cargo test`
//! replays this target's corpus (`fuzz/corpus/compressed_pages/`) through the same code.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veilkit::fuzz::compressed_pages::run(data));
