//! The small binary codecs of the record format: unsigned LEB128 varints, a reading
//! cursor over little-endian fields, and page references.

/// A reference to a page: where it is, the generation (commit) that wrote it, and a
/// count (live records of a data page or of the pages below a directory; 0 for index
/// pages and their directories).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PageRef {
    /// Physical page number.
    pub physical: u64,
    /// Generation that wrote it.
    pub generation: u64,
    /// Records below it.
    pub count: u64,
}

/// Appends `v` as an unsigned LEB128 varint (7 bits a byte, low bits first, the high
/// bit set on every byte but the last).
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint at `*at`, advancing it; `None` past the end or beyond 64 bits.
pub fn get_varint(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// The length of `v` as a varint.
pub fn varint_len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// Appends a page reference as it is written in roots: physical page, generation and
/// count, each a u64.
pub fn put_ref(out: &mut Vec<u8>, r: &PageRef) {
    out.extend_from_slice(&r.physical.to_le_bytes());
    out.extend_from_slice(&r.generation.to_le_bytes());
    out.extend_from_slice(&r.count.to_le_bytes());
}

/// A little reader over a byte slice.
pub struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// Reads from `b`.
    pub fn new(b: &'a [u8]) -> Self {
        Cursor { b, at: 0 }
    }
    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.at
    }
    /// `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    /// A u8.
    pub fn u8(&mut self) -> Option<u8> {
        Some(self.bytes(1)?[0])
    }
    /// A little-endian u16.
    pub fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.bytes(2)?.try_into().ok()?))
    }
    /// A little-endian u32.
    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.bytes(4)?.try_into().ok()?))
    }
    /// A little-endian u64.
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }
    /// A little-endian unsigned integer of `n` bytes (1 to 8).
    pub fn uint(&mut self, n: usize) -> Option<u64> {
        let b = self.bytes(n)?;
        let mut w = [0u8; 8];
        w.get_mut(..n)?.copy_from_slice(b);
        Some(u64::from_le_bytes(w))
    }
    /// A page reference as roots write it.
    pub fn page_ref(&mut self) -> Option<PageRef> {
        Some(PageRef {
            physical: self.u64()?,
            generation: self.u64()?,
            count: self.u64()?,
        })
    }
    /// A varint.
    pub fn varint(&mut self) -> Option<u64> {
        get_varint(self.b, &mut self.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [0u64, 1, 127, 128, 300, 1 << 35, u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            assert_eq!(b.len(), varint_len(v));
            let mut at = 0;
            assert_eq!(get_varint(&b, &mut at), Some(v));
            assert_eq!(at, b.len());
        }
        assert_eq!(get_varint(&[0x80; 11], &mut 0), None);
        // The documented example: 300 is AC 02.
        let mut b = Vec::new();
        put_varint(&mut b, 300);
        assert_eq!(b, [0xac, 0x02]);
    }
}
