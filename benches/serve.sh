#!/usr/bin/env bash
# Range-server throughput beside nginx serving the exported range files (issue: breach
# index at full scale). Needs wrk and nginx (Debian: apt-get install wrk nginx).
#
#   benches/serve.sh data/hibp-100m.idx [seconds per run] [rounds]
#   CODING=gzip benches/serve.sh ...     # both asked for gzip (nginx at level 1, on the fly)
#   CODING=br benches/serve.sh ...       # br (nginx's brotli filter at level 1; serve: identity)
#   VEILKIT=path/to/veilkit ...          # another build
#   BASELINE=path/to/veilkit ...         # and that build too (port 8002), in the same rounds
#   BODIES=1 CODING=zstd ...             # serve (port 8000) with --zstd-bodies, made by
#                                        # compress-ranges beside the index (once); the
#                                        # baseline, if any, without
#   WORKERS=N ...                        # N workers each (serve --threads N, nginx
#                                        # worker_processes N; default 2)
#   SERVE_WORKERS=N ...                  # serve's alone (each server at its best here)
#   PIN=1 ...                            # each server on CPU 1 with one worker (serve
#                                        # --threads 1, nginx worker_processes 1), wrk on
#                                        # CPU 0: the requests a core of the server serves,
#                                        # the client's CPU not shared with it
#
# Exports the index's range files next to it (once), reads them and the index once (warm
# page cache for both), then alternates wrk runs against
# `veilkit breach serve` (port 8000) and nginx (port 8081), 64 connections, random
# prefixes from one Lua script, and prints every run and the medians.
set -euo pipefail
index=${1:?usage: benches/serve.sh INDEX [seconds] [rounds]}
secs=${2:-8}
rounds=${3:-3}
cd "$(dirname "$0")/.."
coding=${CODING:-identity}
# WORKERS=N: each server's workers (serve --threads, nginx worker_processes; default 2).
# PIN=1: servers on CPU 1 with one worker, wrk on CPU 0.
workers=${WORKERS:-2} server_cpu=() client_cpu=()
if [ -n "${PIN:-}" ]; then
    workers=1 server_cpu=(taskset -c 1) client_cpu=(taskset -c 0)
    echo "pinned: each server on CPU 1 with one worker, wrk on CPU 0"
fi
serve_threads=(--threads "${SERVE_WORKERS:-$workers}")
if [ -n "${VEILKIT:-}" ]; then
    bin=$VEILKIT
else
    cargo build --release --quiet
    bin=target/release/veilkit
fi
ranges="${index%.*}.ranges"
[ -d "$ranges" ] || "$bin" breach export-ranges -i "$index" -o "$ranges"
bodies_args=()
if [ -n "${BODIES:-}" ]; then
    bodies="${index%.*}.bodies"
    [ -f "$bodies" ] || "$bin" breach compress-ranges -i "$index" -o "$bodies"
    bodies_args=(--zstd-bodies "$bodies")
fi
work=$(mktemp -d)
baseline=${BASELINE:-}
trap 'kill $server ${base_server:-} 2>/dev/null; nginx -p "$work" -c "$work/nginx.conf" -s stop 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/logs"
cat > "$work/ranges.lua" <<'LUA'
math.randomseed(12345)
local coding = os.getenv("CODING") or "identity"
request = function()
  return wrk.format("GET", string.format("/range/%05X", math.random(0, 1048575)),
    { ["Accept-Encoding"] = coding })
end
LUA
# nginx at its best measured here: two workers (one with PIN=1), sendfile, a small open-file cache (a large
# one runs out of descriptors), unlimited keep-alive requests, no access log.
# Brotli too where Debian's libnginx-mod-http-brotli-filter is installed (CODING=br: nginx
# compresses at level 1; serve answers br with identity).
brotli_module=/usr/lib/nginx/modules/ngx_http_brotli_filter_module.so
brotli_load="" brotli_conf=""
if [ -f "$brotli_module" ]; then
    brotli_load="load_module $brotli_module;"
    brotli_conf="brotli on; brotli_comp_level 1; brotli_min_length 0; brotli_types text/plain;"
elif [ "$coding" = br ]; then
    echo "CODING=br needs nginx's brotli filter (apt-get install libnginx-mod-http-brotli-filter)" >&2
    exit 2
