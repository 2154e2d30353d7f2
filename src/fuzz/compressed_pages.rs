//! The framed plaintext of a compressed record file's data page (a method byte, a
//! length, then zstd or stored records), as a damaged or forged file might hold it
//! after its page decrypted: unframing never panics and never gives more than the
//! page size's bound; and any records framed unframe to the same bytes.

use crate::records::compress::{frame, raw_max, unframe};

/// One input: the first byte chooses a page size (512 to 64 KiB), the rest is both a
/// framed page to read and records to frame.
pub fn run(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let page_size = 512usize << (pick % 8);
    if let Ok(raw) = unframe(rest, page_size, None) {
        assert!(raw.len() <= raw_max(page_size), "unframed past the bound");
    }
    let level = i32::from(pick >> 3) % 20 - 1;
    if let Some(framed) = frame(rest, level, None, page_size) {
        assert!(framed.len() <= page_size);
        assert_eq!(
            unframe(&framed, page_size, None).ok().as_deref(),
            Some(rest)
        );
    }
}
