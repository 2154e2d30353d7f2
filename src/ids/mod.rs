//! Opaque ids: sequential database ids to opaque 128-bit ids and back, with AES-128
//! (specified in `docs/IDS.md`).
//!
//! Three schemes:
//! - [`Scheme::Uuid`]: a Feistel network with AES-128 round functions whose output is an
//!   RFC 9562 version-8 UUID: 60 id bits, 60 bits of second half, 2 key-id bits.
//! - [`Scheme::Aes128`]: one AES-128 block over `LE64(id) ‖ LE64(second half)`.
//! - [`Scheme::CycleWalk`]: as `Aes128`, re-encrypting until one chosen bit is clear.
//!
//! Each has a deterministic form (the second half is zero, or derived from the id, so the
//! same id always gives the same output and decoding checks it: forged, mistyped or
//! foreign ids are rejected) and a stored-nonce form (the caller supplies and keeps a
//! nonce; nothing is checked).

pub mod csv;
pub mod decimal;
pub mod feistel;
pub mod job;
pub mod sql;
pub mod stream;
pub mod text;

use crate::block::{Aes128, Block, join, split};
use crate::keys::Keyring;
use feistel::Network;

/// Bits in each half of the UUID scheme's Feistel network; the id half is the left.
pub const UUID_HALF_BITS: u32 = 60;
/// The largest id the UUID scheme encodes.
pub const UUID_MAX: u64 = (1 << UUID_HALF_BITS) - 1;
/// Bits of the key id an encoded UUID carries.
pub const KEY_ID_BITS: u32 = 2;
/// The most rounds `--rounds` accepts.
pub const MAX_ROUNDS: u32 = 32;
/// The first byte-order-independent version of the id specification.
pub const SPEC_VERSION: u32 = 1;

/// An id construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Feistel network to a version-8 UUID.
    Uuid,
    /// One AES-128 block.
    Aes128,
    /// One AES-128 block, cycle-walked to keep one bit clear.
    CycleWalk,
}

/// Where the second half of the input comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Zero (block schemes) or derived from the id (UUID): same id, same output;
    /// decoding rejects anything encode did not produce.
    Deterministic,
    /// A nonce the caller supplies and stores; decoding returns it and checks nothing.
    StoredNonce,
}

/// Everything that selects a codec besides the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The construction.
    pub scheme: Scheme,
    /// Deterministic or stored nonce.
    pub form: Form,
    /// Feistel rounds (UUID scheme only).
    pub rounds: u32,
    /// The bit kept clear (cycle walking only), numbered in the little-endian 128-bit
    /// value of the block: byte `b / 8`, bit `b % 8`.
    pub clear_bit: u32,
    /// Per-table or per-tenant separation: ids of one context do not decode in another.
    pub context: Vec<u8>,
}

impl Spec {
    /// The default spec of a scheme and form.
    pub fn new(scheme: Scheme, form: Form) -> Spec {
        Spec {
            scheme,
            form,
            rounds: Spec::default_rounds(form),
            clear_bit: 63,
            context: Vec::new(),
        }
    }

    /// 3 rounds for the deterministic UUID form, 2 for the stored-nonce form.
    pub fn default_rounds(form: Form) -> u32 {
        match form {
            Form::Deterministic => 3,
            Form::StoredNonce => 2,
        }
    }

    /// The fewest rounds allowed.
    pub fn min_rounds(form: Form) -> u32 {
        Spec::default_rounds(form)
    }

    pub(crate) fn purpose(&self) -> &'static str {
        match (self.scheme, self.form) {
            (Scheme::Uuid, Form::Deterministic) => "ids/uuid-det",
            (Scheme::Uuid, Form::StoredNonce) => "ids/uuid-nonce",
            (Scheme::Aes128, Form::Deterministic) => "ids/aes128-det",
            (Scheme::Aes128, Form::StoredNonce) => "ids/aes128-nonce",
            (Scheme::CycleWalk, Form::Deterministic) => "ids/cycle-walk-det",
            (Scheme::CycleWalk, Form::StoredNonce) => "ids/cycle-walk-nonce",
        }
    }
}

