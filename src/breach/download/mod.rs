//! `breach download`: every range of the Pwned Passwords API (or a mirror) straight into
//! an index, in one streaming pass, resumable.
//!
//! Ranges are fetched in parallel ([`fetch`]), decoded ([`decode`]) and checked and
//! packed ([`body`]), handed to the build's thread in batches ([`inbox`]), put back in
//! prefix order, appended to the journal ([`journal`]) and fed packed to the same index
//! writer as `breach build`'s, so the index is byte-identical to a build of the same
//! data. Every [`CHECKPOINT_EVERY`] ranges the index's records are made durable and the
//! build's state saved ([`state`]), and the journal is emptied. A rerun after any
//! interruption continues the kept index from its last checkpoint, feeds the journal's
//! ranges (read from disk, not fetched) and fetches from the first range the journal
//! lacks. The window of ranges fetched ahead of the one the build
//! waits for is bounded (four per request in flight), so memory stays bounded however
//! slow one range is.

pub mod body;
pub mod budget;
pub mod decode;
pub mod fetch;
pub mod inbox;
pub mod journal;
pub mod state;
mod summary;
pub mod validators;

#[cfg(test)]
mod tests;

use super::HashKind;
use super::build::{self, BuildError, Options as BuildOptions, Source as BuildSource};
use crate::progress::{NoProgress, Progress};
use budget::{Budget, Held};
use fetch::{Fetcher, Outcome};
use inbox::Inbox;
use journal::{Appender, Entry, JournalError, Replay};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Errors of a download.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    /// A range could not be fetched.
    #[error(transparent)]
    Fetch(#[from] fetch::FetchError),
    /// The journal.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The build.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The range validators' sidecar could not be written.
    #[error("range validators")]
    Validators(#[source] io::Error),
    /// The index an update refreshes could not be read.
    #[error("the index being updated")]
    Previous(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The fetching thread stopped without saying why.
    #[error("the download stopped: {0}")]
    Stopped(String),
}

/// What a download did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Ranges kept by an interrupted run: in its checkpointed index or its journal.
    pub replayed: u32,
    /// Ranges fetched by this run.
    pub fetched: u32,
    /// Bytes of range bodies fetched (after decompression).
    pub bytes: u64,
    /// Bytes of range bodies fetched, as received (compressed).
    pub wire: u64,
    /// Update: ranges whose content is the previous index's (answered 304, or fetched
    /// with the same hashes and counts), this run's and an interrupted run's.
    pub unchanged: u32,
    /// Update: ranges whose content differs from the previous index's, this run's and
    /// an interrupted run's (`changed + unchanged` is every range).
    pub changed: u32,
    /// Update: hashes added, removed and recounted.
    pub change: body::Change,
    /// The build's summary.
    pub build: Option<build::Summary>,
}

impl Stats {
    /// Counts one range of an update whose change is `c`.
    fn count(&mut self, c: body::Change) {
        if c == body::Change::default() {
            self.unchanged += 1;
        } else {
            self.changed += 1;
            self.change.added += c.added;
            self.change.removed += c.removed;
            self.change.recounted += c.recounted;
        }
    }
}

/// What to download, and where the work goes.
#[derive(Debug, Clone, Copy)]
pub struct Plan<'a> {
    /// The hash kind.
    pub kind: HashKind,
    /// Requests in flight at once.
    pub parallel: usize,
    /// The journal (kept on failure, for the rerun; the caller removes it once the
    /// index is committed).
    pub journal: &'a Path,
    /// The saved state of the index being written (kept on failure, with the index
    /// file, for the rerun; the caller removes it once the index is committed).
    pub state: &'a Path,
    /// Ranges between checkpoints of the index being written ([`CHECKPOINT_EVERY`];
    /// fewer in tests): the journal holds at most this many ranges.
    pub checkpoint_every: u32,
    /// Where the build spools large counts.
    pub spool_dir: &'a Path,
    /// Ranges `0..ranges` ([`super::ranges::PREFIXES`] for the whole data; fewer only in tests).
    pub ranges: u32,
    /// For an update: the index to refresh, and each range's validators as last fetched
    /// (conditional requests; a range answered 304 is taken from the index).
    pub previous: Option<Previous<'a>>,
    /// Told once, after the run's first [`OUTLOOK_AFTER`] ranges (a resumed run's too),
    /// what the download will have written by its end (so that a disk too small is said
    /// in the first seconds, not when it fills).
    pub outlook: Option<OutlookFn<'a>>,
}

