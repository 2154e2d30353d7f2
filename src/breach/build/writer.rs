//! The index writer: records packed as they come, the bucket table filled as buckets
//! are passed, then the sections after the records and the header.

use super::checkpoint::Checkpoint;
use super::{BuildError, SinkMsg};
use crate::breach::HashKind;
use crate::breach::format::{
    ESTIMATE_RECORDS, GROUP_BITS, HEADER_SIZE, Header, OVERFLOW_ENTRY, Params, Wide, align,
};
use crate::streams::ChunkWriter;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::mpsc;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// Packs records as they come; decides the parameters after the first records. Full
/// buffers of records go to the sink thread.
pub(super) struct Writer {
    pub(super) kind: Option<HashKind>,
    /// Records held until the parameters are chosen.
    pub(super) pending: Vec<(Wide, u64)>,
    pub(super) params: Option<Params>,
    pub(super) last: Option<(Wide, u64)>,
    pub(super) padding: u64,
    pub(super) records: u64,
    pub(super) max_count: u64,
    pub(super) total_count: u64,
    /// Record bytes not yet handed to the sink.
    pub(super) buf: Vec<u8>,
    pub(super) buf_len: usize,
    pub(super) sink: Option<mpsc::SyncSender<SinkMsg>>,
    pub(super) free: mpsc::Receiver<Vec<u8>>,
    pub(super) overflow: BufWriter<File>,
    pub(super) overflow_entries: u64,
    /// Bucket offsets relative to their group base, filled as buckets are passed.
    pub(super) offsets: Vec<u32>,
    pub(super) bases: Vec<u64>,
    pub(super) next_bucket: u64,
    /// The ranges the records fall in.
    pub(super) coverage: crate::breach::coverage::Coverage,
    /// The lengths of `bases` and `offsets` and the overflow entries at the last
    /// checkpoint.
    saved: (usize, usize, u64),
    /// The hashes held at the last checkpoint.
    saved_pending: usize,
}

const RECORD_BUF: usize = 1 << 20;

impl Writer {
    pub(super) fn new(
        spool: File,
        kind: Option<HashKind>,
        sink: mpsc::SyncSender<SinkMsg>,
        free: mpsc::Receiver<Vec<u8>>,
    ) -> Writer {
        Writer {
            kind,
            pending: Vec::new(),
            params: None,
            last: None,
            padding: 0,
            records: 0,
            max_count: 0,
            total_count: 0,
            buf: vec![0u8; RECORD_BUF],
            buf_len: 0,
            sink: Some(sink),
            free,
            overflow: BufWriter::new(spool),
            overflow_entries: 0,
            offsets: Vec::new(),
            bases: Vec::new(),
            next_bucket: 0,
            coverage: crate::breach::coverage::Coverage::default(),
            saved: (0, 0, 0),
            saved_pending: 0,
        }
    }

    pub(super) fn set_kind(&mut self, kind: HashKind) {
        self.kind = Some(kind);
    }

    #[inline]
    pub(super) fn push(&mut self, hash: Wide, count: u64) -> Result<(), BuildError> {
        if self.params.is_none() {
            self.pending.push((hash, count));
            if self.pending.len() == ESTIMATE_RECORDS {
                self.choose(false)?;
            }
            return Ok(());
        }
        self.emit(hash, count)
    }

    /// Chooses the parameters from the records held (all of them at the end of input).
    pub(super) fn choose(&mut self, at_end: bool) -> Result<(), BuildError> {
        let kind = self.kind.unwrap_or(HashKind::Sha1);
        let estimate = if at_end {
            self.pending.len() as u64
        } else {
            let first = self.pending[0].0.0[0];
            let last = self.pending[ESTIMATE_RECORDS - 1].0.0[0];
            let span = u128::from(last - first) + 1;
            let e = ((ESTIMATE_RECORDS as u128 - 1) << 64) / span;
            e.min(u128::from(u64::MAX)) as u64
        };
        let params = Params::new(kind, Params::table_bits_for(estimate));
        self.offsets = Vec::with_capacity(params.buckets() as usize + 1);
        self.bases = Vec::with_capacity(params.groups() as usize);
        self.params = Some(params);
        for (h, c) in std::mem::take(&mut self.pending) {
            self.emit(h, c)?;
        }
        Ok(())
    }

