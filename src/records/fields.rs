//! Field-level encryption of CSV/TSV streams, with keyed lookup tokens
//! (`docs/RECORDS-FORMAT.md`, last section).

use super::aead::{GcmSiv, TAG};
use super::crypto::Nonces;
use crate::delimited::{Dialect, ReadError, Reader, Row, write_field};
use crate::keys::Keyring;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use std::io::{Read, Write};
use zeroize::Zeroizing;

/// A field chosen by position (from 1) or by header name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    /// Counted from 1.
    Number(usize),
    /// A header row's name.
    Name(String),
}

impl Field {
    /// Parses a comma-separated list (`ssn,email` or `3,5`).
    pub fn parse_list(s: &str) -> Vec<Field> {
        s.split(',')
            .filter(|f| !f.is_empty())
            .map(|f| match f.parse::<usize>() {
                Ok(n) if n > 0 => Field::Number(n),
                _ => Field::Name(f.to_string()),
            })
            .collect()
    }
}

/// Options of `encrypt-fields` and `decrypt-fields`.
#[derive(Debug, Clone)]
pub struct Options {
    /// `,` or tab.
    pub delimiter: u8,
    /// Whether the first row is a header.
    pub header: bool,
    /// Fields to encrypt or decrypt.
    pub fields: Vec<Field>,
    /// Fields that get (or have) a token column after them.
    pub token_fields: Vec<Field>,
    /// Per-table or per-tenant context of the subkeys.
    pub context: Vec<u8>,
    /// Decrypting: keep the token columns (by default those found after their field in
    /// the header, or those of `token_fields` without a header, are dropped).
    pub keep_tokens: bool,
}

/// What went wrong. Never carries a value.
#[derive(Debug, thiserror::Error)]
pub enum FieldError {
    /// Malformed CSV/TSV (or a record beyond the cap).
    #[error(transparent)]
    Syntax(ReadError),
    /// A field not in the header or the row.
    #[error("line {line}: has no field {field}")]
    NoField {
        /// The line.
        line: u64,
        /// The field.
        field: String,
    },
    /// A name without a header row.
    #[error("fields given by name need a header row")]
    NeedHeader,
    /// A value that does not decrypt.
    #[error(
        "line {line}: field {field} does not decrypt: wrong key or context, moved from another column, or tampered"
    )]
    Decrypt {
        /// The line.
        line: u64,
        /// The column.
        field: String,
    },
    /// A value made with a key the ring no longer has.
    #[error(
        "line {line}: field {field} was encrypted with key id {key} (mod 64), which is not in the keyring"
    )]
    UnknownKey {
        /// The line.
        line: u64,
        /// The column.
        field: String,
        /// The key-id bits.
        key: u32,
    },
    /// Reading the input failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Writing the output failed (the caller names the output).
    #[error("cannot write")]
    Write(#[source] std::io::Error),
}

impl From<ReadError> for FieldError {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Io(io) => FieldError::Io(io),
            other => FieldError::Syntax(other),
        }
    }
}

/// The output of the rows: written in pieces of 64 KiB and at the end. A run that stops
/// at a bad row still writes the whole rows before it (not the bad row's first fields),
/// as encode and decode write the lines before a bad one.
struct RowsOut<'a> {
    buf: Vec<u8>,
    /// The length of `buf` up to the last whole row.
    good: usize,
    output: &'a mut dyn Write,
    finished: bool,
}

