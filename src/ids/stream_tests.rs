//! The id stream against single calls, line by line: every output line what
//! [`Codec::encode`]/[`Codec::decode`] and the text format give for its input line
//! alone, every bad line named with its number and error, across batches (4,096 lines),
//! blocks of lines and short reads, in every scheme, form and operation, the id alone
//! on its line or in a field (with the stored nonce in another), under a header, after
//! a byte order mark.

use super::stream::{self, LineError, Op, Options, StreamError};
use super::tests::fixed_ring;
use super::text::Format;
use super::{Codec, Form, InputError, Scheme, Spec};
use crate::streams::Pieces;
use proptest::prelude::*;

/// One input line, before its line end; its text depends on the operation.
#[derive(Debug, Clone)]
enum Line {
    /// An id (and nonce) written as the operation reads it: decimal for encode, the
    /// encoded id (by the current key or the older one, upper case or not) for decode.
    Good {
        id: u64,
        nonce: u64,
        old: bool,
        upper: bool,
        blanks: u8,
    },
    /// Such a line with one byte replaced.
    Damaged {
        id: u64,
        nonce: u64,
        at: prop::sample::Index,
        byte: u8,
    },
    /// One digit: a whole line of one byte (an id for encode, a bad line for decode).
    Digit(u8),
    /// Any bytes.
    Junk(Vec<u8>),
}

fn id_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..1000,
        any::<u64>().prop_map(|v| v >> 4),
        any::<u64>(),
        Just(u64::MAX)
    ]
}

fn line_strategy() -> impl Strategy<Value = Line> {
    prop_oneof![
        8 => (id_strategy(), id_strategy(), any::<bool>(), any::<bool>(), any::<u8>())
            .prop_map(|(id, nonce, old, upper, blanks)| Line::Good { id, nonce, old, upper, blanks }),
        1 => (id_strategy(), id_strategy(), any::<prop::sample::Index>(), any::<u8>())
            .prop_map(|(id, nonce, at, byte)| Line::Damaged { id, nonce, at, byte }),
        1 => (b'0'..=b'9').prop_map(Line::Digit),
        1 => proptest::collection::vec(any::<u8>(), 0..40).prop_map(Line::Junk),
    ]
}

struct Case {
    codec: Codec,
    old: Codec,
    opts: Options,
}

impl Case {
    fn stored(&self) -> bool {
        self.codec.spec().form == Form::StoredNonce
    }

    /// An encoded id as text, with the prefix; `None` if the codec refuses the id.
    fn encoded(&self, codec: &Codec, id: u64, nonce: u64) -> Option<Vec<u8>> {
        let block = codec.encode(id, nonce).ok()?;
        let mut text = self.opts.prefix.clone();
        self.opts.format.write(&block, &mut text);
        Some(text)
    }

    fn text(&self, line: &Line) -> Vec<u8> {
        let value = |id: u64, nonce: u64, old: bool, upper: bool, blanks: u8| match self.opts.op {
            Op::Encode if self.stored() && self.opts.field.is_some() => id.to_string().into_bytes(),
            Op::Encode if self.stored() => {
                let gap = [" ", "\t", "  ", " \t "][usize::from(blanks % 4)];
                format!("{id}{gap}{nonce}").into_bytes()
            }
            Op::Encode => id.to_string().into_bytes(),
            Op::Decode | Op::Reencode => {
                let codec = if old { &self.old } else { &self.codec };
                // Within the codec's ranges, so that most such lines are good.
                let id = if codec.check_id(id).is_ok() {
                    id
                } else {
                    id >> 8
                };
                let nonce = if codec.check_nonce(nonce).is_ok() {
                    nonce
                } else {
                    nonce & codec.nonce_mask()
                };
                let mut t = self
                    .encoded(codec, id, nonce)
                    .unwrap_or_else(|| b"nothing".to_vec());
                if upper {
                    t.make_ascii_uppercase();
                }
                t
            }
        };
        // With --field, the value among other fields (the nonce in its own on encode).
        let good = |id: u64, nonce: u64, old: bool, upper: bool, blanks: u8| {
            let v = value(id, nonce, old, upper, blanks);
            let Some(f) = self.opts.field else {
                return v;
            };
            let n = f.max(self.opts.nonce_field.unwrap_or(0)) + usize::from(blanks % 3);
            let filler = ["", "a", "x y", "\"q\"", "7", "\t"];
            let mut fields: Vec<Vec<u8>> = (0..n)
                .map(|i| {
                    filler[(usize::from(blanks) + i) % filler.len()]
                        .as_bytes()
                        .to_vec()
                })
                .collect();
            fields[f - 1] = v;
            if let (Op::Encode, Some(nf)) = (self.opts.op, self.opts.nonce_field) {
                fields[nf - 1] = nonce.to_string().into_bytes();
            }
            fields.join(&b',')
        };
        match line {
            Line::Good {
                id,
                nonce,
                old,
                upper,
                blanks,
            } => good(*id, *nonce, *old, *upper, *blanks),
            Line::Damaged {
                id,
                nonce,
                at,
                byte,
            } => {
                let mut t = good(*id, *nonce, false, false, 0);
                let at = at.index(t.len());
                t[at] = if *byte == b'\n' { b'!' } else { *byte };
                t
            }
            Line::Digit(d) => vec![*d],
            Line::Junk(b) => b
                .iter()
                .map(|&c| if c == b'\n' { b'!' } else { c })
                .collect(),
        }
    }

