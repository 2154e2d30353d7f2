#!/usr/bin/env bash
# breach download: the client's CPU per GB of range bodies received (issue 18), for gzip
# and Zstandard bodies of the full data's size.
#
# A local nginx serves 16 full-size range bodies (about 1,950 lines, 76 KB each, as the real
# API's ranges are at 2 billion hashes; the prefix's last digit picks one) for every other
# prefix and a one-line body for the rest, pre-compressed (gzip -6 and zstd -3, served as
# files: the server costs next to nothing). Three downloads of all 1,048,576 ranges:
# one-line bodies only (the cost of a request), then half full-size as gzip, then as
# Zstandard. Prints each run's wall and CPU seconds, and the CPU per GB received and per
# request they give, with what that makes at full scale (45 GB gzipped, 41 GB Zstandard).
# The indexes are about 19 GB each (written and removed in turn under OUT).
#
#   benches/download_cpu.sh [OUT]
#
# BASELINE=/path/to/another/veilkit runs each of the three downloads with it too, right
# after veilkit's (an older build, to measure a change in the same run).
#
# Needs nginx (Debian: nginx-light), python3, gzip and zstd.
set -euo pipefail
out=${1:-/tmp/download-cpu}
veilkit=${VEILKIT:-target/release/veilkit}
work=$(mktemp -d)
port=8791
mkdir -p "$work/bodies" "$out"
# nginx's workers run as an unprivileged user: they must read the bodies.
chmod 755 "$work"
python3 - "$work" <<'PY'
import random, sys
work = sys.argv[1]
rng = random.Random(7)
for v in range(16):
    n = int(rng.gauss(1950, 45))
    suffixes = sorted({rng.getrandbits(140) for _ in range(n)})
    lines = []
    for s in suffixes:
        count = int(1 / (1 - rng.random()) ** (1 / 1.1))
        lines.append("%035X:%d" % (s, min(count, 5_000_000)))
    open(f"{work}/bodies/{v:X}.txt", "w").write("\r\n".join(lines))
open(f"{work}/one.txt", "w").write("0123456789ABCDEF0123456789ABCDEF012:1")
PY
for f in "$work"/bodies/*.txt "$work/one.txt"; do
    gzip -6 -k "$f"
    zstd -q -3 "$f" -o "$f.zst"
done
. "$(dirname "$0")/common/nginx.sh"
nginx_start "$work" "$(cat <<CONF
    default_type text/plain;
    server {
        listen 127.0.0.1:$port;
        root $work;
        gzip_static on;
        location ~ "^/one/[0-9A-F]{5}\$" { try_files /one.txt =404; }
        location ~ "^/gz/[0-9A-F]{4}([02468ACE])\$" { try_files /bodies/\$1.txt =404; }
        location ~ "^/gz/[0-9A-F]{4}[13579BDF]\$" { try_files /one.txt =404; }
        location ~ "^/zst/[0-9A-F]{4}([02468ACE])\$" { gzip_static off; add_header Content-Encoding zstd; try_files /bodies/\$1.txt.zst =404; }
        location ~ "^/zst/[0-9A-F]{4}[13579BDF]\$" { gzip_static off; add_header Content-Encoding zstd; try_files /one.txt.zst =404; }
    }
CONF
)"
run() {
    rm -f "$out"/x.idx "$out"/x.idx.validators "$out"/.x.idx.download*
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$2" breach download -q --parallel 64 \
        --source "http://127.0.0.1:$port/$1/{prefix}" -o "$out/x.idx"
    read -r wall user sys < "$work/time"
    rm -f "$out/x.idx" "$out/x.idx.validators"
    echo "$wall $(echo "$user + $sys" | bc)"
}
gz_bytes=$(python3 -c "import os,sys; d=sys.argv[1]; print(sum(os.path.getsize(f'{d}/bodies/{v:X}.txt.gz') for v in range(16)) * 32768 + 524288 * os.path.getsize(f'{d}/one.txt.gz'))" "$work")
zst_bytes=$(python3 -c "import os,sys; d=sys.argv[1]; print(sum(os.path.getsize(f'{d}/bodies/{v:X}.txt.zst') for v in range(16)) * 32768 + 524288 * os.path.getsize(f'{d}/one.txt.zst'))" "$work")
names=(veilkit)
bins=("$veilkit")
if [ -n "${BASELINE:-}" ]; then
    names+=(baseline)
    bins+=("$BASELINE")
fi
declare -A c
for case in one gz zst; do
    for i in "${!bins[@]}"; do
        read -r w t <<< "$(run $case "${bins[$i]}")"
        c[$case.$i]=$t
        case $case in
            one) what="one-line bodies:     " extra="" ;;
            gz) what="half full-size, gzip:" extra=", $gz_bytes bytes received" ;;
            zst) what="half full-size, zstd:" extra=", $zst_bytes bytes received" ;;
        esac
        echo "${names[$i]} $what $w s wall, $t s CPU$extra"
    done
done
for i in "${!bins[@]}"; do
    python3 - "${names[$i]}" "${c[one.$i]}" "${c[gz.$i]}" "${c[zst.$i]}" "$gz_bytes" "$zst_bytes" <<'PY'
import sys
who = sys.argv[1]
c1, c2, c3, gz, zst = map(float, sys.argv[2:])
req = c1 / 1048576
for name, c, b, full in (("gzip", c2, gz, 45e9), ("zstd", c3, zst, 41e9)):
    per_gb = (c - c1) / (b / 1e9)
    total = per_gb * full / 1e9 + req * 1048576
    print(f"{who} {name}: {per_gb:.1f} s of CPU per GB received, {req * 1e6:.0f} us a request; "
          f"full scale ({full / 1e9:.0f} GB) {total:.0f} s, {total / (full / 125e6):.2f} of a core at 1 Gbit/s")
PY
done