/// Bytes of packed hashes in the journal after which a checkpoint is taken, however few
/// ranges they are: the journal stays below this (plus one range) whatever the server
/// sends. Real data reaches about a third of it in [`CHECKPOINT_EVERY`] ranges.
pub const JOURNAL_BYTES: u64 = 1 << 30;

/// Ranges between two checkpoints of a download's index: 128 checkpoints in a full
/// download, each a few seconds apart at full speed; the journal holds at most this
/// many ranges (about 1/128 of the data).
pub const CHECKPOINT_EVERY: u32 = 8192;

/// After how many ranges of a run (replayed from its journal or fetched) a download
/// estimates what it will write.
pub const OUTLOOK_AFTER: u32 = 4096;

/// What a download has written and will have written by its end (before its journal
/// and saved state are removed), estimated from its first ranges: the exact index, the
/// validators' sidecar and the saved state (the ranges' validators), each scaled from
/// its first ranges to all of them (hashes and validators are spread evenly over the
/// prefixes), and the journal, which holds the ranges since the last checkpoint (at most
/// [`CHECKPOINT_EVERY`]). The index is counted at the packed size of its hashes, a little
/// above its own (about 21 bytes a SHA-1 hash against 19).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outlook {
    /// Bytes written so far, about.
    pub written: u64,
    /// Bytes there will be at the end, about.
    pub total: u64,
}

impl Outlook {
    /// Bytes still to be written, about.
    pub fn more(&self) -> u64 {
        self.total.saturating_sub(self.written)
    }

    /// The outlook after `done` of `all` ranges, `journaled` of them since the last
    /// checkpoint, where the ranges from `first` to `done` (this run's: a resumed run
    /// does not know the sizes of those before) held `packed` bytes of hashes and
    /// `validators` bytes of ETags and Last-Modified values, with a checkpoint every
    /// `every` ranges.
    fn of(
        first: u32,
        done: u32,
        journaled: u32,
        all: u32,
        packed: u64,
        validators: u64,
        every: u32,
    ) -> Outlook {
        let n = u128::from(done.saturating_sub(first));
        let (done, all) = (u128::from(done), u128::from(all));
        let (packed, validators) = (u128::from(packed), u128::from(validators));
        // A journal entry: 20 bytes of framing, the validators and the hashes; a saved
        // range: 4 bytes of framing and the validators (the table's part is small).
        let journal = |k: u128| 20 * k + (validators + packed) * k / n.max(1);
        let state = |c: u128| 4 * c + validators * c / n.max(1);
        // A sidecar line: the prefix, two tabs and a line end beside the validators; the
        // index: the hashes.
        let kept = |ranges: u128| ((8 * n + validators) + packed) * ranges / n.max(1);
        let k = u128::from(journaled).min(done);
        let written = kept(done) + journal(k) + state(done - k);
        let total = if n == 0 {
            written
        } else {
            let k_end = all.min(u128::from(every));
            kept(all) + journal(k_end) + state(all - k_end)
        };
        let clamp = |v: u128| v.min(u128::from(u64::MAX)) as u64;
        Outlook {
            written: clamp(written),
            total: clamp(total),
        }
    }
}

/// A callback given an [`Outlook`].
#[derive(Clone, Copy)]
pub struct OutlookFn<'a>(pub &'a (dyn Fn(Outlook) + Sync));

impl std::fmt::Debug for OutlookFn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OutlookFn")
    }
}

/// The index an update refreshes.
#[derive(Clone, Copy)]
pub struct Previous<'a> {
    /// The index.
    pub index: &'a super::index::Index,
    /// Each range's validators (indexed by prefix; empty ones ask unconditionally).
    pub validators: &'a Arc<Vec<fetch::Validators>>,
}

impl std::fmt::Debug for Previous<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Previous")
    }
}