    /// Fills bucket offsets up to and including `bucket` with the current record index.
    #[inline]
    pub(super) fn pass_buckets(&mut self, bucket: u64) -> Result<(), BuildError> {
        while self.next_bucket <= bucket {
            let k = self.next_bucket;
            if k.is_multiple_of(1 << GROUP_BITS) {
                self.bases.push(self.records);
            }
            let base = *self.bases.last().expect("pushed above");
            let rel = u32::try_from(self.records - base).map_err(|_| BuildError::Unbalanced)?;
            self.offsets.push(rel);
            self.next_bucket += 1;
        }
        Ok(())
    }

    #[inline]
    pub(super) fn emit(&mut self, hash: Wide, count: u64) -> Result<(), BuildError> {
        let p = self.params.expect("chosen before emitting");
        let bucket = p.bucket(&hash);
        if bucket >= self.next_bucket {
            self.pass_buckets(bucket)?;
        }
        self.coverage.note(crate::breach::format::prefix_of(&hash));
        let sat = p.saturated();
        if count >= sat {
            let mut e = [0u8; OVERFLOW_ENTRY];
            e[..8].copy_from_slice(&self.records.to_le_bytes());
            e[8..].copy_from_slice(&count.to_le_bytes());
            self.overflow.write_all(&e).map_err(BuildError::Write)?;
            self.overflow_entries += 1;
        }
        if self.buf_len + 24 > self.buf.len() {
            self.flush_records()?;
        }
        p.pack(
            &hash,
            count.min(sat),
            &mut self.buf[self.buf_len..self.buf_len + 24],
        );
        self.buf_len += p.record_size;
        self.records += 1;
        self.max_count = self.max_count.max(count);
        self.total_count = self.total_count.saturating_add(count);
        Ok(())
    }

    /// Hands the buffered records to the sink.
    pub(super) fn flush_records(&mut self) -> Result<(), BuildError> {
        if self.buf_len == 0 {
            return Ok(());
        }
        let next = self
            .free
            .try_recv()
            .unwrap_or_else(|_| vec![0u8; RECORD_BUF]);
        let full = std::mem::replace(&mut self.buf, next);
        let sink = self.sink.as_ref().expect("open until the records end");
        if sink.send(SinkMsg::Records(full, self.buf_len)).is_err() {
            // The sink stopped on a write error, which it reports.
            return Err(BuildError::Write(io::Error::other(
                "the index writer stopped",
            )));
        }
        self.buf_len = 0;
        Ok(())
    }

    /// The state after the records pushed so far, once they are all in the file and
    /// durable (while the parameters are not yet chosen, the hashes held). Its lists
    /// hold what was added since the previous checkpoint.
    pub(super) fn checkpoint(&mut self, lines: u64) -> Result<Checkpoint, BuildError> {
        let Some(p) = self.params else {
            let pending = self.pending[self.saved_pending..].to_vec();
            self.saved_pending = self.pending.len();
            return Ok(Checkpoint {
                table_bits: super::NOT_CHOSEN,
                padding: self.padding,
                lines,
                last: self.last,
                tail_sum: Xxh3::new().digest(),
                pending,
                ..Checkpoint::default()
            });
        };
        self.flush_records()?;
        let (tx, rx) = mpsc::sync_channel(1);
        let stopped = || BuildError::Write(io::Error::other("the index writer stopped"));
        let sink = self.sink.as_ref().expect("open until the records end");
        sink.send(SinkMsg::Sync(tx)).map_err(|_| stopped())?;
        let (block_sums, tail_sum) = rx
            .recv()
            .map_err(|_| stopped())?
            .map_err(BuildError::Write)?;
        self.overflow.flush().map_err(BuildError::Write)?;
        let (bases, offsets, overflow_at) = self.saved;
        let mut overflow =
            vec![0u8; ((self.overflow_entries - overflow_at) as usize) * OVERFLOW_ENTRY];
        {
            use std::os::unix::fs::FileExt;
            self.overflow
                .get_ref()
                .read_exact_at(&mut overflow, overflow_at * OVERFLOW_ENTRY as u64)
                .map_err(BuildError::Write)?;
        }
        let cp = Checkpoint {
            table_bits: p.table_bits,
            records: self.records,
            padding: self.padding,
            max_count: self.max_count,
            total_count: self.total_count,
            next_bucket: self.next_bucket,
            lines,
            last: self.last,
            coverage: self.coverage,
            bases: self.bases[bases..].to_vec(),
            offsets: self.offsets[offsets..].to_vec(),
            block_sums,
            tail_sum,
            overflow,
            pending: Vec::new(),
        };
        self.saved = (self.bases.len(), self.offsets.len(), self.overflow_entries);
        Ok(cp)
    }

