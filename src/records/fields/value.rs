//! One encrypted field value: its format byte, keys, associated data and tokens
//! (`docs/RECORDS-FORMAT.md`, "Field encryption").

use super::super::aead::{GcmSiv, TAG};
use super::super::crypto::Nonces;
use super::super::hmac256::Hmac256;
use crate::keys::MasterKey;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use zeroize::Zeroizing;

/// The format byte's top two bits: format 1, a value bound to its column.
const FORMAT_1: u8 = 0x40;
/// Format 2: a value bound to its column and to the values of other columns of its row
/// (`--bind`).
const FORMAT_2: u8 = 0x80;

/// Bytes a value gains before base64: the format byte, the nonce and the tag.
pub const OVERHEAD: usize = 1 + 12 + TAG;

/// The subkeys of one master key and context.
pub struct FieldKeys {
    cipher: GcmSiv,
    bound: GcmSiv,
    tokens: Hmac256,
    id_bits: u8,
}

impl FieldKeys {
    /// The subkeys of `key` for `context`.
    pub fn new(key: &MasterKey, context: &[u8]) -> FieldKeys {
        let sub = |purpose: &str| {
            let mut k = Zeroizing::new([0u8; 32]);
            key.derive(purpose, context, k.as_mut());
            k
        };
        FieldKeys {
            cipher: GcmSiv::new(&sub("records/fields")),
            bound: GcmSiv::new(&sub("records/fields-bound")),
            tokens: Hmac256::new(sub("records/field-tokens").as_ref()),
            id_bits: (key.id() & 0x3f) as u8,
        }
    }

    /// Encrypts one value of `column`: `byte0 ‖ nonce ‖ ciphertext ‖ tag`, base64url.
    /// With `bound` (each bound column's name and value, in column order), format 2;
    /// else format 1.
    pub fn seal<V: AsRef<[u8]>>(
        &self,
        nonces: &mut Nonces,
        column: &[u8],
        bound: Option<&[(&[u8], V)]>,
        value: &[u8],
    ) -> std::io::Result<String> {
        let nonce = nonces
            .draw()
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut out = Vec::with_capacity(OVERHEAD + value.len());
        let (byte0, cipher, aad) = match bound {
            None => (FORMAT_1, &self.cipher, aad_1(column)),
            Some(b) => (FORMAT_2, &self.bound, aad_2(column, b)),
        };
        out.push(byte0 | self.id_bits);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(value);
        let tag = cipher
            .seal(&nonce, &aad, &mut out[13..])
            .ok_or_else(|| std::io::Error::other("value too long"))?;
        out.extend_from_slice(&tag);
        Ok(URL_SAFE_NO_PAD.encode(out))
    }

    /// Decrypts `sealed` into `buf`; the plaintext, or `None` when it does not
    /// authenticate (and then `buf` holds no plaintext).
    pub fn open<'a, V: AsRef<[u8]>>(
        &self,
        sealed: &Sealed,
        column: &[u8],
        bound: Option<&[(&[u8], V)]>,
        buf: &'a mut Vec<u8>,
    ) -> Option<&'a [u8]> {
        let (cipher, aad) = match bound {
            None => (&self.cipher, aad_1(column)),
            Some(b) => (&self.bound, aad_2(column, b)),
        };
        buf.clear();
        buf.extend_from_slice(&sealed.raw[13..]);
        cipher.open(&sealed.nonce(), &aad, buf).map(|p| &*p)
    }

    /// The token of a value: the first 16 bytes of its HMAC, base64url.
    pub fn token(&self, value: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(&self.tokens.mac(value)[..16])
    }
}

/// A value's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Bound to its column.
    Column,
    /// Bound to its column and other columns' values (`--bind`).
    Bound,
}

/// A field's text taken apart: its format, key id bits, nonce and the rest.
pub struct Sealed {
    raw: Vec<u8>,
    /// The format.
    pub format: Format,
    /// The low 6 bits of the key id.
    pub id_bits: u32,
}

impl Sealed {
    /// Decodes a field's text; `None` when it is not a value of either format.
    pub fn parse(text: &[u8]) -> Option<Sealed> {
        let raw = URL_SAFE_NO_PAD.decode(text).ok()?;
        if raw.len() < OVERHEAD {
            return None;
        }
        let format = match raw[0] & 0xc0 {
            FORMAT_1 => Format::Column,
            FORMAT_2 => Format::Bound,
            _ => return None,
        };
        Some(Sealed {
            format,
            id_bits: u32::from(raw[0] & 0x3f),
            raw,
        })
    }

    fn nonce(&self) -> [u8; 12] {
        self.raw[1..13].try_into().expect("checked length")
    }
}

/// Format 1's associated data: `"veilkit-field" ‖ column`.
fn aad_1(column: &[u8]) -> Vec<u8> {
    [&b"veilkit-field"[..], column].concat()
}

/// Format 2's associated data: `lp(column)` then, for each bound column in column order,
/// `lp(name) ‖ lp(value)`, where `lp(x) = be32(len(x)) ‖ x`.
fn aad_2<V: AsRef<[u8]>>(column: &[u8], bound: &[(&[u8], V)]) -> Vec<u8> {
    let mut aad = Vec::with_capacity(64);
    let mut lp = |x: &[u8]| {
        // Fields are bounded by the reader's record cap, far below 4 GiB.
        aad.extend_from_slice(&(x.len() as u32).to_be_bytes());
        aad.extend_from_slice(x);
    };
    lp(column);
    for (name, value) in bound {
        lp(name);
        lp(value.as_ref());
    }
    aad
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_2_associated_data_is_length_prefixed() {
        assert_eq!(
            aad_2(b"ssn", &[(&b"id"[..], b"17")]),
            b"\0\0\0\x03ssn\0\0\0\x02id\0\0\0\x0217".to_vec()
        );
        // Moving bytes between a name and a value changes it.
        assert_ne!(
            aad_2(b"ssn", &[(&b"id"[..], b"17")]),
            aad_2(b"ssn", &[(&b"id1"[..], b"7")])
        );
    }
}
