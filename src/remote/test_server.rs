//! A one-file HTTP server on loopback for tests: each request (one a connection) is
//! answered with what a closure makes of its Range and If-Match headers and its number.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Serves at the URL returned; the counter counts the requests answered.
pub fn server<R: AsRef<[u8]>>(
    answer: impl Fn(u64, u64, Option<String>, usize) -> R + Send + 'static,
) -> (String, Arc<AtomicU64>) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/f", l.local_addr().unwrap());
    let served = Arc::new(AtomicU64::new(0));
    let count = served.clone();
    std::thread::spawn(move || {
        for (n, conn) in l.incoming().enumerate() {
            let Ok(mut conn) = conn else { return };
            let mut r = std::io::BufReader::new(conn.try_clone().unwrap());
            let (mut range, mut cond) = ((0, 0), None);
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("range: bytes=") {
                    let (a, b) = v.trim().split_once('-').unwrap();
                    range = (a.parse().unwrap(), b.parse().unwrap());
                }
                if lower.starts_with("if-match:") {
                    cond = Some(line[9..].trim().to_string());
                }
            }
            count.fetch_add(1, Ordering::Relaxed);
            let _ = conn.write_all(answer(range.0, range.1, cond, n).as_ref());
        }
    });
    (url, served)
}

/// A 206 answer of bytes `first..=last` of a file of `total` bytes of `x`.
pub fn part(first: u64, last: u64, total: u64, etag: &str) -> String {
    let body = "x".repeat((last - first + 1) as usize);
    format!(
        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {first}-{last}/{total}\r\nETag: {etag}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Serves `bytes` by range, as a static file server does.
pub fn serve_bytes(bytes: Vec<u8>) -> (String, Arc<AtomicU64>) {
    server(move |a, b, _, _| {
        let total = bytes.len() as u64;
        let last = b.min(total - 1);
        let mut out = format!(
            "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {a}-{last}/{total}\r\nETag: \"f\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            last - a + 1
        )
        .into_bytes();
        out.extend_from_slice(&bytes[a as usize..=last as usize]);
        out
    })
}