    /// Takes up the state `cp` (whole, and checked: [`Checkpoint::check`]) of a build of
    /// `kind` hashes whose records are already in the file.
    pub(super) fn restore(&mut self, kind: HashKind, cp: Checkpoint) -> Result<(), BuildError> {
        self.kind = Some(kind);
        self.padding = cp.padding;
        self.last = cp.last;
        if cp.table_bits == super::NOT_CHOSEN {
            self.pending = cp.pending;
            self.saved_pending = self.pending.len();
            return Ok(());
        }
        let params = Params::new(kind, cp.table_bits);
        self.params = Some(params);
        self.records = cp.records;
        self.max_count = cp.max_count;
        self.total_count = cp.total_count;
        self.next_bucket = cp.next_bucket;
        self.coverage = cp.coverage;
        // Moved in and grown to their full length (glibc grows a large allocation by
        // remapping its pages, not by a copy of up to 256 MB beside the state's).
        self.offsets = cp.offsets;
        let full = params.buckets() as usize + 1;
        self.offsets
            .reserve_exact(full.saturating_sub(self.offsets.len()));
        self.bases = cp.bases;
        let full = params.groups() as usize;
        self.bases
            .reserve_exact(full.saturating_sub(self.bases.len()));
        self.overflow
            .write_all(&cp.overflow)
            .map_err(BuildError::Write)?;
        self.overflow_entries = (cp.overflow.len() / OVERFLOW_ENTRY) as u64;
        self.saved = (self.bases.len(), self.offsets.len(), self.overflow_entries);
        Ok(())
    }

    /// Chooses the parameters if the input was short, and hands over the last records.
    pub(super) fn end_records(&mut self) -> Result<(), BuildError> {
        if self.params.is_none() {
            if self.pending.is_empty() {
                return Err(BuildError::Empty);
            }
            self.choose(true)?;
        }
        self.flush_records()
    }

    /// Lets the sink finish.
    pub(super) fn close_sink(&mut self) {
        self.sink = None;
    }

