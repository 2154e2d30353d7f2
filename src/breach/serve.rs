//! A local server of the HIBP Pwned Passwords range API (`docs/BREACH-FORMAT.md`,
//! "Range server"): `GET /range/{prefix}` byte for byte as the public API and the range
//! files, `Add-Padding: true`, `?mode=ntlm`, and `GET /check/{hash}`.
//!
//! The routing ([`Service::respond`]) is plain code, tested without a network; [`run`]
//! puts it behind HTTP/1.1 (hyper on a tokio runtime) with bounded connections, header
//! sizes and time limits.

use super::HashKind;
use super::format::Wide;
use super::ranges;
use super::tier::AnyIndex;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// The indexes served: at most one per hash kind.
pub struct Service {
    sha1: Option<AnyIndex>,
    ntlm: Option<AnyIndex>,
}

/// An answer: status, body and whether it may be cached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// The body.
    pub body: Vec<u8>,
    /// Cacheable (a range or check answer), as the public API's are.
    pub cacheable: bool,
    /// A strong validator of the body (unpadded ranges): `"KIND-XXH3"`, the body's
    /// XXH3-64 in hex, so that a range keeps its ETag across rebuilds of the index as long
    /// as its content is the same (a mirror's `update` then fetches only what changed).
    pub etag: Option<String>,
}

impl Reply {
    fn text(status: u16, body: &str) -> Reply {
        Reply {
            status,
            body: body.as_bytes().to_vec(),
            cacheable: false,
            etag: None,
        }
    }
}

/// Why a service cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// Two indexes of one kind.
    #[error("two {0} indexes: give at most one index per hash kind")]
    SameKind(&'static str),
    /// Nothing to serve.
    #[error("no index to serve")]
    Empty,
}

/// The number of lines a padded range reaches at least: a random number in
/// `PAD_MIN..=PAD_MAX`, as the public API does.
pub const PAD_MIN: usize = 800;
/// See [`PAD_MIN`].
pub const PAD_MAX: usize = 1000;

impl Service {
    /// Serves `indexes` (one per hash kind).
    pub fn new(indexes: Vec<AnyIndex>) -> Result<Service, ServiceError> {
        let mut s = Service {
            sha1: None,
            ntlm: None,
        };
        for i in indexes {
            let slot = match i.kind() {
                HashKind::Sha1 => &mut s.sha1,
                HashKind::Ntlm => &mut s.ntlm,
            };
            if slot.is_some() {
                return Err(ServiceError::SameKind(i.kind().name()));
            }
            *slot = Some(i);
        }
        if s.sha1.is_none() && s.ntlm.is_none() {
            return Err(ServiceError::Empty);
        }
        Ok(s)
    }

    fn index(&self, kind: HashKind) -> Option<&AnyIndex> {
        match kind {
            HashKind::Sha1 => self.sha1.as_ref(),
            HashKind::Ntlm => self.ntlm.as_ref(),
        }
    }

    /// The answer to `method path?query`; `padding` is the request's `Add-Padding: true`,
    /// `random` a source of padding suffixes.
    pub fn respond(
        &self,
        method: &str,
        path: &str,
        query: Option<&str>,
        padding: bool,
        random: &mut dyn FnMut() -> u64,
    ) -> Reply {
        if method == "OPTIONS" {
            // A CORS preflight, answered as the public API's worker does (the headers
            // are added by the HTTP layer).
            return Reply {
                status: 204,
                body: Vec::new(),
                cacheable: false,
                etag: None,
            };
        }
        if method != "GET" && method != "HEAD" {
            return Reply::text(405, "Only GET and HEAD are supported\n");
        }
        if let Some(prefix) = path.strip_prefix("/range/") {
            let mode = query
                .into_iter()
                .flat_map(|q| q.split('&'))
                .find_map(|kv| kv.strip_prefix("mode="));
            let kind = match mode.map(str::to_ascii_lowercase).as_deref() {
                None | Some("sha1") => HashKind::Sha1,
                Some("ntlm") => HashKind::Ntlm,
                Some(_) => return Reply::text(400, "The mode must be sha1 or ntlm\n"),
            };
            return self.range(kind, prefix, padding, random);
        }
        if let Some(hash) = path.strip_prefix("/check/") {
            return self.check(hash);
        }
        if path == "/" {
            return Reply::text(
                200,
                "veilkit breach serve: GET /range/{5 hex digits}[?mode=ntlm] (Add-Padding: true), GET /check/{hash}\n",
            );
        }
        Reply::text(404, "Not found\n")
    }

