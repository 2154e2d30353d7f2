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
# FULL_EVERY=N (2, 4, 8 or 16; default 2) serves full-size bodies for one prefix in N
# instead of every other one: the index written shrinks with it (about 4.8 GB at 8), for a
# machine without 19 GB to spare; the CPU per GB received and per request are measured the
# same way.
#
# BASELINE=/path/to/another/veilkit runs each of the three downloads with it too, right
# after veilkit's (an older build, to measure a change in the same run).
#
# Needs nginx (Debian: nginx-light), python3, gzip and zstd.
set -euo pipefail
out=${1:-/tmp/download-cpu}
every=${FULL_EVERY:-2}
case $every in 2 | 4 | 8 | 16) ;; *) echo "FULL_EVERY is 2, 4, 8 or 16" >&2; exit 2 ;; esac
# The last hex digits of the prefixes served a full-size body (that digit's body), and the rest.
full=$(python3 -c "import sys; n=int(sys.argv[1]); print(''.join('%X' % d for d in range(16) if d % n == 0))" "$every")
rest=$(python3 -c "import sys; n=int(sys.argv[1]); print(''.join('%X' % d for d in range(16) if d % n))" "$every")
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
        location ~ "^/gz/[0-9A-F]{4}([$full])\$" { try_files /bodies/\$1.txt =404; }
        location ~ "^/gz/[0-9A-F]{4}[$rest]\$" { try_files /one.txt =404; }
        location ~ "^/zst/[0-9A-F]{4}([$full])\$" { gzip_static off; add_header Content-Encoding zstd; try_files /bodies/\$1.txt.zst =404; }
        location ~ "^/zst/[0-9A-F]{4}[$rest]\$" { gzip_static off; add_header Content-Encoding zstd; try_files /one.txt.zst =404; }
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
# Bytes received: each last digit is 65,536 prefixes; the bodies served, exactly.
received() {
    python3 -c "import os,sys; d,n,x=sys.argv[1],int(sys.argv[2]),sys.argv[3]; print(sum(os.path.getsize(f'{d}/bodies/{v:X}.txt.{x}') if v % n == 0 else os.path.getsize(f'{d}/one.txt.{x}') for v in range(16)) * 65536)" "$work" "$every" "$1"
}
gz_bytes=$(received gz)
zst_bytes=$(received zst)
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
            gz) what="1 in $every full-size, gzip:" extra=", $gz_bytes bytes received" ;;
            zst) what="1 in $every full-size, zstd:" extra=", $zst_bytes bytes received" ;;
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
