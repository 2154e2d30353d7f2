//! Range bodies as they arrive, decoded from the `Content-Encoding` the server chose:
//! gzip (libdeflate), Zstandard, Brotli, or none. Whole bodies are decoded in one call
//! into a buffer kept from one range to the next, never more than [`MAX_BODY`] bytes.
//!
//! Why not a streaming decoder: a range body is small (about 75 KB at full scale) and
//! arrives whole before it is checked, and a one-call decoder is the fastest there is
//! (`cargo bench --features bench --bench range_bodies`: libdeflate inflates a full-scale body in 0.42x
//! the time of flate2's miniz_oxide, the decoder reqwest would use; Zstandard decodes
//! the same body in 0.37x libdeflate's time, Brotli in 2x).
//!
//! Every decoder refuses what follows the end of its data (a second gzip member or
//! Zstandard frame is read, as the formats allow; anything else is an error), so a body
//! is never silently cut short.

use super::body::MAX_BODY;

/// A content coding veilkit reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// No coding.
    Identity,
    /// gzip (and the old name `x-gzip`).
    Gzip,
    /// Zstandard.
    Zstd,
    /// Brotli.
    Brotli,
}

impl Encoding {
    /// The coding a `Content-Encoding` value names (`None` header: identity), or the
    /// value when veilkit cannot read it.
    pub fn from_header(value: Option<&str>) -> Result<Encoding, String> {
        let Some(v) = value else {
            return Ok(Encoding::Identity);
        };
        let v = v.trim();
        Ok(match v.to_ascii_lowercase().as_str() {
            "" | "identity" => Encoding::Identity,
            "gzip" | "x-gzip" => Encoding::Gzip,
            "zstd" => Encoding::Zstd,
            "br" => Encoding::Brotli,
            _ => return Err(v.chars().take(64).collect()),
        })
    }

    /// The coding's token in `Accept-Encoding`, as `--accept-encoding` spells it.
    pub fn token(self) -> &'static str {
        match self {
            Encoding::Identity => "identity",
            Encoding::Gzip => "gzip",
            Encoding::Zstd => "zstd",
            Encoding::Brotli => "br",
        }
    }

    /// The coding `--accept-encoding` names.
    pub fn from_token(token: &str) -> Option<Encoding> {
        [
            Encoding::Identity,
            Encoding::Gzip,
            Encoding::Zstd,
            Encoding::Brotli,
        ]
        .into_iter()
        .find(|e| e.token() == token)
    }
}

/// Why a body could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not valid data of the coding (damaged, cut short, or followed by other bytes).
    #[error("{0} body is damaged or cut short: {1}")]
    Damaged(&'static str, String),
    /// Larger than [`MAX_BODY`] once decoded.
    #[error("body larger than {} MiB once decoded", MAX_BODY >> 20)]
    TooLarge,
}

/// Decodes bodies, keeping its buffer and decompressors from one body to the next.
pub struct Decoder {
    gzip: Inflater,
    zstd: zstd::zstd_safe::DCtx<'static>,
    buf: Vec<u8>,
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Decoder")
    }
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder::new()
    }
}

impl Decoder {
    /// A decoder.
    pub fn new() -> Decoder {
        Decoder {
            gzip: Inflater::new(),
            zstd: zstd::zstd_safe::DCtx::create(),
            buf: Vec::new(),
        }
    }

    /// `raw`, a body of coding `encoding`, decoded. The result borrows the decoder's
    /// buffer (or `raw` itself, for identity).
    pub fn decode<'a>(
        &'a mut self,
        encoding: Encoding,
        raw: &'a [u8],
    ) -> Result<&'a [u8], DecodeError> {
        if raw.is_empty() {
            // An empty body with a coding is still an empty body (as curl reads it).
            return Ok(raw);
        }
        match encoding {
            Encoding::Identity => {
                if raw.len() > MAX_BODY {
                    return Err(DecodeError::TooLarge);
                }
                Ok(raw)
            }
            Encoding::Gzip => {
                let n = self.gzip.gunzip(raw, &mut self.buf)?;
                Ok(&self.buf[..n])
            }
            Encoding::Zstd => {
                let n = unzstd(&mut self.zstd, raw, &mut self.buf)?;
                Ok(&self.buf[..n])
            }
            Encoding::Brotli => {
                let n = unbrotli(raw, &mut self.buf)?;
                Ok(&self.buf[..n])
            }
        }
    }
}

