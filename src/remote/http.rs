//! What every HTTP client of veilkit shares: backoff with jitter, `Retry-After`, redirects
//! kept on one origin, URLs shown without user information, errors as one line.

use std::time::Duration;

/// The delay before attempt `attempt + 1`: `base` doubled per attempt, at most 30 s,
/// a random half to all of it.
pub fn backoff(base: Duration, attempt: u32) -> Duration {
    let full = base
        .saturating_mul(1 << attempt.min(16).saturating_sub(1))
        .min(Duration::from_secs(30));
    let mut r = [0u8; 8];
    let frac = if getrandom::fill(&mut r).is_ok() {
        (u64::from_le_bytes(r) >> 11) as f64 / (1u64 << 53) as f64
    } else {
        0.5
    };
    full.mul_f64(0.5 + frac / 2.0)
}

/// Retry-After: seconds or an HTTP date, at most 10 minutes.
pub fn retry_after(h: &reqwest::header::HeaderMap) -> Option<Duration> {
    let v = h.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?.trim();
    let d = if let Ok(secs) = v.parse::<u64>() {
        Duration::from_secs(secs)
    } else {
        let at = httpdate::parse_http_date(v).ok()?;
        at.duration_since(std::time::SystemTime::now())
            .unwrap_or_default()
    };
    Some(d.min(Duration::from_secs(600)))
}

/// Redirects are followed (at most 10) while they stay on the first URL's origin (scheme,
/// host and port): one to another origin is refused with an error naming both and
/// `hint` (what to give instead), since whom the user trusts for the data, and where
/// credentials go, would otherwise change without a word.
pub fn same_origin_redirects(hint: &'static str) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let from = attempt
            .previous()
            .first()
            .map(|u| u.origin().ascii_serialization());
        let to = attempt.url().origin().ascii_serialization();
        match from {
            Some(from) if from != to => attempt.error(format!(
                "redirected from {from} to another origin, {to}: {hint}"
            )),
            _ if attempt.previous().len() > 10 => attempt.error("more than 10 redirects"),
            _ => attempt.follow(),
        }
    })
}

/// What an HTTP client of veilkit is made with.
#[derive(Debug, Clone, Copy)]
pub struct ClientSpec<'a> {
    /// Words for the User-Agent after `veilkit/VERSION`: `(records)`.
    pub agent: &'a str,
    /// Each request's time limit.
    pub timeout: Duration,
    /// Connecting's.
    pub connect_timeout: Duration,
    /// Idle connections kept per host.
    pub pool: usize,
    /// What to give instead when a redirect leaves the origin.
    pub redirect_hint: &'static str,
    /// Extra trusted CA certificates (PEM), beside the system's.
    pub cacert: Option<&'a [u8]>,
}

/// A client as `spec` says: veilkit's TLS provider, a User-Agent naming veilkit,
/// redirects kept on one origin; an error says what is wrong with the CA certificates.
pub fn client(spec: ClientSpec<'_>) -> Result<reqwest::Client, String> {
    // reqwest is built without a crypto provider: this process's is crate::tls's.
    let _ = crate::tls::provider().install_default();
    let agent = format!("veilkit/{} {}", env!("CARGO_PKG_VERSION"), spec.agent);
    let mut b = reqwest::Client::builder()
        .user_agent(agent.trim_end())
        .timeout(spec.timeout)
        .connect_timeout(spec.connect_timeout)
        .pool_max_idle_per_host(spec.pool)
        .redirect(same_origin_redirects(spec.redirect_hint));
    if let Some(pem) = spec.cacert {
        let certs =
            reqwest::Certificate::from_pem_bundle(pem).map_err(|e| format!("--cacert: {e}"))?;
        if certs.is_empty() {
            return Err("--cacert: no PEM certificate in the file".into());
        }
        b = b.tls_certs_merge(certs);
    }
    b.build().map_err(|e| chain(&e))
}

/// Whether `e` (or one of its causes) is a TLS certificate that does not verify: a
/// failure no retry can mend.
pub fn bad_certificate(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(c) = cur {
        if let Some(tls) = c.downcast_ref::<rustls::Error>() {
            return matches!(
                tls,
                rustls::Error::InvalidCertificate(_) | rustls::Error::NoCertificatesPresented
            );
        }
        // tokio-rustls hands rustls' error on inside an io::Error whose inner error is
        // not always rustls' own type: its text says what it is.
        if c.downcast_ref::<std::io::Error>().is_some() {
            let text = c.to_string();
            if text.starts_with("invalid peer certificate")
                || text.starts_with("peer sent no certificates")
            {
                return true;
            }
        }
        cur = c.source();
    }
    false
}

/// `url` without the user information of its authority (`USER:PASS@`), for text that
/// is shown or kept: `https://u:p@host/x` gives `https://host/x`.
pub fn without_userinfo(url: &str) -> String {
    if let Some(scheme_end) = url.find("://") {
        let rest = &url[scheme_end + 3..];
        let authority = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        if let Some(at) = rest[..authority].rfind('@') {
            return format!("{}{}", &url[..scheme_end + 3], &rest[at + 1..]);
        }
    }
    url.to_string()
}

/// An error with its causes, as one line.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_stops_at_30_seconds() {
        let base = Duration::from_millis(100);
        for attempt in 1..40 {
            let full = (base * (1 << (attempt - 1).min(15))).min(Duration::from_secs(30));
            let d = backoff(base, attempt);
            assert!(d >= full / 2 && d <= full, "{attempt}: {d:?} of {full:?}");
        }
    }

    #[test]
    fn retry_after_takes_seconds_or_a_date() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert(reqwest::header::RETRY_AFTER, "3".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(3)));
        h.insert(reqwest::header::RETRY_AFTER, "99999".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(600)));
        h.insert(
            reqwest::header::RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert(reqwest::header::RETRY_AFTER, "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }
}