/// Downloads the ranges of `plan` with `fetcher` into `out`, and writes each range's
/// validators to `validators` ([`validators`]).
///
/// `out` is kept on failure: with the plan's state and journal, it is what the same
/// download run again continues from (the records its saved state vouches for, checked
/// against their checksums first); without a saved state, it is written from scratch.
pub fn download(
    fetcher: Fetcher,
    plan: Plan<'_>,
    out: &mut File,
    validators: &mut (dyn Write + Send),
    progress: &(dyn Progress + Sync),
) -> Result<Stats, DownloadError> {
    let Plan {
        kind,
        parallel,
        journal: journal_path,
        state: state_path,
        checkpoint_every,
        spool_dir,
        ranges: end,
        previous,
        outlook,
    } = plan;
    if let Some(prev) = &previous {
        // An index of format 1 or 2 has no checksums its ranges are read against: it is
        // checked whole first, so that no byte of it reaches the new index unchecked.
        prev.index
            .ensure_checked()
            .map_err(|e| DownloadError::Previous(e.into()))?;
    }
    let failure = Mutex::new(None);
    let template = journal::SourceId::of(fetcher.source());
    // The journal's lock guards the state and the index file too.
    let mut replay = journal::open(journal_path, kind, &template)?;
    let mut sidecar = validators::Writer::new(validators, kind);
    let (state, saved) = state::open(state_path, kind, &template, &mut |prefix, v| {
        sidecar.push(&Entry {
            prefix,
            packed: Vec::new(),
            etag: v.etag,
            last_modified: v.last_modified,
        })
    })?;
    let from = saved.as_ref().map_or(0, |s| s.next);
    replay.set_from(from);
    progress.set_total(u64::from(end));
    progress.advance(u64::from(from));
    let mut stats = Stats {
        replayed: from,
        ..Stats::default()
    };
    let mut ranges = Ranges {
        kind,
        phase: Phase::Replay(Some(replay)),
        fetcher: Some(Arc::new(fetcher)),
        parallel: parallel.max(1),
        end,
        previous,
        pending: BTreeMap::new(),
        deferred: None,
        next: from,
        current: Vec::new(),
        failure: &failure,
        validators: sidecar,
        state,
        checkpoint_every: checkpoint_every.max(1),
        checkpointed: from,
        first: from,
        since: Vec::new(),
        progress,
        stats: &mut stats,
        last_sync: Instant::now(),
        outlook,
        fed_packed: 0,
        fed_validators: 0,
        budget_bytes: budget::DEFAULT_BYTES,
        budget: None,
        journaled: 0,
    };
    let built = build::build(
        BuildSource::Packed {
            ranges: &mut ranges,
            kind,
            name: "download".into(),
            resume: saved.map(|s| Box::new(s.build)),
        },
        out,
        BuildOptions {
            kind: Some(kind),
            direct: true,
            ..BuildOptions::default()
        },
        spool_dir,
        &NoProgress,
    );
    let finished = ranges.finish();
    drop(ranges);
    if let Some(e) = failure.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(e);
    }
    let summary = built?;
    finished?;
    if let (Some(prev), true) = (previous, from > 0) {
        // The ranges an interrupted run checkpointed into the index are not at hand as
        // ranges: their changes are read off the finished index beside the previous one.
        let new = super::index::Index::open_file(out).map_err(|e| {
            DownloadError::Stopped(format!("the index just built cannot be read back: {e}"))
        })?;
        let (changed, change) = summary::changes_before(prev.index, &new, from)
            .map_err(|e| DownloadError::Previous(e.into()))?;
        stats.changed += changed;
        stats.unchanged += from - changed;
        stats.change.added += change.added;
        stats.change.removed += change.removed;
        stats.change.recounted += change.recounted;
    }
    stats.build = Some(summary);
    Ok(stats)
}

enum Phase {
    /// Feeding the journal's ranges.
    Replay(Option<Replay>),
    /// Fetching: the journal open for appending, results arriving.
    Fetch {
        journal: Appender,
        inbox: Arc<Inbox<Arrival>>,
        /// Arrivals taken from the inbox, not yet sorted into `pending`.
        taken: Vec<(u32, Arrival)>,
        cancel: Arc<AtomicBool>,
        _thread: std::thread::JoinHandle<()>,
    },
    /// Every range fed.
    Done,
}

/// A fetched range (its prefix beside it in the inbox), with the window slot it holds
/// until the build takes it.
type Arrival = (
    Result<Outcome, fetch::FetchError>,
    tokio::sync::OwnedSemaphorePermit,
);

