//! `veilkit records` with age recipients and identities, against Debian's `age` and
//! `age-keygen`: keys they make are taken as they are, and the X25519 stanza veilkit
//! computes is the one age computes (both ways, through real age files).

use super::common::{have_program, keyfile, run_ok, stderr_of, veilkit};
use base64::Engine;
use base64::engine::general_purpose::STANDARD_NO_PAD as B64;
use chacha20poly1305::ChaCha20Poly1305;
use chacha20poly1305::aead::{Aead, KeyInit};
use hmac::Mac;
use std::path::{Path, PathBuf};
use veilkit::records::age::{Identity, Recipient, wrap_with};

const INSTALL: &str = "apt-get install age";

fn have_age() -> bool {
    have_program("age-keygen", "--version", INSTALL) && have_program("age", "--version", INSTALL)
}

/// An identity file made by `age-keygen`, and its recipient (`age-keygen -y`).
fn keygen(dir: &Path, name: &str) -> (PathBuf, String) {
    let path = dir.join(name);
    let st = std::process::Command::new("age-keygen")
        .arg("-o")
        .arg(&path)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    let out = run_ok(
        std::process::Command::new("age-keygen")
            .arg("-y")
            .arg(&path),
    );
    (
        path,
        String::from_utf8(out.stdout).unwrap().trim().to_string(),
    )
}

const CSV: &[u8] = b"id,email,note\n1,a@example.com,\"first, quoted\"\n2,b@example.com,second\n";

fn run(args: &[&std::ffi::OsStr]) -> std::process::Output {
    veilkit().args(args).output().unwrap()
}

