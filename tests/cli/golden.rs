//! Golden cases: arguments, stdin, and the exact stdout, stderr and exit status, kept as
//! data files under `tests/cmd/` (`NAME.toml`, `NAME.stdout`, `NAME.stderr`, and a
//! directory `NAME.in` copied into the case's working directory). Refresh the expected
//! output after a deliberate change of wording with
//! `VEILKIT_REGENERATE=1 cargo test --test cli golden`.
//!
//! A case file holds `key = value` lines, values being TOML basic strings (`\n`, `\t`,
//! `\"`, `\\` escapes), integers or booleans, and an `[env]` table:
//!
//! - `bin.name`: `"veilkit"`; `args`: the arguments, split at spaces;
//! - `stdin`: standard input (none when absent: an empty stream);
//! - `status.code`: the exit status;
//! - `fs.sandbox`: run in a fresh temporary directory (always done here);
//! - `[env]`: `inherit = false` starts from an empty environment; `add.NAME` sets NAME.
//!
//! A missing `.stdout` or `.stderr` file means the stream must be empty.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One parsed case file: `section.key` (or `key`) to value.
fn parse_case(text: &str, path: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut section = String::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = format!("{name}.");
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("{}:{}: not `key = value`", path.display(), n + 1));
        let value = value.trim();
        let value = match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            Some(quoted) => unescape(quoted),
            None => value.to_string(),
        };
        out.insert(format!("{section}{}", key.trim()), value);
    }
    out
}

/// A TOML basic string's escapes.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            other => panic!("unsupported escape \\{other:?}"),
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn golden() {
    let regenerate = std::env::var_os("VEILKIT_REGENERATE").is_some();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "the golden cases are missing");
    let mut failures = Vec::new();
    for case in &cases {
        let spec = parse_case(&std::fs::read_to_string(case).unwrap(), case);
        assert_eq!(spec.get("bin.name").map(String::as_str), Some("veilkit"));
        let sandbox = tempfile::tempdir().unwrap();
        let input = case.with_extension("in");
        if input.is_dir() {
            copy_dir(&input, sandbox.path());
        }
        let mut cmd = std::process::Command::new(super::common::bin());
        cmd.args(spec["args"].split(' ').filter(|a| !a.is_empty()))
            .current_dir(sandbox.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        if spec.get("env.inherit").map(String::as_str) == Some("false") {
            cmd.env_clear();
        }
        for (k, v) in &spec {
            if let Some(var) = k.strip_prefix("env.add.") {
                cmd.env(var, v);
            }
        }
        let mut child = cmd.spawn().unwrap();
        let stdin = spec.get("stdin").cloned().unwrap_or_default();
        {
            use std::io::Write;
            let mut pipe = child.stdin.take().unwrap();
            // A command that exits without reading may close the pipe first.
            let _ = pipe.write_all(stdin.as_bytes());
        }
        let out = child.wait_with_output().unwrap();
        let name = case.file_stem().unwrap().to_string_lossy().into_owned();
        let want_code: i32 = spec["status.code"].parse().unwrap();
        if out.status.code() != Some(want_code) {
            failures.push(format!(
                "{name}: status {:?}, expected {want_code}\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        for (stream, got) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let file = case.with_extension(stream);
            if regenerate {
                if got.is_empty() {
                    let _ = std::fs::remove_file(&file);
                } else {
                    std::fs::write(&file, got).unwrap();
                }
                continue;
            }
            let want = std::fs::read(&file).unwrap_or_default();
            if &want != got {
                failures.push(format!(
                    "{name}: {stream} differs\n--- expected\n{}--- got\n{}",
                    String::from_utf8_lossy(&want),
                    String::from_utf8_lossy(got)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden case(s) failed (refresh deliberate changes with VEILKIT_REGENERATE=1 cargo test --test cli golden):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}
