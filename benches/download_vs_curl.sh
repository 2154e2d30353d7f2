#!/usr/bin/env bash
# breach download against curl, side by side, interleaved (issue 18's benchmark).
#
# Serves the export-ranges tree of an index with a local nginx (gzip on, keep-alive),
# then alternates: curl --parallel --parallel-max 64 fetching all 1,048,576 ranges into
# files (no index), and `veilkit breach download` of the same URLs into an index, which
# must be byte-identical to INDEX. Prints wall and CPU seconds and peak RSS of each run.
# Then `breach update` of the last download with nothing changed (1,048,576 conditional
# requests answered 304), with its summary (bytes received) as JSON, and the build alone
# from the tree, to split download's CPU time between fetching and building.
#
#   benches/download_vs_curl.sh data/hibp-100m.idx [ROUNDS]
#
# TREE names an existing tree (else one is exported to /tmp); SKIP_CURL=1 leaves curl out.
#
# Needs nginx (Debian: nginx-light) and curl; uses /tmp for the tree and the outputs.
set -euo pipefail
index=$1
rounds=${2:-2}
veilkit=${VEILKIT:-target/release/veilkit}
tree=${TREE:-/tmp/bench-ranges}
work=$(mktemp -d)
port=8780
if [ ! -d "$tree" ]; then
    "$veilkit" breach export-ranges -q -i "$index" -o "$tree"
fi
. "$(dirname "$0")/common/nginx.sh"
nginx_start "$work" "$(cat <<CONF
    include /etc/nginx/mime.types;
    gzip on; gzip_types text/plain; gzip_min_length 1; gzip_comp_level 1;
    server { listen 127.0.0.1:$port; root $tree; }
CONF
)"
python3 - "$work" "$port" <<'PY'
import sys
work, port = sys.argv[1], sys.argv[2]
with open(f"{work}/curl.cfg", "w") as f:
    for p in range(1 << 20):
        h = "%05X" % p
        f.write(f'url = "http://127.0.0.1:{port}/{h}.txt"\noutput = "{work}/curl/{h}.txt"\n')
PY
measure() { /usr/bin/time -f "%e s wall, %U s user, %S s system, %M KiB peak RSS" "$@"; }
for r in $(seq "$rounds"); do
    if [ -z "${SKIP_CURL:-}" ]; then
        rm -rf "$work/curl"; mkdir "$work/curl"
        echo "== round $r: curl --parallel --parallel-max 64 --compressed"
        measure curl -sS --no-progress-meter --parallel --parallel-max 64 --compressed -K "$work/curl.cfg"
        echo "   bytes: $(du -sb "$work/curl" | cut -f1)"
    fi
    rm -rf "$work/curl" "$work/out.idx" "$work/out.idx.validators"
    echo "== round $r: veilkit breach download --parallel 64"
    measure "$veilkit" breach download --parallel 64 \
        --source "http://127.0.0.1:$port/{prefix}.txt" -o "$work/out.idx"
    cmp "$work/out.idx" "$index" && echo "   byte-identical to $index"
done
# No range changed: every conditional request is answered 304 (nginx's ETag and
# Last-Modified of the files), and the index is taken from the old one.
echo "== veilkit breach update, nothing changed"
measure "$veilkit" breach update --json --parallel 64 \
    --source "http://127.0.0.1:$port/{prefix}.txt" "$work/out.idx" -o "$work/same.idx"
cmp "$work/same.idx" "$index" && echo "   byte-identical to $index"
# The build alone from the same tree on disk (no network): what of download's CPU time is
# the index build's rather than the fetching's.
echo "== veilkit breach build of the tree (no network)"
measure "$veilkit" breach build -q "$tree" -o "$work/built.idx"
