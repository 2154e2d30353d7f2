//! Pins (`--pin FILE`): the highest commit each record file has shown, so that an older
//! copy served later (storage replaying a file it held before) is refused. A pin file
//! is text: a comment line, then one line a file, `FILE-ID SEQUENCE` (32 lowercase hex
//! digits, a space, the header's sequence number in decimal), sorted by file id.

use std::collections::BTreeMap;

/// The first line of a pin file.
pub const HEADING: &str = "# veilkit records pins: file id, highest commit seen";

/// The most files a pin file names (its text stays under 1 MiB); past it, new files are
/// not pinned.
pub const MAX_FILES: usize = 16_384;

/// Highest commits seen, by file id.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Pins(BTreeMap<[u8; 16], u64>);

/// A file older than its pin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "this copy holds commit {shown}, and commit {seen} of the same file was seen before: the storage served an older copy (a replay, a stale cache or a restored backup)"
)]
pub struct Older {
    /// The commit this copy holds.
    pub shown: u64,
    /// The highest seen.
    pub seen: u64,
}

impl Pins {
    /// Parses a pin file's text; an error names the line.
    pub fn parse(text: &str) -> Result<Pins, String> {
        let mut pins = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad =
                || format!("line {n}: not `FILE-ID SEQUENCE` (32 hex digits, a space, a number)");
            let (id, seq) = line.split_once(' ').ok_or_else(bad)?;
            let mut bytes = [0u8; 16];
            if id.len() != 32 || const_hex::decode_to_slice(id, &mut bytes).is_err() {
                return Err(bad());
            }
            if seq.is_empty() || !seq.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            let seq: u64 = seq.parse().map_err(|_| bad())?;
            if pins.insert(bytes, seq).is_some() {
                return Err(format!("line {n}: a file id named twice"));
            }
            if pins.len() > MAX_FILES {
                return Err(format!("more than {MAX_FILES} files"));
            }
        }
        Ok(Pins(pins))
    }

    /// The pin file's text.
    pub fn to_text(&self) -> String {
        let mut s = String::with_capacity(64 + self.0.len() * 54);
        s.push_str(HEADING);
        s.push('\n');
        for (id, seq) in &self.0 {
            s.push_str(&const_hex::encode(id));
            s.push(' ');
            s.push_str(&seq.to_string());
            s.push('\n');
        }
        s
    }

    /// Checks that file `id` at commit `sequence` is not older than its pin, and raises
    /// the pin to it: whether the pins changed.
    pub fn check(&mut self, id: [u8; 16], sequence: u64) -> Result<bool, Older> {
        match self.0.get(&id) {
            Some(&seen) if sequence < seen => Err(Older {
                shown: sequence,
                seen,
            }),
            Some(&seen) if sequence == seen => Ok(false),
            _ if self.0.len() >= MAX_FILES && !self.0.contains_key(&id) => Ok(false),
            _ => {
                self.0.insert(id, sequence);
                Ok(true)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_refuse_older_commits_and_rise_with_newer() {
        let mut p = Pins::default();
        assert_eq!(p.check([1; 16], 5), Ok(true));
        assert_eq!(p.check([1; 16], 5), Ok(false));
        assert_eq!(p.check([1; 16], 4), Err(Older { shown: 4, seen: 5 }));
        assert_eq!(p.check([2; 16], 0), Ok(true));
        assert_eq!(p.check([1; 16], 9), Ok(true));
        let text = p.to_text();
        assert_eq!(
            text,
            format!("{HEADING}\n{} 9\n{} 0\n", "01".repeat(16), "02".repeat(16))
        );
        assert_eq!(Pins::parse(&text), Ok(p));
    }

    #[test]
    fn malformed_pin_files_name_the_line() {
        for (text, line) in [
            ("0101 5\n", 1),
            ("# c\n\n01010101010101010101010101010101 +5\n", 3),
            ("01010101010101010101010101010101  5\n", 1),
            ("0101010101010101010101010101010g 5\n", 1),
            ("01010101010101010101010101010101 99999999999999999999\n", 1),
            (
                "01010101010101010101010101010101 1\n01010101010101010101010101010101 2\n",
                2,
            ),
        ] {
            let e = Pins::parse(text).unwrap_err();
            assert!(e.starts_with(&format!("line {line}:")), "{text:?}: {e}");
        }
    }
}