    fn range(
        &self,
        kind: HashKind,
        prefix: &str,
        padding: bool,
        random: &mut dyn FnMut() -> u64,
    ) -> Reply {
        let bad = || Reply::text(400, "The hash prefix was not in a valid format\n");
        if prefix.len() != 5 || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
            return bad();
        }
        let Ok(p) = u32::from_str_radix(prefix, 16) else {
            return bad();
        };
        let Some(index) = self.index(kind) else {
            return Reply::text(
                404,
                &format!("This server holds no {} index\n", kind.name()),
            );
        };
        let exact = match index {
            AnyIndex::Exact(i) | AnyIndex::Filtered { exact: i, .. } => i,
            _ => {
                return Reply::text(
                    501,
                    &format!(
                        "Ranges need an exact index; this is a {} one (use /check)\n",
                        index.tier().name()
                    ),
                );
            }
        };
        let mut body = Vec::with_capacity(8 << 10);
        let n = match ranges::range_body(exact, p, &mut body) {
            Ok(n) => n as usize,
            Err(_) => return Reply::text(500, "The index is damaged\n"),
        };
        let etag = if padding {
            body = pad(kind, &body, n, random);
            None
        } else {
            let code = match kind {
                HashKind::Sha1 => "sha1",
                HashKind::Ntlm => "ntlm",
            };
            Some(format!(
                "\"{code}-{:016x}\"",
                xxhash_rust::xxh3::xxh3_64(&body)
            ))
        };
        Reply {
            status: 200,
            body,
            cacheable: !padding,
            etag,
        }
    }

    fn check(&self, hash: &str) -> Reply {
        let Some(kind) = HashKind::from_hex_len(hash.len()) else {
            return Reply::text(400, "The hash must be 40 (SHA-1) or 32 (NTLM) hex digits\n");
        };
        let Some(h) = kind.parse_hex(hash.as_bytes()) else {
            return Reply::text(400, "The hash must be 40 (SHA-1) or 32 (NTLM) hex digits\n");
        };
        let Some(index) = self.index(kind) else {
            return Reply::text(
                404,
                &format!("This server holds no {} index\n", kind.name()),
            );
        };
        match index.lookup(&h) {
            Ok(c) => Reply {
                status: 200,
                body: itoa::Buffer::new().format(c).as_bytes().to_vec(),
                cacheable: true,
                etag: None,
            },
            Err(_) => Reply::text(500, "The index is damaged\n"),
        }
    }
}

/// The body with count-0 lines of random suffixes added, so that it has at least a
/// random number of lines between [`PAD_MIN`] and [`PAD_MAX`], all in suffix order. A
/// random suffix equal to one already there (practically never) is drawn again.
fn pad(kind: HashKind, body: &[u8], n: usize, random: &mut dyn FnMut() -> u64) -> Vec<u8> {
    let target = PAD_MIN + (random() % (PAD_MAX - PAD_MIN + 1) as u64) as usize;
    let suffix_len = kind.hex_len() - 5;
    let mut lines: Vec<Vec<u8>> = if body.is_empty() {
        Vec::new()
    } else {
        body.split(|&b| b == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
            .collect()
    };
    debug_assert_eq!(lines.len(), n);
    let mut taken: std::collections::HashSet<Vec<u8>> =
        lines.iter().map(|l| l[..suffix_len].to_vec()).collect();
    while lines.len() < target {
        let words = [random(), random(), random()];
        let mut hex = [0u8; 48];
        crate::hex::encode_upper(&Wide(words).to_be_bytes(), &mut hex);
        let suffix = hex[..suffix_len].to_vec();
        if taken.insert(suffix.clone()) {
            let mut line = suffix;
            line.extend_from_slice(b":0");
            lines.push(line);
        }
    }
    lines.sort_unstable();
    lines.join(&b"\r\n"[..])
}

/// Limits of the HTTP server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Worker threads.
    pub threads: usize,
    /// Connections served at once; more wait in the kernel's backlog.
    pub max_connections: usize,
    /// Time to receive a request's headers (also the idle keep-alive limit).
    pub header_timeout: Duration,
    /// Largest request head, bytes.
    pub max_head: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            max_head: 8192,
        }
    }
}