fi
cat > "$work/nginx.conf" <<NGINX
$brotli_load
worker_processes $workers;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  open_file_cache max=8000 inactive=60s;
  default_type text/plain;
  gzip on;
  gzip_comp_level 1;
  gzip_min_length 0;
  gzip_types text/plain;
  $brotli_conf
  server {
    listen 127.0.0.1:8081;
    location /range/ {
      root $(realpath "$ranges");
      rewrite "^/range/([0-9A-F]{5})\$" /\$1.txt break;
    }
  }
}
NGINX
# Both servers start warm: the range files and the index read once into the page cache
# (nginx's files evicted by a build are otherwise read from disk in its first rounds).
find "$ranges" -type f -print0 | xargs -0 cat > /dev/null
cat "$index" ${bodies:+"$bodies"} > /dev/null
"${server_cpu[@]}" nginx -p "$work" -c "$work/nginx.conf"
"${server_cpu[@]}" "$bin" -q breach serve -i "$index" "${bodies_args[@]}" "${serve_threads[@]}" --listen 127.0.0.1:8000 &
server=$!
ports="8000 8081"
if [ -n "$baseline" ]; then
    "${server_cpu[@]}" "$baseline" -q breach serve -i "$index" "${serve_threads[@]}" --listen 127.0.0.1:8002 &
    base_server=$!
    ports="8000 8002 8081"
fi
# serve verifies a large index before it listens: wait for every server to answer.
for port in $ports; do
    for _ in $(seq 600); do
        curl -s -o /dev/null "http://127.0.0.1:$port/range/00000" && break
        sleep 0.1
    done
done
[ "$(curl -s --compressed -H "Accept-Encoding: $coding" http://127.0.0.1:8000/range/5BAA6 | md5sum)" = "$(curl -s --compressed -H "Accept-Encoding: $coding" http://127.0.0.1:8081/range/5BAA6 | md5sum)" ] \
    || { echo "the two servers disagree on /range/5BAA6" >&2; exit 1; }
# The processes of the server on port $1 (nginx: its master and workers).
pids_of() {
    case $1 in
        8000) echo "$server" ;;
        8002) echo "$base_server" ;;
        *) echo "$(cat "$work/nginx.pid") $(pgrep -P "$(cat "$work/nginx.pid")" | tr '\n' ' ')" ;;
    esac
}
# CPU seconds (user + system) the server on port $1 has used so far.
cpu_of() {
    for p in $(pids_of "$1"); do awk '{print $14 + $15}' "/proc/$p/stat"; done |
        awk -v hz="$(getconf CLK_TCK)" '{s += $1} END {printf "%.3f", s / hz}'
}
# Resident memory (MB) of a server now: anonymous (its own) and file-backed (for serve, the
# mapped index pages it touched, which are the page cache's, as nginx's files are).
rss_of() {
    for p in $(pids_of "$1"); do awk '/RssAnon|RssFile/ {print $1, $2}' "/proc/$p/status"; done |
        awk '{s[$1] += $2} END {printf "%.1f MB anonymous, %.1f MB file-backed", s["RssAnon:"] / 1024, s["RssFile:"] / 1024}'
}
declare -a vk ng bs
for r in $(seq "$rounds"); do
    for port in $ports; do
        before=$(cpu_of "$port")
        out=$(CODING=$coding "${client_cpu[@]}" wrk -t1 -c64 -d"${secs}s" --latency -s "$work/ranges.lua" "http://127.0.0.1:$port/")
        after=$(cpu_of "$port")
        rate=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
        total=$(echo "$out" | awk '/requests in/ {print $1}')
        p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
        p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
        cpu=$(awk -v a="$before" -v b="$after" -v n="$total" 'BEGIN {printf "%.1f", (b - a) / n * 1e6}')
        echo "round $r port $port: $rate requests/s, p50 $p50, p99 $p99, $cpu us CPU a request, $(rss_of "$port") resident"
        case $port in 8000) vk+=("$rate") ;; 8002) bs+=("$rate") ;; *) ng+=("$rate") ;; esac
    done
done
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
v=$(med "${vk[@]}"); n=$(med "${ng[@]}")
echo "veilkit breach serve: median $v requests/s (Accept-Encoding: $coding)"
echo "nginx (range files):  median $n requests/s"
if [ -n "$baseline" ]; then
    echo "baseline serve:       median $(med "${bs[@]}") requests/s"
fi
awk -v v="$v" -v n="$n" 'BEGIN { printf "ratio: %.2f (target >= 1.2)\n", v / n }'
