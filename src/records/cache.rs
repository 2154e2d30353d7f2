//! Decrypted pages kept for repeated access, up to a byte budget.

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

/// The default budget of decrypted pages a file keeps: it fills only as pages are read,
/// so a one-off get costs a few pages, while a batch of random gets over a file of a
/// million records (about 130 MB) decrypts each page once.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// Pages by (kind, logical number), evicted oldest first.
pub struct Cache {
    pages: HashMap<(u8, u64), Rc<Vec<u8>>>,
    order: VecDeque<(u8, u64)>,
    /// The most bytes held.
    pub budget: usize,
    used: usize,
}

impl Cache {
    /// An empty cache of `budget` bytes.
    pub fn new(budget: usize) -> Cache {
        Cache {
            pages: HashMap::new(),
            order: VecDeque::new(),
            budget,
            used: 0,
        }
    }

    /// A page, if held.
    pub fn get(&self, k: (u8, u64)) -> Option<Rc<Vec<u8>>> {
        self.pages.get(&k).cloned()
    }

    /// Holds a page, evicting the oldest beyond the budget.
    pub fn put(&mut self, k: (u8, u64), v: Rc<Vec<u8>>) {
        self.used += v.len();
        if let Some(old) = self.pages.insert(k, v) {
            self.used -= old.len();
        } else {
            self.order.push_back(k);
        }
        while self.used > self.budget {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(p) = self.pages.remove(&old) {
                self.used -= p.len();
            }
        }
    }

    /// Drops a page.
    pub fn forget(&mut self, k: (u8, u64)) {
        if let Some(p) = self.pages.remove(&k) {
            self.used -= p.len();
        }
    }

    /// Drops every page.
    pub fn clear(&mut self) {
        self.pages.clear();
        self.order.clear();
        self.used = 0;
    }
}
