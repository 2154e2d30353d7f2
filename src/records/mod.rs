//! Encrypted record files (`docs/RECORDS-FORMAT.md`): a record file sealed in AEAD pages
//! under a wrapped data key, fetched by key or number without decrypting the rest,
//! updated copy-on-write; and field-level encryption of CSV/TSV streams with lookup
//! tokens.

pub mod aead;
pub mod age;
mod arena;
pub mod batch;
mod cache;
pub mod codec;
pub mod compress;
pub mod crypto;
mod dict_pages;
mod dirs;
mod dupkeys;
pub mod fields;
pub mod file;
pub mod format;
pub mod header;
mod hmac256;
pub mod input;
mod io;
mod json_key;
mod keymap;
pub mod pages;
pub mod pin;
mod read;
pub mod remote;
pub mod root;
mod seal;
mod seal_pack;
pub mod slots;
mod tree;
mod update;
mod verify;

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

/// The error for a record of no bytes (the input readers never make one: a line holds at
/// least its line end; a record file cannot hold one).
pub(crate) fn empty_record(line: u64) -> RecordsError {
    RecordsError::Input {
        line,
        problem: "an empty record (no bytes, not even a line end)".into(),
    }
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
    #[error("wrong key, passphrase or identity: none of those given opens this file")]
    WrongKey,
    /// Not a record file.
    #[error("not a veilkit record file")]
    NotRecords,
    /// A newer format.
    #[error(
        "record file format version {0} is newer than this veilkit understands; upgrade veilkit"
    )]
    Newer(u32),
    /// A part of the format (a key slot kind, a compression method) that a newer
    /// veilkit wrote.
    #[error("this record file uses {0} {1}, which is newer than this veilkit understands")]
    NewerPart(&'static str, u8),
    /// A recipient that is a low-order point: nothing could be wrapped to it.
    #[error("the age recipient is not a usable public key (a low-order point)")]
    BadRecipient,
    /// A commit that needs the data key from a recipient-only secret.
    #[error(
        "an age recipient can seal a new file but cannot open this one: appending needs the data key"
    )]
    RecipientOnly,
    /// Neither header copy passes its checks (both damaged, or tampered with).
    #[error("corrupted or tampered header: neither header copy passes its checks")]
    CorruptHeader,
    /// A format-1 file whose newer header copy may be the damaged one: its intact copy
    /// may hold the commit before the last, so it is not used unless asked.
    #[error(
        "header copy {damaged} is damaged{}; copy {kept} holds sequence {sequence}, which may be the commit before the last (a format-1 file cannot tell)",
        claimed_text(*.claimed)
    )]
    DamagedCopy {
        /// The damaged copy.
        damaged: char,
        /// The sequence its bytes claim, when readable.
        claimed: Option<u64>,
        /// The intact copy.
        kept: char,
        /// Its sequence.
        sequence: u64,
    },
    /// One header copy is damaged; the other holds the current commit (verify).
    #[error(
        "header copy {damaged} is damaged{}; copy {kept} holds the current commit (sequence {sequence}), and the next update rewrites both",
        claimed_text(*.claimed)
    )]
    CopyDamaged {
        /// The damaged copy.
        damaged: char,
        /// The sequence its bytes claim, when readable.
        claimed: Option<u64>,
        /// The intact copy.
        kept: char,
        /// Its sequence.
        sequence: u64,
    },
    /// The header copy has no room for the slots and root.
    #[error(
        "the key slots and root no longer fit the header: remove a slot, or rewrite the file (rekey --rotate-data-key)"
    )]
    HeaderFull,
    /// Key slots that would leave a header copy too little room for the root.
    #[error(
        "the key slots take {used} bytes, and a header copy has room for {room} (a keyring slot takes 75, a passphrase slot 91, an age recipient slot 159: at most 13 recipients)"
    )]
    SlotsTooLarge {
        /// Bytes the slots take.
        used: usize,
        /// Bytes a header copy keeps for slots.
        room: usize,
    },
    /// A key field name too long to record.
    #[error("the key field name is longer than 255 bytes")]
    KeyFieldName,
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
    /// Reading a remote file failed.
    #[error(transparent)]
    Remote(crate::remote::RemoteError),
    /// An update of a file at a URL.
    #[error("a record file at a URL is read only: updates are made to a local copy")]
    RemoteReadOnly,
}

#[cfg(test)]
mod dict_tests;
#[cfg(test)]
mod input_lines_tests;
#[cfg(test)]
mod input_tests;
#[cfg(test)]
mod keymap_tests;
#[cfg(test)]
mod tests;

fn claimed_text(claimed: Option<u64>) -> String {
    match claimed {
        Some(s) => format!(" (it claims sequence {s})"),
        None => String::new(),
    }
}