/// The next size to try for a buffer of `len` bytes that was too small: twice as
/// large, at most one byte over the limit (the byte that proves a body too large).
fn grow(len: usize) -> Result<usize, DecodeError> {
    if len > MAX_BODY {
        return Err(DecodeError::TooLarge);
    }
    Ok((len.max(1 << 16) * 2).min(MAX_BODY + 1))
}

/// Makes `buf` at least `len` bytes long (its contents are overwritten by the caller).
fn ensure(buf: &mut Vec<u8>, len: usize) {
    if buf.len() < len {
        buf.resize(len, 0);
    }
}

/// A libdeflate decompressor.
struct Inflater(std::ptr::NonNull<libdeflate_sys::libdeflate_decompressor>);

// SAFETY: a libdeflate decompressor holds only its own tables, with no tie to the thread
// that made it; `&mut self` on every use keeps it to one caller at a time.
#[allow(unsafe_code)]
unsafe impl Send for Inflater {}

impl Inflater {
    fn new() -> Inflater {
        #[allow(unsafe_code)]
        // SAFETY: allocation only; a null result (out of memory) is handled as Rust's own
        // allocation failure is.
        let p = unsafe { libdeflate_sys::libdeflate_alloc_decompressor() };
        match std::ptr::NonNull::new(p) {
            Some(p) => Inflater(p),
            None => std::alloc::handle_alloc_error(std::alloc::Layout::new::<[u8; 32768]>()),
        }
    }

    /// Every gzip member of `raw` decoded into `buf`, one after the other: the length.
    fn gunzip(&mut self, raw: &[u8], buf: &mut Vec<u8>) -> Result<usize, DecodeError> {
        let damaged = |what: &str| DecodeError::Damaged("gzip", what.to_string());
        let (mut at, mut filled) = (0usize, 0usize);
        // The last member's ISIZE: the whole size when there is one member (the usual
        // case), so one call does it.
        let hint = match raw.len().checked_sub(4) {
            Some(i) => u32::from_le_bytes(raw[i..].try_into().expect("4 bytes")) as usize,
            None => return Err(damaged("shorter than a gzip header")),
        };
        ensure(buf, hint.clamp(1 << 12, MAX_BODY + 1));
        while at < raw.len() {
            let (mut used, mut out) = (0usize, 0usize);
            let input = &raw[at..];
            let avail = &mut buf[filled..];
            #[allow(unsafe_code)]
            // SAFETY: the pointers and lengths are those of two live slices that do not
            // overlap (`raw` is borrowed, `buf` mutably borrowed); libdeflate reads at
            // most `input.len()` bytes, writes at most `avail.len()`, and writes the two
            // counts through valid pointers to locals.
            let r = unsafe {
                libdeflate_sys::libdeflate_gzip_decompress_ex(
                    self.0.as_ptr(),
                    input.as_ptr().cast(),
                    input.len(),
                    avail.as_mut_ptr().cast(),
                    avail.len(),
                    &mut used,
                    &mut out,
                )
            };
            match r {
                libdeflate_sys::libdeflate_result_LIBDEFLATE_SUCCESS => {
                    // libdeflate never reports more than it was given; checked anyway
                    // so a broken library cannot make this loop stall or overrun.
                    if used == 0 || used > input.len() || out > avail.len() {
                        return Err(damaged("the decoder made no progress"));
                    }
                    at += used;
                    filled += out;
                    if filled > MAX_BODY {
                        return Err(DecodeError::TooLarge);
                    }
                }
                libdeflate_sys::libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE => {
                    let len = grow(buf.len())?;
                    ensure(buf, len);
                }
                _ => {
                    return Err(damaged(if at == 0 {
                        "not gzip data, or a bad checksum"
                    } else {
                        "bytes after the gzip data"
                    }));
                }
            }
        }
        Ok(filled)
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        #[allow(unsafe_code)]
        // SAFETY: the pointer came from libdeflate_alloc_decompressor and is freed once.
        unsafe {
            libdeflate_sys::libdeflate_free_decompressor(self.0.as_ptr())
        }
    }
}

