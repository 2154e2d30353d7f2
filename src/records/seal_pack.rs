//! Sealing's first stage: records checked, numbered and tokenized in input order and
//! packed into data pages (compressed ones on two threads, each packing runs of records),
//! the pages handed to the thread that encrypts and writes them; and the dictionary
//! trained on the first records.

use super::codec::PageRef;
use super::compress::{DICT_MIN_INPUT, DICT_SAMPLES, Dict, Packed as PackedPage, Packer};
use super::crypto::FileKeys;
use super::io::PageWriter;
use super::pages::{Kind, record_size};
use super::{InputRecord, RecordsError};
use crate::progress::Progress;

pub(super) const SEALER_STOPPED_TEXT: &str = "the sealing thread stopped";
pub(super) const SEALER_STOPPED: RecordsError = RecordsError::Corrupt(SEALER_STOPPED_TEXT);

/// A data page packed for sealing: its logical number, its record count and its
/// plaintext (record count first).
pub(super) struct FullPage {
    pub(super) logical: u32,
    pub(super) records: u16,
    pub(super) plain: Vec<u8>,
}

/// Pages handed to the sealing thread at a time (fewer wake-ups than page by page).
const SEAL_BATCH: usize = 16;

/// What packing produced: (token, ordinal, data page) of every record, the input line
/// of every record (by ordinal), and the record count.
pub(super) type Packed = (Vec<(u64, u32, u32)>, LineMap, u64);

/// The input line each record starts on, by its ordinal, kept as the points where the
/// difference between the two changes (once for most inputs: a header row; again at
/// each record that spans lines or follows skipped ones): 12 bytes a change instead of
/// 8 bytes a record.
#[derive(Debug, Default)]
pub(super) struct LineMap {
    ordinals: Vec<u32>,
    deltas: Vec<u64>,
}

impl LineMap {
    /// Record `ordinal` (the next one) starts on `line`.
    fn push(&mut self, ordinal: u32, line: u64) {
        // Wrapping: a record's line may be below its number (records rewritten from a
        // file carry no lines), and the same wrap undoes it in `line`.
        let delta = line.wrapping_sub(u64::from(ordinal));
        if self.deltas.last() != Some(&delta) {
            self.ordinals.push(ordinal);
            self.deltas.push(delta);
        }
    }

    /// The line record `ordinal` starts on.
    pub(super) fn line(&self, ordinal: u32) -> u64 {
        let at = self.ordinals.partition_point(|&o| o <= ordinal);
        u64::from(ordinal).wrapping_add(at.checked_sub(1).map_or(0, |i| self.deltas[i]))
    }
}

/// Records' bytes a packing thread takes at a time when compressed pages are packed on
/// several threads: each run of records is packed on its own (its last page may be
/// short: about half a page in 4 MiB of records, 0.2 % of a file).
const SEGMENT_BYTES: usize = if cfg!(test) { 64 << 10 } else { 4 << 20 };

/// A run of records for a packing thread: its place in the input, and the records.
type Segment<'a> = (u64, Vec<(std::borrow::Cow<'a, [u8]>, super::KeyPlace)>);

