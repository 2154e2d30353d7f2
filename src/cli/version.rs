//! `veilkit --version`'s long form: the build's details, as `rg --version` gives them,
//! for bug reports and for telling which fast paths run here. `-V` stays one line.

/// The text after `veilkit ` for `--version`: the version and commit, the cargo features
/// built, the processor features compiled for and those this machine has.
pub fn long() -> String {
    let cargo = [
        ("aws-lc", cfg!(feature = "aws-lc")),
        ("ring", cfg!(feature = "ring")),
    ]
    .iter()
    .map(|(name, on)| format!("{}{name}", if *on { '+' } else { '-' }))
    .collect::<Vec<_>>()
    .join(" ");
    let here = crate::cpu::features();
    let wanted = [
        "aes",
        "vaes",
        "pclmulqdq",
        "sha",
        "sha2",
        "avx2",
        "avx512f",
        "neon",
    ];
    let compiled: Vec<&str> = env!("VEILKIT_TARGET_FEATURES")
        .split(',')
        .filter(|f| wanted.contains(f))
        .collect();
    let list = |v: &[&str]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(" ")
        }
    };
    format!(
        "{} (rev {})\n\nfeatures: {cargo}\ncompiled in ({}): {}; the others are detected at run time\nthis processor: {}",
        env!("CARGO_PKG_VERSION"),
        env!("VEILKIT_REV"),
        std::env::consts::ARCH,
        list(&compiled),
        list(&here),
    )
}
