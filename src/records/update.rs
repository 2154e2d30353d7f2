//! Updates: appends, deletions and new key slots, each one copy-on-write commit. New
//! pages go to newly allocated physical pages and are synced; then both header copies
//! are rewritten with the new root (the older or damaged copy first), each synced.

use super::codec::PageRef;
use super::compress::{Packed as PackedPage, Packer, frame};
use super::header::{COPY_SIZE_V1, Header, write_copies};
use super::io::PageWriter;
use super::pages::{
    IndexLayout, IndexPage, Kind, NO_NEXT, bucket_of, data_capacity, encode_data, parse_data,
    record_size,
};
use super::read::{RecordFile, key_of};
use super::seal::{REBUILD_FILL, TINY_PAGES, buckets_for, order_for_index, write_index};
use super::slots::Slot;
use super::{InputRecord, KeyPlace, RecordsError, tree};
use std::collections::{HashMap, HashSet};

/// Records moved out of a compressed page that no longer fit it (tests check that the
/// path is taken).
#[cfg(test)]
pub static MOVED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A data page's records while a commit changes them.
type PageRecords = Vec<(Vec<u8>, KeyPlace)>;

impl RecordFile {
    /// Applies appends and deletions in one copy-on-write commit. `add` records
    /// supersede live records with the same key; `remove` keys that are absent are
    /// ignored. Returns (added, replaced, removed).
    pub fn commit(
        &mut self,
        add: Vec<InputRecord<'_>>,
        remove: Vec<Vec<u8>>,
    ) -> Result<(u64, u64, u64), RecordsError> {
        self.commit_with_slots(add, remove, None)
    }

    /// Rewrites only the header with new key slots (and the same data key).
    pub fn set_slots(&mut self, slots: Vec<Slot>) -> Result<(), RecordsError> {
        let copy_size = if self.header.version == 1 {
            COPY_SIZE_V1
        } else {
            self.header.copy_size
        };
        super::header::check_slot_room(&slots, copy_size)?;
        self.commit_with_slots(Vec::new(), Vec::new(), Some(slots))
            .map(|_| ())
    }

    fn commit_with_slots(
        &mut self,
        add: Vec<InputRecord<'_>>,
        remove: Vec<Vec<u8>>,
        slots: Option<Vec<Slot>>,
    ) -> Result<(u64, u64, u64), RecordsError> {
        let mut root = self.root.clone();
        let generation = root.generation + 1;
        let mut counts = (0u64, 0u64, 0u64);
        if !add.is_empty() || !remove.is_empty() {
            let before = self.file.source().byte_len()?;
            let written = self
                .write_changes(&mut root, generation, add, remove)
                // Pages first, durably; the header that makes them current after.
                .and_then(|c| {
                    self.file
                        .source()
                        .local()?
                        .sync_data()
                        .map(|()| c)
                        .map_err(RecordsError::Write)
                });
            counts = match written {
                Ok(c) => c,
                Err(e) => {
                    // No header copy names the pages written past `before` (both are
                    // as they were), so the file gets its old length back: a full disk
                    // is not left full of them. Best effort: the error is the write's.
                    if let Ok(file) = self.file.source().local() {
                        let _ = file.set_len(before);
                    }
                    return Err(e);
                }
            };
        }
        root.generation = generation;
        let mut header = if self.header.version == 1 {
            // A format-1 file is upgraded in place: its header copies keep their size
            // and place, its pages stay where they are.
            Header::new(
                self.header.page_size,
                COPY_SIZE_V1,
                self.header.file_id,
                self.header.sequence,
                self.header.slots.clone(),
            )
        } else {
            self.header.clone()
        };
        header.sequence += 1;
        if let Some(s) = slots {
            header.slots = s;
        }
        let bytes = header.encode(&self.keys, &root)?;
        // The copy that is not in use first: it holds an older commit or is damaged.
        write_copies(
            self.file.source().local()?,
            header.copy_size,
            &bytes,
            1 - self.copy,
        )?;
        self.header = header;
        self.root = root;
        self.copy = 1 - self.copy;
        self.damage = None;
        self.behind = false;
        self.dirs.clear();
        self.cache = super::read::cache_for(
            &self.root,
            self.header.pages_at() + self.root.allocated * self.page_size as u64,
            self.page_size,
            self.cache.budget(),
        );
        Ok(counts)
    }

