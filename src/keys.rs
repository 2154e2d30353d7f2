//! Master keys, keyrings and subkey derivation (specified in `docs/KEYS.md`).
//!
//! A key file holds one or more 256-bit master keys, one per line:
//!
//! ```text
//! veilkit-key-1:ID:KEY:CHECK
//! ```
//!
//! `ID` is the key id in decimal, `KEY` the key as 64 hex digits and `CHECK` 8 hex digits:
//! the first 4 bytes of `SHA-256("veilkit-key-1:" ID ":" KEY)` with `KEY` in lower case.
//! Lines starting with `#` and blank lines are ignored. Ids increase down the file; the
//! last key is the current one.
//!
//! Purpose-specific subkeys come from HKDF-SHA256 over a length-prefixed label; see
//! [`derive`].

use hkdf::Hkdf;
use sha2::{Digest, Sha256};
use std::fmt;
use zeroize::{Zeroize, Zeroizing};

/// The prefix of a key line in the current format.
pub const KEY_LINE_PREFIX: &str = "veilkit-key-1";
/// The HKDF salt: fixed, so that a master key alone determines every subkey.
pub const HKDF_SALT: &[u8] = b"veilkit/hkdf/v1";
/// The first field of every HKDF info string.
pub const HKDF_DOMAIN: &[u8] = b"veilkit-v1";
/// Length of a master key in bytes.
pub const KEY_LEN: usize = 32;

/// One 256-bit master key with its id. The key bytes are zeroized on drop and never
/// appear in `Debug` output.
#[derive(Clone)]
pub struct MasterKey {
    id: u32,
    bytes: Zeroizing<[u8; KEY_LEN]>,
}

impl fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MasterKey")
            .field("id", &self.id)
            .field("bytes", &"<secret>")
            .finish()
    }
}

impl MasterKey {
    /// The key's fingerprint, `derive("fingerprint", "", 8)`: what `veilkit keys` shows and
    /// record files' key slots record, telling apart keys of different rings with one id.
    pub fn fingerprint(&self) -> [u8; 8] {
        let mut fp = [0u8; 8];
        self.derive("fingerprint", b"", &mut fp);
        fp
    }

    /// A key from its parts.
    pub fn new(id: u32, bytes: [u8; KEY_LEN]) -> Self {
        MasterKey {
            id,
            bytes: Zeroizing::new(bytes),
        }
    }

    /// A fresh random key from the operating system's generator.
    pub fn generate(id: u32) -> Result<Self, KeyError> {
        let mut bytes = Zeroizing::new([0u8; KEY_LEN]);
        getrandom::fill(bytes.as_mut()).map_err(|e| KeyError::Random(e.to_string()))?;
        Ok(MasterKey { id, bytes })
    }

    /// The key id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The raw key bytes.
    pub fn bytes(&self) -> &[u8; KEY_LEN] {
        &self.bytes
    }

    /// Derives a subkey for `purpose` and `context` into `out` (see [`derive`]).
    pub fn derive(&self, purpose: &str, context: &[u8], out: &mut [u8]) {
        derive(self.bytes(), self.id, purpose, context, out);
    }

    /// The key as one line of the key file format, without a line end.
    pub fn to_line(&self) -> Zeroizing<String> {
        let mut digits = Zeroizing::new([0u8; KEY_LEN * 2]);
        crate::hex::encode_lower(self.bytes.as_ref(), digits.as_mut());
        let hex = std::str::from_utf8(digits.as_ref()).expect("hex digits are ASCII");
        let check = checksum(self.id, hex);
        Zeroizing::new(format!("{KEY_LINE_PREFIX}:{}:{}:{check}", self.id, hex))
    }
}

fn checksum(id: u32, hex_lower: &str) -> String {
    let mut h = Sha256::new();
    h.update(KEY_LINE_PREFIX.as_bytes());
    h.update(b":");
    h.update(id.to_string().as_bytes());
    h.update(b":");
    h.update(hex_lower.as_bytes());
    crate::hex::lower_string(&h.finalize()[..4])
}