impl<'a> RowsOut<'a> {
    fn new(output: &'a mut dyn Write) -> RowsOut<'a> {
        RowsOut {
            buf: Vec::with_capacity(1 << 16),
            good: 0,
            output,
            finished: false,
        }
    }

    /// Everything so far is whole rows.
    fn mark(&mut self) {
        self.good = self.buf.len();
    }

    /// Writes what is held once it reaches 64 KiB (called after a whole row).
    fn spill(&mut self) -> Result<(), FieldError> {
        if self.buf.len() >= 1 << 16 {
            self.output
                .write_all(&self.buf)
                .map_err(FieldError::Write)?;
            self.buf.clear();
            self.good = 0;
        }
        Ok(())
    }

    /// Writes the rest, and flushes.
    fn finish(mut self) -> Result<(), FieldError> {
        self.finished = true;
        self.output
            .write_all(&self.buf)
            .map_err(FieldError::Write)?;
        self.output.flush().map_err(FieldError::Write)
    }
}

impl std::ops::Deref for RowsOut<'_> {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.buf
    }
}

impl std::ops::DerefMut for RowsOut<'_> {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }
}

impl Drop for RowsOut<'_> {
    fn drop(&mut self) {
        if !self.finished {
            // Stopped at a bad row (its error is being returned): the rows before it.
            let _ = self.output.write_all(&self.buf[..self.good]);
            let _ = self.output.flush();
        }
    }
}

/// Decryption plan: fields to decrypt, token fields, column names.
type Plan = (Vec<usize>, Vec<usize>, Vec<Vec<u8>>);

/// The format byte: 0x40 marks format 1, the low 6 bits the key id.
const FORMAT_1: u8 = 0x40;

struct FieldKeys {
    cipher: GcmSiv,
    tokens: super::hmac256::Hmac256,
    byte0: u8,
}

fn field_keys(key: &crate::keys::MasterKey, context: &[u8]) -> FieldKeys {
    let mut k = Zeroizing::new([0u8; 32]);
    key.derive("records/fields", context, k.as_mut());
    let mut t = Zeroizing::new([0u8; 32]);
    key.derive("records/field-tokens", context, t.as_mut());
    FieldKeys {
        cipher: GcmSiv::new(&k),
        tokens: super::hmac256::Hmac256::new(t.as_ref()),
        byte0: FORMAT_1 | (key.id() & 0x3f) as u8,
    }
}

fn aad(column: &[u8]) -> Vec<u8> {
    [&b"veilkit-field"[..], column].concat()
}

/// Encrypts one value: `byte0 ‖ nonce ‖ ciphertext ‖ tag`, base64url.
fn seal(
    k: &FieldKeys,
    nonces: &mut Nonces,
    column: &[u8],
    value: &[u8],
) -> Result<String, FieldError> {
    let nonce = nonces
        .draw()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut out = Vec::with_capacity(13 + value.len() + TAG);
    out.push(k.byte0);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(value);
    let tag = k
        .cipher
        .seal(&nonce, &aad(column), &mut out[13..])
        .ok_or_else(|| std::io::Error::other("value too long"))?;
    out.extend_from_slice(&tag);
    Ok(URL_SAFE_NO_PAD.encode(out))
}

fn token(k: &FieldKeys, value: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(&k.tokens.mac(value)[..16])
}

fn column_name(header: Option<&[Vec<u8>]>, i: usize) -> Vec<u8> {
    match header.and_then(|h| h.get(i)) {
        Some(name) => name.clone(),
        None => (i + 1).to_string().into_bytes(),
    }
}

fn resolve(fields: &[Field], header: Option<&[Vec<u8>]>) -> Result<Vec<usize>, FieldError> {
    fields
        .iter()
        .map(|f| match f {
            Field::Number(n) => Ok(n - 1),
            Field::Name(name) => header
                .ok_or(FieldError::NeedHeader)?
                .iter()
                .position(|h| h == name.as_bytes())
                .ok_or_else(|| {
                    let bom = header
                        .and_then(|h| h.first())
                        .is_some_and(|h| h.starts_with(super::input::BOM));
                    FieldError::NoField {
                        line: 1,
                        field: if bom {
                            format!("{name:?} ({})", super::input::BOM_NOTE)
                        } else {
                            format!("{name:?}")
                        },
                    }
                }),
        })
        .collect()
}

fn dialect(opts: &Options) -> Dialect {
    Dialect {
        delimiter: opts.delimiter,
        quoting: opts.delimiter == b',',
    }
}

