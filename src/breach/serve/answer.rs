//! One request's answer around [`super::Service::respond`]: conditional requests
//! (`ETag`, `Last-Modified`), the content coding the client asks for (Zstandard, gzip,
//! or a body compressed ahead sent as it is), CORS and caching headers.

use super::{Coding, Service};
use http_body_util::Full;
use hyper::body::Bytes;

/// The response to `req` from `service`; `random` draws the padding's counts.
pub(super) fn answer<B>(
    service: &Service,
    req: &hyper::Request<B>,
    random: &mut impl FnMut() -> u64,
) -> hyper::Response<Full<Bytes>> {
    let padding = req
        .headers()
        .get("add-padding")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    };
    let accepted = choose_coding(header("accept-encoding"));
    let mut reply = service.respond_in(
        req.method().as_str(),
        req.uri().path(),
        req.uri().query(),
        padding,
        accepted,
        random,
    );
    let modified = reply.etag.as_ref().and(service.last_modified());
    if reply.status == 200
        && not_modified(
            reply.etag.as_deref(),
            modified.map(|m| m.date),
            header("if-none-match"),
            header("if-modified-since"),
        )
    {
        reply.status = 304;
        reply.body.clear();
    }
    // Every 200 when asked, empty bodies included, as the public API does
    // (hibp-downloader refuses a body that is not gzip when it asked for it).
    let coding = if reply.status == 200 { accepted } else { None };
    // Headers by their constants and static values: no name parsed or
    // value checked again for each request.
    use hyper::header::{self as h, HeaderValue as V};
    let mut headers = hyper::HeaderMap::with_capacity(12);
    headers.insert(h::CONTENT_TYPE, V::from_static("text/plain"));
    headers.insert(h::ACCESS_CONTROL_ALLOW_ORIGIN, V::from_static("*"));
    headers.insert(h::VARY, V::from_static("Add-Padding, Accept-Encoding"));
    if reply.status == 204 {
        headers.insert(h::ACCESS_CONTROL_ALLOW_METHODS, V::from_static("GET"));
        headers.insert(
            h::ACCESS_CONTROL_ALLOW_HEADERS,
            V::from_static("Add-Padding"),
        );
        headers.insert(h::ACCESS_CONTROL_MAX_AGE, V::from_static("86400"));
    }
    if let Some(tag) = reply.etag.as_deref().and_then(|t| V::from_str(t).ok()) {
        headers.insert(h::ETAG, tag);
    }
    if let Some(m) = modified.and_then(|m| V::from_str(&m.text).ok()) {
        headers.insert(h::LAST_MODIFIED, m);
    }
    // A body compressed ahead is sent as it is (a 304 has none).
    match (coding, reply.encoded) {
        (Some(Coding::Zstd), Some(Coding::Zstd)) => {
            headers.insert(h::CONTENT_ENCODING, V::from_static("zstd"));
        }
        (Some(Coding::Zstd), None) => {
            reply.body = zstd_body(&reply.body);
            headers.insert(h::CONTENT_ENCODING, V::from_static("zstd"));
        }
        (Some(Coding::Gzip), None) => {
            reply.body = gzip_body(&reply.body);
            headers.insert(h::CONTENT_ENCODING, V::from_static("gzip"));
        }
        _ => {}
    }
    headers.insert(
        h::CACHE_CONTROL,
        V::from_static(if reply.cacheable {
            "public, max-age=2678400"
        } else {
            "no-store"
        }),
    );
    if reply.status == 405 {
        headers.insert(h::ALLOW, V::from_static("GET, HEAD, OPTIONS"));
    }
    let mut response = hyper::Response::new(Full::new(Bytes::from(reply.body)));
    *response.status_mut() = hyper::StatusCode::from_u16(reply.status)
        .unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    *response.headers_mut() = headers;
    response
}

