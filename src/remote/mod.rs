//! Files read by byte range over HTTP(S): a web server, a CDN, an object store (a public
//! or presigned URL). A [`RemoteFile`] answers `read_exact_at` as a local file does, from
//! what it has fetched or with a `Range` request, and fetches many ranges at once
//! ([`RemoteFile::prefetch`]): ranges that touch are one request, up to
//! [`Options::parallel`] requests in flight on one pooled client (HTTP/2 where the
//! server offers it).
//!
//! Every answer is checked before a byte of it is used: a `206` whose `Content-Range`
//! is exactly the range asked and whose total length is the file's, a body of exactly
//! that many bytes. The first answer's `ETag` (or `Last-Modified`) is sent as `If-Match`
//! (`If-Unmodified-Since`) with every later request, so that a file replaced while it is
//! read is an error ([`RemoteError::Changed`]), never a mix of two versions. What the
//! bytes mean is the caller's to authenticate (record pages are sealed): a server can
//! refuse, delay or replay, not forge.

pub mod http;
pub mod s3;
#[cfg(test)]
pub(crate) mod test_server;

use bytes::Bytes;
use reqwest::header::{self, HeaderValue};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Why a remote read failed. Its text names the URL without user information or query
/// (which may hold a presigned URL's signature), and never holds a credential.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// Not a URL veilkit reads.
    #[error("{0}: not an http:// or https:// URL")]
    BadUrl(String),
    /// A password in a URL given on the command line.
    #[error("{0}: a password in a URL is visible to every user of this machine while veilkit runs")]
    PasswordInUrl(String),
    /// An answer retrying cannot change (404, 403, ...).
    #[error("{url}: HTTP {status}{}", status_text(*.status))]
    Status {
        /// The URL, as shown.
        url: String,
        /// The status code.
        status: u16,
    },
    /// The server sent the whole file to a `Range` request.
    #[error(
        "{url}: the server does not answer Range requests (it sent the whole file): serve the file from one that does (nginx, Apache, S3 and other object stores do)"
    )]
    NoRanges {
        /// The URL, as shown.
        url: String,
    },
    /// The file at the URL is not the one first read.
    #[error("{url}: the file changed while it was read ({what}); run the command again")]
    Changed {
        /// The URL, as shown.
        url: String,
        /// What showed it.
        what: String,
    },
    /// A request that failed every attempt (timeouts, resets, 5xx, throttling).
    #[error("{url}: {problem} ({attempts} attempts)")]
    Failed {
        /// The URL, as shown.
        url: String,
        /// The last attempt's problem.
        problem: String,
        /// Attempts made.
        attempts: u32,
    },
    /// An answer that does not answer the request (a wrong `Content-Range`, a short or
    /// long body).
    #[error("{url}: {problem}")]
    Answer {
        /// The URL, as shown.
        url: String,
        /// What is wrong.
        problem: String,
    },
    /// The HTTP client could not be made (a CA file that does not parse).
    #[error("HTTP client: {0}")]
    Client(String),
    /// A read past the file's end.
    #[error("read past the end of the file")]
    PastEnd,
    /// A read that was not made, but noted for [`RemoteFile::fetch_deferred`] (while
    /// [`RemoteFile::set_deferring`] is on).
    #[error("a read deferred to a batch of requests")]
    Deferred,
}

fn status_text(status: u16) -> &'static str {
    match status {
        401 => " Unauthorized: the server wants credentials",
        403 => {
            " Forbidden: the server refuses (credentials, permissions, or an expired presigned URL)"
        }
        404 => " Not Found: no file at this URL",
        410 => " Gone",
        412 => " Precondition Failed",
        _ => "",
    }
}

/// How a remote file is read.
#[derive(Debug, Clone)]
pub struct Options {
    /// Requests in flight at most.
    pub parallel: usize,
    /// Each request's time limit (connecting included).
    pub timeout: Duration,
    /// Attempts after the first on a retryable failure.
    pub retries: u32,
    /// The first backoff (doubled at each retry, up to 30 s, with jitter).
    pub backoff: Duration,
    /// Extra trusted CA certificates (PEM).
    pub cacert: Option<Vec<u8>>,
    /// Bytes of fetched ranges kept (the oldest go first).
    pub held_bytes: usize,
    /// Bytes the first request asks for, from the start of the file.
    pub first: u64,
    /// Words for the User-Agent after `veilkit/VERSION`.
    pub agent: &'static str,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            parallel: 64,
            timeout: Duration::from_secs(30),
            retries: 5,
            backoff: Duration::from_millis(200),
            cacert: None,
            held_bytes: 128 << 20,
            first: 8192,
            agent: "",
        }
    }
}

