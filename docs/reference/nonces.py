# Independent implementation of docs/NONCES.md, written from the document alone; prints
# the rows of its "Test vectors" section. Needs: pip install cryptography
import hmac, hashlib, struct
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
try:
    from cryptography.hazmat.decrepit.ciphers.algorithms import Blowfish
except ImportError:
    Blowfish = algorithms.Blowfish

def hkdf(salt, ikm, info, L):
    prk = hmac.new(salt, ikm, hashlib.sha256).digest(); t = b""; okm = b""; i = 1
    while len(okm) < L:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest(); okm += t; i += 1
    return okm[:L]
lp = lambda b: struct.pack(">I", len(b)) + b
def derive(mk, kid, purpose, L):
    info = lp(b"veilkit-v1") + lp(purpose.encode()) + lp(b"") + struct.pack(">II", kid, L)
    return hkdf(b"veilkit/hkdf/v1", mk, info, L)

COUNT_BITS = {64: 13, 96: 45, 128: 64}
def compose(width, ts, count, machine):
    if width == 128:
        return (ts << 86) | (machine << 77) | count
    cb = COUNT_BITS[width]
    return (ts << (9 + cb)) | (machine << cb) | count

M48 = (1 << 48) - 1
ror = lambda x, r: ((x >> r) | (x << (48 - r))) & M48
rol = lambda x, r: ((x << r) | (x >> (48 - r))) & M48
def speck96(key, block):
    l = [int.from_bytes(key[6:12], "big"), int.from_bytes(key[0:6], "big")]
    k = [int.from_bytes(key[12:18], "big")]
    for i in range(28):
        l.append(((ror(l[i], 8) + k[i]) & M48) ^ i)
        k.append(rol(k[i], 3) ^ l[i + 2])
    x, y = int.from_bytes(block[:6], "big"), int.from_bytes(block[6:], "big")
    for rk in k:
        x = ((ror(x, 8) + y) & M48) ^ rk
        y = rol(y, 3) ^ x
    return x.to_bytes(6, "big") + y.to_bytes(6, "big")

def ecb(alg, block):
    e = Cipher(alg, modes.ECB()).encryptor(); return e.update(block) + e.finalize()

assert speck96(bytes.fromhex("1514131211100d0c0b0a0908050403020100"),
               bytes.fromhex("656d6974206e69202c726576")).hex() == "2bf31072228a7ae440252ee6"
mk = bytes(range(32))
keys = {64: derive(mk, 1, "nonces/blowfish-64", 16), 96: derive(mk, 1, "nonces/speck-96", 18),
        128: derive(mk, 1, "nonces/aes-256", 32)}
for p, w in (("nonces/blowfish-64", 64), ("nonces/speck-96", 96), ("nonces/aes-256", 128)):
    print(f"| subkey | `{p}` | {len(keys[w])} | `{keys[w].hex()}` |")
rows = [("counter", 60480000000, 7), ("sortable", 60480000123, None), ("encrypted", 60480000000, 7)]
for kind, ts, count in rows:
    for w in (64, 96, 128):
        c = count if count is not None else (1 << COUNT_BITS[w]) - 1
        b = compose(w, ts, c, 5).to_bytes(w // 8, "big")
        if kind == "encrypted":
            b = {64: lambda: ecb(Blowfish(keys[64]), b), 96: lambda: speck96(keys[96], b),
                 128: lambda: ecb(algorithms.AES(keys[128]), b)}[w]()
        print(f"| {kind} | {w} | 5 | {ts} | {c} | `{b.hex()}` |")
