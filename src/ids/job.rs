//! What a stream of ids is asked to do and what it reports: the options, errors and
//! summary that [`stream`](super::stream) and its CSV reader ([`csv`](super::csv)) share.

use super::InputError;
use super::text::Format;
use std::io;

/// What to do with each line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Decimal ids to encoded ids.
    Encode,
    /// Encoded ids to decimal ids.
    Decode,
    /// Encoded ids (under any key of the ring) to encoded ids under the current key.
    Reencode,
}

/// How lines are read and written.
#[derive(Debug, Clone)]
pub struct Options {
    /// The operation.
    pub op: Op,
    /// The text form of encoded ids.
    pub format: Format,
    /// A type prefix written before encoded ids, and required and stripped on input.
    pub prefix: Vec<u8>,
    /// Transform only this field (counted from 1), leaving the rest of the line as it is.
    pub field: Option<usize>,
    /// With `field`, the field that holds the stored nonce (read on encode, written on
    /// decode and with `random_nonce`).
    pub nonce_field: Option<usize>,
    /// The field separator for `field`.
    pub delimiter: u8,
    /// With `field`: read the input as CSV (RFC 4180: quoted fields, line ends inside
    /// quotes) instead of splitting each line at every delimiter, as `cut` does.
    pub csv: bool,
    /// Copy the first line (or CSV record) to the output unchanged.
    pub header: bool,
    /// Draw a fresh random nonce per id (stored-nonce form, encode only).
    pub random_nonce: bool,
    /// Report bad lines and go on, writing an empty line in their place.
    pub keep_going: bool,
    /// The key that decodes forms that cannot tell keys apart (default: current).
    pub key_id: Option<u32>,
}

/// A bad input line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {error}")]
pub struct LineError {
    /// The line number, counted from 1.
    pub line: u64,
    /// What is wrong.
    pub error: InputError,
}

/// Why a stream stopped.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// Reading the input failed.
    #[error("cannot read input")]
    Read(#[source] io::Error),
    /// Writing the output failed.
    #[error("cannot write output")]
    Write(#[source] io::Error),
    /// A bad line, without `keep_going`.
    #[error("{0}")]
    Line(LineError),
    /// The random generator failed.
    #[error("cannot draw random nonces: {0}")]
    Random(String),
    /// A line longer than the cap (not skipped by `keep_going`: it is not held).
    #[error(transparent)]
    TooLong(crate::streams::LineTooLong),
    /// Input that is not valid CSV (with `csv`), naming its line.
    #[error("{0}")]
    Csv(String),
}

/// What a stream did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Lines read.
    pub lines: u64,
    /// Bad lines (reported through the callback with `keep_going`).
    pub errors: u64,
}
