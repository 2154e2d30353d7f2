//! Range bodies as a hostile server might send them, in every coding `download`
//! accepts: decoding never panics and never holds more than the limit; a decoder that
//! has seen other bodies (and failed on some) decodes exactly as a new one does; a body
//! that is accepted packs into whole entries, which written back as text pack to the
//! same bytes.
use crate::breach::HashKind;
use crate::breach::download::body::{MAX_BODY, pack, read_leb128, well_formed};
use crate::breach::download::decode::{Decoder, Encoding};
use std::cell::RefCell;
use std::fmt::Write;

thread_local! {
    static KEPT: RefCell<Decoder> = RefCell::new(Decoder::new());
}

/// One input.
pub fn run(data: &[u8]) {
    let Some((&pick, raw)) = data.split_first() else {
        return;
    };
    let encoding = [
        Encoding::Identity,
        Encoding::Gzip,
        Encoding::Zstd,
        Encoding::Brotli,
    ][usize::from(pick & 3)];
    let kind = if pick & 4 == 0 {
        HashKind::Sha1
    } else {
        HashKind::Ntlm
    };
    let prefix = u32::from(pick >> 3) * 0x8421;
    let mut fresh = Decoder::new();
    let new = fresh.decode(encoding, raw).map(<[u8]>::to_vec);
    let kept = KEPT.with(|d| d.borrow_mut().decode(encoding, raw).map(<[u8]>::to_vec));
    assert_eq!(new, kept, "a reused decoder decoded otherwise");
    let Ok(text) = new else { return };
    assert!(text.len() <= MAX_BODY);
    let Ok(packed) = pack(kind, prefix, &text) else {
        return;
    };
    assert!(well_formed(kind, &packed.bytes));
    // Written back as the API's text, the entries pack to the same bytes.
    let n = match kind {
        HashKind::Sha1 => 20,
        HashKind::Ntlm => 16,
    };
    let (mut at, mut again, mut hashes) = (0, String::new(), 0u64);
    while at < packed.bytes.len() {
        let hash = &packed.bytes[at..at + n];
        let (count, len) = read_leb128(&packed.bytes[at + n..]).unwrap();
        at += n + len;
        hashes += 1;
        let hex: String = hash.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(
            &hex[..5],
            &format!("{prefix:05X}"),
            "a hash outside its range"
        );
        assert!(count > 0, "a padding line was kept");
        write!(again, "{}:{count}\r\n", &hex[5..]).unwrap();
    }
    assert_eq!(hashes, packed.hashes);
    let repacked = pack(kind, prefix, again.as_bytes()).unwrap();
    assert_eq!(repacked, packed);
}
