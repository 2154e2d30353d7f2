//! The TLS crypto provider of every connection veilkit makes or serves (`breach
//! download`/`update` as a client, `breach serve --tls-cert` as a server): aws-lc's, the C
//! crypto library already built for record pages, so that the tree builds one C crypto
//! library, not two. A build without the default `aws-lc` feature takes ring's instead
//! (`--no-default-features --features ring`).

/// The provider rustls is given.
#[cfg(feature = "aws-lc")]
pub fn provider() -> rustls::crypto::CryptoProvider {
    // aws-lc reads the processor's features once, here rather than at every process
    // start (built without its static initialiser: .cargo/config.toml).
    aws_lc_rs::init();
    rustls::crypto::aws_lc_rs::default_provider()
}

/// The provider rustls is given.
#[cfg(all(not(feature = "aws-lc"), feature = "ring"))]
pub fn provider() -> rustls::crypto::CryptoProvider {
    rustls::crypto::ring::default_provider()
}

#[cfg(not(any(feature = "aws-lc", feature = "ring")))]
compile_error!(
    "veilkit needs a TLS provider: the default feature `aws-lc`, or `--features ring` without it"
);
