//! A PostgreSQL URL as veilkit takes it (`postgres://USER@HOST:PORT/DB?sslmode=...`):
//! parsed once, shown without its password, connected with TLS where asked, and
//! reconnected after a fault with bounded retries.

use super::super::NonceError;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// How long a connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long faults of the connection (the server restarting, a lost connection, a
/// cancelled statement) are retried mid-run before the error is the answer.
pub const RETRY_FOR: Duration = Duration::from_secs(30);
/// How long a run retries before its first connection: a database that is down when a
/// run starts is said soon (the run has issued nothing yet).
pub const START_RETRY_FOR: Duration = Duration::from_secs(5);

/// Where the TLS roots come from.
#[derive(Debug, Clone)]
enum Roots {
    /// The system's (`sslmode=require`, `prefer`).
    System,
    /// A PEM file's (`sslrootcert=FILE`).
    File(std::path::PathBuf),
}

/// A parsed PostgreSQL URL.
#[derive(Clone)]
pub struct Target {
    config: postgres::Config,
    shown: String,
    tls: tokio_postgres_rustls::MakeRustlsConnect,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

/// Whether `s` names a PostgreSQL database rather than a file.
pub fn is_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

impl Target {
    /// Parses `url`. Without a password in it, `PGPASSWORD` gives one, then the
    /// password file (`PGPASSFILE`, else `~/.pgpass`), as libpq does. `sslrootcert=FILE`
    /// names the PEM roots that verify the server (else the system's).
    pub fn parse(url: &str) -> Result<Target, NonceError> {
        let bad = |why: String| NonceError::DatabaseUrl(why);
        // sslrootcert is libpq's; tokio-postgres does not take it, so it is cut out here.
        let (url_rest, roots) = take_param(url, "sslrootcert");
        let roots = match roots {
            Some(path) => Roots::File(path.into()),
            None => Roots::System,
        };
        let mut config: postgres::Config = url_rest.parse().map_err(|e: postgres::Error| {
            // The parser's message may quote the text it could not read: never the URL.
            bad(format!("not a PostgreSQL URL veilkit can use ({e})").replace(url, "URL"))
        })?;
        if config.get_hosts().is_empty() {
            config.host("localhost");
        }
        if config.get_user().is_none() {
            let user = std::env::var("PGUSER")
                .ok()
                .filter(|u| !u.is_empty())
                .or_else(|| std::env::var("USER").ok())
                .unwrap_or_else(|| "postgres".into());
            config.user(&user);
        }
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let host = match config.get_hosts().first() {
            Some(postgres::config::Host::Tcp(h)) => h.clone(),
            #[cfg(unix)]
            Some(postgres::config::Host::Unix(p)) => p.display().to_string(),
            None => "localhost".into(),
        };
        let db = config
            .get_dbname()
            .map(str::to_string)
            .unwrap_or_else(|| config.get_user().unwrap_or_default().to_string());
        let user = config.get_user().unwrap_or_default().to_string();
        if config.get_password().is_none() {
            if let Some(p) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty()) {
                config.password(p.as_encoded_bytes());
            } else if let Some(p) = pgpass(&host, port, &db, &user) {
                config.password(p);
            }
        }
        config.connect_timeout(CONNECT_TIMEOUT);
        config.keepalives(true);
        config.keepalives_idle(Duration::from_secs(10));
        config.application_name("veilkit nonce");
        let shown = format!("postgres://{user}@{host}:{port}/{db}");
        let tls = tls(&roots)?;
        Ok(Target { config, shown, tls })
    }

    /// The URL without its password, for messages.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// A connection.
    pub fn connect(&self) -> Result<postgres::Client, NonceError> {
        self.connect_raw().map_err(|e| self.error(e))
    }

    /// A connection, or the driver's error (TLS settings that cannot be used are said
    /// when the target is parsed).
    fn connect_raw(&self) -> Result<postgres::Client, postgres::Error> {
        match self.config.get_ssl_mode() {
            postgres::config::SslMode::Disable => self.config.connect(postgres::NoTls),
            _ => self.config.connect(self.tls.clone()),
        }
    }
    /// `e` as veilkit's error, naming the database (without the password).
    pub fn error(&self, e: postgres::Error) -> NonceError {
        NonceError::Database {
            url: self.shown.clone(),
            why: describe(&e),
        }
    }
}

