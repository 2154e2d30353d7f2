#!/usr/bin/env bash
# A fuzz campaign: each target given (all when none) runs for SECONDS (default 1800)
# under libFuzzer with AddressSanitizer, growing its corpus in fuzz/corpus/TARGET/ and
# saving anything it finds in fuzz/artifacts/TARGET/. Prints one line per target:
# executions, corpus size, findings. Needs nightly and cargo-fuzz:
#   rustup toolchain install nightly && cargo install cargo-fuzz
#   fuzz/campaign.sh                      # every target, 30 minutes each
#   SECONDS_EACH=60 fuzz/campaign.sh id_text key_file
# Afterwards, keep the corpora small (`cargo +nightly fuzz cmin TARGET`) and commit
# them with any finding's input: `cargo test` replays them (tests/cli/fuzz_replay.rs).
set -euo pipefail
cd "$(dirname "$0")"
each=${SECONDS_EACH:-1800}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build >/dev/null
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t" logs
    log="logs/$t.log"
    # One job: the other core is the machine's. A finding stops the run (libFuzzer's
    # default), so the time it ran is measured, not assumed.
    started=$SECONDS
    cargo +nightly fuzz run "$t" "corpus/$t" -- -max_total_time="$each" \
        -rss_limit_mb=4096 -timeout=30 -print_final_stats=1 >"$log" 2>&1 || true
    ran=$((SECONDS - started))
    execs=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$log" | grep -o "[0-9]*$" | tail -1 || true)
    [ -n "$execs" ] || execs=$(grep -o "^#[0-9]*" "$log" | tail -1 | tr -d '#' || true)
    found=$(find "artifacts/$t" -type f | wc -l)
    echo "$t: ${execs:-?} executions in ${ran} s (of ${each}), corpus $(ls "corpus/$t" | wc -l) files, findings ${found}"
done
