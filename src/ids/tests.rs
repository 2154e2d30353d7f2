//! Tests of the id codec: Khuong's vectors, the documented vectors, and properties.

use super::feistel::{Network, prf};
use super::text::Format;
use super::*;
use crate::keys::{Keyring, MasterKey};
use proptest::prelude::*;

const VECTORS: &str = include_str!("../../tests/vectors/khuong-ids.txt");

fn unhex<const N: usize>(s: &str) -> [u8; N] {
    let mut b = [0u8; N];
    for i in 0..N {
        b[i] = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    b
}

fn field<'a>(line: &'a str, name: &str) -> &'a str {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("{name} missing in {line}"))
}

fn num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

fn lines<'a>(kind: &'a str, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    VECTORS.lines().filter(move |l| {
        let mut w = l.split_whitespace();
        w.next() == Some(kind) && w.next() == Some(name)
    })
}

fn std_key(start: u8) -> Aes128 {
    let mut k = [0u8; 16];
    for (i, b) in k.iter_mut().enumerate() {
        *b = start + i as u8;
    }
    Aes128::new(&k)
}

fn raw_keys(first_byte: usize) -> Option<Aes128> {
    let mut rk = [0u8; 176];
    for (i, b) in rk.iter_mut().enumerate() {
        *b = ((first_byte + i) % 256) as u8;
    }
    Aes128::from_raw_round_keys(&rk)
}

const SEQ_BITS: u32 = 60;
const NONCE_BITS: u32 = 62;
const NONCE_MAX: u64 = (1 << NONCE_BITS) - 1;

fn check_block_vectors(kind: &str, aes: &Aes128) {
    let mut n = 0;
    for line in lines(kind, "aes128") {
        let (seq, nonce) = (num(field(line, "seq")), num(field(line, "nonce")));
        let eid: Block = unhex(field(line, "eid"));
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&seq.to_le_bytes());
        b[8..].copy_from_slice(&nonce.to_le_bytes());
        assert_eq!(aes.encrypt_block(&b), eid, "{line}");
        assert_eq!(aes.decrypt_block(&eid), b, "{line}");
        n += 1;
    }
    for line in lines(kind, "cyclewalk") {
        let (seq, nonce) = (num(field(line, "seq")), num(field(line, "nonce")));
        let eid: Block = unhex(field(line, "eid"));
        let steps: usize = field(line, "walk_steps").parse().unwrap();
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&seq.to_le_bytes());
        b[8..].copy_from_slice(&nonce.to_le_bytes());
        let mut taken = 0;
        loop {
            b = aes.encrypt_block(&b);
            taken += 1;
            if b[7] & 0x80 == 0 {
                break;
            }
        }
        assert_eq!((b, taken), (eid, steps), "{line}");
        n += 1;
    }
    assert!(n >= 14, "vectors found: {n}");
}

#[test]
fn khuong_std_aes128_and_cycle_walk() {
    check_block_vectors("STD", &std_key(0));
}

#[test]
fn khuong_raw_aes128_and_cycle_walk_on_the_fast_path() {
    if let Some(aes) = raw_keys(0) {
        check_block_vectors("RAW", &aes);
    }
}

fn check_feistel2(kind: &str, k1: Aes128, k2: Aes128) {
    let net = Network::new(vec![k1, k2], 1, 0, SEQ_BITS, NONCE_BITS);
    let (mut pairs, mut wants) = (Vec::new(), Vec::new());
    for line in lines(kind, "feistel2") {
        let (seq, nonce) = (num(field(line, "seq")), num(field(line, "nonce")));
        let want = (num(field(line, "seq'")), num(field(line, "nonce'")));
        assert_eq!(net.encrypt(seq, nonce), want, "{line}");
        assert_eq!(net.decrypt(want.0, want.1), (seq, nonce), "{line}");
        let mut eid = [0u8; 16];
        eid[..8].copy_from_slice(&want.0.to_le_bytes());
        eid[8..].copy_from_slice(&want.1.to_le_bytes());
        assert_eq!(eid, unhex::<16>(field(line, "eid")), "{line}");
        pairs.push((seq, nonce));
        wants.push(want);
    }
    assert_eq!(pairs.len(), 7);
    // The batched path agrees, both ways, on the vectors in one batch of 7 + 7 + 3: a
    // group of eight (256-bit AES where the CPU has VAES, each lane a different pair)
    // and the rest one at a time.
    let cycle = |v: &[(u64, u64)]| v.iter().cycle().take(17).copied().collect::<Vec<_>>();
    let (mut ls, mut rs): (Vec<u64>, Vec<u64>) = cycle(&pairs).into_iter().unzip();
    net.encrypt_many(&mut ls, &mut rs);
    let got: Vec<(u64, u64)> = ls.iter().copied().zip(rs.iter().copied()).collect();
    assert_eq!(got, cycle(&wants));
    net.decrypt_many(&mut ls, &mut rs);
    let back: Vec<(u64, u64)> = ls.into_iter().zip(rs).collect();
    assert_eq!(back, cycle(&pairs));
}

