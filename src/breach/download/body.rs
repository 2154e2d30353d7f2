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
pub fn pack(kind: HashKind, prefix: u32, text: &[u8]) -> Result<Packed, BodyError> {
    if text.len() > MAX_BODY {
        return Err(BodyError::TooLarge);
    }
    let suffix_len = kind.hex_len() - 5;
    let mut hex = [0u8; 40];
    hex[..5].copy_from_slice(&prefix_hex(prefix));
    let mut out = Packed::default();
    let mut last: Option<Wide> = None;
    let mut body = text;
    // One final line end is allowed (the API sends none).
    if let Some(b) = body.strip_suffix(b"\n") {
        body = b.strip_suffix(b"\r").unwrap_or(b);
    }
    if body.is_empty() {
        return Ok(out);
    }
    for (i, line) in body.split(|&b| b == b'\n').enumerate() {
        let bad = |what| BodyError::Line { line: i + 1, what };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return Err(bad("not SUFFIX:COUNT"));
        };
        let (suffix, count) = (&line[..colon], &line[colon + 1..]);
        if suffix.len() != suffix_len {
            return Err(bad("a suffix of the wrong length for the hash kind"));
        }
        hex[5..5 + suffix_len].copy_from_slice(suffix);
        let hash = kind
            .parse_hex(&hex[..kind.hex_len()])
            .ok_or(bad("a suffix that is not hex"))?;
        let count = parse_count(count).ok_or(bad("a count that is not a decimal number"))?;
        if last.is_some_and(|l| l >= hash) {
            return Err(bad("suffixes out of order or repeated"));
        }
        last = Some(hash);
        if count == 0 {
            continue;
        }
        out.bytes
            .extend_from_slice(&hash.to_be_bytes()[..kind.len()]);
        push_leb128(&mut out.bytes, count);
        out.hashes += 1;
    }
    Ok(out)
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

/// Writes the packed entries of `packed` as dump lines (`HASH:COUNT\n`, upper case) onto
/// `out`. `None` when the packed bytes are malformed (a damaged journal entry that its
/// checksum missed).
pub fn unpack_lines(kind: HashKind, packed: &[u8], out: &mut Vec<u8>) -> Option<u64> {
    let (n, mut at, mut hashes) = (kind.len(), 0, 0);
    let mut hex = [0u8; 40];
    while at < packed.len() {
        let hash = Wide::from_be_prefix(packed.get(at..at + n)?);
        let (count, len) = read_leb128(&packed[at + n..])?;
        kind.write_hex(&hash, &mut hex);
        out.extend_from_slice(&hex[..kind.hex_len()]);
        out.push(b':');
        out.extend_from_slice(itoa::Buffer::new().format(count).as_bytes());
        out.push(b'\n');
        at += n + len;
        hashes += 1;
    }
    Some(hashes)
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

    const S1: &str = "0018A45C4D1DEF81644B54AB7F969B88D65";
    const S2: &str = "00D4F6E8FA6EECAD2A3AA415EEC418D38EC";

    #[test]
    fn a_real_body_packs_and_unpacks_to_dump_lines() {
        let body = format!("{S1}:1\r\n{S2}:2\r\n011053FD0102E94D6AE2F8B83D76FAF94F6:0");
        let p = pack(HashKind::Sha1, 0x21BD1, body.as_bytes()).unwrap();
        assert_eq!(p.hashes, 2);
        let mut out = Vec::new();
        assert_eq!(unpack_lines(HashKind::Sha1, &p.bytes, &mut out), Some(2));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("21BD1{S1}:1\n21BD1{S2}:2\n")
        );
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
