# Independent builder of the breach indexes of docs/BREACH-FORMAT.md (exact, version 3;
# compact, version 4; filters, version 3), written from that document alone: reads a dump
# of sorted `HASH:COUNT` lines and writes the file `veilkit breach build [--tier T]`
# writes for it, byte for byte. The filters' construction is filter.py's.
#
#   python3 breach_index.py DUMP INDEX [--tier exact|compact|filter|filter-small]
#
# Input checks are the document's minimum (sorted, one kind); count-0 lines are skipped.
# Needs: pip install xxhash
import struct, sys
import xxhash

BLOCK = 16 * 1024 * 1024

def align(x):
    return (x + 4095) // 4096 * 4096

def choose_bits(hashes_top64, n):
    if n <= 65536:
        e = n
    else:
        h1, h65536 = hashes_top64[0], hashes_top64[65535]
        e = min(65535 * 2**64 // (h65536 - h1 + 1), 2**64 - 1)
    if e < 128:
        return 0
    return min(e.bit_length() - 1 - 6, 26)

def parse(lines):
    hashes, counts = [], []
    for line in lines:
        line = line.strip(b"\r\n").removeprefix(b"\xef\xbb\xbf")
        text, count = line.split(b":")
        count = int(count)
        if count == 0:
            continue
        h = bytes.fromhex(text.decode())
        assert not hashes or h > hashes[-1], "unsorted"
        hashes.append(h)
        counts.append(count)
    return hashes, counts

def xxh(b):
    return xxhash.xxh3_64_intdigest(bytes(b))

def chunk_sums(b, size):
    return b"".join(struct.pack("<Q", xxh(b[i:i + size])) for i in range(0, len(b), size))

def lookup_sums(b):
    """The low 32 bits of the XXH3-64 of each 512-byte lookup block."""
    return b"".join(struct.pack("<I", xxh(b[i:i + 512]) & 0xFFFFFFFF)
                    for i in range(0, len(b), 512))

def lay_out(sections):
    """Offsets of the sections after the 4096-byte header, each at the first 4096-byte
    boundary at or after the end of the one before; and the file length."""
    at, offsets = 4096, []
    for part in sections:
        offsets.append(at)
        end = at + len(part)
        at = align(end)
    return offsets, end

def assemble(head, sections, offsets, length):
    out = bytearray(length)
    out[:4096] = head
    for off, part in zip(offsets, sections):
        out[off:off + len(part)] = part
    return bytes(out)

def exact(hashes, counts):
    """The exact index, and its identity."""
    H = len(hashes[0])
    kind = {20: 1, 16: 2}[H]
    n = len(hashes)
    b = choose_bits([int.from_bytes(h[:8], "big") for h in hashes[:65536]], n)
    S = -(-(8 * H - b + 12) // 8)
    c = 8 * S - (8 * H - b)
    sat = (1 << c) - 1
    records, overflow = bytearray(), bytearray()
    per_bucket = [0] * (2**b)
    for i, (h, count) in enumerate(zip(hashes, counts)):
        v = int.from_bytes(h, "big")
        per_bucket[v >> (8 * H - b)] += 1
        records += ((v % (1 << (8 * H - b))) << c | min(count, sat)).to_bytes(S, "big")
        if count >= sat:
            overflow += struct.pack("<QQ", i, count)
    starts = [0]
    for k in range(2**b):
        starts.append(starts[-1] + per_bucket[k])
    base = [starts[g * 2**16] for g in range(2**b // 2**16 + 1)]
    table = b"".join(struct.pack("<Q", x) for x in base)
    table += b"".join(struct.pack("<I", starts[k] - base[k // 2**16]) for k in range(2**b + 1))
    blocks = chunk_sums(records, BLOCK)
    sections = [records, overflow, table, blocks, chunk_sums(table, 4096), lookup_sums(records)]
    offsets, length = lay_out(sections)
    total = min(sum(counts), 2**64 - 1)
    head = bytearray(4096)
    head[0:8] = b"VKBREACH"
    struct.pack_into("<IBBBBB", head, 8, 3, kind, H, b, c, S)
    struct.pack_into("<QQQQ", head, 24, n, len(overflow) // 16, max(counts), total)
    for i, (off, part) in enumerate(zip(offsets[:4], sections[:4])):
        struct.pack_into("<QQ", head, 56 + 16 * i, off, len(part))
    struct.pack_into("<Q", head, 120, BLOCK)
    sums = (xxh(overflow), xxh(table), xxh(blocks))
    struct.pack_into("<QQQQQQQ", head, 128, *sums, length, 0, offsets[4], len(sections[4]))
    struct.pack_into("<QQQ", head, 184, offsets[5], len(sections[5]), 512)
    struct.pack_into("<Q", head, 248, xxh(head[:248]))
    identity = xxh(struct.pack("<6Q", kind, n, total, *sums))
    return assemble(head, sections, offsets, length), identity

def tier_header(magic, version, kind, tier, b, g, hashes, counts, entries, identity,
                sections, offsets, length, table_sums, lookup):
    head = bytearray(4096)
    head[0:8] = magic
    struct.pack_into("<IBBBB", head, 8, version, kind, tier, b, g)
    struct.pack_into("<QQQQQQ", head, 16, len(hashes), entries, len(hashes) - entries,
                     max(counts), min(sum(counts), 2**64 - 1), identity)
    for i in range(3):
        struct.pack_into("<QQ", head, 64 + 16 * i, offsets[i], len(sections[i]))
    struct.pack_into("<QQQQQ", head, 112, *(xxh(x) for x in sections[:3]), length, 0)
    struct.pack_into("<QQ", head, 152, *table_sums)
    struct.pack_into("<QQQ", head, 168, *lookup, 512)
    struct.pack_into("<Q", head, 248, xxh(head[:248]))
    return head

def compact(hashes, counts, identity):
    kind = {20: 1, 16: 2}[len(hashes[0])]
    n = len(hashes)
    b = 0 if n < 256 else min(n.bit_length() - 1 - 7, 40)
    merged = {}
    order = []
    for h, count in zip(hashes, counts):
        key = int.from_bytes(h[:16], "big") >> (128 - (b + 42))
        if key not in merged:
            order.append(key)
            merged[key] = 0
        merged[key] = min(merged[key] + count, 2**64 - 1)
    body, overflow = bytearray(), bytearray()
    per_bucket = [0] * (2**b)
    for key in order:
        bucket, suffix = key >> 42, key & (2**42 - 1)
        per_bucket[bucket] += 1
        field = min(merged[key], 16383)
        body += (suffix << 14 | field).to_bytes(7, "little")
        if field == 16383:
            overflow += struct.pack("<QQQ", bucket, suffix, merged[key])
    body += b"\0"
    starts = [0]
    for k in range(2**b):
        starts.append(starts[-1] + per_bucket[k])
    for g in range(min(b, 7), -1, -1):
        base = [starts[i << g] for i in range(2**(b - g) + 1)]
        offsets16 = [starts[k] - base[k >> g] for k in range(2**b + 1)]
        if max(offsets16) < 2**16:
            break
    table = b"".join(struct.pack("<Q", x) for x in base)
    table += b"".join(struct.pack("<H", x) for x in offsets16)
    table += bytes(-len(table) % 8)
    sections = [body, overflow, table, chunk_sums(table, 4096), lookup_sums(body)]
    offsets, length = lay_out(sections)
    head = tier_header(b"VKBCOMPT", 4, kind, 1, b, g, hashes, counts, len(order), identity,
                       sections, offsets, length, (offsets[3], len(sections[3])),
                       (offsets[4], len(sections[4])))
    return assemble(head, sections, offsets, length)

def fuse(hashes, counts, identity, fp_bits):
    import filter as fuse_filter
    kind = {20: 1, 16: 2}[len(hashes[0])]
    keys = sorted(set(int.from_bytes(h[:8], "big") for h in hashes))
    b = 0
    while b < 24 and len(hashes) >> b > 2**20:
        b += 1
    width = fp_bits // 8
    body, directory = bytearray(), bytearray()
    for shard in range(2**b):
        mine = [k for k in keys if k >> (64 - b) == shard] if b else keys
        if not mine:
            directory += bytes(40)
            continue
        seed, L, mask, scl, fps = fuse_filter.build(mine, fp_bits)
        body += bytes(-(4096 + len(body)) % 8)
        directory += struct.pack("<QIIIIQQ", seed, L, mask, scl, len(mine), 4096 + len(body), len(fps))
        body += b"".join(x.to_bytes(width, "little") for x in fps)
    sections = [body, b"", directory, lookup_sums(body)]
    offsets, length = lay_out(sections)
    head = tier_header(b"VKBFILTR", 3, kind, {16: 2, 8: 3}[fp_bits], b, 0, hashes, counts,
                       len(keys), identity, sections, offsets, length, (0, 0),
                       (offsets[3], len(sections[3])))
    return assemble(head, sections, offsets, length)

if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("index")
    ap.add_argument("--tier", default="exact", choices=["exact", "compact", "filter", "filter-small"])
    a = ap.parse_args()
    with open(a.dump, "rb") as f:
        hashes, counts = parse(f)
    out, identity = exact(hashes, counts)
    if a.tier == "compact":
        out = compact(hashes, counts, identity)
    elif a.tier in ("filter", "filter-small"):
        out = fuse(hashes, counts, identity, 16 if a.tier == "filter" else 8)
    with open(a.index, "wb") as f:
        f.write(out)