/// Derives a subkey: `HKDF-SHA256(salt = HKDF_SALT, ikm = key, info, L = out.len())` with
///
/// ```text
/// info = lp("veilkit-v1") || lp(purpose) || lp(context) || be32(key_id) || be32(L)
/// lp(x) = be32(len(x)) || x
/// ```
///
/// The length prefixes make the label unambiguous: no two different (purpose, context,
/// key id, length) tuples share an info string.
///
/// # Panics
/// If `out` is longer than 8160 bytes (255 SHA-256 blocks), which no caller asks for.
pub fn derive(key: &[u8], key_id: u32, purpose: &str, context: &[u8], out: &mut [u8]) {
    let mut info = Zeroizing::new(Vec::with_capacity(
        32 + HKDF_DOMAIN.len() + purpose.len() + context.len(),
    ));
    for part in [HKDF_DOMAIN, purpose.as_bytes(), context] {
        info.extend_from_slice(&(part.len() as u32).to_be_bytes());
        info.extend_from_slice(part);
    }
    info.extend_from_slice(&key_id.to_be_bytes());
    info.extend_from_slice(&(out.len() as u32).to_be_bytes());
    let hk = Hkdf::<Sha256>::new(Some(HKDF_SALT), key);
    hk.expand(&info, out)
        .expect("subkeys are far shorter than 255 hash blocks");
}

/// A keyring: one or more master keys with increasing ids. The last is current.
#[derive(Clone, Debug)]
pub struct Keyring {
    keys: Vec<MasterKey>,
}

/// What went wrong with a key file. Messages never contain key material.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The file has no key line.
    #[error("holds no key")]
    Empty,
    /// A line that cannot be a key.
    #[error("line {line}: {problem}")]
    Line {
        /// The line number, counted from 1.
        line: usize,
        /// What is wrong with it.
        problem: LineProblem,
    },
    /// The operating system's random generator failed.
    #[error("cannot draw random bytes: {0}")]
    Random(String),
    /// Ids would exceed the 32-bit range.
    #[error("the keyring is full (key id 4294967295 is in use)")]
    Full,
}

/// Why a line of a key file was rejected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LineProblem {
    /// Not a key line of any version.
    #[error("not a veilkit key (expected {KEY_LINE_PREFIX}:ID:KEY:CHECK)")]
    NotAKey,
    /// The file starts with a byte order mark (an editor's).
    #[error(
        "starts with a byte order mark, which an editor added: remove it, for example with sed -i '1s/^\\xEF\\xBB\\xBF//' FILE"
    )]
    ByteOrderMark,
    /// A key line of a newer format.
    #[error("key format {0} is newer than this veilkit understands; upgrade veilkit")]
    NewerFormat(String),
    /// Wrong number of `:`-separated fields.
    #[error("expected 4 fields separated by ':', found {0}")]
    FieldCount(usize),
    /// The id is not a decimal number.
    #[error("key id is not a number from 0 to 4294967295")]
    BadId,
    /// The key has the wrong number of digits (a truncated or padded key).
    #[error("key has {0} hex digits, expected 64 (truncated or mistyped)")]
    KeyLength(usize),
    /// The key has a character that is not a hex digit.
    #[error("key has a character that is not a hex digit at position {0}")]
    KeyDigit(usize),
    /// The checksum field is malformed.
    #[error("checksum is not 8 hex digits")]
    CheckFormat,
    /// The checksum does not match: a typo in the key, its id or the checksum itself.
    #[error("checksum does not match: the key or its id was mistyped or corrupted")]
    CheckMismatch,
    /// Ids must increase down the file.
    #[error("key id {id} does not follow {previous}: ids must increase down the file")]
    IdOrder {
        /// The id on this line.
        id: u32,
        /// The id on the previous key line.
        previous: u32,
    },
}

impl KeyError {
    /// The error says what to do (upgrade veilkit, remove a byte order mark): the key
    /// itself is intact, so a hint to restore it would mislead.
    pub fn says_what_to_do(&self) -> bool {
        matches!(
            self,
            KeyError::Line {
                problem: LineProblem::NewerFormat(_) | LineProblem::ByteOrderMark,
                ..
            }
        )
    }
}

impl Keyring {
    /// A ring holding one key.
    pub fn single(key: MasterKey) -> Self {
        Keyring { keys: vec![key] }
    }

