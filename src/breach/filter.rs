//! The filter tiers: binary fuse filters (the `xorf` crate) over the hashes' first 64
//! bits, built in shards by leading bits so that memory stays small at any size
//! (`docs/BREACH-FORMAT.md`, "Filters").
//!
//! `filter` keeps 16-bit fingerprints (about 2.25 bytes per hash, false positives
//! 2^-16 ≈ 0.0015%), `filter-small` 8-bit ones (about 1.13 bytes per hash, 2^-8 ≈ 0.39%).
//! Shards hold about 2^20 keys: large enough for the filter's best size factor, small
//! enough that a build needs some 30 MB per thread.

use super::bytes::Bytes;
use super::error::IndexError;
use super::format::{HEADER_SIZE, Wide, align};
use super::index::Index;
use super::tier_header::{Tier, TierBuildError, TierHeader, pad_to};
use crate::progress::Progress;
use crate::streams::ChunkWriter;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use xorf::{BinaryFuse8, BinaryFuse8Ref, BinaryFuse16, BinaryFuse16Ref, DmaSerializable};
use xorf::{Filter as _, FilterRef};
use xxhash_rust::xxh3::Xxh3;

/// Keys per shard, as a power of two.
pub const SHARD_TARGET_BITS: u32 = 20;
/// The most shard bits.
pub const MAX_SHARD_BITS: u32 = 24;
/// Bytes of a shard directory entry.
pub const DIR_ENTRY: usize = 40;
/// Bytes of a fuse filter descriptor (seed, segment length, mask, segment count length).
const DESCRIPTOR: usize = 20;

/// Shard bits for `n` hashes.
pub fn shard_bits(n: u64) -> u32 {
    let mut s = 0;
    while s < MAX_SHARD_BITS && (n >> s) > (1 << SHARD_TARGET_BITS) {
        s += 1;
    }
    s
}

#[derive(Clone, Copy)]
struct Shard {
    descriptor: [u8; DESCRIPTOR],
    /// The descriptor's fields: seed, segment length, its mask, segment count length.
    seed: u64,
    segment_length: u32,
    segment_length_mask: u32,
    segment_count_length: u32,
    /// Byte offset in the file.
    at: usize,
    /// Bytes of fingerprints (0: an empty shard).
    len: usize,
}

/// An open filter.
pub struct Filter {
    bytes: Bytes,
    header: TierHeader,
    shards: Vec<Shard>,
    /// The fingerprints, verified in lookup blocks as lookups read them (version 3;
    /// taken as verified in older files, which have no such checksums).
    body: super::checked::Chunks,
    /// Bytes of a fingerprint (2, or 1 for filter-small).
    width: usize,
}

impl Filter {
    /// Opens and maps a filter, checking its header and every shard's descriptor.
    pub fn open(path: &Path) -> Result<Filter, IndexError> {
        Filter::open_file(&File::open(path)?)
    }

    /// As [`Filter::open`], for a file already open.
    pub fn open_file(file: &File) -> Result<Filter, IndexError> {
        let (bytes, len) = Bytes::open(file, false)?;
        Filter::from_bytes(bytes, len)
    }

    /// Reads a filter into memory (for `--filter`: answers never touch the disk).
    pub fn open_in_memory(path: &Path) -> Result<Filter, IndexError> {
        let (bytes, len) = Bytes::open(&File::open(path)?, true)?;
        let f = Filter::from_bytes(bytes, len)?;
        // Read whole: its fingerprints are verified now, in one pass (a few
        // milliseconds a hundred million hashes), so that lookups test one word instead
        // of three bits (`--filter` puts it in front of every lookup).
        f.body.verify_all(f.bytes.get())?;
        Ok(f)
    }

    /// A filter held in memory (tests, fuzzing).
    pub fn from_slice(bytes: &[u8]) -> Result<Filter, IndexError> {
        Filter::from_bytes(Bytes::owned(bytes)?, bytes.len() as u64)
    }

