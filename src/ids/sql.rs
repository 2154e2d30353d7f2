//! `veilkit ids sql`: a psql script defining PostgreSQL functions that encode and decode
//! ids exactly as `veilkit encode`/`decode` do (docs/IDS.md, "Inside PostgreSQL"), with
//! pgcrypto's AES and the per-context subkeys in a table only the owner reads.

use super::text::Format;
use super::{Codec, Form, MAX_ROUNDS, Scheme, Spec, SpecError, UUID_MAX};
use crate::keys::Keyring;
use std::fmt::Write;
use zeroize::Zeroizing;

/// What the script defines.
#[derive(Debug, Clone)]
pub struct SqlOptions {
    /// The scheme (deterministic form).
    pub scheme: Scheme,
    /// Feistel rounds (uuid).
    pub rounds: u32,
    /// The bit cycle walking keeps clear.
    pub clear_bit: u32,
    /// Contexts: one function set each (`encode`, or `encode_NAME` for context NAME).
    pub contexts: Vec<String>,
    /// Text form.
    pub format: Format,
    /// A prefix written before ids and required when decoding.
    pub prefix: String,
    /// The schema of the functions and the key table.
    pub schema: String,
    /// Keys only: replace the keys of these contexts, leave the functions.
    pub keys_only: bool,
}

/// Why no script could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SqlError {
    /// Bad scheme options.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// A context that cannot name functions.
    #[error(
        "context {0:?} cannot name SQL functions: use lower-case letters, digits and _ (at most 40)"
    )]
    Context(String),
    /// A schema name that is not a plain identifier.
    #[error(
        "schema {0:?}: use lower-case letters, digits and _ (at most 63, not starting with a digit)"
    )]
    Schema(String),
    /// A schema of PostgreSQL's own (`pg_...`, which it refuses to create, or
    /// `information_schema`).
    #[error(
        "schema {0:?} is PostgreSQL's own (names starting pg_ are reserved, and information_schema holds the system's views): choose another, such as veilkit"
    )]
    ReservedSchema(String),
    /// A prefix with characters SQL text would need to escape.
    #[error("prefix {0:?}: use printable ASCII without quotes, backslashes or spaces")]
    Prefix(String),
}

const M60: u64 = UUID_MAX;

