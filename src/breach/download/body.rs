//! One range body, checked and packed: what a download keeps of a range before the build
//! uses it.
//!
//! A body is the range API's text: `SUFFIX:COUNT` lines (suffix of 35 hex digits for
//! SHA-1, 27 for NTLM, either case; count in decimal), joined by CRLF or LF, a final line
//! end allowed, suffixes strictly increasing. Count-0 lines (the API's padding) are
//! dropped, as `build` drops them. Anything else is a [`BodyError`] naming the line: the
//! caller fetches the range again instead of building it.
//!
//! Packed form (the journal's, docs/BREACH-FORMAT.md "Download journal"): per hash, the
//! whole hash in big-endian bytes (20 for SHA-1, 16 for NTLM) and the count as unsigned
//! LEB128, in order.

use super::super::HashKind;
use super::super::format::Wide;

/// The largest body accepted, decompressed: a thousand times the largest range of the
/// real data (about 2,000 lines of 41 bytes).
pub const MAX_BODY: usize = 64 << 20;

/// Why a body is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// A line that is not `SUFFIX:COUNT` of the kind.
    #[error("line {line}: {what}")]
    Line {
        /// 1-based.
        line: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// Larger than [`MAX_BODY`].
    #[error("body larger than {} MiB", MAX_BODY >> 20)]
    TooLarge,
}

/// A checked range in packed form.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Packed {
    /// The packed entries.
    pub bytes: Vec<u8>,
    /// Hashes in it.
    pub hashes: u64,
}

/// Checks `text`, the body of range `prefix`, and packs it.
///
/// One pass over the bytes: a line is taken as `SUFFIX:COUNT` by position (the colon
/// where the kind puts it, the count's digits up to the line end), and any line that is
/// not exactly that is handed to [`pack_line`], the reference reading, which names what
/// is wrong (or reads the rare well-formed line the quick reading passes over, such as a
/// count of 20 digits). So both readings accept and refuse the same bodies (proptest).
pub fn pack(kind: HashKind, prefix: u32, text: &[u8]) -> Result<Packed, BodyError> {
    if text.len() > MAX_BODY {
        return Err(BodyError::TooLarge);
    }
    let suffix_len = kind.hex_len() - 5;
    let mut hex = [0u8; 40];
    hex[..5].copy_from_slice(&prefix_hex(prefix));
    let mut body = text;
    // One final line end is allowed (the API sends none).
    if let Some(b) = body.strip_suffix(b"\n") {
        body = b.strip_suffix(b"\r").unwrap_or(b);
    }
    // At most a line per suffix, colon, digit and line end, at most two bytes of count
    // for nearly all of them (a rare longer count may grow the vector once).
    let mut out = Packed {
        bytes: Vec::with_capacity(body.len() / (suffix_len + 3) * (kind.len() + 2) + 32),
        hashes: 0,
    };
    if body.is_empty() {
        return Ok(out);
    }
    let mut last: Option<Wide> = None;
    let (mut at, mut line) = (0usize, 1usize);
    loop {
        let rest = &body[at..];
        // The quick reading: the line's hash, count and length (with its line end), or
        // `None` for the reference reading to decide.
        let quick = (|| {
            if rest.get(suffix_len) != Some(&b':') {
                return None;
            }
            let hash = suffix_hash(kind, prefix, rest)?;
            let digits = &rest[suffix_len + 1..];
            let mut count = 0u64;
            let mut n = 0;
            // 19 digits always fit 64 bits; longer counts go the reference way.
            while n < digits.len().min(19) {
                let d = digits[n].wrapping_sub(b'0');
                if d > 9 {
                    break;
                }
                count = count * 10 + u64::from(d);
                n += 1;
            }
            if n == 0 {
                return None;
            }
            let end = suffix_len + 1 + n;
            let len = match &rest[end..] {
                [] | [b'\r'] => rest.len(),
                [b'\n', ..] => end + 1,
                [b'\r', b'\n', ..] => end + 2,
                _ => return None,
            };
            Some((hash, count, len))
        })();
        let (hash, count, len) = match quick {
            Some(q) => q,
            None => {
                let len = memchr::memchr(b'\n', rest).map_or(rest.len(), |p| p + 1);
                let text = rest[..len].strip_suffix(b"\n").unwrap_or(&rest[..len]);
                let (hash, count) = pack_line(kind, &mut hex, text)
                    .map_err(|what| BodyError::Line { line, what })?;
                (hash, count, len)
            }
        };
        if last.is_some_and(|l| l >= hash) {
            return Err(BodyError::Line {
                line,
                what: "suffixes out of order or repeated",
            });
        }
        last = Some(hash);
        if count != 0 {
            // Copies of a length known here, not a call to memcpy per hash.
            let b = hash.to_be_bytes();
            match kind {
                HashKind::Sha1 => out.bytes.extend_from_slice(&b[..20]),
                HashKind::Ntlm => out.bytes.extend_from_slice(&b[..16]),
            }
            push_leb128(&mut out.bytes, count);
            out.hashes += 1;
        }
        at += len;
        if at >= body.len() {
            // A line end as the last byte starts one more line, which is empty.
            if body[body.len() - 1] == b'\n' {
                return Err(BodyError::Line {
                    line: line + 1,
                    what: "not SUFFIX:COUNT",
                });
            }
            return Ok(out);
        }
        line += 1;
    }
}

