#!/usr/bin/env bash
# Ids through pipes, end to end (issue 22, part 2): 10M sequential ids, interleaved
# rounds of
#   seq 0 9999999 | cat > out            (the pipe's floor: the same bytes, no work)
#   seq 0 9999999 | veilkit encode > out
#   cat uuids > /dev/null                (decode's floor)
#   veilkit decode < uuids > /dev/null
# Prints each command's median and range of wall times and the median rate in ids/s.
#
# Each command writes a new `out`: the last round's is removed and the file system synced
# before the clock starts. Overwriting it instead (`> out` truncating 370 MB of the last
# round's UUIDs) times ext4 freeing that file's blocks and starting its writeback at close
# (its replace-by-truncate rule), not the command: on the Zen 3 VM 0.72 s against 0.31 s
# for the same `veilkit encode < ids > out`, which buried every change to veilkit (`seq |
# cat > out`, whose output is 79 MB, 0.46 s against 0.23). OVERWRITE=1 times that shape.
#
#   benches/ids_pipe.sh [ROUNDS]        (VEILKIT: the binary, default target/release/veilkit)
#
# BASELINE=/path/to/another/veilkit adds its encode and decode to each round (an older
# build, to measure a change in the same run).
set -euo pipefail
rounds=${1:-11}
veilkit=$(realpath "${VEILKIT:-target/release/veilkit}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$veilkit" keygen -o k.key >/dev/null 2>&1
export VEILKIT_KEY_FILE="$work/k.key"
seq 0 9999999 | "$veilkit" encode > uuids
declare -A times
names=("seq | cat > out" "seq | veilkit encode > out" "cat uuids > /dev/null" "veilkit decode < uuids > /dev/null"
       "seq | BASELINE encode > out" "BASELINE decode < uuids > /dev/null")
cases="0 1 2 3"
if [ -n "${BASELINE:-}" ]; then
    baseline=$(realpath "$BASELINE")
    cases="0 1 4 2 3 5"
fi
run() {
    case $1 in
        0) seq 0 9999999 | cat > out ;;
        1) seq 0 9999999 | "$veilkit" encode > out ;;
        2) cat uuids > /dev/null ;;
        3) "$veilkit" decode < uuids > /dev/null ;;
        4) seq 0 9999999 | "$baseline" encode > out ;;
        5) "$baseline" decode < uuids > /dev/null ;;
    esac
}
for r in $(seq "$rounds"); do
    for i in $cases; do
        if [ -z "${OVERWRITE:-}" ]; then
            rm -f out
            sync -f .
        fi
        s=$(date +%s.%N); run $i; e=$(date +%s.%N)
        times[$i]="${times[$i]:-} $(echo "$e - $s" | bc)"
    done
done
cmp <("$veilkit" decode < uuids) <(seq 0 9999999) && echo "decode gives the ids back"
for i in $cases; do
    echo "${times[$i]}" | tr ' ' '\n' | grep . | sort -n | awk -v name="${names[$i]}" '
        { v[NR] = $1 } END { m = v[int((NR + 1) / 2)];
        printf "%-36s median %.3f s (%.3f-%.3f), %.1fM ids/s\n", name, m, v[1], v[NR], 10 / m }'
done