/// Packs `records` into data pages with `packer`, computing each record's token with
/// `keys`, and hands batches of full pages to `sealer` (which may give back spent
/// buffers). Compressed pages are packed by `workers` threads when more than one, each
/// packing runs of [`SEGMENT_BYTES`] in turn; pages are shipped in input order.
pub(super) fn pack_pages<'a>(
    records: &mut dyn Iterator<Item = Result<InputRecord<'a>, RecordsError>>,
    keys: &FileKeys,
    packer: &mut Packer,
    progress: &dyn Progress,
    workers: usize,
    mut sealer: impl FnMut(Vec<FullPage>) -> Result<Vec<Vec<u8>>, RecordsError>,
) -> Result<Packed, RecordsError> {
    let mut batch: Vec<FullPage> = Vec::with_capacity(SEAL_BATCH);
    let mut logical: u32 = 0;
    // (token, ordinal, data page): the page is known when the packer ships it.
    let mut entries: Vec<(u64, u32, u32)> = Vec::new();
    let mut placed = 0usize;
    let mut lines = LineMap::default();
    let mut count = 0u64;
    let mut done: Vec<PackedPage> = Vec::new();
    // Numbers the pages shipped and their records, and hands full batches over.
    let mut ship = |done: &mut Vec<PackedPage>,
                    entries: &mut Vec<(u64, u32, u32)>,
                    packer: &mut Packer,
                    last: bool|
     -> Result<(), RecordsError> {
        for page in done.drain(..) {
            let n = usize::from(page.records);
            for e in &mut entries[placed..placed + n] {
                e.2 = logical;
            }
            placed += n;
            batch.push(FullPage {
                logical,
                records: page.records,
                plain: page.plain,
            });
            logical = logical.checked_add(1).ok_or(RecordsError::TooManyPages)?;
            if batch.len() == SEAL_BATCH {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(SEAL_BATCH));
                packer.give_back(sealer(full)?);
            }
        }
        if last && !batch.is_empty() {
            packer.give_back(sealer(std::mem::take(&mut batch))?);
        }
        Ok(())
    };
    let max = packer.max_record();
    // Each record checked, numbered and tokenized here, in input order; then packed
    // here, or handed to a packing thread with the rest of its segment.
    let mut take = |rec: InputRecord<'a>,
                    count: &mut u64,
                    entries: &mut Vec<(u64, u32, u32)>|
     -> Result<InputRecord<'a>, RecordsError> {
        if rec.raw.is_empty() {
            return Err(super::empty_record(rec.line));
        }
        if record_size(&rec.raw, &rec.key) > max {
            return Err(RecordsError::RecordTooLarge {
                line: rec.line,
                max: max - 6,
            });
        }
        let ordinal = u32::try_from(*count).map_err(|_| RecordsError::TooLarge)?;
        entries.push((keys.token(rec.key_bytes()), ordinal, 0));
        lines.push(ordinal, rec.line);
        *count += 1;
        if count.is_multiple_of(4096) {
            progress.advance(4096);
        }
        Ok(rec)
    };
    if workers > 1 && packer.compresses() {
        let (to_packers, jobs) = std::sync::mpsc::sync_channel::<Segment<'a>>(workers);
        // Held by the packing threads only: when they have all stopped (a panic), a send
        // fails instead of waiting for ever.
        let jobs = std::sync::Arc::new(std::sync::Mutex::new(jobs));
        let (packed_tx, packed) = std::sync::mpsc::channel::<(u64, Vec<PackedPage>)>();
        std::thread::scope(|scope| -> Result<(), RecordsError> {
            for _ in 0..workers {
                let (jobs, packed_tx) = (std::sync::Arc::clone(&jobs), packed_tx.clone());
                let mut own = packer.sibling();
                scope.spawn(move || {
                    loop {
                        let job = jobs.lock().map(|j| j.recv());
                        let Ok(Ok((seq, recs))) = job else { break };
                        let mut pages = Vec::new();
                        for (raw, key) in &recs {
                            own.push(raw, key, &mut pages);
                        }
                        own.finish(false, &mut pages);
                        if packed_tx.send((seq, pages)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop((packed_tx, jobs));
            // Segments come back in any order; they are shipped in input order.
            let mut waiting: std::collections::BTreeMap<u64, Vec<PackedPage>> = Default::default();
            let mut next = 0u64;
            let mut sent = 0u64;
            let mut ship_ready =
                |waiting: &mut std::collections::BTreeMap<u64, Vec<PackedPage>>,
                 entries: &mut Vec<(u64, u32, u32)>,
                 next: &mut u64,
                 last: bool|
                 -> Result<(), RecordsError> {
                    while let Some(mut pages) = waiting.remove(next) {
                        *next += 1;
                        ship(&mut pages, entries, packer, false)?;
                    }
                    if last {
                        ship(&mut Vec::new(), entries, packer, true)?;
                    }
                    Ok(())
                };
            let mut segment = Vec::new();
            let mut bytes = 0usize;
            for rec in &mut *records {
                let rec = take(rec?, &mut count, &mut entries)?;
                bytes += rec.raw.len();
                segment.push((rec.raw, rec.key));
                if bytes >= SEGMENT_BYTES {
                    // A closed channel: a packing thread stopped (its panic is raised
                    // when the scope joins it).
                    to_packers
                        .send((sent, std::mem::take(&mut segment)))
                        .map_err(|_| SEALER_STOPPED)?;
                    sent += 1;
                    bytes = 0;
                    while let Ok((seq, pages)) = packed.try_recv() {
                        waiting.insert(seq, pages);
                    }
                    ship_ready(&mut waiting, &mut entries, &mut next, false)?;
                }
            }
            if !segment.is_empty() {
                to_packers
                    .send((sent, segment))
                    .map_err(|_| SEALER_STOPPED)?;
                sent += 1;
            }
            drop(to_packers);
            while next < sent {
                let (seq, pages) = packed.recv().map_err(|_| SEALER_STOPPED)?;
                waiting.insert(seq, pages);
                ship_ready(&mut waiting, &mut entries, &mut next, false)?;
            }
            if sent == 0 {
                // An empty file still has one (empty) data page.
                packer.finish(true, &mut done);
                ship(&mut done, &mut entries, packer, true)?;
            } else {
                ship_ready(&mut waiting, &mut entries, &mut next, true)?;
            }
            Ok(())
        })?;
        progress.advance(count % 4096);
        return Ok((entries, lines, count));
    }
    for rec in records {
        let rec = take(rec?, &mut count, &mut entries)?;
        packer.push(&rec.raw, &rec.key, &mut done);
        if !done.is_empty() {
            ship(&mut done, &mut entries, packer, false)?;
        }
    }
    // An empty file still has one (empty) data page.
    packer.finish(true, &mut done);
    ship(&mut done, &mut entries, packer, true)?;
    progress.advance(count % 4096);
    Ok((entries, lines, count))
}

/// Seals batches of data pages in order. Returns the pages' refs.
pub(super) fn seal_pages(
    w: &mut PageWriter<'_>,
    batches: impl Iterator<Item = Vec<FullPage>>,
    mut give_back: impl FnMut(Vec<Vec<u8>>),
) -> Result<Vec<PageRef>, RecordsError> {
    let mut refs = Vec::new();
    for batch in batches {
        let mut spent = Vec::with_capacity(batch.len());
        for page in batch {
            refs.push(w.write(
                Kind::Data,
                u64::from(page.logical),
                &page.plain,
                u64::from(page.records),
            )?);
            spent.push(page.plain);
        }
        give_back(spent);
    }
    Ok(refs)
}

/// Takes records from `records` into `head` until [`DICT_SAMPLES`] bytes (or the end,
/// or an error), and trains a dictionary on them if they are at least
/// [`DICT_MIN_INPUT`] bytes.
pub(super) fn train_on_head<'a>(
    records: &mut dyn Iterator<Item = Result<InputRecord<'a>, RecordsError>>,
    head: &mut Vec<Result<InputRecord<'a>, RecordsError>>,
) -> Option<std::sync::Arc<Dict>> {
    let mut bytes = 0usize;
    while bytes < DICT_SAMPLES {
        match records.next() {
            Some(Ok(r)) => {
                bytes += r.raw.len();
                head.push(Ok(r));
            }
            Some(Err(e)) => {
                head.push(Err(e));
                return None;
            }
            None => break,
        }
    }
    if bytes < DICT_MIN_INPUT {
        return None;
    }
    let mut samples = Vec::with_capacity(bytes);
    let mut sizes = Vec::with_capacity(head.len());
    for r in head.iter().flatten() {
        samples.extend_from_slice(&r.raw);
        sizes.push(r.raw.len());
    }
    Dict::train(&samples, &sizes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The line map gives back every record's line, whatever the gaps between them.
        #[test]
        fn the_line_map_gives_every_records_line(gaps in proptest::collection::vec(
            prop_oneof![4 => Just(1u64), 1 => 0u64..5, 1 => 5u64..1_000_000],
            0..300,
        ), first in 1u64..5) {
            let mut map = LineMap::default();
            let mut lines = Vec::new();
            let mut line = first;
            for (ordinal, gap) in gaps.iter().enumerate() {
                line += gap.max(&1) - 1;
                lines.push(line);
                map.push(ordinal as u32, line);
                line += 1;
            }
            for (ordinal, &want) in lines.iter().enumerate() {
                prop_assert_eq!(map.line(ordinal as u32), want);
            }
        }

        /// Any lines at all, below the records' numbers too (a rewrite's records have
        /// none: line 0), come back as they went in.
        #[test]
        fn the_line_map_gives_back_any_lines(lines in proptest::collection::vec(
            prop_oneof![Just(0u64), 0u64..10, any::<u64>()],
            0..100,
        )) {
            let mut map = LineMap::default();
            for (ordinal, &line) in lines.iter().enumerate() {
                map.push(ordinal as u32, line);
            }
            for (ordinal, &want) in lines.iter().enumerate() {
                prop_assert_eq!(map.line(ordinal as u32), want);
            }
        }
    }
}
