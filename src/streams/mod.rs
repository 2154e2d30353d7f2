//! Shared I/O helpers: line reading with line numbers and a cap on line length, reads
//! of small files with a cap, atomic output files, and a writer that hands large files
//! to the kernel in 2 MiB-aligned pieces, and an appender past the page cache.
//!
//! Nothing here knows about terminals or the command line; the CLI layer decides where
//! streams come from and how errors are shown.

#[cfg(unix)]
mod arrived;
mod atomic;
mod chunk;
mod direct;
mod handoff;
mod lines;
#[cfg(test)]
mod pieces;
mod readahead;
mod threaded;

#[cfg(unix)]
pub use arrived::*;
pub use atomic::*;
pub use chunk::*;
pub use direct::*;
pub use handoff::*;
pub use lines::*;
#[cfg(test)]
pub(crate) use pieces::Pieces;
pub use readahead::*;
pub use threaded::*;
