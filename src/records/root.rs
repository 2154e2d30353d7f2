//! The root: what a commit of a record file consists of (counts, settings, and the lists
//! of its pages), sealed inside each header copy.

use super::codec::{Cursor, PageRef, put_ref};
use super::pages::IndexLayout;

/// The input format recorded in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// One record per line; the key is the record number.
    Lines = 1,
    /// Comma-separated values.
    Csv = 2,
    /// Tab-separated values.
    Tsv = 3,
    /// JSON lines.
    Jsonl = 4,
}

impl InputFormat {
    fn from_code(c: u8) -> Option<InputFormat> {
        Some(match c {
            1 => InputFormat::Lines,
            2 => InputFormat::Csv,
            3 => InputFormat::Tsv,
            4 => InputFormat::Jsonl,
            _ => return None,
        })
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Lines => "lines",
            InputFormat::Csv => "csv",
            InputFormat::Tsv => "tsv",
            InputFormat::Jsonl => "jsonl",
        }
    }
}

/// How data pages hold their records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// As they are.
    #[default]
    None = 0,
    /// Compressed with Zstandard.
    Zstd = 1,
    /// Compressed with Zstandard and the file's dictionary.
    ZstdDict = 2,
}

impl Compression {
    /// Its name, as `records info` shows it (`zstd` with or without a dictionary,
    /// which info shows apart).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Zstd => "zstd",
            Compression::ZstdDict => "zstd",
        }
    }

    /// Whether data pages are framed and compressed.
    pub fn compressed(self) -> bool {
        self != Compression::None
    }
}

/// Where a file's dictionary is (record compression 2): `pages.count` pages from
/// `pages.physical` on, of `pages.generation`, and the level updates compress at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DictRef {
    /// The Zstandard level of the file's pages (1 to 22), for updates.
    pub level: u8,
    /// The first page; its count is the number of pages.
    pub pages: PageRef,
}

/// A list of pages (the data pages, or the index pages, by logical number), as a tree:
/// at depth 0 `refs` are the pages themselves; at depth `d` they are directory pages of
/// level `d`, whose entries are refs of level `d - 1` (level 0: the pages).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PageList {
    /// Levels of directory pages between the root and the pages.
    pub depth: u8,
    /// The top level's refs.
    pub refs: Vec<PageRef>,
}

/// The most refs a root keeps of each list before a level of directories is added.
pub const INLINE_REFS: usize = 32;

/// The decrypted root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Live records.
    pub records: u64,
    /// The key of the next appended line (line files).
    pub next_number: u64,
    /// The last generation used.
    pub generation: u64,
    /// Physical pages allocated.
    pub allocated: u64,
    /// The input format.
    pub format: InputFormat,
    /// Whether the input had a header row.
    pub header_row: bool,
    /// The key field (number or name), empty for line files.
    pub key_field: String,
    /// Index buckets; 0 for a file too small to need an index (a lookup reads its few
    /// data pages).
    pub buckets: u32,
    /// The width of index entries.
    pub index_layout: IndexLayout,
    /// How data pages hold their records.
    pub compression: Compression,
    /// The dictionary, when `compression` is [`Compression::ZstdDict`].
    pub dictionary: Option<DictRef>,
    /// The header row's page.
    pub prefix: Option<PageRef>,
    /// The data pages.
    pub data: PageList,
    /// The index pages.
    pub index: PageList,
}

impl Root {
    /// The Zstandard level an update (or a rewrite) compresses pages at: the file's own
    /// with a dictionary (record compression 2), level 3 for record compression 1 (whose
    /// root does not record it); `None` for uncompressed pages.
    pub fn update_level(&self) -> Option<i32> {
        match self.dictionary {
            Some(d) => Some(i32::from(d.level)),
            None => self
                .compression
                .compressed()
                .then_some(super::compress::DEFAULT_LEVEL),
        }
    }
}

/// The longest key field name a file records.
pub const MAX_KEY_FIELD: usize = 255;

impl Root {
    /// The root's plaintext (format version 2).
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(96 + 24 * (self.data.refs.len() + self.index.refs.len()));
        for v in [
            self.records,
            self.next_number,
            self.generation,
            self.allocated,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.push(self.format as u8);
        b.push(u8::from(self.header_row));
        b.extend_from_slice(&(self.key_field.len() as u16).to_le_bytes());
        b.extend_from_slice(self.key_field.as_bytes());
        b.extend_from_slice(&self.buckets.to_le_bytes());
        b.push(self.index_layout.tag_bytes);
        b.push(self.index_layout.page_bytes);
        b.push(self.compression as u8);
        if let Some(d) = &self.dictionary {
            b.push(d.level);
            put_ref(&mut b, &d.pages);
        }
        match &self.prefix {
            Some(r) => {
                b.push(1);
                put_ref(&mut b, r);
            }
            None => b.push(0),
        }
        for list in [&self.data, &self.index] {
            b.push(list.depth);
            b.extend_from_slice(&(list.refs.len() as u16).to_le_bytes());
            for r in &list.refs {
                put_ref(&mut b, r);
            }
        }
        b
    }

    /// What a newer veilkit wrote into an authenticated root that does not parse here:
    /// a record compression this veilkit does not know.
    pub fn newer_part(b: &[u8], version: u32) -> Option<(&'static str, u8)> {
        if version != 2 {
            return None;
        }
        let mut c = Cursor::new(b);
        for _ in 0..4 {
            c.u64()?;
        }
        c.u8()?;
        c.u8()?;
        let klen = usize::from(c.u16()?);
        c.bytes(klen)?;
        c.u32()?;
        c.u8()?;
        c.u8()?;
        match c.u8()? {
            0..=2 => None,
            n => Some(("record compression", n)),
        }
    }