    fn from_bytes(bytes: Bytes, len: u64) -> Result<Filter, IndexError> {
        let header = TierHeader::decode(bytes.get(), len)?;
        let corrupt = |m: String| IndexError::Corrupt(m);
        if cfg!(target_endian = "big") {
            return Err(corrupt(
                "filters are little-endian; this machine is not".into(),
            ));
        }
        if !matches!(header.tier, Tier::Filter | Tier::FilterSmall) {
            return Err(corrupt("not a filter".into()));
        }
        if header.bits > MAX_SHARD_BITS {
            return Err(corrupt("shard bits out of range".into()));
        }
        let count = 1usize << header.bits;
        if header.table_at.1 != (count * DIR_ENTRY) as u64 {
            return Err(corrupt("shard directory length".into()));
        }
        // Every lookup depends on the directory: checked whole now (a few bytes per
        // million hashes).
        super::checked::Chunks::whole(bytes.get(), header.table_at, header.table_sum)
            .map_err(|_| corrupt("shard directory checksum mismatch".into()))?;
        let width = fingerprint_bytes(header.tier);
        let (body_lo, body_hi) = (header.body_at.0, header.body_at.0 + header.body_at.1);
        let b = bytes.get();
        let mut shards = Vec::with_capacity(count);
        for i in 0..count {
            let at = header.table_at.0 as usize + i * DIR_ENTRY;
            let e = &b[at..at + DIR_ENTRY];
            let u32_at =
                |o: usize| u64::from(u32::from_le_bytes(e[o..o + 4].try_into().expect("4")));
            let u64_at = |o: usize| u64::from_le_bytes(e[o..o + 8].try_into().expect("8"));
            let (seg_len, mask, seg_count_len) = (u32_at(8), u32_at(12), u32_at(16));
            let (off, fps) = (u64_at(24), u64_at(32));
            let bad = |what: &str| corrupt(format!("shard {i}: {what}"));
            let shard = if fps == 0 {
                Shard {
                    descriptor: [0; DESCRIPTOR],
                    seed: 0,
                    segment_length: 0,
                    segment_length_mask: 0,
                    segment_count_length: 0,
                    at: 0,
                    len: 0,
                }
            } else {
                if !seg_len.is_power_of_two() || mask != seg_len - 1 {
                    return Err(bad("bad segment length"));
                }
                // Probes reach at most segment_count_length + 2 segments, computed in
                // 32 bits.
                let reach = seg_count_len + 2 * seg_len;
                if reach > fps || reach > u64::from(u32::MAX) {
                    return Err(bad("fingerprints do not cover the segments"));
                }
                let len = fps.checked_mul(width as u64).ok_or_else(|| bad("length"))?;
                let end = off.checked_add(len).ok_or_else(|| bad("length"))?;
                if off < body_lo || end > body_hi || off % 8 != 0 {
                    return Err(bad("fingerprints outside the body"));
                }
                let mut descriptor = [0u8; DESCRIPTOR];
                descriptor.copy_from_slice(&e[..DESCRIPTOR]);
                Shard {
                    descriptor,
                    seed: u64_at(0),
                    segment_length: seg_len as u32,
                    segment_length_mask: mask as u32,
                    segment_count_length: seg_count_len as u32,
                    at: off as usize,
                    len: len as usize,
                }
            };
            shards.push(shard);
        }
        Ok(Filter {
            body: header.body_blocks("fingerprints")?,
            width,
            bytes,
            header,
            shards,
        })
    }

    /// The header.
    pub fn header(&self) -> &TierHeader {
        &self.header
    }

    /// The chance that an absent hash is reported present.
    pub fn false_positive_rate(&self) -> f64 {
        match self.header.tier {
            Tier::FilterSmall => 2f64.powi(-8),
            _ => 2f64.powi(-16),
        }
    }

    /// The shard of `hash` and its key.
    #[inline(always)]
    fn shard_of(&self, hash: &Wide) -> (&Shard, u64) {
        let key = hash.0[0];
        let shard = if self.header.bits == 0 {
            0
        } else {
            (key >> (64 - self.header.bits)) as usize
        };
        (&self.shards[shard], key)
    }

    /// Whether `hash` is probably present (never false for a hash that is). The binary
    /// fuse filter's membership test as docs/BREACH-FORMAT.md gives it ("Filters"), on
    /// three fingerprints whose lookup blocks are verified before the answer is given.
    /// Always inlined: a call returning the `Result` through memory measured some 20%
    /// slower in a loop of lookups (as for [`Index::lookup`]).
    #[inline(always)]
    pub fn contains(&self, hash: &Wide) -> Result<bool, IndexError> {
        match self.width {
            1 => self.contains_w::<1>(hash),
            _ => self.contains_w::<2>(hash),
        }
    }

