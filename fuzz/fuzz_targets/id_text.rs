//! `veilkit::fuzz::id_text`: the harness lives in the library, so that `cargo test`
//! replays this target's corpus (`fuzz/corpus/id_text/`) through the same code.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veilkit::fuzz::id_text::run(data));
