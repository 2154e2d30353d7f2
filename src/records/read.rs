//! An open record file: the header rule at opening, and reads by key, by number, and in
//! full.

use super::arena::Page;
use super::cache::{Cache, DEFAULT_CACHE_BYTES};
use super::codec::PageRef;
use super::compress::Dict;
use super::crypto::FileKeys;
use super::dirs::Dirs;
use super::header::{Damage, Header, choose, copy_name};
use super::io::{Blob, PageReader, map_file, open_locked};
use super::pages::{
    IndexPage, Kind, NO_NEXT, Rec, bucket_of, data_capacity, dir_capacity, find_in_data,
    index_lookup, parse_data, repeated_tags,
};
use super::root::{Compression, InputFormat, Root};
use super::seal::{MakeSlots, SealSummary, Settings, seal_with_slots};
use super::slots::{Slot, Unlock};
use super::{InputRecord, KeyPlace, RecordsError, dict_pages, tree};
use crate::progress::Progress;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

/// How to open a file.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenOptions {
    /// For an update: take the writers' lock.
    pub writable: bool,
    /// For a format-1 file with one damaged header copy: use the intact one, which may
    /// hold the commit before the last.
    pub previous_commit: bool,
}

/// The state of each header copy, as `info` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyState {
    /// Holds the current commit.
    Current,
    /// Valid, holding an older commit (the second write of the last commit is
    /// missing: the next commit rewrites it).
    Behind,
    /// Fails its checks (it claims this sequence, when readable).
    Damaged(Option<u64>),
}

/// Facts about an open file (`veilkit records info`).
#[derive(Debug, Clone)]
pub struct Info {
    /// Live records.
    pub records: u64,
    /// The input format.
    pub format: InputFormat,
    /// The key field.
    pub key_field: String,
    /// Page size.
    pub page_size: u32,
    /// Pages referenced now.
    pub live_pages: u64,
    /// Pages in the file (live and garbage).
    pub allocated: u64,
    /// Bytes of the file.
    pub bytes: u64,
    /// The key slots (kind, key id and fingerprint, or Argon2id parameters).
    pub slots: Vec<Slot>,
    /// The header's sequence number (commits so far).
    pub sequence: u64,
    /// The key the next appended line gets (line files).
    pub next_number: u64,
    /// Whether the input had a header row.
    pub header_row: bool,
    /// The format version of the current header copy.
    pub version: u32,
    /// The two header copies, A then B.
    pub copies: [CopyState; 2],
    /// Index buckets (0: no index, the file is small).
    pub buckets: u32,
    /// Bits of an index entry's tag (16, or 32).
    pub tag_bits: u32,
    /// How data pages hold their records.
    pub compression: Compression,
    /// Pages of the compression dictionary (0: none).
    pub dictionary_pages: u64,
}

/// A found record: its data page's number, the decrypted page, the record's bytes.
type Located = (u32, Page, std::ops::Range<usize>);

/// An open record file.
pub struct RecordFile {
    pub(super) file: Blob,
    /// The file's bytes as mapped at opening ([`map_file`]), where pages are read from.
    pub(super) map: Option<memmap2::Mmap>,
    pub(super) header: Header,
    pub(super) keys: FileKeys,
    pub(super) root: Root,
    pub(super) page_size: usize,
    /// The header copy in use (0: A, 1: B).
    pub(super) copy: usize,
    pub(super) damage: Option<Damage>,
    pub(super) behind: bool,
    pub(super) dirs: Dirs,
    pub(super) cache: Cache,
    /// Where pages are read and decrypted on their way to the cache.
    pub(super) scratch: Vec<u8>,
    /// The file's compression dictionary (record compression 2), read at opening.
    pub(super) dict: Option<Arc<Dict>>,
}

/// The page reader of a `RecordFile`, borrowing only the fields it reads (a macro, not
/// a method, so that the caller may borrow the caches and the scratch buffer beside it).
macro_rules! page_reader {
    ($f:expr) => {
        reader_of(
            &$f.file,
            $f.map.as_deref(),
            &$f.keys,
            &$f.header,
            &$f.root,
            $f.page_size,
            $f.dict.as_deref(),
        )
    };
}