#[test]
fn khuong_std_two_round_feistel() {
    check_feistel2("STD", std_key(0), std_key(0x10));
}

#[test]
fn khuong_raw_two_round_feistel_on_the_fast_path() {
    if let (Some(k1), Some(k2)) = (raw_keys(0), raw_keys(176)) {
        check_feistel2("RAW", k1, k2);
    }
}

#[test]
fn proposed_deterministic_three_rounds_and_uuid_packing() {
    let net = Network::new(
        vec![std_key(0x20), std_key(0), std_key(0x10)],
        0,
        0,
        SEQ_BITS,
        NONCE_BITS,
    );
    let mut n = 0;
    for line in lines("STD", "det3") {
        let id = num(field(line, "id"));
        let derived = num(field(line, "derived_nonce"));
        assert_eq!(prf(&std_key(0x20), id, 0) & NONCE_MAX, derived, "{line}");
        let want = (num(field(line, "seq'")), num(field(line, "nonce'")));
        assert_eq!(net.encrypt(id, 0), want, "{line}");
        let uuid = pack_uuid(want.0, want.1);
        let mut text = Vec::new();
        Format::Uuid.write(&uuid, &mut text);
        assert_eq!(std::str::from_utf8(&text).unwrap(), field(line, "uuidv8"));
        assert_eq!(unpack_uuid(&uuid), Some(want));
        assert_eq!(net.decrypt(want.0, want.1), (id, 0));
        n += 1;
    }
    assert_eq!(n, 6);
    // Negative vectors: flipping bit 0 of nonce' or of seq' of id=42 must be rejected.
    let line = lines("STD", "det3").find(|l| l.contains("id=42 ")).unwrap();
    let (s, nn) = (num(field(line, "seq'")), num(field(line, "nonce'")));
    assert_ne!(net.decrypt(s, nn ^ 1).1, 0);
    assert_ne!(net.decrypt(s ^ 1, nn).1, 0);
}

/// Key 1 with the bytes 00..1f, then `n - 1` generated keys.
pub(super) fn fixed_ring(n: u32) -> Keyring {
    let mut b = [0u8; 32];
    for (i, x) in b.iter_mut().enumerate() {
        *x = i as u8;
    }
    let mut ring = Keyring::single(MasterKey::new(1, b));
    for _ in 1..n {
        ring.add_generated().unwrap();
    }
    ring
}

fn all_specs() -> Vec<Spec> {
    let mut v = Vec::new();
    for scheme in [Scheme::Uuid, Scheme::Aes128, Scheme::CycleWalk] {
        for form in [Form::Deterministic, Form::StoredNonce] {
            v.push(Spec::new(scheme, form));
        }
    }
    let mut more = Spec::new(Scheme::Uuid, Form::Deterministic);
    more.rounds = 6;
    v.push(more);
    let mut bit = Spec::new(Scheme::CycleWalk, Form::StoredNonce);
    bit.clear_bit = 100;
    v.push(bit);
    v
}

/// Documented vectors of docs/IDS.md: key bytes 00..1f, id 1, context "users".
#[test]
fn documented_vectors() {
    let ring = fixed_ring(1);
    let mut got = Vec::new();
    for (scheme, format) in [
        (Scheme::Uuid, Format::Uuid),
        (Scheme::Aes128, Format::Hex),
        (Scheme::CycleWalk, Format::Hex),
    ] {
        let mut spec = Spec::new(scheme, Form::Deterministic);
        spec.context = b"users".to_vec();
        let codec = Codec::new(&ring, spec).unwrap();
        for id in [0u64, 1, 42] {
            let mut t = Vec::new();
            format.write(&codec.encode(id, 0).unwrap(), &mut t);
            got.push(String::from_utf8(t).unwrap());
        }
    }
    let mut spec = Spec::new(Scheme::Uuid, Form::StoredNonce);
    spec.context = b"users".to_vec();
    let codec = Codec::new(&ring, spec).unwrap();
    let mut t = Vec::new();
    Format::Uuid.write(&codec.encode(42, 7).unwrap(), &mut t);
    got.push(String::from_utf8(t).unwrap());
    let expected: Vec<&str> = DOCUMENTED
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(
        got, expected,
        "docs/IDS.md vectors changed: this breaks every stored id"
    );
}

