//! The download's byte budget: what fetched ranges may hold in memory between the
//! network and the build, whatever the server sends.
//!
//! Every range counts its body as it arrives (as received), then its packed hashes
//! until the build takes it. A range that would pass the budget waits for others to be
//! built, except the one the build waits for (the head), which may always go on: the
//! ranges ahead of it can only be built after it, so making it wait could wait forever.
//! Memory for range data is so at most the budget plus the head's body, decoded body and
//! packed hashes (each at most [`super::body::MAX_BODY`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The budget's default: 128 MiB of range data held ahead of the build. Real ranges are
/// 20 to 80 KB decoded, so the window of ranges ahead (four per request in flight)
/// never comes near it; a server sending huge bodies meets it.
pub const DEFAULT_BYTES: u64 = 128 << 20;

/// Bytes a permit stands for.
const UNIT: u64 = 1024;

/// How often a range that waits for the budget looks whether it became the head.
const RECHECK: Duration = Duration::from_millis(20);

/// Bytes of range data held, shared by the fetching tasks and the build.
#[derive(Clone)]
pub struct Budget {
    permits: Arc<Semaphore>,
    /// The range the build waits for.
    head: Arc<AtomicU32>,
}

/// What one range holds of the budget (nothing, for the head past the budget).
#[derive(Debug, Default)]
pub struct Held {
    permit: Option<OwnedSemaphorePermit>,
}

impl Held {
    /// Bytes held (in whole units).
    pub fn bytes(&self) -> u64 {
        self.permit
            .as_ref()
            .map_or(0, |p| p.num_permits() as u64 * UNIT)
    }
}

impl Budget {
    /// A budget of `bytes`, the build waiting for range `head` first.
    pub fn new(bytes: u64, head: u32) -> Budget {
        let units = (bytes / UNIT).clamp(1, Semaphore::MAX_PERMITS as u64) as usize;
        Budget {
            permits: Arc::new(Semaphore::new(units)),
            head: Arc::new(AtomicU32::new(head)),
        }
    }

    /// The build now waits for range `prefix`.
    pub fn set_head(&self, prefix: u32) {
        self.head.store(prefix, Ordering::Relaxed);
    }

    /// Makes `held`, range `prefix`'s share, cover `bytes`: waits while the budget is
    /// spent, unless `prefix` is (or becomes) the head.
    pub async fn grow(&self, prefix: u32, held: &mut Held, bytes: u64) {
        let want = bytes.div_ceil(UNIT);
        let have = held.bytes() / UNIT;
        if want <= have {
            return;
        }
        let more = (want - have).min(Semaphore::MAX_PERMITS as u64) as u32;
        loop {
            if self.head.load(Ordering::Relaxed) >= prefix {
                // The head (or a range the build has passed, which cannot be): it goes on
                // whatever the budget, taking what is free now.
                let free = (self.permits.available_permits() as u64).min(u64::from(more));
                if free > 0
                    && let Ok(p) = self.permits.clone().try_acquire_many_owned(free as u32)
                {
                    add(held, p);
                }
                return;
            }
            let acquire = self.permits.clone().acquire_many_owned(more);
            match tokio::time::timeout(RECHECK, acquire).await {
                Ok(Ok(p)) => {
                    add(held, p);
                    return;
                }
                // Closed: never, the budget lives as long as the download.
                Ok(Err(_)) => return,
                Err(_) => continue,
            }
        }
    }

    /// Makes `held` cover `bytes` exactly (in whole units), giving the rest back.
    pub fn shrink(&self, held: &mut Held, bytes: u64) {
        let keep = bytes.div_ceil(UNIT) as usize;
        if let Some(p) = &mut held.permit
            && p.num_permits() > keep
        {
            drop(p.split(p.num_permits() - keep));
        }
    }

    /// Bytes free now (tests).
    #[cfg(test)]
    pub fn free(&self) -> u64 {
        self.permits.available_permits() as u64 * UNIT
    }
}

fn add(held: &mut Held, p: OwnedSemaphorePermit) {
    match &mut held.permit {
        Some(h) => h.merge(p),
        None => held.permit = Some(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_wait_for_the_budget_but_the_head_never_does() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let b = Budget::new(100 * UNIT, 0);
            let mut a = Held::default();
            b.grow(5, &mut a, 60 * UNIT).await;
            assert_eq!(a.bytes(), 60 * UNIT);
            b.shrink(&mut a, 10 * UNIT + 1);
            assert_eq!((a.bytes(), b.free()), (11 * UNIT, 89 * UNIT));
            // Range 7 wants more than is free: it waits until range 5 is built.
            let mut c = Held::default();
            let waited =
                tokio::time::timeout(Duration::from_millis(100), b.grow(7, &mut c, 95 * UNIT))
                    .await;
            assert!(waited.is_err() && c.bytes() == 0);
            // The head goes past the budget, taking what is free.
            let mut h = Held::default();
            b.grow(0, &mut h, 500 * UNIT).await;
            assert_eq!((h.bytes(), b.free()), (89 * UNIT, 0));
            drop(h);
            drop(a);
            b.grow(7, &mut c, 95 * UNIT).await;
            assert_eq!(c.bytes(), 95 * UNIT);
            // A range that becomes the head while it waits goes on.
            let mut d = Held::default();
            let b2 = b.clone();
            let later = tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                b2.set_head(9);
            });
            b.grow(9, &mut d, 50 * UNIT).await;
            later.await.unwrap();
            assert_eq!(d.bytes(), 5 * UNIT);
        });
    }
}