/// The dump the build reads: every range as `HASH:COUNT` lines, in prefix order.
struct Ranges<'a> {
    kind: HashKind,
    phase: Phase,
    fetcher: Option<Arc<Fetcher>>,
    parallel: usize,
    end: u32,
    previous: Option<Previous<'a>>,
    /// Ranges arrived ahead of the one the build waits for: the entry, its body's
    /// bytes decoded and as received, and its window slot.
    pending: BTreeMap<u32, (Entry, u64, u64, tokio::sync::OwnedSemaphorePermit, Held)>,
    /// The first range that failed for good, reported when the build reaches it.
    deferred: Option<(u32, fetch::FetchError)>,
    next: u32,
    /// The range being fed to the build.
    current: Vec<u8>,
    failure: &'a Mutex<Option<DownloadError>>,
    validators: validators::Writer<'a>,
    /// The index's saved state.
    state: state::State,
    checkpoint_every: u32,
    /// The range the last checkpoint ends before.
    checkpointed: u32,
    /// This run's first range (past the ranges its saved state vouches for).
    first: u32,
    /// The validators of the ranges fed since the last checkpoint.
    since: Vec<fetch::Validators>,
    progress: &'a (dyn Progress + Sync),
    stats: &'a mut Stats,
    last_sync: Instant,
    outlook: Option<OutlookFn<'a>>,
    /// Bytes of the packed hashes and of the validators of the ranges this run fed so far.
    fed_packed: u64,
    fed_validators: u64,
    /// Bytes of fetched range data held between the network and the build, at most (see
    /// [`budget`]), and the budget once fetching has started.
    budget_bytes: u64,
    budget: Option<Budget>,
    /// Bytes appended to the journal since the last checkpoint: a checkpoint is due
    /// when they pass [`JOURNAL_BYTES`], however few the ranges.
    journaled: u64,
}

