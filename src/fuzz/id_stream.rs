//! The id stream on arbitrary input with options chosen by the first two bytes (and
//! read plainly or from a read-ahead's chunks): no
//! panic; with --keep-going no error but text that is not CSV under --csv, and one
//! output line per input line (without --csv, whose quoted fields may hold line ends).
use crate::ids::stream::{self, Op, Options};
use crate::ids::text::Format;
use crate::ids::{Codec, Form, Scheme, Spec};
use crate::keys::{Keyring, MasterKey};

/// One input.
pub fn run(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let (ctl, more, input) = (data[0], data[1], &data[2..]);
    let scheme = [Scheme::Uuid, Scheme::Aes128, Scheme::CycleWalk][(ctl % 3) as usize];
    let form = if ctl & 4 != 0 {
        Form::StoredNonce
    } else {
        Form::Deterministic
    };
    let op = [Op::Encode, Op::Decode, Op::Reencode][((ctl >> 3) % 3) as usize];
    let format = match (scheme, (ctl >> 5) & 3) {
        (Scheme::Uuid, 0) => Format::Uuid,
        (_, 1) => Format::Base32,
        (_, 2) => Format::Base62,
        _ => Format::Hex,
    };
    let field = (ctl & 0x80 != 0).then_some(2);
    let ring = Keyring::single(MasterKey::new(1, [9; 32]));
    let codec = Codec::new(&ring, Spec::new(scheme, form)).unwrap();
    let opts = Options {
        op,
        format,
        prefix: if ctl & 0x40 != 0 {
            b"p_".to_vec()
        } else {
            Vec::new()
        },
        field,
        nonce_field: field.filter(|_| form == Form::StoredNonce).map(|_| 3),
        delimiter: b',',
        csv: more & 1 != 0 && field.is_some(),
        header: more & 2 != 0,
        random_nonce: false,
        keep_going: true,
        key_id: None,
    };
    let mut out = Vec::new();
    // The input read as it is, or through a read-ahead thread's chunks (of 1 to 32
    // bytes, so that lines span them), as `encode < FILE` reads it.
    let mut plain = input;
    let mut ahead = (more & 4 != 0).then(|| {
        crate::streams::ReadAhead::new(
            std::io::Cursor::new(input.to_vec()),
            1 + (more >> 3) as usize,
        )
    });
    let source = match &mut ahead {
        Some(r) => crate::streams::Source::Ahead(r),
        None => crate::streams::Source::Read(&mut plain),
    };
    let result = stream::run(&codec, &opts, source, &mut out, &mut |_| {});
    // Read to the end, so that the read-ahead's thread is joined when it is dropped.
    if let Some(r) = &mut ahead {
        let mut rest = [0u8; 64];
        while matches!(std::io::Read::read(r, &mut rest), Ok(n) if n > 0) {}
    }
    let summary = match result {
        Ok(s) => s,
        // Text that is not CSV stops a CSV stream (its records cannot be told apart).
        Err(stream::StreamError::Csv(_)) if opts.csv => return,
        Err(e) => panic!("{e}"),
    };
    if !opts.csv {
        assert_eq!(
            out.iter().filter(|&&c| c == b'\n').count() as u64,
            summary.lines
        );
    }
}