/// Whether a conditional request is answered 304, as RFC 9110 (13.2.2) orders the
/// preconditions: `If-None-Match` when present, else `If-Modified-Since` (a date not
/// before the data's).
pub(crate) fn not_modified(
    etag: Option<&str>,
    modified: Option<httpdate::HttpDate>,
    if_none_match: &str,
    if_modified_since: &str,
) -> bool {
    if !if_none_match.trim().is_empty() {
        return etag.is_some_and(|tag| etag_matches(if_none_match, tag));
    }
    match (
        modified,
        httpdate::parse_http_date(if_modified_since.trim()),
    ) {
        (Some(m), Ok(since)) => std::time::SystemTime::from(m) <= since,
        _ => false,
    }
}

/// Whether `If-None-Match` (a list of entity tags, or `*`) matches `tag`, compared
/// weakly as RFC 9110 says for this header.
fn etag_matches(if_none_match: &str, tag: &str) -> bool {
    let bare = |t: &str| t.trim().trim_start_matches("W/").to_string();
    if_none_match
        .split(',')
        .any(|t| t.trim() == "*" || bare(t) == bare(tag))
}

/// The coding to answer an `Accept-Encoding` with: the one of Zstandard and gzip with the
/// highest q-value (`*` standing for any not named), Zstandard on a tie (cheaper to make
/// and to read), none when neither is acceptable (q=0, or not asked for).
pub(crate) fn choose_coding(accept: &str) -> Option<Coding> {
    let (mut zstd, mut gzip, mut any) = (None::<f32>, None::<f32>, None::<f32>);
    for part in accept.split(',') {
        let mut it = part.split(';');
        let coding = it.next().unwrap_or("").trim();
        let q = it
            .find_map(|p| p.trim().strip_prefix("q="))
            .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())
            .unwrap_or(0.0);
        if coding.eq_ignore_ascii_case("zstd") {
            zstd = Some(q);
        } else if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
            gzip = Some(q);
        } else if coding == "*" {
            any = Some(q);
        }
    }
    let zstd = zstd.or(any).unwrap_or(0.0);
    let gzip = gzip.or(any).unwrap_or(0.0);
    if zstd > 0.0 && zstd >= gzip {
        Some(Coding::Zstd)
    } else if gzip > 0.0 {
        Some(Coding::Gzip)
    } else {
        None
    }
}