/// Requests made and bytes received, so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// HTTP requests answered (retries included).
    pub requests: u64,
    /// Body bytes received.
    pub bytes: u64,
}

/// Fetched ranges, by start, the oldest dropped first past a byte budget.
#[derive(Default)]
struct Held {
    by_start: BTreeMap<u64, Bytes>,
    order: VecDeque<u64>,
    bytes: usize,
}

impl Held {
    /// Copies `buf.len()` bytes at `at` out of one held range, if one holds them all.
    fn copy(&self, at: u64, buf: &mut [u8]) -> bool {
        // Ranges do not nest much: the few starting at or before `at` are looked at.
        for (&start, b) in self.by_start.range(..=at).rev().take(8) {
            let from = (at - start) as usize;
            if let Some(src) = b.get(from..from + buf.len()) {
                buf.copy_from_slice(src);
                return true;
            }
        }
        false
    }

    fn insert(&mut self, start: u64, b: Bytes, budget: usize) {
        self.bytes += b.len();
        match self.by_start.insert(start, b) {
            Some(old) => self.bytes -= old.len(),
            None => self.order.push_back(start),
        }
        while self.bytes > budget {
            let Some(s) = self.order.pop_front() else {
                break;
            };
            if let Some(old) = self.by_start.remove(&s) {
                self.bytes -= old.len();
            }
        }
    }
}

/// The larger a single request grows by joining ranges that touch.
const MAX_JOINED: u64 = 4 << 20;

/// A file at a URL, read by range.
pub struct RemoteFile {
    rt: tokio::runtime::Runtime,
    client: reqwest::Client,
    url: reqwest::Url,
    shown: String,
    len: u64,
    /// `If-Match` or `If-Unmodified-Since`, from the first answer.
    condition: Option<(header::HeaderName, HeaderValue)>,
    options: Options,
    held: Mutex<Held>,
    requests: AtomicU64,
    received: AtomicU64,
    deferring: AtomicBool,
    deferred: Mutex<Vec<(u64, u64)>>,
}

impl std::fmt::Debug for RemoteFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RemoteFile({}, {} bytes)", self.shown, self.len)
    }
}

/// Whether `s` is a URL that [`RemoteFile::open`] reads (rather than a path).
pub fn is_url(s: &str) -> bool {
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// `url` as messages show it: without user information, query or fragment.
pub fn shown(url: &reqwest::Url) -> String {
    let mut u = url.clone();
    let _ = u.set_username("");
    let _ = u.set_password(None);
    u.set_query(None);
    u.set_fragment(None);
    u.to_string()
}

/// A failed attempt: worth another, or not.
enum Failure {
    Retry(String, Option<Duration>),
    Fatal(RemoteError),
}

/// The HTTP client of `options`: veilkit's TLS provider, a User-Agent naming veilkit,
/// time limits, redirects kept on one origin, extra CA certificates.
pub fn client(options: &Options) -> Result<reqwest::Client, RemoteError> {
    http::client(http::ClientSpec {
        agent: options.agent,
        timeout: options.timeout,
        connect_timeout: options.timeout.min(Duration::from_secs(10)),
        pool: options.parallel,
        redirect_hint: "give that URL instead",
        cacert: options.cacert.as_deref(),
    })
    .map_err(RemoteError::Client)
}

/// A runtime for one thread's requests (many in flight on it).
pub fn runtime() -> Result<tokio::runtime::Runtime, RemoteError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RemoteError::Client(e.to_string()))
}

