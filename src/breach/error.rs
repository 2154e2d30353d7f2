//! Why an index cannot be used: the error of every reader of the breach index files.

use super::format::HeaderError;
use std::io;

/// Why an index cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Opening or mapping failed.
    #[error("cannot read")]
    Io(#[from] io::Error),
    /// The header is wrong.
    #[error(transparent)]
    Header(#[from] HeaderError),
    /// A pipe, a device or a socket where an index file was expected.
    #[error(
        "not a regular file (a pipe or a device): an index is read through a memory map; give the path of the index file"
    )]
    NotFile,
    /// A structural problem found while reading.
    #[error("corrupted index: {0}")]
    Corrupt(String),
    /// Reading the file into memory (`--in-memory`, a filter) would take more memory than
    /// the system has available: refused before anything is allocated, where the kernel
    /// would otherwise kill the process (or another) once the pages were touched.
    #[error(
        "reading it into memory needs {}, and {} of memory is available",
        gib(*needs),
        gib(*available)
    )]
    Memory {
        /// Bytes of the file.
        needs: u64,
        /// The system's available memory (`MemAvailable`).
        available: u64,
    },
}

/// Bytes in GiB, to a tenth.
fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}

/// The error for a bucket whose table entries are out of order or past the end (exact
/// and compact indexes).
#[cold]
pub(crate) fn bad_bounds(bucket: u64) -> IndexError {
    IndexError::Corrupt(format!("bucket {bucket} has bad bounds"))
}