/// An impossible combination of options.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// Fewer rounds than the form needs.
    #[error("--rounds must be at least {min} for this form (and at most {MAX_ROUNDS})")]
    Rounds {
        /// The minimum.
        min: u32,
    },
    /// `--rounds` on a scheme without rounds.
    #[error("--rounds applies to the uuid scheme only")]
    RoundsNotApplicable,
    /// A bit outside the block.
    #[error("--clear-bit must be from 0 to 127")]
    ClearBit,
}

/// Why one input was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Malformed text.
    #[error(transparent)]
    Text(#[from] text::TextError),
    /// An id or nonce with the bit that cycle walking keeps clear.
    #[error("{what} has bit {bit} set, which --clear-bit {bit} reserves")]
    ReservedBit {
        /// "id" or "nonce".
        what: &'static str,
        /// The bit.
        bit: u32,
    },
    /// An encoded id with the bit that cycle walking keeps clear.
    #[error("not an id of this scheme: bit {0} is set")]
    BitSet(u32),
    /// A UUID without version 8 and the RFC variant.
    #[error("not a veilkit id: the UUID is not version 8 with the RFC 9562 variant")]
    NotV8,
    /// Its key-id bits name no key of the ring.
    #[error("made with key id {bits} (mod 4), which is not in the keyring")]
    UnknownKey {
        /// The low key-id bits.
        bits: u32,
    },
    /// The deterministic check failed.
    #[error(
        "not a valid id: forged or mistyped, or made with another key, context, scheme or --rounds"
    )]
    Forged,
    /// A missing field.
    #[error("has no field {0}")]
    MissingField(usize),
    /// A missing nonce.
    #[error("expected `ID NONCE`, found no nonce")]
    MissingNonce,
    /// Extra words where one or two were expected.
    #[error("expected {0}, found more")]
    Extra(&'static str),
    /// A wrong type prefix.
    #[error("does not start with the prefix {0:?}")]
    Prefix(String),
    /// The key named by `--key-id` is not in the ring.
    #[error("key id {0} is not in the keyring")]
    NoSuchKey(u32),
}

enum Engine {
    Feistel(Network),
    Block(Box<Aes128>),
}

struct KeyCodec {
    key_id: u32,
    engine: Engine,
}

/// An id codec: a spec with the subkeys of every key in a ring.
pub struct Codec {
    spec: Spec,
    /// Oldest first; the last is current.
    keys: Vec<KeyCodec>,
}

const BATCH_LIMIT: usize = 1 << 16;

impl Codec {
    /// Derives the subkeys of every key in `ring` for `spec`.
    pub fn new(ring: &Keyring, spec: Spec) -> Result<Codec, SpecError> {
        if spec.scheme == Scheme::Uuid {
            if spec.rounds < Spec::min_rounds(spec.form) || spec.rounds > MAX_ROUNDS {
                return Err(SpecError::Rounds {
                    min: Spec::min_rounds(spec.form),
                });
            }
        } else if spec.rounds != Spec::default_rounds(spec.form) {
            return Err(SpecError::RoundsNotApplicable);
        }
        if spec.clear_bit > 127 {
            return Err(SpecError::ClearBit);
        }
        let keys = ring
            .keys()
            .iter()
            .map(|k| {
                let engine = match spec.scheme {
                    Scheme::Uuid => {
                        let mut material =
                            zeroize::Zeroizing::new(vec![0u8; 16 * spec.rounds as usize]);
                        k.derive(spec.purpose(), &spec.context, &mut material);
                        let aes = material
                            .chunks_exact(16)
                            .map(|c| Aes128::new(c.try_into().expect("16 bytes")))
                            .collect();
                        let first = match spec.form {
                            Form::Deterministic => 0,
                            Form::StoredNonce => 1,
                        };
                        let tweak = u64::from(k.id() % (1 << KEY_ID_BITS));
                        Engine::Feistel(Network::new(
                            aes,
                            first,
                            tweak,
                            UUID_HALF_BITS,
                            UUID_HALF_BITS,
                        ))
                    }
                    Scheme::Aes128 | Scheme::CycleWalk => {
                        let mut key = zeroize::Zeroizing::new([0u8; 16]);
                        k.derive(spec.purpose(), &spec.context, key.as_mut());
                        Engine::Block(Box::new(Aes128::new(&key)))
                    }
                };
                KeyCodec {
                    key_id: k.id(),
                    engine,
                }
            })
            .collect();
        Ok(Codec { spec, keys })
    }

