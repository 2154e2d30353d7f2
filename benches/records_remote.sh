#!/usr/bin/env bash
# veilkit records at a URL beside the same file on local disk, in one run (issue 67):
# a 200,000-row people CSV (13 MB sealed) served by a throwaway nginx on loopback, reached
# directly (0 ms) and through a proxy that delays each direction by 10 ms (a 20 ms round
# trip; benches/common/delay_proxy.py: tc netem needs a kernel module this machine lacks).
# Each of ROUNDS rounds runs, alternating the three places, fresh processes (cold: nothing
# fetched or decrypted before):
#   - one cold `records get FILE KEY`: requests and bytes (from nginx's log), wall time;
#   - `records get FILE --keys K` for BATCH random keys (present and absent): gets/s.
# The file is sealed with --tag-bits TAG_BITS (default 32, as for -o s3://). Then a survey:
# SURVEY cold gets of random keys at 0 ms from the file sealed with 16-bit tags and from
# the one with 32-bit tags: how many take each count of requests, and the most bytes.
# Prints each round and the medians with their ranges.
#
#   benches/records_remote.sh                  # ROUNDS=5 BATCH="2000 200000" SURVEY=500
#
# Needs nginx (Debian: nginx-light) and python3.
set -euo pipefail
veilkit=$(realpath "${VEILKIT:-target/release/veilkit}")
rounds=${ROUNDS:-5}
batches=${BATCH:-2000 200000}
tag_bits=${TAG_BITS:-32}
survey=${SURVEY:-500}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
mkdir -p "$work/www"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
slow=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 - "$work/people.csv" <<'PY'
import random, sys
random.seed(1)
with open(sys.argv[1], "w") as f:
    f.write("id,name,email,city,score\n")
    for i in range(200000):
        f.write(f"{i},name{random.randint(0, 10**6)},user{i}@example.com,city{random.randint(0, 999)},{random.random():.6f}\n")
PY
"$veilkit" keygen -o "$work/k.key"
for bits in 16 32; do
    "$veilkit" records seal -q "$work/people.csv" --key-field id -o "$work/www/people$bits.vkr" \
        --tag-bits "$bits" --key-file "$work/k.key"
done
cp "$work/www/people$tag_bits.vkr" "$work/www/people.vkr"
chmod 0644 "$work"/www/*.vkr
chmod 0755 "$work" "$work/www"
. "$here/common/nginx.sh"
nginx_start "$work" "$(cat <<CONF
    log_format r '\$body_bytes_sent';
    server {
        listen 127.0.0.1:$port;
        root $work/www;
        gzip off;
        access_log $work/access.log r;
    }
CONF
)"
python3 "$here/common/delay_proxy.py" "$slow" "$port" 10 >"$work/proxy.log" 2>&1 &
proxy=$!
trap "kill $proxy 2>/dev/null; nginx -c '$work/nginx.conf' -p '$work' -s stop; rm -rf '$work'" EXIT
until grep -q ready "$work/proxy.log"; do sleep 0.1; done
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; nginx $(nginx -v 2>&1 | cut -d/ -f2) on loopback; file $(stat -c %s "$work/www/people.vkr") bytes ($tag_bits-bit tags; 16-bit: $(stat -c %s "$work/www/people16.vkr"))"
python3 - "$veilkit" "$work" "$port" "$slow" "$rounds" "$survey" $batches <<'PY'
import collections, random, statistics, subprocess, sys, time
veilkit, work, port, slow, rounds, survey = sys.argv[1:7]
batches = [int(b) for b in sys.argv[7:]]
places = {
    "local": f"{work}/www/people.vkr",
    "url 0 ms": f"http://127.0.0.1:{port}/people.vkr",
    "url 20 ms": f"http://127.0.0.1:{slow}/people.vkr",
}
log = f"{work}/access.log"
def run(args, stdin=None):
    t = time.perf_counter()
    subprocess.run([veilkit, "records", "get", *args, "--key-file", f"{work}/k.key"],
                   stdout=subprocess.DEVNULL, stdin=stdin, check=False)
    return time.perf_counter() - t
def logged():
    lines = open(log).read().split()
    open(log, "w").close()
    return len(lines), sum(int(x) for x in lines)
results = {}
rng = random.Random(7)
for r in range(int(rounds)):
    for place, f in places.items():
        key = str(rng.randrange(0, 200000))
        open(log, "w").close()
        t = run([f, key])
        n, b = logged()
        results.setdefault((place, "cold get ms"), []).append(t * 1000)
        if place != "local":
            results.setdefault((place, "cold get requests"), []).append(n)
            results.setdefault((place, "cold get bytes"), []).append(b)
        for batch in batches:
            keys = "".join(f"{rng.randrange(0, 220000)}\n" for _ in range(batch))
            path = f"{work}/keys"
            open(path, "w").write(keys)
            t = run([f, "--keys", path])
            results.setdefault((place, f"gets/s, {batch} keys"), []).append(batch / t)
            logged()
    print(f"round {r + 1}: " + "; ".join(f"{p} {m} {v[-1]:.0f}" for (p, m), v in results.items()), flush=True)
print()
print("| place | measure | median | range |")
print("|---|---|---:|---|")
for (place, m), v in results.items():
    print(f"| {place} | {m} | {statistics.median(v):,.0f} | {min(v):,.0f}-{max(v):,.0f} |")
print()
print("| tags | cold gets | by requests | most bytes |")
print("|---|---:|---|---:|")
for bits in (16, 32):
    seen, most = collections.Counter(), 0
    for _ in range(int(survey)):
        open(log, "w").close()
        run([f"http://127.0.0.1:{port}/people{bits}.vkr", str(rng.randrange(0, 200000))])
        n, b = logged()
        seen[n] += 1
        most = max(most, b)
    shown = ", ".join(f"{n}: {c}" for n, c in sorted(seen.items()))
    print(f"| {bits}-bit | {survey} | {shown} | {most:,} |", flush=True)
PY
