# Independent reader of docs/RECORDS-FORMAT.md (versions 2 and 1), written from that
# document and docs/KEYS.md alone: opens a record file with a keyring (or a passphrase)
# and prints its records as `veilkit records open` does, or looks keys up through the
# token index as `veilkit records get` does.
#
#   python3 records.py FILE --key-file KEYS [--get KEY ...]
#   python3 records.py FILE --passphrase-file FILE [--get KEY ...]
#   python3 records.py FILE --identity AGE-IDENTITY-FILE [--get KEY ...]
#
# Needs: pip install cryptography xxhash zstandard
import argparse, hashlib, hmac, struct, sys
import xxhash, zstandard
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV

# --- docs/KEYS.md -------------------------------------------------------------------

def read_keyring(text):
    ring = []
    for line in text.split("\n"):
        line = line.strip(" \t\r")
        if not line or line.startswith("#"):
            continue
        tag, kid, key, check = line.split(":")
        assert tag == "veilkit-key-1", "not a veilkit key"
        want = hashlib.sha256(f"veilkit-key-1:{kid}:{key.lower()}".encode()).digest()[:4]
        assert want.hex() == check.lower(), "key checksum"
        ring.append((int(kid), bytes.fromhex(key)))
    return ring

def lp(b):
    return struct.pack(">I", len(b)) + b

def derive(master, key_id, purpose, context, length):
    info = lp(b"veilkit-v1") + lp(purpose.encode()) + lp(context) + struct.pack(">II", key_id, length)
    prk = hmac.new(b"veilkit/hkdf/v1", master, hashlib.sha256).digest()
    okm, t, i = b"", b"", 1
    while len(okm) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        okm += t
        i += 1
    return okm[:length]

# --- reading helpers ----------------------------------------------------------------

class Reader:
    def __init__(self, b, at=0):
        self.b, self.at = b, at
    def take(self, n):
        if self.at + n > len(self.b):
            raise ValueError("cut off")
        out = self.b[self.at:self.at + n]
        self.at += n
        return out
    def u8(self): return self.take(1)[0]
    def u16(self): return struct.unpack("<H", self.take(2))[0]
    def u32(self): return struct.unpack("<I", self.take(4))[0]
    def u64(self): return struct.unpack("<Q", self.take(8))[0]
    def varint(self):
        value = 0
        for shift in range(0, 70, 7):
            byte = self.u8()
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
        raise ValueError("varint longer than 10 bytes")

def ref(r):
    return (r.u64(), r.u64(), r.u64())  # physical, generation, count

def siv_open(key, nonce, sealed, aad):
    return AESGCMSIV(key).decrypt(nonce, sealed, aad)

# --- header copies ------------------------------------------------------------------

KEYRING, PASSPHRASE, RECIPIENT = 1, 2, 3

def parse_copy(data, at):
    """The fields of the header copy at offset `at` (version 2 or 1) if its checksum holds."""
    try:
        version, size = struct.unpack("<I", data[at + 8:at + 12])[0], 65536
        if version == 2:
            size = struct.unpack("<I", data[at + 16:at + 20])[0]
        return parse_fields(data[at:at + size])
    except (ValueError, struct.error, KeyError):
        return None

