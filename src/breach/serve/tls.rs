//! HTTPS for the range server: a rustls server configuration (ring's provider, TLS 1.2
//! and 1.3, ALPN `http/1.1`) from a PEM certificate chain and a PEM private key, as
//! `openssl`, `mkcert`, `certbot` and private CAs write them.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::sync::Arc;

/// Why a certificate or key cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The certificate file holds no PEM certificate.
    #[error("no PEM certificate (-----BEGIN CERTIFICATE-----) in the certificate file")]
    NoCertificate,
    /// A certificate block that does not decode.
    #[error("the certificate file is not valid PEM: {0}")]
    BadCertificate(String),
    /// The key file holds no private key, or one that does not decode.
    #[error(
        "no PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC) in the key file{}",
        .0.as_deref().map(|e| format!(": {e}")).unwrap_or_default()
    )]
    BadKey(Option<String>),
    /// rustls refused the pair (a key that does not match the certificate, an
    /// unsupported algorithm).
    #[error("the certificate and key cannot be used together: {0}")]
    Refused(String),
}

/// The server configuration for the certificate chain `cert_pem` (the server's
/// certificate first) and the private key `key_pem`.
pub fn tls_config(cert_pem: &[u8], key_pem: &[u8]) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let certs = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::BadCertificate(e.to_string()))?;
    if certs.is_empty() {
        return Err(TlsError::NoCertificate);
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| {
        TlsError::BadKey(match e {
            rustls::pki_types::pem::Error::NoItemsFound => None,
            e => Some(e.to_string()),
        })
    })?;
    let provider = Arc::new(crate::tls::provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Refused(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| TlsError::Refused(e.to_string()))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CERT: &[u8] = include_bytes!("../../../tests/fixtures/tls/server.pem");
    const KEY: &[u8] = include_bytes!("../../../tests/fixtures/tls/server.key");
    const OTHER_KEY: &[u8] = include_bytes!("../../../tests/fixtures/tls/ca.key");

    #[test]
    fn a_certificate_and_its_key_make_a_configuration() {
        let c = tls_config(CERT, KEY).unwrap();
        assert_eq!(c.alpn_protocols, vec![b"http/1.1".to_vec()]);
    }

    #[test]
    fn missing_or_mismatched_parts_are_named() {
        assert!(matches!(tls_config(b"", KEY), Err(TlsError::NoCertificate)));
        assert!(matches!(tls_config(KEY, KEY), Err(TlsError::NoCertificate)));
        assert!(matches!(
            tls_config(CERT, CERT),
            Err(TlsError::BadKey(None))
        ));
        assert!(matches!(
            tls_config(CERT, OTHER_KEY),
            Err(TlsError::Refused(_))
        ));
    }
}
