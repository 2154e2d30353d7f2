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

/// Reads a sidecar written for the index of `kind` whose identity is `identity`: each
/// range's validators, by prefix. An error says why the sidecar cannot be used (another
/// index, cut off, malformed); the caller then asks every range unconditionally.
pub fn read(
    input: &mut dyn io::BufRead,
    kind: HashKind,
    identity: u64,
) -> Result<Vec<super::fetch::Validators>, String> {
    let ranges = super::super::format::PREFIXES as usize;
    let mut out = Vec::with_capacity(ranges);
    let mut lines = crate::streams::Lines::with_cap(input, 4096);
    let mut end = None;
    while let Some((n, line)) = lines.next_line().map_err(|e| e.to_string())? {
        let line = std::str::from_utf8(line).map_err(|_| format!("line {n}: not UTF-8"))?;
        if n == 1 {
            let want = format!(
                "{FIRST_LINE} {}",
                if kind == HashKind::Sha1 {
                    "sha1"
                } else {
                    "ntlm"
                }
            );
            if line != want {
                return Err(format!("line 1: not {want:?}"));
            }
            continue;
        }
        if let Some(id) = line.strip_prefix("# index ") {
            end = Some(id.to_string());
            break;
        }
        let mut f = line.split('\t');
        let (Some(p), Some(e), Some(m), None) = (f.next(), f.next(), f.next(), f.next()) else {
            return Err(format!("line {n}: not PREFIX<TAB>ETAG<TAB>LAST-MODIFIED"));
        };
        if out.len() >= ranges || p.as_bytes() != super::body::prefix_hex(out.len() as u32) {
            return Err(format!("line {n}: range {p} out of order"));
        }
        let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
        out.push(super::fetch::Validators {
            etag: some(e),
            last_modified: some(m),
        });
    }
    match end {
        None => Err("cut off (no final `# index` line)".into()),
        Some(id) if id != format!("{identity:016x}") => {
            Err(format!("written for another index ({id})"))
        }
        Some(_) if out.len() != ranges => Err(format!("{} ranges, not {ranges}", out.len())),
        Some(_) => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sidecar_reads_back_only_for_its_own_index_and_whole() {
        let mut text = Vec::new();
        {
            let mut sink: &mut (dyn Write + Send) = &mut text;
            let mut w = Writer::new(&mut sink, HashKind::Ntlm);
            for prefix in 0..super::super::super::format::PREFIXES {
                let entry = Entry {
                    prefix,
                    etag: (prefix % 3 == 0).then(|| format!("\"t{prefix}\"")),
                    last_modified: (prefix == 7).then(|| "Mon, 01 Jan 2024 00:00:00 GMT".into()),
                    // A tab would break the line: not kept.
                    ..Entry::default()
                };
                let entry = if prefix == 9 {
                    Entry {
                        etag: Some("a\tb".into()),
                        ..entry
                    }
                } else {
                    entry
                };
                w.push(&entry).unwrap();
            }
            w.flush().unwrap();
        }
        write_end(&mut text, 0xabc).unwrap();
        let v = read(&mut &text[..], HashKind::Ntlm, 0xabc).unwrap();
        assert_eq!(v.len(), 1 << 20);
        assert_eq!(v[3].etag.as_deref(), Some("\"t3\""));
        assert_eq!(v[4].etag, None);
        assert_eq!(
            v[7].last_modified.as_deref(),
            Some("Mon, 01 Jan 2024 00:00:00 GMT")
        );
        assert_eq!(v[9].etag, None);
        let e = read(&mut &text[..], HashKind::Ntlm, 0xabd).unwrap_err();
        assert!(e.contains("another index"), "{e}");
        let e = read(&mut &text[..], HashKind::Sha1, 0xabc).unwrap_err();
        assert!(e.starts_with("line 1"), "{e}");
        let cut = &text[..text.len() - 30];
        assert!(read(&mut &cut[..], HashKind::Ntlm, 0xabc).is_err());
        // Lines out of place, malformed, missing or extra: refused, naming why.
        let lines: Vec<&str> = std::str::from_utf8(&text).unwrap().lines().collect();
        let edited = |edit: &dyn Fn(&mut Vec<String>)| {
            let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
            edit(&mut l);
            let joined = l.join("\n") + "\n";
            read(&mut joined.as_bytes(), HashKind::Ntlm, 0xabc)
        };
        assert!(edited(&|_| {}).is_ok());
        type Edit<'e> = &'e dyn Fn(&mut Vec<String>);
        let cases: [(Edit, &str); 6] = [
            (&|l| l.swap(2, 3), "line 3: range 00002 out of order"),
            (&|l| drop(l.remove(6)), "line 7: range 00006 out of order"),
            (
                &|l| l[5] = "00004\t\"t\"".into(),
                "line 6: not PREFIX<TAB>ETAG<TAB>LAST-MODIFIED",
            ),
            (&|l| l[5].push_str("\tmore"), "line 6: not PREFIX"),
            (
                &|l| {
                    let at = l.len() - 1;
                    l.insert(at, "100000\t\t".into());
                },
                "range 100000 out of order",
            ),
            (
                &|l| drop(l.remove(l.len() - 2)),
                "1048575 ranges, not 1048576",
            ),
        ];
        for (edit, want) in cases {
            let e = edited(edit).unwrap_err();
            assert!(e.contains(want), "{e} (wanted {want})");
        }
        let mut bad = text.clone();
        bad[40] = 0xff;
        let e = read(&mut &bad[..], HashKind::Ntlm, 0xabc).unwrap_err();
        assert!(e.contains("not UTF-8"), "{e}");
    }
}