const DOCUMENTED: &str = "
2b41f6ab-9a39-87dc-9bf0-71602fd76308
d2c11da1-5892-8d8e-91bb-8d7aaa49650d
20e2525d-36bc-87ea-91d2-deb59e163fee
2b20582b63a4268468cd1b94758afeec
892ba074c9221b20d4ef33afa48aeb3b
414a57fd7fbb5fc17b98d27593ed7651
eee7f6b1008cfd033f26378d62e367af
3a4726b2db468d0238e5d4e932a5638b
c1fdec3392fcc038956cbe40c6ac3320
5d27bdf2-615b-8214-98ee-84b07aa5edf1
";

#[test]
fn rounds_and_bits_are_validated() {
    let ring = fixed_ring(1);
    let mut s = Spec::new(Scheme::Uuid, Form::Deterministic);
    s.rounds = 2;
    assert!(Codec::new(&ring, s).is_err());
    let mut s = Spec::new(Scheme::Aes128, Form::Deterministic);
    s.rounds = 5;
    assert!(Codec::new(&ring, s).is_err());
    let mut s = Spec::new(Scheme::CycleWalk, Form::Deterministic);
    s.clear_bit = 128;
    assert!(Codec::new(&ring, s).is_err());
}

#[test]
fn uuid_range_is_enforced() {
    let codec = Codec::new(&fixed_ring(1), Spec::new(Scheme::Uuid, Form::Deterministic)).unwrap();
    assert!(codec.encode(UUID_MAX, 0).is_ok());
    assert!(codec.encode(UUID_MAX + 1, 0).is_err());
}

#[test]
fn older_keys_still_decode_and_new_ids_use_the_current_key() {
    let mut ring = fixed_ring(1);
    for spec in all_specs() {
        let old = Codec::new(&ring, spec.clone()).unwrap();
        let enc_old = old.encode(1234, 5).unwrap();
        let mut ring2 = ring.clone();
        ring2.add_generated().unwrap();
        let new = Codec::new(&ring2, spec.clone()).unwrap();
        assert_ne!(new.encode(1234, 5).unwrap(), enc_old, "{spec:?}");
        let decoded = match (spec.scheme, spec.form) {
            // Forms without redundancy cannot tell keys apart: the key is named.
            (Scheme::Aes128 | Scheme::CycleWalk, Form::StoredNonce) => {
                let (mut i, mut n, mut e) = ([0], [0], [None]);
                new.decode_many(&[enc_old], Some(1), &mut i, &mut n, &mut e);
                assert!(e[0].is_none());
                (i[0], n[0])
            }
            _ => new.decode(&enc_old).unwrap(),
        };
        let want_nonce = if spec.form == Form::StoredNonce { 5 } else { 0 };
        assert_eq!(decoded, (1234, want_nonce), "{spec:?}");
    }
    ring.add_generated().unwrap();
}

