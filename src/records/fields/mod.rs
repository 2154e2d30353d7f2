//! Field-level encryption of CSV/TSV streams, with keyed lookup tokens
//! (`docs/RECORDS-FORMAT.md`, last section).

mod mark;
mod rows_out;
#[cfg(test)]
mod stream_tests;
mod value;

use super::crypto::Nonces;
use crate::delimited::{Dialect, ReadError, Reader, Row, write_field};
use crate::keys::Keyring;
use mark::token_base;
use rows_out::RowsOut;
use std::io::{Read, Write};
use value::{FieldKeys, Format, Sealed};
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
    /// Columns each encrypted value is bound to (format 2): a value then decrypts only in
    /// a row holding the same values in them, such as the row's primary key. Empty: format
    /// 1, bound to its column alone.
    pub bind: Vec<Field>,
    /// Decrypting: keep the token columns in the output (by default those found after
    /// their field in the header, or those of `token_fields` without a header, are
    /// dropped). Either way the other columns are chosen by the numbers and names they
    /// had before encrypt-fields added the token columns, and decrypt under them.
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
    #[error("line {line}: field {field} does not decrypt: {why}")]
    Decrypt {
        /// The line.
        line: u64,
        /// The column.
        field: String,
        /// What it can be.
        why: &'static str,
    },
    /// A value bound to other columns (format 2), decrypted without `--bind`.
    #[error(
        "line {line}: field {field} is bound to other columns of its row (encrypted with --bind): decrypt with the same --bind"
    )]
    Bound {
        /// The line.
        line: u64,
        /// The column.
        field: String,
    },
    /// A value bound to its column alone (format 1), where `--bind` asks for bound values.
    #[error(
        "line {line}: field {field} is not bound to other columns (encrypted without --bind), where --bind asks that it be: refused, as a value moved from another row would be"
    )]
    Unbound {
        /// The line.
        line: u64,
        /// The column.
        field: String,
    },
    /// A name that two columns of the header row have.
    #[error(
        "line 1: the header row has column {field} more than once (columns {first} and {second}): name it by number"
    )]
    Ambiguous {
        /// The name.
        field: String,
        /// The first column with it, from 1.
        first: usize,
        /// The next.
        second: usize,
    },
    /// A column both encrypted and bound to.
    #[error("--bind: column {field} is also in --fields: bind to columns kept in the clear")]
    BindEncrypted {
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

/// The columns a run works on, by index (from 0) in the original rows.
struct Plan {
    /// Encrypted.
    fields: Vec<usize>,
    /// With a token column after them (decrypting: those dropped).
    tokens: Vec<usize>,
    /// Bound to, in column order, with their names.
    bind: Vec<(usize, Vec<u8>)>,
    /// The original columns' names (decrypting with a header row; without one, and past
    /// the header, a column is named by its number).
    names: Vec<Vec<u8>>,
}

impl Plan {
    /// Resolves the options against the header's names (`None` without a header row).
    fn new(opts: &Options, header: Option<&[Vec<u8>]>) -> Result<Plan, FieldError> {
        let fields = resolve(&opts.fields, header)?;
        let tokens = resolve(&opts.token_fields, header)?;
        let mut bind = resolve(&opts.bind, header)?;
        bind.sort_unstable();
        bind.dedup();
        if let Some(&i) = bind.iter().find(|i| fields.contains(i)) {
            return Err(FieldError::BindEncrypted {
                field: String::from_utf8_lossy(&column_name(header, i)).into_owned(),
            });
        }
        Ok(Plan {
            fields,
            tokens,
            bind: bind
                .into_iter()
                .map(|i| (i, column_name(header, i)))
                .collect(),
            names: Vec::new(),
        })
    }

    /// The bound columns' names and values in a row, given the values by original
    /// column; `None` when nothing is bound (format 1).
    fn bound<'a>(
        &'a self,
        value_of: impl Fn(usize) -> std::borrow::Cow<'a, [u8]>,
    ) -> Option<Bound<'a>> {
        if self.bind.is_empty() {
            return None;
        }
        Some(
            self.bind
                .iter()
                .map(|(i, name)| (&name[..], value_of(*i)))
                .collect(),
        )
    }
}