/// The values of a row's fields.
fn row_values(row: &Row<'_>) -> Vec<Vec<u8>> {
    row.fields
        .iter()
        .map(|f| f.value(row.bytes).into_owned())
        .collect()
}

/// Encrypts the chosen fields of every row (the header row gets `NAME_token` columns).
/// Every other field is written exactly as it was, quotes included, and each row keeps
/// its line end; a row is written only once it has been read whole and parsed.
/// Returns the rows written (header excluded).
pub fn encrypt(
    ring: &Keyring,
    opts: &Options,
    input: &mut dyn Read,
    output: &mut dyn Write,
) -> Result<u64, FieldError> {
    let d = dialect(opts);
    let keys = field_keys(ring.current(), &opts.context);
    let mut nonces = Nonces::default();
    let mut rdr = Reader::new(input, d);
    let mut header: Option<Vec<Vec<u8>>> = None;
    let mut chosen: Option<(Vec<usize>, Vec<usize>)> = None;
    let mut rows = 0u64;
    let mut out = RowsOut::new(output);
    while let Some(row) = {
        // Every row before this one is whole: what a stop at this one still writes.
        out.mark();
        rdr.next_row()?
    } {
        if row.record.body_end == 0 {
            // An empty line holds no fields to encrypt: it passes through.
            out.extend_from_slice(row.bytes);
            continue;
        }
        if opts.header && header.is_none() {
            let names = row_values(&row);
            let (f, t) = (
                resolve(&opts.fields, Some(&names))?,
                resolve(&opts.token_fields, Some(&names))?,
            );
            for (i, field) in row.fields.iter().enumerate() {
                if i > 0 {
                    out.push(d.delimiter);
                }
                out.extend_from_slice(field.raw(row.bytes));
                if t.contains(&i) {
                    out.push(d.delimiter);
                    let name = [&names[i][..], b"_token"].concat();
                    write_field(&mut out, &name, d);
                }
            }
            out.extend_from_slice(row.line_end());
            header = Some(names);
            chosen = Some((f, t));
            continue;
        }
        if chosen.is_none() {
            chosen = Some((
                resolve(&opts.fields, None)?,
                resolve(&opts.token_fields, None)?,
            ));
        }
        let (f, t) = chosen.as_ref().expect("set above");
        for &i in f.iter().chain(t) {
            if i >= row.fields.len() {
                return Err(FieldError::NoField {
                    line: row.line,
                    field: (i + 1).to_string(),
                });
            }
        }
        for (i, field) in row.fields.iter().enumerate() {
            if i > 0 {
                out.push(d.delimiter);
            }
            let value = field.value(row.bytes);
            if f.contains(&i) {
                let name = column_name(header.as_deref(), i);
                write_field(
                    &mut out,
                    seal(&keys, &mut nonces, &name, &value)?.as_bytes(),
                    d,
                );
            } else {
                out.extend_from_slice(field.raw(row.bytes));
            }
            if t.contains(&i) {
                out.push(d.delimiter);
                out.extend_from_slice(token(&keys, &value).as_bytes());
            }
        }
        out.extend_from_slice(row.line_end());
        rows += 1;
        out.spill()?;
    }
    out.finish()?;
    Ok(rows)
}

