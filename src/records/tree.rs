//! Page lists as trees: the root keeps up to [`INLINE_REFS`] refs of a list; longer
//! lists get levels of directory pages, each naming up to `dir_capacity` refs of the
//! level below. Finding a page reads one directory page per level; a commit rewrites
//! only the directory pages whose entries changed.

use super::RecordsError;
use super::codec::PageRef;
use super::io::{PageReader, PageWriter, dir_logical};
use super::pages::{Kind, encode_dir};
use super::root::{INLINE_REFS, PageList};

/// The directory pages of a list, loaded: `nodes[l]` holds level `l + 1`'s pages in
/// order, each as its ref and its entries.
#[derive(Debug, Clone, Default)]
pub struct Levels {
    /// The nodes of each level, lowest first.
    pub nodes: Vec<Vec<(PageRef, Vec<PageRef>)>>,
}

/// Pages below one node of `level` (level 0: a page itself): `cap^level`.
fn span(cap: usize, level: u8) -> u128 {
    (cap as u128).saturating_pow(u32::from(level))
}

/// Every page ref of a list, in logical order, and its directory pages, read and
/// authenticated; a directory's count must be the sum of its entries'.
pub fn load(
    reader: &PageReader<'_>,
    dir_kind: Kind,
    list: &PageList,
) -> Result<(Vec<PageRef>, Levels), RecordsError> {
    let mut levels = Levels {
        nodes: vec![Vec::new(); usize::from(list.depth)],
    };
    let mut cur = list.refs.clone();
    for level in (1..=list.depth).rev() {
        let mut next = Vec::new();
        for (j, r) in cur.iter().enumerate() {
            let entries = reader.dir(dir_kind, level, j as u64, r)?;
            let total: u64 = entries.iter().map(|e| e.count).sum();
            if total != r.count {
                return Err(RecordsError::Corrupt("a directory's count disagrees"));
            }
            next.extend_from_slice(&entries);
            levels.nodes[usize::from(level) - 1].push((*r, entries));
        }
        cur = next;
    }
    Ok((cur, levels))
}

/// Builds the list of `leaves`, writing the directory pages it needs; a directory page
/// whose entries are those of the same page of `old` is kept as it was.
pub fn build(
    w: &mut PageWriter<'_>,
    dir_kind: Kind,
    leaves: &[PageRef],
    old: Option<&Levels>,
) -> Result<PageList, RecordsError> {
    let cap = super::pages::dir_capacity(w.page_size());
    let mut level: u8 = 0;
    let mut cur = leaves.to_vec();
    while cur.len() > INLINE_REFS {
        level = level.checked_add(1).ok_or(RecordsError::TooLarge)?;
        let before = old.and_then(|o| o.nodes.get(usize::from(level) - 1));
        let mut next = Vec::with_capacity(cur.len().div_ceil(cap));
        for (j, chunk) in cur.chunks(cap).enumerate() {
            let kept = before
                .and_then(|b| b.get(j))
                .filter(|(_, entries)| entries.as_slice() == chunk);
            next.push(match kept {
                Some((r, _)) => *r,
                None => {
                    let total: u64 = chunk.iter().map(|e| e.count).sum();
                    w.write(
                        dir_kind,
                        dir_logical(level, j as u64),
                        &encode_dir(chunk)?,
                        total,
                    )?
                }
            });
        }
        cur = next;
    }
    Ok(PageList {
        depth: level,
        refs: cur,
    })
}

/// The ref of page `i` of a list; `dir(level, index, ref)` gives a directory page's
/// entries (through a cache).
pub fn leaf(
    list: &PageList,
    cap: usize,
    i: u64,
    mut dir: impl FnMut(u8, u64, &PageRef) -> Result<std::rc::Rc<Vec<PageRef>>, RecordsError>,
) -> Result<PageRef, RecordsError> {
    let missing = || RecordsError::Corrupt("page missing from its directory");
    let top = u128::from(i) / span(cap, list.depth);
    let mut r = *list
        .refs
        .get(usize::try_from(top).map_err(|_| RecordsError::TooLarge)?)
        .ok_or_else(missing)?;
    let mut index = top as u64;
    for level in (1..=list.depth).rev() {
        let entries = dir(level, index, &r)?;
        let below = u128::from(i) / span(cap, level - 1);
        let within = (below % cap as u128) as usize;
        r = *entries.get(within).ok_or_else(missing)?;
        index = below as u64;
    }
    Ok(r)
}

/// The number of pages of a list: the full nodes before the last, and the last one's.
pub fn count(
    list: &PageList,
    cap: usize,
    mut dir: impl FnMut(u8, u64, &PageRef) -> Result<std::rc::Rc<Vec<PageRef>>, RecordsError>,
) -> Result<u64, RecordsError> {
    let Some(last) = list.refs.last() else {
        return Ok(0);
    };
    let mut total = (list.refs.len() as u128 - 1) * span(cap, list.depth);
    let (mut r, mut index) = (*last, list.refs.len() as u64 - 1);
    for level in (1..=list.depth).rev() {
        let entries = dir(level, index, &r)?;
        let Some(e) = entries.last() else {
            return Err(RecordsError::Corrupt("an empty directory page"));
        };
        total += (entries.len() as u128 - 1) * span(cap, level - 1);
        index = index * cap as u64 + entries.len() as u64 - 1;
        r = *e;
    }
    u64::try_from(total + 1).map_err(|_| RecordsError::TooLarge)
}
