//! `s3://BUCKET/KEY`: an object in Amazon S3 or an S3-compatible store. Reads go through
//! a presigned GET URL (SigV4 by the `rusty-s3` crate, which does no I/O) and
//! [`super::RemoteFile`], as any URL; uploads are one PUT, or a multipart upload for a
//! large file, so that nothing is visible under the key until the whole file is.
//!
//! Where things come from, as the AWS tools take them:
//! - credentials: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`),
//!   else the profile `AWS_PROFILE` (`default`) of `AWS_SHARED_CREDENTIALS_FILE`
//!   (`~/.aws/credentials`), else none (a public object: requests are not signed);
//! - the region: `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region` in
//!   `AWS_CONFIG_FILE` (`~/.aws/config`), else `us-east-1`;
//! - the endpoint: `--endpoint URL`, `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, else
//!   AWS's for the region. A given endpoint (an S3-compatible store) is addressed in
//!   path style (`ENDPOINT/BUCKET/KEY`), AWS in virtual-host style.

use super::{RemoteError, http};
use rusty_s3::{Bucket, Credentials, S3Action, UrlStyle};
use std::time::Duration;

/// How long a presigned read URL stays valid: a read taking longer fails with 403.
pub const READ_VALIDITY: Duration = Duration::from_secs(12 * 3600);

/// Files up to this size are uploaded in one PUT; larger ones in parts of this size.
pub const PART: u64 = 16 << 20;

/// Part uploads in flight at once.
const PARTS_IN_FLIGHT: usize = 4;

/// Whether `s` names an object (`s3://...`).
pub fn is_s3(s: &str) -> bool {
    s.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("s3://"))
}

/// An object and how to reach it.
pub struct Object {
    bucket: Bucket,
    key: String,
    credentials: Option<Credentials>,
    shown: String,
}

impl std::fmt::Debug for Object {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Object({})", self.shown)
    }
}

/// Settings read from the environment and the AWS files (a function of a variable's
/// name, so that tests give their own).
pub struct Env<'a> {
    /// A variable's value.
    pub var: &'a dyn Fn(&str) -> Option<String>,
}

impl Env<'_> {
    fn get(&self, name: &str) -> Option<String> {
        (self.var)(name).filter(|v| !v.is_empty())
    }

    /// `$HOME/.aws/NAME`, or the file the variable names.
    fn aws_file(&self, var: &str, name: &str) -> Option<std::path::PathBuf> {
        self.get(var).map(Into::into).or_else(|| {
            self.get("HOME")
                .map(|h| std::path::Path::new(&h).join(".aws").join(name))
        })
    }

    /// `key` of section `section` of the INI file `path` (missing file: none).
    fn ini(
        &self,
        path: Option<std::path::PathBuf>,
        section: &str,
        key: &str,
    ) -> Result<Option<String>, RemoteError> {
        let Some(path) = path else { return Ok(None) };
        let text = match std::fs::File::open(&path) {
            Ok(mut f) => crate::streams::read_capped(&mut f, crate::streams::SMALL_FILE_CAP)
                .map_err(|e| RemoteError::Client(format!("{}: {e}", path.display())))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(RemoteError::Client(format!("{}: {e}", path.display()))),
        };
        Ok(ini_value(&String::from_utf8_lossy(&text), section, key))
    }
}

/// The value of `key` in `[section]` of INI text (`key = value` lines, `#`/`;` comments).
fn ini_value(text: &str, section: &str, key: &str) -> Option<String> {
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = name.trim() == section;
            continue;
        }
        if inside
            && let Some((k, v)) = line.split_once('=')
            && k.trim() == key
        {
            return Some(v.trim().to_string());
        }
    }
    None
}

