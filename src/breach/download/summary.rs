//! What an update changed in the ranges an interrupted run had already built into the
//! index: read off the finished index beside the previous one, so that a resumed
//! update's summary counts every range, not only its own run's.

use super::body::Change;
use crate::breach::format::prefix_of;
use crate::breach::index::{Index, IndexError};

/// Of the ranges before `end`: how many differ between `old` and `new`, and how many
/// hashes were added, removed and recounted in them. One pass over both indexes in hash
/// order, up to `end`.
pub(super) fn changes_before(
    old: &Index,
    new: &Index,
    end: u32,
) -> Result<(u32, Change), IndexError> {
    let mut change = Change::default();
    let mut changed = 0u32;
    let mut last_changed: Option<u32> = None;
    let before = |item: Option<Result<_, IndexError>>| -> Result<_, IndexError> {
        Ok(item.transpose()?.filter(|(h, _)| prefix_of(h) < end))
    };
    let (mut a, mut b) = (old.iter(), new.iter());
    let (mut x, mut y) = (before(a.next())?, before(b.next())?);
    let mut note = |prefix: u32| {
        if last_changed != Some(prefix) {
            changed += 1;
            last_changed = Some(prefix);
        }
    };
    loop {
        match (x, y) {
            (None, None) => return Ok((changed, change)),
            (Some((h, _)), None) => {
                note(prefix_of(&h));
                change.removed += 1;
                x = before(a.next())?;
            }
            (None, Some((h, _))) => {
                note(prefix_of(&h));
                change.added += 1;
                y = before(b.next())?;
            }
            (Some((h1, c1)), Some((h2, c2))) => match h1.0.cmp(&h2.0) {
                std::cmp::Ordering::Less => {
                    note(prefix_of(&h1));
                    change.removed += 1;
                    x = before(a.next())?;
                }
                std::cmp::Ordering::Greater => {
                    note(prefix_of(&h2));
                    change.added += 1;
                    y = before(b.next())?;
                }
                std::cmp::Ordering::Equal => {
                    if c1 != c2 {
                        note(prefix_of(&h1));
                        change.recounted += 1;
                    }
                    x = before(a.next())?;
                    y = before(b.next())?;
                }
            },
        }
    }
}