/// The hash whose first five digits are `prefix` and whose other digits start `rest`
/// (at least the suffix's length of bytes), or `None` when they are not hex. Decoded in
/// place, 16 digits at a time (the last digits by an overlapping decode), as
/// [`HashKind::parse_hex`] decodes whole hashes.
#[inline]
fn suffix_hash(kind: HashKind, prefix: u32, rest: &[u8]) -> Option<Wide> {
    use crate::hex::{hex16_words, word_at};
    let p = u64::from(prefix) << 44;
    let s0 = hex16_words(word_at(rest, 0), word_at(rest, 8))?;
    Some(match kind {
        // Digits 5-20, 21-36 and 37-39 (the low 3 of an overlapping 24-39).
        HashKind::Sha1 => {
            let s1 = hex16_words(word_at(rest, 16), word_at(rest, 24))?;
            let s2 = hex16_words(word_at(rest, 19), word_at(rest, 27))? & 0xfff;
            Wide([p | s0 >> 20, s0 << 44 | s1 >> 20, s1 << 44 | s2 << 32])
        }
        // Digits 5-20 and 21-31 (the low 11 of an overlapping 16-31).
        HashKind::Ntlm => {
            let s1 = hex16_words(word_at(rest, 11), word_at(rest, 19))? & 0xfff_ffff_ffff;
            Wide([p | s0 >> 20, s0 << 44 | s1, 0])
        }
    })
}

/// The reference reading of one line (without its `\n`): its hash and count, or what is
/// wrong with it. `hex` holds the prefix's five digits.
fn pack_line(kind: HashKind, hex: &mut [u8; 40], line: &[u8]) -> Result<(Wide, u64), &'static str> {
    let suffix_len = kind.hex_len() - 5;
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let Some(colon) = line.iter().position(|&b| b == b':') else {
        return Err("not SUFFIX:COUNT");
    };
    let (suffix, count) = (&line[..colon], &line[colon + 1..]);
    if suffix.len() != suffix_len {
        return Err("a suffix of the wrong length for the hash kind");
    }
    hex[5..5 + suffix_len].copy_from_slice(suffix);
    let hash = kind
        .parse_hex(&hex[..kind.hex_len()])
        .ok_or("a suffix that is not hex")?;
    let count = parse_count(count).ok_or("a count that is not a decimal number")?;
    Ok((hash, count))
}

/// A decimal count of 1 to 20 digits that fits 64 bits.
fn parse_count(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    s.iter().try_fold(0u64, |n, &b| {
        if b.is_ascii_digit() {
            n.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        } else {
            None
        }
    })
}

