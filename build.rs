//! Build details for `veilkit --version`: the commit built from (when built from a git
//! checkout) and the target features the code was compiled for.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // In a checkout whose .git is a directory, rebuild the details when HEAD moves; in a
    // worktree or a packaged source the revision is what it was when this last ran.
    let git = Path::new(".git");
    if git.is_dir() {
        println!("cargo:rerun-if-changed=.git/HEAD");
        if let Ok(head) = std::fs::read_to_string(git.join("HEAD"))
            && let Some(r) = head.strip_prefix("ref: ")
            && git.join(r.trim()).exists()
        {
            println!("cargo:rerun-if-changed=.git/{}", r.trim());
        }
    }
    let rev = Command::new("git")
        .args(["rev-parse", "--short=9", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=VEILKIT_REV={rev}");
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    println!("cargo:rustc-env=VEILKIT_TARGET_FEATURES={features}");
}
