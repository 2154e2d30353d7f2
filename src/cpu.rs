//! The processor features veilkit's fast paths use, as this machine reports them at run
//! time (`veilkit bench`'s machine line, `veilkit --version`).

/// The features present, by their usual names (`aes`, `vaes`, `pclmulqdq`, `sha`,
/// `avx2`, `avx512f` on x86-64; `aes`, `sha2` on AArch64).
pub fn features() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut features = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("aes") {
            features.push("aes");
        }
        if std::arch::is_x86_feature_detected!("vaes") {
            features.push("vaes");
        }
        if std::arch::is_x86_feature_detected!("pclmulqdq") {
            features.push("pclmulqdq");
        }
        if std::arch::is_x86_feature_detected!("sha") {
            features.push("sha");
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            features.push("avx2");
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            features.push("avx512f");
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("aes") {
            features.push("aes");
        }
        if std::arch::is_aarch64_feature_detected!("sha2") {
            features.push("sha2");
        }
    }
    features
}