/// Serves `service` on `listener` until `stop` completes.
pub fn run(
    listener: std::net::TcpListener,
    service: Arc<Service>,
    limits: Limits,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use http_body_util::Full;
    use hyper::body::Bytes;
    use hyper::server::conn::http1;
    use hyper::service::service_fn;
    use hyper_util::rt::{TokioIo, TokioTimer};

    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(limits.threads.max(1))
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
        tokio::pin!(stop);
        loop {
            let permit = tokio::select! {
                _ = &mut stop => return Ok(()),
                p = slots.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            };
            let (stream, _) = tokio::select! {
                _ = &mut stop => return Ok(()),
                a = listener.accept() => match a {
                    Ok(a) => a,
                    // Out of descriptors and the like: wait a little, keep serving.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                },
            };
            let _ = stream.set_nodelay(true);
            let service = service.clone();
            tokio::spawn(async move {
                let seed = std::cell::Cell::new(rand_seed());
                let handler = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let padding = req
                        .headers()
                        .get("add-padding")
                        .and_then(|v| v.to_str().ok())
                        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
                    let mut random = || {
                        let mut x = seed.get();
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        seed.set(x);
                        x
                    };
                    let mut reply = service.respond(
                        req.method().as_str(),
                        req.uri().path(),
                        req.uri().query(),
                        padding,
                        &mut random,
                    );
                    let header = |name: &str| {
                        req.headers()
                            .get(name)
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("")
                    };
                    if let Some(tag) = &reply.etag
                        && etag_matches(header("if-none-match"), tag)
                    {
                        reply.status = 304;
                        reply.body.clear();
                    }
                    // Every 200 when asked, empty bodies included, as the public API does
                    // (hibp-downloader refuses a body that is not gzip when it asked for it).
                    let gzip = reply.status == 200 && accepts_gzip(header("accept-encoding"));
                    let mut response = hyper::Response::builder()
                        .status(reply.status)
                        .header("content-type", "text/plain")
                        .header("access-control-allow-origin", "*")
                        .header("vary", "Add-Padding, Accept-Encoding");
                    if reply.status == 204 {
                        response = response
                            .header("access-control-allow-methods", "GET")
                            .header("access-control-allow-headers", "Add-Padding")
                            .header("access-control-max-age", "86400");
                    }
                    if let Some(tag) = &reply.etag {
                        response = response.header("etag", tag.as_str());
                    }
                    if gzip {
                        reply.body = gzip_body(&reply.body);
                        response = response.header("content-encoding", "gzip");
                    }
                    response = if reply.cacheable {
                        response.header("cache-control", "public, max-age=2678400")
                    } else {
                        response.header("cache-control", "no-store")
                    };
                    if reply.status == 405 {
                        response = response.header("allow", "GET, HEAD, OPTIONS");
                    }
                    let response = response
                        .body(Full::new(Bytes::from(reply.body)))
                        .expect("static header names and values");
                    std::future::ready(Ok::<_, std::convert::Infallible>(response))
                });
                let _ = http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(limits.header_timeout)
                    .max_buf_size(limits.max_head.max(8192))
                    .keep_alive(true)
                    .serve_connection(TokioIo::new(stream), handler)
                    .await;
                drop(permit);
            });
        }
    })
}

/// Whether `If-None-Match` (a list of entity tags, or `*`) matches `tag`, compared
/// weakly as RFC 9110 says for this header.
fn etag_matches(if_none_match: &str, tag: &str) -> bool {
    let bare = |t: &str| t.trim().trim_start_matches("W/").to_string();
    if_none_match
        .split(',')
        .any(|t| t.trim() == "*" || bare(t) == bare(tag))
}

/// Whether `Accept-Encoding` accepts gzip (not with q=0).
fn accepts_gzip(accept: &str) -> bool {
    accept.split(',').any(|part| {
        let mut it = part.split(';');
        let coding = it.next().unwrap_or("").trim();
        let q_zero = it.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                == Some(0.0)
        });
        (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !q_zero
    })
}

/// `body` gzipped, fast (range bodies are hex: level 1 is within a few percent of the
/// best ratio at a fraction of the time).
fn gzip_body(body: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(
        Vec::with_capacity(body.len() / 2),
        flate2::Compression::fast(),
    );
    e.write_all(body).expect("writing to memory");
    e.finish().expect("writing to memory")
}

/// A seed for padding suffixes (not secret: padding hides sizes, not content).
fn rand_seed() -> u64 {
    let mut b = [0u8; 8];
    let _ = getrandom::fill(&mut b);
    u64::from_le_bytes(b) | 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random suffix equal to a real one is drawn again: the real line stays, the
    /// padding still reaches its length.
    #[test]
    fn padding_never_replaces_a_real_line() {
        let words = [
            0x0123_4567_89ab_cdefu64,
            0xfedc_ba98_7654_3210,
            0x1111_2222_3333_4444,
        ];
        let mut hex = [0u8; 48];
        crate::hex::encode_upper(&Wide(words).to_be_bytes(), &mut hex);
        let real = [&hex[..35], &b":5"[..]].concat();
        // First the target (800 lines), then the real suffix twice, then distinct ones.
        let mut calls = 0u64;
        let mut random = move || {
            calls += 1;
            match calls {
                1 => 0,
                2..=7 => words[((calls - 2) % 3) as usize],
                c => c.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            }
        };
        let out = pad(HashKind::Sha1, &real, 1, &mut random);
        let lines: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
        assert_eq!(lines.len(), 800);
        assert!(out.windows(real.len()).any(|w| w == &real[..]));
        let zero = [&hex[..35], &b":0"[..]].concat();
        assert!(!out.windows(zero.len()).any(|w| w == &zero[..]));
    }
}
