//! `veilkit records info`: what a record file holds.

use super::super::keysource::{ENV_KEY, ENV_KEY_FILE};
use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::output::stdout_text;
use super::super::status::{Global, Status};
use super::{SecretArgs, records_error};
use crate::records::file::CopyState;
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Show a record file's key slots and, with a key, its records and pages";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Show what a record file holds. Without a key or passphrase, what \
its header says in the clear: size, page size, commits and key slots (which keyring key ids \
or passphrases open it). With one, also the records, the input format and key field, and \
the pages in use and left unreferenced by updates.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: super::ENV_PASSPHRASE,
    examples: &[
        ("Which keys open it", "veilkit records info customers.vkr"),
        (
            "Everything",
            "veilkit records info customers.vkr --key-file k.key",
        ),
    ],
};

// Arguments of `veilkit records info`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The record file: a path, an http:// or https:// URL, or s3://BUCKET/KEY (read by
    /// range: only the pages needed are fetched).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    #[command(flatten)]
    pub secrets: SecretArgs,

    #[command(flatten)]
    pub recovery: super::RecoveryArgs,

    #[command(flatten)]
    pub remote: super::remote::RemoteArgs,

    /// Print one JSON object instead of `key: value` lines (schema: docs/JSON.md).
    #[arg(long)]
    pub json: bool,
}

/// A key slot as JSON: its kind and what identifies it (never key material).
pub fn slot_json(slot: &crate::records::slots::Slot) -> serde_json::Value {
    use crate::records::slots::{Slot, fingerprint_hex};
    match slot {
        Slot::Keyring {
            key_id,
            fingerprint,
            ..
        } => serde_json::json!({
            "kind": "keyring",
            "key_id": key_id,
            "fingerprint": fingerprint_hex(fingerprint),
        }),
        Slot::Passphrase { params, .. } => serde_json::json!({
            "kind": "passphrase",
            "argon2id": { "memory_kib": params.0, "passes": params.1, "lanes": params.2 },
        }),
        Slot::Recipient { recipient, .. } => serde_json::json!({
            "kind": "age-recipient",
            "recipient": crate::records::age::Recipient(*recipient).to_string(),
        }),
    }
}

use crate::records::format::Compression;

/// Runs `veilkit records info`.
pub fn run(args: &Args, _global: Global) -> anyhow::Result<Status> {
    let reading = super::remote::Reading::new(&args.file, &args.remote)?;
    let shown = reading.shown.clone();
    let peek = reading.peek().map_err(|e| records_error(e, &shown))?;
    let mut out = stdout_text();
    let copy = |i: usize| match peek.copies[i] {
        Some(seq) => format!("sequence {seq}"),
        None => "damaged or torn (fails its checksum)".to_string(),
    };
    let mut lines = vec![
        ("file", shown.clone()),
        (
            "format",
            format!("veilkit record file, version {}", peek.version),
        ),
        ("bytes", peek.bytes.to_string()),
        ("page size", peek.page_size.to_string()),
        ("commits", peek.sequence.to_string()),
        ("copies", format!("A {}; B {}", copy(0), copy(1))),
        (
            "key slots",
            peek.slots
                .iter()
                .map(|s| s.describe())
                .collect::<Vec<_>>()
                .join("; "),
        ),
    ];
    let mut json = serde_json::json!({
        "file": shown,
        "version": peek.version,
        "bytes": peek.bytes,
        "page_size": peek.page_size,
        "commits": peek.sequence,
        "copies": peek.copies.iter().map(|c| match c {
            Some(seq) => serde_json::json!({ "state": "readable", "sequence": seq }),
            None => serde_json::json!({ "state": "damaged" }),
        }).collect::<Vec<_>>(),
        "slots": peek.slots.iter().map(slot_json).collect::<Vec<_>>(),
    });
    let given = args.secrets.key.key_file.is_some()
        || args.secrets.passphrase
        || args.secrets.passphrase_file.is_some()
        || !args.secrets.identity.is_empty()
        || [ENV_KEY_FILE, ENV_KEY]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
    if given {
        let secrets = args
            .secrets
            .load(false, crate::records::format::ARGON_DEFAULT, false)?;
        let mut file = reading.open(&secrets, &args.recovery)?;
        let i = file.info().map_err(|e| records_error(e, &shown))?;
        lines.push(("records", i.records.to_string()));
        let mut input = i.format.name().to_string();
        if !i.key_field.is_empty() {
            input.push_str(&format!(", key field {:?}", i.key_field));
        }
        if i.header_row {
            input.push_str(", header row");
        }
        lines.push(("input", input));
        lines.push((
            "pages",
            format!(
                "{} in use, {} unreferenced (left by updates){}",
                i.live_pages,
                i.allocated.saturating_sub(i.live_pages),
                match (i.compression, i.dictionary_pages) {
                    (Compression::None, _) => String::new(),
                    (c, 0) => format!("; records compressed with {}", c.name()),
                    (c, n) => format!(
                        "; records compressed with {} and the file's dictionary ({n} {})",
                        c.name(),
                        if n == 1 { "page" } else { "pages" }
                    ),
                }
            ),
        ));
        lines.push((
            "index",
            if i.buckets == 0 {
                "none (a small file: a lookup reads its few data pages)".to_string()
            } else {
                format!("{} buckets, {}-bit tags", i.buckets, i.tag_bits)
            },
        ));
        let state = |c: CopyState| match c {
            CopyState::Current => "current".to_string(),
            CopyState::Behind => "one commit behind (the next update rewrites it)".to_string(),
            CopyState::Damaged(Some(s)) => format!("DAMAGED (claims sequence {s})"),
            CopyState::Damaged(None) => "DAMAGED".to_string(),
        };
        let copy_json = |c: CopyState| match c {
            CopyState::Current => serde_json::json!({ "state": "current" }),
            CopyState::Behind => serde_json::json!({ "state": "behind" }),
            CopyState::Damaged(s) => {
                serde_json::json!({ "state": "damaged", "claims_sequence": s })
            }
        };
        json["copies"] = i
            .copies
            .iter()
            .map(|c| copy_json(*c))
            .collect::<Vec<_>>()
            .into();
        json["records"] = i.records.into();
        json["input"] = i.format.name().into();
        json["key_field"] = i.key_field.clone().into();
        json["header_row"] = i.header_row.into();
        json["pages_in_use"] = i.live_pages.into();
        json["pages_unreferenced"] = i.allocated.saturating_sub(i.live_pages).into();
        json["index_buckets"] = i.buckets.into();
        json["index_tag_bits"] = i.tag_bits.into();
        json["compression"] = i.compression.name().into();
        json["dictionary_pages"] = i.dictionary_pages.into();
        lines.retain(|(k, _)| *k != "copies");
        lines.push((
            "copies",
            format!("A {}; B {}", state(i.copies[0]), state(i.copies[1])),
        ));
    }
    if args.json {
        super::super::output::print_json(&json)?;
        return Ok(Status::Success);
    }
    for (k, v) in lines {
        writeln!(
            out,
            "{:<10} {}",
            format!("{k}:"),
            super::super::report::sanitize(&v)
        )
        .context("stdout")?;
    }
    out.flush().context("stdout")?;
    Ok(Status::Success)
}
