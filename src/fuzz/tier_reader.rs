//! Compact indexes and filters from arbitrary bytes: opening, lookups and verification
//! never panic.
use crate::breach::compact::Compact;
use crate::breach::filter::Filter;
use crate::breach::format::Wide;
use crate::progress::NoProgress;

/// One input.
pub fn run(data: &[u8]) {
    let probes: Vec<Wide> = (0u64..64)
        .map(|i| Wide([i.wrapping_mul(0x9e37_79b9_7f4a_7c15), i, 0]))
        .collect();
    if let Ok(c) = Compact::from_slice(data) {
        for p in &probes {
            let _ = c.lookup(p);
        }
        let mut counts = vec![0; probes.len()];
        let _ = c.lookup_many(&probes, &mut counts);
        let _ = c.verify(&NoProgress);
    }
    if let Ok(f) = Filter::from_slice(data) {
        for p in &probes {
            let _ = f.contains(p);
        }
        let _ = f.verify();
    }
}