/// The TLS connector for `roots`.
fn tls(roots: &Roots) -> Result<tokio_postgres_rustls::MakeRustlsConnect, NonceError> {
    let provider = Arc::new(crate::tls::provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| NonceError::DatabaseUrl(format!("TLS: {e}")))?;
    let config = match roots {
        Roots::System => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(LazyPlatform::new(provider)))
            .with_no_client_auth(),
        Roots::File(path) => {
            use rustls_pki_types::pem::PemObject;
            let shown = path.display();
            let pem = std::fs::File::open(path)
                .and_then(|mut f| {
                    crate::streams::read_capped(&mut f, crate::streams::SMALL_FILE_CAP)
                })
                .map_err(|e| NonceError::DatabaseUrl(format!("sslrootcert {shown}: {e}")))?;
            let mut roots = rustls::RootCertStore::empty();
            for cert in rustls_pki_types::CertificateDer::pem_slice_iter(&pem) {
                let cert =
                    cert.map_err(|e| NonceError::DatabaseUrl(format!("sslrootcert {shown}: {e}")))?;
                roots
                    .add(cert)
                    .map_err(|e| NonceError::DatabaseUrl(format!("sslrootcert {shown}: {e}")))?;
            }
            if roots.is_empty() {
                return Err(NonceError::DatabaseUrl(format!(
                    "sslrootcert {shown}: no PEM certificate in the file"
                )));
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
    };
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// The system's verifier, built when a server first presents a certificate: building it
/// reads every root certificate of the system (some 5 ms here), which a connection that
/// ends up without TLS (`sslmode=prefer` with a server that offers none) never needs. It
/// is the platform verifier itself, unchanged, once built.
#[derive(Debug)]
struct LazyPlatform {
    provider: Arc<rustls::crypto::CryptoProvider>,
    inner: OnceLock<Result<rustls_platform_verifier::Verifier, rustls::Error>>,
}

impl LazyPlatform {
    fn new(provider: Arc<rustls::crypto::CryptoProvider>) -> LazyPlatform {
        LazyPlatform {
            provider,
            inner: OnceLock::new(),
        }
    }

    fn get(&self) -> Result<&rustls_platform_verifier::Verifier, rustls::Error> {
        self.inner
            .get_or_init(|| rustls_platform_verifier::Verifier::new(self.provider.clone()))
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl rustls::client::danger::ServerCertVerifier for LazyPlatform {
    fn verify_server_cert(
        &self,
        end_entity: &rustls_pki_types::CertificateDer<'_>,
        intermediates: &[rustls_pki_types::CertificateDer<'_>],
        server_name: &rustls_pki_types::ServerName<'_>,
        ocsp_response: &[u8],
        now: rustls_pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        self.get()?
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls_pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        self.get()?.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls_pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        self.get()?.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        // What the provider verifies (the platform verifier answers the same).
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The text of a database error: the server's message and detail when it sent one, else
/// the client's, with its cause.
pub fn describe(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return match db.detail() {
            Some(d) => format!("{} ({d})", db.message()),
            None => db.message().to_string(),
        };
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

/// Whether `e` is a fault that a new connection and a second try may get past: the
/// connection lost, refused or timed out, the server shutting down or starting, a
/// statement cancelled (a statement timeout), a serialization failure or deadlock, too
/// many connections. Not: a certificate not trusted, a password refused, a database
/// that does not exist, a statement the server rejects.
pub fn retryable(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(code) = e.code() {
        let c = code.code();
        return c.starts_with("08")
            || c.starts_with("57P")
            || c == "57014"
            || c == "40001"
            || c == "40P01"
            || c == "53300";
    }
    if e.as_db_error().is_some() {
        return false;
    }
    // The client's own errors: retried when the network failed, not when TLS did.
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            return matches!(
                io.kind(),
                ConnectionRefused
                    | ConnectionReset
                    | ConnectionAborted
                    | NotConnected
                    | BrokenPipe
                    | TimedOut
                    | UnexpectedEof
                    | AddrNotAvailable
                    | HostUnreachable
                    | NetworkUnreachable
            ) && io
                .get_ref()
                .is_none_or(|inner| !inner.is::<rustls::Error>());
        }
        source = s.source();
    }
    // "timeout waiting for server" (connect_timeout) carries no cause.
    e.to_string().contains("timeout")
}

/// Runs `op` on a connection, reconnecting and running it again after a retryable
/// fault, with backoff, for at most `limit`. `op` must be safe to run again after a
/// fault at any point: a transaction that either committed or did not, whose effect
/// repeated only wastes values.
pub fn with_retries<T>(
    target: &Target,
    limit: Duration,
    client: &mut Option<postgres::Client>,
    mut op: impl FnMut(&mut postgres::Client) -> Result<T, postgres::Error>,
) -> Result<T, NonceError> {
    let started = Instant::now();
    let mut wait = Duration::from_millis(50);
    loop {
        let attempt = match client.as_mut() {
            Some(c) => op(c).map_err(|e| (retryable(&e), target.error(e))),
            None => match target.connect_raw() {
                Ok(c) => {
                    *client = Some(c);
                    continue;
                }
                Err(e) => Err((retryable(&e), target.error(e))),
            },
        };
        match attempt {
            Ok(v) => return Ok(v),
            Err((again, e)) => {
                // A connection that failed is not used again.
                if client.as_ref().is_none_or(postgres::Client::is_closed) || again {
                    *client = None;
                }
                if !again || started.elapsed() + wait > limit {
                    return Err(e);
                }
                std::thread::sleep(wait);
                wait = (wait * 2).min(Duration::from_secs(2));
            }
        }
    }
}

/// `url` without its query parameter `name`, and that parameter's value.
fn take_param(url: &str, name: &str) -> (String, Option<String>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_string(), None);
    };
    let mut value = None;
    let kept: Vec<&str> = query
        .split('&')
        .filter(|kv| match kv.split_once('=') {
            Some((k, v)) if k == name => {
                value = Some(percent_decode(v));
                false
            }
            _ => true,
        })
        .collect();
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (url, value)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 3 <= b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The password for this connection from the password file (`PGPASSFILE`, else
/// `~/.pgpass`), as libpq reads it: `host:port:db:user:password`, `*` matching anything,
/// `\` escaping `:` and `\`. A file readable by others is ignored, as libpq does.
fn pgpass(host: &str, port: u16, db: &str, user: &str) -> Option<String> {
    let path = std::env::var_os("PGPASSFILE")
        .filter(|p| !p.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".pgpass")))?;
    let mut f = std::fs::File::open(&path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = f.metadata().ok()?;
        if !m.is_file() || m.mode() & 0o077 != 0 {
            return None;
        }
    }
    let text = crate::streams::read_capped(&mut f, crate::streams::SMALL_FILE_CAP).ok()?;
    let text = String::from_utf8(text).ok()?;
    let port = port.to_string();
    let want = [host, port.as_str(), db, user];
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|line| {
            let fields = split_pgpass(line);
            (fields.len() == 5
                && fields[..4]
                    .iter()
                    .zip(want)
                    .all(|(f, w)| f == "*" || f == w || (f == "localhost" && w.starts_with('/'))))
            .then(|| fields[4].clone())
        })
}

fn split_pgpass(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    fields.last_mut().expect("one").push(n);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut().expect("one").push(c),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_their_password() {
        let t =
            Target::parse("postgres://alice:s3cret@db.example:6543/fleet?sslmode=disable").unwrap();
        assert_eq!(t.shown(), "postgres://alice@db.example:6543/fleet");
        assert!(!format!("{t:?}").contains("s3cret"));
        let e = Target::parse("postgres://alice:s3cret@db.example:6543/fleet?bogus=1")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("s3cret"), "{e}");
    }

    #[test]
    fn sslrootcert_is_taken_out_of_the_url() {
        assert_eq!(
            take_param(
                "postgres://h/db?sslmode=require&sslrootcert=%2Ftmp%2Fca.pem",
                "sslrootcert"
            ),
            (
                "postgres://h/db?sslmode=require".to_string(),
                Some("/tmp/ca.pem".to_string())
            )
        );
        assert_eq!(
            take_param("postgres://h/db?sslrootcert=ca.pem", "sslrootcert"),
            ("postgres://h/db".to_string(), Some("ca.pem".to_string()))
        );
        assert_eq!(
            take_param("postgres://h/db", "x"),
            ("postgres://h/db".to_string(), None)
        );
    }

    #[test]
    fn pgpass_lines_split_as_libpq_splits_them() {
        assert_eq!(
            split_pgpass(r"h:5432:*:u:pa\:ss\\word:x"),
            vec!["h", "5432", "*", "u", r"pa:ss\word:x"]
        );
    }
}