/// The bound columns' names and values in one row.
type Bound<'a> = Vec<(&'a [u8], std::borrow::Cow<'a, [u8]>)>;

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
            // With a header row, a number names one of its columns: the rows' columns
            // past it have no name, and decrypt-fields would pass them through.
            Field::Number(n) if header.is_some_and(|h| *n > h.len()) => Err(FieldError::NoField {
                line: 1,
                field: n.to_string(),
            }),
            Field::Number(n) => Ok(n - 1),
            Field::Name(name) => {
                let header = header.ok_or(FieldError::NeedHeader)?;
                let names = header
                    .iter()
                    .enumerate()
                    .map(|(i, h)| super::input::names_column(i, h, name.as_bytes()));
                super::input::only_column(names).map_err(|twice| match twice {
                    // Encrypting one of two columns of one name would leave the other in
                    // the clear.
                    Some((first, second)) => FieldError::Ambiguous {
                        field: format!("{name:?}"),
                        first: first + 1,
                        second: second + 1,
                    },
                    None => FieldError::NoField {
                        line: 1,
                        field: format!("{name:?}"),
                    },
                })
            }
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
    let keys = FieldKeys::new(ring.current(), &opts.context);
    let mut nonces = Nonces::default();
    let (head, marked) = mark::take(input, opts.header, d)?;
    let mut input = (&head[..]).chain(input);
    let mut rdr = Reader::new(&mut input, d);
    let mut header: Option<Vec<Vec<u8>>> = None;
    let mut plan: Option<Plan> = None;
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
            let mut names = row_values(&row);
            if marked {
                mark::put_back(&mut names, &mut out);
            }
            let p = Plan::new(opts, Some(&names))?;
            for (i, field) in row.fields.iter().enumerate() {
                if i > 0 {
                    out.push(d.delimiter);
                }
                out.extend_from_slice(field.raw(row.bytes));
                if p.tokens.contains(&i) {
                    out.push(d.delimiter);
                    let name = [token_base(i, &names[i]), b"_token"].concat();
                    write_field(&mut out, &name, d);
                }
            }
            out.extend_from_slice(row.line_end());
            header = Some(names);
            plan = Some(p);
            continue;
        }
        if plan.is_none() {
            plan = Some(Plan::new(opts, None)?);
        }
        let p = plan.as_ref().expect("set above");
        let bound_cols = p.bind.iter().map(|(i, _)| i);
        for &i in p.fields.iter().chain(&p.tokens).chain(bound_cols) {
            if i >= row.fields.len() {
                return Err(FieldError::NoField {
                    line: row.line,
                    field: (i + 1).to_string(),
                });
            }
        }
        let bound = p.bound(|i| row.fields[i].value(row.bytes));
        for (i, field) in row.fields.iter().enumerate() {
            if i > 0 {
                out.push(d.delimiter);
            }
            let value = field.value(row.bytes);
            if p.fields.contains(&i) {
                let name = column_name(header.as_deref(), i);
                let sealed = keys.seal(&mut nonces, &name, bound.as_deref(), &value)?;
                write_field(&mut out, sealed.as_bytes(), d);
            } else {
                out.extend_from_slice(field.raw(row.bytes));
            }
            if p.tokens.contains(&i) {
                out.push(d.delimiter);
                out.extend_from_slice(keys.token(&value).as_bytes());
            }
        }
        out.extend_from_slice(row.line_end());
        rows += 1;
        out.spill()?;
    }
    out.finish()?;
    Ok(rows)
}

/// The plan of a decryption from its first row: with a header row, each token column
/// `NAME_token` right after a column NAME (as encrypt-fields adds them) is dropped, with
/// its values, unless `keep_tokens`, and the header is written without them. Either way
/// the columns are named and numbered as they were before encrypt-fields added tokens.
fn decrypt_plan(
    opts: &Options,
    row: &Row<'_>,
    marked: bool,
    out: &mut Vec<u8>,
    delimiter: u8,
) -> Result<Plan, FieldError> {
    if !opts.header {
        return Plan::new(opts, None);
    }
    let mut cols = row_values(row);
    if marked {
        // Taken off before a quoted first name by `mark::take`.
        mark::put_back(&mut cols, out);
    }
    let mut original: Vec<Vec<u8>> = Vec::new();
    let mut kept_raw: Vec<&[u8]> = Vec::new();
    let mut dropped: Vec<usize> = Vec::new();
    let mut j = 0;
    while j < cols.len() {
        let i = original.len();
        original.push(cols[j].clone());
        kept_raw.push(row.fields[j].raw(row.bytes));
        // (Or, after the first column, `NAME_token` of the name with the mark, as
        // encrypt-fields named it before it left the mark out.)
        let next_is_token = cols.get(j + 1).is_some_and(|c| {
            *c == [token_base(j, &cols[j]), b"_token"].concat()
                || *c == [&cols[j][..], b"_token"].concat()
        });
        if next_is_token {
            dropped.push(i);
            j += 2;
        } else {
            j += 1;
        }
    }
    // Named token fields must exist; the token columns are those found.
    let mut p = Plan::new(opts, Some(&original))?;
    p.tokens = dropped;
    p.names = original;
    if opts.keep_tokens {
        let all: Vec<&[u8]> = row.fields.iter().map(|f| f.raw(row.bytes)).collect();
        out.extend_from_slice(&all.join(&delimiter));
    } else {
        out.extend_from_slice(&kept_raw.join(&delimiter));
    }
    out.extend_from_slice(row.line_end());
    Ok(p)
}

