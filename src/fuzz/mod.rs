//! Fuzz entry points: the code libFuzzer runs (`fuzz/`, `cargo fuzz run TARGET`) and
//! `cargo test` replays on every committed corpus file (`tests/cli/fuzz_replay.rs`), so
//! that CI guards each finding without nightly. Each `run` takes any bytes: a panic is
//! a finding. Not an API.

pub mod age_files;
pub mod compressed_pages;
pub mod download_files;
pub mod dump_parser;
pub mod field_values;
pub mod id_stream;
pub mod id_text;
pub mod index_reader;
pub mod key_file;
pub mod range_body;
pub mod range_requests;
pub mod record_input;
pub mod records_file;
pub mod serve_headers;
pub mod tier_reader;

/// A target's entry point.
pub type Run = fn(&[u8]);

/// Every target by its name in `fuzz/Cargo.toml`, for the replay.
pub const TARGETS: &[(&str, Run)] = &[
    ("age_files", age_files::run),
    ("compressed_pages", compressed_pages::run),
    ("download_files", download_files::run),
    ("dump_parser", dump_parser::run),
    ("field_values", field_values::run),
    ("id_stream", id_stream::run),
    ("id_text", id_text::run),
    ("index_reader", index_reader::run),
    ("key_file", key_file::run),
    ("range_body", range_body::run),
    ("range_requests", range_requests::run),
    ("record_input", record_input::run),
    ("records_file", records_file::run),
    ("serve_headers", serve_headers::run),
    ("tier_reader", tier_reader::run),
];