    /// A line's output read alone through the single calls (without its line end).
    fn reference(&self, line: &[u8]) -> Result<Vec<u8>, InputError> {
        let (line, cr) = match line.strip_suffix(b"\r") {
            Some(l) => (l, true),
            None => (line, false),
        };
        let Some(f) = self.opts.field else {
            return self.reference_value(line, None);
        };
        // Fields as `cut` splits them: the value's and the nonce's replaced, the rest
        // and the carriage return kept.
        let mut fields: Vec<Vec<u8>> = line.split(|&c| c == b',').map(<[u8]>::to_vec).collect();
        let value = fields.get(f - 1).ok_or(InputError::MissingField(f))?;
        let nonce = match self.opts.nonce_field {
            Some(nf) => Some(&fields.get(nf - 1).ok_or(InputError::MissingField(nf))?[..]),
            None => None,
        };
        let out = self.reference_value(value, nonce)?;
        match (self.opts.op, self.opts.nonce_field) {
            (Op::Decode, Some(nf)) => {
                let text = String::from_utf8(out).expect("decimal");
                let (id, nonce) = text.split_once(' ').expect("id and nonce");
                fields[f - 1] = id.as_bytes().to_vec();
                fields[nf - 1] = nonce.as_bytes().to_vec();
            }
            _ => fields[f - 1] = out,
        }
        let mut out = fields.join(&b',');
        if cr {
            out.push(b'\r');
        }
        Ok(out)
    }