/// Decrypts the chosen fields and drops the token columns: with a header row, every
/// `NAME_token` column right after a column NAME (as `encrypt` adds them); without one,
/// the columns after each of `token_fields`; with `keep_tokens` they are written as they
/// were, and still not counted in the columns' numbers. Every other field is written
/// exactly as it was.
pub fn decrypt(
    ring: &Keyring,
    opts: &Options,
    input: &mut dyn Read,
    output: &mut dyn Write,
) -> Result<u64, FieldError> {
    let d = dialect(opts);
    let (head, marked) = mark::take(input, opts.header, d)?;
    let mut input = (&head[..]).chain(input);
    let mut rdr = Reader::new(&mut input, d);
    let mut plan: Option<Plan> = None;
    let mut keys: Vec<Option<FieldKeys>> = (0..64).map(|_| None).collect();
    let mut rows = 0u64;
    let mut out = RowsOut::new(output);
    let mut buf = Zeroizing::new(Vec::new());
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
            let p = decrypt_plan(opts, &row, marked, &mut out, d.delimiter)?;
            let header = opts.header;
            plan = Some(p);
            if header {
                continue;
            }
        }
        let p = plan.as_ref().expect("set above");
        // Where each of the row's original columns is in it: a token column follows each
        // of `tokens` (the row may be shorter than the header, as encrypt-fields takes it).
        let mut at: Vec<usize> = Vec::with_capacity(row.fields.len());
        let mut src = 0usize;
        while src < row.fields.len() {
            at.push(src);
            src += if p.tokens.contains(&(at.len() - 1)) {
                2
            } else {
                1
            };
        }
        let needed = p.fields.iter().chain(p.bind.iter().map(|(i, _)| i));
        if let Some(&i) = needed.filter(|&&i| i >= at.len()).min() {
            return Err(FieldError::NoField {
                line,
                field: (i + 1).to_string(),
            });
        }
        let bound = p.bound(|i| row.fields[at[i]].value(row.bytes));
        let row_start = out.len();
        for (i, &s) in at.iter().enumerate() {
            let field = &row.fields[s];
            if i > 0 {
                out.push(d.delimiter);
            }
            if p.fields.contains(&i) {
                // As encrypt-fields names it.
                let name = match p.names.get(i) {
                    Some(n) => std::borrow::Cow::Borrowed(&n[..]),
                    None => std::borrow::Cow::Owned(column_name(None, i)),
                };
                let name = &name[..];
                let column = || format!("{:?}", String::from_utf8_lossy(name));
                let bad = |why| FieldError::Decrypt {
                    line,
                    field: column(),
                    why,
                };
                let sealed = Sealed::parse(&field.value(row.bytes))
                    .ok_or_else(|| bad("not a value encrypt-fields writes"))?;
                match (sealed.format, &bound) {
                    (Format::Bound, None) => {
                        return Err(FieldError::Bound {
                            line,
                            field: column(),
                        });
                    }
                    (Format::Column, Some(_)) => {
                        return Err(FieldError::Unbound {
                            line,
                            field: column(),
                        });
                    }
                    _ => {}
                }
                let bits = sealed.id_bits;
                if keys[bits as usize].is_none() {
                    let key = ring.by_low_bits(bits, 6).ok_or(FieldError::UnknownKey {
                        line,
                        field: column(),
                        key: bits,
                    })?;
                    keys[bits as usize] = Some(FieldKeys::new(key, &opts.context));
                }
                let k = keys[bits as usize].as_ref().expect("set above");
                let plain = k.open(&sealed, name, bound.as_deref(), &mut buf).ok_or_else(|| {
                    bad(match sealed.format {
                        Format::Column => {
                            "wrong key or context, moved from another column, or tampered"
                        }
                        Format::Bound => {
                            "wrong key or context, moved from another column or row, a bound column changed, or tampered"
                        }
                    })
                })?;
                write_field(&mut out, plain, d);
            } else {
                out.extend_from_slice(field.raw(row.bytes));
            }
            if opts.keep_tokens
                && p.tokens.contains(&i)
                && let Some(token) = row.fields.get(s + 1)
            {
                out.push(d.delimiter);
                out.extend_from_slice(token.raw(row.bytes));
            }
        }
        if out.len() == row_start && d.quoting {
            // A row of one empty value: an empty line would be no row at all.
            out.extend_from_slice(b"\"\"");
        }
        out.extend_from_slice(row.line_end());
        rows += 1;
        out.spill()?;
    }
    out.finish()?;
    Ok(rows)
}