impl RecordFile {
    /// Opens a file with one of `unlocks` (the first that opens a slot).
    pub fn open(
        path: &Path,
        unlocks: &[Unlock<'_>],
        writable: bool,
    ) -> Result<RecordFile, RecordsError> {
        RecordFile::open_with(
            path,
            unlocks,
            OpenOptions {
                writable,
                previous_commit: false,
            },
        )
    }

    /// Opens a file with one of `unlocks`, as `options` say.
    pub fn open_with(
        path: &Path,
        unlocks: &[Unlock<'_>],
        options: OpenOptions,
    ) -> Result<RecordFile, RecordsError> {
        let file = open_locked(path, options.writable)?;
        RecordFile::open_blob(Blob::Local(file), unlocks, options)
    }

    /// Opens the record file `blob` (a local file opened as `options` say, or a remote
    /// one, read only) with one of `unlocks`.
    pub fn open_blob(
        blob: Blob,
        unlocks: &[Unlock<'_>],
        options: OpenOptions,
    ) -> Result<RecordFile, RecordsError> {
        if options.writable && matches!(blob, Blob::Remote(_)) {
            return Err(RecordsError::RemoteReadOnly);
        }
        let file = blob;
        let chosen = choose(file.source(), unlocks, options.previous_commit)?;
        let page_size = chosen.header.page_size as usize;
        let needed = chosen
            .root
            .allocated
            .checked_mul(page_size as u64)
            .and_then(|n| n.checked_add(chosen.header.pages_at()));
        if needed.is_none_or(|n| chosen.len < n) {
            return Err(RecordsError::Truncated);
        }
        let cache = cache_for(&chosen.root, chosen.len, page_size, DEFAULT_CACHE_BYTES);
        let mut f = RecordFile {
            map: match &file {
                Blob::Local(f) => map_file(f),
                Blob::Remote(_) => None,
            },
            file,
            header: chosen.header,
            keys: chosen.keys,
            root: chosen.root,
            page_size,
            copy: chosen.copy,
            damage: chosen.damage,
            behind: chosen.behind,
            dirs: Dirs::default(),
            cache,
            scratch: Vec::new(),
            dict: None,
        };
        if let Some(d) = f.root.dictionary {
            f.dict = Some(dict_pages::read(&page_reader!(f), &d.pages)?);
        }
        Ok(f)
    }

    /// The file's id and the sequence number of the commit opened (what `--pin`
    /// remembers).
    pub fn commit_seen(&self) -> ([u8; 16], u64) {
        (self.header.file_id, self.header.sequence)
    }

    /// Sets the budget of decrypted pages kept in memory.
    pub fn set_cache_bytes(&mut self, bytes: usize) {
        self.cache.set_budget(bytes);
    }

    /// The header copy that fails its checks while the other is used, if any.
    pub fn damage(&self) -> Option<Damage> {
        self.damage
    }

    /// The error `verify` gives for a damaged header copy.
    pub fn damage_error(&self) -> Option<RecordsError> {
        self.damage.map(|d| RecordsError::CopyDamaged {
            damaged: copy_name(d.copy),
            claimed: d.claimed,
            kept: copy_name(self.copy),
            sequence: self.header.sequence,
        })
    }

    /// Facts about the file.
    pub fn info(&mut self) -> Result<Info, RecordsError> {
        let reader = self.reader();
        let (data, data_dirs) = tree::load(&reader, Kind::DataDir, &self.root.data)?;
        let (index, index_dirs) = tree::load(&reader, Kind::IndexDir, &self.root.index)?;
        let dirs: usize = data_dirs
            .nodes
            .iter()
            .chain(index_dirs.nodes.iter())
            .map(Vec::len)
            .sum();
        let dictionary_pages = self.root.dictionary.map_or(0, |d| d.pages.count);
        let live = (data.len() + index.len() + dirs) as u64
            + u64::from(self.root.prefix.is_some())
            + dictionary_pages;
        let mut copies = [CopyState::Current; 2];
        copies[1 - self.copy] = match self.damage {
            Some(d) => CopyState::Damaged(d.claimed),
            None if self.behind => CopyState::Behind,
            None => CopyState::Current,
        };
        Ok(Info {
            records: self.root.records,
            format: self.root.format,
            key_field: self.root.key_field.clone(),
            page_size: self.header.page_size,
            live_pages: live,
            allocated: self.root.allocated,
            bytes: self.header.pages_at() + self.root.allocated * self.page_size as u64,
            slots: self.header.slots.clone(),
            sequence: self.header.sequence,
            next_number: self.root.next_number,
            header_row: self.root.header_row,
            version: self.header.version,
            copies,
            buckets: self.root.buckets,
            tag_bits: 8 * u32::from(self.root.index_layout.tag_bytes),
            compression: self.root.compression,
            dictionary_pages,
        })
    }

    /// The input's header row, if it had one.
    pub fn prefix(&mut self) -> Result<Option<Vec<u8>>, RecordsError> {
        let Some(r) = self.root.prefix else {
            return Ok(None);
        };
        let page = self.read_page(Kind::Prefix, 0, &r)?;
        let bad = || RecordsError::Corrupt("the prefix page does not parse");
        let len =
            u32::from_le_bytes(page.get(..4).ok_or_else(bad)?.try_into().expect("4")) as usize;
        page.get(4..4 + len)
            .map(|b| Some(b.to_vec()))
            .ok_or_else(bad)
    }

    pub(super) fn read_page(
        &mut self,
        kind: Kind,
        logical: u64,
        r: &PageRef,
    ) -> Result<Page, RecordsError> {
        if let Some(p) = self.cache.get((kind as u8, logical)) {
            return Ok(p);
        }
        // Read and decrypted in the file's buffer, then copied once, into the cache: a
        // data page of an indexed file with its records, a bucket page with what gets
        // may skip it for (see `Cache::find_record`).
        let reader = page_reader!(self);
        let cache = &mut self.cache;
        let (indexed, layout) = (self.root.buckets != 0, self.root.index_layout);
        let bucket = kind == Kind::Index && logical < u64::from(self.root.buckets);
        reader.with_page(kind, logical, r, &mut self.scratch, |p| {
            let k = (kind as u8, logical);
            if bucket && cache.holds_room(p.len()) {
                cache.put_bucket(k, p, repeated_tags(p, layout))
            } else if kind == Kind::Data && indexed {
                cache.put_records(logical, p)
            } else {
                cache.put(k, p)
            }
        })
    }

    /// Data or index page `logical`, from the cache without finding its ref when held
    /// there (a page enters the cache only after it authenticated against its ref).
    pub(super) fn page(&mut self, kind: Kind, logical: u64) -> Result<Page, RecordsError> {
        // A data page is scanned: all of its lines at once.
        if let Some(p) = self
            .cache
            .get_prefetched((kind as u8, logical), kind == Kind::Data)
        {
            return Ok(p);
        }
        let r = self.page_ref(kind, logical)?;
        self.read_page(kind, logical, &r)
    }

    /// The ref of data or index page `logical`.
    pub(super) fn page_ref(&mut self, kind: Kind, logical: u64) -> Result<PageRef, RecordsError> {
        let cap = dir_capacity(self.page_size);
        let (list, dir_kind) = if kind == Kind::Data {
            (&self.root.data, Kind::DataDir)
        } else {
            (&self.root.index, Kind::IndexDir)
        };
        if list.depth > 0
            && let Some(r) = self.dirs.held_leaf(dir_kind, logical)
        {
            return Ok(r);
        }
        let reader = page_reader!(self);
        let dirs = &mut self.dirs;
        tree::leaf(list, cap, logical, |level, index, r| {
            dirs.entries(&reader, dir_kind, level, index, r)
        })
    }

    /// The number of data or index pages.
    pub(super) fn page_count(&mut self, kind: Kind) -> Result<u64, RecordsError> {
        let cap = dir_capacity(self.page_size);
        let reader = page_reader!(self);
        let (list, dir_kind) = if kind == Kind::Data {
            (&self.root.data, Kind::DataDir)
        } else {
            (&self.root.index, Kind::IndexDir)
        };
        let dirs = &mut self.dirs;
        tree::count(list, cap, |level, index, r| {
            dirs.entries(&reader, dir_kind, level, index, r)
        })
    }

    pub(super) fn data_page(&mut self, logical: u64) -> Result<(Page, Vec<Rec>), RecordsError> {
        let r = self.page_ref(Kind::Data, logical)?;
        let p = self.read_page(Kind::Data, logical, &r)?;
        let recs = parse_data(&p).ok_or(RecordsError::Corrupt("a data page does not parse"))?;
        if recs.len() as u64 != r.count {
            return Err(RecordsError::Corrupt("record counts disagree"));
        }
        Ok((p, recs))
    }

    pub(super) fn index_page(&mut self, logical: u64) -> Result<IndexPage, RecordsError> {
        let r = self.page_ref(Kind::Index, logical)?;
        let p = self.read_page(Kind::Index, logical, &r)?;
        IndexPage::decode(&p, self.root.index_layout)
            .ok_or(RecordsError::Corrupt("an index page does not parse"))
    }

    /// The record with `key` in data page `logical`, if it is there.
    pub(super) fn in_data_page(
        &mut self,
        logical: u32,
        key: &[u8],
    ) -> Result<Option<Located>, RecordsError> {
        let p = self.page(Kind::Data, u64::from(logical))?;
        match find_in_data(&p, key) {
            None => Err(RecordsError::Corrupt("a data page does not parse")),
            Some(None) => Ok(None),
            Some(Some(raw)) => {
                let start = raw.as_ptr() as usize - p.as_ptr() as usize;
                let range = start..start + raw.len();
                Ok(Some((logical, p.clone(), range)))
            }
        }
    }

    /// Where the record with `key` is: its data page's number, the page, and the
    /// record's bytes in it, found through the index.
    pub(super) fn locate(&mut self, key: &[u8]) -> Result<Option<Located>, RecordsError> {
        if self.root.buckets == 0 {
            // A small file without an index: its few data pages in turn.
            for logical in 0..self.page_count(Kind::Data)? {
                let logical = u32::try_from(logical).map_err(|_| RecordsError::TooLarge)?;
                if let Some(found) = self.in_data_page(logical, key)? {
                    return Ok(Some(found));
                }
            }
            return Ok(None);
        }
        let token = self.keys.token(key);
        self.locate_indexed(key, token)
    }

    /// [`RecordFile::locate`] in a file with an index, given the key's token.
    fn locate_indexed(&mut self, key: &[u8], token: u64) -> Result<Option<Located>, RecordsError> {
        let layout = self.root.index_layout;
        let tag = layout.tag(token);
        let mut logical = u64::from(bucket_of(token, self.root.buckets));
        let mut hops = 0;
        let mut found = None;
        // A file at a URL walked with reads deferred ([`RecordFile::fetch_for`]): every
        // candidate's page is asked for in the same round, not one a round.
        let mut deferred = None;
        loop {
            let page = self.page(Kind::Index, logical)?;
            let res = index_lookup(&page, layout, tag, |data| {
                match self.in_data_page(data, key) {
                    Err(e @ RecordsError::Remote(crate::remote::RemoteError::Deferred)) => {
                        deferred = Some(e);
                        Ok(false)
                    }
                    r => {
                        found = r?;
                        Ok(found.is_some())
                    }
                }
            })?;
            let Some((hit, next)) = res else {
                return Err(RecordsError::Corrupt("an index page does not parse"));
            };
            if hit || next == NO_NEXT {
                return match deferred {
                    Some(e) => Err(e),
                    None => Ok(found),
                };
            }
            logical = u64::from(next);
            hops += 1;
            if hops > 1 << 20 {
                return Err(RecordsError::Corrupt("an index chain loops"));
            }
        }
    }

    /// The record with `key`, as it was in the input (line end included).
    pub fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, RecordsError> {
        let mut out = Vec::new();
        Ok(self.get_into(key, &mut out)?.then_some(out))
    }

    /// Appends the record with `key` to `out`; returns whether there was one.
    pub fn get_into(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, RecordsError> {
        let found = if self.root.buckets == 0 {
            self.locate(key)?
        } else {
            // A record of a held data page, found by its key's hash without the index
            // (see `Cache::find_record`). The key's line of the record table is asked
            // for first, and arrives while the token is computed.
            let hash = self.cache.key_hash(key);
            self.cache.prefetch_record(hash);
            let token = self.keys.token(key);
            let bucket = u64::from(bucket_of(token, self.root.buckets));
            let tag = self.root.index_layout.tag(token);
            if let Some(record) = self.cache.find_record(key, hash, bucket, tag) {
                out.extend_from_slice(record);
                return Ok(true);
            }
            self.locate_indexed(key, token)?
        };
        Ok(match found {
            Some((_, p, r)) => {
                out.extend_from_slice(&p[r]);
                true
            }
            None => false,
        })
    }

    /// The `n`-th live record (from 1) in file order.
    pub fn get_number(&mut self, n: u64) -> Result<Option<Vec<u8>>, RecordsError> {
        if n == 0 || n > self.root.records {
            return Ok(None);
        }
        let cap = dir_capacity(self.page_size) as u64;
        let mut left = n - 1;
        // Down the tree by counts: at each level, the entry whose records hold it.
        let list = self.root.data.clone();
        let mut entries: Rc<Vec<PageRef>> = Rc::new(list.refs.clone());
        let mut base = 0u64;
        for level in (0..=list.depth).rev() {
            let Some(j) = entries.iter().position(|e| {
                if left < e.count {
                    true
                } else {
                    left -= e.count;
                    false
                }
            }) else {
                return Err(RecordsError::Corrupt("record counts disagree"));
            };
            let index = base + j as u64;
            if level == 0 {
                let (p, recs) = self.data_page(index)?;
                let rec = recs
                    .get(left as usize)
                    .ok_or(RecordsError::Corrupt("record counts disagree"))?;
                return Ok(Some(p[rec.raw.clone()].to_vec()));
            }
            let r = entries[j];
            let reader = page_reader!(self);
            entries = self
                .dirs
                .entries(&reader, Kind::DataDir, level, index, &r)?;
            base = index * cap;
        }
        Err(RecordsError::Corrupt("record counts disagree"))
    }

    /// Calls `f` with every live record's raw bytes, in file order, after its page
    /// authenticates.
    pub fn for_each(
        &mut self,
        progress: &dyn Progress,
        mut f: impl FnMut(&[u8]) -> Result<(), RecordsError>,
    ) -> Result<(), RecordsError> {
        let pages = self.data_pages()?;
        progress.set_total(pages.len() as u64);
        self.reader().each_record(&pages, progress, &mut f)
    }

    /// Every data page: (logical number, where it is).
    pub(super) fn data_pages(&mut self) -> Result<Vec<(u64, PageRef)>, RecordsError> {
        let (leaves, _) = tree::load(&self.reader(), Kind::DataDir, &self.root.data)?;
        Ok(leaves
            .into_iter()
            .enumerate()
            .map(|(i, r)| (i as u64, r))
            .collect())
    }

    /// A page reader of this file.
    pub(super) fn reader(&self) -> PageReader<'_> {
        page_reader!(self)
    }

    /// Writes the input's header row and every live record to `out`: the original
    /// bytes, except that a record without a line end (the input's last line) gets one
    /// when records appended later follow it. With `verified_first`, nothing is written
    /// unless every data page authenticates: up to `budget` bytes of plaintext are held
    /// in memory; a larger file gets a first pass that authenticates everything, then a
    /// second that writes. Without it (an output the caller discards on error), one
    /// pass. Returns the bytes written.
    pub fn write_all(
        &mut self,
        out: &mut dyn Write,
        verified_first: bool,
        budget: usize,
        progress: &dyn Progress,
    ) -> Result<u64, RecordsError> {
        let prefix = self.prefix()?.unwrap_or_default();
        self.authenticate_index()?;
        let records = self.root.records;
        let mut written = 0u64;
        let mut seen = 0u64;
        // Writes a record, and a line end after one without it when more follow.
        let mut emit = |r: &[u8], out: &mut dyn Write| -> Result<u64, RecordsError> {
            seen += 1;
            out.write_all(r).map_err(RecordsError::Write)?;
            if seen < records && !r.ends_with(b"\n") {
                out.write_all(b"\n").map_err(RecordsError::Write)?;
                return Ok(r.len() as u64 + 1);
            }
            Ok(r.len() as u64)
        };
        if verified_first {
            let pages = self.data_pages()?;
            // Plaintext is at most the pages' capacity; hold it when that fits the budget.
            let per_page = if self.reader().compressed {
                super::compress::raw_max(self.page_size)
            } else {
                data_capacity(self.page_size)
            };
            let most = pages.len().saturating_mul(per_page);
            if most.saturating_add(prefix.len()) <= budget {
                progress.set_total(pages.len() as u64);
                let held = self.decrypt_parallel(&pages, progress)?;
                out.write_all(&prefix).map_err(RecordsError::Write)?;
                written += prefix.len() as u64;
                for (bytes, ends) in &held {
                    let mut start = 0;
                    for &end in ends {
                        written += emit(&bytes[start..end], out)?;
                        start = end;
                    }
                }
                out.flush().map_err(RecordsError::Write)?;
                return Ok(written);
            }
            // Too large to hold: a first pass authenticates everything.
            self.for_each(progress, |_| Ok(()))?;
            progress.set_total(0);
        }
        out.write_all(&prefix).map_err(RecordsError::Write)?;
        written += prefix.len() as u64;
        let pages = self.data_pages()?;
        progress.set_total(pages.len() as u64);
        self.reader().each_record(&pages, progress, &mut |r| {
            written += emit(r, out)?;
            Ok(())
        })?;
        out.flush().map_err(RecordsError::Write)?;
        Ok(written)
    }

    /// The records of `pages`, authenticated, in consecutive parts (each its records'
    /// bytes and where each record ends): the work is split between this thread and a
    /// second one when the machine has more than one CPU.
    #[allow(clippy::type_complexity)] // parts of (bytes, record ends)
    fn decrypt_parallel(
        &self,
        pages: &[(u64, PageRef)],
        progress: &dyn Progress,
    ) -> Result<Vec<(Vec<u8>, Vec<usize>)>, RecordsError> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
        let reader = self.reader();
        let part_of = |pages: &[(u64, PageRef)], progress: &dyn Progress| {
            let mut bytes = Vec::with_capacity(pages.len() * data_capacity(reader.page_size));
            let mut ends = Vec::new();
            reader.each_record(pages, progress, &mut |r| {
                bytes.extend_from_slice(r);
                ends.push(bytes.len());
                Ok(())
            })?;
            Ok::<_, RecordsError>((bytes, ends))
        };
        if threads < 2 || pages.len() < 64 {
            return Ok(vec![part_of(pages, progress)?]);
        }
        let (first, second) = pages.split_at(pages.len() / 2);
        std::thread::scope(|scope| {
            let helper = scope.spawn(|| part_of(second, &crate::progress::NoProgress));
            let a = part_of(first, progress);
            let b = helper
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            progress.advance(second.len() as u64);
            Ok(vec![a?, b?])
        })
    }

    /// Authenticates every index page (and the directories naming them).
    fn authenticate_index(&mut self) -> Result<(), RecordsError> {
        let reader = self.reader();
        let (pages, _) = tree::load(&reader, Kind::IndexDir, &self.root.index)?;
        for (logical, r) in pages.iter().enumerate() {
            reader.page(Kind::Index, logical as u64, r)?;
        }
        Ok(())
    }

    /// Seals the current records into `out` under a new data key and file id, with the
    /// slots `make_slots` gives: the same records, format and page size, no garbage.
    pub fn rewrite(
        &mut self,
        out: &mut File,
        make_slots: &MakeSlots<'_>,
        progress: &dyn Progress,
    ) -> Result<SealSummary, RecordsError> {
        let settings = Settings {
            format: self.root.format,
            header_row: self.root.header_row,
            key_field: self.root.key_field.clone(),
            page_size: self.header.page_size,
            next_number: self.root.next_number,
            threads: 0,
            compression: self.root.update_level(),
            dictionary: self.root.dictionary.is_some(),
            // Format 1's tags were all 32 bits: a rewrite gives them format 2's default.
            wide_tags: self.header.version >= 2 && self.root.index_layout.tag_bytes == 4,
        };
        let prefix = self.prefix()?;
        let total = self.page_count(Kind::Data)?;
        progress.set_total(self.root.records);
        let mut logical = 0u64;
        let mut queue: std::collections::VecDeque<InputRecord<'static>> = Default::default();
        let mut failed = false;
        let mut records = std::iter::from_fn(|| {
            loop {
                if let Some(r) = queue.pop_front() {
                    return Some(Ok(r));
                }
                if failed || logical >= total {
                    return None;
                }
                match self.data_page(logical) {
                    Err(e) => {
                        failed = true;
                        return Some(Err(e));
                    }
                    Ok((p, recs)) => {
                        queue.extend(recs.into_iter().map(|r| {
                            let (raw, key) = r.to_owned_parts(&p);
                            InputRecord {
                                raw: raw.into(),
                                key,
                                line: 0,
                            }
                        }));
                        self.cache.forget((Kind::Data as u8, logical));
                        logical += 1;
                    }
                }
            }
        });
        seal_with_slots(
            &mut records,
            prefix.as_deref(),
            &settings,
            make_slots,
            out,
            progress,
        )
    }

    /// The key slots.
    pub fn slots(&self) -> &[Slot] {
        &self.header.slots
    }

    /// The data key, to wrap into new slots.
    pub fn data_key(&self) -> zeroize::Zeroizing<[u8; 32]> {
        zeroize::Zeroizing::new(*self.keys.data_key())
    }

    /// The file id.
    pub fn file_id(&self) -> [u8; 16] {
        self.header.file_id
    }
}

/// The key bytes of an owned record.
pub(super) fn key_of<'a>(raw: &'a [u8], key: &'a KeyPlace) -> &'a [u8] {
    match key {
        KeyPlace::InRaw(r) => &raw[r.clone()],
        KeyPlace::Own(k) => k,
    }
}

/// An empty cache of `budget` bytes for a file of `len` bytes whose current commit is
/// `root`: its table of pages by number for every page the file can hold, and its
/// record table for the file's records.
pub(super) fn cache_for(root: &Root, len: u64, page_size: usize, budget: usize) -> Cache {
    Cache::new(
        budget,
        root.allocated.min(len / page_size as u64),
        root.records,
        root.allocated.saturating_mul(page_size as u64),
        root.buckets,
    )
}

/// A page reader over a file's parts (borrowing only them).
fn reader_of<'a>(
    file: &'a Blob,
    mapped: Option<&'a [u8]>,
    keys: &'a FileKeys,
    header: &Header,
    root: &Root,
    page_size: usize,
    dict: Option<&'a Dict>,
) -> PageReader<'a> {
    PageReader {
        file: file.source(),
        keys,
        id: header.file_id,
        page_size,
        pages_at: header.pages_at(),
        compressed: root.compression.compressed(),
        dict,
        mapped,
    }
}