fn plain_name(s: &str, max: usize) -> bool {
    !s.is_empty()
        && s.len() <= max
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// The scheme's label in the key table: its purpose and what changes the key's length.
fn label(o: &SqlOptions) -> String {
    match o.scheme {
        Scheme::Uuid => format!("uuid-det/{}", o.rounds),
        Scheme::Aes128 => "aes128-det".to_string(),
        Scheme::CycleWalk => "cycle-walk-det".to_string(),
    }
}

fn hex(b: &[u8]) -> String {
    crate::hex::lower_string(b)
}

/// The psql script for `ring` and `o`.
pub fn postgresql(ring: &Keyring, o: &SqlOptions) -> Result<Zeroizing<String>, SqlError> {
    if o.schema.as_bytes()[..]
        .first()
        .is_none_or(u8::is_ascii_digit)
        || !plain_name(&o.schema, 63)
    {
        return Err(SqlError::Schema(o.schema.clone()));
    }
    if o.schema.starts_with("pg_") || o.schema == "information_schema" {
        return Err(SqlError::ReservedSchema(o.schema.clone()));
    }
    if !o
        .prefix
        .bytes()
        .all(|b| b.is_ascii_graphic() && !matches!(b, b'\'' | b'\\' | b'"'))
    {
        return Err(SqlError::Prefix(o.prefix.clone()));
    }
    for c in &o.contexts {
        if !c.is_empty() && !plain_name(c, 40) {
            return Err(SqlError::Context(c.clone()));
        }
    }
    if o.scheme == Scheme::Uuid && !(3..=MAX_ROUNDS).contains(&o.rounds) {
        return Err(SqlError::Spec(SpecError::Rounds { min: 3 }));
    }
    let s = format!("\"{}\"", o.schema);
    let mut out = Zeroizing::new(String::new());
    let w = &mut *out;
    let _ = writeln!(
        w,
        "-- veilkit ids sql ({} {}): PostgreSQL functions that give the same ids as\n\
         -- `veilkit encode`/`decode` with the same key and options (docs/IDS.md, \"Inside\n\
         -- PostgreSQL\"). It holds derived id keys, never the master key: keep it as\n\
         -- secret as a key file. Run it with psql as the role that will own the keys.",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION")
    );
    w.push_str("\\set ON_ERROR_STOP on\nBEGIN;\nSET LOCAL client_min_messages = warning;\n");
    let _ = writeln!(
        w,
        "CREATE SCHEMA IF NOT EXISTS {s};\n\
         CREATE TABLE IF NOT EXISTS {s}.id_keys (\n    \
             context text NOT NULL,\n    \
             scheme text NOT NULL,\n    \
             key_id integer NOT NULL,\n    \
             subkey bytea NOT NULL,\n    \
             PRIMARY KEY (context, scheme, key_id)\n\
         );\n\
         REVOKE ALL ON {s}.id_keys FROM PUBLIC;\n\
         -- Every role may call the functions; only the owner reads the keys.\n\
         GRANT USAGE ON SCHEMA {s} TO PUBLIC;"
    );
    let scheme_label = label(o);
    for context in &o.contexts {
        let spec = Spec {
            scheme: o.scheme,
            form: Form::Deterministic,
            rounds: if o.scheme == Scheme::Uuid {
                o.rounds
            } else {
                Spec::default_rounds(Form::Deterministic)
            },
            clear_bit: o.clear_bit,
            context: context.as_bytes().to_vec(),
        };
        // Checks the options as the CLI does.
        Codec::new(ring, spec.clone())?;
        let len = match o.scheme {
            Scheme::Uuid => 16 * o.rounds as usize,
            _ => 16,
        };
        let _ = writeln!(
            w,
            "DELETE FROM {s}.id_keys WHERE context = '{context}' AND scheme = '{scheme_label}';"
        );
        for k in ring.keys() {
            let mut material = Zeroizing::new(vec![0u8; len]);
            k.derive(spec.purpose(), &spec.context, &mut material);
            let _ = writeln!(
                w,
                "INSERT INTO {s}.id_keys VALUES ('{context}', '{scheme_label}', {}, '\\x{}');",
                k.id(),
                hex(&material)
            );
        }
    }
    if !o.keys_only {
        w.push_str(
            "CREATE EXTENSION IF NOT EXISTS pgcrypto;\n\
             SELECT n.nspname AS veilkit_pgcrypto FROM pg_extension e\n    \
                 JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pgcrypto' \\gset\n",
        );
        helpers(w, &s);
        key_functions(w, &s);
        for context in &o.contexts {
            functions(w, &s, o, context, &scheme_label);
        }
    }
    w.push_str("COMMIT;\n");
    Ok(out)
}

/// The key functions, and the trigger that keeps every session's copy of the keys current.
///
/// `_key`, `_key_id` and `_keys` read `id_keys` but are declared immutable, so that a
/// session plans the functions' key lookups once, with the keys as constants of the plan:
/// a lookup per call would cost more than the three AES calls. Any change to `id_keys`
/// (the script's, or by hand) replaces these functions with themselves, which drops every
/// plan that holds their results, in every session. Only the owner may call them.
fn key_functions(w: &mut String, s: &str) {
    let sql = |w: &mut String, sig: &str, ret: &str, body: &str| {
        let _ = writeln!(
            w,
            "CREATE OR REPLACE FUNCTION {s}.{sig} RETURNS {ret}\n    \
                 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog\n    \
                 AS $veilkit$ {body} $veilkit$;\n\
             REVOKE ALL ON FUNCTION {s}.{sig} FROM PUBLIC;"
        );
    };
    sql(
        w,
        "_key(c text, sch text, bits integer)",
        "bytea",
        &format!(
            "SELECT subkey FROM {s}.id_keys WHERE context = c AND scheme = sch \
             AND (bits < 0 OR key_id % 4 = bits) ORDER BY key_id DESC LIMIT 1"
        ),
    );
    sql(
        w,
        "_key_id(c text, sch text)",
        "integer",
        &format!(
            "SELECT key_id FROM {s}.id_keys WHERE context = c AND scheme = sch \
             ORDER BY key_id DESC LIMIT 1"
        ),
    );
    sql(
        w,
        "_keys(c text, sch text)",
        "bytea[]",
        &format!(
            "SELECT array_agg(subkey ORDER BY key_id DESC) FROM {s}.id_keys \
             WHERE context = c AND scheme = sch"
        ),
    );
    let _ = writeln!(
        w,
        "CREATE OR REPLACE FUNCTION {s}._keys_changed() RETURNS trigger\n    \
             LANGUAGE plpgsql SET search_path = pg_catalog\n    \
             AS $veilkit$\n\
         BEGIN\n    \
             EXECUTE pg_get_functiondef('{s}._key(text, text, integer)'::regprocedure);\n    \
             EXECUTE pg_get_functiondef('{s}._key_id(text, text)'::regprocedure);\n    \
             EXECUTE pg_get_functiondef('{s}._keys(text, text)'::regprocedure);\n    \
             RETURN NULL;\n\
         END\n\
         $veilkit$;\n\
         REVOKE ALL ON FUNCTION {s}._keys_changed() FROM PUBLIC;\n\
         DROP TRIGGER IF EXISTS keys_changed ON {s}.id_keys;\n\
         CREATE TRIGGER keys_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {s}.id_keys\n    \
             FOR EACH STATEMENT EXECUTE FUNCTION {s}._keys_changed();"
    );
}

/// Byte order and text-form helpers: plain SQL, immutable, no key material.
fn helpers(w: &mut String, s: &str) {
    let sql = |w: &mut String, sig: &str, ret: &str, body: &str| {
        let _ = writeln!(
            w,
            "CREATE OR REPLACE FUNCTION {s}.{sig} RETURNS {ret}\n    \
                 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE\n    \
                 AS $veilkit$ {body} $veilkit$;"
        );
    };
    // LE64(x): the bytes of x, least significant first.
    sql(
        w,
        "_le(x bigint)",
        "bytea",
        "SELECT pg_catalog.int8send((x << 56) | ((x << 40) & 71776119061217280) \
         | ((x << 24) & 280375465082880) | ((x << 8) & 1095216660480) \
         | ((x >> 8) & 4278190080) | ((x >> 24) & 16711680) | ((x >> 40) & 65280) \
         | ((x >> 56) & 255))",
    );
    // LE64⁻¹ of the first 8 bytes.
    let mut unle = String::from("SELECT ");
    for i in 0..8 {
        if i > 0 {
            unle.push_str(" | ");
        }
        let _ = write!(unle, "(pg_catalog.get_byte(b, {i})::bigint << {})", 8 * i);
    }
    sql(w, "_unle(b bytea)", "bigint", &unle);
    // The 8 big-endian bytes at `at` (0 or 8) as a bigint.
    sql(
        w,
        "_unbe(b bytea, at integer)",
        "bigint",
        "SELECT ('x' || pg_catalog.encode(pg_catalog.substring(b, at + 1, 8), 'hex'))::bit(64)::bigint",
    );
    // Text forms of 16 bytes.
    sql(
        w,
        "_b32(b bytea)",
        "text",
        "SELECT pg_catalog.string_agg(pg_catalog.substr('0123456789abcdefghjkmnpqrstvwxyz', \
         pg_catalog.substring(v, 5 * i + 1, 5)::integer + 1, 1), '' ORDER BY i) \
         FROM (SELECT B'00' || ('x' || pg_catalog.encode(b, 'hex'))::bit(128) AS v) AS x, \
         pg_catalog.generate_series(0, 25) AS i",
    );
    let _ = writeln!(
        w,
        "CREATE OR REPLACE FUNCTION {s}._b62(b bytea) RETURNS text\n    \
             LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog\n    \
             AS $veilkit$\n\
         DECLARE\n    \
             hi bigint := {s}._unbe(b, 0);\n    \
             lo bigint := {s}._unbe(b, 8);\n    \
             v numeric := (hi::numeric + CASE WHEN hi < 0 THEN 18446744073709551616 ELSE 0 END) * 18446744073709551616\n        \
                 + lo::numeric + CASE WHEN lo < 0 THEN 18446744073709551616 ELSE 0 END;\n    \
             out text := '';\n\
         BEGIN\n    \
             FOR i IN 1..22 LOOP\n        \
                 out := substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', (v % 62)::integer + 1, 1) || out;\n        \
                 v := div(v, 62);\n    \
             END LOOP;\n    \
             RETURN out;\n\
         END\n\
         $veilkit$;"
    );
    // Parsing: NULL for anything that is not exactly a text form.
    let _ = writeln!(
        w,
        "CREATE OR REPLACE FUNCTION {s}._parse(t text, form text) RETURNS bytea\n    \
             LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog\n    \
             AS $veilkit$\n\
         DECLARE\n    \
             bits varbit := B'';\n    \
             v numeric := 0;\n    \
             d integer;\n\
         BEGIN\n    \
             IF form = 'uuid' THEN\n        \
                 IF t !~ '^[0-9a-fA-F]{{8}}-[0-9a-fA-F]{{4}}-[0-9a-fA-F]{{4}}-[0-9a-fA-F]{{4}}-[0-9a-fA-F]{{12}}$' THEN RETURN NULL; END IF;\n        \
                 RETURN decode(replace(t, '-', ''), 'hex');\n    \
             ELSIF form = 'hex' THEN\n        \
                 IF t !~ '^[0-9a-fA-F]{{32}}$' THEN RETURN NULL; END IF;\n        \
                 RETURN decode(t, 'hex');\n    \
             ELSIF form = 'base32' THEN\n        \
                 t := translate(lower(t), 'ilo', '110');\n        \
                 IF t !~ '^[0-7][0-9a-hjkmnp-tv-z]{{25}}$' THEN RETURN NULL; END IF;\n        \
                 FOR i IN 1..26 LOOP\n            \
                     bits := bits || (strpos('0123456789abcdefghjkmnpqrstvwxyz', substr(t, i, 1)) - 1)::bit(5);\n        \
                 END LOOP;\n        \
                 RETURN int8send(substring(bits, 3, 64)::bit(64)::bigint) || int8send(substring(bits, 67, 64)::bit(64)::bigint);\n    \
             ELSE\n        \
                 IF t !~ '^[0-9A-Za-z]{{22}}$' THEN RETURN NULL; END IF;\n        \
                 FOR i IN 1..22 LOOP\n            \
                     d := strpos('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', substr(t, i, 1)) - 1;\n            \
                     v := v * 62 + d;\n        \
                 END LOOP;\n        \
                 IF v >= 340282366920938463463374607431768211456 THEN RETURN NULL; END IF;\n        \
                 RETURN int8send((div(v, 18446744073709551616) - CASE WHEN div(v, 18446744073709551616) >= 9223372036854775808 THEN 18446744073709551616 ELSE 0 END)::bigint)\n            \
                     || int8send((mod(v, 18446744073709551616) - CASE WHEN mod(v, 18446744073709551616) >= 9223372036854775808 THEN 18446744073709551616 ELSE 0 END)::bigint);\n    \
             END IF;\n\
         END\n\
         $veilkit$;"
    );
}

/// One context's `encode`, `try_decode` and `decode`.
fn functions(w: &mut String, s: &str, o: &SqlOptions, context: &str, scheme_label: &str) {
    let suffix = if context.is_empty() {
        String::new()
    } else {
        format!("_{context}")
    };
    let as_uuid = o.format == Format::Uuid && o.prefix.is_empty();
    let (out_type, in_type) = if as_uuid {
        ("uuid", "uuid")
    } else {
        ("text", "text")
    };
    let head = |w: &mut String, sig: &str, ret: &str| {
        let _ = writeln!(
            w,
            "CREATE OR REPLACE FUNCTION {s}.{sig} RETURNS {ret}\n    \
                 LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE SECURITY DEFINER\n    \
                 SET search_path = pg_catalog, :\"veilkit_pgcrypto\"\n    \
                 AS $veilkit$"
        );
    };
    // The keys come from the immutable key functions with constant arguments: planned
    // once a session, they are constants of the plan (see `helpers`).
    let key_args = format!("'{context}', '{scheme_label}'");
    let aes = |block: &str, key: &str| format!("encrypt({block}, {key}, 'aes-ecb/pad:none')");
    // One round: `y := y ^ (F_a(x) & M60)`, in two statements (a helper given the
    // cipher's output directly is not inlined, and then costs several times the round).
    let round = |w: &mut String, y: &str, x: &str, a: u32| {
        let _ = writeln!(
            w,
            "    q := {};\n    {y} := {y} # ({s}._unle(q) & {M60});",
            aes(
                &format!("{s}._le({x}) || t"),
                &format!("substring(k, {}, 16)", 16 * a + 1)
            )
        );
    };
    // The 16 bytes `b` as the function returns them.
    let text_of = match o.format {
        Format::Uuid => "encode(b, 'hex')::uuid::text",
        Format::Hex => "encode(b, 'hex')",
        Format::Base32 => &format!("{s}._b32(b)"),
        Format::Base62 => &format!("{s}._b62(b)"),
    };
    let ret = if as_uuid {
        "encode(b, 'hex')::uuid".to_string()
    } else {
        format!("'{}' || {text_of}", o.prefix)
    };
    let range_check = |max: &str, what: &str| {
        format!(
            "    IF id < 0 OR id > {max} THEN\n        \
                 RAISE EXCEPTION 'id % is outside the {what}', id USING ERRCODE = '22003';\n    \
             END IF;\n"
        )
    };
    let no_key = format!(
        "    IF k IS NULL THEN\n        \
             RAISE EXCEPTION 'no veilkit id key for context \"{context}\" ({scheme_label}): run the script of veilkit ids sql' USING ERRCODE = '55000';\n    \
         END IF;\n"
    );
    // encode
    head(w, &format!("encode{suffix}(id bigint)"), out_type);
    match o.scheme {
        Scheme::Uuid => {
            let _ = writeln!(
                w,
                "DECLARE\n    kid integer;\n    k bytea;\n    t bytea;\n    l bigint := id;\n    r bigint := 0;\n    q bytea;\n    b bytea;\nBEGIN\n{}    k := {s}._key({key_args}, -1);\n{no_key}    t := {s}._le({s}._key_id({key_args}) % 4);",
                range_check(&M60.to_string(), "range 0 to 2^60 - 1 of the uuid scheme")
            );
            for a in 0..o.rounds {
                if a % 2 == 1 {
                    round(w, "l", "r", a);
                } else {
                    round(w, "r", "l", a);
                }
            }
            let _ = writeln!(
                w,
                "    b := int8send(((l >> 12) << 16) | 32768 | (l & 4095))\n        \
                     || int8send(-9223372036854775808 | (({s}._key_id({key_args}) % 4)::bigint << 60) | r);"
            );
        }
        Scheme::Aes128 | Scheme::CycleWalk => {
            let _ = write!(
                w,
                "DECLARE\n    k bytea;\n    b bytea;\n    n integer := 0;\nBEGIN\n{}",
                range_check("9223372036854775807", "range 0 to 2^63 - 1 of a bigint id")
            );
            if o.scheme == Scheme::CycleWalk && o.clear_bit < 63 {
                let _ = writeln!(
                    w,
                    "    IF (id >> {c}) & 1 = 1 THEN\n        \
                         RAISE EXCEPTION 'id % has bit {c} set, which cycle walking keeps clear (--clear-bit {c})', id USING ERRCODE = '22003';\n    \
                     END IF;",
                    c = o.clear_bit
                );
            }
            let _ = writeln!(
                w,
                "    k := {s}._key({key_args}, -1);\n{no_key}    b := {};",
                aes(&format!("{s}._le(id) || '\\x0000000000000000'::bytea"), "k")
            );
            if o.scheme == Scheme::CycleWalk {
                let _ = writeln!(
                    w,
                    "    WHILE get_byte(b, {}) & {} <> 0 LOOP\n        \
                         b := {};\n    \
                     END LOOP;",
                    o.clear_bit / 8,
                    1 << (o.clear_bit % 8),
                    aes("b", "k")
                );
            }
        }
    }
    let _ = writeln!(w, "    RETURN {ret};\nEND\n$veilkit$;");

    // try_decode: NULL for anything encode did not make with a key of the table.
    let strip = if o.prefix.is_empty() {
        "    p := id;\n".to_string()
    } else {
        format!(
            "    IF left(id, {n}) <> '{p}' THEN RETURN NULL; END IF;\n    p := substr(id, {m});\n",
            n = o.prefix.len(),
            p = o.prefix,
            m = o.prefix.len() + 1
        )
    };
    let to_bytes = if as_uuid {
        "    b := uuid_send(id);\n".to_string()
    } else {
        format!(
            "{strip}    b := {s}._parse(p, '{}');\n    IF b IS NULL THEN RETURN NULL; END IF;\n",
            o.format.name()
        )
    };
    let body = match o.scheme {
        Scheme::Uuid => {
            let mut body = format!(
                "    hi := {s}._unbe(b, 0);\n    lo := {s}._unbe(b, 8);\n    \
                 IF (hi >> 12) & 15 <> 8 OR (lo >> 62) & 3 <> 2 THEN RETURN NULL; END IF;\n    \
                 r := lo & {M60};\n    \
                 l := (((hi >> 16) & 281474976710655) << 12) | (hi & 4095);\n    \
                 kid := (lo >> 60) & 3;\n    \
                 k := CASE kid WHEN 0 THEN {s}._key({key_args}, 0) WHEN 1 THEN {s}._key({key_args}, 1)\n        \
                     WHEN 2 THEN {s}._key({key_args}, 2) ELSE {s}._key({key_args}, 3) END;\n    \
                 IF k IS NULL THEN RETURN NULL; END IF;\n    \
                 t := {s}._le(kid);\n"
            );
            for a in (0..o.rounds).rev() {
                if a % 2 == 1 {
                    round(&mut body, "l", "r", a);
                } else {
                    round(&mut body, "r", "l", a);
                }
            }
            body.push_str("    IF r <> 0 THEN RETURN NULL; END IF;\n    RETURN l;\n");
            body
        }
        Scheme::Aes128 | Scheme::CycleWalk => {
            let mut body = String::new();
            let walk = o.scheme == Scheme::CycleWalk;
            let bit = format!(
                "get_byte({{}}, {}) & {} <> 0",
                o.clear_bit / 8,
                1 << (o.clear_bit % 8)
            );
            if walk {
                let _ = writeln!(
                    body,
                    "    IF {} THEN RETURN NULL; END IF;",
                    bit.replace("{}", "b")
                );
            }
            let _ = writeln!(
                body,
                "    FOREACH k IN ARRAY coalesce({s}._keys({key_args}), '{{}}') LOOP\n        \
                     q := {};",
                aes("b", "k").replace("encrypt(", "decrypt(")
            );
            if walk {
                // The walk ends on the plaintext, which had the bit clear; bounded all
                // the same.
                let _ = writeln!(
                    body,
                    "        n := 0;\n        \
                     WHILE {} AND n < 1000000 LOOP\n            \
                         q := {};\n            \
                         n := n + 1;\n        \
                     END LOOP;",
                    bit.replace("{}", "q"),
                    aes("q", "k").replace("encrypt(", "decrypt(")
                );
            }
            body.push_str(
                "        IF substring(q, 9, 8) = '\\x0000000000000000'::bytea THEN\n            \
                     v := ",
            );
            let _ = writeln!(
                body,
                "{s}._unle(q);\n            \
                     IF v < 0 THEN RETURN NULL; END IF;\n            \
                     RETURN v;\n        \
                 END IF;\n    \
                 END LOOP;\n    \
                 RETURN NULL;"
            );
            body
        }
    };
    let declare = "DECLARE\n    b bytea;\n    p text;\n    q bytea;\n    k bytea;\n    kid integer;\n    t bytea;\n    hi bigint;\n    lo bigint;\n    l bigint;\n    r bigint;\n    v bigint;\n    n integer;\n";
    // decode is try_decode with an error where try_decode gives NULL: the same body,
    // written twice, so that decode costs one function call, not two.
    let raise = format!(
        "RAISE EXCEPTION 'not an id of this key and context{}: forged, mistyped, made with another key, context or scheme, or above the bigint range' USING ERRCODE = '22P02';",
        if context.is_empty() {
            String::new()
        } else {
            format!(" ({context})")
        }
    );
    let mut inputs = vec![(in_type, to_bytes)];
    if as_uuid {
        // From text too (a column of text, a parameter): anything not a UUID fails.
        inputs.push((
            "text",
            format!(
                "    b := {s}._parse(id, 'uuid');\n    IF b IS NULL THEN RETURN NULL; END IF;\n"
            ),
        ));
    }
    for (in_type, to_bytes) in inputs {
        head(w, &format!("try_decode{suffix}(id {in_type})"), "bigint");
        let _ = writeln!(w, "{declare}BEGIN\n{to_bytes}{body}END\n$veilkit$;");
        head(w, &format!("decode{suffix}(id {in_type})"), "bigint");
        let _ = writeln!(
            w,
            "{declare}BEGIN\n{}{}END\n$veilkit$;",
            to_bytes.replace("RETURN NULL;", &raise),
            body.replace("RETURN NULL;", &raise)
        );
    }
}
