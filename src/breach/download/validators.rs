//! The range validators' sidecar, `INDEX.validators`: each range's ETag and
//! Last-Modified as the download received them, so that `breach update` can ask for only
//! the ranges that changed (docs/BREACH-FORMAT.md, "Range validators").
//!
//! Text, one line per range in prefix order: the prefix (5 upper-case hex digits), a tab,
//! the ETag, a tab, the Last-Modified (either empty when the server sent none), LF. The
//! first line is `# veilkit range validators 1 KIND` (`sha1` or `ntlm`); the last `# index IDENTITY`, the
//! identity of the index built (16 hex digits), so that a sidecar of another index, or a
//! cut-off one, is never used.

use super::super::HashKind;
use super::journal::Entry;
use std::io::{self, BufWriter, Write};

/// The first line's text before the kind.
pub const FIRST_LINE: &str = "# veilkit range validators 1";

/// Writes a sidecar as ranges arrive.
pub struct Writer<'a> {
    out: BufWriter<&'a mut (dyn Write + Send)>,
    started: bool,
    kind: HashKind,
}

impl<'a> Writer<'a> {
    /// A sidecar of `kind` onto `out`.
    pub fn new(out: &'a mut (dyn Write + Send), kind: HashKind) -> Writer<'a> {
        Writer {
            out: BufWriter::new(out),
            started: false,
            kind,
        }
    }

    /// The next range's line.
    pub fn push(&mut self, entry: &Entry) -> io::Result<()> {
        if !self.started {
            let kind = match self.kind {
                HashKind::Sha1 => "sha1",
                HashKind::Ntlm => "ntlm",
            };
            writeln!(self.out, "{FIRST_LINE} {kind}")?;
            self.started = true;
        }
        let field = |v: &Option<String>| {
            v.as_deref()
                .filter(|s| !s.contains(['\t', '\n', '\r']))
                .unwrap_or("")
                .to_string()
        };
        let hex = super::body::prefix_hex(entry.prefix);
        writeln!(
            self.out,
            "{}\t{}\t{}",
            std::str::from_utf8(&hex).expect("hex"),
            field(&entry.etag),
            field(&entry.last_modified)
        )
    }

    /// Writes out what is buffered.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The last line, once the index is built.
pub fn write_end(out: &mut dyn Write, identity: u64) -> io::Result<()> {
    writeln!(out, "# index {identity:016x}")
}
