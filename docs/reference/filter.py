# Independent implementation of the binary fuse filter construction of
# docs/BREACH-FORMAT.md ("Filters"), written from the document alone: builds the filter
# of the document's test vector and prints its descriptor and the SHA-256 of its
# fingerprints, which the document lists. No dependencies.
import hashlib, math

M64 = (1 << 64) - 1

def murmur64(x):
    x ^= x >> 33; x = (x * 0xff51afd7ed558ccd) & M64
    x ^= x >> 33; x = (x * 0xc4ceb9fe1a85ec53) & M64
    return x ^ (x >> 33)

def mix(key, seed):
    return murmur64((key + seed) & M64)

def splitmix64(state):
    state = (state + 0x9e3779b97f4a7c15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return state, z ^ (z >> 31)

def positions(h, L, mask, scl):
    h0 = (h * scl) >> 64
    h1 = ((h0 + L) ^ ((h >> 18) & mask)) & 0xffffffff
    h2 = ((h0 + 2 * L) ^ (h & mask)) & 0xffffffff
    return h0, h1, h2

def build(keys, fp_bits):
    size = len(keys)
    L = 4 if size == 0 else 1 << int(math.floor(math.log(size) / math.log(3.33) + 2.25))
    L = min(L, 262144)
    mask = L - 1
    factor = max(1.125, 0.875 + 0.25 * math.log(1000000) / math.log(size)) if size > 1 else 0
    capacity = int(math.floor(size * factor + 0.5)) if size > 1 else 0
    count = -(-capacity // L)
    count = 1 if count < 3 else count - 2
    n = (count + 2) * L
    scl = count * L
    fps = [0] * n
    state, seed = splitmix64(1)
    smaller = 4 < size < 1_000_000
    for iteration in range(1, 1001):
        if smaller and iteration % 4 == 2:
            L //= 2; mask = L - 1; count = count * 2 + 2; scl = count * L
        elif smaller and iteration % 4 == 3:
            L *= 2; mask = L - 1; count = count // 2 - 1; scl = count * L
        bits = 1
        while (1 << bits) < count:
            bits += 1
        start = [(i * size) >> bits for i in range(1 << bits)]
        order = [0] * size + [1]
        for key in keys:
            h = mix(key, seed)
            s = h >> (64 - bits)
            while order[start[s]] != 0:
                s = (s + 1) & ((1 << bits) - 1)
            order[start[s]] = h
            start[s] += 1
        tcount = [0] * n
        thash = [0] * n
        error = False
        dups = 0
        for i in range(size):
            h = order[i]
            i0, i1, i2 = positions(h, L, mask, scl)
            for idx, t in ((i0, 0), (i1, 1), (i2, 2)):
                tcount[idx] = ((tcount[idx] + 4) & 0xff) ^ t
                thash[idx] ^= h
            if thash[i0] & thash[i1] & thash[i2] == 0 and any(
                    thash[x] == 0 and tcount[x] == 8 for x in (i0, i1, i2)):
                dups += 1
                for idx, t in ((i0, 0), (i1, 1), (i2, 2)):
                    tcount[idx] = ((tcount[idx] - 4) & 0xff) ^ t
                    thash[idx] ^= h
            error = tcount[i0] < 4 or tcount[i1] < 4 or tcount[i2] < 4
        if error:
            state, seed = splitmix64(state)
            continue
        queue = [i for i in range(n) if tcount[i] >> 2 == 1]
        stack = []
        while queue:
            idx = queue.pop()
            if tcount[idx] >> 2 != 1:
                continue
            h = thash[idx]
            found = tcount[idx] & 3
            stack.append((found, h))
            i0, i1, i2 = positions(h, L, mask, scl)
            ring = [i0, i1, i2, i0, i1]
            for step in (1, 2):
                other = ring[found + step]
                if tcount[other] >> 2 == 2:
                    queue.append(other)
                tcount[other] = ((tcount[other] - 4) & 0xff) ^ ((found + step) % 3)
                thash[other] ^= h
        if len(stack) + dups == size:
            for found, h in reversed(stack):
                i0, i1, i2 = positions(h, L, mask, scl)
                ring = [i0, i1, i2, i0, i1]
                f = (h ^ (h >> 32)) & ((1 << fp_bits) - 1)
                fps[ring[found]] = f ^ fps[ring[found + 1]] ^ fps[ring[found + 2]]
            return seed, L, mask, scl, fps
        state, seed = splitmix64(state)
    raise RuntimeError("no seed peeled in 1000 tries")

def contains(filt, key, fp_bits):
    seed, L, mask, scl, fps = filt
    h = mix(key, seed)
    i0, i1, i2 = positions(h, L, mask, scl)
    return ((h ^ (h >> 32)) & ((1 << fp_bits) - 1)) ^ fps[i0] ^ fps[i1] ^ fps[i2] == 0

# The vector: the keys are the first 8 bytes, big-endian, of SHA-1("pw0") .. SHA-1("pw999"),
# in ascending order.
if __name__ == "__main__":
    keys = sorted(int.from_bytes(hashlib.sha1(f"pw{i}".encode()).digest()[:8], "big") for i in range(1000))
    for bits, width in ((16, 2), (8, 1)):
        seed, L, mask, scl, fps = f = build(keys, bits)
        assert all(contains(f, k, bits) for k in keys)
        body = b"".join(x.to_bytes(width, "little") for x in fps)
        print(f"{bits}-bit: seed {seed:#018x}, segment length {L}, mask {mask}, "
              f"segment count length {scl}, {len(fps)} fingerprints, SHA-256 {hashlib.sha256(body).hexdigest()}")
