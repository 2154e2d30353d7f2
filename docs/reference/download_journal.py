# Independent reader of the download journal and the range validators' sidecar of
# docs/BREACH-FORMAT.md ("Download journal", "Range validators", "Range server", "Tier
# header"), written from that document alone.
#
#   python3 download_journal.py JOURNAL
#       prints every hash the journal's complete entries hold, `HASH:COUNT` in upper-case
#       hex, and on standard error how many ranges it read; checks each entry's checksum
#       and that its ETag, where the range came from `veilkit breach serve`, is the one the
#       server derives from the range's body.
#   python3 download_journal.py --validators SIDECAR --index INDEX [JOURNAL]
#       checks the sidecar's form, that its last line names INDEX's identity, and that its
#       validators agree with the journal's ranges.
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

def read_journal(data):
    """(kind name, template, [(prefix, etag, last_modified, [(hash, count)])])."""
    assert data[:8] == b"VKDLJ001", "not a download journal"
    kind = data[8]
    assert data[9:12] == b"\0\0\0"
    n = struct.unpack("<I", data[12:16])[0]
    template = data[16:16 + n].decode()
    end = 16 + n
    assert xxhash.xxh3_64_intdigest(data[:end]) == struct.unpack("<Q", data[end:end + 8])[0], \
        "the header's checksum"
    name, size = KINDS[kind]
    at, entries = end + 8, []
    while True:
        head = data[at:at + 12]
        if len(head) < 12:
            break
        prefix, p, e, m = struct.unpack("<IIHH", head)
        body_end = at + 12 + e + m + p
        if prefix != len(entries) or body_end + 8 > len(data):
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
    else:
        out = sys.stdout
        for _prefix, _etag, _lm, hashes in entries:
            for h, c in hashes:
                out.write(f"{h.hex().upper()}:{c}\n")
    print(f"{len(entries)} ranges read from the journal", file=sys.stderr)

if __name__ == "__main__":
    main()