impl RemoteFile {
    /// Opens the file at `url` (`http://` or `https://`): one request for its first
    /// [`Options::first`] bytes, which says whether the server answers ranges and how
    /// long the file is.
    pub fn open(url: &str, options: Options) -> Result<RemoteFile, RemoteError> {
        let parsed = reqwest::Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
            .ok_or_else(|| RemoteError::BadUrl(http::without_userinfo(url)))?;
        let shown = shown(&parsed);
        if parsed.password().is_some() {
            return Err(RemoteError::PasswordInUrl(shown));
        }
        RemoteFile::open_parsed(parsed, shown, options)
    }

    /// Opens the object `object` (`s3://BUCKET/KEY`) through a presigned URL.
    pub fn open_object(object: &s3::Object, options: Options) -> Result<RemoteFile, RemoteError> {
        RemoteFile::open_parsed(object.read_url(), object.shown().to_string(), options)
    }

    fn open_parsed(
        parsed: reqwest::Url,
        shown: String,
        options: Options,
    ) -> Result<RemoteFile, RemoteError> {
        let client = client(&options)?;
        let rt = runtime()?;
        let mut f = RemoteFile {
            rt,
            client,
            url: parsed,
            shown,
            len: 0,
            condition: None,
            options,
            held: Mutex::new(Held::default()),
            requests: AtomicU64::new(0),
            received: AtomicU64::new(0),
            deferring: AtomicBool::new(false),
            deferred: Mutex::new(Vec::new()),
        };
        let first = f.options.first.max(1);
        let (body, len, condition) = f.rt.block_on(f.first_request(first))?;
        f.len = len;
        f.condition = condition;
        f.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(0, body, f.options.held_bytes);
        Ok(f)
    }

    /// The file's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The URL as messages show it.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Requests made and bytes received so far.
    pub fn stats(&self) -> Stats {
        Stats {
            requests: self.requests.load(Ordering::Relaxed),
            bytes: self.received.load(Ordering::Relaxed),
        }
    }

