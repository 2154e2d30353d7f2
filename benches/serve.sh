#!/usr/bin/env bash
# Range-server throughput beside nginx serving the exported range files (issue: breach
# index at full scale). Needs wrk and nginx (Debian: apt-get install wrk nginx).
#
#   benches/serve.sh data/hibp-100m.idx [seconds per run] [rounds]
#
# Exports the index's range files next to it (once), then alternates wrk runs against
# `veilkit breach serve` (port 8000) and nginx (port 8081), 64 connections, random
# prefixes from one Lua script, and prints every run and the medians.
set -euo pipefail
index=${1:?usage: benches/serve.sh INDEX [seconds] [rounds]}
secs=${2:-8}
rounds=${3:-3}
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/veilkit
ranges="${index%.*}.ranges"
[ -d "$ranges" ] || "$bin" breach export-ranges -i "$index" -o "$ranges"
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; nginx -p "$work" -c "$work/nginx.conf" -s stop 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/logs"
cat > "$work/ranges.lua" <<'LUA'
math.randomseed(12345)
request = function()
  return wrk.format("GET", string.format("/range/%05X", math.random(0, 1048575)))
end
LUA
# nginx at its best measured here: two workers, sendfile, a small open-file cache (a large
# one runs out of descriptors), unlimited keep-alive requests, no access log.
cat > "$work/nginx.conf" <<NGINX
worker_processes 2;
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
  server {
    listen 127.0.0.1:8081;
    location /range/ {
      root $(realpath "$ranges");
      rewrite "^/range/([0-9A-F]{5})\$" /\$1.txt break;
    }
  }
}
NGINX
nginx -p "$work" -c "$work/nginx.conf"
"$bin" -q breach serve -i "$index" --listen 127.0.0.1:8000 &
server=$!
sleep 1
[ "$(curl -s http://127.0.0.1:8000/range/5BAA6 | md5sum)" = "$(curl -s http://127.0.0.1:8081/range/5BAA6 | md5sum)" ] \
    || { echo "the two servers disagree on /range/5BAA6" >&2; exit 1; }
declare -a vk ng
for r in $(seq "$rounds"); do
    for port in 8000 8081; do
        rate=$(wrk -t1 -c64 -d"${secs}s" -s "$work/ranges.lua" "http://127.0.0.1:$port/" | awk '/Requests\/sec/ {print $2}')
        echo "round $r port $port: $rate requests/s"
        if [ "$port" = 8000 ]; then vk+=("$rate"); else ng+=("$rate"); fi
    done
done
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
v=$(med "${vk[@]}"); n=$(med "${ng[@]}")
echo "veilkit breach serve: median $v requests/s (target >= 50000)"
echo "nginx (range files):  median $n requests/s"
awk -v v="$v" -v n="$n" 'BEGIN { printf "ratio: %.2f (target >= 0.8)\n", v / n }'
