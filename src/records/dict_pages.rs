//! A file's compression dictionary in its pages (record compression 2): `count`
//! consecutive physical pages of kind 6, logical numbers 0 to `count - 1`, each holding
//! `u32 length ‖ bytes`; the dictionary is their bytes end to end.

use super::RecordsError;
use super::codec::PageRef;
use super::compress::{Dict, MAX_DICT};
use super::io::{PageReader, PageWriter};
use super::pages::{Kind, data_capacity};
use std::sync::Arc;

const BAD: &str = "the compression dictionary does not parse";

/// Bytes of the dictionary a page holds.
fn per_page(page_size: usize) -> usize {
    data_capacity(page_size) - 4
}

/// Writes `dict` into the next physical pages; its ref (count: the pages written).
pub fn write(w: &mut PageWriter<'_>, dict: &Dict) -> Result<PageRef, RecordsError> {
    let bytes = dict.bytes();
    let first = w.next_physical;
    let mut count = 0u64;
    for (j, part) in bytes.chunks(per_page(w.page_size())).enumerate() {
        let mut plain = (part.len() as u32).to_le_bytes().to_vec();
        plain.extend_from_slice(part);
        w.write(Kind::Dict, j as u64, &plain, 0)?;
        count += 1;
    }
    Ok(PageRef {
        physical: first,
        generation: w.generation(),
        count,
    })
}

/// The pages of the dictionary `r` names, with their logical numbers.
fn refs(r: &PageRef) -> impl Iterator<Item = (u64, PageRef)> + '_ {
    (0..r.count).map(move |j| {
        (
            j,
            PageRef {
                physical: r.physical.saturating_add(j),
                generation: r.generation,
                count: 0,
            },
        )
    })
}

/// Reads and checks the dictionary `r` names: every page authenticated, at most
/// [`MAX_DICT`] bytes in all, and loadable by Zstandard.
pub fn read(reader: &PageReader<'_>, r: &PageRef) -> Result<Arc<Dict>, RecordsError> {
    let bad = || RecordsError::Corrupt(BAD);
    let most = MAX_DICT.div_ceil(per_page(reader.page_size)) as u64;
    if r.count > most {
        return Err(bad());
    }
    let pages: Vec<(u64, PageRef)> = refs(r).collect();
    reader.fetch_pages(&pages.iter().map(|p| p.1).collect::<Vec<_>>())?;
    let mut bytes = Vec::new();
    for (j, p) in &pages {
        reader
            .with_page(Kind::Dict, *j, p, &mut Vec::new(), |plain| {
                let len = u32::from_le_bytes(plain.get(..4)?.try_into().ok()?) as usize;
                let part = plain.get(4..4usize.checked_add(len)?)?;
                (bytes.len() + part.len() <= MAX_DICT).then(|| bytes.extend_from_slice(part))
            })?
            .ok_or_else(bad)?;
    }
    let dict = Dict::new(bytes);
    if !dict.loads() {
        return Err(bad());
    }
    Ok(dict)
}