    /// [`Filter::contains`] for fingerprints of `W` bytes.
    #[inline(always)]
    fn contains_w<const W: usize>(&self, hash: &Wide) -> Result<bool, IndexError> {
        let (s, key) = self.shard_of(hash);
        if s.len == 0 {
            return Ok(false);
        }
        let h = mix(key, s.seed);
        let h0 = ((u128::from(h) * u128::from(s.segment_count_length)) >> 64) as u32;
        let h1 = h0.wrapping_add(s.segment_length) ^ ((h >> 18) as u32 & s.segment_length_mask);
        let h2 =
            h0.wrapping_add(s.segment_length.wrapping_mul(2)) ^ (h as u32 & s.segment_length_mask);
        let (i0, i1, i2) = (h0 as usize * W, h1 as usize * W, h2 as usize * W);
        // Every probe is inside the shard's fingerprints: `h0` is below the segment
        // count length, and `h1` and `h2` in the one or two segments after it (the XOR
        // changes bits below the segment length only), whose reach opening checked is
        // at most the fingerprints' number.
        let b = self.bytes.get();
        let fps = &b[s.at..s.at + s.len];
        let fp = |i: usize| {
            let mut v = [0u8; 2];
            v[..W].copy_from_slice(&fps[i..i + W]);
            u64::from(u16::from_le_bytes(v))
        };
        // The fingerprints' loads first, so that they are in flight while their blocks
        // are looked up (the answer is given only once those are verified).
        let f = (h ^ (h >> 32)) ^ fp(i0) ^ fp(i1) ^ fp(i2);
        let at = s.at - self.header.body_at.0 as usize;
        self.body.check3(b, [at + i0, at + i1, at + i2])?;
        Ok(f & ((1u64 << (8 * W)) - 1) == 0)
    }

    /// What the `xorf` crate's own test answers (which the builder writes for): kept for
    /// the tests that hold [`Filter::contains`] to it.
    #[doc(hidden)]
    pub fn contains_by_xorf(&self, hash: &Wide) -> bool {
        let (s, key) = self.shard_of(hash);
        if s.len == 0 {
            return false;
        }
        let fps = &self.bytes.get()[s.at..s.at + s.len];
        // Alignment and lengths were checked at open (offsets are multiples of 8 in an
        // 8-byte aligned buffer).
        match self.header.tier {
            Tier::FilterSmall => BinaryFuse8Ref::from_dma(&s.descriptor, fps).contains(&key),
            _ => BinaryFuse16Ref::from_dma(&s.descriptor, fps).contains(&key),
        }
    }

    /// `out[i]` = 1 if `hashes[i]` is probably present, else 0.
    pub fn contains_many(&self, hashes: &[Wide], out: &mut [u64]) -> Result<(), IndexError> {
        if self.body.worth_a_pass() {
            // A dense batch: the rest of the fingerprints verified in one pass.
            let b = self.bytes.get();
            self.body
                .verify_pass(b, &|at, len| self.bytes.populate(at, len));
        }
        for (h, o) in hashes.iter().zip(out.iter_mut()) {
            *o = u64::from(self.contains(h)?);
        }
        Ok(())
    }

    /// Checks the three section checksums (the shard structure was checked at open);
    /// returns the number of keys.
    pub fn verify(&self) -> Result<u64, IndexError> {
        self.header.verify_sections(self.bytes.get())?;
        // Everything was checked: lookups from now on test one word.
        self.body.mark_all();
        Ok(self.header.entries)
    }
}