fn os<'a>(items: &'a [&'a dyn AsRef<std::ffi::OsStr>]) -> Vec<&'a std::ffi::OsStr> {
    items.iter().map(|s| s.as_ref()).collect()
}

#[test]
fn a_file_sealed_to_a_recipient_opens_with_its_identity_only() {
    if !have_age() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (id1, r1) = keygen(d, "id1.txt");
    let (id2, _r2) = keygen(d, "id2.txt");
    let key = keyfile(d, "k.key");
    let csv = d.join("in.csv");
    std::fs::write(&csv, CSV).unwrap();
    let vkr = d.join("x.vkr");
    // Sealed with the recipient alone: no key, no passphrase.
    let out = run(&os(&[
        &"records",
        &"seal",
        &csv,
        &"--key-field",
        &"id",
        &"-o",
        &vkr,
        &"--recipient",
        &r1,
    ]));
    assert!(out.status.success(), "{}", stderr_of(&out));
    let out = run(&os(&[&"records", &"open", &vkr, &"--identity", &id1]));
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(out.stdout, CSV);
    let out = run(&os(&[&"records", &"get", &vkr, &"2", &"--identity", &id1]));
    assert_eq!(out.stdout, b"2,b@example.com,second\n");
    // Another identity, a keyring key, a passphrase: none opens it.
    let pw = d.join("pw");
    std::fs::write(&pw, "correct horse battery staple\n").unwrap();
    for extra in [
        os(&[&"--identity", &id2]),
        os(&[&"--key-file", &key]),
        os(&[&"--passphrase-file", &pw]),
    ] {
        let base = [&"records" as &dyn AsRef<std::ffi::OsStr>, &"open", &vkr];
        let mut args = os(&base);
        args.extend(extra);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
        assert!(stderr_of(&out).contains("wrong key, passphrase or identity"));
    }
    // Several identities: the one that fits opens it.
    let out = run(&os(&[
        &"records",
        &"open",
        &vkr,
        &"--identity",
        &id2,
        &"--identity",
        &id1,
    ]));
    assert!(out.status.success(), "{}", stderr_of(&out));
    // info names the recipient, with no secret.
    let out = run(&os(&[&"records", &"info", &vkr]));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("age recipient {r1}")),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Appending with the recipient is refused; with the identity it works.
    let more = d.join("more.csv");
    std::fs::write(&more, "id,email,note\n3,c@example.com,third\n").unwrap();
    let out = run(&os(&[
        &"records",
        &"append",
        &vkr,
        &more,
        &"--recipient",
        &r1,
    ]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("cannot append"),
        "{}",
        stderr_of(&out)
    );
    let out = run(&os(&[
        &"records",
        &"append",
        &vkr,
        &more,
        &"--identity",
        &id1,
    ]));
    assert!(out.status.success(), "{}", stderr_of(&out));
    let out = run(&os(&[&"records", &"get", &vkr, &"3", &"--identity", &id1]));
    assert_eq!(out.stdout, b"3,c@example.com,third\n");
}

#[test]
fn rekey_adds_removes_and_remakes_recipient_slots() {
    if !have_age() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (id1, r1) = keygen(d, "id1.txt");
    let (id2, r2) = keygen(d, "id2.txt");
    let key = keyfile(d, "k.key");
    let csv = d.join("in.csv");
    std::fs::write(&csv, CSV).unwrap();
    let vkr = d.join("x.vkr");
    let out = run(&os(&[
        &"records",
        &"seal",
        &csv,
        &"--key-field",
        &"id",
        &"-o",
        &vkr,
        &"--key-file",
        &key,
    ]));
    assert!(out.status.success(), "{}", stderr_of(&out));
    let opens = |id: &Path| {
        run(&os(&[&"records", &"open", &vkr, &"--identity", &id]))
            .status
            .success()
    };
    assert!(!opens(&id1));
    // A recipients file, as age -R reads it.
    let rf = d.join("recipients.txt");
    std::fs::write(&rf, format!("# the export readers\n\n{r1}\n")).unwrap();
    let out = run(&os(&[
        &"records",
        &"rekey",
        &vkr,
        &"--key-file",
        &key,
        &"--recipients-file",
        &rf,
    ]));
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(opens(&id1));
    assert!(!opens(&id2));
    let out = run(&os(&[
        &"records",
        &"rekey",
        &vkr,
        &"--key-file",
        &key,
        &"--remove-recipient",
        &r1,
        &"--recipient",
        &r2,
    ]));
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(!opens(&id1));
    assert!(opens(&id2));
    // A new data key: the recipient's slot is made again from its public key.
    let out = run(&os(&[
        &"records",
        &"rekey",
        &vkr,
        &"--key-file",
        &key,
        &"--rotate-data-key",
    ]));
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(opens(&id2));
    let out = run(&os(&[
        &"records",
        &"rekey",
        &vkr,
        &"--key-file",
        &key,
        &"--remove-recipient",
        &r1,
    ]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("has no slot for this recipient"));
}

#[test]
fn bad_recipients_and_identities_name_their_line_and_never_echo_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv = d.join("in.csv");
    std::fs::write(&csv, CSV).unwrap();
    let rf = d.join("r.txt");
    std::fs::write(&rf, "# readers\nage1notarecipient\n").unwrap();
    let vkr = d.join("x.vkr");
    let out = run(&os(&[
        &"records",
        &"seal",
        &csv,
        &"--key-field",
        &"id",
        &"-o",
        &vkr,
        &"--recipients-file",
        &rf,
    ]));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr_of(&out);
    assert!(
        e.contains("r.txt: line 2: not a valid age recipient"),
        "{e}"
    );
    assert!(!vkr.exists());
    let out = run(&os(&[
        &"records",
        &"seal",
        &csv,
        &"--key-field",
        &"id",
        &"-o",
        &vkr,
        &"--recipient",
        &"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO",
    ]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("SSH keys are not supported"));
    // An identity line with a typo: the line is named, its text never shown.
    let idf = d.join("id.txt");
    let secret = "AGE-SECRET-KEY-1Q8THDLU2EMXLSGHEVG3YC0FVS8NZ5WJKSEYN0AKUDQ5V3K5MMGZQW6RHAB";
    std::fs::write(
        &idf,
        format!("# created: today\n# public key: age1x\n{secret}\n"),
    )
    .unwrap();
    let out = run(&os(&[&"records", &"open", &vkr, &"--identity", &idf]));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr_of(&out);
    assert!(
        e.contains("id.txt: line 3: not a valid age identity"),
        "{e}"
    );
    assert!(!e.contains("Q8THDLU2"), "{e}");
    std::fs::write(&idf, "# nothing here\n").unwrap();
    let out = run(&os(&[&"records", &"open", &vkr, &"--identity", &idf]));
    assert!(stderr_of(&out).contains("no identity in it"));
    // A recipient pasted into an identity file, and an identity encrypted with a
    // passphrase (age -p): each said for what it is.
    let recipient = "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj";
    std::fs::write(&idf, format!("{recipient}\n")).unwrap();
    let out = run(&os(&[&"records", &"open", &vkr, &"--identity", &idf]));
    let e = stderr_of(&out);
    assert!(
        e.contains("id.txt: line 1: this is an age recipient (a public key")
            && e.contains("AGE-SECRET-KEY-1"),
        "{e}"
    );
    let mut encrypted = b"age-encryption.org/v1\n-> scrypt c2FsdA 18\n".to_vec();
    encrypted.extend_from_slice(&[0xff, 0x00, 0x9c, 0x80]);
    std::fs::write(&idf, encrypted).unwrap();
    let out = run(&os(&[&"records", &"open", &vkr, &"--identity", &idf]));
    let e = stderr_of(&out);
    assert!(
        e.contains("an age-encrypted file (an identity encrypted with a passphrase, age -p"),
        "{e}"
    );
    // A low-order point given as a recipient, on the command line or in a file: the
    // option or the file's line is named (not the input being sealed).
    let low = "age1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq5cu47z";
    std::fs::write(&rf, format!("{low}\n")).unwrap();
    for (option, value, says) in [
        (
            "--recipient",
            low,
            "--recipient: not a usable public key (a low-order point",
        ),
        (
            "--recipients-file",
            rf.to_str().unwrap(),
            "r.txt: line 1: not a usable public key (a low-order point",
        ),
        // An identity given as a recipient: said, and never echoed.
        (
            "--recipient",
            "AGE-SECRET-KEY-1Q8THDLU2EMXLSGHEVG3YC0FVS8NZ5WJKSEYN0AKUDQ5V3K5MMGZQW6RHAA",
            "--recipient: this is an age identity (a secret key",
        ),
    ] {
        let out = run(&os(&[
            &"records",
            &"seal",
            &csv,
            &"--key-field",
            &"id",
            &"-o",
            &vkr,
            &option,
            &value,
        ]));
        assert_eq!(out.status.code(), Some(2));
        let e = stderr_of(&out);
        assert!(e.contains(says) && !e.contains("Q8THDLU2"), "{e}");
        assert!(!vkr.exists());
    }
}

/// age's header MAC: HMAC-SHA256(HKDF-SHA256(file key, salt "", info "header"), header
/// text through "---").
fn header_mac(file_key: &[u8; 16], text: &[u8]) -> [u8; 32] {
    let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(b""), file_key);
    let mut k = [0u8; 32];
    hk.expand(b"header", &mut k).unwrap();
    let mut m = <hmac::Hmac<sha2::Sha256> as hmac::KeyInit>::new_from_slice(&k).unwrap();
    m.update(text);
    m.finalize().into_bytes().into()
}

#[test]
fn the_x25519_stanza_is_the_one_age_computes() {
    if !have_age() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (idf, r) = keygen(d, "id.txt");
    let text = std::fs::read_to_string(&idf).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("AGE-SECRET-KEY-1"))
        .unwrap();
    let id = Identity::parse(line).unwrap();
    assert_eq!(id.recipient().to_string(), r);
    let recipient = Recipient::parse(&r).unwrap();

    // age encrypts; veilkit unwraps its stanza, and age's header MAC proves the file key.
    let plain = d.join("plain");
    std::fs::write(&plain, b"hello from age").unwrap();
    let sealed = d.join("sealed.age");
    let st = std::process::Command::new("age")
        .args(["-r", &r, "-o"])
        .arg(&sealed)
        .arg(&plain)
        .status()
        .unwrap();
    assert!(st.success());
    let bytes = std::fs::read(&sealed).unwrap();
    let head_end = bytes.windows(4).position(|w| w == b"\n---").unwrap() + 4;
    let head = std::str::from_utf8(&bytes[..head_end]).unwrap();
    let mut lines = head.lines();
    assert_eq!(lines.next(), Some("age-encryption.org/v1"));
    let stanza = lines.next().unwrap();
    let share_b64 = stanza.strip_prefix("-> X25519 ").unwrap();
    let share: [u8; 32] = B64.decode(share_b64).unwrap().try_into().unwrap();
    let body: [u8; 32] = B64
        .decode(lines.next().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    let file_key = id
        .unwrap(&share, &body)
        .expect("veilkit opens age's stanza");
    let rest = &bytes[head_end + 1..];
    let mac_b64 = &rest[..rest.iter().position(|&b| b == b'\n').unwrap()];
    assert_eq!(
        B64.decode(mac_b64).unwrap(),
        header_mac(&file_key, &bytes[..head_end])
    );

    // veilkit wraps; age decrypts a file built around veilkit's stanza.
    let file_key = [0x5au8; 16];
    let (share, body) = wrap_with(&recipient, [0x33u8; 32], &file_key).unwrap();
    let mut out = format!(
        "age-encryption.org/v1\n-> X25519 {}\n{}\n---",
        B64.encode(share),
        B64.encode(body)
    )
    .into_bytes();
    let mac = header_mac(&file_key, &out);
    out.extend_from_slice(format!(" {}\n", B64.encode(mac)).as_bytes());
    let nonce = [0x11u8; 16];
    let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(&nonce), &file_key);
    let mut pk = [0u8; 32];
    hk.expand(b"payload", &mut pk).unwrap();
    let mut chunk_nonce = [0u8; 12];
    chunk_nonce[11] = 1; // counter 0, last chunk
    let ct = ChaCha20Poly1305::new_from_slice(&pk)
        .unwrap()
        .encrypt(&chunk_nonce.into(), &b"hello from veilkit"[..])
        .unwrap();
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&ct);
    let ours = d.join("ours.age");
    std::fs::write(&ours, out).unwrap();
    let dec = run_ok(
        std::process::Command::new("age")
            .arg("-d")
            .arg("-i")
            .arg(&idf)
            .arg(&ours),
    );
    assert_eq!(dec.stdout, b"hello from veilkit");
}
