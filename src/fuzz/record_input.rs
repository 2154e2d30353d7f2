//! The record input parsers (lines, CSV, TSV, JSON lines) on arbitrary bytes: no panic,
//! and every byte kept. Whatever parses gives back, header row and records' raw bytes
//! together, exactly the input up to where it stopped; a JSON line's key is text of the
//! line when the line has no escapes (never a rendering of a parsed number).
use crate::records::format::InputFormat;
use crate::records::input::{KeyField, parse};

/// One input.
pub fn run(data: &[u8]) {
    // The first byte chooses the format and key, the second's low bit a header row.
    let [choice, flags, input @ ..] = data else {
        return;
    };
    let (choice, header) = (*choice, flags & 1 == 1);
    let (format, key) = match choice % 6 {
        0 => (InputFormat::Lines, None),
        1 => (
            InputFormat::Csv,
            Some(KeyField::Number(1 + usize::from(choice >> 4))),
        ),
        2 => (InputFormat::Csv, Some(KeyField::Name("id".into()))),
        3 => (InputFormat::Tsv, Some(KeyField::Number(2))),
        4 => (InputFormat::Jsonl, Some(KeyField::Name("id".into()))),
        _ => (InputFormat::Jsonl, Some(KeyField::Number(1))),
    };
    let header = header && matches!(format, InputFormat::Csv | InputFormat::Tsv);
    let Ok((prefix, records)) = parse(input, format, key.as_ref(), header, 1) else {
        return;
    };
    let mut kept: Vec<u8> = prefix.map(<[u8]>::to_vec).unwrap_or_default();
    for r in records {
        let Ok(r) = r else { break };
        let key = r.key_bytes().to_vec();
        // Without escapes in the line, a JSON line's key (a string's value, a number's or
        // boolean's text) is text of the line, never a rendering of a parsed value.
        if format == InputFormat::Jsonl && !r.raw.contains(&b'\\') {
            assert!(
                r.raw.windows(key.len().max(1)).any(|w| w == &key[..]) || key.is_empty(),
                "{key:?} not in {:?}",
                r.raw
            );
        }
        kept.extend_from_slice(&r.raw);
    }
    assert!(
        input.starts_with(&kept),
        "the records are not the input's bytes"
    );
}
