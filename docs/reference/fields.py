# Independent reader of `veilkit records encrypt-fields` output, written from the section
# "Field encryption" of docs/RECORDS-FORMAT.md and docs/KEYS.md alone: decrypts the chosen
# columns of ENCRYPTED, checks every token column, and compares the rows with the
# plaintext CSV they were made from.
#
#   python3 fields.py PLAIN.csv ENCRYPTED.csv --key-file KEYS --fields a,b [--context C] [--bind c,d]
#
# Prints "N rows, V values decrypted, T tokens checked" when every row matches.
# Needs: pip install cryptography xxhash zstandard (for records.py, whose keyring reading
# and key derivation it uses)
import argparse, base64, csv, hashlib, hmac, io, struct
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV
from records import derive, read_keyring

def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

def lp(x):
    return struct.pack(">I", len(x)) + x

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plain")
    ap.add_argument("encrypted")
    ap.add_argument("--key-file", required=True)
    ap.add_argument("--fields", required=True)
    ap.add_argument("--context", default="")
    ap.add_argument("--bind", default="")
    a = ap.parse_args()
    ring = read_keyring(open(a.key_file, encoding="utf-8").read())
    context = a.context.encode()
    plain = list(csv.reader(io.open(a.plain, newline="", encoding="utf-8")))
    sealed = list(csv.reader(io.open(a.encrypted, newline="", encoding="utf-8")))
    header, columns = sealed[0], a.fields.split(",")
    assert [c for c in header if not c.endswith("_token") or c[:-6] not in columns] == plain[0]
    # Bound columns in the order of the columns in the row.
    bind = [c for c in plain[0] if c in a.bind.split(",")]
    values = tokens = 0
    for row_plain, row in zip(plain[1:], sealed[1:], strict=True):
        fields = dict(zip(header, row, strict=True))
        out = []
        for name in plain[0]:
            value = fields[name]
            if name in columns:
                blob = unb64(value)
                # The newest key of the ring whose id is congruent to byte0 mod 64.
                kid, master = [k for k in ring if k[0] % 64 == blob[0] & 0x3F][-1]
                if bind:
                    assert blob[0] & 0xC0 == 0x80, "format 2"
                    key = derive(master, kid, "records/fields-bound", context, 32)
                    aad = lp(name.encode()) + b"".join(lp(b.encode()) + lp(fields[b].encode()) for b in bind)
                else:
                    assert blob[0] & 0xC0 == 0x40, "format 1"
                    key = derive(master, kid, "records/fields", context, 32)
                    aad = b"veilkit-field" + name.encode()
                value = AESGCMSIV(key).decrypt(blob[1:13], blob[13:], aad).decode()
                values += 1
                if name + "_token" in fields:
                    token_key = derive(master, kid, "records/field-tokens", context, 32)
                    want = hmac.new(token_key, value.encode(), hashlib.sha256).digest()[:16]
                    assert unb64(fields[name + "_token"]) == want, "token"
                    assert "=" not in fields[name + "_token"]
                    tokens += 1
            out.append(value)
        assert out == row_plain, f"row {out} is not {row_plain}"
    print(f"{len(plain) - 1} rows, {values} values decrypted, {tokens} tokens checked")

main()
