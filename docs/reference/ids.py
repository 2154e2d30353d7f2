# Independent implementation of docs/IDS.md v1, written from the document alone;
# prints the test vectors of its last section. Needs: pip install cryptography
import hmac, hashlib, struct
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
def hkdf(salt, ikm, info, L):
    prk = hmac.new(salt, ikm, hashlib.sha256).digest(); t=b""; okm=b""; i=1
    while len(okm)<L:
        t = hmac.new(prk, t+info+bytes([i]), hashlib.sha256).digest(); okm+=t; i+=1
    return okm[:L]
lp = lambda b: struct.pack(">I", len(b))+b
def derive(mk, kid, purpose, ctx, L):
    info = lp(b"veilkit-v1")+lp(purpose.encode())+lp(ctx)+struct.pack(">II", kid, L)
    return hkdf(b"veilkit/hkdf/v1", mk, info, L)
def aes(k, b):
    e = Cipher(algorithms.AES(k), modes.ECB()).encryptor(); return e.update(b)+e.finalize()
M60=(1<<60)-1
def F(k, x, t): return struct.unpack("<Q", aes(k, struct.pack("<QQ", x, t))[:8])[0]
def uuid_encode(mk, kid, ctx, idv, nonce=None, rounds=None):
    det = nonce is None
    rounds = rounds or (3 if det else 2)
    km = derive(mk, kid, "ids/uuid-det" if det else "ids/uuid-nonce", ctx, 16*rounds)
    keys=[km[16*i:16*i+16] for i in range(rounds)]
    t = kid % 4
    L, R = idv, (0 if det else nonce)
    nums = range(0, rounds) if det else range(1, rounds+1)
    for K, a in zip(keys, nums):
        if a % 2 == 1: L ^= F(K, R, t) & M60
        else: R ^= F(K, L, t) & M60
    v = ((L >> 12) << 80) | (8 << 76) | ((L & 0xfff) << 64) | (2 << 62) | (t << 60) | R
    h = "%032x" % v
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
def block_encode(mk, kid, ctx, purpose, idv, hh=0, clear=None):
    k = derive(mk, kid, purpose, ctx, 16)
    b = aes(k, struct.pack("<QQ", idv, hh))
    if clear is not None:
        while (b[clear//8] >> (clear % 8)) & 1: b = aes(k, b)
    return b.hex()
mk = bytes(range(32)); ctx=b"users"
out=[]
for i in (0,1,42): out.append(uuid_encode(mk,1,ctx,i))
for i in (0,1,42): out.append(block_encode(mk,1,ctx,"ids/aes128-det",i))
for i in (0,1,42): out.append(block_encode(mk,1,ctx,"ids/cycle-walk-det",i,0,63))
out.append(uuid_encode(mk,1,ctx,42,7))
print("\n".join(out))