    /// A fresh ring with one random key, id 1.
    pub fn generate() -> Result<Self, KeyError> {
        Ok(Keyring::single(MasterKey::generate(1)?))
    }

    /// Parses the key file format.
    pub fn parse(text: &str) -> Result<Self, KeyError> {
        let mut keys: Vec<MasterKey> = Vec::new();
        if text.starts_with('\u{feff}') {
            return Err(KeyError::Line {
                line: 1,
                problem: LineProblem::ByteOrderMark,
            });
        }
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let key = parse_line(line).map_err(|problem| KeyError::Line {
                line: i + 1,
                problem,
            })?;
            if let Some(prev) = keys.last()
                && key.id <= prev.id
            {
                return Err(KeyError::Line {
                    line: i + 1,
                    problem: LineProblem::IdOrder {
                        id: key.id,
                        previous: prev.id,
                    },
                });
            }
            keys.push(key);
        }
        if keys.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(Keyring { keys })
    }

    /// The key file text: a comment header and one line per key.
    pub fn to_text(&self) -> Zeroizing<String> {
        let mut s = Zeroizing::new(String::from(
            "# veilkit keyring (format 1): the last key is current; all of them decrypt.\n\
             # Secret: anyone who can read this file can decrypt what it protects.\n",
        ));
        for k in &self.keys {
            s.push_str(&k.to_line());
            s.push('\n');
        }
        s
    }

    /// Appends a fresh random key, which becomes current, and returns it.
    pub fn add_generated(&mut self) -> Result<&MasterKey, KeyError> {
        let id = self.current().id.checked_add(1).ok_or(KeyError::Full)?;
        self.keys.push(MasterKey::generate(id)?);
        Ok(self.current())
    }

    /// The current key: the newest, which encrypts.
    pub fn current(&self) -> &MasterKey {
        self.keys.last().expect("a keyring is never empty")
    }

    /// All keys, oldest first.
    pub fn keys(&self) -> &[MasterKey] {
        &self.keys
    }

    /// The key with this exact id.
    pub fn get(&self, id: u32) -> Option<&MasterKey> {
        self.keys.iter().find(|k| k.id == id)
    }

    /// The newest key whose id has these low `width` bits: how formats that carry only a
    /// few bits of the key id find their key. The newest `2^width` keys of a ring have
    /// distinct low bits, since ids are assigned consecutively by `keygen --add`.
    pub fn by_low_bits(&self, bits: u32, width: u32) -> Option<&MasterKey> {
        let mask = if width >= 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        self.keys.iter().rev().find(|k| k.id & mask == bits & mask)
    }
}

fn parse_line(line: &str) -> Result<MasterKey, LineProblem> {
    let fields: Vec<&str> = line.split(':').collect();
    let first = fields[0];
    if first != KEY_LINE_PREFIX {
        if let Some(v) = first.strip_prefix("veilkit-key-")
            && !v.is_empty()
            && v.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(LineProblem::NewerFormat(v.to_string()));
        }
        return Err(LineProblem::NotAKey);
    }
    if fields.len() != 4 {
        return Err(LineProblem::FieldCount(fields.len()));
    }
    let id_text = fields[1];
    if id_text.is_empty() || !id_text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LineProblem::BadId);
    }
    let id: u32 = id_text.parse().map_err(|_| LineProblem::BadId)?;
    // A leading zero would give a second spelling of the same id (and checksum input).
    if id_text.len() > 1 && id_text.starts_with('0') {
        return Err(LineProblem::BadId);
    }
    let hex = fields[2];
    if let Some(pos) = hex.bytes().position(|b| !b.is_ascii_hexdigit()) {
        return Err(LineProblem::KeyDigit(pos + 1));
    }
    if hex.len() != KEY_LEN * 2 {
        return Err(LineProblem::KeyLength(hex.len()));
    }
    let check = fields[3];
    if check.len() != 8 || !check.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(LineProblem::CheckFormat);
    }
    let mut hex_lower = Zeroizing::new(hex.to_ascii_lowercase());
    if !checksum(id, &hex_lower).eq_ignore_ascii_case(check) {
        return Err(LineProblem::CheckMismatch);
    }
    let mut bytes = [0u8; KEY_LEN];
    for (i, pair) in hex_lower.as_bytes().chunks_exact(2).enumerate() {
        bytes[i] = (hex_val(pair[0]) << 4) | hex_val(pair[1]);
    }
    hex_lower.zeroize();
    let key = MasterKey::new(id, bytes);
    bytes.zeroize();
    Ok(key)
}

