//! `veilkit records rekey`: add, remove or replace key slots; rotate the data key.

use super::super::keysource::load_file;
use super::super::manual::{EXIT_PLAIN, ManExtra};
use super::super::output::{Bar, NewFile, create_output};
use super::super::report::{hinted, info};
use super::super::status::{Global, Status};
use super::{KdfArgs, SecretArgs, open_file, read_passphrase, records_error};
use crate::records::RecordsError;
use crate::records::age::Recipient;
use crate::records::format::Slot;
use crate::records::slots::fingerprint_hex;
use anyhow::Context;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str = "Add, remove or replace a record file's key slots, or rotate its data key";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Change who can open a record file. Unlock it as usual (--key-file, \
--passphrase, --passphrase-file), then add slots (--add-key-file for that keyring's current \
key, --add-passphrase, --add-passphrase-file, --recipient and --recipients-file for age \
recipients) and remove slots (--remove-key FINGERPRINT or ID, --remove-passphrase, \
--remove-recipient AGE1...); removing and adding in one run replaces a slot. Slots are told apart by \
their keys' fingerprints (`records info` shows them): adding a key never removes the slot of \
another key, even one with the same id. Only the header is \
rewritten: the new header copy first, then the other, so that a crash at any moment leaves \
a file that opens, and a removed secret no longer opens it afterwards.

A removed secret could still decrypt a copy of the file made before, and whoever once \
unwrapped the data key keeps it: --rotate-data-key rewrites the whole file under a new data \
key (the same records, without the garbage that updates leave), into a temporary file that \
replaces FILE when complete. Every slot that remains needs its secret on the command line.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: EXIT_PLAIN,
    uses_keys: true,
    environment: super::ENV_PASSPHRASE,
    examples: &[
        (
            "Let a passphrase open it too",
            "veilkit records rekey app.vkr --key-file k.key --add-passphrase",
        ),
        (
            "Move from a key to a new key",
            "veilkit records rekey app.vkr --key-file old.key --add-key-file new.key --remove-key 3f2a9c0d11b2e4f5",
        ),
        (
            "Let the holder of an age identity open it, and no longer an old one",
            "veilkit records rekey app.vkr --key-file k.key --recipient age1zrf9d64dh8gjtawge84mu733jx4x3q4naynyk8gzgrjmkw4m5seql9x34f --remove-recipient age14kvhsxtwhfxf0y4zclf4tzmdjq2g5lj6tj5fcmtmpnd5cz3td3wqud5zat",
        ),
        (
            "Purge deleted records and rotate the data key",
            "veilkit records rekey app.vkr --key-file k.key --rotate-data-key",
        ),
    ],
};

// Arguments of `veilkit records rekey`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// The record file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Add a slot for the current key of this key file.
    #[arg(long, value_name = "PATH", help_heading = "Slots")]
    pub add_key_file: Option<PathBuf>,

    /// Add a slot for a new passphrase, asked twice at a hidden prompt.
    #[arg(long, help_heading = "Slots")]
    pub add_passphrase: bool,

    /// Add a slot for the passphrase on the first line of PATH.
    #[arg(long, value_name = "PATH", help_heading = "Slots")]
    pub add_passphrase_file: Option<PathBuf>,

    /// Remove the slot of a keyring key, named by its fingerprint (16 hex digits, as
    /// `records info` and `veilkit keys` show it) or by its id when only one slot has
    /// that id; repeatable.
    #[arg(long, value_name = "ID|FINGERPRINT", help_heading = "Slots")]
    pub remove_key: Vec<String>,

    /// Remove every passphrase slot.
    #[arg(long, help_heading = "Slots")]
    pub remove_passphrase: bool,

    /// Remove the slot of an age recipient (age1..., as `records info` shows it);
    /// repeatable.
    #[arg(long, value_name = "AGE1...", help_heading = "Slots")]
    pub remove_recipient: Vec<String>,

    #[command(flatten)]
    pub recipients: super::RecipientArgs,

    /// Rewrite the file under a new data key.
    #[arg(long)]
    pub rotate_data_key: bool,

    #[command(flatten)]
    pub secrets: SecretArgs,

    #[command(flatten)]
    pub recovery: super::RecoveryArgs,

    #[command(flatten)]
    pub kdf: KdfArgs,
}