    /// The spec.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// The id of the current key (which encodes).
    pub fn current_key_id(&self) -> u32 {
        self.current().key_id
    }

    fn current(&self) -> &KeyCodec {
        self.keys.last().expect("a keyring is never empty")
    }

    fn key_index(&self, id: u32) -> Option<usize> {
        self.keys.iter().position(|k| k.key_id == id)
    }

    /// Parses a decimal id and checks that it can be encoded. A number too large for
    /// any id is reported with this codec's largest, like one too large for this codec.
    #[inline]
    pub fn parse_id(&self, text: &[u8]) -> Result<u64, InputError> {
        self.checked_id(decimal::parse_decimal(text))
    }

    /// [`Codec::parse_id`] of `buf[start..end]` (the same answer, read faster).
    #[inline(always)]
    pub(crate) fn parse_id_in(
        &self,
        buf: &[u8],
        start: usize,
        end: usize,
    ) -> Result<u64, InputError> {
        self.checked_id(decimal::parse_decimal_in(buf, start, end))
    }

    #[inline(always)]
    fn checked_id(&self, parsed: Result<u64, text::TextError>) -> Result<u64, InputError> {
        let id = parsed.map_err(|e| self.in_range(e))?;
        self.check_id(id).map(|()| id)
    }

    /// Parses a decimal nonce (stored-nonce form) and checks that it can be used.
    #[inline]
    pub fn parse_nonce(&self, text: &[u8]) -> Result<u64, InputError> {
        let nonce = decimal::parse_decimal(text).map_err(|e| self.in_range(e))?;
        self.check_nonce(nonce).map(|()| nonce)
    }

    /// `e`, with the range this codec allows when it is out of range.
    fn in_range(&self, e: text::TextError) -> InputError {
        match (e, self.spec.scheme) {
            (text::TextError::OutOfRange { .. }, Scheme::Uuid) => {
                text::TextError::OutOfRange { max: UUID_MAX }.into()
            }
            (e, _) => e.into(),
        }
    }

    /// Checks that `id` can be encoded.
    pub fn check_id(&self, id: u64) -> Result<(), InputError> {
        match self.spec.scheme {
            Scheme::Uuid if id > UUID_MAX => {
                Err(text::TextError::OutOfRange { max: UUID_MAX }.into())
            }
            Scheme::CycleWalk if self.spec.clear_bit < 64 && id >> self.spec.clear_bit & 1 == 1 => {
                Err(InputError::ReservedBit {
                    what: "id",
                    bit: self.spec.clear_bit,
                })
            }
            _ => Ok(()),
        }
    }

    /// Checks that `nonce` can be used (stored-nonce form).
    pub fn check_nonce(&self, nonce: u64) -> Result<(), InputError> {
        match self.spec.scheme {
            Scheme::Uuid if nonce > UUID_MAX => {
                Err(text::TextError::OutOfRange { max: UUID_MAX }.into())
            }
            Scheme::CycleWalk
                if self.spec.clear_bit >= 64 && nonce >> (self.spec.clear_bit - 64) & 1 == 1 =>
            {
                Err(InputError::ReservedBit {
                    what: "nonce",
                    bit: self.spec.clear_bit,
                })
            }
            _ => Ok(()),
        }
    }

    /// The largest nonce of the stored-nonce form, and a mask that random nonces are
    /// drawn through.
    pub fn nonce_mask(&self) -> u64 {
        match self.spec.scheme {
            Scheme::Uuid => UUID_MAX,
            Scheme::Aes128 => u64::MAX,
            Scheme::CycleWalk if self.spec.clear_bit >= 64 => !(1u64 << (self.spec.clear_bit - 64)),
            Scheme::CycleWalk => u64::MAX,
        }
    }

    /// Encodes `ids[i]` (with `nonces[i]` in the stored-nonce form; ignored otherwise)
    /// under the current key. Every id and nonce must have passed [`check_id`] and
    /// [`check_nonce`].
    ///
    /// [`check_id`]: Codec::check_id
    /// [`check_nonce`]: Codec::check_nonce
    pub fn encode_many(&self, ids: &[u64], nonces: &[u64], out: &mut [Block]) {
        assert_eq!(ids.len(), out.len());
        let stored = self.spec.form == Form::StoredNonce;
        if stored {
            assert_eq!(ids.len(), nonces.len());
        }
        for start in (0..ids.len()).step_by(BATCH_LIMIT) {
            let end = (start + BATCH_LIMIT).min(ids.len());
            let nonces = if stored { &nonces[start..end] } else { &[][..] };
            self.encode_chunk(&ids[start..end], nonces, &mut out[start..end]);
        }
    }