/// `body` as one Zstandard frame at level 1, matches of at least 7 bytes (with its
/// content size and a checksum). Each
/// server thread keeps one compressor: making one per response (its tables set up and
/// zeroed) cost more than compressing a range's body.
fn zstd_body(body: &[u8]) -> Vec<u8> {
    thread_local! {
        static ZSTD: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    ZSTD.with(|c| {
        let mut c = c.borrow_mut();
        let c = c.get_or_insert_with(|| {
            let mut c = zstd::bulk::Compressor::new(1).expect("level 1 is valid");
            let _ = c.include_checksum(true);
            // Matches of 7 bytes or more: hex lines have few shorter ones worth their
            // search. A 3.9 KB range body (100M hashes) in 5.5 us instead of 9.9, 1.7%
            // larger (0.539 of the body against 0.530).
            let _ = c.set_parameter(zstd::stream::raw::CParameter::MinMatch(7));
            c
        });
        c.compress(body).expect("compressing to memory")
    })
}

/// A libdeflate compressor at level 1, kept by each server thread: it makes a gzip member
/// of a small body in about 3.8 us here, where flate2 (miniz_oxide) spent 6.4 us resetting
/// its tables and 8.7 us making a new compressor for each response.
struct Deflater(std::ptr::NonNull<libdeflate_sys::libdeflate_compressor>);

impl Deflater {
    fn new() -> Deflater {
        #[allow(unsafe_code)]
        // SAFETY: allocation only (level 1 is valid); a null result (out of memory) is
        // handled as Rust's own allocation failure is.
        let p = unsafe { libdeflate_sys::libdeflate_alloc_compressor(1) };
        match std::ptr::NonNull::new(p) {
            Some(p) => Deflater(p),
            None => std::alloc::handle_alloc_error(std::alloc::Layout::new::<[u8; 65536]>()),
        }
    }

    /// `body` as one gzip member.
    fn gzip(&mut self, body: &[u8]) -> Vec<u8> {
        #[allow(unsafe_code)]
        // SAFETY: the compressor is live (freed only on drop); the bound is pure.
        let bound =
            unsafe { libdeflate_sys::libdeflate_gzip_compress_bound(self.0.as_ptr(), body.len()) };
        let mut out = vec![0u8; bound];
        #[allow(unsafe_code)]
        // SAFETY: the pointers and lengths are those of two live slices that do not
        // overlap; libdeflate reads at most `body.len()` bytes and writes at most
        // `out.len()`, returning how many it wrote (0: it did not fit, which the bound
        // rules out).
        let n = unsafe {
            libdeflate_sys::libdeflate_gzip_compress(
                self.0.as_ptr(),
                body.as_ptr().cast(),
                body.len(),
                out.as_mut_ptr().cast(),
                out.len(),
            )
        };
        assert!(
            n > 0 && n <= out.len(),
            "libdeflate's bound holds its output"
        );
        out.truncate(n);
        out
    }
}

impl Drop for Deflater {
    fn drop(&mut self) {
        #[allow(unsafe_code)]
        // SAFETY: allocated by libdeflate_alloc_compressor, freed once, here.
        unsafe {
            libdeflate_sys::libdeflate_free_compressor(self.0.as_ptr())
        }
    }
}

/// `body` gzipped, fast (range bodies are hex: level 1 is within a few percent of the
/// best ratio at a fraction of the time), by the server thread's own compressor.
fn gzip_body(body: &[u8]) -> Vec<u8> {
    thread_local! {
        static DEFLATE: std::cell::RefCell<Option<Deflater>> = const { std::cell::RefCell::new(None) };
    }
    DEFLATE.with(|d| d.borrow_mut().get_or_insert_with(Deflater::new).gzip(body))
}

/// A seed for padding suffixes (not secret: padding hides sizes, not content).
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_coding_follows_the_clients_q_values() {
        assert_eq!(choose_coding(""), None);
        assert_eq!(choose_coding("gzip"), Some(Coding::Gzip));
        assert_eq!(choose_coding("gzip, deflate, br"), Some(Coding::Gzip));
        assert_eq!(choose_coding("zstd, gzip;q=0.9"), Some(Coding::Zstd));
        assert_eq!(choose_coding("gzip, zstd"), Some(Coding::Zstd));
        assert_eq!(choose_coding("gzip, zstd;q=0.5"), Some(Coding::Gzip));
        assert_eq!(choose_coding("zstd;q=0, gzip"), Some(Coding::Gzip));
        assert_eq!(choose_coding("gzip;q=0"), None);
        assert_eq!(choose_coding("*"), Some(Coding::Zstd));
        assert_eq!(choose_coding("*;q=0.5, zstd;q=0"), Some(Coding::Gzip));
        assert_eq!(choose_coding("identity"), None);
        assert_eq!(choose_coding("GZIP;Q=1"), Some(Coding::Gzip));
    }

    #[test]
    fn bodies_read_back_through_the_download_decoder() {
        use crate::breach::download::decode::{Decoder, Encoding};
        let text =
            b"0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:2";
        let mut d = Decoder::new();
        assert_eq!(d.decode(Encoding::Zstd, &zstd_body(text)).unwrap(), text);
        assert_eq!(d.decode(Encoding::Gzip, &gzip_body(text)).unwrap(), text);
        assert_eq!(d.decode(Encoding::Zstd, &zstd_body(b"")).unwrap(), b"");
        assert_eq!(d.decode(Encoding::Gzip, &gzip_body(b"")).unwrap(), b"");
        // The thread's compressors, used again and again, with bodies larger than their
        // first output buffer (a full-scale range is about 30 KB of hex).
        let big: Vec<u8> = (0..40_000u32)
            .flat_map(|i| format!("{:08X}{i}\r\n", i.wrapping_mul(2_654_435_761)).into_bytes())
            .collect();
        for body in [&big[..], text, b"", &big[..1000], &big[..]] {
            assert_eq!(d.decode(Encoding::Gzip, &gzip_body(body)).unwrap(), body);
            assert_eq!(d.decode(Encoding::Zstd, &zstd_body(body)).unwrap(), body);
        }
        // A standard gzip member: flate2's decoder reads it too.
        let mut back = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&gzip_body(&big)[..]),
            &mut back,
        )
        .unwrap();
        assert_eq!(back, big);
    }
}
