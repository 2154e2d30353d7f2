# Independent reader of the nonce state file and of counter and sortable nonces, written
# from docs/NONCES.md ("Layouts", "The counter", "Uniqueness across processes and
# restarts") alone. No dependencies.
#
#   python3 nonce_state.py STATE
#       checks the file's form and prints each line as `MACHINE WIDTH C CLOCK` (CLOCK 0
#       when the line has none)
#   python3 nonce_state.py --decode WIDTH NONCES
#       prints `MACHINE C` for each hex nonce of NONCES (counter or sortable)
import sys

COUNT_BITS = {64: 13, 96: 45, 128: 64}

def read_state(text):
    lines = text.split("\n")
    assert lines[0] == "veilkit-nonce-state 1", "header"
    assert lines[-1] == "", "every line ends in \\n"
    seen, out = set(), []
    for line in lines[1:-1]:
        fields = line.split(" ")
        assert len(fields) in (3, 4) and all(f.isdigit() for f in fields), line
        machine, width, c = int(fields[0]), int(fields[1]), int(fields[2])
        clock = int(fields[3]) if len(fields) == 4 else 0
        assert 0 <= machine <= 511 and width in COUNT_BITS, line
        assert c <= 2 ** (42 + COUNT_BITS[width]) - 1 and clock < 2 ** 42, line
        assert (machine, width) not in seen, "two lines for one machine id and width"
        seen.add((machine, width))
        out.append((machine, width, c, clock))
    return out

def decode(width, value):
    """(machine, C) of a counter or sortable nonce."""
    cb = COUNT_BITS[width]
    if width == 128:
        ts, machine, zero, count = value >> 86, (value >> 77) & 511, (value >> 64) & 8191, value & (2**64 - 1)
        assert zero == 0
    else:
        ts, machine, count = value >> (9 + cb), (value >> cb) & 511, value & (2**cb - 1)
    return machine, (ts << cb) + count

if __name__ == "__main__":
    if sys.argv[1] == "--decode":
        width = int(sys.argv[2])
        for line in open(sys.argv[3]):
            assert len(line.strip()) == width // 4
            machine, c = decode(width, int(line, 16))
            print(machine, c)
    else:
        for row in read_state(open(sys.argv[1], encoding="ascii").read()):
            print(*row)
