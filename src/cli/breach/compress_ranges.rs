//! `veilkit breach compress-ranges`: every range body of an index compressed ahead, for
//! `breach serve --zstd-bodies`.

use super::super::manual::ManExtra;
use super::super::output::{Bar, NewFile, create_output, display_path, is_stdio};
use super::super::report::counted;
use super::super::status::{Global, Status};
use anyhow::Context;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str =
    "Compress every range body of an index ahead, for serve's Zstandard answers";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Compress the range body of each of the 1,048,576 prefixes of \
an exact index into one Zstandard frame (with its content size and checksum), in one file \
that `veilkit breach serve --zstd-bodies FILE` then sends as it is to every client asking \
for zstd: no compression while serving. Each frame is decoded again and compared with its \
body before it is kept. The file names the index it was made from (that index's header, \
byte for byte, which covers the checksums of all its parts), so serve refuses it beside \
any other index, a rebuilt or updated one included: make it again after each `breach \
update`, then reload the server (SIGHUP). It holds each body's checksum (the range's ETag) \
and each frame's, checked before the frame is sent (docs/BREACH-FORMAT.md, \"Compressed \
range bodies\").

Hex digits are close to incompressible: frames are about 0.53 of the bodies at any level \
(0.50 at 19, which takes some 15 times as long as 3). At 100 million hashes the file is \
about 2.1 GB, written in about a minute on two threads. The file is written to a temporary \
name and renamed into place when complete.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: super::super::manual::EXIT_PLAIN,
    uses_keys: false,
    environment: &[],
    examples: &[
        (
            "Compress the bodies, then serve them to zstd clients",
            "veilkit breach compress-ranges -i hibp.idx -o hibp.bodies && veilkit breach serve -i hibp.idx --zstd-bodies hibp.bodies",
        ),
        (
            "After an update: make them again, then reload the server",
            "veilkit breach compress-ranges -i hibp.idx -o hibp.bodies --force && pkill -HUP -f 'veilkit breach serve'",
        ),
    ],
};

// Arguments of `veilkit breach compress-ranges`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The exact index.
    #[arg(short, long, value_name = "INDEX")]
    pub index: PathBuf,
    /// The file to write.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Zstandard's level, 1 to 22.
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(i32).range(1..=22))]
    pub level: i32,
    /// Threads [default: the number of processors].
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,
    /// Replace FILE if it exists.
    #[arg(short, long)]
    pub force: bool,
}

/// Runs `veilkit breach compress-ranges`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    if is_stdio(&args.output) {
        anyhow::bail!(
            "-o -: the file is mapped by serve, not streamed; give its path (a file named - is ./-)"
        );
    }
    let index = super::open_index(&args.index)?;
    let mut out = create_output(
        &args.output,
        &[&args.index],
        NewFile {
            force: args.force,
            ..NewFile::default()
        },
    )?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let bar = Bar::items(global, "compressing ranges", "ranges");
    let file = out.file_mut().with_context(|| display_path(&args.output))?;
    let summary = crate::breach::bodies::write(&index, args.level, threads, file, &bar)
        .with_context(|| args.index.display().to_string())?;
    bar.finish();
    out.commit().with_context(|| display_path(&args.output))?;
    if !global.quiet {
        eprintln!(
            "veilkit: wrote {} ({}): {} bytes of frames for {} bytes of bodies ({:.3}), {} bytes in all",
            display_path(&args.output),
            counted(summary.hashes, "hash", "hashes"),
            summary.frame_bytes,
            summary.body_bytes,
            summary.frame_bytes as f64 / summary.body_bytes.max(1) as f64,
            summary.file_len
        );
    }
    Ok(Status::Success)
}