/// Every Zstandard frame of `raw` decoded into `buf` in one call (no window buffer: the
/// output is the window): the length.
fn unzstd(
    dctx: &mut zstd::zstd_safe::DCtx<'static>,
    raw: &[u8],
    buf: &mut Vec<u8>,
) -> Result<usize, DecodeError> {
    use zstd::zstd_safe;
    let hint = match zstd_safe::get_frame_content_size(raw) {
        Ok(Some(n)) => usize::try_from(n).unwrap_or(usize::MAX),
        _ => raw.len().saturating_mul(4),
    };
    let mut len = hint.clamp(1 << 12, MAX_BODY + 1);
    loop {
        buf.clear();
        buf.reserve_exact(len);
        match dctx.decompress(&mut *buf, raw) {
            Ok(n) => {
                if n > MAX_BODY {
                    return Err(DecodeError::TooLarge);
                }
                return Ok(n);
            }
            Err(code) => {
                let kind = zstd_safe::zstd_sys::ZSTD_ErrorCode::ZSTD_error_dstSize_tooSmall;
                if zstd_safe::is_error_kind(code, kind) {
                    len = grow(len)?;
                    continue;
                }
                return Err(DecodeError::Damaged(
                    "Zstandard",
                    zstd_safe::get_error_name(code).to_string(),
                ));
            }
        }
    }
}

