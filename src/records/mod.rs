//! Encrypted record files (`docs/RECORDS-FORMAT.md`): a record file sealed in AEAD pages
//! under a wrapped data key, fetched by key or number without decrypting the rest,
//! updated copy-on-write; and field-level encryption of CSV/TSV streams with lookup
//! tokens.

pub mod fields;
pub mod file;
pub mod format;
pub mod input;

/// Where a record's key is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyPlace {
    /// A range of the record's raw bytes.
    InRaw(std::ops::Range<usize>),
    /// Bytes of its own (a line number, an unescaped field).
    Own(Vec<u8>),
}

/// One record of input: its exact bytes (line end included), its key, its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRecord<'a> {
    /// The record as it was in the input.
    pub raw: std::borrow::Cow<'a, [u8]>,
    /// Its key.
    pub key: KeyPlace,
    /// The input line it starts on, from 1.
    pub line: u64,
}

impl InputRecord<'_> {
    /// The key's bytes.
    pub fn key_bytes(&self) -> &[u8] {
        match &self.key {
            KeyPlace::InRaw(r) => &self.raw[r.clone()],
            KeyPlace::Own(k) => k,
        }
    }
}

/// What went wrong with a record file. Never carries plaintext.
#[derive(Debug, thiserror::Error)]
pub enum RecordsError {
    /// None of the keys or passphrases given opens a key slot.
    #[error("wrong key or passphrase: none of those given opens this file")]
    WrongKey,
    /// Not a record file.
    #[error("not a veilkit record file")]
    NotRecords,
    /// A newer format.
    #[error(
        "record file format version {0} is newer than this veilkit understands; upgrade veilkit"
    )]
    Newer(u32),
    /// Both header copies are damaged, or the root does not authenticate.
    #[error("corrupted or tampered header")]
    CorruptHeader,
    /// A page fails authentication.
    #[error("{kind} page {logical} fails authentication: the file is damaged or was tampered with")]
    PageAuth {
        /// Its kind.
        kind: &'static str,
        /// Its logical number.
        logical: u64,
    },
    /// The file is shorter than its header says.
    #[error("truncated: pages the file refers to are missing")]
    Truncated,
    /// An inconsistency inside authenticated data (a bug or an unknown writer).
    #[error("inconsistent file: {0}")]
    Corrupt(&'static str),
    /// A key appears twice in the input.
    #[error("line {second}: duplicate key: the same key is on line {first}")]
    DuplicateKey {
        /// The first line.
        first: u64,
        /// The second line.
        second: u64,
    },
    /// A record that does not fit a page.
    #[error("line {line}: record too large for the page size (at most {max} bytes)")]
    RecordTooLarge {
        /// Its line.
        line: u64,
        /// The largest size.
        max: usize,
    },
    /// A bad input line.
    #[error("line {line}: {problem}")]
    Input {
        /// Its line.
        line: u64,
        /// What is wrong.
        problem: String,
    },
    /// CSV/TSV/JSON input without a key field.
    #[error("this input format needs --key-field")]
    NeedKeyField,
    /// A key field name without a header row.
    #[error("a key field given by name needs a header row")]
    NeedHeaderForName,
    /// Argon2id parameters beyond the caps (or invalid).
    #[error(
        "passphrase slot asks for Argon2id m={m} KiB, t={t}, p={p}: beyond the limits veilkit accepts"
    )]
    ArgonLimits {
        /// Memory.
        m: u32,
        /// Passes.
        t: u32,
        /// Lanes.
        p: u32,
    },
    /// A page size the format does not allow.
    #[error("page size {0} is not allowed: use a power of two from 512 to 1048576")]
    PageSize(u32),
    /// A file needs 1 to 16 key slots.
    #[error("a record file needs 1 to 16 key slots, not {0}")]
    SlotCount(usize),
    /// The directories no longer fit the header.
    #[error(
        "too many pages for one record file at this page size: seal it with a larger --page-size"
    )]
    TooManyPages,
    /// Something too large for the format.
    #[error("too large for the format")]
    TooLarge,
    /// The random generator failed.
    #[error("cannot draw random bytes: {0}")]
    Random(String),
    /// Reading failed.
    #[error("cannot read")]
    Read(#[source] std::io::Error),
    /// The file cannot be opened for writing (an update needs it).
    #[error("cannot open for writing")]
    OpenWrite(#[source] std::io::Error),
    /// Writing failed.
    #[error("cannot write")]
    Write(#[source] std::io::Error),
}

#[cfg(test)]
mod tests;
