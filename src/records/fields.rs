//! Field-level encryption of CSV/TSV streams, with keyed lookup tokens
//! (`docs/RECORDS-FORMAT.md`, last section).

use crate::keys::Keyring;
use aes_gcm_siv::Aes256GcmSiv;
use aes_gcm_siv::aead::{AeadInOut, KeyInit};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::Mac;
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
}

/// What went wrong. Never carries a value.
#[derive(Debug, thiserror::Error)]
pub enum FieldError {
    /// Malformed CSV/TSV.
    #[error("line {line}: not valid {format}")]
    Syntax {
        /// The line.
        line: u64,
        /// CSV or TSV.
        format: &'static str,
    },
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
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Decryption plan: fields to decrypt, token fields, column names.
type Plan = (Vec<usize>, Vec<usize>, Vec<Vec<u8>>);

/// The format byte: 0x40 marks format 1, the low 6 bits the key id.
const FORMAT_1: u8 = 0x40;

struct FieldKeys {
    cipher: Aes256GcmSiv,
    tokens: hmac::Hmac<sha2::Sha256>,
    byte0: u8,
}

fn field_keys(key: &crate::keys::MasterKey, context: &[u8]) -> FieldKeys {
    let mut k = Zeroizing::new([0u8; 32]);
    key.derive("records/fields", context, k.as_mut());
    let mut t = Zeroizing::new([0u8; 32]);
    key.derive("records/field-tokens", context, t.as_mut());
    FieldKeys {
        cipher: Aes256GcmSiv::new_from_slice(k.as_ref()).expect("32-byte key"),
        tokens: <hmac::Hmac<sha2::Sha256> as hmac::KeyInit>::new_from_slice(t.as_ref())
            .expect("any key length"),
        byte0: FORMAT_1 | (key.id() & 0x3f) as u8,
    }
}

fn aad(column: &[u8]) -> Vec<u8> {
    [&b"veilkit-field"[..], column].concat()
}

/// Encrypts one value: `byte0 ‖ nonce ‖ ciphertext ‖ tag`, base64url.
fn seal(k: &FieldKeys, column: &[u8], value: &[u8]) -> Result<String, FieldError> {
    let mut nonce = [0u8; 12];
    getrandom::fill(&mut nonce).map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut buf = value.to_vec();
    let tag = k
        .cipher
        .encrypt_inout_detached(&nonce.into(), &aad(column), buf.as_mut_slice().into())
        .map_err(|_| std::io::Error::other("value too long"))?;
    let mut out = Vec::with_capacity(29 + value.len());
    out.push(k.byte0);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&buf);
    out.extend_from_slice(&tag);
    Ok(URL_SAFE_NO_PAD.encode(out))
}

fn token(k: &FieldKeys, value: &[u8]) -> String {
    let mut m = k.tokens.clone();
    m.update(value);
    URL_SAFE_NO_PAD.encode(&m.finalize().into_bytes()[..16])
}

fn column_name(header: Option<&csv::ByteRecord>, i: usize) -> Vec<u8> {
    match header.and_then(|h| h.get(i)) {
        Some(name) => name.to_vec(),
        None => (i + 1).to_string().into_bytes(),
    }
}

fn resolve(fields: &[Field], header: Option<&csv::ByteRecord>) -> Result<Vec<usize>, FieldError> {
    fields
        .iter()
        .map(|f| match f {
            Field::Number(n) => Ok(n - 1),
            Field::Name(name) => header
                .ok_or(FieldError::NeedHeader)?
                .iter()
                .position(|h| h == name.as_bytes())
                .ok_or_else(|| FieldError::NoField {
                    line: 1,
                    field: format!("{name:?}"),
                }),
        })
        .collect()
}

fn reader<'a>(opts: &Options, input: &'a mut dyn Read) -> csv::Reader<&'a mut dyn Read> {
    csv::ReaderBuilder::new()
        .delimiter(opts.delimiter)
        .has_headers(false)
        .flexible(true)
        .quoting(opts.delimiter == b',')
        .from_reader(input)
}

fn writer<'a>(opts: &Options, output: &'a mut dyn Write) -> csv::Writer<&'a mut dyn Write> {
    csv::WriterBuilder::new()
        .delimiter(opts.delimiter)
        .quote_style(if opts.delimiter == b',' {
            csv::QuoteStyle::Necessary
        } else {
            csv::QuoteStyle::Never
        })
        .from_writer(output)
}

fn syntax(opts: &Options, e: &csv::Error) -> FieldError {
    if let csv::ErrorKind::Io(io) = e.kind() {
        return FieldError::Io(std::io::Error::new(io.kind(), io.to_string()));
    }
    FieldError::Syntax {
        line: e.position().map_or(0, |p| p.line()),
        format: if opts.delimiter == b',' { "CSV" } else { "TSV" },
    }
}