#[test]
fn a_uuid_naming_a_missing_key_is_reported() {
    let ring = fixed_ring(1); // key id 1 only
    let codec = Codec::new(&ring, Spec::new(Scheme::Uuid, Form::Deterministic)).unwrap();
    let mut b = codec.encode(5, 0).unwrap();
    // Key-id bits are bits 61..60 of the big-endian value: byte 8, bits 5..4.
    b[8] = (b[8] & !0x30) | (2 << 4);
    assert_eq!(codec.decode(&b), Err(InputError::UnknownKey { bits: 2 }));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trip_every_scheme_form_context_and_key(
        id in any::<u64>(),
        nonce in any::<u64>(),
        context in proptest::collection::vec(any::<u8>(), 0..12),
        keys in 1u32..6,
    ) {
        let ring = fixed_ring(keys);
        for mut spec in all_specs() {
            spec.context = context.clone();
            let codec = Codec::new(&ring, spec.clone()).unwrap();
            let id = match spec.scheme {
                Scheme::Uuid => id & UUID_MAX,
                Scheme::CycleWalk if spec.clear_bit < 64 => id & !(1 << spec.clear_bit),
                _ => id,
            };
            let nonce = nonce & codec.nonce_mask();
            let enc = codec.encode(id, nonce).unwrap();
            if spec.scheme == Scheme::Uuid {
                let v = u128::from_be_bytes(enc);
                prop_assert_eq!((v >> 76) & 0xf, 8);
                prop_assert_eq!((v >> 62) & 3, 2);
            }
            if spec.scheme == Scheme::CycleWalk {
                let b = spec.clear_bit;
                prop_assert_eq!(enc[(b / 8) as usize] >> (b % 8) & 1, 0);
            }
            let want_nonce = if spec.form == Form::StoredNonce { nonce } else { 0 };
            prop_assert_eq!(codec.decode(&enc), Ok((id, want_nonce)));
        }
    }

    #[test]
    fn single_bit_flips_are_rejected_by_deterministic_forms(id in any::<u64>(), bit in 0usize..128) {
        let ring = fixed_ring(2);
        for scheme in [Scheme::Uuid, Scheme::Aes128, Scheme::CycleWalk] {
            let codec = Codec::new(&ring, Spec::new(scheme, Form::Deterministic)).unwrap();
            let id = match scheme { Scheme::Uuid => id & UUID_MAX, Scheme::CycleWalk => id >> 1, _ => id };
            let mut enc = codec.encode(id, 0).unwrap();
            enc[bit / 8] ^= 1 << (bit % 8);
            prop_assert!(codec.decode(&enc).is_err(), "{:?} bit {} accepted", scheme, bit);
        }
    }

    #[test]
    fn contexts_are_separated(id in 0u64..=UUID_MAX) {
        let ring = fixed_ring(1);
        for scheme in [Scheme::Uuid, Scheme::Aes128, Scheme::CycleWalk] {
            let mut a = Spec::new(scheme, Form::Deterministic);
            a.context = b"users".to_vec();
            let mut b = a.clone();
            b.context = b"orders".to_vec();
            let (ca, cb) = (Codec::new(&ring, a).unwrap(), Codec::new(&ring, b).unwrap());
            let ea = ca.encode(id >> 1, 0).unwrap();
            prop_assert_ne!(ea, cb.encode(id >> 1, 0).unwrap());
            prop_assert!(cb.decode(&ea).is_err());
        }
    }

    #[test]
    fn batches_match_single_calls_and_the_portable_reference(
        ids in proptest::collection::vec(0u64..=UUID_MAX, 1..40),
    ) {
        let ring = fixed_ring(1);
        for spec in all_specs() {
            let codec = Codec::new(&ring, spec.clone()).unwrap();
            let ids: Vec<u64> = ids.iter().map(|&i| if spec.scheme == Scheme::CycleWalk { i >> 4 } else { i }).collect();
            let nonces: Vec<u64> = ids.iter().map(|&i| (i.wrapping_mul(0x9e37_79b9) >> 8) & codec.nonce_mask() & !(1 << 36)).collect();
            let mut out = vec![[0u8; 16]; ids.len()];
            codec.encode_many(&ids, &nonces, &mut out);
            for (i, o) in out.iter().enumerate() {
                prop_assert_eq!(*o, codec.encode(ids[i], nonces[i]).unwrap());
            }
        }
        // The UUID network against a plain reference built on the portable AES.
        let key = [7u8; 16];
        let fast = Network::new(vec![Aes128::new(&key); 3], 0, 1, 60, 60);
        let slow = Network::new(vec![Aes128::new_portable(&key); 3], 0, 1, 60, 60);
        let (mut l, mut r) = (ids.clone(), vec![0; ids.len()]);
        fast.encrypt_many(&mut l, &mut r);
        for (i, &id) in ids.iter().enumerate() {
            prop_assert_eq!((l[i], r[i]), slow.encrypt(id, 0));
            prop_assert_eq!(fast.encrypt(id, 0), slow.encrypt(id, 0));
        }
    }

    /// The single-pair network in vector registers against the portable one, both
    /// directions, every first round and odd widths, on any words.
    #[test]
    fn single_pairs_match_the_portable_network(
        key in any::<[u8; 16]>(), l in any::<u64>(), r in any::<u64>(),
        rounds in 1usize..6, first in 0u32..2, lb in 1u32..=64, rb in 1u32..=64, tweak in any::<u64>(),
    ) {
        let fast = Network::new(vec![Aes128::new(&key); rounds], first, tweak, lb, rb);
        let slow = Network::new(vec![Aes128::new_portable(&key); rounds], first, tweak, lb, rb);
        prop_assert_eq!(fast.encrypt(l, r), slow.encrypt(l, r));
        prop_assert_eq!(fast.decrypt(l, r), slow.decrypt(l, r));
    }

    /// The batched network (eight pairs at a time in 256-bit registers where the CPU has
    /// VAES, the rest one at a time) against the portable one, both directions, on
    /// batches of every length around the groups of eight.
    #[test]
    fn batches_of_pairs_match_the_portable_network(
        key in any::<[u8; 16]>(), pairs in proptest::collection::vec(any::<(u64, u64)>(), 0..70),
        rounds in 1usize..5, first in 0u32..2, lb in 1u32..=64, rb in 1u32..=64, tweak in any::<u64>(),
    ) {
        let fast = Network::new(vec![Aes128::new(&key); rounds], first, tweak, lb, rb);
        let slow = Network::new(vec![Aes128::new_portable(&key); rounds], first, tweak, lb, rb);
        let (mut l, mut r): (Vec<u64>, Vec<u64>) = pairs.iter().copied().unzip();
        fast.encrypt_many(&mut l, &mut r);
        for (i, &(a, b)) in pairs.iter().enumerate() {
            prop_assert_eq!((l[i], r[i]), slow.encrypt(a, b), "pair {} of {}", i, pairs.len());
        }
        let (mut l, mut r): (Vec<u64>, Vec<u64>) = pairs.iter().copied().unzip();
        fast.decrypt_many(&mut l, &mut r);
        for (i, &(a, b)) in pairs.iter().enumerate() {
            prop_assert_eq!((l[i], r[i]), slow.decrypt(a, b), "pair {} of {}", i, pairs.len());
        }
    }

    #[test]
    fn distinct_ids_give_distinct_outputs(ids in proptest::collection::btree_set(0u64..=UUID_MAX, 2..50)) {
        let ring = fixed_ring(1);
        let codec = Codec::new(&ring, Spec::new(Scheme::Uuid, Form::Deterministic)).unwrap();
        let ids: Vec<u64> = ids.into_iter().collect();
        let mut out = vec![[0u8; 16]; ids.len()];
        codec.encode_many(&ids, &[], &mut out);
        let set: std::collections::BTreeSet<_> = out.iter().collect();
        prop_assert_eq!(set.len(), ids.len());
    }

    #[test]
    fn text_formats_round_trip(v in any::<[u8; 16]>()) {
        for f in [Format::Uuid, Format::Hex, Format::Base32, Format::Base62] {
            let mut t = Vec::new();
            f.write(&v, &mut t);
            prop_assert_eq!(t.len(), f.width());
            prop_assert_eq!(f.parse(&t), Ok(v));
            if f != Format::Base62 {
                prop_assert_eq!(f.parse(&t.to_ascii_uppercase()), Ok(v));
            }
        }
    }

    #[test]
    fn text_parsers_never_panic(t in proptest::collection::vec(any::<u8>(), 0..40)) {
        for f in [Format::Uuid, Format::Hex, Format::Base32, Format::Base62] {
            let _ = f.parse(&t);
        }
    }
}