    /// Writes the pages of a commit and updates `root` to name them. Returns (added,
    /// replaced, removed).
    fn write_changes(
        &mut self,
        root: &mut super::root::Root,
        generation: u64,
        add: Vec<InputRecord<'_>>,
        remove: Vec<Vec<u8>>,
    ) -> Result<(u64, u64, u64), RecordsError> {
        let (mut replaced, mut removed) = (0u64, 0u64);
        let (mut data_refs, data_levels) = tree::load(&self.reader(), Kind::DataDir, &root.data)?;
        let (mut index_refs, index_levels) =
            tree::load(&self.reader(), Kind::IndexDir, &root.index)?;
        let layout = root.index_layout;
        let mut dirty_data: HashMap<u64, PageRecords> = HashMap::new();
        let mut dirty_index: HashMap<u64, IndexPage> = HashMap::new();
        // Duplicates among the new records: the last one wins.
        let mut last_of: HashMap<&[u8], usize> = HashMap::new();
        for (i, r) in add.iter().enumerate() {
            last_of.insert(r.key_bytes(), i);
        }
        let mut doomed: Vec<Vec<u8>> = remove;
        doomed.extend(add.iter().map(|r| r.key_bytes().to_vec()));
        let mut done: HashSet<Vec<u8>> = HashSet::new();
        for key in doomed {
            if !done.insert(key.clone()) {
                continue;
            }
            let Some((data, _, _)) = self.locate(&key)? else {
                continue;
            };
            if last_of.contains_key(key.as_slice()) {
                replaced += 1;
            } else {
                removed += 1;
            }
            // Take the record out of its data page.
            let logical = u64::from(data);
            if let std::collections::hash_map::Entry::Vacant(v) = dirty_data.entry(logical) {
                let r = *data_refs
                    .get(logical as usize)
                    .ok_or(RecordsError::Corrupt("page missing from its directory"))?;
                let p = self.reader().page(Kind::Data, logical, &r)?;
                let recs =
                    parse_data(&p).ok_or(RecordsError::Corrupt("a data page does not parse"))?;
                v.insert(recs.iter().map(|r| r.to_owned_parts(&p)).collect());
            }
            let recs = dirty_data.get_mut(&logical).expect("inserted above");
            let at = recs
                .iter()
                .position(|(raw, k)| key_of(raw, k) == key.as_slice())
                .ok_or(RecordsError::Corrupt("the index points to the wrong page"))?;
            recs.remove(at);
            // And its entry out of the index.
            let token = self.keys.token(&key);
            self.unindex(root, &mut dirty_index, &index_refs, token, data)?;
            root.records -= 1;
        }
        // A compressed page that lost records may, rarely, compress worse than before
        // (a removed record was what later ones referred to): records from its end then
        // move to new pages, with their index entries.
        let mut moved: PageRecords = Vec::new();
        let level = root.update_level();
        let dict = self.dict.clone();
        let mut framed: HashMap<u64, Vec<u8>> = HashMap::new();
        let cap = data_capacity(self.page_size);
        for (&l, recs) in dirty_data.iter_mut() {
            let Some(level) = level else {
                continue;
            };
            loop {
                if let Some(f) = frame(
                    &encode_data(recs, dict.is_some()),
                    level,
                    dict.as_deref(),
                    cap,
                ) {
                    framed.insert(l, f);
                    break;
                }
                let (raw, key) = recs.pop().expect("an empty page always fits");
                #[cfg(test)]
                MOVED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let token = self.keys.token(key_of(&raw, &key));
                self.unindex(root, &mut dirty_index, &index_refs, token, l as u32)?;
                moved.push((raw, key));
            }
        }
        moved.reverse();
        // Pack the new records (and moved ones) into new data pages.
        let mut packer = Packer::new(self.page_size, level, dict);
        let mut new_pages: Vec<PackedPage> = Vec::new();
        let mut new_tokens: Vec<u64> = Vec::new();
        let lines = root.format == super::root::InputFormat::Lines;
        for (raw, key) in &moved {
            new_tokens.push(self.keys.token(key_of(raw, key)));
            packer.push(raw, key, &mut new_pages);
        }
        let mut fresh = 0u64;
        for (i, r) in add.iter().enumerate() {
            if lines {
                root.next_number += 1;
            }
            if last_of.get(r.key_bytes()) != Some(&i) {
                continue;
            }
            if r.raw.is_empty() {
                return Err(super::empty_record(r.line));
            }
            if record_size(&r.raw, &r.key) > packer.max_record() {
                return Err(RecordsError::RecordTooLarge {
                    line: r.line,
                    max: packer.max_record() - 6,
                });
            }
            new_tokens.push(self.keys.token(r.key_bytes()));
            packer.push(&r.raw, &r.key, &mut new_pages);
            fresh += 1;
            root.records += 1;
        }
        packer.finish(false, &mut new_pages);
        let added = fresh - replaced;
        // Each new page's logical number, for its records' index entries.
        let mut new_entries: Vec<(u64, u32)> = Vec::with_capacity(new_tokens.len());
        let mut tokens = new_tokens.into_iter();
        for (k, page) in new_pages.iter().enumerate() {
            let logical = u32::try_from(data_refs.len() + k).map_err(|_| RecordsError::TooLarge)?;
            new_entries.extend(
                tokens
                    .by_ref()
                    .take(usize::from(page.records))
                    .map(|t| (t, logical)),
            );
        }
        let first_new = data_refs.len() as u64;
        data_refs.extend(new_pages.iter().map(|_| PageRef::default()));
        let data_pages = data_refs.len() as u64;
        // The index is rebuilt when it is missing and the file has outgrown that, when
        // it is full, or when its entries cannot number the new pages.
        let rebuild = if root.buckets == 0 {
            data_pages > TINY_PAGES
        } else {
            let cap_index = layout.capacity(self.page_size);
            root.records as f64 > f64::from(root.buckets) * cap_index as f64 * 0.95
                || !layout.fits(data_pages - 1)
        };
        if !rebuild && root.buckets > 0 {
            let cap_index = layout.capacity(self.page_size);
            for (token, data) in new_entries {
                let tag = layout.tag(token);
                let mut il = u64::from(bucket_of(token, root.buckets));
                loop {
                    let page = self.dirty_index_page(&mut dirty_index, &index_refs, il)?;
                    if page.entries.len() < cap_index {
                        let at = page.entries.partition_point(|e| e.0 <= tag);
                        page.entries.insert(at, (tag, data));
                        break;
                    }
                    if page.next == NO_NEXT {
                        let new_logical = index_refs.len() as u64;
                        page.next =
                            u32::try_from(new_logical).map_err(|_| RecordsError::TooLarge)?;
                        index_refs.push(PageRef::default());
                        dirty_index.insert(
                            new_logical,
                            IndexPage {
                                next: NO_NEXT,
                                entries: vec![(tag, data)],
                            },
                        );
                        break;
                    }
                    il = u64::from(page.next);
                }
            }
        }
        let mut w = PageWriter::new(self.reader(), root.allocated, generation);
        let mut changed: Vec<u64> = dirty_data.keys().copied().collect();
        changed.sort_unstable();
        for &l in &changed {
            let recs = &dirty_data[&l];
            let plain = match framed.remove(&l) {
                Some(f) => f,
                None => encode_data(recs, false),
            };
            data_refs[l as usize] = w.write(Kind::Data, l, &plain, recs.len() as u64)?;
        }
        for (k, page) in new_pages.into_iter().enumerate() {
            let l = first_new + k as u64;
            data_refs[l as usize] = w.write(Kind::Data, l, &page.plain, u64::from(page.records))?;
        }
        if rebuild {
            // A larger index, from the tokens of the records themselves; sized for
            // growth so that appends rebuild it rarely.
            let layout = IndexLayout::for_pages(data_pages).with_tags(root.index_layout.tag_bytes);
            let mut all: Vec<(u64, u32)> = Vec::with_capacity(root.records as usize);
            w.flush()?;
            let r = w.reader();
            for l in 0..data_pages {
                if let Some(recs) = dirty_data.get(&l) {
                    all.extend(
                        recs.iter()
                            .map(|(raw, k)| (self.keys.token(key_of(raw, k)), l as u32)),
                    );
                } else {
                    let p = r.page(Kind::Data, l, &data_refs[l as usize])?;
                    let recs = parse_data(&p)
                        .ok_or(RecordsError::Corrupt("a data page does not parse"))?;
                    all.extend(
                        recs.iter()
                            .map(|rec| (self.keys.token(rec.key(&p)), l as u32)),
                    );
                }
            }
            let buckets = buckets_for(root.records, layout, self.page_size, REBUILD_FILL);
            order_for_index(&mut all, layout, buckets, |e| e.0);
            index_refs = write_index(&mut w, layout, buckets, &all, |&(t, p)| (t, p))?;
            root.buckets = buckets;
            root.index_layout = layout;
            root.index = tree::build(&mut w, Kind::IndexDir, &index_refs, None)?;
        } else if root.buckets > 0 {
            let mut changed: Vec<u64> = dirty_index.keys().copied().collect();
            changed.sort_unstable();
            for &l in &changed {
                index_refs[l as usize] =
                    w.write(Kind::Index, l, &dirty_index[&l].encode(layout), 0)?;
            }
            root.index = tree::build(&mut w, Kind::IndexDir, &index_refs, Some(&index_levels))?;
        }
        root.data = tree::build(&mut w, Kind::DataDir, &data_refs, Some(&data_levels))?;
        w.flush()?;
        root.allocated = w.next_physical;
        Ok((added, replaced, removed))
    }

