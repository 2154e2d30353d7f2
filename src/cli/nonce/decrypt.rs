//! `veilkit nonce --decrypt`: encrypted nonces back to the counter values they came from.

use super::super::report::HintExt;
use super::super::status::Status;
use super::Args;
use crate::nonce::Width;
use crate::nonce::cipher::NonceCipher;
use crate::nonce::format::Format;
use anyhow::Context;
use std::io::{Read, Write};

/// `--decrypt`: encrypted nonces on stdin to their counter form.
pub fn decrypt(args: &Args, width: Width, format: Format) -> anyhow::Result<Status> {
    const BATCH: usize = 4096;
    let cipher = NonceCipher::new(width, args.key.load()?.current());
    let mut input = super::super::input::open_input(std::path::Path::new("-"))?;
    let mut values: Vec<u128> = Vec::with_capacity(BATCH);
    let mut buf = Vec::with_capacity(BATCH * 33);
    let mut out: Box<dyn Write> = if format == Format::Binary {
        Box::new(super::super::output::stdout_binary()?)
    } else {
        super::super::output::stdout_text()
    };
    // Decrypts and writes what is in `values` (a batch at a time: memory stays bounded
    // however long the input).
    let mut flush = |values: &mut Vec<u128>, out: &mut dyn Write| -> anyhow::Result<()> {
        cipher.decrypt_many(values);
        buf.clear();
        for v in values.drain(..) {
            format.write(width, v, &mut buf);
        }
        out.write_all(&buf).context("stdout")
    };
    if format == Format::Binary {
        let mut chunk = vec![0u8; width.bytes() * BATCH];
        let mut total = 0u64;
        loop {
            let mut got = 0;
            while got < chunk.len() {
                match input.read(&mut chunk[got..]) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(anyhow::Error::new(e).context("stdin")),
                }
            }
            total += got as u64;
            for c in chunk[..got].chunks_exact(width.bytes()) {
                let mut b = [0u8; 16];
                b[16 - width.bytes()..].copy_from_slice(c);
                values.push(u128::from_be_bytes(b));
            }
            flush(&mut values, &mut out)?;
            if got % width.bytes() != 0 {
                // The whole nonces before the cut-off one are answered first, as the
                // text formats answer the lines before a bad one.
                out.flush().context("stdout")?;
                anyhow::bail!(
                    "stdin: {total} bytes is not a whole number of {}-bit nonces",
                    width.bits()
                );
            }
            if got < chunk.len() {
                break;
            }
        }
    } else {
        let mut lines = crate::streams::Lines::new(input);
        while let Some((n, line)) = lines.next_line().context("stdin")? {
            let v = match format.parse(width, line) {
                Ok(v) => v,
                Err(e) => {
                    // The lines before the bad one are answered first, as encode and
                    // decode do.
                    flush(&mut values, &mut out)?;
                    out.flush().context("stdout")?;
                    return Err(e)
                        .with_context(|| format!("stdin: line {n}"))
                        .hint("give the same --bits and --format as when the nonces were made");
                }
            };
            values.push(v);
            if values.len() == BATCH {
                flush(&mut values, &mut out)?;
            }
        }
        flush(&mut values, &mut out)?;
    }
    out.flush().context("stdout")?;
    Ok(Status::Success)
}