/// The five upper-case hex digits of a prefix.
pub fn prefix_hex(prefix: u32) -> [u8; 5] {
    // The 20-bit prefix, shifted to fill three bytes: its five digits lead their six.
    let mut six = [0u8; 6];
    crate::hex::encode_upper(&(prefix << 4).to_be_bytes()[1..], &mut six);
    [six[0], six[1], six[2], six[3], six[4]]
}

/// Appends `v` as unsigned LEB128.
pub fn push_leb128(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads an unsigned LEB128 at the start of `b`: the value and its length.
pub fn read_leb128(b: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (i, &byte) in b.iter().enumerate().take(10) {
        let part = u64::from(byte & 0x7f);
        if i == 9 && part > 1 {
            return None;
        }
        v |= part << (7 * i);
        if byte & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// Whether `packed` is whole packed entries, nothing cut short (a journal entry that
/// passed its checksum is, unless veilkit wrote it wrong).
pub fn well_formed(kind: HashKind, packed: &[u8]) -> bool {
    let (n, mut at) = (kind.len(), 0);
    while at < packed.len() {
        match packed.get(at + n..).and_then(read_leb128) {
            Some((_, len)) => at += n + len,
            None => return false,
        }
    }
    true
}

/// The packed entries of `packed` as (hash bytes, count).
fn entries(kind: HashKind, packed: &[u8]) -> impl Iterator<Item = (&[u8], u64)> {
    let n = kind.len();
    let mut at = 0;
    std::iter::from_fn(move || {
        let hash = packed.get(at..at + n)?;
        let (count, len) = read_leb128(&packed[at + n..])?;
        at += n + len;
        Some((hash, count))
    })
}

/// How a range changed: hashes added, removed, and present in both with another count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Change {
    /// Hashes only in the new range.
    pub added: u64,
    /// Hashes only in the old range.
    pub removed: u64,
    /// Hashes in both, with different counts.
    pub recounted: u64,
}

/// The change from packed range `old` to packed range `new`.
pub fn compare(kind: HashKind, old: &[u8], new: &[u8]) -> Change {
    let mut c = Change::default();
    let (mut a, mut b) = (entries(kind, old).peekable(), entries(kind, new).peekable());
    loop {
        match (a.peek(), b.peek()) {
            (None, None) => return c,
            (Some(_), None) => {
                c.removed += 1;
                a.next();
            }
            (None, Some(_)) => {
                c.added += 1;
                b.next();
            }
            (Some(x), Some(y)) => match x.0.cmp(y.0) {
                std::cmp::Ordering::Less => {
                    c.removed += 1;
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    c.added += 1;
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    c.recounted += u64::from(x.1 != y.1);
                    a.next();
                    b.next();
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const S1: &str = "0018A45C4D1DEF81644B54AB7F969B88D65";
    const S2: &str = "00D4F6E8FA6EECAD2A3AA415EEC418D38EC";

    /// The straightforward reading `pack` must agree with: split on `\n`, each line
    /// through [`pack_line`].
    fn pack_reference(kind: HashKind, prefix: u32, text: &[u8]) -> Result<Packed, BodyError> {
        let mut hex = [0u8; 40];
        hex[..5].copy_from_slice(&prefix_hex(prefix));
        let mut out = Packed::default();
        let mut last: Option<Wide> = None;
        let mut body = text;
        if let Some(b) = body.strip_suffix(b"\n") {
            body = b.strip_suffix(b"\r").unwrap_or(b);
        }
        if body.is_empty() {
            return Ok(out);
        }
        for (i, line) in body.split(|&b| b == b'\n').enumerate() {
            let bad = |what| BodyError::Line { line: i + 1, what };
            let (hash, count) = pack_line(kind, &mut hex, line).map_err(bad)?;
            if last.is_some_and(|l| l >= hash) {
                return Err(bad("suffixes out of order or repeated"));
            }
            last = Some(hash);
            if count != 0 {
                out.bytes
                    .extend_from_slice(&hash.to_be_bytes()[..kind.len()]);
                push_leb128(&mut out.bytes, count);
                out.hashes += 1;
            }
        }
        Ok(out)
    }

    /// Bodies near the real ones: sorted suffixes of either case, counts of 1 to 20
    /// digits (zeros among them), CRLF or LF, with a final line end or not; then some
    /// bytes changed, removed or repeated.
    fn bodies() -> impl Strategy<Value = (bool, Vec<u8>)> {
        let line = (
            any::<[u8; 18]>(),
            prop_oneof![Just(0u64), 1u64..200, any::<u64>()],
            any::<bool>(),
        );
        (
            any::<bool>(),
            proptest::collection::vec(line, 0..12),
            any::<bool>(),
            any::<bool>(),
            proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..4), 0..3),
        )
            .prop_map(|(ntlm, mut lines, crlf, final_end, edits)| {
                lines.sort_by_key(|a| a.0);
                let kind = if ntlm { HashKind::Ntlm } else { HashKind::Sha1 };
                let mut text = Vec::new();
                for (i, (h, count, lower)) in lines.iter().enumerate() {
                    if i > 0 {
                        text.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                    }
                    let mut hex = [0u8; 36];
                    crate::hex::encode_upper(&h[..], &mut hex);
                    let suffix = &mut hex[..kind.hex_len() - 5];
                    if *lower {
                        suffix.make_ascii_lowercase();
                    }
                    text.extend_from_slice(suffix);
                    text.push(b':');
                    text.extend_from_slice(count.to_string().as_bytes());
                }
                if final_end {
                    text.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                }
                for (at, byte, how) in edits {
                    if text.is_empty() {
                        break;
                    }
                    let at = at % text.len();
                    let b = [b'\r', b'\n', b':', b'0', b'9', b'g', b' ', byte][byte as usize % 8];
                    match how {
                        0 => text[at] = b,
                        1 => {
                            text.remove(at);
                        }
                        2 => text.insert(at, b),
                        _ => {
                            let c = text[at];
                            text.insert(at, c);
                        }
                    }
                }
                (ntlm, text)
            })
    }

    proptest! {
        #[test]
        fn pack_reads_bodies_as_the_reference_does((ntlm, text) in bodies(), prefix in 0u32..1 << 20) {
            let kind = if ntlm { HashKind::Ntlm } else { HashKind::Sha1 };
            prop_assert_eq!(pack(kind, prefix, &text), pack_reference(kind, prefix, &text));
        }
    }

    #[test]
    fn pack_agrees_with_the_reference_on_edge_cases() {
        let cases: &[&[u8]] = &[
            b"",
            b"\n",
            b"\r\n",
            b"\n\n",
            b"\r",
            b"\r\r\n",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1\r",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1\r\r",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1\n\n",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n\r\n",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1\rX",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:01234567890123456789",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:18446744073709551615",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:18446744073709551616",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:123456789012345678901",
            b"0018A45C4D1DEF81644B54AB7F969B88D65::1",
            b"0018A45C4D1DEF81644B54AB7F969B88D6:51",
            b"0018A45C4D1DEF81644B54AB7F969B88D655:1",
            b":0018A45C4D1DEF81644B54AB7F969B88D65:1",
            // Anything after the count's digits but a line end, on the last line or
            // before one.
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1 ",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1\t",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1x",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1\r ",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1 \r\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:1",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1\x00\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:1",
            b"0018A45C4D1DEF81644B54AB7F969B88D65: 1",
            b"0018A45C4D1DEF81644B54AB7F969B88D65:+1",
        ];
        for text in cases {
            for kind in [HashKind::Sha1, HashKind::Ntlm] {
                assert_eq!(
                    pack(kind, 7, text),
                    pack_reference(kind, 7, text),
                    "{}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }

    #[test]
    fn a_real_body_packs_and_unpacks_to_dump_lines() {
        let body = format!("{S1}:1\r\n{S2}:2\r\n011053FD0102E94D6AE2F8B83D76FAF94F6:0");
        let p = pack(HashKind::Sha1, 0x21BD1, body.as_bytes()).unwrap();
        assert_eq!(p.hashes, 2);
        let lines: Vec<String> = entries(HashKind::Sha1, &p.bytes)
            .map(|(h, c)| format!("{}:{c}", const_hex::encode_upper(h)))
            .collect();
        assert_eq!(lines, [format!("21BD1{S1}:1"), format!("21BD1{S2}:2")]);
        assert!(well_formed(HashKind::Sha1, &p.bytes));
        assert!(!well_formed(HashKind::Sha1, &p.bytes[..p.bytes.len() - 1]));
        assert!(!well_formed(HashKind::Ntlm, &p.bytes));
        // Lower case, LF and a final line end are the same body.
        let lower = format!("{}:1\n{}:2\n", S1.to_lowercase(), S2.to_lowercase());
        assert_eq!(pack(HashKind::Sha1, 0x21BD1, lower.as_bytes()).unwrap(), p);
        assert_eq!(pack(HashKind::Sha1, 0, b"").unwrap().hashes, 0);
    }

    #[test]
    fn every_malformed_body_is_refused_with_its_line() {
        let cases: &[(&str, usize)] = &[
            ("0018A45C4D1DEF81644B54AB7F969B88D65", 1),
            ("0018A45C4D1DEF81644B54AB7F969B88D6:1", 1),
            ("0018A45C4D1DEF81644B54AB7F969B88D6G:1", 1),
            ("0018A45C4D1DEF81644B54AB7F969B88D65:x", 1),
            ("0018A45C4D1DEF81644B54AB7F969B88D65:", 1),
            (
                "0018A45C4D1DEF81644B54AB7F969B88D65:18446744073709551616",
                1,
            ),
            (
                "00D4F6E8FA6EECAD2A3AA415EEC418D38EC:1\r\n0018A45C4D1DEF81644B54AB7F969B88D65:1",
                2,
            ),
            (
                "0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n0018A45C4D1DEF81644B54AB7F969B88D65:1",
                2,
            ),
            ("0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n\r\n", 2),
            ("0018A45C4D1DEF81644B54AB7F969B88D65:1 ", 1),
            (
                "0018A45C4D1DEF81644B54AB7F969B88D65:1 \r\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:1",
                1,
            ),
            (
                "0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:1 ",
                2,
            ),
            ("0018A45C4D1DEF81644B54AB7F969B88D65: 1", 1),
            ("0018A45C4D1DEF81644B54AB7F969B88D65:+1", 1),
            ("<html>cut off", 1),
        ];
        for (body, line) in cases {
            match pack(HashKind::Sha1, 0, body.as_bytes()) {
                Err(BodyError::Line { line: l, .. }) => assert_eq!(l, *line, "{body}"),
                other => panic!("{body}: {other:?}"),
            }
        }
        // An NTLM suffix in a SHA-1 download, and the other way round.
        assert!(pack(HashKind::Ntlm, 0, format!("{S1}:1").as_bytes()).is_err());
        assert!(pack(HashKind::Sha1, 0, b"0123456789ABCDEF0123456789A:1").is_err());
        assert!(pack(HashKind::Ntlm, 0, b"0123456789ABCDEF0123456789A:1").is_ok());
    }

    #[test]
    fn changes_are_counted_hash_by_hash() {
        let p = |body: &str| pack(HashKind::Sha1, 0, body.as_bytes()).unwrap().bytes;
        let old = p(&format!("{S1}:1\r\n{S2}:2"));
        let new = p(&format!("{S2}:3\r\n011053FD0102E94D6AE2F8B83D76FAF94F6:1"));
        assert_eq!(
            compare(HashKind::Sha1, &old, &new),
            Change {
                added: 1,
                removed: 1,
                recounted: 1
            }
        );
        assert_eq!(compare(HashKind::Sha1, &old, &old), Change::default());
    }

    #[test]
    fn leb128_round_trips_and_refuses_overlong() {
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut b = Vec::new();
            push_leb128(&mut b, v);
            assert_eq!(read_leb128(&b), Some((v, b.len())));
        }
        assert_eq!(read_leb128(&[0x80; 11]), None);
        assert_eq!(
            read_leb128(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]),
            None
        );
        assert_eq!(prefix_hex(0xABC01), *b"ABC01");
    }
}