    fn encode_chunk(&self, ids: &[u64], nonces: &[u64], out: &mut [Block]) {
        let key = self.current();
        match &key.engine {
            Engine::Feistel(net) => {
                let mut ls = ids.to_vec();
                let mut rs = if nonces.is_empty() {
                    vec![0; ids.len()]
                } else {
                    nonces.to_vec()
                };
                net.encrypt_many(&mut ls, &mut rs);
                let kid = u64::from(key.key_id % (1 << KEY_ID_BITS));
                for ((o, l), r) in out.iter_mut().zip(ls).zip(rs) {
                    *o = pack_uuid(l, (kid << UUID_HALF_BITS) | r);
                }
            }
            Engine::Block(aes) => {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = join(ids[i], nonces.get(i).copied().unwrap_or(0));
                }
                aes.encrypt_blocks(out);
                if self.spec.scheme == Scheme::CycleWalk {
                    self.walk(aes, out, true);
                }
            }
        }
    }

    /// Re-encrypts (or re-decrypts) every block with the clear bit set until none is.
    fn walk(&self, aes: &Aes128, blocks: &mut [Block], forwards: bool) {
        let bit = self.spec.clear_bit;
        let set = |b: &Block| b[(bit / 8) as usize] >> (bit % 8) & 1 == 1;
        let mut pending: Vec<usize> = (0..blocks.len()).filter(|&i| set(&blocks[i])).collect();
        let mut work: Vec<Block> = Vec::with_capacity(pending.len());
        while !pending.is_empty() {
            work.clear();
            work.extend(pending.iter().map(|&i| blocks[i]));
            if forwards {
                aes.encrypt_blocks(&mut work);
            } else {
                aes.decrypt_blocks(&mut work);
            }
            for (&i, w) in pending.iter().zip(&work) {
                blocks[i] = *w;
            }
            pending.retain(|&i| set(&blocks[i]));
        }
    }

    /// Decodes `input[i]` into `ids[i]` and `nonces[i]` (the stored nonce; 0 in the
    /// deterministic form), or sets `errors[i]`. `key_id` picks the key for forms that
    /// cannot tell (stored-nonce block schemes; default: current).
    pub fn decode_many(
        &self,
        input: &[Block],
        key_id: Option<u32>,
        ids: &mut [u64],
        nonces: &mut [u64],
        errors: &mut [Option<InputError>],
    ) {
        let n = input.len();
        assert!(ids.len() == n && nonces.len() == n && errors.len() == n);
        for start in (0..n).step_by(BATCH_LIMIT) {
            let end = (start + BATCH_LIMIT).min(n);
            self.decode_chunk(
                &input[start..end],
                key_id,
                &mut ids[start..end],
                &mut nonces[start..end],
                &mut errors[start..end],
            );
        }
    }

    fn decode_chunk(
        &self,
        input: &[Block],
        key_id: Option<u32>,
        ids: &mut [u64],
        nonces: &mut [u64],
        errors: &mut [Option<InputError>],
    ) {
        let forced = match key_id {
            Some(id) => match self.key_index(id) {
                Some(i) => Some(i),
                None => {
                    errors.fill(Some(InputError::NoSuchKey(id)));
                    return;
                }
            },
            None => None,
        };
        match self.spec.scheme {
            Scheme::Uuid => self.decode_uuids(input, forced, ids, nonces, errors),
            Scheme::Aes128 | Scheme::CycleWalk => {
                errors.fill(None);
                self.decode_blocks(input, forced, ids, nonces, errors)
            }
        }
    }

    /// The key that decodes UUIDs carrying these key-id bits.
    fn uuid_key(&self, bits: u32, forced: Option<usize>) -> Option<usize> {
        let matches = |k: &KeyCodec| k.key_id % (1 << KEY_ID_BITS) == bits;
        match forced {
            Some(k) => matches(&self.keys[k]).then_some(k),
            None => self.keys.iter().rposition(matches),
        }
    }

    fn decode_uuids(
        &self,
        input: &[Block],
        forced: Option<usize>,
        ids: &mut [u64],
        nonces: &mut [u64],
        errors: &mut [Option<InputError>],
    ) {
        // Unpack into the output arrays and decrypt there, in place. Slots with errors
        // hold harmless values.
        let mut key: Option<usize> = None;
        let mut mixed = false;
        for (i, b) in input.iter().enumerate() {
            let unpacked = unpack_uuid(b);
            let (l, low) = unpacked.unwrap_or((0, 0));
            ids[i] = l;
            nonces[i] = low & UUID_MAX;
            let bits = (low >> UUID_HALF_BITS) as u32;
            errors[i] = if unpacked.is_none() {
                Some(InputError::NotV8)
            } else if key.is_some_and(|k| self.keys[k].key_id % (1 << KEY_ID_BITS) == bits) {
                None
            } else {
                match self.uuid_key(bits, forced) {
                    Some(k) => {
                        mixed |= key.is_some_and(|prev| prev != k);
                        key = Some(k);
                        None
                    }
                    None => Some(InputError::UnknownKey { bits }),
                }
            };
        }
        let Some(key) = key else { return };
        let det = self.spec.form == Form::Deterministic;
        let net_of = |k: usize| match &self.keys[k].engine {
            Engine::Feistel(net) => net,
            Engine::Block(_) => unreachable!("uuid scheme has Feistel engines"),
        };
        if !mixed {
            // The common case: one key for the whole batch.
            net_of(key).decrypt_many(ids, nonces);
        } else {
            let which: Vec<Option<usize>> = input
                .iter()
                .map(|b| {
                    let (_, low) = unpack_uuid(b)?;
                    self.uuid_key((low >> UUID_HALF_BITS) as u32, forced)
                })
                .collect();
            let mut used: Vec<usize> = which.iter().flatten().copied().collect();
            used.sort_unstable();
            used.dedup();
            for k in used {
                let idx: Vec<usize> = (0..input.len()).filter(|&i| which[i] == Some(k)).collect();
                let (mut l2, mut r2): (Vec<u64>, Vec<u64>) =
                    idx.iter().map(|&i| (ids[i], nonces[i])).unzip();
                net_of(k).decrypt_many(&mut l2, &mut r2);
                for ((&i, l), r) in idx.iter().zip(l2).zip(r2) {
                    ids[i] = l;
                    nonces[i] = r;
                }
            }
        }
        if det {
            for i in 0..input.len() {
                if errors[i].is_none() && nonces[i] != 0 {
                    errors[i] = Some(InputError::Forged);
                }
            }
        }
    }

    fn decode_blocks(
        &self,
        input: &[Block],
        forced: Option<usize>,
        ids: &mut [u64],
        nonces: &mut [u64],
        errors: &mut [Option<InputError>],
    ) {
        let bit = self.spec.clear_bit;
        let walking = self.spec.scheme == Scheme::CycleWalk;
        let det = self.spec.form == Form::Deterministic;
        let mut pending: Vec<usize> = Vec::with_capacity(input.len());
        for (i, b) in input.iter().enumerate() {
            if walking && b[(bit / 8) as usize] >> (bit % 8) & 1 == 1 {
                errors[i] = Some(InputError::BitSet(bit));
            } else {
                pending.push(i);
            }
        }
        // Deterministic forms try the keys newest first until the check passes;
        // the others use one key.
        let order: Vec<usize> = match (forced, det) {
            (Some(k), _) => vec![k],
            (None, true) => (0..self.keys.len()).rev().collect(),
            (None, false) => vec![self.keys.len() - 1],
        };
        let mut work: Vec<Block> = Vec::with_capacity(pending.len());
        for k in order {
            if pending.is_empty() {
                break;
            }
            let Engine::Block(aes) = &self.keys[k].engine else {
                unreachable!("block schemes have block engines")
            };
            work.clear();
            work.extend(pending.iter().map(|&i| input[i]));
            aes.decrypt_blocks(&mut work);
            if walking {
                self.walk(aes, &mut work, false);
            }
            let mut still = Vec::new();
            for (&i, w) in pending.iter().zip(&work) {
                let id = u64::from_le_bytes(w[..8].try_into().expect("8 bytes"));
                let nonce = u64::from_le_bytes(w[8..].try_into().expect("8 bytes"));
                if det && nonce != 0 {
                    still.push(i);
                } else {
                    ids[i] = id;
                    nonces[i] = nonce;
                }
            }
            pending = still;
        }
        for i in pending {
            errors[i] = Some(InputError::Forged);
        }
    }

    /// Encodes one id (and nonce, in the stored-nonce form). The same bytes as
    /// [`encode_many`](Codec::encode_many), without its batch set-up: one network or
    /// block on the stack, so that a single call costs about what the chained benchmark
    /// path does.
    #[inline]
    pub fn encode(&self, id: u64, nonce: u64) -> Result<Block, InputError> {
        self.check_id(id)?;
        let stored = self.spec.form == Form::StoredNonce;
        if stored {
            self.check_nonce(nonce)?;
        }
        let nonce = if stored { nonce } else { 0 };
        let key = self.current();
        Ok(match &key.engine {
            Engine::Feistel(net) => {
                let (l, r) = net.encrypt(id, nonce);
                let kid = u64::from(key.key_id % (1 << KEY_ID_BITS));
                pack_uuid(l, (kid << UUID_HALF_BITS) | r)
            }
            Engine::Block(aes) => {
                let mut w = aes.encrypt_words(id, nonce);
                if self.spec.scheme == Scheme::CycleWalk {
                    while self.clear_bit_set_in(w) {
                        w = aes.encrypt_words(w.0, w.1);
                    }
                }
                join(w.0, w.1)
            }
        })
    }

    /// Whether the bit cycle walking keeps clear is set in `b`.
    #[inline]
    fn clear_bit_set(&self, b: &Block) -> bool {
        self.clear_bit_set_in(split(b))
    }

    /// As [`clear_bit_set`](Codec::clear_bit_set), for a block as its two words.
    #[inline]
    fn clear_bit_set_in(&self, (lo, hi): (u64, u64)) -> bool {
        let bit = self.spec.clear_bit;
        let word = if bit < 64 { lo } else { hi };
        word >> (bit % 64) & 1 == 1
    }

    /// Decodes one encoded id into (id, nonce), with the same checks and answers as
    /// [`decode_many`](Codec::decode_many) without a key id.
    #[inline]
    pub fn decode(&self, block: &Block) -> Result<(u64, u64), InputError> {
        let det = self.spec.form == Form::Deterministic;
        match self.spec.scheme {
            Scheme::Uuid => {
                let (l, low) = unpack_uuid(block).ok_or(InputError::NotV8)?;
                let bits = (low >> UUID_HALF_BITS) as u32;
                let k = self
                    .uuid_key(bits, None)
                    .ok_or(InputError::UnknownKey { bits })?;
                let Engine::Feistel(net) = &self.keys[k].engine else {
                    unreachable!("uuid scheme has Feistel engines")
                };
                let (id, r) = net.decrypt(l, low & UUID_MAX);
                if det && r != 0 {
                    return Err(InputError::Forged);
                }
                Ok((id, r))
            }
            Scheme::Aes128 | Scheme::CycleWalk => {
                let walking = self.spec.scheme == Scheme::CycleWalk;
                if walking && self.clear_bit_set(block) {
                    return Err(InputError::BitSet(self.spec.clear_bit));
                }
                // Deterministic: every key, newest first, until the check passes.
                let tried = if det { self.keys.len() } else { 1 };
                for key in self.keys.iter().rev().take(tried) {
                    let Engine::Block(aes) = &key.engine else {
                        unreachable!("block schemes have block engines")
                    };
                    let (lo, hi) = split(block);
                    let (mut id, mut second) = aes.decrypt_words(lo, hi);
                    if walking {
                        while self.clear_bit_set_in((id, second)) {
                            (id, second) = aes.decrypt_words(id, second);
                        }
                    }
                    if !det || second == 0 {
                        return Ok((id, second));
                    }
                }
                Err(InputError::Forged)
            }
        }
    }

    /// Runs `n` encodes in a dependent chain (each input is derived from the previous
    /// output) and returns the last output's first 8 bytes: one encode's latency, for
    /// benchmarks. The AES implementation is chosen once, outside the chain.
    pub fn encode_chain(&self, start: u64, n: u64) -> u64 {
        match &self.current().engine {
            Engine::Feistel(net) => net.chain(start, n),
            Engine::Block(aes) => {
                let walking = self.spec.scheme == Scheme::CycleWalk;
                let bit = self.spec.clear_bit;
                block_chain(aes, start, n, walking.then_some(bit), true)
            }
        }
    }

    /// As [`encode_chain`](Codec::encode_chain), for decodes.
    pub fn decode_chain(&self, start: u64, n: u64) -> u64 {
        match &self.current().engine {
            Engine::Feistel(net) => net.chain_back(start, n),
            Engine::Block(aes) => {
                let walking = self.spec.scheme == Scheme::CycleWalk;
                let bit = self.spec.clear_bit;
                block_chain(aes, start, n, walking.then_some(bit), false)
            }
        }
    }
}