    /// The output for one value (and with --field, the text of its nonce field).
    fn reference_value(
        &self,
        line: &[u8],
        nonce_field: Option<&[u8]>,
    ) -> Result<Vec<u8>, InputError> {
        let codec = &self.codec;
        let decoded = |line: &[u8]| -> Result<(u64, u64), InputError> {
            let text = line.strip_prefix(&self.opts.prefix[..]).ok_or_else(|| {
                InputError::Prefix(String::from_utf8_lossy(&self.opts.prefix).into_owned())
            })?;
            codec.decode(&self.opts.format.parse(text)?)
        };
        match self.opts.op {
            Op::Encode => {
                let (id, nonce) = if let Some(nonce) = nonce_field {
                    (codec.parse_id(line)?, codec.parse_nonce(nonce)?)
                } else if self.stored() {
                    let mut parts = line
                        .split(|&c| c == b' ' || c == b'\t')
                        .filter(|p| !p.is_empty());
                    let (a, b) = (parts.next().unwrap_or(&[]), parts.next());
                    if parts.next().is_some() {
                        return Err(InputError::Extra("`ID NONCE`"));
                    }
                    let b = b.ok_or(InputError::MissingNonce)?;
                    (codec.parse_id(a)?, codec.parse_nonce(b)?)
                } else {
                    (codec.parse_id(line)?, 0)
                };
                Ok(self.encoded(codec, id, nonce).expect("parsed ids encode"))
            }
            Op::Decode => {
                let (id, nonce) = decoded(line)?;
                Ok(if self.stored() {
                    format!("{id} {nonce}")
                } else {
                    id.to_string()
                }
                .into_bytes())
            }
            Op::Reencode => {
                let (id, nonce) = decoded(line)?;
                Ok(self.encoded(codec, id, nonce).expect("decoded ids encode"))
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn every_line_is_what_single_calls_make_of_it(
        ctl in any::<u8>(),
        field in proptest::option::of((1usize..4, 1usize..3)),
        prefix in any::<bool>(),
        header in any::<bool>(),
        bom in any::<bool>(),
        mut lines in proptest::collection::vec((line_strategy(), any::<bool>()), 0..9000),
        digit_last in proptest::option::of(b'0'..=b'9'),
        last_terminated in any::<bool>(),
        sizes in proptest::collection::vec(prop_oneof![1usize..64, 64usize..200_000], 1..5),
    ) {
        let scheme = [Scheme::Uuid, Scheme::Aes128, Scheme::CycleWalk][usize::from(ctl % 3)];
        let form = if ctl & 4 != 0 { Form::StoredNonce } else { Form::Deterministic };
        let op = [Op::Encode, Op::Decode, Op::Reencode][usize::from((ctl >> 3) % 3)];
        let format = match (scheme, (ctl >> 5) & 3) {
            (Scheme::Uuid, 0 | 3) => Format::Uuid,
            (_, 1) => Format::Base32,
            (_, 2) => Format::Base62,
            _ => Format::Hex,
        };
        let spec = Spec::new(scheme, form);
        let case = Case {
            codec: Codec::new(&fixed_ring(2), spec.clone()).unwrap(),
            old: Codec::new(&fixed_ring(1), spec).unwrap(),
            opts: Options {
                op,
                format,
                prefix: if prefix { b"u_".to_vec() } else { Vec::new() },
                field: field.map(|(f, _)| f),
                // A field after or before the value's, when the form stores nonces.
                nonce_field: field.filter(|_| form == Form::StoredNonce).map(|(f, d)| if f > d { f - d } else { f + d }),
                delimiter: b',',
                csv: false,
                header,
                random_nonce: false,
                keep_going: true,
                key_id: None,
            },
        };

        // Often a last line of one byte (alone in the last block, read in pieces).
        lines.extend(digit_last.map(|d| (Line::Digit(d), false)));
        let mut input: Vec<u8> = if bom { crate::streams::BOM.to_vec() } else { Vec::new() };
        let mut texts = Vec::new();
        for (i, (line, crlf)) in lines.iter().enumerate() {
            let mut t = case.text(line);
            if *crlf {
                t.push(b'\r');
            }
            input.extend_from_slice(&t);
            if i + 1 < lines.len() || last_terminated {
                input.push(b'\n');
            }
            texts.push(t);
        }
        // An empty last line without a line end is no line: the input ends before it.
        if !last_terminated && texts.last().is_some_and(Vec::is_empty) {
            texts.pop();
        }
        // A byte order mark passes through where lines do (a header, fields around the
        // id) and is skipped where the output is the id alone; the header line passes
        // through as it was (its carriage return too).
        let mut want_out = Vec::new();
        if bom && (header || field.is_some()) {
            want_out.extend_from_slice(crate::streams::BOM);
        }
        let mut first = 0;
        if header && !texts.is_empty() {
            want_out.extend_from_slice(&texts[0]);
            want_out.push(b'\n');
            first = 1;
        }
        let head = want_out.len();
        let want: Vec<_> = texts[first..].iter().map(|t| case.reference(t)).collect();
        let mut want_errors = Vec::new();
        for (i, w) in want.iter().enumerate() {
            match w {
                Ok(text) => want_out.extend_from_slice(text),
                Err(e) => want_errors.push(LineError { line: (first + i + 1) as u64, error: e.clone() }),
            }
            want_out.push(b'\n');
        }

        // Going on past bad lines.
        let mut out = Vec::new();
        let mut errors = Vec::new();
        let mut reader = Pieces::new(&input, sizes.clone());
        let summary = stream::run(&case.codec, &case.opts, crate::streams::Source::Read(&mut reader), &mut out, &mut |e| errors.push(e.clone())).unwrap();
        prop_assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&want_out));
        prop_assert_eq!(&errors, &want_errors);
        prop_assert_eq!((summary.lines, summary.errors), (texts.len() as u64, want_errors.len() as u64));

        // Stopping at the first: the lines before it written, then its error.
        let mut opts = case.opts.clone();
        opts.keep_going = false;
        let mut out = Vec::new();
        let mut reader = Pieces::new(&input, sizes);
        let got = stream::run(&case.codec, &opts, crate::streams::Source::Read(&mut reader), &mut out, &mut |e| panic!("{e}"));
        let mut before = want_out[..head].to_vec();
        for w in want.iter().take_while(|w| w.is_ok()) {
            before.extend_from_slice(w.as_ref().unwrap());
            before.push(b'\n');
        }
        prop_assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&before));
        match (got, want_errors.first()) {
            (Ok(s), None) => prop_assert_eq!((s.lines, s.errors), (texts.len() as u64, 0)),
            (Err(StreamError::Line(e)), Some(w)) => prop_assert_eq!(&e, w),
            (got, _) => prop_assert!(false, "{:?}", got.map_err(|e| e.to_string())),
        }
    }
}