def parse_fields(copy):
    r = Reader(copy)
    if r.take(8) != b"VKRECORD":
        return None
    version = r.u32()
    h = {"version": version}
    if version == 2:
        h["P"], h["H"], used = r.u32(), r.u32(), r.u32()
        if used > len(copy) or used < 60:
            return None
        if xxhash.xxh3_64_intdigest(copy[:used - 8]) != struct.unpack("<Q", copy[used - 8:used])[0]:
            return None
        h["file_id"], h["seq"] = r.take(16), r.u64()
        n = r.u8()
        r.take(3)
        slots = []
        for _ in range(n):
            kind, length = r.u8(), r.u16()
            slots.append((kind, r.take(length)))
        h["slots"] = slots
        h["root_nonce"] = r.take(12)
        h["root_sealed"] = copy[r.at:used - 8]
        # The AAD is the copy's bytes before the root ciphertext, the nonce included.
        h["root_aad"] = b"veilkit-records-root" + copy[:r.at]
    elif version == 1:
        h["P"] = r.u32()
        h["H"] = 65536
        h["file_id"], h["seq"] = r.take(16), r.u64()
        n = r.u8()
        r.take(7)
        slots = []
        for i in range(16):
            raw = copy[r.at + 128 * i:r.at + 128 * (i + 1)]
            if i < n:
                head, wrapped = raw[:40], raw[40:100]
                kind = head[0]
                params = {KEYRING: 12, PASSPHRASE: 28}[kind]
                slots.append((kind, head[1:1 + params] + wrapped))
        h["slots"] = slots
        root_len = struct.unpack("<I", copy[2096:2100])[0]
        end = 2112 + root_len
        if end + 8 > len(copy):
            return None
        if xxhash.xxh3_64_intdigest(copy[:end]) != struct.unpack("<Q", copy[-8:])[0]:
            return None
        h["root_nonce"] = copy[2100:2112]
        h["root_sealed"] = copy[2112:end]
        h["root_aad"] = b"veilkit-records-root" + copy[:2096]
    else:
        return None
    return h

def unwrap(h, secrets):
    """The data key, from the first slot the secrets open."""
    for kind, body in h["slots"]:
        params_len = {KEYRING: 12, PASSPHRASE: 28, RECIPIENT: 32}[kind]
        params = body[:params_len]
        head = (bytes([kind]) + params).ljust(40, b"\0")
        wrapped = body[-60:]
        keks = []
        if kind == KEYRING and "ring" in secrets:
            key_id, fingerprint = struct.unpack("<I", params[:4])[0], params[4:12]
            for kid, master in secrets["ring"]:
                if kid == key_id and derive(master, kid, "fingerprint", b"", 8) == fingerprint:
                    keks.append(derive(master, kid, "records/slot", h["file_id"], 32))
        if kind == PASSPHRASE and "passphrase" in secrets:
            from cryptography.hazmat.primitives.kdf.argon2 import Argon2id
            m, t, p = struct.unpack("<III", params[:12])
            keks.append(Argon2id(salt=params[12:28], length=32, iterations=t, lanes=p,
                                 memory_cost=m).derive(secrets["passphrase"]))
        if kind == RECIPIENT and "identity" in secrets:
            keks.extend(recipient_kek(secrets["identity"], params, body[32:64], body[64:96], h["file_id"]))
        for kek in keks:
            try:
                return siv_open(kek, wrapped[:12], wrapped[12:],
                                b"veilkit-records-slot" + h["file_id"] + head)
            except Exception:
                pass
    return None

BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

def bech32_decode(text):
    """The data bytes of a Bech32 string (BIP 173), its checksum verified."""
    text = text.strip().lower()
    hrp, data = text[:text.rindex("1")], [BECH32.index(c) for c in text[text.rindex("1") + 1:]]
    chk = 1
    for v in [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp] + data:
        top, chk = chk >> 25, (chk & 0x1FFFFFF) << 5 ^ v
        for i, g in enumerate([0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]):
            chk ^= g if (top >> i) & 1 else 0
    assert chk == 1, "bad Bech32 checksum"
    bits, acc, out = 0, 0, bytearray()
    for v in data[:-6]:
        acc, bits = acc << 5 | v, bits + 5
        if bits >= 8:
            bits -= 8
            out.append(acc >> bits & 0xFF)
    return hrp, bytes(out)

