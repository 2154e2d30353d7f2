//! The framed plaintext of a compressed record file's data page (a method byte, a
//! length, then zstd or stored records), as a damaged or forged file might hold it
//! after its page decrypted: unframing never panics and never gives more than the
//! page size's bound; and any records framed unframe to the same bytes, with or without
//! a dictionary (record compression 2).

use crate::records::compress::{Dict, frame, raw_max, unframe};

/// A dictionary of raw content, like the text of the records a file holds.
const DICTIONARY: &[u8] = b"id,name,email,note\n,Smith,@example.com,\"order refund\"\n\
    {\"id\":1,\"name\":\"\",\"active\":true}\nGET /api/v1/orders HTTP/1.1\" 200 ";

/// One input: the first byte chooses a page size (512 to 64 KiB), a level and whether
/// a dictionary is used; the rest is both a framed page to read and records to frame.
pub fn run(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let page_size = 512usize << (pick % 8);
    let dict = (pick >> 3 >= 20).then(|| Dict::new(DICTIONARY.to_vec()));
    let dict = dict.as_deref();
    if let Ok(raw) = unframe(rest, page_size, dict) {
        assert!(raw.len() <= raw_max(page_size), "unframed past the bound");
    }
    let level = i32::from(pick >> 3) % 20 - 1;
    if let Some(framed) = frame(rest, level, dict, page_size) {
        assert!(framed.len() <= page_size);
        assert_eq!(
            unframe(&framed, page_size, dict).ok().as_deref(),
            Some(rest)
        );
    }
}
