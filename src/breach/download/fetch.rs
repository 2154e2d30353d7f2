//! Fetching one range over HTTP(S), as a good client of a CDN: one pooled client
//! (HTTP/2 where the server offers it, keep-alive HTTP/1.1 otherwise), compressed bodies
//! (Zstandard and gzip by default, Brotli on request: [`decode`]), a User-Agent naming
//! veilkit, retries with exponential backoff and jitter on timeouts, resets, 429
//! (honouring Retry-After) and 5xx, and every body checked before use.

use super::super::HashKind;
use super::body::{self, BodyError, MAX_BODY, Packed};
use super::budget::{Budget, Held};
use super::decode::{Decoder, Encoding};
use crate::remote::http::without_userinfo;
use crate::remote::http::{backoff, chain, retry_after};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The public range API.
pub const PUBLIC_API: &str = "https://api.pwnedpasswords.com/range/{prefix}";

/// Where ranges come from: a URL template with a `{prefix}` placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    template: String,
    /// Every range must hold hashes (the public API: the Pwned Passwords data has no
    /// empty range, so an empty body from it is damage, not data).
    every_range_holds_hashes: bool,
}

impl Source {
    /// The public API (`None`) or a mirror: a URL holding `{prefix}` is used as it is
    /// (an `export-ranges` tree: `https://host/ranges/{prefix}.txt`); any other URL is
    /// the base of a range API (another `veilkit breach serve`), to which `/range/{prefix}`
    /// is added. NTLM asks the API form for `?mode=ntlm`.
    pub fn new(url: Option<&str>, kind: HashKind) -> Result<Source, String> {
        let mode = match kind {
            HashKind::Sha1 => "",
            HashKind::Ntlm => "?mode=ntlm",
        };
        let template = match url {
            None => format!("{PUBLIC_API}{mode}"),
            Some(u) if u.contains("{prefix}") => u.to_string(),
            Some(u) => format!("{}/range/{{prefix}}{mode}", u.trim_end_matches('/')),
        };
        let probe = template.replace("{prefix}", "00000");
        let shown = without_userinfo(url.unwrap_or(&probe));
        let parsed = reqwest::Url::parse(&probe).map_err(|e| {
            format!("{shown}: not a URL ({e}): give one such as http://HOST:PORT/ or https://HOST/ranges/{{prefix}}.txt")
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!(
                "{shown}: only http and https sources are supported"
            ));
        }
        Ok(Source {
            template,
            every_range_holds_hashes: url.is_none(),
        })
    }

    /// The same source, with a body without hashes taken as damaged (retried, then an
    /// error naming the range) instead of as an empty range: what the public API's
    /// source does, for a mirror known to hold the whole data.
    pub fn every_range_holds_hashes(self) -> Source {
        Source {
            every_range_holds_hashes: true,
            ..self
        }
    }

    /// The template, user name and password included.
    pub fn template(&self) -> &str {
        &self.template
    }

    /// The template without its user information (`USER:PASS@`): what the journal and
    /// the state record as the download's source, so that no password is kept at rest
    /// and a password changed between runs still continues the same download.
    pub fn identity(&self) -> String {
        without_userinfo(&self.template)
    }

    /// The URL of range `prefix`.
    pub fn url(&self, prefix: u32) -> String {
        let hex = body::prefix_hex(prefix);
        self.template
            .replace("{prefix}", std::str::from_utf8(&hex).expect("hex"))
    }
}

/// The longest ETag or Last-Modified kept; longer ones are not kept (the range is then
/// fetched unconditionally by `update`).
pub const MAX_VALIDATOR: usize = 1024;

/// How to fetch.
#[derive(Debug, Clone)]
pub struct Options {
    /// Requests in flight at once.
    pub parallel: usize,
    /// Attempts after the first, per range.
    pub retries: u32,
    /// The limit of one request, from sending to the end of the body.
    pub timeout: Duration,
    /// The first backoff (doubled at each retry, up to 30 s, with jitter).
    pub backoff: Duration,
    /// Extra trusted certificates (PEM), beside the system's.
    pub cacert: Option<Vec<u8>>,
    /// The content codings asked for, most wanted first (`Accept-Encoding`).
    pub accept: Vec<Encoding>,
    /// Told of every retry before its wait, so that a user hears at once why nothing
    /// arrives (an unreachable mirror, a name that does not resolve).
    pub on_retry: Option<RetryHook>,
}

