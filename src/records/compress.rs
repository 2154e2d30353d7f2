//! Compressed data pages (record compression 1, Zstandard) and the packer that decides
//! which records go into which data page, compressed or not.
//!
//! A compressed file's data page plaintext is `method (u8) ‖ length (u32) ‖ bytes`,
//! zero-padded: method 1, one Zstandard frame of `length` bytes whose content is the
//! page's records laid out as an uncompressed data page (`u16 count`, records), at most
//! [`raw_max`] bytes; method 0, those bytes stored as they are (a page that zstd would
//! not shrink). A file of record compression 2 compresses every frame with its own
//! dictionary ([`Dict`]), trained at sealing on its first records and kept sealed in
//! dictionary pages.

use super::KeyPlace;
use super::RecordsError;
use super::pages::{encode_record, record_size};
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Stored as it is.
pub const STORED: u8 = 0;
/// One Zstandard frame.
pub const ZSTD: u8 = 1;
/// Bytes before a compressed page's content: method and length.
pub const FRAME_HEAD: usize = 5;
/// The level of pages that updates compress in a file without a dictionary (record
/// compression 1, whose root does not record the level it was sealed at).
pub const DEFAULT_LEVEL: i32 = 3;

/// The most bytes a compressed data page's records may take once decompressed: 16
/// pages' worth, so that a reader's memory per page is bounded whatever the file says.
pub fn raw_max(page_size: usize) -> usize {
    16 * page_size
}

/// The most bytes a file's dictionary may take: a reader refuses a larger one.
pub const MAX_DICT: usize = 1 << 20;
/// The largest dictionary sealing trains.
pub const DICT_SIZE: usize = 64 * 1024;
/// Records' bytes sealing buffers to train a dictionary on (the first records). More
/// trains longer for little: on the people CSV of the benchmarks, 8 MiB (and a 64 KiB
/// dictionary either way) gave files 1.5 % smaller and took twice as long to seal.
pub const DICT_SAMPLES: usize = 2 << 20;
/// Below this many bytes of records, sealing trains no dictionary (record compression
/// 1): it would not pay for its own pages.
pub const DICT_MIN_INPUT: usize = 1 << 20;
/// The level of `--compress zstd`: with a dictionary, level 9 finds matches in it that
/// levels up to 7 miss (the people CSV of the benchmarks: 0.258 of its size at level 9,
/// 0.290 at level 3 and 0.289 at level 7; 0.248 at level 10).
pub const SEAL_LEVEL: i32 = 9;

/// A file's Zstandard dictionary (record compression 2).
#[derive(Debug)]
pub struct Dict {
    /// Tells thread-local compressors made for one dictionary from another's.
    serial: u64,
    bytes: Vec<u8>,
}

impl Dict {
    /// A dictionary of `bytes` (a trained one, or raw content: any bytes are one).
    pub fn new(bytes: Vec<u8>) -> Arc<Dict> {
        static SERIAL: AtomicU64 = AtomicU64::new(1);
        Arc::new(Dict {
            serial: SERIAL.fetch_add(1, Ordering::Relaxed),
            bytes,
        })
    }

    /// Its bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Whether Zstandard loads it (it is then ready for this thread's reads).
    pub fn loads(&self) -> bool {
        with_decompressor(Some(self), |_| ()).is_ok()
    }

    /// A dictionary of at most [`DICT_SIZE`] bytes trained on `samples` (records laid
    /// end to end, `sizes` each), or `None` when they are too few for training.
    pub fn train(samples: &[u8], sizes: &[usize]) -> Option<Arc<Dict>> {
        let size = (samples.len() / 32).clamp(4096, DICT_SIZE);
        let bytes = zstd::dict::from_continuous(samples, sizes, size).ok()?;
        Some(Dict::new(bytes))
    }
}

