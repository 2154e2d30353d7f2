//! A UTF-8 byte order mark before the header row (a spreadsheet's "CSV UTF-8", or R's
//! `write.csv` with `fileEncoding = "UTF-8-BOM"`): it stays where it is, and is no part
//! of the first column's name where a column is chosen by name or a token column named.

use super::super::input::BOM;
use crate::delimited::Dialect;
use std::io::Read;

/// The name a token column is named after: column `i`'s, without the byte order mark
/// that starts the input before the first column's (which stays where it was, at the
/// start of the header).
pub(super) fn token_base(i: usize, name: &[u8]) -> &[u8] {
    match name.strip_prefix(BOM) {
        Some(rest) if i == 0 => rest,
        _ => name,
    }
}

/// Reads the start of `input`. With a header row in CSV, a mark right before a quoted
/// first name (R's `write.csv` quotes every name) is taken off before the CSV is read,
/// which would refuse it (a quote inside an unquoted field): the caller writes it back
/// before the header row and puts it in front of the first name, which then holds it as
/// an unquoted first name does. Returns the bytes read that still belong to the input,
/// and whether the mark was taken.
pub(super) fn take(
    input: &mut dyn Read,
    header: bool,
    dialect: Dialect,
) -> std::io::Result<(Vec<u8>, bool)> {
    let mut head = Vec::with_capacity(4);
    if !(header && dialect.quoting) {
        return Ok((head, false));
    }
    input.take(4).read_to_end(&mut head)?;
    if super::super::input::mark_before_quote(&head) {
        head.drain(..BOM.len());
        return Ok((head, true));
    }
    Ok((head, false))
}

/// Puts the mark taken by [`take`] back: in front of the first name, and into `out`
/// before the header row.
pub(super) fn put_back(names: &mut [Vec<u8>], out: &mut Vec<u8>) {
    if let Some(first) = names.first_mut() {
        first.splice(0..0, BOM.iter().copied());
    }
    out.extend_from_slice(BOM);
}
