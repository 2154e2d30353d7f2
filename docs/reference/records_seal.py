# Independent writer of docs/RECORDS-FORMAT.md (version 2), written from that document
# and docs/KEYS.md alone: seals a file of lines, of TSV rows (no header row), of CSV
# rows (RFC 4180, with a header row, keyed by a column's name) or of JSON lines (keyed by
# a member) into a record file with a keyring slot and/or a passphrase slot, its data pages plain or
# Zstandard-compressed, as `veilkit records seal --no-header` would (its nonces, file id,
# salt and data key are its own random ones). The test suite has veilkit verify, open,
# get from, append to and delete from what it writes.
#
#   python3 records_seal.py INPUT -o FILE [--key-file KEYS] [--passphrase-file FILE]
#                           [--tsv-key N | --csv-key NAME | --json-key NAME]
#                           [--page-size P] [--compress]
#
# Needs: pip install cryptography xxhash zstandard
import argparse, functools, hashlib, hmac, json, math, os, struct
import xxhash, zstandard
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV
from cryptography.hazmat.primitives.kdf.argon2 import Argon2id
from records import derive, read_secrets

DATA, INDEX, DATA_DIR, INDEX_DIR, PREFIX = 1, 2, 3, 4, 5
H = 4096
GENERATION = 1  # sealing is the file's first commit: sequence 1, every page generation 1

def varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)

def split_lines(data):
    lines, at = [], 0
    while at < len(data):
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end + 1
        lines.append(data[at:end])
        at = end
    return lines

def csv_records(data):
    """RFC 4180 records: a line end inside quotes belongs to the record."""
    out, start, quoted = [], 0, False
    for i, c in enumerate(data):
        if c == 0x22:
            quoted = not quoted
        elif c == 0x0A and not quoted:
            out.append(data[start:i + 1])
            start = i + 1
    if start < len(data):
        out.append(data[start:])
    return out

def csv_fields(raw):
    """A CSV record's fields: (value, offset of the value in raw when it is a plain slice
    of raw, else None: a quoted field with doubled quotes)."""
    line = raw[:-1] if raw.endswith(b"\n") else raw
    line = line[:-1] if line.endswith(b"\r") else line
    fields, at = [], 0
    while True:
        if line[at:at + 1] == b'"':
            end, value, plain = at + 1, bytearray(), True
            while True:
                q = line.index(b'"', end)
                value += line[end:q]
                if line[q + 1:q + 2] == b'"':
                    value += b'"'
                    plain, end = False, q + 2
                else:
                    end = q + 1
                    break
            fields.append((bytes(value), at + 1 if plain else None))
        else:
            end = line.find(b",", at)
            end = len(line) if end < 0 else end
            fields.append((line[at:end], at))
        if end >= len(line):
            return fields
        at = end + 1

def json_key(raw, name):
    """A JSON line's key: the member's string value (escapes undone, UTF-8), or a number
    or boolean as written."""
    def pairs(items):
        names = [k for k, _ in items]
        assert len(set(names)) == len(names), "a member named twice"
        return dict(items)
    value = json.loads(raw, object_pairs_hook=pairs, parse_int=str, parse_float=str)
    v = value[name]
    if v is True or v is False:
        return b"true" if v else b"false"
    # parse_int and parse_float hand a number over as its text, as written.
    assert isinstance(v, str), "a key member that is null, an array or an object"
    return v.encode()

def encode_record(raw, key, key_at):
    """A data page's record: `own` = 0 (key_at: offset of the key in raw) or 1."""
    if key_at is None:
        return varint(len(raw) * 2 + 1) + raw + varint(len(key)) + key
    return varint(len(raw) * 2) + raw + varint(key_at) + varint(len(key))

class Writer:
    def __init__(self, out, P, pages_key, file_id):
        self.out, self.P, self.pages_key, self.file_id = out, P, pages_key, file_id
        self.next_physical = 0

    def write(self, kind, logical, plain, count):
        """Seals a page into the next physical page; returns its ref."""
        assert len(plain) <= self.P - 28
        plain = plain.ljust(self.P - 28, b"\0")
        nonce = os.urandom(12)
        aad = b"VKRP" + self.file_id + bytes([kind]) + struct.pack("<QQ", logical, GENERATION)
        page = nonce + AESGCMSIV(self.pages_key).encrypt(nonce, plain, aad)
        physical = self.next_physical
        self.out.seek(2 * H + physical * self.P)
        self.out.write(page)
        self.next_physical += 1
        return (physical, GENERATION, count)

    def tree(self, dir_kind, leaves):
        """A list (depth, refs kept in the root) over `leaves`, writing its directories."""
        C = (self.P - 30) // 20
        depth, refs = 0, leaves
        while len(refs) > 32:
            depth += 1
            level = []
            for j in range(0, len(refs), C):
                chunk = refs[j:j + C]
                plain = struct.pack("<H", len(chunk)) + b"".join(
                    struct.pack("<QQI", p, g, c) for p, g, c in chunk)
                logical = ((depth - 1) << 56) + j // C
                level.append(self.write(dir_kind, logical, plain, sum(c for _, _, c in chunk)))
            refs = level
        return depth, refs