impl Ranges<'_> {
    /// Makes the next range `current`: `Ok(false)` when every range is fed.
    fn fill(&mut self) -> Result<bool, DownloadError> {
        loop {
            match &mut self.phase {
                Phase::Done => return Ok(false),
                Phase::Replay(replay) => {
                    let r = replay.as_mut().expect("present until the phase changes");
                    if let Some(entry) = r.next_entry()? {
                        if !body::well_formed(self.kind, &entry.packed) {
                            return Err(DownloadError::Stopped(format!(
                                "journal entry of range {} is malformed; remove the journal and download again",
                                String::from_utf8_lossy(&body::prefix_hex(entry.prefix))
                            )));
                        }
                        self.stats.replayed += 1;
                        // Kept by a run that was stopped: its change counted as a fetched
                        // range's is, so that a resumed update's counts are the whole
                        // update's.
                        count_change(
                            self.kind,
                            self.previous,
                            self.stats,
                            entry.prefix,
                            &entry.packed,
                        )?;
                        self.emit(entry)?;
                        return Ok(true);
                    }
                    let appender = replay.take().expect("present").into_appender()?;
                    self.start_fetching(appender);
                }
                Phase::Fetch {
                    journal,
                    inbox,
                    taken,
                    ..
                } => {
                    if self.next >= self.end {
                        journal.sync()?;
                        self.phase = Phase::Done;
                        continue;
                    }
                    while !self.pending.contains_key(&self.next) {
                        // A range that failed for good ends the run once every range
                        // before it (already in flight) is journaled, so the rerun
                        // fetches nothing twice.
                        if self.deferred.as_ref().is_some_and(|(p, _)| *p <= self.next) {
                            let (_, e) = self.deferred.take().expect("present");
                            return Err(e.into());
                        }
                        if !inbox.take(self.next, taken) {
                            if let Some((_, e)) = self.deferred.take() {
                                return Err(e.into());
                            }
                            return Err(DownloadError::Stopped(
                                "the fetching thread ended early".into(),
                            ));
                        }
                        for (prefix, (result, permit)) in taken.drain(..) {
                            let result = match result {
                                Ok(r) => r,
                                Err(e) => {
                                    if self.deferred.as_ref().is_none_or(|(p, _)| prefix < *p) {
                                        self.deferred = Some((prefix, e));
                                    }
                                    continue;
                                }
                            };
                            match result {
                                Outcome::Fresh {
                                    packed,
                                    validators,
                                    bytes,
                                    wire,
                                    held,
                                } => {
                                    count_change(
                                        self.kind,
                                        self.previous,
                                        self.stats,
                                        prefix,
                                        &packed.bytes,
                                    )?;
                                    let entry = Entry {
                                        prefix,
                                        packed: packed.bytes,
                                        etag: validators.etag,
                                        last_modified: validators.last_modified,
                                    };
                                    self.pending
                                        .insert(prefix, (entry, bytes, wire, permit, held));
                                }
                                Outcome::NotModified => {
                                    let Some(prev) = self.previous else {
                                        return Err(DownloadError::Stopped(
                                            "a range answered 304 to an unconditional request"
                                                .into(),
                                        ));
                                    };
                                    let packed = old_range(self.kind, prev, prefix)?;
                                    let v = prev.validators.get(prefix as usize).cloned();
                                    let v = v.unwrap_or_default();
                                    let entry = Entry {
                                        prefix,
                                        packed,
                                        etag: v.etag,
                                        last_modified: v.last_modified,
                                    };
                                    self.stats.count(body::Change::default());
                                    self.pending
                                        .insert(prefix, (entry, 0, 0, permit, Held::default()));
                                }
                            }
                        }
                    }
                    let (entry, bytes, wire, permit, held) =
                        self.pending.remove(&self.next).expect("present");
                    journal.append(&entry)?;
                    self.journaled += entry.packed.len() as u64;
                    if self.last_sync.elapsed() > Duration::from_secs(1) {
                        journal.sync()?;
                        self.last_sync = Instant::now();
                    }
                    drop(permit);
                    drop(held);
                    self.stats.fetched += 1;
                    self.stats.bytes += bytes;
                    self.stats.wire += wire;
                    self.progress.transferred(wire);
                    self.emit(entry)?;
                    return Ok(true);
                }
            }
        }
    }

    /// `entry`'s hashes made `current`, its validators written to the sidecar.
    fn emit(&mut self, entry: Entry) -> Result<(), DownloadError> {
        debug_assert_eq!(entry.prefix, self.next);
        self.validators
            .push(&entry)
            .map_err(DownloadError::Validators)?;
        self.since.push(fetch::Validators {
            etag: entry.etag.clone(),
            last_modified: entry.last_modified.clone(),
        });
        self.fed_packed += entry.packed.len() as u64;
        self.fed_validators += (entry.etag.as_ref().map_or(0, String::len)
            + entry.last_modified.as_ref().map_or(0, String::len))
            as u64;
        self.current = entry.packed;
        self.next += 1;
        if let Some(b) = &self.budget {
            b.set_head(self.next);
        }
        self.progress.advance(1);
        if let Some(OutlookFn(tell)) = self.outlook
            && self.next == self.first.saturating_add(OUTLOOK_AFTER).min(self.end)
        {
            tell(Outlook::of(
                self.first,
                self.next,
                self.next - self.checkpointed,
                self.end,
                self.fed_packed,
                self.fed_validators,
                self.checkpoint_every,
            ));
        }
        Ok(())
    }

    /// Starts the fetching thread at the journal's first missing range.
    fn start_fetching(&mut self, journal: Appender) {
        let first = journal.next();
        self.next = first;
        if first >= self.end {
            self.phase = Phase::Done;
            return;
        }
        self.progress.phase("downloading");
        // Half the window: the build is not kept waiting for arrivals the window holds back.
        let inbox = Arc::new(Inbox::with_batch(window(self.parallel) / 2));
        let tx = inbox.clone();
        let cancel = Arc::new(AtomicBool::new(false));
        let fetcher = self.fetcher.take().expect("started once");
        let (parallel, end, stop) = (self.parallel, self.end, cancel.clone());
        let since = self.previous.map(|p| p.validators.clone());
        let budget = Budget::new(self.budget_bytes, first);
        self.budget = Some(budget.clone());
        let thread = std::thread::spawn(move || {
            fetch_all(fetcher, first..end, since, parallel, budget, tx, stop)
        });
        self.phase = Phase::Fetch {
            journal,
            inbox,
            taken: Vec::new(),
            cancel,
            _thread: thread,
        };
    }

    /// Makes the journal durable and ends the sidecar: what a failed or finished run
    /// keeps.
    fn finish(&mut self) -> Result<(), DownloadError> {
        if let Phase::Fetch {
            journal, cancel, ..
        } = &mut self.phase
        {
            cancel.store(true, Ordering::Relaxed);
            journal.sync()?;
        }
        self.validators.flush().map_err(DownloadError::Validators)
    }

    fn fail(&self, e: DownloadError) -> io::Error {
        let text = e.to_string();
        let mut slot = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        io::Error::other(text)
    }
}

impl Drop for Ranges<'_> {
    fn drop(&mut self) {
        if let Phase::Fetch { cancel, .. } = &self.phase {
            cancel.store(true, Ordering::Relaxed);
        }
    }
}