fn block_chain(aes: &Aes128, start: u64, n: u64, walk_bit: Option<u32>, forwards: bool) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if let Some(s) = aes.ni() {
        // SAFETY: a schedule exists only when the CPU has AES-NI and SSE4.1.
        #[allow(unsafe_code)]
        return unsafe { fast::block_chain(s, start, n, walk_bit, forwards) };
    }
    let mut x = start;
    for _ in 0..n {
        let mut b = join(x, 0);
        loop {
            b = if forwards {
                aes.encrypt_block(&b)
            } else {
                aes.decrypt_block(&b)
            };
            match walk_bit {
                Some(bit) if b[(bit / 8) as usize] >> (bit % 8) & 1 == 1 => continue,
                _ => break,
            }
        }
        x = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    }
    x
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod fast {
    use crate::block::ni::{Schedule, dec_after_first, enc_after_first};
    use std::arch::x86_64::*;

    /// The block chain in vector registers: each pass's input is the previous output's
    /// first 8 bytes with 8 zero bytes, kept in an XMM register (a mask and an XOR with
    /// the first round key), so the chain measures the cipher, not register transfers.
    #[target_feature(enable = "aes,sse4.1")]
    pub(super) unsafe fn block_chain(
        s: &Schedule,
        start: u64,
        n: u64,
        walk_bit: Option<u32>,
        forwards: bool,
    ) -> u64 {
        // SAFETY: this function has AES-NI and SSE4.1 enabled.
        unsafe {
            let keep_low = _mm_set_epi64x(0, -1);
            let k0 = if forwards {
                s.first_key()
            } else {
                s.first_dec_key()
            };
            let bit = match walk_bit {
                Some(b) if b < 64 => _mm_set_epi64x(0, (1u64 << b) as i64),
                Some(b) => _mm_set_epi64x((1u64 << (b - 64)) as i64, 0),
                None => _mm_setzero_si128(),
            };
            let mut x = _mm_cvtsi64_si128(start as i64);
            for _ in 0..n {
                let mut b = _mm_xor_si128(_mm_and_si128(x, keep_low), k0);
                loop {
                    b = if forwards {
                        enc_after_first(s, b)
                    } else {
                        dec_after_first(s, b)
                    };
                    if _mm_testz_si128(b, bit) == 1 {
                        break;
                    }
                    b = _mm_xor_si128(b, k0);
                }
                x = b;
            }
            _mm_cvtsi128_si64(x) as u64
        }
    }
}

/// Packs a 60-bit left half and the 62 low bits (key id and right half) into a
/// version-8 UUID, big-endian: `L[59:12] ‖ 0b1000 ‖ L[11:0] ‖ 0b10 ‖ low[61:0]`.
pub fn pack_uuid(l: u64, low62: u64) -> Block {
    let l = u128::from(l & UUID_MAX);
    let v = ((l >> 12) << 80)
        | (0x8u128 << 76)
        | ((l & 0xfff) << 64)
        | (0b10u128 << 62)
        | u128::from(low62 & ((1 << 62) - 1));
    v.to_be_bytes()
}

/// Unpacks a version-8 UUID into its 60-bit left half and 62 low bits, or `None` when the
/// version or variant bits are wrong.
pub fn unpack_uuid(b: &Block) -> Option<(u64, u64)> {
    let v = u128::from_be_bytes(*b);
    if (v >> 76) & 0xf != 8 || (v >> 62) & 0b11 != 0b10 {
        return None;
    }
    let l = (((v >> 80) as u64) << 12) | ((v >> 64) as u64 & 0xfff);
    Some((l, v as u64 & ((1 << 62) - 1)))
}

#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;
