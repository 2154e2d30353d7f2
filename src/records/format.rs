//! The record file format's parts in one place (`docs/RECORDS-FORMAT.md`; the code
//! lives in the modules named for each).

pub use super::codec::{Cursor, PageRef, get_varint, put_varint};
pub use super::crypto::FileKeys;
pub use super::header::{
    COPY_SIZE, COPY_SIZE_V1, Header, HeaderProblem, MAGIC, VERSION, valid_page_size,
};
pub use super::pages::{IndexLayout, Kind, PAGE_OVERHEAD};
pub use super::root::{Compression, INLINE_REFS, InputFormat, PageList, Root};
pub use super::seal::DEFAULT_PAGE_SIZE;
pub use super::slots::{ARGON_CAP, ARGON_DEFAULT, MAX_SLOTS, Slot, Unlock};
