//! The bytes of an index file: mapped from the file, or held in anonymous memory.

use super::error::IndexError;
use super::format::{HEADER_SIZE, HeaderError};
use std::fs::File;
use std::io::{self, Read};

/// The bytes of an index file, mapped from the file or held in anonymous memory (one
/// representation for both, so a lookup reads the bytes' address without a branch).
pub(crate) struct Bytes(memmap2::Mmap);

impl Bytes {
    #[inline]
    pub(crate) fn get(&self) -> &[u8] {
        &self.0
    }

    /// The bytes of an index file, mapped or (`in_memory`) read, and its length; refuses
    /// a file shorter than a header.
    pub(crate) fn open(file: &File, in_memory: bool) -> Result<(Bytes, u64), IndexError> {
        let meta = file.metadata()?;
        if !meta.is_file() {
            // A pipe (`-i <(cat INDEX)`) has no length and cannot be mapped: said so, not
            // "too short (0 bytes)".
            return Err(IndexError::NotFile);
        }
        let len = meta.len();
        if len < HEADER_SIZE as u64 {
            return Err(HeaderError::Short(len).into());
        }
        let bytes = if in_memory {
            Bytes::read(file, len)?
        } else {
            Bytes::map(file)?
        };
        Ok((bytes, len))
    }

    /// Maps the pages of `len` bytes from `offset` in bulk, ahead of a pass that reads
    /// them in order (the map is advised for random access, so each page would otherwise
    /// be mapped on its own first read). Best effort.
    pub(crate) fn populate(&self, offset: usize, len: usize) {
        #[cfg(target_os = "linux")]
        {
            let start = offset / 4096 * 4096;
            let end = (offset + len).min(self.0.len());
            if end > start {
                let _ = self
                    .0
                    .advise_range(memmap2::Advice::PopulateRead, start, end - start);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (offset, len);
    }

    /// Maps `file`, advised for random access.
    pub(crate) fn map(file: &File) -> Result<Bytes, IndexError> {
        // SAFETY: the map is read-only and veilkit never writes an index in place (builds
        // go to a temporary file renamed over the old one, which leaves existing maps on
        // the old file). Another program truncating or rewriting the file while it is
        // mapped is unsupported: it can make lookups fail, as it would with read(2).
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(file)? };
        // Random access, no read-around: a cold lookup reads pages, not megabytes.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        Ok(Bytes(map))
    }

    /// Reads `file` into anonymous memory, in huge pages where the system allows; refuses
    /// a file larger than the memory available ([`fits_in_memory`]).
    fn read(mut file: &File, len: u64) -> Result<Bytes, IndexError> {
        #[cfg(target_os = "linux")]
        if let Ok(meminfo) = std::fs::read_to_string("/proc/meminfo") {
            fits_in_memory(len, &meminfo)?;
        }
        let len = usize::try_from(len).map_err(|_| IndexError::Corrupt("too large".into()))?;
        Ok(Bytes::fill(len, |buf| file.read_exact(buf))?)
    }

    /// Holds a copy of `bytes` (tests, fuzzing).
    pub(crate) fn owned(bytes: &[u8]) -> Result<Bytes, IndexError> {
        Ok(Bytes::fill(bytes.len(), |buf| {
            buf.copy_from_slice(bytes);
            Ok(())
        })?)
    }

    /// Anonymous memory of `len` bytes, written by `write`, then made read-only.
    fn fill(len: usize, write: impl FnOnce(&mut [u8]) -> io::Result<()>) -> io::Result<Bytes> {
        let mut map = memmap2::MmapMut::map_anon(len)?;
        // Random lookups miss the TLB far less in 2 MiB pages; advised before the
        // pages are first touched. Best effort.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        write(&mut map[..])?;
        Ok(Bytes(map.make_read_only()?))
    }
}

/// Whether `len` bytes fit in the memory the system has available (`MemAvailable` of
/// `meminfo`, the text of Linux's `/proc/meminfo`): memory is overcommitted, so a larger
/// allocation would succeed and the process be killed as its pages were filled (a
/// serving process on a reload, with the indexes it serves). Without the field, nothing
/// is refused.
pub(crate) fn fits_in_memory(len: u64, meminfo: &str) -> Result<(), IndexError> {
    let available = meminfo.lines().find_map(|l| {
        let kib = l.strip_prefix("MemAvailable:")?.trim().strip_suffix("kB")?;
        kib.trim().parse::<u64>().ok()?.checked_mul(1024)
    });
    match available {
        Some(available) if len > available => Err(IndexError::Memory {
            needs: len,
            available,
        }),
        _ => Ok(()),
    }
}