/// Encrypts the chosen fields of every row (the header row gets `NAME_token` columns).
/// Returns the rows written (header excluded).
pub fn encrypt(
    ring: &Keyring,
    opts: &Options,
    input: &mut dyn Read,
    output: &mut dyn Write,
) -> Result<u64, FieldError> {
    let keys = field_keys(ring.current(), &opts.context);
    let mut rdr = reader(opts, input);
    let mut w = writer(opts, output);
    let mut rec = csv::ByteRecord::new();
    let mut header: Option<csv::ByteRecord> = None;
    let mut chosen: Option<(Vec<usize>, Vec<usize>)> = None;
    let mut rows = 0u64;
    let mut out = csv::ByteRecord::new();
    while rdr
        .read_byte_record(&mut rec)
        .map_err(|e| syntax(opts, &e))?
    {
        let line = rec.position().map_or(0, |p| p.line());
        if opts.header && header.is_none() {
            header = Some(rec.clone());
            let (f, t) = (
                resolve(&opts.fields, header.as_ref())?,
                resolve(&opts.token_fields, header.as_ref())?,
            );
            out.clear();
            for (i, name) in rec.iter().enumerate() {
                out.push_field(name);
                if t.contains(&i) {
                    out.push_field(&[name, b"_token"].concat());
                }
            }
            w.write_byte_record(&out).map_err(|e| syntax(opts, &e))?;
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
            if rec.get(i).is_none() {
                return Err(FieldError::NoField {
                    line,
                    field: (i + 1).to_string(),
                });
            }
        }
        out.clear();
        for (i, value) in rec.iter().enumerate() {
            if f.contains(&i) {
                out.push_field(seal(&keys, &column_name(header.as_ref(), i), value)?.as_bytes());
            } else {
                out.push_field(value);
            }
            if t.contains(&i) {
                out.push_field(token(&keys, value).as_bytes());
            }
        }
        w.write_byte_record(&out).map_err(|e| syntax(opts, &e))?;
        rows += 1;
    }
    w.flush()?;
    Ok(rows)
}

/// Decrypts the chosen fields and drops the token columns of `token_fields`.
pub fn decrypt(
    ring: &Keyring,
    opts: &Options,
    input: &mut dyn Read,
    output: &mut dyn Write,
) -> Result<u64, FieldError> {
    let mut rdr = reader(opts, input);
    let mut w = writer(opts, output);
    let mut rec = csv::ByteRecord::new();
    let mut plan: Option<Plan> = None;
    let mut keys: Vec<Option<FieldKeys>> = (0..64).map(|_| None).collect();
    let mut rows = 0u64;
    let mut out = csv::ByteRecord::new();
    while rdr
        .read_byte_record(&mut rec)
        .map_err(|e| syntax(opts, &e))?
    {
        let line = rec.position().map_or(0, |p| p.line());
        if plan.is_none() {
            if opts.header {
                // The original header: each token column `NAME_token` right after a
                // token field NAME is dropped.
                let mut original = csv::ByteRecord::new();
                let cols: Vec<&[u8]> = rec.iter().collect();
                let mut j = 0;
                while j < cols.len() {
                    let i = original.len();
                    original.push_field(cols[j]);
                    let is_token_field = opts.token_fields.iter().any(|f| match f {
                        Field::Name(n) => n.as_bytes() == cols[j],
                        Field::Number(n) => *n == i + 1,
                    });
                    let next_is_token = cols
                        .get(j + 1)
                        .is_some_and(|c| *c == [cols[j], b"_token"].concat().as_slice());
                    j += if is_token_field && next_is_token {
                        2
                    } else {
                        1
                    };
                }
                let f = resolve(&opts.fields, Some(&original))?;
                let t = resolve(&opts.token_fields, Some(&original))?;
                let names: Vec<Vec<u8>> = original.iter().map(<[u8]>::to_vec).collect();
                w.write_byte_record(&original)
                    .map_err(|e| syntax(opts, &e))?;
                plan = Some((f, t, names));
                continue;
            }
            let f = resolve(&opts.fields, None)?;
            let t = resolve(&opts.token_fields, None)?;
            let width = rec.len().saturating_sub(t.len());
            plan = Some((f, t, (0..width).map(|i| column_name(None, i)).collect()));
        }
        let (f, t, names) = plan.as_ref().expect("set above");
        out.clear();
        let mut src = 0usize;
        for (i, name) in names.iter().enumerate() {
            let value = rec.get(src).ok_or_else(|| FieldError::NoField {
                line,
                field: (i + 1).to_string(),
            })?;
            src += 1;
            if f.contains(&i) {
                let column = String::from_utf8_lossy(name).into_owned();
                let raw = URL_SAFE_NO_PAD
                    .decode(value)
                    .map_err(|_| FieldError::Decrypt {
                        line,
                        field: format!("{column:?}"),
                    })?;
                if raw.len() < 29 || raw[0] & 0xc0 != FORMAT_1 {
                    return Err(FieldError::Decrypt {
                        line,
                        field: format!("{column:?}"),
                    });
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
                let (ct, tag) = raw[13..].split_at(raw.len() - 13 - 16);
                let tag: [u8; 16] = tag.try_into().expect("16 bytes");
                let mut buf = Zeroizing::new(ct.to_vec());
                k.cipher
                    .decrypt_inout_detached(
                        &nonce.into(),
                        &aad(name),
                        buf.as_mut_slice().into(),
                        &tag.into(),
                    )
                    .map_err(|_| FieldError::Decrypt {
                        line,
                        field: format!("{column:?}"),
                    })?;
                out.push_field(&buf);
            } else {
                out.push_field(value);
            }
            if t.contains(&i) {
                src += 1;
            }
        }
        // Fields past the header's width pass through.
        for extra in rec.iter().skip(src) {
            out.push_field(extra);
        }
        w.write_byte_record(&out).map_err(|e| syntax(opts, &e))?;
        rows += 1;
    }
    w.flush()?;
    Ok(rows)
}
