//! Verifying a record file end to end: every page it refers to authenticates, and its
//! structure holds together.

use super::RecordsError;
use super::pages::{Kind, bucket_of};
use super::read::RecordFile;
use super::seal::TINY_PAGES;
use super::tree;
use crate::progress::Progress;

/// What `verify` checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyReport {
    /// Records found.
    pub records: u64,
    /// Pages authenticated.
    pub pages: u64,
}

impl RecordFile {
    /// Authenticates every referenced page and checks the structure: record counts,
    /// directory counts, index chains (sorted pages, each reachable once) whose entries
    /// are exactly the records' tokens in their buckets. A damaged header copy fails
    /// the verification too, after the rest has been checked.
    pub fn verify(&mut self, progress: &dyn Progress) -> Result<VerifyReport, RecordsError> {
        let reader = self.reader();
        let (data_refs, data_dirs) = tree::load(&reader, Kind::DataDir, &self.root.data)?;
        let (index_refs, index_dirs) = tree::load(&reader, Kind::IndexDir, &self.root.index)?;
        let layout = self.root.index_layout;
        let buckets = self.root.buckets;
        let mut expected: Vec<(u32, u32, u32)> = Vec::new();
        let mut records = 0u64;
        let mut pages = 0u64;
        progress.set_total((data_refs.len() + index_refs.len()) as u64);
        let window = super::remote::ahead_pages(self.page_size);
        for logical in 0..data_refs.len() as u64 {
            if (logical as usize).is_multiple_of(window) {
                let at = logical as usize;
                self.fetch_pages(&data_refs[at..(at + window).min(data_refs.len())])?;
            }
            let (p, recs) = self.data_page(logical)?;
            if buckets > 0 {
                for r in &recs {
                    let t = self.keys.token(r.key(&p));
                    expected.push((bucket_of(t, buckets), layout.tag(t), logical as u32));
                }
            }
            records += recs.len() as u64;
            pages += 1;
            progress.advance(1);
            self.cache.forget((Kind::Data as u8, logical));
        }
        if records != self.root.records {
            return Err(RecordsError::Corrupt("the root's record count disagrees"));
        }
        let index_pages = index_refs.len() as u64;
        if buckets == 0 {
            if index_pages != 0 || data_refs.len() as u64 > TINY_PAGES {
                return Err(RecordsError::Corrupt(
                    "a file without an index is too large",
                ));
            }
        } else if u64::from(buckets) > index_pages {
            return Err(RecordsError::Corrupt("fewer index pages than buckets"));
        }
        if buckets > 0 && !layout.fits(data_refs.len().saturating_sub(1) as u64) {
            return Err(RecordsError::Corrupt(
                "index entries cannot name every data page",
            ));
        }
        let mut seen = vec![false; index_pages as usize];
        let mut indexed: Vec<(u32, u32, u32)> = Vec::with_capacity(expected.len());
        for b in 0..buckets {
            let at = b as usize;
            if at.is_multiple_of(window) {
                self.fetch_pages(
                    &index_refs[at.min(index_refs.len())..(at + window).min(index_refs.len())],
                )?;
            }
            let mut logical = u64::from(b);
            loop {
                if logical >= index_pages || std::mem::replace(&mut seen[logical as usize], true) {
                    return Err(RecordsError::Corrupt("an index chain is broken"));
                }
                let page = self.index_page(logical)?;
                if page.entries.windows(2).any(|w| w[0].0 > w[1].0) {
                    return Err(RecordsError::Corrupt("an index page is out of order"));
                }
                indexed.extend(page.entries.iter().map(|&(t, d)| (b, t, d)));
                pages += 1;
                progress.advance(1);
                self.cache.forget((Kind::Index as u8, logical));
                if page.next == super::pages::NO_NEXT {
                    break;
                }
                logical = u64::from(page.next);
            }
        }
        if seen.iter().any(|s| !s) {
            return Err(RecordsError::Corrupt("an index page is unreachable"));
        }
        expected.sort_unstable();
        indexed.sort_unstable();
        if expected != indexed {
            return Err(RecordsError::Corrupt(
                "the index does not match the records",
            ));
        }
        let dirs: usize = data_dirs
            .nodes
            .iter()
            .chain(index_dirs.nodes.iter())
            .map(Vec::len)
            .sum();
        pages += dirs as u64;
        if self.root.prefix.is_some() {
            self.prefix()?;
            pages += 1;
        }
        if let Some(d) = self.root.dictionary {
            // Read at opening; read again here so that verify reports every page.
            super::dict_pages::read(&self.reader(), &d.pages)?;
            pages += d.pages.count;
        }
        if let Some(e) = self.damage_error() {
            return Err(e);
        }
        Ok(VerifyReport { records, pages })
    }
}
