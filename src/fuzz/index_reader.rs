//! The index reader on arbitrary bytes (usually a valid index with damage): opening,
//! looking up, iterating and verifying never panic.
use crate::breach::format::Wide;
use crate::breach::index::Index;
use crate::progress::NoProgress;

/// One input.
pub fn run(data: &[u8]) {
    if let Ok(index) = Index::from_bytes(data.to_vec()) {
        let _ = index.verify(&NoProgress);
        for (i, r) in index.iter().take(64).enumerate() {
            if let Ok((h, _)) = r {
                let _ = index.lookup(&h);
            }
            let _ = index.lookup(&Wide([
                (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                0,
                0,
            ]));
        }
        let hashes: Vec<Wide> = (0..40u64)
            .map(|i| Wide([i.wrapping_mul(0xd1b5_4a32_d192_ed03), i, 0]))
            .collect();
        let mut counts = vec![0; hashes.len()];
        let _ = index.lookup_many(&hashes, &mut counts);
    }
}
