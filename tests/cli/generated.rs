//! The committed completions and man pages must match what the clap definition renders.

use std::collections::BTreeSet;
use std::path::Path;
use veilkit::cli::generate::{REFRESH_COMMAND, completions, man_pages};

fn check_dir(dir: &Path, files: Vec<(String, Vec<u8>)>, stale: &mut Vec<String>) {
    let regenerate = std::env::var_os("VEILKIT_REGENERATE").is_some();
    if regenerate {
        std::fs::create_dir_all(dir).unwrap();
    }
    let expected: BTreeSet<String> = files.iter().map(|(n, _)| n.clone()).collect();
    for (name, content) in &files {
        let path = dir.join(name);
        if regenerate {
            std::fs::write(&path, content).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(&content[..]) {
            stale.push(path.display().to_string());
        }
    }
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !expected.contains(&name) {
            if regenerate {
                std::fs::remove_file(entry.path()).unwrap();
            } else {
                stale.push(format!("{} (no longer generated)", entry.path().display()));
            }
        }
    }
}

#[test]
fn generated_files_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stale = Vec::new();
    check_dir(&root.join("completions"), completions(), &mut stale);
    check_dir(&root.join("man"), man_pages(), &mut stale);
    assert!(
        stale.is_empty(),
        "generated files are stale:\n  {}\nrefresh them with:\n  {REFRESH_COMMAND}",
        stale.join("\n  ")
    );
}

#[test]
fn every_man_page_has_the_required_sections() {
    for (name, page) in man_pages() {
        let text = String::from_utf8(page).unwrap();
        for section in ["EXIT STATUS", "ENVIRONMENT", "SYNOPSIS", "DESCRIPTION"] {
            assert!(
                text.contains(&format!(".SH \"{section}\""))
                    || text.contains(&format!(".SH {section}")),
                "{name} lacks {section}"
            );
        }
        if name != "veilkit.1" {
            assert!(text.contains(".SH EXAMPLES"), "{name} lacks EXAMPLES");
        }
    }
}