/// What [`Options::on_retry`] is told.
#[derive(Debug, Clone)]
pub struct Retrying {
    /// The range, in hex.
    pub prefix: String,
    /// What failed (never the source's user information).
    pub problem: String,
    /// The attempt that failed, from 1, and the most that will be made.
    pub attempt: u32,
    /// Attempts at most.
    pub of: u32,
    /// The wait before the next.
    pub delay: Duration,
}

/// A callback told of each retry ([`Options::on_retry`]).
#[derive(Clone)]
pub struct RetryHook(pub Arc<dyn Fn(&Retrying) + Send + Sync>);

impl std::fmt::Debug for RetryHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RetryHook")
    }
}

/// Attempts at most for a range whose host name does not resolve: a name that does not
/// exist seldom comes to exist within seconds, and every range would wait the whole
/// backoff for it (almost two minutes at the default ten retries).
pub const UNRESOLVED_ATTEMPTS: u32 = 3;

/// The codings asked for by default: Zstandard, then gzip. Not Brotli: on range bodies
/// it saves about a twentieth of gzip's bytes and takes twice gzip's CPU to decode
/// (`cargo bench --features bench --bench range_bodies`); `--accept-encoding` asks for it.
pub const DEFAULT_ACCEPT: [Encoding; 2] = [Encoding::Zstd, Encoding::Gzip];

impl Default for Options {
    fn default() -> Options {
        Options {
            parallel: 32,
            retries: 10,
            timeout: Duration::from_secs(60),
            backoff: Duration::from_millis(250),
            cacert: None,
            accept: DEFAULT_ACCEPT.to_vec(),
            on_retry: None,
        }
    }
}

/// The validators of a range as last fetched, for a conditional request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    /// ETag.
    pub etag: Option<String>,
    /// Last-Modified.
    pub last_modified: Option<String>,
}

/// A fetched range.
#[derive(Debug)]
pub enum Outcome {
    /// A body, checked and packed, with its validators and its size as received.
    Fresh {
        /// The hashes.
        packed: Packed,
        /// ETag and Last-Modified.
        validators: Validators,
        /// Bytes of body after decompression.
        bytes: u64,
        /// Bytes of body as received.
        wire: u64,
        /// Its share of the download's byte budget, held until the build takes it.
        held: Held,
    },
    /// 304: unchanged since the validators given.
    NotModified,
}

/// Why a range could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The client could not be set up.
    #[error("HTTP client: {0}")]
    Client(String),
    /// The last attempt failed, or an answer that retrying cannot change.
    #[error("range {prefix}: {problem}{}", if *.attempts > 1 { format!(" (after {} attempts)", .attempts) } else { String::new() })]
    Range {
        /// The prefix, in hex.
        prefix: String,
        /// The last problem.
        problem: String,
        /// Attempts made.
        attempts: u32,
    },
}

/// One attempt's failure: retry (after at least the delay given), or give up.
enum Failure {
    Retry(String, Option<Duration>),
    /// The host name did not resolve: retried [`UNRESOLVED_ATTEMPTS`] times at most.
    Unresolved(String),
    Fatal(String),
}

/// A pooled client for one source.
pub struct Fetcher {
    client: reqwest::Client,
    source: Source,
    kind: HashKind,
    options: Options,
    accept: reqwest::header::HeaderValue,
    /// Decoding is synchronous (between awaits), so one decoder serves every request;
    /// the lock is never contended on the one-threaded runtime.
    decoder: Mutex<Decoder>,
}

impl Fetcher {
    /// A client for `source`.
    pub fn new(source: Source, kind: HashKind, options: Options) -> Result<Fetcher, FetchError> {
        let client = crate::remote::http::client(crate::remote::http::ClientSpec {
            agent: "(breach download)",
            timeout: options.timeout,
            connect_timeout: options.timeout.min(Duration::from_secs(30)),
            pool: options.parallel,
            redirect_hint: "give that one as --source to download from it",
            cacert: options.cacert.as_deref(),
        })
        .map_err(FetchError::Client)?;
        let accept = accept_header(&options.accept);
        Ok(Fetcher {
            client,
            source,
            kind,
            options,
            accept,
            decoder: Mutex::new(Decoder::new()),
        })
    }