/// A Brotli stream of `raw` decoded into `buf`: the length. Standard windows only (at
/// most 16 MiB; the large-window extension is refused, so its ring buffer stays bounded).
fn unbrotli(raw: &[u8], buf: &mut Vec<u8>) -> Result<usize, DecodeError> {
    use brotli_decompressor::{BrotliDecompressStream, BrotliResult, BrotliState, StandardAlloc};
    let damaged = |what: &str| DecodeError::Damaged("Brotli", what.to_string());
    let mut state = BrotliState::new(
        StandardAlloc::default(),
        StandardAlloc::default(),
        StandardAlloc::default(),
    );
    state.large_window = false;
    ensure(
        buf,
        (raw.len().saturating_mul(4)).clamp(1 << 12, MAX_BODY + 1),
    );
    let (mut in_left, mut in_at) = (raw.len(), 0usize);
    let (mut out_at, mut total) = (0usize, 0usize);
    loop {
        let mut out_left = buf.len() - out_at;
        let r = BrotliDecompressStream(
            &mut in_left,
            &mut in_at,
            raw,
            &mut out_left,
            &mut out_at,
            buf,
            &mut total,
            &mut state,
        );
        match r {
            BrotliResult::ResultSuccess => {
                if in_left != 0 {
                    return Err(damaged("bytes after the Brotli data"));
                }
                if out_at > MAX_BODY {
                    return Err(DecodeError::TooLarge);
                }
                return Ok(out_at);
            }
            BrotliResult::NeedsMoreOutput => {
                let len = grow(buf.len())?;
                ensure(buf, len);
            }
            BrotliResult::NeedsMoreInput => return Err(damaged("cut short")),
            BrotliResult::ResultFailure => return Err(damaged("not Brotli data")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] =
        b"0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:2";

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn brotli(data: &[u8]) -> Vec<u8> {
        // A stored (uncompressed) Brotli stream: WBITS 16, then one uncompressed
        // meta-block, then an empty last meta-block (RFC 7932, 9.2 and 9.3).
        assert!(!data.is_empty() && data.len() <= 1 << 16);
        let mut bits: Vec<bool> = Vec::new();
        let put = |v: u64, n: u32, bits: &mut Vec<bool>| {
            for i in 0..n {
                bits.push(v >> i & 1 == 1);
            }
        };
        put(0, 1, &mut bits); // WBITS = 16
        put(0, 1, &mut bits); // ISLAST = 0
        put(0, 2, &mut bits); // MNIBBLES = 4
        put((data.len() - 1) as u64, 16, &mut bits); // MLEN - 1
        put(1, 1, &mut bits); // ISUNCOMPRESSED
        while !bits.len().is_multiple_of(8) {
            bits.push(false);
        }
        let mut out: Vec<u8> = bits
            .chunks(8)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u8, |b, (i, &x)| b | (u8::from(x) << i))
            })
            .collect();
        out.extend_from_slice(data);
        out.push(0b11); // ISLAST = 1, ISLASTEMPTY = 1
        out
    }

    #[test]
    fn every_coding_decodes_to_the_text() {
        let mut d = Decoder::new();
        assert_eq!(d.decode(Encoding::Identity, TEXT).unwrap(), TEXT);
        assert_eq!(d.decode(Encoding::Gzip, &gzip(TEXT)).unwrap(), TEXT);
        let z = zstd::bulk::compress(TEXT, 3).unwrap();
        assert_eq!(d.decode(Encoding::Zstd, &z).unwrap(), TEXT);
        assert_eq!(d.decode(Encoding::Brotli, &brotli(TEXT)).unwrap(), TEXT);
        assert_eq!(d.decode(Encoding::Gzip, b"").unwrap(), b"");
    }

    #[test]
    fn members_and_frames_are_read_one_after_the_other() {
        let mut d = Decoder::new();
        let (a, b) = TEXT.split_at(20);
        let two = [gzip(a), gzip(b)].concat();
        assert_eq!(d.decode(Encoding::Gzip, &two).unwrap(), TEXT);
        let two = [
            zstd::bulk::compress(a, 1).unwrap(),
            zstd::bulk::compress(b, 1).unwrap(),
        ]
        .concat();
        assert_eq!(d.decode(Encoding::Zstd, &two).unwrap(), TEXT);
    }

    #[test]
    fn a_body_cut_short_damaged_or_followed_by_bytes_is_refused() {
        let mut d = Decoder::new();
        let g = gzip(TEXT);
        let z = zstd::bulk::compress(TEXT, 3).unwrap();
        let b = brotli(TEXT);
        for (enc, data) in [
            (Encoding::Gzip, &g),
            (Encoding::Zstd, &z),
            (Encoding::Brotli, &b),
        ] {
            for cut in [1, data.len() / 2, data.len() - 1] {
                assert!(
                    d.decode(enc, &data[..cut]).is_err(),
                    "{enc:?} cut at {cut} of {}",
                    data.len()
                );
            }
            let mut extra = data.clone();
            extra.extend_from_slice(b"garbage");
            assert!(d.decode(enc, &extra).is_err(), "{enc:?} with bytes after");
            let mut flipped = data.clone();
            let at = flipped.len() - 6;
            flipped[at] ^= 0x10;
            match d.decode(enc, &flipped) {
                Err(_) => {}
                // gzip has a CRC-32. A flip in Brotli or checksum-less Zstandard data
                // can change the text instead, as a flip in an uncompressed body would
                // (transport integrity is TLS's; the body's own checks catch what that
                // makes of a line).
                Ok(t) => assert!(enc != Encoding::Gzip && t != TEXT, "{enc:?}"),
            }
        }
    }

    #[test]
    fn bodies_larger_than_the_limit_are_refused_in_bounded_memory() {
        let big = vec![b'0'; MAX_BODY + 1];
        let mut d = Decoder::new();
        assert_eq!(
            d.decode(Encoding::Gzip, &gzip(&big)),
            Err(DecodeError::TooLarge)
        );
        assert!(d.buf.len() <= MAX_BODY + 1);
        let z = zstd::bulk::compress(&big, 1).unwrap();
        assert_eq!(d.decode(Encoding::Zstd, &z), Err(DecodeError::TooLarge));
        // A gzip member whose ISIZE lies (says 16 bytes): the buffer grows as needed.
        let mut g = gzip(&vec![b'7'; 300_000]);
        let n = g.len();
        g[n - 4..].copy_from_slice(&16u32.to_le_bytes());
        assert!(d.decode(Encoding::Gzip, &g).is_err(), "ISIZE is checked");
        // Exactly the limit is fine.
        let limit = vec![b'1'; MAX_BODY];
        assert_eq!(
            d.decode(Encoding::Gzip, &gzip(&limit)).unwrap().len(),
            MAX_BODY
        );
    }

    #[test]
    fn header_values_name_their_coding() {
        assert_eq!(Encoding::from_header(None), Ok(Encoding::Identity));
        assert_eq!(Encoding::from_header(Some(" GZIP ")), Ok(Encoding::Gzip));
        assert_eq!(Encoding::from_header(Some("x-gzip")), Ok(Encoding::Gzip));
        assert_eq!(Encoding::from_header(Some("zstd")), Ok(Encoding::Zstd));
        assert_eq!(Encoding::from_header(Some("br")), Ok(Encoding::Brotli));
        assert_eq!(
            Encoding::from_header(Some("deflate")),
            Err("deflate".to_string())
        );
        for e in [
            Encoding::Identity,
            Encoding::Gzip,
            Encoding::Zstd,
            Encoding::Brotli,
        ] {
            assert_eq!(Encoding::from_token(e.token()), Some(e));
        }
    }
}
