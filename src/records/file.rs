//! The record file API in one place: sealing, opening, reading, updating and verifying
//! (the code lives in the modules named for each).

pub use super::cache::DEFAULT_CACHE_BYTES;
pub use super::header::{Damage, Peek, peek, peek_at};
pub use super::io::{Blob, Source, lock_existing};
pub use super::read::{CopyState, Info, OpenOptions, RecordFile};
pub use super::seal::{
    INDEX_FILL, MakeSlots, REBUILD_FILL, SealSummary, Settings, TINY_PAGES, buckets_for, seal,
    seal_with_slots,
};
pub use super::slots::slots_for;
pub use super::verify::VerifyReport;
