#!/usr/bin/env bash
# veilkit nonce with its state in PostgreSQL beside the local state file, in one run
# (issue 68): a throwaway PostgreSQL cluster on loopback (trust authentication, fsync on,
# as a real server), then ROUNDS rounds, each alternating the two states:
#   - one-off: `veilkit nonce` (one 128-bit nonce), RUNS processes each, wall time per
#     process (median of the round);
#   - long run: `veilkit nonce -n COUNT --format binary > /dev/null` (128-bit counter
#     values), nonces per second;
#   - the same for sortable values, which reserve windows of the timeline as they go.
# Prints each round's figures and the medians over rounds, with the ranges.
#
#   benches/nonce_fleet.sh                 # ROUNDS=5 RUNS=200 COUNT=200000000
#
# Needs PostgreSQL (Debian: postgresql) and python3. Run as root, the server runs as the
# user postgres.
set -euo pipefail
veilkit=$(realpath "${VEILKIT:-target/release/veilkit}")
rounds=${ROUNDS:-5}
runs=${RUNS:-200}
count=${COUNT:-200000000}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg=()
if [ "$(id -u)" = 0 ]; then
    chown postgres: "$work"
    as_pg=(runuser -u postgres --)
fi
"${as_pg[@]}" "$bin/initdb" -A trust -U postgres -E UTF8 -D "$work/data" >/dev/null
"${as_pg[@]}" "$bin/pg_ctl" -w -o "-p $port -k $work -c listen_addresses=127.0.0.1" \
    -l "$work/log" -D "$work/data" start >/dev/null
trap '"${as_pg[@]}" "$bin/pg_ctl" -m immediate -D "$work/data" stop >/dev/null 2>&1; rm -rf "$work"' EXIT
url="postgres://postgres@127.0.0.1:$port/postgres"
file="$work/state"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on loopback"
# Warm both up (the table created, the file's directory made).
"$veilkit" nonce --state "$url" >/dev/null
"$veilkit" nonce --state "$file" >/dev/null

python3 - "$veilkit" "$url" "$file" "$rounds" "$runs" "$count" <<'PY'
import statistics, subprocess, sys, time
veilkit, url, file, rounds, runs, count = sys.argv[1], sys.argv[2], sys.argv[3], *map(int, sys.argv[4:])
states = [("file", file), ("postgres", url)]

def oneoff(state):
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([veilkit, "nonce", "--state", state], stdout=subprocess.DEVNULL, check=True)
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)

def long_run(state, kind):
    t = time.perf_counter()
    subprocess.run([veilkit, "nonce", "--state", state, "--kind", kind, "-n", str(count),
                    "--format", "binary"], stdout=subprocess.DEVNULL, check=True)
    return count / (time.perf_counter() - t) / 1e6

results = {}
for r in range(rounds):
    order = states if r % 2 == 0 else states[::-1]
    line = []
    for name, state in order:
        o = oneoff(state)
        c = long_run(state, "counter")
        s = long_run(state, "sortable")
        results.setdefault(name, []).append((o, c, s))
        line.append(f"{name}: one-off {o:.2f} ms, counter {c:.1f}M/s, sortable {s:.1f}M/s")
    print(f"round {r + 1}: " + "; ".join(line), flush=True)

def fig(vals, unit, digits):
    return f"{statistics.median(vals):.{digits}f} {unit} ({min(vals):.{digits}f}-{max(vals):.{digits}f})"

print()
print("| state | one-off `veilkit nonce` (median ms) | 128-bit counter, long run (M/s) | 128-bit sortable, long run (M/s) |")
print("|---|---:|---:|---:|")
for name, _ in states:
    rs = results[name]
    print(f"| {name} | {fig([x[0] for x in rs], 'ms', 2)} | {fig([x[1] for x in rs], 'M/s', 1)} | {fig([x[2] for x in rs], 'M/s', 1)} |")
f = [x[0] for x in results["file"]]
p = [x[0] for x in results["postgres"]]
print(f"\none-off difference, postgres - file, per round (ms): {', '.join(f'{b - a:.2f}' for a, b in zip(f, p))}")
PY
