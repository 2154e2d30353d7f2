//! Every text parser of the id codec, on arbitrary bytes: no panic, and whatever parses
//! writes back to the same text (modulo case).
#![no_main]
use libfuzzer_sys::fuzz_target;
use veilkit::ids::stream::parse_decimal;
use veilkit::ids::text::Format;

fuzz_target!(|data: &[u8]| {
    let _ = parse_decimal(data);
    for f in [Format::Uuid, Format::Hex, Format::Base32, Format::Base62] {
        if let Ok(v) = f.parse(data) {
            let mut out = Vec::new();
            f.write(&v, &mut out);
            assert!(out.eq_ignore_ascii_case(data));
        }
    }
});
