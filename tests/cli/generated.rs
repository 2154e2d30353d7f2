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

#[test]
fn completions_and_man_pages_come_from_the_installed_binary() {
    use super::common::*;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (shell, file) in [
        ("bash", "veilkit.bash"),
        ("zsh", "_veilkit"),
        ("fish", "veilkit.fish"),
        ("elvish", "veilkit.elv"),
        ("powershell", "_veilkit.ps1"),
    ] {
        let out = run_ok(veilkit().args(["completions", shell]));
        assert_eq!(
            out.stdout,
            std::fs::read(root.join("completions").join(file)).unwrap(),
            "{shell}"
        );
    }
    let bad = veilkit().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    // The top-level page on stdout; every page into a directory, refused over existing
    // pages without --force.
    let out = run_ok(veilkit().arg("man"));
    assert_eq!(
        out.stdout,
        std::fs::read(root.join("man/veilkit.1")).unwrap()
    );
    let dir = tempfile::tempdir().unwrap();
    veilkit()
        .args(["-q", "man"])
        .arg(dir.path())
        .assert()
        .success();
    let mut written: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut committed: Vec<String> = std::fs::read_dir(root.join("man"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    committed.sort();
    assert_eq!(written, committed);
    for name in &written {
        assert_eq!(
            std::fs::read(dir.path().join(name)).unwrap(),
            std::fs::read(root.join("man").join(name)).unwrap(),
            "{name}"
        );
    }
    let again = veilkit().arg("man").arg(dir.path()).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    veilkit()
        .args(["-q", "man", "--force"])
        .arg(dir.path())
        .assert()
        .success();
    let not_dir = veilkit()
        .arg("man")
        .arg(dir.path().join("veilkit.1"))
        .output()
        .unwrap();
    assert_eq!(not_dir.status.code(), Some(2));
    assert!(stderr_of(&not_dir).contains("not a directory"));
    // A folder not made yet (~/.local/share/man/man1 on a fresh account) is made, as the
    // README's command expects.
    let fresh = dir.path().join("share/man/man1");
    veilkit().args(["-q", "man"]).arg(&fresh).assert().success();
    assert_eq!(std::fs::read_dir(&fresh).unwrap().count(), written.len());
}

/// `veilkit help SUB` (and `veilkit breach help query`) print the same help as `--help`,
/// as git and cargo do.
#[test]
fn help_subcommand_prints_the_subcommands_help() {
    for (via_help, via_flag) in [
        (vec!["help", "records"], vec!["records", "--help"]),
        (
            vec!["breach", "help", "query"],
            vec!["breach", "query", "--help"],
        ),
    ] {
        let a = crate::common::veilkit().args(&via_help).output().unwrap();
        let b = crate::common::veilkit().args(&via_flag).output().unwrap();
        assert_eq!(a.status.code(), Some(0), "{via_help:?}");
        assert_eq!(a.stdout, b.stdout, "{via_help:?}");
    }
}