#[test]
fn chains_agree_with_single_calls() {
    let ring = fixed_ring(1);
    for scheme in [Scheme::Uuid, Scheme::Aes128, Scheme::CycleWalk] {
        let codec = Codec::new(&ring, Spec::new(scheme, Form::Deterministic)).unwrap();
        // One step of the chain from x is one encode, folded (the UUID form returns
        // L ^ R, the block forms the first 8 bytes).
        let x = 12345u64;
        let one = codec.encode_chain(x, 1);
        let enc = codec.encode(x, 0).unwrap();
        match scheme {
            Scheme::Uuid => {
                let (l, low) = unpack_uuid(&enc).unwrap();
                assert_eq!(one, l ^ (low & UUID_MAX));
            }
            _ => assert_eq!(one, u64::from_le_bytes(enc[..8].try_into().unwrap())),
        }
        // Two steps: the second encodes the first's folded output.
        let two = codec.encode_chain(x, 2);
        let enc2 = codec.encode(
            one & if scheme == Scheme::Uuid {
                UUID_MAX
            } else {
                u64::MAX
            },
            0,
        );
        if let (Scheme::Aes128, Ok(e)) = (scheme, enc2) {
            assert_eq!(two, u64::from_le_bytes(e[..8].try_into().unwrap()));
        }
        assert_ne!(codec.encode_chain(x, 1000), codec.encode_chain(x, 999));
        let _ = codec.decode_chain(x, 10);
    }
}

/// The vector-register chains agree with the portable network.
#[test]
fn fast_and_portable_chains_agree() {
    let key = [5u8; 16];
    for (first, rounds) in [(0u32, 3usize), (1, 2), (0, 5)] {
        let fast = Network::new(vec![Aes128::new(&key); rounds], first, 2, 60, 60);
        let slow = Network::new(vec![Aes128::new_portable(&key); rounds], first, 2, 60, 60);
        for x in [0u64, 1, 77, u64::MAX] {
            assert_eq!(fast.chain(x, 5), slow.chain(x, 5));
            assert_eq!(fast.chain_back(x, 5), slow.chain_back(x, 5));
        }
    }
}