thread_local! {
    /// A decompressor, with the serial of the dictionary it holds (0: none).
    static DECOMPRESSOR: RefCell<Option<(u64, zstd::bulk::Decompressor<'static>)>> =
        const { RefCell::new(None) };
    /// A compressor, with its level and the serial of its dictionary (0: none).
    static COMPRESSOR: RefCell<Option<(i32, u64, zstd::bulk::Compressor<'static>)>> =
        const { RefCell::new(None) };
}

/// `raw` compressed at `level` (with `dict`) into `out` (cleared first); `false` if it
/// takes more than `room` bytes.
fn compress_into(
    raw: &[u8],
    level: i32,
    dict: Option<&Dict>,
    room: usize,
    out: &mut Vec<u8>,
) -> bool {
    let serial = dict.map_or(0, |d| d.serial);
    COMPRESSOR.with(|c| {
        let mut c = c.borrow_mut();
        if c.as_ref()
            .is_none_or(|(l, s, _)| *l != level || *s != serial)
        {
            let made = match dict {
                Some(d) => zstd::bulk::Compressor::with_dictionary(level, &d.bytes),
                None => zstd::bulk::Compressor::new(level),
            };
            *c = made.ok().map(|z| (level, serial, z));
        }
        let Some((_, _, z)) = c.as_mut() else {
            return false;
        };
        // Straight into `out`, bounded by `room`: fails when the output would not fit.
        out.clear();
        out.resize(room, 0);
        match z.compress_to_buffer(raw, &mut out[..]) {
            Ok(n) => {
                out.truncate(n);
                true
            }
            Err(_) => false,
        }
    })
}

/// `f` of this thread's decompressor for `dict` (made, and the dictionary loaded, when
/// the thread last decompressed with another); an error if Zstandard cannot load it.
fn with_decompressor<T>(
    dict: Option<&Dict>,
    f: impl FnOnce(&mut zstd::bulk::Decompressor<'static>) -> T,
) -> std::io::Result<T> {
    let serial = dict.map_or(0, |d| d.serial);
    DECOMPRESSOR.with(|d| {
        let mut d = d.borrow_mut();
        if d.as_ref().is_none_or(|(s, _)| *s != serial) {
            let made = match dict {
                Some(dict) => zstd::bulk::Decompressor::with_dictionary(&dict.bytes),
                None => zstd::bulk::Decompressor::new(),
            };
            *d = Some((serial, made?));
        }
        let (_, d) = d.as_mut().expect("made above");
        Ok(f(d))
    })
}

/// The framed plaintext of a compressed file's data page holding `raw` (an uncompressed
/// data page's layout), if it fits `cap` bytes: zstd when that is smaller, else stored.
/// With `dict`, frames are compressed with it (record compression 2).
pub fn frame(raw: &[u8], level: i32, dict: Option<&Dict>, cap: usize) -> Option<Vec<u8>> {
    let room = cap.checked_sub(FRAME_HEAD)?;
    let mut z = Vec::new();
    let zipped = compress_into(raw, level, dict, room, &mut z) && z.len() < raw.len();
    let (method, body) = if zipped {
        (ZSTD, &z[..])
    } else if raw.len() <= room {
        (STORED, raw)
    } else {
        return None;
    };
    let mut out = Vec::with_capacity(FRAME_HEAD + body.len());
    out.push(method);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    Some(out)
}

/// The records of a compressed file's data page plaintext (an uncompressed data page's
/// layout), at most [`raw_max`] bytes; frames are decompressed with `dict` when the
/// file has one.
pub fn unframe(
    plain: &[u8],
    page_size: usize,
    dict: Option<&Dict>,
) -> Result<Vec<u8>, RecordsError> {
    const TEXT: &str = "a compressed data page does not parse";
    let bad = || RecordsError::Corrupt(TEXT);
    let (&method, rest) = plain.split_first().ok_or_else(bad)?;
    let len = u32::from_le_bytes(rest.get(..4).ok_or_else(bad)?.try_into().expect("4")) as usize;
    let body = rest.get(4..4 + len).ok_or_else(bad)?;
    match method {
        STORED => Ok(body.to_vec()),
        // The capacity bounds the output: a frame that claims or yields more fails.
        ZSTD => with_decompressor(dict, |d| d.decompress(body, raw_max(page_size)))
            .and_then(|r| r)
            .map_err(|_| bad()),
        m => Err(RecordsError::NewerPart("page compression method", m)),
    }
}

/// A data page ready to be sealed: its record count and plaintext.
#[derive(Debug)]
pub struct Packed {
    /// Records in it.
    pub records: u16,
    /// Its plaintext: an uncompressed data page, or a compressed file's framed page.
    pub plain: Vec<u8>,
}

/// Packs records, in order, into data pages of `cap` bytes of plaintext. Uncompressed,
/// a page is full when the next record does not fit. Compressed, pages hold as many
/// records as fit once compressed: the packer guesses how many raw bytes will fit from
/// the last page's ratio, compresses when the guess is reached, and either takes more
/// (room left), ships the page, or ships the longest run of its records that fits and
/// carries the rest to the next page.
pub struct Packer {
    page_size: usize,
    cap: usize,
    level: Option<i32>,
    dict: Option<Arc<Dict>>,
    raw_max: usize,
    page: Vec<u8>,
    ends: Vec<usize>,
    limit: usize,
    grown: u32,
    /// The last run of records found to fit this page, and its framed bytes.
    fitted: Option<(usize, Vec<u8>)>,
    spare: Vec<Vec<u8>>,
}

impl Packer {
    /// A packer for pages of `page_size` bytes, compressing at `level` if given (with
    /// `dict`, if given).
    pub fn new(page_size: usize, level: Option<i32>, dict: Option<Arc<Dict>>) -> Packer {
        let cap = super::pages::data_capacity(page_size);
        let raw_max = if level.is_some() {
            raw_max(page_size)
        } else {
            cap
        };
        let mut p = Packer {
            page_size,
            cap,
            level,
            dict,
            raw_max,
            page: Vec::with_capacity(raw_max.min(cap * 4)),
            ends: Vec::new(),
            // A first guess of 2:1 for text; then each page's own ratio.
            limit: if level.is_some() {
                (cap * 2).min(raw_max)
            } else {
                cap
            },
            grown: 0,
            fitted: None,
            spare: Vec::new(),
        };
        p.page.extend_from_slice(&[0, 0]);
        p
    }

    /// A new packer of the same page size, level and dictionary (for another thread).
    pub fn sibling(&self) -> Packer {
        Packer::new(self.page_size, self.level, self.dict.clone())
    }

    /// Whether pages are compressed.
    pub fn compresses(&self) -> bool {
        self.level.is_some()
    }

    /// The largest record (as [`record_size`] counts it) a page takes: every record
    /// fits a page of its own, stored uncompressed if need be.
    pub fn max_record(&self) -> usize {
        self.cap - 2 - if self.level.is_some() { FRAME_HEAD } else { 0 }
    }

    /// Records held, not yet shipped.
    pub fn held(&self) -> usize {
        self.ends.len()
    }

    /// Buffers to reuse for pages.
    pub fn give_back(&mut self, bufs: Vec<Vec<u8>>) {
        self.spare.extend(bufs);
    }

    /// Adds a record (at most [`Packer::max_record`] bytes); pages it completes go to
    /// `out`, each holding the oldest records not yet shipped.
    pub fn push(&mut self, raw: &[u8], key: &KeyPlace, out: &mut Vec<Packed>) {
        let size = record_size(raw, key);
        debug_assert!(size <= self.max_record());
        while self.page.len() + size > self.limit || self.ends.len() == usize::from(u16::MAX) {
            if self.level.is_none() || self.ends.len() == usize::from(u16::MAX) {
                self.ship_all(out);
                continue;
            }
            if self.ends.is_empty() {
                // A new page with a low guess: a record always starts a page.
                self.limit = self.limit.max(2 + size);
                break;
            }
            self.fit(Some(size), out);
        }
        // Lines in the file's dictionary format (record compression 2) only.
        encode_record(&mut self.page, raw, key, self.dict.is_some());
        self.ends.push(self.page.len());
    }

    /// Ships what is held, if anything (or an empty page when `even_empty`).
    pub fn finish(&mut self, even_empty: bool, out: &mut Vec<Packed>) {
        while !self.ends.is_empty() {
            match self.level {
                None => self.ship_all(out),
                Some(_) => {
                    // What is held may not fit one page once compressed.
                    let before = self.ends.len();
                    self.fit(None, out);
                    debug_assert!(self.ends.len() < before);
                }
            }
        }
        if even_empty && out.is_empty() {
            match self.level {
                None => self.ship_all(out),
                // A compressed file's data pages are all framed, the empty one too.
                Some(level) => {
                    self.count_to(0);
                    let plain = frame(&self.page, level, self.dict.as_deref(), self.cap)
                        .expect("two bytes fit a page");
                    out.push(Packed { records: 0, plain });
                }
            }
        }
    }

    fn count_to(&mut self, n: usize) {
        self.page[..2].copy_from_slice(&(n as u16).to_le_bytes());
    }

    fn fresh(&mut self) -> Vec<u8> {
        let mut next = self.spare.pop().unwrap_or_default();
        next.clear();
        next.extend_from_slice(&[0, 0]);
        next
    }

    /// Ships every record held as one uncompressed page.
    fn ship_all(&mut self, out: &mut Vec<Packed>) {
        let n = self.ends.len();
        self.count_to(n);
        let next = self.fresh();
        let plain = std::mem::replace(&mut self.page, next);
        self.ends.clear();
        out.push(Packed {
            records: n as u16,
            plain,
        });
    }

    /// Compressed: the page has reached its guessed size before a record of `next`
    /// bytes (`None`: the last records). Takes more if there is room, else ships what
    /// fits.
    fn fit(&mut self, next: Option<usize>, out: &mut Vec<Packed>) {
        let level = self.level.expect("compressed");
        let n = self.ends.len();
        self.count_to(n);
        if let Some(framed) = frame(&self.page, level, self.dict.as_deref(), self.cap) {
            let room_left = framed.len() + self.cap / 32 < self.cap;
            if let Some(next) = next
                && room_left
                && self.grown < 4
            {
                // Room left: guess again from this page's own ratio.
                let guess = self.page.len() * (self.cap - self.cap / 64) / framed.len().max(1);
                let limit = guess.min(self.raw_max);
                if self.page.len() + next <= limit {
                    self.grown += 1;
                    self.limit = limit;
                    self.fitted = Some((n, framed));
                    return;
                }
            }
            self.ship_prefix(n, framed, out);
            return;
        }
        // Too much. After a guess that grew the page, the run that fit before it.
        if let Some((k, framed)) = self.fitted.take() {
            self.ship_prefix(k, framed, out);
            return;
        }
        // Else the longest run of records that fits (one always does).
        let (mut lo, mut hi) = (1usize, n - 1);
        let mut best: Option<(usize, Vec<u8>)> = None;
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            let end = self.ends[mid - 1];
            let mut head = self.page[..end].to_vec();
            head[..2].copy_from_slice(&(mid as u16).to_le_bytes());
            match frame(&head, level, self.dict.as_deref(), self.cap) {
                Some(f) => {
                    best = Some((mid, f));
                    lo = mid + 1;
                }
                None => hi = mid - 1,
            }
        }
        let (k, framed) = best.unwrap_or_else(|| {
            let end = self.ends[0];
            let mut head = self.page[..end].to_vec();
            head[..2].copy_from_slice(&1u16.to_le_bytes());
            (
                1,
                frame(&head, level, self.dict.as_deref(), self.cap)
                    .expect("one record fits stored"),
            )
        });
        self.ship_prefix(k, framed, out);
    }

    /// Ships the first `k` records held as the framed page `framed`; the rest start the
    /// next page.
    fn ship_prefix(&mut self, k: usize, framed: Vec<u8>, out: &mut Vec<Packed>) {
        let raw_len = self.ends[k - 1];
        let mut next = self.fresh();
        next.extend_from_slice(&self.page[raw_len..]);
        self.page = next;
        self.ends.drain(..k);
        for e in &mut self.ends {
            *e = *e - raw_len + 2;
        }
        // The next page's guess: this one's ratio, a little under.
        let ratio_limit = raw_len * (self.cap - self.cap / 32) / framed.len().max(1);
        self.limit = ratio_limit.clamp(self.cap / 2, self.raw_max);
        self.grown = 0;
        self.fitted = None;
        out.push(Packed {
            records: k as u16,
            plain: framed,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::pages::parse_data;
    use proptest::prelude::*;

    fn records_of(
        pages: &[Packed],
        page_size: usize,
        compressed: bool,
        dict: Option<&Dict>,
    ) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for p in pages {
            assert!(p.plain.len() <= super::super::pages::data_capacity(page_size));
            let raw = if compressed {
                unframe(&p.plain, page_size, dict).unwrap()
            } else {
                p.plain.clone()
            };
            let recs = parse_data(&raw).unwrap();
            assert_eq!(recs.len(), usize::from(p.records));
            out.extend(recs.iter().map(|r| raw[r.raw.clone()].to_vec()));
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Every record comes back, in order, from pages that each fit; compressed
        /// pages of compressible text hold more than a page's worth. With a dictionary
        /// (raw content), they read back with it.
        #[test]
        fn packing_keeps_every_record_in_order(
            lens in proptest::collection::vec(1usize..700, 1..600),
            seed in any::<u64>(),
            level in prop_oneof![Just(None), Just(Some(1)), Just(Some(3)), Just(Some(9))],
            with_dict in any::<bool>(),
            page_size in prop_oneof![Just(512usize), Just(4096)],
        ) {
            let dict = (with_dict && level.is_some())
                .then(|| Dict::new(b"alpha beta gamma delta @example.com, note \"".repeat(20)));
            let mut x = seed | 1;
            let words = ["alpha", "beta", "gamma", "delta", "@example.com", ",", "\"", "note "];
            let recs: Vec<Vec<u8>> = lens.iter().map(|&n| {
                let mut r = Vec::new();
                while r.len() < n {
                    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                    if x % 5 == 0 { r.push((x >> 8) as u8); } else {
                        r.extend_from_slice(words[(x % 8) as usize].as_bytes());
                    }
                }
                r.truncate(n);
                r
            }).collect();
            let mut p = Packer::new(page_size, level, dict.clone());
            let mut out = Vec::new();
            let mut kept = Vec::new();
            for r in &recs {
                if record_size(r, &KeyPlace::Own(Vec::new())) > p.max_record() {
                    continue;
                }
                p.push(r, &KeyPlace::Own(Vec::new()), &mut out);
                kept.push(r.clone());
            }
            p.finish(true, &mut out);
            prop_assert_eq!(&records_of(&out, page_size, level.is_some(), dict.as_deref()), &kept);
            // Compressed pages hold more: fewer pages than stored, for enough text.
            let mut plain = Packer::new(page_size, None, None);
            let mut stored = Vec::new();
            for r in &kept {
                plain.push(r, &KeyPlace::Own(Vec::new()), &mut stored);
            }
            plain.finish(true, &mut stored);
            if level.is_some() && stored.len() >= 8 {
                prop_assert!(out.len() * 10 < stored.len() * 8, "{} vs {}", out.len(), stored.len());
            }
        }
    }

    /// No records: the one page shipped reads back as an empty data page, compressed or
    /// not (a compressed file's empty page was once shipped unframed, and a sealed empty
    /// input did not open).
    #[test]
    fn an_empty_input_ships_one_readable_page() {
        for level in [None, Some(1), Some(3)] {
            for page_size in [512, 4096] {
                let mut p = Packer::new(page_size, level, None);
                let mut out = Vec::new();
                p.finish(true, &mut out);
                assert_eq!(out.len(), 1);
                assert_eq!(out[0].records, 0);
                assert!(records_of(&out, page_size, level.is_some(), None).is_empty());
            }
        }
    }

    #[test]
    fn hostile_frames_are_refused_within_bounds() {
        // A frame claiming more than raw_max, a bad method, a short body.
        let big = zstd::bulk::compress(&vec![0u8; raw_max(512) + 1], 3).unwrap();
        let mut p = vec![ZSTD];
        p.extend_from_slice(&(big.len() as u32).to_le_bytes());
        p.extend_from_slice(&big);
        assert!(unframe(&p, 512, None).is_err());
        assert!(matches!(
            unframe(&[7, 0, 0, 0, 0], 512, None),
            Err(RecordsError::NewerPart(_, 7))
        ));
        assert!(unframe(&[ZSTD, 9, 0, 0, 0, 1], 512, None).is_err());
        assert!(unframe(&[], 512, None).is_err());
        let ok = frame(b"\x01\x00\x02abxy", 3, None, 100).unwrap();
        assert_eq!(unframe(&ok, 512, None).unwrap(), b"\x01\x00\x02abxy");
    }
}