    /// The source.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// Fetches range `prefix` (conditionally when `since` is given), retrying as the
    /// module says.
    /// Its body and packed hashes count against `budget` until the build takes it.
    pub async fn fetch(
        &self,
        prefix: u32,
        since: Option<&Validators>,
        budget: &Budget,
    ) -> Result<Outcome, FetchError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let failure = match self.attempt(prefix, since, budget).await {
                Ok(o) => return Ok(o),
                Err(f) => f,
            };
            let hex = String::from_utf8_lossy(&body::prefix_hex(prefix)).into_owned();
            let all = self.options.retries + 1;
            let (problem, after, of) = match failure {
                // An answer retrying cannot change: this attempt was the last.
                Failure::Fatal(p) => (p, None, attempt),
                Failure::Retry(p, after) => (p, after, all),
                Failure::Unresolved(p) => (p, None, UNRESOLVED_ATTEMPTS.min(all)),
            };
            if attempt >= of {
                return Err(FetchError::Range {
                    prefix: hex,
                    problem,
                    attempts: attempt,
                });
            }
            let delay = after.unwrap_or_else(|| backoff(self.options.backoff, attempt));
            if let Some(hook) = &self.options.on_retry {
                (hook.0)(&Retrying {
                    prefix: hex,
                    problem,
                    attempt,
                    of,
                    delay,
                });
            }
            tokio::time::sleep(delay).await;
        }
    }

    async fn attempt(
        &self,
        prefix: u32,
        since: Option<&Validators>,
        budget: &Budget,
    ) -> Result<Outcome, Failure> {
        let mut req = self
            .client
            .get(self.source.url(prefix))
            .header(reqwest::header::ACCEPT_ENCODING, self.accept.clone());
        if let Some(v) = since {
            if let Some(e) = &v.etag {
                req = req.header(reqwest::header::IF_NONE_MATCH, e);
            }
            if let Some(m) = &v.last_modified {
                req = req.header(reqwest::header::IF_MODIFIED_SINCE, m);
            }
        }
        let mut resp = req.send().await.map_err(|e| {
            // Without the URL, which may hold the source's user information: the
            // error names the range, and the source is the user's own.
            let (redirect, connect) = (e.is_redirect(), e.is_connect());
            let problem = chain(&e.without_url());
            if redirect {
                Failure::Fatal(problem)
            } else if connect && problem.contains("dns error") {
                Failure::Unresolved(problem)
            } else {
                Failure::Retry(problem, None)
            }
        })?;
        let status = resp.status();
        if status == reqwest::StatusCode::NOT_MODIFIED && since.is_some() {
            return Ok(Outcome::NotModified);
        }
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
            let after = retry_after(resp.headers());
            return Err(Failure::Retry(format!("HTTP {status}"), after));
        }
        if !status.is_success() || status == reqwest::StatusCode::PARTIAL_CONTENT {
            return Err(Failure::Fatal(format!("HTTP {status}")));
        }
        let header = |name| {
            resp.headers()
                .get(name)
                .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
                .filter(|s| !s.is_empty() && s.len() <= MAX_VALIDATOR)
                .map(str::to_string)
        };
        let validators = Validators {
            etag: header(reqwest::header::ETAG),
            last_modified: header(reqwest::header::LAST_MODIFIED),
        };
        let encoding = resp
            .headers()
            .get(reqwest::header::CONTENT_ENCODING)
            .map(|v| v.to_str().unwrap_or("(not text)"));
        let encoding = Encoding::from_header(encoding).map_err(|e| {
            Failure::Retry(
                format!("the server sent a coding veilkit cannot read: Content-Encoding {e}"),
                None,
            )
        })?;
        // Sized by Content-Length up to 1 MiB (a larger body grows as it arrives: a header
        // alone does not make memory be set aside).
        let mut raw = Vec::with_capacity(
            resp.content_length()
                .map_or(1 << 16, |n| n.min(1 << 20) as usize),
        );
        // The body counts against the budget as it arrives (what the chunk in hand
        // already takes is not refused: one chunk is a few KB).
        let mut held = Held::default();
        loop {
            match resp.chunk().await {
                Ok(Some(c)) => {
                    if raw.len() + c.len() > MAX_BODY {
                        return Err(Failure::Retry(BodyError::TooLarge.to_string(), None));
                    }
                    budget
                        .grow(prefix, &mut held, (raw.len() + c.len()) as u64)
                        .await;
                    raw.extend_from_slice(&c);
                }
                Ok(None) => break,
                Err(e) => {
                    return Err(Failure::Retry(
                        format!("body: {}", chain(&e.without_url())),
                        None,
                    ));
                }
            }
        }
        let mut decoder = self.decoder.lock().unwrap_or_else(|e| e.into_inner());
        let text = decoder
            .decode(encoding, &raw)
            .map_err(|e| Failure::Retry(e.to_string(), None))?;
        let (bytes, wire) = (text.len() as u64, raw.len() as u64);
        let packed = body::pack(self.kind, prefix, text)
            .map_err(|e| Failure::Retry(format!("malformed body: {e}"), None))?;
        // From here the packed hashes are what the range holds until it is built.
        drop(decoder);
        drop(raw);
        budget.shrink(&mut held, packed.bytes.len() as u64);
        if packed.hashes == 0 && self.source.every_range_holds_hashes {
            return Err(Failure::Retry(
                "a body without hashes, where every range of the Pwned Passwords data holds hundreds"
                    .into(),
                None,
            ));
        }
        Ok(Outcome::Fresh {
            packed,
            validators,
            bytes,
            wire,
            held,
        })
    }
}

