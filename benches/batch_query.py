#!/usr/bin/env python3
"""Batch queries through the binary a user runs, A against B in one run, interleaved:
`veilkit breach query -i INDEX < QUERIES > /dev/null` for each (binary, index) pair,
ROUNDS rounds, wall and CPU (user + system) time of each process, medians and ranges.

  python3 benches/batch_query.py --rounds 7 QUERIES.txt \\
      OLD_BIN OLD_INDEX NEW_BIN NEW_INDEX [...more pairs]

QUERIES holds one hash a line (e.g. half present, drawn from the dump, half random).
Every pair must give the same output (checked once, before timing). The indexes are read
whole once first, so that every run finds them in the page cache.
"""
import argparse, hashlib, os, statistics, subprocess, sys, time

def run(binary, index, queries):
    with open(queries, "rb") as q, open(os.devnull, "wb") as out:
        t = time.perf_counter()
        p = subprocess.Popen([binary, "breach", "query", "-i", index], stdin=q, stdout=out,
                             stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
    assert status == 0 or os.waitstatus_to_exitcode(status) == 0, (binary, status)
    return wall, usage.ru_utime + usage.ru_stime

def digest(binary, index, queries):
    with open(queries, "rb") as q:
        out = subprocess.run([binary, "breach", "query", "-i", index], stdin=q,
                             capture_output=True, check=True).stdout
    return hashlib.sha256(out).hexdigest()

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("queries")
    ap.add_argument("pairs", nargs="+")
    a = ap.parse_args()
    pairs = list(zip(a.pairs[0::2], a.pairs[1::2]))
    for _, index in pairs:
        with open(index, "rb") as f:
            while f.read(1 << 24):
                pass
    answers = {digest(b, i, a.queries) for b, i in pairs}
    assert len(answers) == 1, "the pairs answer differently"
    times = {p: ([], []) for p in pairs}
    for _ in range(a.rounds):
        for p in pairs:
            wall, cpu = run(p[0], p[1], a.queries)
            times[p][0].append(wall)
            times[p][1].append(cpu)
    n = sum(1 for _ in open(a.queries, "rb"))
    base = None
    for (b, i), (wall, cpu) in times.items():
        mw, mc = statistics.median(wall), statistics.median(cpu)
        base = base or (mw, mc)
        print(f"{b} -i {i}: wall median {mw:.3f} s ({min(wall):.3f}-{max(wall):.3f}), "
              f"cpu median {mc:.3f} s ({min(cpu):.3f}-{max(cpu):.3f}); "
              f"{n / mw / 1e6:.2f}M hashes/s; {mw / base[0]:.3f}x wall, {mc / base[1]:.3f}x cpu of the first")

if __name__ == "__main__":
    sys.exit(main())