    /// Parses a decrypted root of format `version` (1 or 2).
    pub fn decode(b: &[u8], version: u32) -> Option<Root> {
        if version == 1 {
            return Root::decode_v1(b);
        }
        let mut c = Cursor::new(b);
        let records = c.u64()?;
        let next_number = c.u64()?;
        let generation = c.u64()?;
        let allocated = c.u64()?;
        let format = InputFormat::from_code(c.u8()?)?;
        let header_row = match c.u8()? {
            0 => false,
            1 => true,
            _ => return None,
        };
        let klen = usize::from(c.u16()?);
        let key_field = String::from_utf8(c.bytes(klen)?.to_vec()).ok()?;
        let buckets = c.u32()?;
        let index_layout = IndexLayout {
            tag_bytes: c.u8()?,
            page_bytes: c.u8()?,
        };
        if !index_layout.valid() {
            return None;
        }
        let compression = match c.u8()? {
            0 => Compression::None,
            1 => Compression::Zstd,
            2 => Compression::ZstdDict,
            _ => return None,
        };
        let dictionary = if compression == Compression::ZstdDict {
            let level = c.u8()?;
            let pages = c.page_ref()?;
            if !(1..=22).contains(&level) || pages.count == 0 {
                return None;
            }
            Some(DictRef { level, pages })
        } else {
            None
        };
        let prefix = match c.u8()? {
            0 => None,
            1 => Some(c.page_ref()?),
            _ => return None,
        };
        let mut lists = [PageList::default(), PageList::default()];
        for list in lists.iter_mut() {
            list.depth = c.u8()?;
            let n = usize::from(c.u16()?);
            if list.depth > 8 {
                return None;
            }
            for _ in 0..n {
                list.refs.push(c.page_ref()?);
            }
        }
        if c.position() != b.len() {
            return None;
        }
        let [data, index] = lists;
        Some(Root {
            records,
            next_number,
            generation,
            allocated,
            format,
            header_row,
            key_field,
            buckets,
            index_layout,
            compression,
            dictionary,
            prefix,
            data,
            index,
        })
    }

    /// Parses a root of format version 1: its directories are one level deep, its index
    /// entries a 32-bit tag and a 32-bit page number.
    fn decode_v1(b: &[u8]) -> Option<Root> {
        let mut c = Cursor::new(b);
        let records = c.u64()?;
        let next_number = c.u64()?;
        let generation = c.u64()?;
        let allocated = c.u64()?;
        let format = InputFormat::from_code(c.u8()?)?;
        let header_row = c.u8()? == 1;
        let klen = c.u32()? as usize;
        let key_field = String::from_utf8(c.bytes(klen)?.to_vec()).ok()?;
        let buckets = c.u32()?;
        let prefix = match c.u8()? {
            0 => None,
            _ => Some(c.page_ref()?),
        };
        let mut lists = [PageList::default(), PageList::default()];
        for list in lists.iter_mut() {
            let n = c.u32()? as usize;
            if n > b.len() / 24 {
                return None;
            }
            list.depth = 1;
            for _ in 0..n {
                list.refs.push(c.page_ref()?);
            }
        }
        let [data, index] = lists;
        Some(Root {
            records,
            next_number,
            generation,
            allocated,
            format,
            header_row,
            key_field,
            buckets,
            index_layout: IndexLayout::V1,
            compression: Compression::None,
            dictionary: None,
            prefix,
            data,
            index,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root whose record compression a newer veilkit wrote is told apart from one that
    /// does not parse.
    #[test]
    fn an_unknown_compression_is_a_newer_part() {
        let root = Root {
            records: 3,
            next_number: 4,
            generation: 1,
            allocated: 2,
            format: InputFormat::Csv,
            header_row: true,
            key_field: "id".into(),
            buckets: 0,
            index_layout: IndexLayout::for_pages(2),
            compression: Compression::Zstd,
            dictionary: None,
            prefix: None,
            data: PageList::default(),
            index: PageList::default(),
        };
        let mut b = root.encode();
        assert_eq!(Root::decode(&b, 2), Some(root.clone()));
        assert_eq!(Root::newer_part(&b, 2), None);
        // The compression byte: after 4 u64, 2 u8, the key field, the buckets and widths.
        let at = 32 + 2 + 2 + 2 + 4 + 2;
        assert_eq!(b[at], 1);
        b[at] = 3;
        assert_eq!(Root::decode(&b, 2), None);
        assert_eq!(Root::newer_part(&b, 2), Some(("record compression", 3)));
        assert_eq!(Root::newer_part(&b[..10], 2), None);
        // Compression 2 is followed by the level and the dictionary's ref.
        let pages = PageRef {
            physical: 7,
            generation: 1,
            count: 3,
        };
        let with_dict = Root {
            compression: Compression::ZstdDict,
            dictionary: Some(DictRef { level: 9, pages }),
            ..root
        };
        let b = with_dict.encode();
        assert_eq!(b[at], 2);
        assert_eq!(b[at + 1], 9);
        assert_eq!(Root::decode(&b, 2), Some(with_dict.clone()));
        assert_eq!(Root::newer_part(&b, 2), None);
        // A level out of 1 to 22, or no pages, does not parse.
        for (i, v) in [(at + 1, 0u8), (at + 1, 23), (at + 2 + 16, 0)] {
            let mut bad = b.clone();
            bad[i] = v;
            assert_eq!(Root::decode(&bad, 2), None, "byte {i} = {v}");
        }
    }
}