/// The `Accept-Encoding` value asking for `codings` in order: the first plainly, each
/// next one a tenth less wanted (`zstd, gzip;q=0.9`). Identity, when not named, stays
/// acceptable as HTTP says; none named asks for identity alone.
fn accept_header(codings: &[Encoding]) -> reqwest::header::HeaderValue {
    let parts: Vec<String> = codings
        .iter()
        .take(9)
        .enumerate()
        .map(|(i, e)| match i {
            0 => e.token().to_string(),
            _ => format!("{};q=0.{}", e.token(), 10 - i),
        })
        .collect();
    let value = if parts.is_empty() {
        "identity".to_string()
    } else {
        parts.join(", ")
    };
    reqwest::header::HeaderValue::from_str(&value).expect("codings are tokens")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_information_is_left_out_of_what_is_kept_and_shown() {
        for (url, want) in [
            ("https://u:p@host/r/{prefix}", "https://host/r/{prefix}"),
            ("http://user@host:8000", "http://host:8000/range/{prefix}"),
            (
                "http://a:b@c@host/x/{prefix}?y=@z",
                "http://host/x/{prefix}?y=@z",
            ),
            ("http://host/a@b/{prefix}", "http://host/a@b/{prefix}"),
        ] {
            let s = Source::new(Some(url), HashKind::Sha1).unwrap();
            assert_eq!(s.identity(), want, "{url}");
            assert!(
                s.template()
                    .contains(without_userinfo(url).split('/').nth(2).unwrap())
            );
        }
        let e = Source::new(Some("ftp://u:secret@host/{prefix}"), HashKind::Sha1).unwrap_err();
        assert!(!e.contains("secret") && e.contains("ftp://host/"), "{e}");
        let e = Source::new(Some("127.0.0.1:9"), HashKind::Sha1).unwrap_err();
        assert!(e.starts_with("127.0.0.1:9: not a URL"), "{e}");
    }

    #[test]
    fn sources_give_the_urls_users_expect() {
        let s = |u, k| Source::new(u, k).unwrap().url(0xABC01);
        assert_eq!(
            s(None, HashKind::Sha1),
            "https://api.pwnedpasswords.com/range/ABC01"
        );
        assert_eq!(
            s(None, HashKind::Ntlm),
            "https://api.pwnedpasswords.com/range/ABC01?mode=ntlm"
        );
        assert_eq!(
            s(Some("http://127.0.0.1:8000/"), HashKind::Sha1),
            "http://127.0.0.1:8000/range/ABC01"
        );
        assert_eq!(
            s(Some("https://m.example/r/{prefix}.txt"), HashKind::Ntlm),
            "https://m.example/r/ABC01.txt"
        );
        assert!(Source::new(Some("ftp://x/{prefix}"), HashKind::Sha1).is_err());
        assert!(Source::new(Some("not a url"), HashKind::Sha1).is_err());
    }
}
