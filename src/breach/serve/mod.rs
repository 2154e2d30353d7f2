//! A local server of the HIBP Pwned Passwords range API (`docs/BREACH-FORMAT.md`,
//! "Range server"): `GET /range/{prefix}` byte for byte as the public API and the range
//! files, `Add-Padding: true`, `?mode=ntlm`, and `GET /check/{hash}`.
//!
//! The routing ([`Service::respond`]) is plain code, tested without a network; [`run`]
//! puts it behind HTTP/1.1 (hyper on a tokio runtime) with bounded connections, header
//! sizes and time limits.

use super::HashKind;
use super::bodies::{Bodies, BodiesError};
use super::format::Wide;
use super::ranges;
use super::tier::AnyIndex;

pub(crate) mod answer;
pub(crate) mod http;
#[cfg(test)]
mod range_tests;
mod tls;

pub use http::{Limits, run};
pub use tls::{TlsError, tls_config};

/// The indexes served: at most one per hash kind.
pub struct Service {
    sha1: Option<AnyIndex>,
    ntlm: Option<AnyIndex>,
    /// Bodies compressed ahead, each checked to be of its kind's index.
    sha1_bodies: Option<Bodies>,
    ntlm_bodies: Option<Bodies>,
    last_modified: Option<LastModified>,
}

/// The data's modification time, to the second, and its HTTP form, made once.
#[derive(Debug, Clone)]
pub struct LastModified {
    /// For comparisons with `If-Modified-Since`.
    pub date: httpdate::HttpDate,
    /// `Last-Modified`'s value.
    pub text: String,
}

/// A content coding of response bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    /// Zstandard (`zstd`).
    Zstd,
    /// gzip.
    Gzip,
}

/// The service being served, replaced whole on a reload: a request answers from the
/// service current when it began, start to end.
pub struct Current(std::sync::RwLock<std::sync::Arc<Service>>);

impl Current {
    /// Serves `service`.
    pub fn new(service: Service) -> Current {
        Current(std::sync::RwLock::new(std::sync::Arc::new(service)))
    }

    /// The service to answer a request from.
    pub fn get(&self) -> std::sync::Arc<Service> {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Serves `service` from the next request on.
    pub fn replace(&self, service: Service) {
        *self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = std::sync::Arc::new(service);
    }
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
    /// The coding the body is already in (a frame compressed ahead), if any.
    pub encoded: Option<Coding>,
}

impl Reply {
    fn text(status: u16, body: &str) -> Reply {
        Reply {
            status,
            body: body.as_bytes().to_vec(),
            cacheable: false,
            etag: None,
            encoded: None,
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
    /// Compressed bodies for a kind without an exact index.
    #[error("compressed {0} range bodies, but no exact {0} index is served")]
    NoIndexForBodies(&'static str),
    /// Two bodies files of one kind.
    #[error("two files of compressed {0} range bodies: give at most one per index")]
    SameKindBodies(&'static str),
    /// Bodies made from another index.
    #[error(transparent)]
    Bodies(#[from] BodiesError),
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
            sha1_bodies: None,
            ntlm_bodies: None,
            last_modified: None,
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

    /// Serves `bodies` to clients asking for Zstandard ranges of its kind's index, which
    /// must be an exact index and the one the bodies were made from.
    pub fn add_bodies(&mut self, bodies: Bodies) -> Result<(), ServiceError> {
        let kind = bodies.kind();
        let exact = match self.index(kind) {
            Some(AnyIndex::Exact(i) | AnyIndex::Filtered { exact: i, .. }) => i,
            _ => return Err(ServiceError::NoIndexForBodies(kind.name())),
        };
        bodies.check_made_from(exact.bytes())?;
        let slot = match kind {
            HashKind::Sha1 => &mut self.sha1_bodies,
            HashKind::Ntlm => &mut self.ntlm_bodies,
        };
        if slot.is_some() {
            return Err(ServiceError::SameKindBodies(kind.name()));
        }
        *slot = Some(bodies);
        Ok(())
    }

    /// Sets the time the data last changed (the newest index's modification time), sent
    /// as `Last-Modified` with ranges and compared with `If-Modified-Since`.
    pub fn set_last_modified(&mut self, t: std::time::SystemTime) {
        let date = httpdate::HttpDate::from(t);
        self.last_modified = Some(LastModified {
            text: date.to_string(),
            date,
        });
    }

    /// See [`Service::set_last_modified`].
    pub fn last_modified(&self) -> Option<&LastModified> {
        self.last_modified.as_ref()
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
        self.respond_in(method, path, query, padding, None, random)
    }

    /// [`Service::respond`] for a client that takes bodies in `coding`: a range with a
    /// body compressed ahead in that coding comes as it is stored
    /// ([`Reply::encoded`]); any other body is plain, for the caller to compress.
    pub fn respond_in(
        &self,
        method: &str,
        path: &str,
        query: Option<&str>,
        padding: bool,
        coding: Option<Coding>,
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
                encoded: None,
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
            return self.range(kind, prefix, padding, coding, random);
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
        coding: Option<Coding>,
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
        let bodies = match kind {
            HashKind::Sha1 => self.sha1_bodies.as_ref(),
            HashKind::Ntlm => self.ntlm_bodies.as_ref(),
        };
        if let (Some(bodies), Some(Coding::Zstd), false) = (bodies, coding, padding) {
            return match bodies.frame(p) {
                Ok(frame) => Reply {
                    status: 200,
                    body: frame.bytes.to_vec(),
                    cacheable: true,
                    etag: Some(etag(kind, frame.body_xxh3)),
                    encoded: Some(Coding::Zstd),
                },
                Err(_) => Reply::text(500, "The compressed range bodies are damaged\n"),
            };
        }
        let mut body = Vec::with_capacity(8 << 10);
        let n = match ranges::range_body(exact, p, &mut body) {
            Ok(n) => n as usize,
            Err(_) => return Reply::text(500, "The index is damaged\n"),
        };
        let etag = if padding {
            body = pad(kind, &body, n, random);
            None
        } else {
            Some(etag(kind, xxhash_rust::xxh3::xxh3_64(&body)))
        };
        Reply {
            status: 200,
            body,
            cacheable: !padding,
            etag,
            encoded: None,
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
                encoded: None,
            },
            Err(_) => Reply::text(500, "The index is damaged\n"),
        }
    }
}

/// A range's ETag: `"KIND-XXH3"`, the body's XXH3-64 in 16 lower-case hex digits (as
/// computed, or as a bodies file stores it).
fn etag(kind: HashKind, body_xxh3: u64) -> String {
    format!("\"{}-{body_xxh3:016x}\"", kind.id())
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