    /// Reads `buf.len()` bytes at `at`: from a held range, or with one request (held
    /// afterwards when it is small).
    pub fn read_exact_at(&self, at: u64, buf: &mut [u8]) -> Result<(), RemoteError> {
        let end = at
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= self.len)
            .ok_or(RemoteError::PastEnd)?;
        if buf.is_empty() || self.held().copy(at, buf) {
            return Ok(());
        }
        if self.deferring.load(Ordering::Relaxed) {
            self.deferred
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((at, end));
            return Err(RemoteError::Deferred);
        }
        let body = self.rt.block_on(self.range(at, end))?;
        buf.copy_from_slice(&body);
        if body.len() <= 1 << 16 {
            self.held().insert(at, body, self.options.held_bytes);
        }
        Ok(())
    }

    /// Fetches `ranges` (start, end), many at a time, and holds them: ranges that touch
    /// are one request. Ranges held already are not fetched again.
    pub fn prefetch(&self, ranges: &[(u64, u64)]) -> Result<(), RemoteError> {
        let mut wanted: Vec<(u64, u64)> = {
            let held = self.held();
            ranges
                .iter()
                .map(|&(s, e)| (s, e.min(self.len)))
                .filter(|&(s, e)| s < e && !held.copy(s, &mut vec![0u8; (e - s) as usize]))
                .collect()
        };
        wanted.sort_unstable();
        let mut joined: Vec<(u64, u64)> = Vec::new();
        for (s, e) in wanted {
            match joined.last_mut() {
                Some(last) if s <= last.1 && e.max(last.1) - last.0 <= MAX_JOINED => {
                    last.1 = last.1.max(e)
                }
                _ => joined.push((s, e)),
            }
        }
        if joined.is_empty() {
            return Ok(());
        }
        use futures_util::StreamExt;
        let parallel = self.options.parallel.max(1);
        let got: Vec<Result<(u64, Bytes), RemoteError>> = self.rt.block_on(
            futures_util::stream::iter(joined)
                .map(|(s, e)| async move { self.range(s, e).await.map(|b| (s, b)) })
                .buffer_unordered(parallel)
                .collect(),
        );
        let mut held = self.held();
        for g in got {
            let (s, b) = g?;
            held.insert(s, b, self.options.held_bytes);
        }
        Ok(())
    }

    /// While on, a read that is not held is noted and answered
    /// [`RemoteError::Deferred`] instead of fetched: a caller walks many lookups one
    /// level down, then fetches what they need together.
    pub fn set_deferring(&self, on: bool) {
        self.deferring.store(on, Ordering::Relaxed);
    }

    /// Fetches the reads noted while deferring; whether there were any.
    pub fn fetch_deferred(&self) -> Result<bool, RemoteError> {
        let noted = std::mem::take(&mut *self.deferred.lock().unwrap_or_else(|e| e.into_inner()));
        if noted.is_empty() {
            return Ok(false);
        }
        self.prefetch(&noted)?;
        Ok(true)
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The first request: bytes `0..first` (fewer when the file is shorter), the file's
    /// length, and the condition later requests carry.
    #[allow(clippy::type_complexity)]
    async fn first_request(
        &self,
        first: u64,
    ) -> Result<(Bytes, u64, Option<(header::HeaderName, HeaderValue)>), RemoteError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let failure = match self.attempt(0, first, None).await {
                Ok(Answer::Part { body, total, resp }) => {
                    return Ok((body, total, condition_of(&resp)));
                }
                Ok(Answer::Empty) => return Ok((Bytes::new(), 0, None)),
                Err(f) => f,
            };
            self.settle(failure, attempt).await?;
        }
    }

    /// Bytes `start..end`, retried as the module says.
    async fn range(&self, start: u64, end: u64) -> Result<Bytes, RemoteError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let failure = match self.attempt(start, end, Some(self.len)).await {
                Ok(Answer::Part { body, .. }) => return Ok(body),
                Ok(Answer::Empty) => Failure::Fatal(RemoteError::Changed {
                    url: self.shown.clone(),
                    what: "it is empty now".into(),
                }),
                Err(f) => f,
            };
            self.settle(failure, attempt).await?;
        }
    }

    /// After failed attempt `attempt`: the error when it is the last, else waits for
    /// the next.
    async fn settle(&self, failure: Failure, attempt: u32) -> Result<(), RemoteError> {
        match failure {
            Failure::Fatal(e) => Err(e),
            Failure::Retry(problem, _) if attempt > self.options.retries => {
                Err(RemoteError::Failed {
                    url: self.shown.clone(),
                    problem,
                    attempts: attempt,
                })
            }
            Failure::Retry(_, after) => {
                let delay = after.unwrap_or_else(|| http::backoff(self.options.backoff, attempt));
                tokio::time::sleep(delay).await;
                Ok(())
            }
        }
    }

    /// One request for bytes `start..end`; `total`: the file's length when known.
    async fn attempt(&self, start: u64, end: u64, total: Option<u64>) -> Result<Answer, Failure> {
        let url = || self.shown.clone();
        let mut req = self
            .client
            .get(self.url.clone())
            .header(header::RANGE, format!("bytes={}-{}", start, end - 1))
            .header(header::ACCEPT_ENCODING, "identity");
        if let Some((name, value)) = &self.condition {
            req = req.header(name.clone(), value.clone());
        }
        let mut resp = req.send().await.map_err(|e| {
            let fatal = e.is_redirect() || http::bad_certificate(&e);
            let problem = http::chain(&e.without_url());
            if fatal {
                Failure::Fatal(RemoteError::Answer {
                    url: url(),
                    problem,
                })
            } else {
                Failure::Retry(problem, None)
            }
        })?;
        self.requests.fetch_add(1, Ordering::Relaxed);
        let status = resp.status();
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS
            || status == reqwest::StatusCode::REQUEST_TIMEOUT
            || status.is_server_error()
        {
            let after = http::retry_after(resp.headers());
            return Err(Failure::Retry(format!("HTTP {status}"), after));
        }
        if status == reqwest::StatusCode::PRECONDITION_FAILED && self.condition.is_some() {
            return Err(Failure::Fatal(RemoteError::Changed {
                url: url(),
                what: "its ETag or date is not the one first seen".into(),
            }));
        }
        if status == reqwest::StatusCode::RANGE_NOT_SATISFIABLE && total.is_none() {
            // Asked for the start of an empty file.
            return Ok(Answer::Empty);
        }
        if status == reqwest::StatusCode::OK {
            return Err(Failure::Fatal(RemoteError::NoRanges { url: url() }));
        }
        if status != reqwest::StatusCode::PARTIAL_CONTENT {
            return Err(Failure::Fatal(RemoteError::Status {
                url: url(),
                status: status.as_u16(),
            }));
        }
        let bad = |problem: String| {
            Failure::Fatal(RemoteError::Answer {
                url: url(),
                problem,
            })
        };
        if resp.headers().contains_key(header::CONTENT_ENCODING)
            && resp.headers()[header::CONTENT_ENCODING] != "identity"
        {
            return Err(bad(
                "the server compressed a range (Content-Encoding): turn compression off for this file".into(),
            ));
        }
        let range = resp
            .headers()
            .get(header::CONTENT_RANGE)
            .and_then(|v| v.to_str().ok())
            .and_then(content_range)
            .ok_or_else(|| bad("a 206 answer without a valid Content-Range".into()))?;
        let (first, last, whole) = range;
        if let Some(t) = total
            && whole != t
        {
            return Err(Failure::Fatal(RemoteError::Changed {
                url: url(),
                what: format!("it was {t} bytes and is {whole} now"),
            }));
        }
        // The whole range asked for, or up to the end of a shorter file (first request).
        let want_last = (end - 1).min(whole.saturating_sub(1));
        if first != start || last != want_last {
            return Err(bad(format!(
                "asked for bytes {start}-{}, the server sent {first}-{last}",
                end - 1
            )));
        }
        let want = (last - first + 1) as usize;
        let mut body = Vec::with_capacity(want);
        loop {
            match resp.chunk().await {
                Ok(Some(c)) => {
                    if body.len() + c.len() > want {
                        return Err(bad(format!("a body longer than the {want} bytes asked")));
                    }
                    body.extend_from_slice(&c);
                }
                Ok(None) => break,
                Err(e) => {
                    return Err(Failure::Retry(
                        format!("body: {}", http::chain(&e.without_url())),
                        None,
                    ));
                }
            }
        }
        self.received
            .fetch_add(body.len() as u64, Ordering::Relaxed);
        if body.len() != want {
            return Err(Failure::Retry(
                format!("a body of {} bytes, where {want} were asked", body.len()),
                None,
            ));
        }
        Ok(Answer::Part {
            body: Bytes::from(body),
            total: whole,
            resp,
        })
    }
}

