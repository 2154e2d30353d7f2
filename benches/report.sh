#!/usr/bin/env bash
# Regenerates the measured parts of docs/BENCHMARKS.md and the README's headline table:
# the one command behind every figure those files carry, so the numbers and the text
# cannot drift apart.
#
#   benches/report.sh [--quick|--full] [BENCH...]
#
# Runs, in order, on this machine (the release build):
#   1. `veilkit bench all --json` (--quick / --full pass through);
#   2. each cargo bench named (default: the set below; `none` for none), output kept verbatim;
#   3. benches/report.py, which writes the tables between the `<!-- generated:NAME -->`
#      markers of docs/BENCHMARKS.md and README.md, leaving the prose around them alone.
# Raw outputs stay in target/report/ (bench.json, BENCH.txt, machine.txt), so
# `benches/report.py` alone re-renders them without measuring again.
#
# Scripts that drive outside programs (nginx, wrk, curl, PostgreSQL, Tkrzw) keep their own
# commands, given in docs/BENCHMARKS.md; each section there says how it was produced.
set -euo pipefail
cd "$(dirname "$0")/.."

scale=()
benches=()
for arg in "$@"; do
    case "$arg" in
        --quick|--full) scale=("$arg") ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) benches+=("$arg") ;;
    esac
done
if [ ${#benches[@]} -eq 0 ]; then
    # The criterion-free benches that need no outside data or program, in the order the
    # document shows them. `tiers` and `breach` build a 2M-hash index of their own unless
    # VEILKIT_BENCH_INDEX / VEILKIT_BENCH_DUMP name a larger one.
    benches=(ids nonces records records_compress oneshot tiers range_bodies)
fi
[ "${benches[*]}" = none ] && benches=()

out=target/report
mkdir -p "$out"
cargo build --release --locked --quiet
{
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "cores: $(nproc)"
    echo "memory: $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)"
    echo "kernel: $(uname -sr)"
    echo "rustc: $(rustc --version)"
    echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with local changes)')"
    echo "date: $(date -u +%Y-%m-%d)"
} >"$out/machine.txt"

echo "== veilkit bench all ${scale[*]} --json" >&2
target/release/veilkit bench all "${scale[@]}" --json >"$out/bench.json"

for b in "${benches[@]}"; do
    echo "== cargo bench --bench $b" >&2
    extra=()
    # The ids bench compares single calls with chained rows; --quick keeps it short.
    [ "$b" = ids ] && extra=(-- --quick)
    cargo bench --locked --quiet --features bench --bench "$b" "${extra[@]}" | tee "$out/$b.txt" >&2
done

python3 benches/report.py "$out"