impl Object {
    /// The object `s3://BUCKET/KEY`, with the endpoint given (`--endpoint`) or found as
    /// the module says.
    pub fn new(url: &str, endpoint: Option<&str>, env: &Env<'_>) -> Result<Object, RemoteError> {
        let bad = || RemoteError::BadUrl(url.to_string());
        let rest = url.get(5..).filter(|_| is_s3(url)).ok_or_else(bad)?;
        let (name, key) = rest.split_once('/').ok_or_else(bad)?;
        if name.is_empty() || key.is_empty() || name.contains(['@', ':', '?', '#']) {
            return Err(RemoteError::BadUrl(format!("{url}: not s3://BUCKET/KEY")));
        }
        let profile = env.get("AWS_PROFILE").unwrap_or_else(|| "default".into());
        let config = env.aws_file("AWS_CONFIG_FILE", "config");
        let config_section = if profile == "default" {
            "default".to_string()
        } else {
            format!("profile {profile}")
        };
        let region = match env
            .get("AWS_REGION")
            .or_else(|| env.get("AWS_DEFAULT_REGION"))
        {
            Some(r) => r,
            None => env
                .ini(config, &config_section, "region")?
                .unwrap_or_else(|| "us-east-1".into()),
        };
        let credentials = match (
            env.get("AWS_ACCESS_KEY_ID"),
            env.get("AWS_SECRET_ACCESS_KEY"),
        ) {
            (Some(k), Some(s)) => Some(match env.get("AWS_SESSION_TOKEN") {
                Some(t) => Credentials::new_with_token(k, s, t),
                None => Credentials::new(k, s),
            }),
            _ => {
                let file = env.aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
                let k = env.ini(file.clone(), &profile, "aws_access_key_id")?;
                let s = env.ini(file.clone(), &profile, "aws_secret_access_key")?;
                let t = env.ini(file, &profile, "aws_session_token")?;
                match (k, s, t) {
                    (Some(k), Some(s), Some(t)) => Some(Credentials::new_with_token(k, s, t)),
                    (Some(k), Some(s), None) => Some(Credentials::new(k, s)),
                    _ => None,
                }
            }
        };
        let given = endpoint
            .map(str::to_string)
            .or_else(|| env.get("AWS_ENDPOINT_URL_S3"))
            .or_else(|| env.get("AWS_ENDPOINT_URL"));
        let (endpoint, style) = match given {
            Some(e) => (e, UrlStyle::Path),
            None => (
                format!("https://s3.{region}.amazonaws.com"),
                UrlStyle::VirtualHost,
            ),
        };
        let endpoint_url = reqwest::Url::parse(&endpoint)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.password().is_none())
            .ok_or_else(|| {
                RemoteError::BadUrl(format!(
                    "endpoint {}: not an http:// or https:// URL without a password",
                    http::without_userinfo(&endpoint)
                ))
            })?;
        let bucket = Bucket::new(endpoint_url, style, name.to_string(), region)
            .map_err(|e| RemoteError::BadUrl(format!("{url}: {e}")))?;
        Ok(Object {
            bucket,
            key: key.to_string(),
            credentials,
            shown: format!("s3://{name}/{key}"),
        })
    }

    /// `s3://BUCKET/KEY`.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// A URL that reads the object for [`READ_VALIDITY`] (signed when there are
    /// credentials).
    pub fn read_url(&self) -> reqwest::Url {
        self.bucket
            .get_object(self.credentials.as_ref(), &self.key)
            .sign(READ_VALIDITY)
    }

    /// Whether the object exists (a HEAD request).
    pub fn exists(&self, client: &reqwest::Client) -> Result<bool, RemoteError> {
        let url = self
            .bucket
            .head_object(self.credentials.as_ref(), &self.key)
            .sign(Duration::from_secs(600));
        let rt = super::runtime()?;
        let status = rt.block_on(async {
            self.send(|| client.head(url.clone()), None)
                .await
                .map(|r| r.status())
        });
        match status {
            Ok(s) => Ok(s.is_success()),
            Err(RemoteError::Status { status: 404, .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Uploads `file` (`len` bytes) as the object: one PUT up to [`PART`] bytes, else a
    /// multipart upload of parts of [`PART`] bytes, [`PARTS_IN_FLIGHT`] at a time,
    /// completed only when every part is in (aborted on failure): nothing is visible
    /// under the key until the whole file is.
    pub fn upload(
        &self,
        client: &reqwest::Client,
        file: &std::fs::File,
        len: u64,
        progress: &dyn crate::progress::Progress,
    ) -> Result<(), RemoteError> {
        let rt = super::runtime()?;
        let creds = self.credentials.as_ref();
        let read = |at: u64, n: u64| -> Result<bytes::Bytes, RemoteError> {
            let mut buf = vec![0u8; n as usize];
            use std::os::unix::fs::FileExt;
            file.read_exact_at(&mut buf, at)
                .map_err(|e| RemoteError::Client(format!("reading the sealed file: {e}")))?;
            Ok(bytes::Bytes::from(buf))
        };
        progress.set_total(len);
        if len <= PART {
            let body = read(0, len)?;
            let url = self
                .bucket
                .put_object(creds, &self.key)
                .sign(Duration::from_secs(3600));
            rt.block_on(self.send(|| client.put(url.clone()).body(body.clone()), None))?;
            progress.advance(len);
            return Ok(());
        }
        let create = self
            .bucket
            .create_multipart_upload(creds, &self.key)
            .sign(Duration::from_secs(3600));
        let text = rt.block_on(async {
            let r = self.send(|| client.post(create.clone()), None).await?;
            r.text()
                .await
                .map_err(|e| self.failed(http::chain(&e.without_url())))
        })?;
        let created = rusty_s3::actions::CreateMultipartUpload::parse_response(&text)
            .map_err(|e| self.answer(format!("CreateMultipartUpload: {e}")))?;
        let id = created.upload_id().to_string();
        let parts = len.div_ceil(PART);
        if parts > 10_000 {
            return Err(self.answer(format!("{len} bytes need more than 10,000 parts")));
        }
        let uploaded = rt.block_on(async {
            use futures_util::StreamExt;
            let results: Vec<Result<(u16, String), RemoteError>> =
                futures_util::stream::iter(0..parts)
                    .map(|i| {
                        let id = id.clone();
                        async move {
                            let at = i * PART;
                            let n = PART.min(len - at);
                            let body = read(at, n)?;
                            let number = (i + 1) as u16;
                            let url = self
                                .bucket
                                .upload_part(creds, &self.key, number, &id)
                                .sign(Duration::from_secs(3600));
                            let r = self
                                .send(|| client.put(url.clone()).body(body.clone()), None)
                                .await?;
                            let etag = r
                                .headers()
                                .get(reqwest::header::ETAG)
                                .and_then(|v| v.to_str().ok())
                                .ok_or_else(|| {
                                    self.answer("a part's answer without an ETag".into())
                                })?
                                .to_string();
                            progress.advance(n);
                            Ok((number, etag))
                        }
                    })
                    .buffer_unordered(PARTS_IN_FLIGHT)
                    .collect()
                    .await;
            let mut done = results.into_iter().collect::<Result<Vec<_>, _>>()?;
            done.sort_unstable_by_key(|d| d.0);
            let etags: Vec<String> = done.into_iter().map(|d| d.1).collect();
            let complete = self.bucket.complete_multipart_upload(
                creds,
                &self.key,
                &id,
                etags.iter().map(String::as_str),
            );
            let url = complete.sign(Duration::from_secs(3600));
            let body = complete.body();
            let r = self
                .send(|| client.post(url.clone()).body(body.clone()), None)
                .await?;
            // S3 may answer 200 and put an error in the body.
            let text = r
                .text()
                .await
                .map_err(|e| self.failed(http::chain(&e.without_url())))?;
            if text.contains("<Error>") {
                return Err(self.answer(format!("CompleteMultipartUpload: {}", first_line(&text))));
            }
            Ok(())
        });
        if uploaded.is_err() {
            let abort = self
                .bucket
                .abort_multipart_upload(creds, &self.key, &id)
                .sign(Duration::from_secs(600));
            let _ = rt.block_on(self.send(|| client.delete(abort.clone()), None));
        }
        uploaded
    }

    fn failed(&self, problem: String) -> RemoteError {
        RemoteError::Failed {
            url: self.shown.clone(),
            problem,
            attempts: 1,
        }
    }

    fn answer(&self, problem: String) -> RemoteError {
        RemoteError::Answer {
            url: self.shown.clone(),
            problem,
        }
    }

    /// Sends the request `make` builds, retrying 5xx, 429 and failed connections with
    /// backoff (5 retries); another status than 2xx is an error naming the object.
    async fn send(
        &self,
        make: impl Fn() -> reqwest::RequestBuilder,
        retries: Option<u32>,
    ) -> Result<reqwest::Response, RemoteError> {
        let retries = retries.unwrap_or(5);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let (problem, after) = match make().send().await {
                Ok(r) if r.status().is_success() => return Ok(r),
                Ok(r) if r.status().is_server_error() || r.status().as_u16() == 429 => (
                    format!("HTTP {}", r.status()),
                    http::retry_after(r.headers()),
                ),
                Ok(r) => {
                    return Err(RemoteError::Status {
                        url: self.shown.clone(),
                        status: r.status().as_u16(),
                    });
                }
                Err(e) => (http::chain(&e.without_url()), None),
            };
            if attempt > retries {
                return Err(RemoteError::Failed {
                    url: self.shown.clone(),
                    problem,
                    attempts: attempt,
                });
            }
            let delay = after.unwrap_or_else(|| http::backoff(Duration::from_millis(200), attempt));
            tokio::time::sleep(delay).await;
        }
    }
}

fn first_line(s: &str) -> &str {
    let s = s.trim();
    &s[..s.find('\n').unwrap_or(s.len()).min(200)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn object(
        url: &str,
        endpoint: Option<&str>,
        vars: &[(&str, &str)],
    ) -> Result<Object, RemoteError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let var = move |k: &str| map.get(k).cloned();
        Object::new(url, endpoint, &Env { var: &var })
    }

    #[test]
    fn objects_are_addressed_as_the_aws_tools_address_them() {
        let o = object("s3://b/dir/k.vkr", None, &[("AWS_REGION", "eu-west-3")]).unwrap();
        assert_eq!(o.shown(), "s3://b/dir/k.vkr");
        assert_eq!(
            o.read_url().as_str(),
            "https://b.s3.eu-west-3.amazonaws.com/dir/k.vkr",
            "no credentials: unsigned"
        );
        let o = object(
            "s3://b/k",
            Some("http://127.0.0.1:8333"),
            &[("AWS_ACCESS_KEY_ID", "AK"), ("AWS_SECRET_ACCESS_KEY", "SK")],
        )
        .unwrap();
        let u = o.read_url();
        assert!(u.as_str().starts_with("http://127.0.0.1:8333/b/k?"), "{u}");
        assert!(u.query().unwrap().contains("X-Amz-Signature="), "{u}");
        assert!(u.query().unwrap().contains("us-east-1"), "{u}");
        let o = object("S3://b/k", None, &[("AWS_ENDPOINT_URL", "http://h:9000")]).unwrap();
        assert!(o.read_url().as_str().starts_with("http://h:9000/b/k"));
        for bad in ["s3://b", "s3:///k", "s3://b/", "s3://u:p@b/k", "http://b/k"] {
            assert!(object(bad, None, &[]).is_err(), "{bad}");
        }
        let e = object("s3://b/k", Some("http://u:secret@h"), &[]).unwrap_err();
        assert!(!e.to_string().contains("secret"), "{e}");
    }

    #[test]
    fn profiles_give_credentials_and_the_region() {
        let dir = tempfile::tempdir().unwrap();
        let creds = dir.path().join("credentials");
        let config = dir.path().join("config");
        std::fs::write(
            &creds,
            "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n\n[work]\n# c\naws_access_key_id=W\naws_secret_access_key=WS\n",
        )
        .unwrap();
        std::fs::write(
            &config,
            "[default]\nregion = eu-north-1\n[profile work]\nregion=ap-south-1\n",
        )
        .unwrap();
        let (c, f) = (creds.to_str().unwrap(), config.to_str().unwrap());
        let o = object(
            "s3://b/k",
            None,
            &[
                ("AWS_SHARED_CREDENTIALS_FILE", c),
                ("AWS_CONFIG_FILE", f),
                ("AWS_PROFILE", "work"),
            ],
        )
        .unwrap();
        assert_eq!(o.credentials.as_ref().unwrap().key(), "W");
        assert!(o.read_url().as_str().contains("ap-south-1"));
        let o = object(
            "s3://b/k",
            None,
            &[("AWS_SHARED_CREDENTIALS_FILE", c), ("AWS_CONFIG_FILE", f)],
        )
        .unwrap();
        assert_eq!(o.credentials.as_ref().unwrap().key(), "D");
        assert!(o.read_url().as_str().contains("eu-north-1"));
        // The environment comes first.
        let o = object(
            "s3://b/k",
            None,
            &[
                ("AWS_SHARED_CREDENTIALS_FILE", c),
                ("AWS_ACCESS_KEY_ID", "E"),
                ("AWS_SECRET_ACCESS_KEY", "ES"),
            ],
        )
        .unwrap();
        assert_eq!(o.credentials.as_ref().unwrap().key(), "E");
    }
}