#[test]
fn base_edge_cases() {
    assert_eq!(
        Format::Base32.parse(b"8zzzzzzzzzzzzzzzzzzzzzzzzz"),
        Err(text::TextError::TooLarge)
    );
    let mut t = Vec::new();
    Format::Base32.write(&[0xff; 16], &mut t);
    assert_eq!(&t, b"7zzzzzzzzzzzzzzzzzzzzzzzzz");
    t.clear();
    Format::Base62.write(&[0xff; 16], &mut t);
    assert_eq!(&t, b"7n42DGM5Tflk9n8mt7Fhc7");
    assert_eq!(
        Format::Base62.parse(b"7n42DGM5Tflk9n8mt7Fhc8"),
        Err(text::TextError::TooLarge)
    );
    assert_eq!(
        Format::Base62.parse(b"zzzzzzzzzzzzzzzzzzzzzz"),
        Err(text::TextError::TooLarge)
    );
    assert!(
        Format::Uuid
            .parse(b"0eff2fbd-024e-8a4e-b7e6+bded5146a438")
            .is_err()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The fuzz target `id_stream` as a property: any input, any options, no panic, and
    /// with --keep-going exactly one output line per input line.
    #[test]
    fn streams_never_panic_and_stay_aligned(
        ctl in any::<u8>(),
        lines in proptest::collection::vec(
            prop_oneof![
                "[0-9]{1,20}",
                "[0-9a-fA-F-]{30,40}",
                "[0-9a-zA-Z_,\\t ]{0,50}",
                any::<Vec<u8>>().prop_map(|v| String::from_utf8_lossy(&v).into_owned()),
            ],
            0..30,
        ),
        final_newline in any::<bool>(),
    ) {
        use super::stream::{self, Op, Options};
        let mut input = lines.join("\n").into_bytes();
        if final_newline && !input.is_empty() {
            input.push(b'\n');
        }
        let scheme = [Scheme::Uuid, Scheme::Aes128, Scheme::CycleWalk][(ctl % 3) as usize];
        let form = if ctl & 4 != 0 { Form::StoredNonce } else { Form::Deterministic };
        let op = [Op::Encode, Op::Decode, Op::Reencode][((ctl >> 3) % 3) as usize];
        let format = match (scheme, (ctl >> 5) & 3) {
            (Scheme::Uuid, 0) => Format::Uuid,
            (_, 1) => Format::Base32,
            (_, 2) => Format::Base62,
            _ => Format::Hex,
        };
        let field = (ctl & 0x80 != 0).then_some(2);
        let codec = Codec::new(&fixed_ring(2), Spec::new(scheme, form)).unwrap();
        let opts = Options {
            op,
            format,
            prefix: if ctl & 0x40 != 0 { b"p_".to_vec() } else { Vec::new() },
            field,
            nonce_field: field.filter(|_| form == Form::StoredNonce).map(|_| 3),
            delimiter: b',',
            csv: false,
            header: false,
            random_nonce: false,
            keep_going: true,
            key_id: None,
        };
        let mut out = Vec::new();
        let mut reported = 0u64;
        let summary = stream::run(&codec, &opts, crate::streams::Source::Read(&mut &input[..]), &mut out, &mut |_| reported += 1).unwrap();
        prop_assert_eq!(out.iter().filter(|&&c| c == b'\n').count() as u64, summary.lines);
        prop_assert_eq!(reported, summary.errors);
        let expected_lines = if input.is_empty() { 0 } else { input.iter().filter(|&&c| c == b'\n').count() as u64 + u64::from(*input.last().unwrap() != b'\n') };
        prop_assert_eq!(summary.lines, expected_lines);
    }
}

mod csv_fields {
    use super::*;
    use crate::ids::stream::{self, LineError, Op, Options, StreamError};

    fn opts(op: Op, csv: bool, header: bool) -> Options {
        Options {
            op,
            format: Format::Hex,
            prefix: Vec::new(),
            field: Some(2),
            nonce_field: None,
            delimiter: b',',
            csv,
            header,
            random_nonce: false,
            keep_going: true,
            key_id: None,
        }
    }

    fn run(codec: &Codec, o: &Options, input: &[u8]) -> (Vec<u8>, Vec<LineError>) {
        let mut out = Vec::new();
        let mut errors = Vec::new();
        stream::run(
            codec,
            o,
            crate::streams::Source::Read(&mut &input[..]),
            &mut out,
            &mut |e| errors.push(e.clone()),
        )
        .unwrap();
        (out, errors)
    }

    #[test]
    fn quoted_fields_and_line_ends_inside_quotes_pass_through() {
        let codec = Codec::new(
            &fixed_ring(1),
            Spec::new(Scheme::Aes128, Form::Deterministic),
        )
        .unwrap();
        let input = b"name,id,note\r\n\"Smith, J\",\"7\",\"two\r\nlines\"\r\nAnn,8,plain\r\nBob,x,\"bad \"\"id\"\"\"\nEve,9,last";
        let (enc, errors) = run(&codec, &opts(Op::Encode, true, true), input);
        let hex = |id: u64| {
            let mut v = Vec::new();
            Format::Hex.write(&codec.encode(id, 0).unwrap(), &mut v);
            String::from_utf8(v).unwrap()
        };
        let want = format!(
            "name,id,note\r\n\"Smith, J\",{},\"two\r\nlines\"\r\nAnn,{},plain\r\n\nEve,{},last",
            hex(7),
            hex(8),
            hex(9)
        );
        assert_eq!(String::from_utf8_lossy(&enc), want);
        // The bad record is named by the line it starts on (the header is line 1, and a
        // record spans two lines).
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].line, 5);
        // Decoding gives the input back, but for the bad record (an empty line, which has
        // no field 2).
        let (dec, errors) = run(&codec, &opts(Op::Decode, true, true), &enc);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            String::from_utf8_lossy(&dec),
            "name,id,note\r\n\"Smith, J\",7,\"two\r\nlines\"\r\nAnn,8,plain\r\n\nEve,9,last"
        );
    }

    /// A byte order mark before the first line is skipped where the output is the id
    /// alone, written first where lines pass through (a header, other fields: the output
    /// starts with it too, and it is no part of the first field), and part of any later
    /// line (an error).
    #[test]
    fn a_byte_order_mark_before_the_first_line() {
        let codec = Codec::new(
            &fixed_ring(1),
            Spec::new(Scheme::Aes128, Form::Deterministic),
        )
        .unwrap();
        let whole = Options {
            field: None,
            ..opts(Op::Encode, false, false)
        };
        let (plain, errors) = run(&codec, &whole, b"7\r\n8\n");
        assert!(errors.is_empty());
        let (marked, errors) = run(&codec, &whole, b"\xEF\xBB\xBF7\r\n8\n");
        assert!(errors.is_empty());
        assert_eq!(marked, plain);
        let (_, errors) = run(&codec, &whole, b"7\n\xEF\xBB\xBF8\n");
        assert_eq!(errors.iter().map(|e| e.line).collect::<Vec<_>>(), [2]);
        let (out, errors) = run(
            &codec,
            &opts(Op::Encode, false, true),
            b"\xEF\xBB\xBFname,id\nAnn,7\n",
        );
        assert!(errors.is_empty());
        assert!(out.starts_with(b"\xEF\xBB\xBFname,id\nAnn,"));
        // The id in the first field of the first line, cut and CSV, header or not: the
        // output is the unmarked input's with the mark in front.
        for csv in [false, true] {
            for header in [false, true] {
                let o = Options {
                    field: Some(1),
                    ..opts(Op::Encode, csv, header)
                };
                let input: &[u8] = if header {
                    b"id,x\n7,a\n8\n"
                } else {
                    b"7,a\n8\n"
                };
                let (plain, errors) = run(&codec, &o, input);
                assert!(errors.is_empty(), "csv {csv} header {header}: {errors:?}");
                let (marked, errors) = run(&codec, &o, &[b"\xEF\xBB\xBF", input].concat());
                assert!(errors.is_empty(), "csv {csv} header {header}: {errors:?}");
                assert_eq!(marked, [b"\xEF\xBB\xBF", &plain[..]].concat());
                // The mark alone is an empty input, passed through.
                let (out, errors) = run(&codec, &o, b"\xEF\xBB\xBF");
                assert!(errors.is_empty());
                assert_eq!(out, b"\xEF\xBB\xBF");
            }
        }
    }

    #[test]
    fn input_that_is_not_csv_ends_the_run_naming_its_line() {
        let codec = Codec::new(
            &fixed_ring(1),
            Spec::new(Scheme::Aes128, Form::Deterministic),
        )
        .unwrap();
        let mut out = Vec::new();
        let err = stream::run(
            &codec,
            &opts(Op::Encode, true, false),
            crate::streams::Source::Read(&mut &b"a,1\nb,\"2\nc,3\n"[..]),
            &mut out,
            &mut |_| {},
        )
        .unwrap_err();
        assert!(
            matches!(err, StreamError::Csv(ref m) if m.starts_with("line 2:")),
            "{err}"
        );
        // The records before it are written.
        assert!(
            out.starts_with(b"a,")
                && out.ends_with(b"\n")
                && out.iter().filter(|&&c| c == b'\n').count() == 1
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]
        /// Without quotes, CSV mode and cut mode agree, header or not.
        #[test]
        fn unquoted_csv_is_read_as_cut_reads_it(
            rows in proptest::collection::vec(("[a-z ]{0,5}", 0u64..1_000_000, "[a-z0-9]{0,5}"), 0..20),
            header in any::<bool>(),
            crlf in any::<bool>(),
        ) {
            let codec = Codec::new(&fixed_ring(1), Spec::new(Scheme::Uuid, Form::Deterministic)).unwrap();
            let end = if crlf { "\r\n" } else { "\n" };
            let input: String = rows.iter().map(|(a, id, c)| format!("{a},{id},{c}{end}")).collect();
            let o_cut = Options { format: Format::Uuid, ..opts(Op::Encode, false, header) };
            let o_csv = Options { csv: true, ..o_cut.clone() };
            let (cut, e1) = run(&codec, &o_cut, input.as_bytes());
            let (csv, e2) = run(&codec, &o_csv, input.as_bytes());
            prop_assert_eq!(&cut, &csv);
            prop_assert_eq!(e1.len(), e2.len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The single-id calls give exactly what the batch calls give: the same bytes, the
    /// same ids, the same errors, for every scheme and form, under a ring of three keys
    /// (ids of an older key included), on valid and on random (mostly forged) input.
    #[test]
    fn single_calls_agree_with_batches(ctl in any::<u8>(), id in any::<u64>(), nonce in any::<u64>(), junk in any::<[u8; 16]>()) {
        let scheme = [Scheme::Uuid, Scheme::Aes128, Scheme::CycleWalk][(ctl % 3) as usize];
        let form = if ctl & 4 != 0 { Form::StoredNonce } else { Form::Deterministic };
        let ring = fixed_ring(3);
        let codec = Codec::new(&ring, Spec::new(scheme, form)).unwrap();
        // An id of the oldest key, decoded by the whole ring.
        let old = Codec::new(&fixed_ring(1), Spec::new(scheme, form)).unwrap();
        let id = id & codec.nonce_mask().min(if scheme == Scheme::Uuid { (1 << 60) - 1 } else { u64::MAX >> 1 });
        let nonce = nonce & codec.nonce_mask();
        let single = codec.encode(id, nonce);
        let mut batch = [[0u8; 16]];
        if single.is_ok() {
            codec.encode_many(&[id], &[nonce], &mut batch);
            prop_assert_eq!(single.clone().unwrap(), batch[0]);
        }
        let mut inputs = vec![junk];
        inputs.extend(single.ok());
        inputs.extend(old.encode(id, nonce).ok());
        for b in inputs {
            let (mut ids, mut nonces, mut errs) = ([0u64], [0u64], [None]);
            codec.decode_many(&[b], None, &mut ids, &mut nonces, &mut errs);
            let want = match errs[0].take() {
                Some(e) => Err(e),
                None => Ok((ids[0], nonces[0])),
            };
            prop_assert_eq!(codec.decode(&b), want);
        }
    }
}

/// A bad UUID is reported at its first bad character (counted from 1), a dash out of
/// place or a character that is not a hex digit, in every position.
#[test]
fn a_bad_uuid_names_its_first_bad_character() {
    let good = *b"0eff2fbd-024e-8a4e-b7e6-bded5146a438";
    assert!(Format::Uuid.parse(&good).is_ok());
    for i in 0..36 {
        for bad in [b'g', b'-', b'x', 0xff] {
            let mut t = good;
            if (bad == b'-') == matches!(i, 8 | 13 | 18 | 23) {
                continue; // that byte is good there
            }
            t[i] = bad;
            let want = text::TextError::Character {
                position: i + 1,
                format: "uuid",
            };
            assert_eq!(Format::Uuid.parse(&t), Err(want.clone()), "byte {i}");
            // A later bad byte does not change which is named.
            t[35] = if i == 35 { t[35] } else { b'z' };
            assert_eq!(Format::Uuid.parse(&t), Err(want), "byte {i}, and 36");
        }
    }
}