    /// Takes the entry of the record with `token` in data page `data` out of the index
    /// (if the file has one).
    fn unindex(
        &self,
        root: &super::root::Root,
        dirty_index: &mut HashMap<u64, IndexPage>,
        index_refs: &[PageRef],
        token: u64,
        data: u32,
    ) -> Result<(), RecordsError> {
        if root.buckets == 0 {
            return Ok(());
        }
        let tag = root.index_layout.tag(token);
        let mut il = u64::from(bucket_of(token, root.buckets));
        let mut hops = 0;
        loop {
            let page = self.dirty_index_page(dirty_index, index_refs, il)?;
            if let Some(i) = page
                .entries
                .iter()
                .position(|&(t, d)| t == tag && d == data)
            {
                page.entries.remove(i);
                return Ok(());
            }
            if page.next == NO_NEXT {
                return Err(RecordsError::Corrupt("a record is missing from the index"));
            }
            il = u64::from(page.next);
            hops += 1;
            if hops > index_refs.len() {
                return Err(RecordsError::Corrupt("an index chain loops"));
            }
        }
    }

    /// An index page being changed by a commit, loaded on first use.
    fn dirty_index_page<'d>(
        &self,
        dirty: &'d mut HashMap<u64, IndexPage>,
        refs: &[PageRef],
        logical: u64,
    ) -> Result<&'d mut IndexPage, RecordsError> {
        if let std::collections::hash_map::Entry::Vacant(v) = dirty.entry(logical) {
            let r = *refs
                .get(logical as usize)
                .ok_or(RecordsError::Corrupt("an index chain is broken"))?;
            let p = self.reader().page(Kind::Index, logical, &r)?;
            v.insert(
                IndexPage::decode(&p, self.root.index_layout)
                    .ok_or(RecordsError::Corrupt("an index page does not parse"))?,
            );
        }
        Ok(dirty.get_mut(&logical).expect("inserted above"))
    }
}