fn hex_val(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => unreachable!("checked to be hex"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed_key(id: u32) -> MasterKey {
        let mut b = [0u8; 32];
        for (i, x) in b.iter_mut().enumerate() {
            *x = i as u8;
        }
        MasterKey::new(id, b)
    }

    #[test]
    fn line_round_trip() {
        let k = fixed_key(1);
        let line = k.to_line();
        let ring = Keyring::parse(&line).unwrap();
        assert_eq!(ring.current().bytes(), k.bytes());
        assert_eq!(ring.current().id(), 1);
    }

    #[test]
    fn upper_case_key_is_accepted() {
        let line = fixed_key(7)
            .to_line()
            .to_ascii_uppercase()
            .replace(&KEY_LINE_PREFIX.to_ascii_uppercase(), KEY_LINE_PREFIX);
        assert_eq!(Keyring::parse(&line).unwrap().current().id(), 7);
    }

    #[test]
    fn every_single_character_typo_in_the_key_is_caught() {
        let line = fixed_key(3).to_line();
        let start = KEY_LINE_PREFIX.len() + 3; // "veilkit-key-1:3:"
        for pos in start..line.len() {
            for c in ['0', '5', 'a', 'f'] {
                let mut typo: Vec<u8> = line.as_bytes().to_vec();
                if typo[pos] == c as u8 || typo[pos] == b':' {
                    continue;
                }
                typo[pos] = c as u8;
                let typo = String::from_utf8(typo).unwrap();
                assert!(Keyring::parse(&typo).is_err(), "typo at {pos} accepted");
            }
        }
    }

    #[test]
    fn truncated_key_is_reported_as_such() {
        let line = fixed_key(1).to_line();
        let cut: String = line.chars().take(line.len() - 1).collect();
        assert!(matches!(
            Keyring::parse(&cut),
            Err(KeyError::Line {
                problem: LineProblem::CheckFormat,
                ..
            })
        ));
        let mut fields: Vec<String> = line.split(':').map(String::from).collect();
        fields[2].pop();
        assert!(matches!(
            Keyring::parse(&fields.join(":")),
            Err(KeyError::Line {
                line: 1,
                problem: LineProblem::KeyLength(63)
            })
        ));
    }

    #[test]
    fn errors_never_contain_the_key() {
        let line = fixed_key(1).to_line();
        let key_hex = line.split(':').nth(2).unwrap().to_string();
        let mut bad = line.to_string();
        bad.replace_range(bad.len() - 1.., "0");
        bad.replace_range(bad.len() - 2..bad.len() - 1, "0");
        for text in [
            bad.as_str(),
            &line.replace(':', ";"),
            &format!("{}:extra", line.as_str()),
        ] {
            if let Err(e) = Keyring::parse(text) {
                assert!(!e.to_string().contains(&key_hex[..16]));
            }
        }
    }

    #[test]
    fn ids_must_increase() {
        let text = format!(
            "{}\n{}\n",
            fixed_key(2).to_line().as_str(),
            fixed_key(1).to_line().as_str()
        );
        assert!(matches!(
            Keyring::parse(&text),
            Err(KeyError::Line {
                line: 2,
                problem: LineProblem::IdOrder { .. }
            })
        ));
    }

    #[test]
    fn newer_format_is_named() {
        assert!(matches!(
            Keyring::parse("veilkit-key-2:1:00:00"),
            Err(KeyError::Line {
                problem: LineProblem::NewerFormat(_),
                ..
            })
        ));
    }

    #[test]
    fn low_bits_address_the_newest_four() {
        let mut ring = Keyring::single(fixed_key(1));
        for _ in 0..5 {
            ring.add_generated().unwrap();
        }
        // ids 1..=6; low 2 bits: 1,2,3,0,1,2
        assert_eq!(ring.by_low_bits(1, 2).unwrap().id(), 5);
        assert_eq!(ring.by_low_bits(2, 2).unwrap().id(), 6);
        assert_eq!(ring.by_low_bits(3, 2).unwrap().id(), 3);
        assert_eq!(ring.by_low_bits(0, 2).unwrap().id(), 4);
    }

    fn hex(b: &[u8]) -> String {
        crate::hex::lower_string(b)
    }

    /// The vectors of docs/KEYS.md, computed independently (Python hmac/hashlib).
    #[test]
    fn documented_vectors() {
        let k = fixed_key(1);
        assert_eq!(
            k.to_line().as_str(),
            "veilkit-key-1:1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f:79aebb5e"
        );
        let mut fp = [0u8; 8];
        k.derive("fingerprint", b"", &mut fp);
        assert_eq!(hex(&fp), "4d9c43c716ee5e46");
        let mut sub = [0u8; 32];
        k.derive("ids", b"users", &mut sub);
        assert_eq!(
            hex(&sub),
            "f05b24e13907380d955e7d4e62b20fadd973224e8cc3670d480ecda575164b43"
        );
        derive(k.bytes(), 2, "ids", b"users", &mut sub);
        assert_eq!(
            hex(&sub),
            "f9cfbbb721e859749e0eab4795382f5299292c15b358d8ca19476357154453e9"
        );
        let mut short = [0u8; 16];
        k.derive("ids", b"", &mut short);
        assert_eq!(hex(&short), "2d4c2dce43efad847ae554319a8b4fc1");
    }

    #[test]
    fn derivation_separates_purpose_context_and_length() {
        let k = fixed_key(1);
        let mut a = [0u8; 32];
        let mut b = [0u8; 32];
        k.derive("ids", b"users", &mut a);
        k.derive("ids", b"orders", &mut b);
        assert_ne!(a, b);
        // "ab" + "c" vs "a" + "bc": length prefixes keep them apart
        derive(k.bytes(), 1, "ab", b"c", &mut a);
        derive(k.bytes(), 1, "a", b"bc", &mut b);
        assert_ne!(a, b);
        let mut short = [0u8; 16];
        k.derive("ids", b"users", &mut short);
        k.derive("ids", b"users", &mut a);
        assert_ne!(&a[..16], &short[..]);
    }

    /// The deviations docs/KEYS.md lists as accepted are accepted, the others refused.
    #[test]
    fn key_file_deviations_as_documented() {
        let line = "veilkit-key-1:1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f:79aebb5e";
        let upper = "veilkit-key-1:1:000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F:79AEBB5E";
        for ok in [
            format!("{line}\r\n"),
            format!("{line}  \t\n"),
            format!("  {line}\n"),
            format!("  # a note\n\t\n{line}\n"),
            format!("{upper}\n"),
            line.to_string(),
        ] {
            let ring = Keyring::parse(&ok).unwrap_or_else(|e| panic!("{ok:?}: {e}"));
            assert_eq!(ring.current().id(), 1);
        }
        for bad in [
            format!("\u{feff}{line}\n"),
            line.replace(":1:", ":01:"),
            line.replace(":1:", ":+1:"),
            line.replace(":1:", ": 1:"),
            format!("{line}0"),
        ] {
            assert!(Keyring::parse(&bad).is_err(), "{bad:?}");
        }
        // A byte order mark is named as such (the key is intact), anywhere else a key
        // line's damage as before.
        for (text, at, problem, says) in [
            (
                format!("\u{feff}{line}\n"),
                1,
                LineProblem::ByteOrderMark,
                true,
            ),
            (
                format!("{line}\n\u{feff}{line}\n"),
                2,
                LineProblem::NotAKey,
                false,
            ),
        ] {
            let e = Keyring::parse(&text).unwrap_err();
            assert_eq!(e.says_what_to_do(), says, "{text:?}");
            let KeyError::Line {
                line: n,
                problem: p,
            } = e
            else {
                panic!("{text:?}: {e}");
            };
            assert_eq!((n, p), (at, problem), "{text:?}");
        }
    }
}