/// The filter's hash of a key (`mix` in docs/BREACH-FORMAT.md): murmur64 of key + seed.
#[inline(always)]
fn mix(key: u64, seed: u64) -> u64 {
    let mut x = key.wrapping_add(seed);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

fn fingerprint_bytes(tier: Tier) -> usize {
    match tier {
        Tier::FilterSmall => 1,
        _ => 2,
    }
}

/// One built shard: its descriptor and fingerprint bytes.
pub(super) struct Built {
    shard: u64,
    keys: u64,
    pub(super) descriptor: [u8; DESCRIPTOR],
    pub(super) fingerprints: Vec<u8>,
}

pub(super) fn build_shard(shard: u64, keys: &[u64], small: bool) -> Result<Built, TierBuildError> {
    let fail = |why| TierBuildError::Filter { shard, why };
    let mut descriptor = [0u8; DESCRIPTOR];
    let fingerprints = if keys.is_empty() {
        Vec::new()
    } else if small {
        let f = BinaryFuse8::try_from(keys).map_err(fail)?;
        f.dma_copy_descriptor_to(&mut descriptor);
        f.dma_fingerprints().to_vec()
    } else {
        let f = BinaryFuse16::try_from(keys).map_err(fail)?;
        f.dma_copy_descriptor_to(&mut descriptor);
        // The file is little-endian; `dma_fingerprints` is the machine's order.
        f.fingerprints
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect()
    };
    Ok(Built {
        shard,
        keys: keys.len() as u64,
        descriptor,
        fingerprints,
    })
}

/// Builds a filter (`small`: 8-bit fingerprints) of `index` into `out` (from offset 0),
/// shards on `threads` threads (at least 1). The caller syncs.
pub fn build(
    index: &Index,
    small: bool,
    threads: usize,
    out: &mut File,
    progress: &dyn Progress,
) -> Result<TierHeader, TierBuildError> {
    let src = index.header();
    let bits = shard_bits(src.records);
    let shard_count = 1u64 << bits;
    let w = TierBuildError::Write;
    out.set_len(0).map_err(w)?;
    out.seek(SeekFrom::Start(0)).map_err(w)?;
    progress.set_total(src.records);
    let threads = threads.max(1);

    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, Vec<u64>)>(threads);
    // Shared by the workers alone: when they all stop, sending a job fails.
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (done_tx, done_rx) = mpsc::sync_channel::<Result<Built, TierBuildError>>(threads * 2);
    let (free_tx, free_rx) = mpsc::channel::<Vec<u64>>();
    let result = std::thread::scope(|scope| -> Result<(Written, u64), TierBuildError> {
        for _ in 0..threads {
            let (job_rx, done_tx, free_tx) = (job_rx.clone(), done_tx.clone(), free_tx.clone());
            scope.spawn(move || {
                loop {
                    let job = job_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok((shard, keys))) = job else { break };
                    let built = build_shard(shard, &keys, small);
                    let _ = free_tx.send(keys);
                    if done_tx.send(built).is_err() {
                        break;
                    }
                }
            });
        }
        drop(job_rx);
        drop(done_tx);
        drop(free_tx);
        let out_ref = &mut *out;
        let writer = scope.spawn(move || write_shards(out_ref, done_rx, shard_count, small));

        // Gather each shard's keys (the index is sorted, so shards come in order).
        let shift = 64 - bits;
        let mut current = 0u64;
        let mut keys: Vec<u64> = Vec::with_capacity(1 << SHARD_TARGET_BITS);
        let mut dups = 0u64;
        let send = |shard: u64, keys: &mut Vec<u64>| -> bool {
            let fresh = free_rx.try_recv().unwrap_or_default();
            let full = std::mem::replace(keys, fresh);
            keys.clear();
            job_tx.send((shard, full)).is_ok()
        };
        let mut read_result: Result<(), TierBuildError> = Ok(());
        'read: for (n, item) in index.iter().enumerate() {
            let hash = match item {
                Ok((h, _)) => h,
                Err(e) => {
                    read_result = Err(e.into());
                    break;
                }
            };
            let key = hash.0[0];
            let shard = if bits == 0 { 0 } else { key >> shift };
            while shard > current {
                if !send(current, &mut keys) {
                    break 'read;
                }
                current += 1;
            }
            if keys.last() == Some(&key) {
                dups += 1;
            } else {
                keys.push(key);
            }
            if n % 65536 == 65535 {
                progress.advance(65536);
            }
        }
        if read_result.is_ok() {
            while current < shard_count {
                if !send(current, &mut keys) {
                    break;
                }
                current += 1;
            }
        }
        drop(job_tx);
        progress.advance(src.records % 65536);
        let written = writer.join().expect("the filter writer does not panic");
        read_result?;
        Ok((written?, dups))
    });
    let ((body_at, body_sum, dir, keys_total, lookup_sums), dups) = result?;
    let dir_at = (align(body_at.0 + body_at.1), dir.len() as u64);
    let lookup_at = (align(dir_at.0 + dir_at.1), lookup_sums.len() as u64);
    let header = TierHeader {
        tier: if small {
            Tier::FilterSmall
        } else {
            Tier::Filter
        },
        kind: src.params.kind,
        bits,
        group_bits: 0,
        hashes: src.records,
        entries: keys_total,
        collisions: dups,
        max_count: src.max_count,
        total_count: src.total_count,
        source_id: src.identity(),
        body_at,
        overflow_at: (dir_at.0, 0),
        table_at: dir_at,
        body_sum,
        overflow_sum: xxhash_rust::xxh3::xxh3_64(&[]),
        table_sum: xxhash_rust::xxh3::xxh3_64(&dir),
        file_len: lookup_at.0 + lookup_at.1,
        version: super::tier_header::FILTER_VERSION,
        flags: src.flags,
        sums_at: (0, 0),
        lookup_at,
    };
    let mut at = body_at.0 + body_at.1;
    let mut file = BufWriter::new(&mut *out);
    file.seek(SeekFrom::Start(at)).map_err(w)?;
    pad_to(&mut file, &mut at, dir_at.0).map_err(w)?;
    file.write_all(&dir).map_err(w)?;
    at += dir.len() as u64;
    // The fingerprints' lookup block checksums, checked on the lookup path.
    pad_to(&mut file, &mut at, lookup_at.0).map_err(w)?;
    file.write_all(&lookup_sums).map_err(w)?;
    file.seek(SeekFrom::Start(0)).map_err(w)?;
    file.write_all(&header.encode()).map_err(w)?;
    file.flush().map_err(w)?;
    Ok(header)
}

