//! The range server's reading of request headers a client sends (`Accept-Encoding`,
//! `If-None-Match`, `If-Modified-Since`): never a panic; a coding is chosen only when
//! the client names it (or `*`) with a q-value above 0; a tag in If-None-Match always
//! matches.

use crate::breach::serve::answer::{choose_coding, not_modified};

/// One input: three header values separated by NUL bytes, as text.
pub fn run(data: &[u8]) {
    let mut parts = data.split(|&b| b == 0).map(String::from_utf8_lossy);
    let accept = parts.next().unwrap_or_default();
    let if_none_match = parts.next().unwrap_or_default();
    let since = parts.next().unwrap_or_default();
    if choose_coding(&accept).is_some() {
        let lower = accept.to_ascii_lowercase();
        assert!(
            ["zstd", "gzip", "*"].iter().any(|c| lower.contains(c)),
            "a coding chosen that the client did not name: {accept:?}"
        );
    }
    let tag = "\"sha1-0123456789abcdef\"";
    let when =
        httpdate::HttpDate::from(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30));
    let _ = not_modified(Some(tag), Some(when), &if_none_match, &since);
    let _ = not_modified(None, None, &if_none_match, &since);
    let listed = format!("{if_none_match}, W/{tag}");
    assert!(not_modified(Some(tag), None, &listed, &since));
}
