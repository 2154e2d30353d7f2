//! Progress reporting, as a callback the domain modules call without knowing who listens.

/// Receives progress from long-running library operations.
///
/// Implementations must be cheap: callers report at most every few thousand items.
pub trait Progress {
    /// The amount of work, in the unit the operation chose (usually input bytes), when known.
    fn set_total(&self, _total: u64) {}
    /// Starts a new pass over `total` units, from zero.
    fn restart(&self, total: u64) {
        self.set_total(total);
    }
    /// `delta` more units of work are done.
    fn advance(&self, _delta: u64) {}
    /// A short description of the current phase.
    fn phase(&self, _what: &str) {}
    /// `bytes` more were received over the network (downloads), for a rate in MB/s.
    fn transferred(&self, _bytes: u64) {}
}

/// Discards progress.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {}