/// The slots a `--remove-key` value names: by fingerprint, or by id when one slot has it.
fn named_slots(slots: &[Slot], name: &str, shown: &str) -> anyhow::Result<Vec<usize>> {
    let by_fp = name.len() == 16 && name.bytes().all(|c| c.is_ascii_hexdigit());
    let hits: Vec<usize> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| match s {
            Slot::Keyring {
                key_id,
                fingerprint,
                ..
            } => {
                if by_fp {
                    fingerprint_hex(fingerprint).eq_ignore_ascii_case(name)
                } else {
                    name.parse::<u32>().is_ok_and(|id| id == *key_id)
                }
            }
            Slot::Passphrase { .. } | Slot::Recipient { .. } => false,
        })
        .map(|(i, _)| i)
        .collect();
    match hits.len() {
        0 => anyhow::bail!("--remove-key {name}: {shown} has no slot for keyring key {name}"),
        1 => Ok(hits),
        _ => Err(hinted(
            format!(
                "--remove-key {name}: {} slots are for keyring keys with id {name}: {}",
                hits.len(),
                hits.iter()
                    .map(|&i| slots[i].describe())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "name the slot by its fingerprint",
        )),
    }
}

/// Runs `veilkit records rekey`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let changes = args.add_key_file.is_some()
        || args.add_passphrase
        || args.add_passphrase_file.is_some()
        || !args.remove_key.is_empty()
        || args.remove_passphrase
        || !args.remove_recipient.is_empty()
        || args.recipients.any()
        || args.rotate_data_key;
    if !changes {
        anyhow::bail!("nothing to do: add or remove a slot, or --rotate-data-key");
    }
    let secrets = args.secrets.load(false, args.kdf.params(), false)?;
    let added = args.recipients.load()?;
    let mut gone: Vec<Recipient> = Vec::new();
    for r in &args.remove_recipient {
        gone.push(Recipient::parse(r).map_err(|e| anyhow::anyhow!("--remove-recipient: {e}"))?);
    }
    let new_ring = args.add_key_file.as_deref().map(load_file).transpose()?;
    let new_pass = read_passphrase(
        args.add_passphrase_file.as_deref(),
        args.add_passphrase,
        true,
        "New passphrase",
        args.secrets.weak_ok,
    )?;
    let shown = args.file.display().to_string();
    // Writable: the lock keeps other writers out, also while the file is rewritten.
    let mut file = open_file(&args.file, &secrets, true, &args.recovery)?;
    let old: Vec<Slot> = file.slots().to_vec();
    let mut removed: Vec<usize> = Vec::new();
    for name in &args.remove_key {
        removed.extend(named_slots(&old, name, &shown)?);
    }
    if args.remove_passphrase && !old.iter().any(|s| matches!(s, Slot::Passphrase { .. })) {
        anyhow::bail!("--remove-passphrase: {shown} has no passphrase slot");
    }
    for (r, text) in gone.iter().zip(&args.remove_recipient) {
        if !old.iter().any(|s| s.is_recipient(r)) {
            anyhow::bail!("--remove-recipient {text}: {shown} has no slot for this recipient");
        }
    }
    let kept: Vec<Slot> = old
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            let passphrase = matches!(s, Slot::Passphrase { .. });
            !(removed.contains(i)
                || args.remove_passphrase && passphrase
                || gone.iter().any(|r| s.is_recipient(r)))
        })
        .map(|(_, s)| s.clone())
        .collect();
    let params = args.kdf.params();
    // The slots of the new header, made for a file id and data key.
    let make = |id: &[u8; 16], dk: &[u8; 32], rotating: bool| -> Result<Vec<Slot>, anyhow::Error> {
        let mut slots: Vec<Slot> = Vec::new();
        for s in &kept {
            if !rotating {
                slots.push(s.clone());
                continue;
            }
            // A new data key: every kept slot is made again, from its secret.
            let remade = match s {
                Slot::Keyring {
                    key_id,
                    fingerprint,
                    ..
                } => {
                    let fp = fingerprint_hex(fingerprint);
                    let k = secrets
                        .ring
                        .iter()
                        .chain(new_ring.iter())
                        .flat_map(|r| r.keys())
                        .find(|k| s.is_key(k));
                    match k {
                        Some(k) => Slot::for_key(k, id, dk)?,
                        None => {
                            return Err(hinted(
                                format!(
                                    "the slot of keyring key {key_id} (fingerprint {fp}) cannot be made again without that key"
                                ),
                                format!(
                                    "give a key file holding that key with --key-file, or drop the slot with --remove-key {fp}"
                                ),
                            ));
                        }
                    }
                }
                // A recipient is public: its slot is made again from the key it names.
                Slot::Recipient { recipient, .. } => {
                    Slot::for_recipient(&Recipient(*recipient), id, dk)?
                }
                Slot::Passphrase { params, .. } => match &secrets.passphrase {
                    Some(p) => Slot::for_passphrase(p, *params, id, dk)?,
                    None => {
                        return Err(hinted(
                            "the passphrase slot cannot be made again without the passphrase",
                            "give it with --passphrase or --passphrase-file, or drop the slot with --remove-passphrase",
                        ));
                    }
                },
            };
            slots.push(remade);
        }
        if let Some(r) = &new_ring {
            // Added beside the others: a slot is replaced only when it is for this very
            // key (same id and fingerprint), never because another key shares its id.
            let k = r.current();
            slots.retain(|s| !s.is_key(k));
            slots.push(Slot::for_key(k, id, dk)?);
        }
        if let Some(p) = &new_pass {
            slots.push(Slot::for_passphrase(p, params, id, dk)?);
        }
        for r in &added {
            // A recipient that already has a slot keeps one: it is made again.
            slots.retain(|s| !s.is_recipient(r));
            slots.push(Slot::for_recipient(r, id, dk)?);
        }
        if slots.is_empty() {
            return Err(hinted(
                "no key slot would be left: the file could never be opened again",
                "add a slot in the same run",
            ));
        }
        if slots.len() > crate::records::format::MAX_SLOTS {
            anyhow::bail!(
                "a record file holds at most {} key slots",
                crate::records::format::MAX_SLOTS
            );
        }
        Ok(slots)
    };
    if args.rotate_data_key {
        let mode = file_mode(&args.file);
        let mut out = create_output(
            &args.file,
            &[],
            NewFile {
                force: true,
                secret: mode & 0o077 == 0,
                ..NewFile::default()
            },
        )?;
        let bar = Bar::items(global, "rewriting", "records");
        let failure = std::cell::RefCell::new(None);
        let make_slots = |id: &[u8; 16], dk: &[u8; 32]| {
            make(id, dk, true).map_err(|e| {
                *failure.borrow_mut() = Some(e);
                RecordsError::SlotCount(0)
            })
        };
        let r = file.rewrite(
            out.file_mut()
                .map_err(RecordsError::Write)
                .map_err(|e| records_error(e, &shown))?,
            &make_slots,
            &bar,
        );
        bar.finish();
        if let Some(e) = failure.into_inner() {
            return Err(e);
        }
        let summary = r.map_err(|e| records_error(e, &shown))?;
        // Replace the file while its lock is still held: a writer waiting for the lock
        // then finds the path naming a new file and opens that one, instead of
        // committing into the old file that the rename discards.
        out.commit().with_context(|| shown.clone())?;
        drop(file);
        info(
            global,
            format!(
                "{shown}: rewritten under a new data key: {}, {} bytes",
                super::super::report::counted(summary.records, "record", "records"),
                summary.bytes
            ),
        );
        return Ok(Status::Success);
    }
    let slots = make(&file.file_id(), &file.data_key(), false)?;
    let now: Vec<String> = slots.iter().map(Slot::describe).collect();
    file.set_slots(slots)
        .map_err(|e| records_error(e, &shown))?;
    info(
        global,
        format!("{shown}: key slots now: {}", now.join(", ")),
    );
    Ok(Status::Success)
}

fn file_mode(path: &std::path::Path) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).map_or(0o600, |m| m.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        0o600
    }
}