impl build::PackedRanges for Ranges<'_> {
    fn next_range(&mut self) -> io::Result<Option<&[u8]>> {
        match self.fill() {
            Ok(true) => Ok(Some(&self.current)),
            Ok(false) => Ok(None),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn checkpoint_due(&self) -> bool {
        // Not while the journal is read back: it is emptied at a checkpoint.
        matches!(self.phase, Phase::Fetch { .. })
            && (self.next - self.checkpointed >= self.checkpoint_every
                || self.journaled >= JOURNAL_BYTES)
    }

    fn checkpoint(&mut self, cp: build::Checkpoint) -> io::Result<()> {
        self.save(cp).map_err(|e| self.fail(e))
    }
}

impl Ranges<'_> {
    /// Saves checkpoint `cp`, taken after every range before `next` (the index file holds
    /// their records, durably), then empties the journal of those ranges.
    fn save(&mut self, cp: build::Checkpoint) -> Result<(), DownloadError> {
        self.state.append(self.next, &cp, &self.since)?;
        if let Phase::Fetch { journal, .. } = &mut self.phase {
            debug_assert_eq!(journal.next(), self.next);
            journal.restart(self.next)?;
        }
        self.since.clear();
        self.checkpointed = self.next;
        self.journaled = 0;
        Ok(())
    }
}

/// Range `prefix` of the previous index, packed.
fn old_range(kind: HashKind, prev: Previous<'_>, prefix: u32) -> Result<Vec<u8>, DownloadError> {
    let mut text = Vec::new();
    super::ranges::range_body(prev.index, prefix, &mut text)
        .map_err(|e| DownloadError::Previous(e.into()))?;
    body::pack(kind, prefix, &text)
        .map(|p| p.bytes)
        .map_err(|e| DownloadError::Previous(e.into()))
}

/// For an update (`previous`), counts range `prefix` (its new content `packed`) as
/// changed, with its hashes added, removed and recounted, or as unchanged.
fn count_change(
    kind: HashKind,
    previous: Option<Previous<'_>>,
    stats: &mut Stats,
    prefix: u32,
    packed: &[u8],
) -> Result<(), DownloadError> {
    if let Some(prev) = previous {
        let old = old_range(kind, prev, prefix)?;
        stats.count(body::compare(kind, &old, packed));
    }
    Ok(())
}

/// Ranges fetched but not yet taken by the build, at most: four per request in flight.
fn window(parallel: usize) -> usize {
    parallel * 4
}

/// Fetches `ranges` with `parallel` requests in flight, at most [`window`] ranges ahead
/// of the one the build waits for, into `tx`.
fn fetch_all(
    fetcher: Arc<Fetcher>,
    ranges: std::ops::Range<u32>,
    since: Option<Arc<Vec<fetch::Validators>>>,
    parallel: usize,
    budget: Budget,
    tx: Arc<Inbox<Arrival>>,
    cancel: Arc<AtomicBool>,
) {
    // However this thread ends, the build learns of it.
    let _closes = inbox::CloseOnDrop(&*tx);
    // One thread does all the HTTP: on few cores a multi-threaded runtime spent more on
    // waking its workers than it gained (measured: 20-35% more CPU per range).
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let window = Arc::new(tokio::sync::Semaphore::new(window(parallel)));
    let next = Arc::new(AtomicU32::new(ranges.start));
    let end = ranges.end;
    rt.block_on(async {
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..parallel {
            let since = since.clone();
            let (f, w, n, tx, c, b) = (
                fetcher.clone(),
                window.clone(),
                next.clone(),
                tx.clone(),
                cancel.clone(),
                budget.clone(),
            );
            set.spawn(async move {
                loop {
                    let Ok(permit) = w.clone().acquire_owned().await else {
                        return;
                    };
                    if c.load(Ordering::Relaxed) {
                        return;
                    }
                    let p = n.fetch_add(1, Ordering::Relaxed);
                    if p >= end {
                        return;
                    }
                    let cond = since
                        .as_ref()
                        .and_then(|v| v.get(p as usize))
                        .filter(|v| v.etag.is_some() || v.last_modified.is_some());
                    let r = f.fetch(p, cond, &b).await;
                    let failed = r.is_err();
                    // A failure wakes the build at once: it ends the run once every
                    // range before it is journaled.
                    tx.put(p, (r, permit), failed);
                    if failed {
                        c.store(true, Ordering::Relaxed);
                        return;
                    }
                }
            });
        }
        while set.join_next().await.is_some() {}
    });
    rt.shutdown_background();
}