def page_body(recs, compress):
    """A data page's plaintext (before padding): u16 count and records, or with
    compression `method || length || bytes` around that layout."""
    body = struct.pack("<H", len(recs)) + b"".join(recs)
    if not compress:
        return body
    frame = zstandard.ZstdCompressor(level=3).compress(body)
    if len(frame) < len(body):
        return struct.pack("<BI", 1, len(frame)) + frame
    return struct.pack("<BI", 0, len(body)) + body

def wrap_slot(kind, params, kek, file_id, dk):
    """A slot as a header holds it: kind, body length, params || wrapped DK."""
    head = (bytes([kind]) + params).ljust(40, b"\0")
    nonce = os.urandom(12)
    wrapped = nonce + AESGCMSIV(kek).encrypt(nonce, dk, b"veilkit-records-slot" + file_id + head)
    body = params + wrapped
    return struct.pack("<BH", kind, len(body)) + body

def seal(records, fmt, key_field, P, secrets, compress, out, prefix=None, T=2):
    """records: (raw, key, key offset in raw or None) in order; fmt 1 lines, 2 CSV,
    3 TSV; secrets: a keyring and/or a passphrase, a slot each; prefix: the header row."""
    file_id, dk = os.urandom(16), os.urandom(32)
    pages_key = derive(dk, 0, "records/pages", b"", 32)
    tokens_key = derive(dk, 0, "records/tokens", b"", 32)
    w = Writer(out, P, pages_key, file_id)

    # Data pages: records back to back, as many as fit in P - 28 (once compressed, with
    # compression: the layout may hold at most 16·P bytes before compression).
    data, entries, page = [], [], []
    def fits(recs):
        if compress and 2 + sum(map(len, recs)) > 16 * P:
            return False
        return len(page_body(recs, compress)) <= P - 28
    def ship():
        data.append(w.write(DATA, len(data), page_body(page, compress), len(page)))
    for raw, key, key_at in records:
        rec = encode_record(raw, key, key_at)
        if page and not fits(page + [rec]):
            ship()
            page.clear()
        assert fits([rec]), "a record larger than a page"
        page.append(rec)
        token = struct.unpack("<Q", hmac.new(tokens_key, key, hashlib.sha256).digest()[:8])[0]
        entries.append((token, len(data)))
    if page:
        ship()

    # The index: none for at most 4 data pages.
    W, B, index = 1, 0, []
    if len(data) > 4:
        W = max(1, math.ceil((2 * len(data)).bit_length() / 8))
        E = (P - 34) // (T + W)
        B0 = B = max(1, math.ceil(len(records) / (E * 0.9)))
        # More buckets while one would overflow: 12 counts tried, else B0.
        for _ in range(12):
            counts = [0] * B
            for token, _d in entries:
                counts[(token * B) >> 64] += 1
            if max(counts) <= E:
                break
            B += B // 50 + 1
        else:
            B = B0
        buckets = [[] for _ in range(B)]
        for token, d in entries:
            buckets[(token * B) >> 64].append((token % (1 << (8 * T)), d))
        chains = []
        for b in buckets:
            b.sort()
            chains.append([b[i:i + E] for i in range(0, max(len(b), 1), E)])
        # Bucket pages 0 .. B-1, then overflow pages from B on, each chain in order.
        pages, overflow = [None] * B, []
        for b, chain in enumerate(chains):
            logicals = [b] + [B + len(overflow) + i for i in range(len(chain) - 1)]
            for i, part in enumerate(chain):
                nxt = logicals[i + 1] if i + 1 < len(chain) else 0xFFFFFFFF
                body = struct.pack("<HI", len(part), nxt) + b"".join(
                    t.to_bytes(T, "little") + d.to_bytes(W, "little") for t, d in part)
                if i == 0:
                    pages[b] = body
                else:
                    overflow.append(body)
        index = [w.write(INDEX, i, body, 0) for i, body in enumerate(pages + overflow)]

    data_list = w.tree(DATA_DIR, data)
    index_list = w.tree(INDEX_DIR, index)
    prefix_ref = None
    if prefix is not None:
        prefix_ref = w.write(PREFIX, 0, struct.pack("<I", len(prefix)) + prefix, 0)

    def lst(depth, refs):
        return struct.pack("<BH", depth, len(refs)) + b"".join(struct.pack("<QQQ", *r) for r in refs)
    root = struct.pack("<QQQQBB", len(records), len(records) + 1, GENERATION, w.next_physical,
                       fmt, 0 if prefix is None else 1)
    root += struct.pack("<H", len(key_field)) + key_field
    root += struct.pack("<IBBB", B, T, W, 1 if compress else 0)
    root += b"\0" if prefix_ref is None else b"\x01" + struct.pack("<QQQ", *prefix_ref)
    root += lst(*data_list) + lst(*index_list)

    slots = []
    if "ring" in secrets:
        # Keyring slot: key id || fingerprint of the ring's current (last) key.
        kid, master = secrets["ring"][-1]
        params = struct.pack("<I", kid) + derive(master, kid, "fingerprint", b"", 8)
        kek = derive(master, kid, "records/slot", file_id, 32)
        slots.append(wrap_slot(1, params, kek, file_id, dk))
    if "passphrase" in secrets:
        # Passphrase slot: Argon2id m, t, p and a random salt (small m: a test's cost).
        m, t, p, salt = 8192, 2, 1, os.urandom(16)
        kek = Argon2id(salt=salt, length=32, iterations=t, lanes=p,
                       memory_cost=m).derive(secrets["passphrase"])
        slots.append(wrap_slot(2, struct.pack("<III", m, t, p) + salt, kek, file_id, dk))
    n_slots, slots = len(slots), b"".join(slots)

    root_nonce = os.urandom(12)
    used = 52 + len(slots) + 12 + len(root) + 16 + 8
    before = (b"VKRECORD" + struct.pack("<IIII", 2, P, H, used) + file_id
              + struct.pack("<QB", 1, n_slots) + b"\0" * 3 + slots + root_nonce)
    sealed = AESGCMSIV(pages_key).encrypt(root_nonce, root, b"veilkit-records-root" + before)
    copy = before + sealed
    copy += struct.pack("<Q", xxhash.xxh3_64_intdigest(copy))
    assert len(copy) == used
    for at in (0, H):
        out.seek(at)
        out.write(copy.ljust(H, b"\0"))
    out.truncate(2 * H + w.next_physical * P)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--key-file")
    ap.add_argument("--passphrase-file")
    ap.add_argument("--compress", action="store_true", help="Zstandard data pages")
    ap.add_argument("--tsv-key", help="TSV rows keyed by this field (a number from 1)")
    ap.add_argument("--csv-key", help="CSV rows, with a header row, keyed by this column")
    ap.add_argument("--json-key", help="JSON lines keyed by this member")
    ap.add_argument("--page-size", type=int, default=4096)
    ap.add_argument("--tag-bits", type=int, choices=[16, 32], default=16)
    a = ap.parse_args()
    seal_ = functools.partial(seal, T=a.tag_bits // 8)
    secrets = read_secrets(a.key_file, a.passphrase_file)
    assert secrets, "give --key-file and/or --passphrase-file"
    data = open(a.input, "rb").read()
    if a.csv_key is not None:
        rows = csv_records(data)
        names = [v for v, _ in csv_fields(rows[0])]
        i = names.index(a.csv_key.encode())
        records = []
        for raw in rows[1:]:
            value, at = csv_fields(raw)[i]
            records.append((raw, value, at))
        with open(a.output, "wb") as out:
            seal_(records, 2, a.csv_key.encode(), a.page_size, secrets, a.compress, out,
                 prefix=rows[0])
        return
    if a.json_key is not None:
        # A JSON member is always the record's own key bytes (own = 1).
        records = [(raw, json_key(raw, a.json_key), None) for raw in split_lines(data)]
        with open(a.output, "wb") as out:
            seal_(records, 4, a.json_key.encode(), a.page_size, secrets, a.compress, out)
        return
    records = []
    for n, raw in enumerate(split_lines(data), 1):
        if a.tsv_key is None:
            records.append((raw, str(n).encode(), None))
        else:
            fields = raw.rstrip(b"\n").rstrip(b"\r").split(b"\t")
            i = int(a.tsv_key) - 1
            at = sum(len(f) + 1 for f in fields[:i])
            records.append((raw, fields[i], at))
    with open(a.output, "wb") as out:
        if a.tsv_key is None:
            seal_(records, 1, b"", a.page_size, secrets, a.compress, out)
        else:
            seal_(records, 3, a.tsv_key.encode(), a.page_size, secrets, a.compress, out)

if __name__ == "__main__":
    main()
