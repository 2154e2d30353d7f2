//! Directory pages read so far: every level's by place, and the refs that the lowest
//! level's name in a flat table by page number, so that the ref of a data or index page
//! whose directory page has been read is one memory access (no hashing, no walk down the
//! levels, no pointers to follow).

use super::RecordsError;
use super::cache::PageMap;
use super::codec::PageRef;
use super::io::PageReader;
use super::pages::Kind;
use std::rc::Rc;

/// A directory page's entries.
pub type Entries = Rc<Vec<PageRef>>;

/// Directory pages held for an open file (until its next commit).
#[derive(Default)]
pub struct Dirs {
    /// By (directory kind, level, index in the level).
    map: PageMap<(u8, u8, u64), Entries>,
    /// The refs named by the level-1 directory pages read so far, of the data and of the
    /// index list, by page number ([`ABSENT`] where not read): the directory page naming
    /// page `i` of a list is number `i / cap` of its level 1.
    leaves: [Vec<PageRef>; 2],
}

/// A place in [`Dirs::leaves`] whose directory page has not been read.
const ABSENT: PageRef = PageRef {
    physical: u64::MAX,
    generation: u64::MAX,
    count: u64::MAX,
};

/// The table of `dir_kind`'s list.
fn leaves_of(dir_kind: Kind) -> usize {
    usize::from(dir_kind == Kind::IndexDir)
}

impl Dirs {
    /// The entries of directory page `index` of `level` in `dir_kind`'s list, whose ref is
    /// `r`: held, or read, authenticated against `r` and held.
    pub fn entries(
        &mut self,
        reader: &PageReader<'_>,
        dir_kind: Kind,
        level: u8,
        index: u64,
        r: &PageRef,
    ) -> Result<Entries, RecordsError> {
        if let Some(d) = self.map.get(&(dir_kind as u8, level, index)) {
            return Ok(d.clone());
        }
        let d = Rc::new(reader.dir(dir_kind, level, index, r)?);
        self.map.insert((dir_kind as u8, level, index), d.clone());
        if level == 1 {
            // A level-1 index is below the list's page count over the directory capacity
            // (the walk that found `r` checked it), so the table is at most the list's size.
            let cap = reader.dir_capacity();
            if let Some(start) = usize::try_from(index).ok().and_then(|i| i.checked_mul(cap)) {
                // The walk reads no entry past `cap`, so neither does the table.
                let named = &d[..d.len().min(cap)];
                let table = &mut self.leaves[leaves_of(dir_kind)];
                if table.len() < start + named.len() {
                    table.resize(start + named.len(), ABSENT);
                }
                table[start..start + named.len()].copy_from_slice(named);
            }
        }
        Ok(d)
    }

    /// The ref of page `logical` of a list of depth 1 or more, when the level-1
    /// directory page naming it has been read.
    #[inline]
    pub fn held_leaf(&self, dir_kind: Kind, logical: u64) -> Option<PageRef> {
        let r = *self.leaves[leaves_of(dir_kind)].get(usize::try_from(logical).ok()?)?;
        (r != ABSENT).then_some(r)
    }

    /// Forgets every page (a commit wrote new ones).
    pub fn clear(&mut self) {
        *self = Dirs::default();
    }
}
