#!/usr/bin/env bash
# Ids inside PostgreSQL (issue: ids sql): the functions of `veilkit ids sql` against the
# floor of their construction, in one connection, rounds interleaved, medians and ranges.
#
#   benches/ids_pg.sh [ROUNDS] [N]        (defaults 5 rounds of 1,000,000 ids)
#
# Starts a throwaway cluster (Debian's PostgreSQL 15 or later with pgcrypto; as the
# postgres user when run as root) in a temporary directory on a loopback port, installs
# the default functions (uuid scheme, 3 rounds) and the aes128/base62 ones, and times:
#   encode        SELECT count(veilkit.encode(i)) FROM generate_series(1, N) i
#   decode        the same ids decoded (decode(encode(i)) less encode, per id)
#   random uuid   SELECT count(gen_random_uuid()) ...
#   3 x encrypt   three chained pgcrypto encrypt() calls per row (aes-ecb, one block):
#                 the floor of a three-round construction through pgcrypto
#   page of 100   a view's page, keyset-paginated: SELECT * FROM api_users WHERE uid > 50000
#                 ORDER BY uid LIMIT 100, over a 100k-row table, ids encoded in the view
# Build first: cargo build --release.
set -euo pipefail
ROUNDS=${1:-5}
N=${2:-1000000}
here=$(cd "$(dirname "$0")/.." && pwd)
veilkit="$here/target/release/veilkit"
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "needs PostgreSQL: apt-get install postgresql postgresql-contrib" >&2; exit 1; }
dir=$(mktemp -d)
run=()
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; run=(runuser -u postgres --); fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"${run[@]}" "$bin/initdb" -A trust -U postgres --no-sync -D "$dir/data" >/dev/null
"${run[@]}" "$bin/pg_ctl" -w -o "-p $port -k $dir -c listen_addresses=127.0.0.1" -l "$dir/log" -D "$dir/data" start >/dev/null
trap '"${run[@]}" "$bin/pg_ctl" -m immediate -D "$dir/data" stop >/dev/null 2>&1; rm -rf "$dir"' EXIT
psql=(psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres)
key="$dir/k.key"
"$veilkit" keygen -o "$key"
"$veilkit" ids sql --key-file "$key" | "${psql[@]}"
"$veilkit" ids sql --scheme aes128 --format base62 --context b62 --key-file "$key" | "${psql[@]}"
"${psql[@]}" -c "CREATE TABLE users AS SELECT i::bigint AS id, 'user ' || i AS name FROM generate_series(1, 100000) i;
ALTER TABLE users ADD PRIMARY KEY (id); ANALYZE users;
CREATE VIEW api_users AS SELECT id AS uid, veilkit.encode(id) AS id, name FROM users;"

k1="'\\x000102030405060708090a0b0c0d0e0f'::bytea"
k2="'\\x101112131415161718191a1b1c1d1e1f'::bytea"
k3="'\\x202122232425262728292a2b2c2d2e2f'::bytea"
declare -A query=(
  [encode]="SELECT count(veilkit.encode(i)) FROM generate_series(1, $N) i"
  [encode+decode]="SELECT count(veilkit.decode(veilkit.encode(i))) FROM generate_series(1, $N) i"
  [base62 encode]="SELECT count(veilkit.encode_b62(i)) FROM generate_series(1, $N) i"
  [random uuid]="SELECT count(gen_random_uuid()) FROM generate_series(1, $N) i"
  [3 x encrypt]="SELECT count(encrypt(encrypt(encrypt(int8send(i) || int8send(0), $k1, 'aes-ecb/pad:none'), $k2, 'aes-ecb/pad:none'), $k3, 'aes-ecb/pad:none')) FROM generate_series(1, $N) i"
  [page of 100]="SELECT count(*) FROM (SELECT * FROM api_users WHERE uid > 50000 ORDER BY uid LIMIT 100) p"
)
order=("encode" "encode+decode" "base62 encode" "random uuid" "3 x encrypt" "page of 100")
declare -A times
for ((r = 0; r < ROUNDS; r++)); do
  for q in "${order[@]}"; do
    ms=$( { echo '\timing on'; echo "${query[$q]};"; } | "${psql[@]}" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
    times[$q]="${times[$q]:-} $ms"
  done
done
echo "PostgreSQL $("${psql[@]}" -c 'SHOW server_version'), $N ids a query, $ROUNDS interleaved rounds, one connection"
printf '%-16s %14s %22s\n' "query" "µs per id" "[range]"
for q in "${order[@]}"; do
  per=$N; [ "$q" = "page of 100" ] && per=1
  echo "${times[$q]}" | tr ' ' '\n' | grep . | sort -g | awk -v q="$q" -v n="$per" '
    { v[NR] = $1 * 1000 / n }
    END { m = v[int((NR + 1) / 2)]; printf "%-16s %14.2f %10.2f-%-10.2f\n", q, m, v[1], v[NR] }'
done
echo "(decode alone = encode+decode less encode; page of 100 is in µs per page)"
