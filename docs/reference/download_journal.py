# Independent reader of the download journal, the download state and the range
# validators' sidecar of docs/BREACH-FORMAT.md ("Download journal", "Download state",
# "Range validators", "Range server", "Index file"), written from that document alone.
#
#   python3 download_journal.py JOURNAL
#       prints every hash the journal's complete entries hold, `HASH:COUNT` in upper-case
#       hex, and on standard error how many ranges it read; checks each entry's checksum
#       and that its ETag, where the range came from `veilkit breach serve`, is the one the
#       server derives from the range's body.
#   python3 download_journal.py --validators SIDECAR --index INDEX [JOURNAL]
#       checks the sidecar's form, that its last line names INDEX's identity, and that its
#       validators agree with the journal's ranges.
#   python3 download_journal.py --state STATE --index INDEX --validators SIDECAR
#       checks the state's checkpoints (checksums, each continuing the one before) against
#       the finished INDEX: their table parts, block checksums and overflow entries are the
#       start of INDEX's, the checksum of the records after the last whole block matches
#       INDEX's records, and their ranges' validators are the sidecar's.
#
# Needs: pip install xxhash
import argparse, struct, sys
import xxhash

KINDS = {1: ("sha1", 20), 2: ("ntlm", 16)}

def leb128(b, at):
    value = shift = 0
    for i in range(10):
        byte = b[at + i]
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at + i + 1
    raise ValueError("a count longer than 10 bytes")

def read_header(data, magic):
    """The header of a journal or state file: (kind code, template, where entries start)."""
    assert data[:8] == magic, "not a " + magic.decode()
    assert data[9:12] == b"\0\0\0"
    n = struct.unpack("<I", data[12:16])[0]
    end = 16 + n
    assert xxhash.xxh3_64_intdigest(data[:end]) == struct.unpack("<Q", data[end:end + 8])[0], \
        "the header's checksum"
    return data[8], data[16:end].decode(), end + 8

def read_journal(data):
    """(kind name, template, [(prefix, etag, last_modified, [(hash, count)])])."""
    kind, template, at = read_header(data, b"VKDLJ001")
    name, size = KINDS[kind]
    entries = []
    while True:
        head = data[at:at + 12]
        if len(head) < 12:
            break
        prefix, p, e, m = struct.unpack("<IIHH", head)
        body_end = at + 12 + e + m + p
        if (entries and prefix != entries[-1][0] + 1) or prefix >= 1 << 20 or body_end + 8 > len(data):
            break  # not the next prefix, or cut off: where the writer stopped
        if xxhash.xxh3_64_intdigest(data[at:body_end]) != struct.unpack("<Q", data[body_end:body_end + 8])[0]:
            break
        etag = data[at + 12:at + 12 + e].decode()
        lm = data[at + 12 + e:at + 12 + e + m].decode()
        hashes, q = [], at + 12 + e + m
        while q < body_end:
            h = data[q:q + size]
            count, q = leb128(data, q + size)
            hashes.append((h, count))
        entries.append((prefix, etag, lm, hashes))
        at = body_end + 8
    return name, template, entries

def read_state(data):
    """The checkpoints of a download state, each a dict, in order."""
    _kind, _template, at = read_header(data, b"VKDLS001")
    checkpoints, prev = [], 0
    while at + 4 <= len(data):
        (n,) = struct.unpack_from("<I", data, at)
        if n < 140 or at + 4 + n + 8 > len(data):
            break
        body = data[at + 4:at + 4 + n]
        if xxhash.xxh3_64_intdigest(data[at:at + 4 + n]) != struct.unpack_from("<Q", data, at + 4 + n)[0]:
            break
        nxt, bits = struct.unpack_from("<II", body, 0)
        records, padding, max_count, total, next_bucket, lines, tail_sum = struct.unpack_from("<7Q", body, 8)
        held, last_range, gap, nb, no, ns, nov, nr, np_ = struct.unpack_from("<9I", body, 104)
        if nxt <= prev or nr != nxt - prev:
            break
        q = 140
        bases = struct.unpack_from("<%dQ" % nb, body, q); q += 8 * nb
        offsets = struct.unpack_from("<%dI" % no, body, q); q += 4 * no
        sums = struct.unpack_from("<%dQ" % ns, body, q); q += 8 * ns
        overflow = body[q:q + 16 * nov]; q += 16 * nov
        pending = [struct.unpack_from("<3QQ", body, q + 32 * i) for i in range(np_)]; q += 32 * np_
        validators = []
        for _ in range(nr):
            e, m = struct.unpack_from("<HH", body, q)
            validators.append((body[q + 4:q + 4 + e].decode(), body[q + 4 + e:q + 4 + e + m].decode()))
            q += 4 + e + m
        assert q == n, "an entry's parts fill its body"
        checkpoints.append(dict(next=nxt, table_bits=bits, records=records, tail_sum=tail_sum,
                                next_bucket=next_bucket, bases=bases, offsets=offsets,
                                sums=sums, overflow=overflow, pending=pending,
                                validators=validators))
        prev = nxt
        at += 12 + n
    return checkpoints