/// Decrypts the chosen fields and drops the token columns: with a header row, every
/// `NAME_token` column right after a column NAME (as `encrypt` adds them); without one,
/// the columns after each of `token_fields`; none with `keep_tokens`. Every other field
/// is written exactly as it was.
pub fn decrypt(
    ring: &Keyring,
    opts: &Options,
    input: &mut dyn Read,
    output: &mut dyn Write,
) -> Result<u64, FieldError> {
    let d = dialect(opts);
    let mut rdr = Reader::new(input, d);
    let mut plan: Option<Plan> = None;
    let mut keys: Vec<Option<FieldKeys>> = (0..64).map(|_| None).collect();
    let mut rows = 0u64;
    let mut out = RowsOut::new(output);
    while let Some(row) = {
        // Every row before this one is whole: what a stop at this one still writes.
        out.mark();
        rdr.next_row()?
    } {
        let line = row.line;
        if row.record.body_end == 0 {
            out.extend_from_slice(row.bytes);
            continue;
        }
        if plan.is_none() {
            if opts.header {
                // The original header: each token column `NAME_token` right after a
                // column NAME (as encrypt-fields adds them) is dropped, with its values,
                // unless `keep_tokens`.
                let cols = row_values(&row);
                let mut original: Vec<Vec<u8>> = Vec::new();
                let mut kept_raw: Vec<&[u8]> = Vec::new();
                let mut dropped: Vec<usize> = Vec::new();
                let mut j = 0;
                while j < cols.len() {
                    let i = original.len();
                    original.push(cols[j].clone());
                    kept_raw.push(row.fields[j].raw(row.bytes));
                    let next_is_token = cols
                        .get(j + 1)
                        .is_some_and(|c| *c == [&cols[j][..], b"_token"].concat());
                    if next_is_token && !opts.keep_tokens {
                        dropped.push(i);
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                let f = resolve(&opts.fields, Some(&original))?;
                // Named token fields must exist; the columns dropped are those found.
                resolve(&opts.token_fields, Some(&original))?;
                let t = dropped;
                out.extend_from_slice(&kept_raw.join(&d.delimiter));
                out.extend_from_slice(row.line_end());
                plan = Some((f, t, original));
                continue;
            }
            let f = resolve(&opts.fields, None)?;
            let t = if opts.keep_tokens {
                Vec::new()
            } else {
                resolve(&opts.token_fields, None)?
            };
            let width = row.fields.len().saturating_sub(t.len());
            plan = Some((f, t, (0..width).map(|i| column_name(None, i)).collect()));
        }
        let (f, t, names) = plan.as_ref().expect("set above");
        let mut src = 0usize;
        for (i, name) in names.iter().enumerate() {
            let field = row.fields.get(src).ok_or_else(|| FieldError::NoField {
                line,
                field: (i + 1).to_string(),
            })?;
            src += 1;
            if i > 0 {
                out.push(d.delimiter);
            }
            if f.contains(&i) {
                let column = String::from_utf8_lossy(name).into_owned();
                let bad = || FieldError::Decrypt {
                    line,
                    field: format!("{column:?}"),
                };
                let raw = URL_SAFE_NO_PAD
                    .decode(field.value(row.bytes))
                    .map_err(|_| bad())?;
                if raw.len() < 29 || raw[0] & 0xc0 != FORMAT_1 {
                    return Err(bad());
                }
                let bits = u32::from(raw[0] & 0x3f);
                if keys[bits as usize].is_none() {
                    let key = ring.by_low_bits(bits, 6).ok_or(FieldError::UnknownKey {
                        line,
                        field: format!("{column:?}"),
                        key: bits,
                    })?;
                    keys[bits as usize] = Some(field_keys(key, &opts.context));
                }
                let k = keys[bits as usize].as_ref().expect("set above");
                let nonce: [u8; 12] = raw[1..13].try_into().expect("12 bytes");
                let mut buf = Zeroizing::new(raw[13..].to_vec());
                let plain = k
                    .cipher
                    .open(&nonce, &aad(name), &mut buf)
                    .ok_or_else(bad)?;
                write_field(&mut out, plain, d);
            } else {
                out.extend_from_slice(field.raw(row.bytes));
            }
            if t.contains(&i) {
                src += 1;
            }
        }
        // Fields past the header's width pass through.
        for extra in row.fields.iter().skip(src) {
            out.push(d.delimiter);
            out.extend_from_slice(extra.raw(row.bytes));
        }
        out.extend_from_slice(row.line_end());
        rows += 1;
        out.spill()?;
    }
    out.finish()?;
    Ok(rows)
}