def recipient_kek(identity_text, recipient, share, body, file_id):
    """age's X25519 stanza opened with an identity, then the slot's KEK (none if not ours)."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    from cryptography.hazmat.primitives import hashes, serialization
    for line in identity_text.splitlines():
        if not line.startswith("AGE-SECRET-KEY-1"):
            continue
        hrp, scalar = bech32_decode(line)
        me = X25519PrivateKey.from_private_bytes(scalar)
        mine = me.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        if mine != recipient:
            continue
        secret = me.exchange(X25519PublicKey.from_public_bytes(share))
        wrap = HKDF(hashes.SHA256(), 32, share + recipient, b"age-encryption.org/v1/X25519").derive(secret)
        file_key = ChaCha20Poly1305(wrap).decrypt(bytes(12), body, None)
        return [derive(file_key, 0, "records/slot-x25519", file_id, 32)]
    return []

def open_file(data, secrets, previous_commit=False):
    """(header, root, pages key, tokens key) of the current copy."""
    a = parse_copy(data, 0)
    if a:
        b = parse_copy(data, a["H"])
    else:
        # Copy A fails its checks: copy B is where a copy names its own offset as H.
        b = None
        for at in (4096, 65536):
            c = parse_copy(data, at)
            if c and c["H"] == at:
                b = c
                break
    copies = sorted((c for c in (a, b) if c), key=lambda c: -c["seq"])
    # The data key: from the slots of the copy with the highest sequence that the
    # secrets open; then the current copy is the valid one (root authenticates) with the
    # highest sequence.
    dk = next((k for k in (unwrap(c, secrets) for c in copies) if k is not None), None)
    if dk is None:
        raise SystemExit("no key slot opens with the secrets given")
    pages_key = derive(dk, 0, "records/pages", b"", 32)
    valid = []
    for h in copies:
        try:
            valid.append((h, siv_open(pages_key, h["root_nonce"], h["root_sealed"], h["root_aad"])))
        except Exception:
            pass
    if not valid:
        raise SystemExit("neither header copy passes its checks")
    h, root = valid[0]
    if len(valid) == 1 and h["version"] == 1 and not previous_commit:
        # Version 1 wrote one copy per commit: the other may have held the last commit.
        raise SystemExit("a header copy is damaged and this version-1 file cannot tell "
                         "whether the other holds the last commit (--previous-commit)")
    return h, root, pages_key, derive(dk, 0, "records/tokens", b"", 32)

def parse_root(root, version):
    r = Reader(root)
    f = {"records": r.u64(), "next": r.u64(), "generation": r.u64(), "allocated": r.u64(),
         "format": r.u8(), "header_row": r.u8()}
    if version == 2:
        f["key_field"] = r.take(r.u16())
        f["B"] = r.u32()
        f["T"], f["W"] = r.u8(), r.u8()
        f["compression"] = r.u8()
        if f["compression"] == 2:
            f["level"], f["dictionary"] = r.u8(), ref(r)
        f["prefix"] = ref(r) if r.u8() == 1 else None
        lists = []
        for _ in range(2):
            depth, n = r.u8(), r.u16()
            lists.append((depth, [ref(r) for _ in range(n)]))
        f["data"], f["index"] = lists
    else:
        f["key_field"] = r.take(r.u32())
        f["B"] = r.u32()
        f["T"], f["W"], f["compression"] = 4, 4, 0
        f["prefix"] = ref(r) if r.u8() == 1 else None
        lists = []
        for _ in range(2):
            n = r.u32()
            lists.append((1, [ref(r) for _ in range(n)]))
        f["data"], f["index"] = lists
    return f

# --- pages --------------------------------------------------------------------------

DATA, INDEX, DATA_DIR, INDEX_DIR, PREFIX, DICT = 1, 2, 3, 4, 5, 6

class File:
    def __init__(self, path, secrets, previous_commit=False):
        self.data = open(path, "rb").read()
        h, root, self.pages_key, self.tokens_key = open_file(self.data, secrets, previous_commit)
        self.h = h
        self.P, self.H, self.file_id = h["P"], h["H"], h["file_id"]
        self.root = parse_root(root, h["version"])
        self.zstd = zstandard.ZstdDecompressor()
        if self.root["compression"] == 2:
            # Record compression 2: the dictionary, count pages from physical on.
            physical, generation, count = self.root["dictionary"]
            d = b""
            for j in range(count):
                rr = Reader(self.page(DICT, j, (physical + j, generation, 0)))
                d += rr.take(rr.u32())
            self.zstd = zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(d))

    def page(self, kind, logical, r):
        physical, generation, _count = r
        at = 2 * self.H + physical * self.P
        raw = self.data[at:at + self.P]
        if len(raw) != self.P:
            raise SystemExit("a page is missing: the file is cut off")
        aad = b"VKRP" + self.file_id + bytes([kind]) + struct.pack("<QQ", logical, generation)
        return siv_open(self.pages_key, raw[:12], raw[12:], aad)

    def leaves(self, which):
        """The refs of the data (or index) pages, in logical order."""
        depth, refs = self.root[which]
        dir_kind = DATA_DIR if which == "data" else INDEX_DIR
        level = depth
        while level > 0:
            children = []
            # Positions within a level run on across that level's directories.
            for j, r in enumerate(refs):
                plain = self.page(dir_kind, ((level - 1) << 56) + j, r)
                rr = Reader(plain)
                for _ in range(rr.u16()):
                    children.append((rr.u64(), rr.u64(), rr.u32()))
            refs = children
            level -= 1
        return refs

    def data_page(self, logical, r):
        plain = self.page(DATA, logical, r)
        if self.root["compression"] in (1, 2):
            rr = Reader(plain)
            method, length = rr.u8(), rr.u32()
            body = rr.take(length)
            if method == 1:
                plain = self.zstd.decompress(body, max_output_size=16 * self.P)
            elif method == 0:
                plain = body
            else:
                raise SystemExit("a page compressed by a newer veilkit")
        rr = Reader(plain)
        out = []
        for _ in range(rr.u16()):
            lead = rr.varint()
            if lead >> 1 == 0:
                # A line (record compression 2): its bytes run through the first LF.
                end = rr.b.find(b"\n", rr.at)
                if end < 0:
                    raise SystemExit("a data page does not parse")
                raw = rr.take(end + 1 - rr.at)
            else:
                raw = rr.take(lead >> 1)
            if lead & 1:
                key = rr.take(rr.varint())
            else:
                off, klen = rr.varint(), rr.varint()
                key = raw[off:off + klen]
            out.append((raw, key))
        return out

    def prefix(self):
        if self.root["prefix"] is None:
            return b""
        rr = Reader(self.page(PREFIX, 0, self.root["prefix"]))
        return rr.take(rr.u32())

    def open(self, out):
        out.write(self.prefix())
        pending_end = False
        for logical, r in enumerate(self.leaves("data")):
            for raw, _key in self.data_page(logical, r):
                if pending_end:
                    out.write(b"\n")
                out.write(raw)
                pending_end = not raw.endswith(b"\n")

    def get(self, key):
        data = self.leaves("data")
        B, T, W = self.root["B"], self.root["T"], self.root["W"]
        if B == 0:
            candidates = range(len(data))
        else:
            token = struct.unpack("<Q", hmac.new(self.tokens_key, key, hashlib.sha256).digest()[:8])[0]
            bucket, tag = (token * B) >> 64, token % (1 << (8 * T))
            index = self.leaves("index")
            candidates, page = [], bucket
            while page != 0xFFFFFFFF:
                rr = Reader(self.page(INDEX, page, index[page]))
                count, page = rr.u16(), rr.u32()
                for _ in range(count):
                    t = int.from_bytes(rr.take(T), "little")
                    d = int.from_bytes(rr.take(W), "little")
                    if t == tag:
                        candidates.append(d)
        for d in candidates:
            for raw, k in self.data_page(d, data[d]):
                if k == key:
                    return raw
        return None

def read_secrets(key_file, passphrase_file, identity=None):
    """The secrets named on the command line: a keyring, a passphrase (the file's first
    line), an age identity file."""
    secrets = {}
    if key_file:
        secrets["ring"] = read_keyring(open(key_file, encoding="utf-8").read())
    if passphrase_file:
        secrets["passphrase"] = open(passphrase_file, "rb").read().rstrip(b"\r\n")
    if identity:
        secrets["identity"] = open(identity, encoding="utf-8").read()
    return secrets

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--key-file")
    ap.add_argument("--passphrase-file")
    ap.add_argument("--identity", help="an age identity file (AGE-SECRET-KEY-1...)")
    ap.add_argument("--get", nargs="*")
    ap.add_argument("--previous-commit", action="store_true")
    a = ap.parse_args()
    secrets = read_secrets(a.key_file, a.passphrase_file, a.identity)
    f = File(a.file, secrets, a.previous_commit)
    out = sys.stdout.buffer
    if a.get is None:
        f.open(out)
    else:
        for key in a.get:
            raw = f.get(key.encode())
            if raw is None:
                out.write(b"\n")
            else:
                out.write(raw if raw.endswith(b"\n") else raw + b"\n")

if __name__ == "__main__":
    main()
