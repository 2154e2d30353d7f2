//! The key of a JSON line: the named member's string value (unescaped), or the exact
//! JSON text of a number or boolean (docs/RECORDS-FORMAT.md, "Keys").
//!
//! The line is read once, without building a tree: every member's value is checked as
//! JSON and borrowed, and the named one kept. A number's key is its text as written
//! (`1e2` stays `1e2`, a 30-digit id keeps its 30 digits), never a float's rendering,
//! so that `records get` finds it by what the input says. A member named twice is an
//! error: JSON parsers disagree on which one counts, and a record's key must not depend
//! on which parser reads the line.

use serde::Deserializer as _;
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// Why a line has no key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Not a JSON object (the parser's message).
    NotJson(String),
    /// The object has no member of that name.
    Missing,
    /// The member is named more than once.
    Twice,
    /// The member's value is null, an array or an object.
    NotScalar,
}

/// The key bytes of the JSON object `text` by its member `name`.
pub fn key(text: &[u8], name: &str) -> Result<Vec<u8>, Problem> {
    let mut de = serde_json::Deserializer::from_slice(text);
    let found = de
        .deserialize_map(Member { name })
        .and_then(|found| de.end().map(|()| found))
        .map_err(not_json)?;
    let raw = found?.get();
    match raw.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<String>(raw)
            .map(String::into_bytes)
            .map_err(not_json),
        Some(b'-' | b'0'..=b'9' | b't' | b'f') => Ok(raw.as_bytes().to_vec()),
        _ => Err(Problem::NotScalar),
    }
}

/// The parser's message, its position given as a column of the line alone: serde_json
/// counts lines within the text it reads, which is one line of the input, so its "line 1"
/// would contradict the input's line number beside it.
fn not_json(e: serde_json::Error) -> Problem {
    let text = e.to_string();
    let message = match text.rfind(" at line ") {
        Some(at) if e.line() > 0 => &text[..at],
        _ => &text,
    };
    Problem::NotJson(if e.column() > 0 {
        format!("{message} at column {}", e.column())
    } else {
        message.to_string()
    })
}

/// Visits an object for the member `name`.
struct Member<'n> {
    name: &'n str,
}

impl<'de> Visitor<'de> for Member<'_> {
    type Value = Result<&'de RawValue, Problem>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        let mut twice = false;
        while let Some(is_it) = map.next_key_seed(IsName(self.name))? {
            let value: &'de RawValue = map.next_value()?;
            if is_it {
                twice |= found.is_some();
                found = Some(value);
            }
        }
        Ok(match found {
            _ if twice => Err(Problem::Twice),
            Some(v) => Ok(v),
            None => Err(Problem::Missing),
        })
    }
}

/// A member name, compared with the one sought (escapes undone first).
struct IsName<'n>(&'n str);

impl<'de> DeserializeSeed<'de> for IsName<'_> {
    type Value = bool;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for IsName<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        Ok(v == self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(text: &str) -> Result<Vec<u8>, Problem> {
        key(text.as_bytes(), "id")
    }

    #[test]
    fn strings_are_unescaped_and_scalars_kept_as_written() {
        assert_eq!(k(r#"{"id":"u1","v":[1,{"id":2}]}"#).unwrap(), b"u1");
        assert_eq!(
            k(r#"{"i\u0064":"a\"b\u00e9"}"#).unwrap(),
            "a\"b\u{e9}".as_bytes()
        );
        assert_eq!(k(r#"{ "v" : 1 , "id" : 42 }"#).unwrap(), b"42");
        assert_eq!(k(r#"{"id":1e2}"#).unwrap(), b"1e2");
        assert_eq!(k(r#"{"id":1.0}"#).unwrap(), b"1.0");
        assert_eq!(k(r#"{"id":-0}"#).unwrap(), b"-0");
        let big = "123456789012345678901234567890";
        assert_eq!(k(&format!(r#"{{"id":{big}}}"#)).unwrap(), big.as_bytes());
        assert_eq!(k(r#"{"id":true}"#).unwrap(), b"true");
        assert_eq!(k(r#"{"id":false}"#).unwrap(), b"false");
    }

    #[test]
    fn what_has_no_key_says_why() {
        assert_eq!(k(r#"{"id":1,"id":2}"#), Err(Problem::Twice));
        assert_eq!(k(r#"{"id":1,"x":0,"i\u0064":1}"#), Err(Problem::Twice));
        assert_eq!(k(r#"{"ID":1}"#), Err(Problem::Missing));
        assert_eq!(k(r#"{"id":null}"#), Err(Problem::NotScalar));
        assert_eq!(k(r#"{"id":[1]}"#), Err(Problem::NotScalar));
        assert_eq!(k(r#"{"id":{}}"#), Err(Problem::NotScalar));
        for bad in [
            r#"[1]"#,
            r#"{"id":1} x"#,
            r#"{"id":1,}"#,
            r#"{"id":01}"#,
            "",
            "\"id\"",
        ] {
            assert!(matches!(k(bad), Err(Problem::NotJson(_))), "{bad:?}");
        }
        // Invalid JSON anywhere in the line, not only in the key's member; the position
        // is a column of the line.
        assert_eq!(
            k(r#"{"id":1,"v":[1,]}"#),
            Err(Problem::NotJson("expected value at column 16".into()))
        );
        assert_eq!(
            k(r#"{"id":2,,}"#),
            Err(Problem::NotJson("key must be a string at column 9".into()))
        );
    }
}
