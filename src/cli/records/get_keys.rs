//! The keys of `records get --keys PATH` and `records delete --keys PATH`, handed out
//! in batches: a regular file's up to a million at a time; a pipe's, socket's or
//! terminal's as they arrive (everything that can be read without waiting), so that a
//! fast writer gets large batches and a slow one (or a person typing) an answer for
//! each line before veilkit waits again.

use super::super::input::take_stdin;
use super::super::output::{display_path, enlarge_pipe, is_stdio};
use crate::streams::{
    LINE_CAP, LINGER, LineTooLong, Lines, read_arrived, ready_now, strip_line_end,
};
use anyhow::Context;
use std::fs::File;
use std::io::BufReader;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

/// The most keys looked up together.
pub const BATCH_KEYS: usize = 1 << 20;

/// The most bytes of keys looked up together.
pub const BATCH_KEY_BYTES: usize = 16 << 20;

/// What [`KeyInput::each_batch`] hands out.
pub enum Step<'a> {
    /// The next keys, in order.
    Keys(&'a [&'a [u8]]),
    /// The keys so far were handed out and the next have not arrived: write out what is
    /// buffered before veilkit waits for them.
    Wait,
}

/// Where the keys come from.
pub struct KeyInput {
    path: PathBuf,
    from: From,
}

enum From {
    /// A regular file: read ahead.
    Regular(Lines<BufReader<File>>),
    /// Anything else: what has arrived.
    Arriving(File),
}

impl KeyInput {
    /// Opens `path` (`-`: standard input).
    pub fn open(path: &Path) -> anyhow::Result<KeyInput> {
        let file = if is_stdio(path) {
            take_stdin("the input")?;
            enlarge_pipe(0);
            let fd = std::io::stdin().as_fd().try_clone_to_owned();
            File::from(fd.context("stdin")?)
        } else {
            File::open(path).with_context(|| display_path(path))?
        };
        let regular = file
            .metadata()
            .with_context(|| display_path(path))?
            .is_file();
        let from = if regular {
            From::Regular(Lines::new(BufReader::with_capacity(1 << 20, file)))
        } else {
            From::Arriving(file)
        };
        Ok(KeyInput {
            path: path.to_path_buf(),
            from,
        })
    }

    /// Calls `step` with each batch of keys in order, and with [`Step::Wait`] before
    /// waiting for keys that have not arrived. A line that cannot be read (too long, an
    /// I/O error) ends the keys: the keys before it are handed out, then its error
    /// returned. A byte order mark before the first key is warned of, once.
    pub fn each_batch(
        &mut self,
        mut step: impl FnMut(Step<'_>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut first = true;
        let mut step = |s: Step<'_>| {
            if let Step::Keys(keys) = &s
                && std::mem::take(&mut first)
            {
                warn_marked_key(&self.path, keys.first().copied());
            }
            step(s)
        };
        let shown = || display_path(&self.path);
        match &mut self.from {
            From::Regular(lines) => {
                let mut keys: Vec<u8> = Vec::new();
                let mut ends: Vec<usize> = Vec::new();
                loop {
                    keys.clear();
                    ends.clear();
                    let (mut failed, mut at_end) = (None, false);
                    while ends.len() < BATCH_KEYS && keys.len() < BATCH_KEY_BYTES {
                        match lines.next_line() {
                            Ok(Some((_, key))) => {
                                keys.extend_from_slice(key);
                                ends.push(keys.len());
                            }
                            Ok(None) => {
                                at_end = true;
                                break;
                            }
                            Err(e) => {
                                failed = Some(e);
                                break;
                            }
                        }
                    }
                    let batch: Vec<&[u8]> = ends
                        .iter()
                        .scan(0, |start, &end| {
                            let key = &keys[*start..end];
                            *start = end;
                            Some(key)
                        })
                        .collect();
                    step(Step::Keys(&batch))?;
                    if let Some(e) = failed {
                        return Err(anyhow::Error::new(e).context(shown()));
                    }
                    if at_end {
                        return Ok(());
                    }
                }
            }
            From::Arriving(input) => {
                let mut pending: Vec<u8> = Vec::new();
                // Lines answered so far.
                let mut line = 0u64;
                loop {
                    let max = pending.len() + BATCH_KEY_BYTES;
                    let ended =
                        read_arrived(input, &mut pending, max, LINGER).with_context(shown)?;
                    // Whole lines: up to the last line end (everything at the end).
                    let whole = if ended {
                        pending.len()
                    } else {
                        memchr::memrchr(b'\n', &pending).map_or(0, |i| i + 1)
                    };
                    // At most BATCH_KEYS keys at a time: lines of a byte or two do not
                    // make a table of millions.
                    let mut batch: Vec<&[u8]> = Vec::new();
                    let mut too_long = None;
                    for piece in pending[..whole].split_inclusive(|&b| b == b'\n') {
                        if piece.len() > LINE_CAP {
                            too_long = Some(line + batch.len() as u64 + 1);
                            break;
                        }
                        batch.push(strip_line_end(piece));
                        if batch.len() == BATCH_KEYS {
                            step(Step::Keys(&batch))?;
                            line += batch.len() as u64;
                            batch.clear();
                        }
                    }
                    if too_long.is_none() && pending.len() - whole > LINE_CAP {
                        // A line not ended yet, already longer than the cap.
                        too_long = Some(line + batch.len() as u64 + 1);
                    }
                    if !batch.is_empty() {
                        step(Step::Keys(&batch))?;
                        line += batch.len() as u64;
                    }
                    if let Some(line) = too_long {
                        let e = LineTooLong {
                            line,
                            cap: LINE_CAP,
                        }
                        .into_io();
                        return Err(anyhow::Error::new(e).context(shown()));
                    }
                    drop(batch);
                    pending.drain(..whole);
                    if ended {
                        return Ok(());
                    }
                    if !ready_now(&*input).with_context(shown)? {
                        step(Step::Wait)?;
                    }
                }
            }
        }
    }
}

