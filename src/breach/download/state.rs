//! The download's saved state: checkpoints of the index being written, so that a rerun
//! after an interruption continues the same index file instead of building it again
//! from a journal of every range (docs/BREACH-FORMAT.md, "Download state").
//!
//! Layout: a header as the journal's (magic `VKDLS001`), then one entry per checkpoint:
//! its body's length (u32), the body, and the XXH3-64 of the length and the body. The
//! body: the range the next checkpoint starts at, the build's counters, then what its
//! lists gained since the previous checkpoint (table bases and offsets, block checksums,
//! overflow entries) and the validators of the ranges since then. Integers are
//! little-endian. An entry cut off, failing its checksum or not following the one
//! before it ends the state there (a write the process did not finish).

use super::super::HashKind;
use super::super::build::Checkpoint;
use super::super::coverage::Coverage;
use super::super::format::Wide;
use super::fetch::Validators;
use super::journal::{JournalError, MAX_VALIDATOR, SourceId, check_header, kept, read_full};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

const MAGIC: &[u8; 8] = b"VKDLS001";

/// The fixed part of an entry's body.
const FIXED: usize = 140;

/// The saved state, open for appending checkpoints.
pub struct State {
    path: PathBuf,
    file: File,
    /// The range the last checkpoint ends before.
    at: u32,
}

/// The state of an interrupted download: ranges `0..next` are in the index.
pub struct Saved {
    /// The first range not in the index.
    pub next: u32,
    /// The build's whole state.
    pub build: Checkpoint,
}

/// Opens the state at `path` of a download of `kind` from `source` (the caller holds
/// the journal's lock), made empty when there is none, and reads back its checkpoints,
/// giving each range's validators to `each` in order. The last good checkpoint, if any.
pub fn open(
    path: &Path,
    kind: HashKind,
    source: &SourceId,
    each: &mut dyn FnMut(u32, Validators) -> io::Result<()>,
) -> Result<(State, Option<Saved>), JournalError> {
    let io_err = |e| JournalError::Io(path.to_path_buf(), e);
    let mut file = super::journal::private(
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
    )
    .open(path)
    .map_err(io_err)?;
    if !file.metadata().map_err(io_err)?.is_file() {
        return Err(io_err(io::Error::other("not a regular file")));
    }
    let header_len = check_header(&mut file, path, MAGIC, kind, source)?;
    let len = file.metadata().map_err(io_err)?.len();
    let mut good_end = header_len;
    let mut saved: Option<Saved> = None;
    let mut reader = io::BufReader::with_capacity(1 << 20, &file);
    reader.seek(SeekFrom::Start(header_len)).map_err(io_err)?;
    loop {
        let at = saved.as_ref().map_or(0, |s| s.next);
        let Some((body, n)) = read_body(&mut reader, len - good_end).map_err(io_err)? else {
            break;
        };
        let Some((next, cp, validators)) = decode(&body, at) else {
            break;
        };
        for (i, v) in validators.into_iter().enumerate() {
            each(at + i as u32, v).map_err(io_err)?;
        }
        match saved.as_mut() {
            Some(s) => {
                s.build.extend(cp);
                s.next = next;
            }
            None => saved = Some(Saved { next, build: cp }),
        }
        good_end += n;
    }
    drop(reader);
    file.set_len(good_end).map_err(io_err)?;
    file.seek(SeekFrom::Start(good_end)).map_err(io_err)?;
    let at = saved.as_ref().map_or(0, |s| s.next);
    Ok((
        State {
            path: path.to_path_buf(),
            file,
            at,
        },
        saved,
    ))
}

/// Reads an entry's body (at most `left` bytes of entry): the body and the entry's
/// length, or `None` at the end or where the bytes are not a good entry.
fn read_body(r: &mut impl Read, left: u64) -> io::Result<Option<(Vec<u8>, u64)>> {
    let mut len = [0u8; 4];
    if !read_full(r, &mut len)? {
        return Ok(None);
    }
    let body_len = u32::from_le_bytes(len) as u64;
    if body_len < FIXED as u64 || body_len + 12 > left {
        return Ok(None);
    }
    let mut body = vec![0u8; body_len as usize + 8];
    if !read_full(r, &mut body)? {
        return Ok(None);
    }
    let sum = body.split_off(body_len as usize);
    let mut h = Xxh3::new();
    h.update(&len);
    h.update(&body);
    if h.digest().to_le_bytes()[..] != sum[..] {
        return Ok(None);
    }
    Ok(Some((body, body_len + 12)))
}