/// A good answer to a range request.
enum Answer {
    Part {
        body: Bytes,
        total: u64,
        resp: reqwest::Response,
    },
    /// The file is empty (a 416 to the first request).
    Empty,
}

/// What later requests carry so that a replaced file is refused: `If-Match` with a
/// strong ETag, else `If-Unmodified-Since` with the date.
fn condition_of(resp: &reqwest::Response) -> Option<(header::HeaderName, HeaderValue)> {
    let h = resp.headers();
    if let Some(etag) = h
        .get(header::ETAG)
        .filter(|e| !e.as_bytes().starts_with(b"W/"))
    {
        return Some((header::IF_MATCH, etag.clone()));
    }
    h.get(header::LAST_MODIFIED)
        .map(|d| (header::IF_UNMODIFIED_SINCE, d.clone()))
}

/// `bytes FIRST-LAST/TOTAL`, with `FIRST <= LAST < TOTAL`.
fn content_range(v: &str) -> Option<(u64, u64, u64)> {
    let rest = v.trim().strip_prefix("bytes ")?;
    let (range, total) = rest.split_once('/')?;
    let (first, last) = range.split_once('-')?;
    let num = |s: &str| -> Option<u64> {
        let s = s.trim();
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (first, last, total) = (num(first)?, num(last)?, num(total)?);
    (first <= last && last < total).then_some((first, last, total))
}

#[cfg(test)]
mod tests {
    use super::test_server::{part, server};
    use super::*;

    #[test]
    fn content_ranges_parse_only_when_whole_and_ordered() {
        assert_eq!(content_range("bytes 0-8191/13000"), Some((0, 8191, 13000)));
        assert_eq!(content_range("bytes 5-5/6"), Some((5, 5, 6)));
        for bad in [
            "bytes 0-8191/*",
            "bytes */13000",
            "bytes 9-3/100",
            "bytes 0-100/100",
            "bytes -1-3/10",
            "bytes +1-3/10",
            "items 0-1/2",
            "bytes 0-18446744073709551616/18446744073709551617",
        ] {
            assert_eq!(content_range(bad), None, "{bad}");
        }
    }

    #[test]
    fn urls_are_shown_without_credentials_or_query() {
        let u =
            reqwest::Url::parse("https://u:p@h.example:8443/b/k.vkr?X-Amz-Signature=s#f").unwrap();
        assert_eq!(shown(&u), "https://h.example:8443/b/k.vkr");
        assert!(is_url("HTTPS://x/y") && is_url("http://x") && !is_url("./http://x"));
        assert!(!is_url("file.vkr") && !is_url("ftp://x/y"));
    }

    fn quick() -> Options {
        Options {
            backoff: Duration::from_millis(1),
            first: 16,
            ..Options::default()
        }
    }

    #[test]
    fn a_file_that_changes_while_it_is_read_is_an_error_not_a_mix() {
        // The server checks If-Match as nginx does: a new ETag after the first answer.
        let (url, _) = server(|a, b, cond, n| {
            let etag = if n == 0 { "\"v1\"" } else { "\"v2\"" };
            match cond {
                Some(c) if c != etag => {
                    "HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into()
                }
                _ => part(a, b.min(99), 100, etag),
            }
        });
        let f = RemoteFile::open(&url, quick()).unwrap();
        let mut buf = [0u8; 8];
        f.read_exact_at(0, &mut buf).unwrap();
        let e = f.read_exact_at(50, &mut buf).unwrap_err();
        assert!(matches!(e, RemoteError::Changed { .. }), "{e}");
        // A server that ignores If-Match but shows another length.
        let (url, _) =
            server(|a, b, _, n| part(a, b.min(99), if n == 0 { 100 } else { 120 }, "\"x\""));
        let f = RemoteFile::open(&url, quick()).unwrap();
        let e = f.read_exact_at(50, &mut buf).unwrap_err();
        assert!(
            e.to_string().contains("it was 100 bytes and is 120 now"),
            "{e}"
        );
        // A range other than the one asked for.
        let (url, _) = server(|a, b, _, n| {
            if n == 0 {
                part(a, b, 100, "\"x\"")
            } else {
                part(a + 1, b + 1, 100, "\"x\"")
            }
        });
        let f = RemoteFile::open(&url, quick()).unwrap();
        let e = f.read_exact_at(50, &mut buf).unwrap_err();
        assert!(
            e.to_string()
                .contains("asked for bytes 50-57, the server sent 51-58"),
            "{e}"
        );
    }

    #[test]
    fn server_errors_are_retried_and_client_errors_are_not() {
        let (url, served) = server(|a, b, _, n| {
            if n % 2 == 1 {
                "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .into()
            } else {
                part(a, b, 100, "\"x\"")
            }
        });
        let f = RemoteFile::open(&url, quick()).unwrap();
        let mut buf = [0u8; 4];
        // 503, then the range.
        f.read_exact_at(40, &mut buf).unwrap();
        assert_eq!(served.load(Ordering::Relaxed), 3);
        let (url, served) = server(
            |_, _, _, _| "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        let e = RemoteFile::open(&url, quick()).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("HTTP 503 Service Unavailable (6 attempts)"),
            "{e}"
        );
        assert_eq!(served.load(Ordering::Relaxed), 6);
        let (url, served) = server(
            |_, _, _, _| "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        let e = RemoteFile::open(&url, quick()).unwrap_err();
        assert!(matches!(e, RemoteError::Status { status: 403, .. }), "{e}");
        assert_eq!(served.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn held_ranges_answer_reads_inside_them_and_the_oldest_go_first() {
        let mut h = Held::default();
        h.insert(100, Bytes::from(vec![1u8; 50]), 120);
        h.insert(200, Bytes::from(vec![2u8; 50]), 120);
        let mut b = [0u8; 10];
        assert!(h.copy(140, &mut b) && b == [1; 10]);
        assert!(!h.copy(145, &mut b), "past the range's end");
        assert!(!h.copy(95, &mut b), "before it");
        h.insert(300, Bytes::from(vec![3u8; 50]), 120);
        assert!(!h.copy(100, &mut b), "the oldest went");
        assert!(h.copy(200, &mut b) && h.copy(340, &mut b) && b == [3; 10]);
        assert_eq!(h.bytes, 100);
    }
}