type Written = ((u64, u64), u64, Vec<u8>, u64, Vec<u8>);

/// Writes built shards in shard order; returns the body's place and checksum, the shard
/// directory and the number of keys.
fn write_shards(
    out: &mut File,
    done: mpsc::Receiver<Result<Built, TierBuildError>>,
    shard_count: u64,
    small: bool,
) -> Result<Written, TierBuildError> {
    let w = TierBuildError::Write;
    // 2 MiB-aligned writes: the built file stays in the page cache in huge folios.
    let mut file = ChunkWriter::new(out, 0);
    file.write_all(&[0u8; HEADER_SIZE]).map_err(w)?;
    let mut at = HEADER_SIZE as u64;
    let mut sum = Xxh3::new();
    let mut lookup = super::checked::BlockSummer::new(Vec::new());
    let mut dir = vec![0u8; shard_count as usize * DIR_ENTRY];
    let mut waiting: std::collections::BTreeMap<u64, Built> = Default::default();
    let mut next = 0u64;
    let mut keys = 0u64;
    let width = if small { 1 } else { 2 };
    for built in done.iter() {
        let built = built?;
        waiting.insert(built.shard, built);
        while let Some(b) = waiting.remove(&next) {
            let aligned = at.div_ceil(8) * 8;
            if aligned > at {
                let pad = [0u8; 8];
                let n = (aligned - at) as usize;
                sum.update(&pad[..n]);
                lookup.add(&pad[..n]).map_err(w)?;
                file.write_all(&pad[..n]).map_err(w)?;
                at = aligned;
            }
            let e = &mut dir[next as usize * DIR_ENTRY..][..DIR_ENTRY];
            if !b.fingerprints.is_empty() {
                e[..DESCRIPTOR].copy_from_slice(&b.descriptor);
                e[20..24].copy_from_slice(&(b.keys.min(u64::from(u32::MAX)) as u32).to_le_bytes());
                e[24..32].copy_from_slice(&at.to_le_bytes());
                e[32..40].copy_from_slice(&(b.fingerprints.len() as u64 / width).to_le_bytes());
            }
            sum.update(&b.fingerprints);
            lookup.add(&b.fingerprints).map_err(w)?;
            file.write_all(&b.fingerprints).map_err(w)?;
            at += b.fingerprints.len() as u64;
            keys += b.keys;
            next += 1;
        }
    }
    if next != shard_count {
        // A worker stopped early: the error is the reader's or a worker's.
        return Err(TierBuildError::Write(std::io::Error::other(
            "the filter build stopped early",
        )));
    }
    file.flush().map_err(w)?;
    Ok((
        (HEADER_SIZE as u64, at - HEADER_SIZE as u64),
        sum.digest(),
        dir,
        keys,
        lookup.finish().map_err(w)?,
    ))
}