const NONE: u32 = u32::MAX;

fn opt(v: Option<u32>) -> u32 {
    v.unwrap_or(NONE)
}

fn unopt(v: u32) -> Option<u32> {
    (v != NONE).then_some(v)
}

/// An entry's body for the checkpoint before range `next`, after the one before range
/// `at`, with the validators of ranges `at..next`.
fn encode(next: u32, cp: &Checkpoint, validators: &[Validators]) -> Vec<u8> {
    let mut b = Vec::with_capacity(
        FIXED + cp.bases.len() * 8 + cp.offsets.len() * 4 + cp.block_sums.len() * 8,
    );
    let (held, last_range, gap) = cp.coverage.parts();
    b.extend_from_slice(&next.to_le_bytes());
    b.extend_from_slice(&cp.table_bits.to_le_bytes());
    for v in [
        cp.records,
        cp.padding,
        cp.max_count,
        cp.total_count,
        cp.next_bucket,
        cp.lines,
        cp.tail_sum,
    ] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    let (hash, line) = cp.last.unwrap_or((Wide([0; 3]), 0));
    b.extend_from_slice(&[u8::from(cp.last.is_some()), 0, 0, 0, 0, 0, 0, 0]);
    for w in hash.0 {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b.extend_from_slice(&line.to_le_bytes());
    for v in [
        held,
        opt(last_range),
        opt(gap),
        cp.bases.len() as u32,
        cp.offsets.len() as u32,
        cp.block_sums.len() as u32,
        (cp.overflow.len() / 16) as u32,
        validators.len() as u32,
        cp.pending.len() as u32,
    ] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    debug_assert_eq!(b.len(), FIXED);
    cp.bases
        .iter()
        .for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
    cp.offsets
        .iter()
        .for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
    cp.block_sums
        .iter()
        .for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
    b.extend_from_slice(&cp.overflow);
    for (hash, count) in &cp.pending {
        for w in hash.0 {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b.extend_from_slice(&count.to_le_bytes());
    }
    for v in validators {
        let (etag, lm) = (kept(&v.etag), kept(&v.last_modified));
        b.extend_from_slice(&(etag.len() as u16).to_le_bytes());
        b.extend_from_slice(&(lm.len() as u16).to_le_bytes());
        b.extend_from_slice(etag);
        b.extend_from_slice(lm);
    }
    b
}

/// Reads little-endian integers off the front of a byte slice.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (a, b) = self.0.split_at_checked(n)?;
        self.0 = b;
        Some(a)
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// The checkpoint an entry's body holds, if it follows the checkpoint before range `at`:
/// the range it ends before, its state, and the validators of the ranges since `at`.
fn decode(body: &[u8], at: u32) -> Option<(u32, Checkpoint, Vec<Validators>)> {
    let mut c = Cursor(body);
    let next = c.u32()?;
    if next <= at || next > super::super::format::PREFIXES {
        return None;
    }
    let table_bits = c.u32()?;
    let mut v = [0u64; 7];
    for x in &mut v {
        *x = c.u64()?;
    }
    let [
        records,
        padding,
        max_count,
        total_count,
        next_bucket,
        lines,
        tail_sum,
    ] = v;
    let has_last = c.take(8)?[0];
    let hash = Wide([c.u64()?, c.u64()?, c.u64()?]);
    let line = c.u64()?;
    let (held, last_range, gap) = (c.u32()?, unopt(c.u32()?), unopt(c.u32()?));
    let (n_bases, n_offsets, n_sums, n_overflow, n_ranges, n_pending) =
        (c.u32()?, c.u32()?, c.u32()?, c.u32()?, c.u32()?, c.u32()?);
    if n_ranges != next - at || has_last > 1 {
        return None;
    }
    // Every length is checked against the bytes there before anything is allocated.
    let bases = c.take(n_bases as usize * 8)?;
    let offsets = c.take(n_offsets as usize * 4)?;
    let sums = c.take(n_sums as usize * 8)?;
    let overflow = c.take(n_overflow as usize * 16)?.to_vec();
    let pending = c
        .take(n_pending as usize * 32)?
        .chunks_exact(32)
        .map(|e| {
            let w = |i: usize| u64::from_le_bytes(e[i * 8..i * 8 + 8].try_into().expect("8"));
            (Wide([w(0), w(1), w(2)]), w(3))
        })
        .collect();
    let u64s = |b: &[u8]| -> Vec<u64> {
        b.chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8")))
            .collect()
    };
    let mut validators = Vec::new();
    for _ in 0..n_ranges {
        let (e, l) = (usize::from(c.u16()?), usize::from(c.u16()?));
        if e > MAX_VALIDATOR || l > MAX_VALIDATOR {
            return None;
        }
        let text = |b: &[u8]| (!b.is_empty()).then(|| String::from_utf8_lossy(b).into_owned());
        validators.push(Validators {
            etag: text(c.take(e)?),
            last_modified: text(c.take(l)?),
        });
    }
    if !c.0.is_empty() {
        return None;
    }
    let cp = Checkpoint {
        table_bits,
        records,
        padding,
        max_count,
        total_count,
        next_bucket,
        lines,
        last: (has_last == 1).then_some((hash, line)),
        coverage: Coverage::from_parts(held, last_range, gap),
        bases: u64s(bases),
        offsets: offsets
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes(w.try_into().expect("4")))
            .collect(),
        block_sums: u64s(sums),
        tail_sum,
        overflow,
        pending,
    };
    Some((next, cp, validators))
}

impl State {
    /// Appends the checkpoint before range `next` (`cp`'s lists: what they gained since
    /// the previous one), with the validators of the ranges since the previous one, and
    /// waits for the disk.
    pub fn append(
        &mut self,
        next: u32,
        cp: &Checkpoint,
        validators: &[Validators],
    ) -> Result<(), JournalError> {
        assert_eq!(
            validators.len() as u64,
            u64::from(next - self.at),
            "the validators of every range since the last checkpoint"
        );
        let body = encode(next, cp, validators);
        let len = u32::try_from(body.len()).map_err(|_| {
            JournalError::Io(
                self.path.clone(),
                io::Error::other("a checkpoint over 4 GiB"),
            )
        })?;
        let mut h = Xxh3::new();
        h.update(&len.to_le_bytes());
        h.update(&body);
        let io_err = |e| JournalError::Io(self.path.clone(), e);
        let mut entry = Vec::with_capacity(body.len() + 12);
        entry.extend_from_slice(&len.to_le_bytes());
        entry.extend_from_slice(&body);
        entry.extend_from_slice(&h.digest().to_le_bytes());
        self.file.write_all(&entry).map_err(io_err)?;
        self.file.sync_data().map_err(io_err)?;
        self.at = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint(i: u32) -> Checkpoint {
        Checkpoint {
            table_bits: 12,
            records: u64::from(i) * 1000,
            padding: u64::from(i),
            max_count: 1 << 40,
            total_count: u64::from(i) * 77,
            next_bucket: u64::from(i) * 3,
            lines: u64::from(i) * 1001,
            last: (i % 2 == 1).then_some((Wide([u64::from(i), 2, 3 << 32]), u64::from(i) * 1001)),
            coverage: Coverage::from_parts(i, Some(i * 5), (i > 2).then_some(1)),
            bases: vec![u64::from(i); (i % 2) as usize],
            offsets: vec![i; 3],
            block_sums: vec![u64::from(i) << 7; (i % 3) as usize],
            tail_sum: u64::from(i) * 31,
            overflow: vec![i as u8; 16 * (i % 2) as usize],
            pending: (0..i % 3)
                .map(|j| (Wide([u64::from(j), 5, 6 << 40]), 9))
                .collect(),
        }
    }

    fn validators(from: u32, to: u32) -> Vec<Validators> {
        (from..to)
            .map(|p| Validators {
                etag: Some(format!("\"{p}\"")),
                last_modified: (p % 3 == 0).then(|| "Mon, 01 Jan 2024 00:00:00 GMT".into()),
            })
            .collect()
    }

    /// Reads the state back: the ranges' validators given and the saved state.
    fn read(path: &Path) -> (Vec<(u32, Validators)>, Option<Saved>, State) {
        let mut given = Vec::new();
        let (state, saved) = open(path, HashKind::Sha1, &"src".into(), &mut |p, v| {
            given.push((p, v));
            Ok(())
        })
        .unwrap();
        (given, saved, state)
    }

    /// Writes checkpoints `1..=n` (before ranges 10, 20, ...) to a new state; its bytes.
    fn write(path: &Path, n: u32) -> Vec<u8> {
        let (given, saved, mut state) = read(path);
        assert!(given.is_empty() && saved.is_none());
        for i in 1..=n {
            state
                .append(i * 10, &checkpoint(i), &validators((i - 1) * 10, i * 10))
                .unwrap();
        }
        drop(state);
        std::fs::read(path).unwrap()
    }

    fn joined(k: u32) -> Checkpoint {
        let mut whole = checkpoint(1);
        for i in 2..=k {
            whole.extend(checkpoint(i));
        }
        whole
    }

    #[test]
    fn checkpoints_come_back_joined_with_every_ranges_validators() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        write(&path, 4);
        let (given, saved, _) = read(&path);
        let saved = saved.unwrap();
        assert_eq!(saved.next, 40);
        assert_eq!(saved.build, joined(4));
        assert_eq!(saved.build.offsets.len(), 12);
        assert_eq!(saved.build.tail_sum, 4 * 31);
        let want: Vec<(u32, Validators)> = (0..40).zip(validators(0, 40)).collect();
        assert_eq!(given, want);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Damage anywhere (a flipped bit, a changed, inserted or removed byte, a cut):
        /// the state is refused (its header) or gives back its first checkpoints, joined,
        /// with the validators of their ranges only; appending the rest makes the state
        /// that was written.
        #[test]
        fn damage_anywhere_gives_back_the_first_checkpoints(
            n in 1u32..5,
            edit in 0u8..5,
            at in proptest::prelude::any::<proptest::sample::Index>(),
            byte in proptest::prelude::any::<u8>(),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("s");
            let full = write(&path, n);
            let mut b = full.clone();
            let i = at.index(b.len());
            super::super::journal::damage(&mut b, edit, i, byte);
            std::fs::write(&path, &b).unwrap();
            let mut given = Vec::new();
            let Ok((mut state, saved)) = open(&path, HashKind::Sha1, &"src".into(), &mut |p, v| {
                given.push((p, v));
                Ok(())
            }) else {
                proptest::prop_assert!(i < super::super::journal::header(MAGIC, HashKind::Sha1, "src").len());
                return Ok(());
            };
            let k = saved.as_ref().map_or(0, |s| s.next / 10);
            proptest::prop_assert!(k <= n);
            if let Some(s) = &saved {
                proptest::prop_assert_eq!(&s.build, &joined(k));
            }
            let want: Vec<(u32, Validators)> = (0..k * 10).zip(validators(0, k * 10)).collect();
            proptest::prop_assert_eq!(given, want);
            for i in k + 1..=n {
                state.append(i * 10, &checkpoint(i), &validators((i - 1) * 10, i * 10)).unwrap();
            }
            drop(state);
            proptest::prop_assert_eq!(std::fs::read(&path).unwrap(), full);
        }
    }

    #[test]
    fn a_state_of_another_download_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        write(&path, 1);
        let e = open(&path, HashKind::Ntlm, &"src".into(), &mut |_, _| Ok(()))
            .err()
            .unwrap();
        assert!(e.to_string().contains("of SHA-1 hashes"), "{e}");
        let e = open(&path, HashKind::Sha1, &"other".into(), &mut |_, _| Ok(()))
            .err()
            .unwrap();
        assert!(e.to_string().contains("another source"), "{e}");
    }
}
