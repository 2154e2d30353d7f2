//! A download's journal and saved state as a crash, a full disk or another program may
//! leave them: reading them back never panics; the journal gives entries in order of
//! prefix, each whole and well formed, then stops where it was cut; the state gives its
//! checkpoints' validators in order of range, never past the ranges it claims.

use crate::breach::HashKind;
use crate::breach::download::body::well_formed;
use crate::breach::download::journal::{self, SourceId};
use crate::breach::download::state;
use std::sync::OnceLock;

fn dir() -> &'static std::path::Path {
    static D: OnceLock<tempfile::TempDir> = OnceLock::new();
    D.get_or_init(|| tempfile::tempdir().expect("a temporary directory"))
        .path()
}

/// One input: the first byte chooses the file (bit 0: journal or state) and whether
/// the header a download of SHA-1 hashes from source `src` writes comes first (bit 1),
/// the rest is the file's bytes.
pub fn run(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let state_file = pick & 1 != 0;
    let magic: &[u8; 8] = if state_file { b"VKDLS001" } else { b"VKDLJ001" };
    let mut bytes = if pick & 2 != 0 {
        journal::header(magic, HashKind::Sha1, "src")
    } else {
        Vec::new()
    };
    bytes.extend_from_slice(rest);
    let path = dir().join(format!("case-{}", std::process::id()));
    std::fs::write(&path, &bytes).expect("written");
    let source = SourceId::from("src");
    if state_file {
        let mut last = None::<u32>;
        let read = state::open(&path, HashKind::Sha1, &source, &mut |prefix, _| {
            assert!(last.is_none_or(|l| prefix == l + 1) && (last.is_some() || prefix == 0));
            last = Some(prefix);
            Ok(())
        });
        if let Ok((_, Some(saved))) = read {
            assert_eq!(last.map_or(0, |l| l + 1), saved.next);
        }
    } else if let Ok(mut replay) = journal::open(&path, HashKind::Sha1, &source) {
        let mut last = None::<u32>;
        while let Ok(Some(entry)) = replay.next_entry() {
            assert!(last.is_none_or(|l| entry.prefix == l + 1));
            assert!(entry.prefix < 1 << 20);
            let _ = well_formed(HashKind::Sha1, &entry.packed);
            last = Some(entry.prefix);
        }
    }
    let _ = std::fs::remove_file(&path);
}