def check_state(checkpoints, index, sidecar_body):
    """Checks joined checkpoints against the finished index's bytes and the sidecar."""
    record_size = index[16]
    sec = lambda at: struct.unpack_from("<QQ", index, at)
    (rec_off, _), (ov_off, _), (tab_off, _), (blk_off, _) = sec(56), sec(72), sec(88), sec(104)
    block = struct.unpack_from("<Q", index, 120)[0]
    bases, offsets, sums, overflow, validators = [], [], [], b"", []
    for c in checkpoints:
        bases += c["bases"]; offsets += c["offsets"]; sums += c["sums"]
        overflow += c["overflow"]; validators += c["validators"]
    last = checkpoints[-1]
    bits = last["table_bits"]
    if bits == 0xFFFFFFFF:  # parameters not chosen: hashes held, no record written
        assert last["records"] == 0 and not (bases or offsets or sums or overflow)
        bits = index[14]
    assert bits == index[14], "the table bits"
    assert len(offsets) == last["next_bucket"]
    groups = ((1 << bits) >> 16) + 1
    assert list(struct.unpack_from("<%dQ" % len(bases), index, tab_off)) == bases, "group bases"
    assert list(struct.unpack_from("<%dI" % len(offsets), index, tab_off + 8 * groups)) == offsets, "bucket offsets"
    assert list(struct.unpack_from("<%dQ" % len(sums), index, blk_off)) == sums, "block checksums"
    assert index[ov_off:ov_off + len(overflow)] == overflow, "overflow entries"
    end = last["records"] * record_size
    assert len(sums) == end // block
    tail = index[rec_off + len(sums) * block:rec_off + end]
    assert xxhash.xxh3_64_intdigest(tail) == last["tail_sum"], "the records after the last whole block"
    for prefix, (etag, lm) in enumerate(validators):
        assert sidecar_body[prefix].split("\t")[1:] == [etag, lm], f"range {prefix:05X}"
    return last["next"], last["records"]

def range_body(prefix, hashes):
    """The range's body as the range API and `export-ranges` give it."""
    return b"\r\n".join(h.hex().upper()[5:].encode() + b":" + str(c).encode() for h, c in hashes)

def served_etag(name, prefix, hashes):
    return '"%s-%016x"' % (name, xxhash.xxh3_64_intdigest(range_body(prefix, hashes)))

def index_identity(path):
    with open(path, "rb") as f:
        head = f.read(256)
    kind = head[12]
    records, total = struct.unpack_from("<Q", head, 24)[0], struct.unpack_from("<Q", head, 48)[0]
    sums = struct.unpack_from("<QQQ", head, 128)
    return xxhash.xxh3_64_intdigest(struct.pack("<6Q", kind, records, total, *sums))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("journal", nargs="?")
    ap.add_argument("--validators")
    ap.add_argument("--index")
    ap.add_argument("--state")
    a = ap.parse_args()
    entries = []
    if a.journal:
        name, _template, entries = read_journal(open(a.journal, "rb").read())
        for prefix, etag, _lm, hashes in entries:
            if etag:
                assert etag == served_etag(name, prefix, hashes), f"range {prefix:05X}: ETag {etag}"
    if a.validators:
        lines = open(a.validators, encoding="utf-8").read().split("\n")
        assert lines[-1] == "", "the sidecar ends with a line end"
        lines = lines[:-1]
        kind = lines[0].removeprefix("# veilkit range validators 1 ")
        assert kind in ("sha1", "ntlm"), lines[0]
        assert lines[-1] == "# index %016x" % index_identity(a.index), lines[-1]
        body = lines[1:-1]
        assert len(body) == 1 << 20
        for prefix, line in enumerate(body):
            fields = line.split("\t")
            assert len(fields) == 3 and fields[0] == "%05X" % prefix, line
        for prefix, etag, lm, _hashes in entries:
            assert body[prefix].split("\t")[1:] == [etag, lm], f"range {prefix:05X}"
        print(f"{len(body)} ranges, index {lines[-1][8:]}")
        if a.state:
            checkpoints = read_state(open(a.state, "rb").read())
            assert checkpoints, "no checkpoint"
            nxt, records = check_state(checkpoints, open(a.index, "rb").read(), body)
            print(f"{len(checkpoints)} checkpoints, ranges 0 to {nxt - 1:05X}, {records} records")
    else:
        out = sys.stdout
        for _prefix, _etag, _lm, hashes in entries:
            for h, c in hashes:
                out.write(f"{h.hex().upper()}:{c}\n")
    print(f"{len(entries)} ranges read from the journal", file=sys.stderr)

if __name__ == "__main__":
    main()