    /// Appends the overflow, table, block checksum and table checksum sections and
    /// writes the header.
    pub(super) fn finish(
        mut self,
        file: &mut File,
        block_sums: Vec<u64>,
        mut lookup_sums: File,
        partial: bool,
    ) -> Result<Header, BuildError> {
        let p = self.params.expect("chosen");
        self.pass_buckets(p.buckets())?;
        // The sentinel bucket 2^b starts the last group when b >= 16.
        debug_assert_eq!(self.bases.len() as u64, p.groups());
        let records_at = (HEADER_SIZE as u64, self.records * p.record_size as u64);
        let mut at = records_at.0 + records_at.1;
        // The records may have been written at offsets (not through the position).
        file.seek(SeekFrom::Start(at)).map_err(BuildError::Write)?;
        let mut out = ChunkWriter::new(&mut *file, at);

        // Overflow: copy the spool.
        let overflow_off = align(at);
        pad(&mut out, at, overflow_off)?;
        let overflow_len = self.overflow_entries * OVERFLOW_ENTRY as u64;
        let mut spool = self
            .overflow
            .into_inner()
            .map_err(|e| BuildError::Write(e.into_error()))?;
        spool.seek(SeekFrom::Start(0)).map_err(BuildError::Write)?;
        let mut overflow_sum = Xxh3::new();
        let mut chunk = vec![0u8; 1 << 20];
        let mut left = overflow_len;
        while left > 0 {
            let n = (chunk.len() as u64).min(left) as usize;
            spool
                .read_exact(&mut chunk[..n])
                .map_err(BuildError::Write)?;
            overflow_sum.update(&chunk[..n]);
            out.write_all(&chunk[..n]).map_err(BuildError::Write)?;
            left -= n as u64;
        }
        at = overflow_off + overflow_len;

        // Table.
        let table_off = align(at);
        pad(&mut out, at, table_off)?;
        let mut table = Vec::with_capacity(p.table_len() as usize);
        for b in &self.bases {
            table.extend_from_slice(&b.to_le_bytes());
        }
        for o in &self.offsets {
            table.extend_from_slice(&o.to_le_bytes());
        }
        debug_assert_eq!(table.len() as u64, p.table_len());
        out.write_all(&table).map_err(BuildError::Write)?;
        at = table_off + table.len() as u64;

        // Block checksums.
        let blocks_off = align(at);
        pad(&mut out, at, blocks_off)?;
        let blocks: Vec<u8> = block_sums.iter().flat_map(|s| s.to_le_bytes()).collect();
        out.write_all(&blocks).map_err(BuildError::Write)?;
        at = blocks_off + blocks.len() as u64;

        // The table's chunk checksums, checked on the lookup path.
        let sums_off = align(at);
        pad(&mut out, at, sums_off)?;
        let table_sums = crate::breach::checked::chunk_sums(&table);
        out.write_all(&table_sums).map_err(BuildError::Write)?;
        at = sums_off + table_sums.len() as u64;

        // The records' lookup block checksums, checked on the lookup path: copied from
        // their spool.
        let lookup_off = align(at);
        pad(&mut out, at, lookup_off)?;
        let lookup_len = records_at
            .1
            .div_ceil(crate::breach::checked::LOOKUP_BLOCK as u64)
            * crate::breach::checked::LOOKUP_SUM as u64;
        lookup_sums
            .seek(SeekFrom::Start(0))
            .map_err(BuildError::Write)?;
        let copied = io::copy(&mut (&mut lookup_sums).take(lookup_len), &mut out)
            .map_err(BuildError::Write)?;
        if copied != lookup_len {
            return Err(BuildError::Write(io::Error::other(
                "the lookup checksums' spool is shorter than the records",
            )));
        }
        let file_len = lookup_off + lookup_len;

        let header = Header {
            params: p,
            records: self.records,
            overflow_entries: self.overflow_entries,
            max_count: self.max_count,
            total_count: self.total_count,
            records_at,
            overflow_at: (overflow_off, overflow_len),
            table_at: (table_off, table.len() as u64),
            blocks_at: (blocks_off, blocks.len() as u64),
            overflow_sum: overflow_sum.digest(),
            table_sum: xxh3_64(&table),
            blocks_sum: xxh3_64(&blocks),
            file_len,
            version: crate::breach::format::VERSION,
            flags: if partial {
                crate::breach::format::FLAG_PARTIAL
            } else {
                0
            },
            sums_at: (sums_off, table_sums.len() as u64),
            lookup_at: (lookup_off, lookup_len),
        };
        out.flush().map_err(BuildError::Write)?;
        drop(out);
        file.seek(SeekFrom::Start(0)).map_err(BuildError::Write)?;
        file.write_all(&header.encode())
            .map_err(BuildError::Write)?;
        file.seek(SeekFrom::End(0)).map_err(BuildError::Write)?;
        Ok(header)
    }
}

/// Writes zeros from offset `at` up to `to`.
fn pad(out: &mut impl Write, at: u64, to: u64) -> Result<(), BuildError> {
    let zeros = vec![0u8; (to - at) as usize];
    out.write_all(&zeros).map_err(BuildError::Write)
}
