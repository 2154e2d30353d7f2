//! veilkit: hardware-speed cryptography for everyday data plumbing.
//!
//! The library has one module per domain. Domain modules take readers, writers and a
//! [`progress::Progress`] callback and return typed errors; they never print, exit, or
//! touch the terminal. The command-line layer lives in [`cli`].
#![deny(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::exit)]

pub mod base32;
pub mod bench;
pub mod block;
pub mod breach;
pub mod cli;
pub mod cpu;
pub mod delimited;
#[doc(hidden)]
pub mod fuzz;
pub mod hex;
pub mod ids;
pub mod keys;
pub mod nonce;
pub mod progress;
pub mod records;
pub mod remote;
pub mod streams;
pub mod tls;