/// Warns when the first key of a key list (`--keys PATH`) starts with a UTF-8 byte order
/// mark: keys are exact bytes, so the mark stays part of that key, which is then most
/// likely not found; said, so that a miss is not taken for an answer.
fn warn_marked_key(path: &Path, first: Option<&[u8]>) {
    if first.is_some_and(|k| k.starts_with(crate::streams::BOM)) {
        super::super::report::warn(format!(
            "{}: starts with a UTF-8 byte order mark, kept as part of the first key since keys are exact bytes (so that key is most likely not found): remove it, for example with sed '1s/^\\xEF\\xBB\\xBF//'",
            display_path(path),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::io::Write;

    /// The keys `each_batch` hands out for `text`, written into a pipe in `pieces`.
    fn arriving(text: &[u8], pieces: &[usize]) -> Vec<Vec<u8>> {
        let (r, w) = rustix::pipe::pipe().unwrap();
        let mut w = File::from(w);
        let (text, pieces) = (text.to_vec(), pieces.to_vec());
        let writer = std::thread::spawn(move || {
            let mut at = 0;
            for &n in pieces.iter().cycle() {
                if at >= text.len() {
                    break;
                }
                let end = (at + n.max(1)).min(text.len());
                w.write_all(&text[at..end]).unwrap();
                w.flush().unwrap();
                at = end;
                std::thread::yield_now();
            }
        });
        let mut input = KeyInput {
            path: PathBuf::from("-"),
            from: From::Arriving(File::from(r)),
        };
        let mut keys = Vec::new();
        input
            .each_batch(|step| {
                if let Step::Keys(batch) = step {
                    keys.extend(batch.iter().map(|k| k.to_vec()));
                }
                Ok(())
            })
            .unwrap();
        writer.join().unwrap();
        keys
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Keys from a pipe, however the writer splits its writes, are the lines a
        /// file's reading gives: CR LF and LF, empty lines, a last line without an end.
        #[test]
        fn keys_that_arrive_are_the_lines_of_the_text(
            text in proptest::collection::vec(
                prop_oneof![Just(b'a'), Just(b'b'), Just(b'\r'), Just(b'\n')], 0..400),
            pieces in proptest::collection::vec(1usize..50, 1..8),
        ) {
            let mut lines = Lines::new(&text[..]);
            let mut want = Vec::new();
            while let Some((_, line)) = lines.next_line().unwrap() {
                want.push(line.to_vec());
            }
            prop_assert_eq!(arriving(&text, &pieces), want);
        }
    }
}
