#!/usr/bin/env bash
# Fuzz the engine: run every cargo-fuzz target in fuzz/ for RUNS executions
# (default 10,000,000) and print, per target, executions, time and result.
# This is for `make fuzz`, not `make test`: a full run takes an hour or more.
#
#   scripts/fuzz.sh [RUNS] [TARGET...]
#
# Environment:
#   FUZZ_MAX_TIME     seconds per target before giving up on RUNS (default 7200)
#   FUZZ_GROW_CORPUS  1: add new interesting inputs to the committed fuzz/corpus/<target>
#                     (then minimise: cargo fuzz cmin -s none <target>); otherwise they go
#                     to fuzz/target/new-corpus/<target> and the committed corpus is only read.
#
# Only stable Rust is needed: cargo-fuzz's nightly flags are allowed with RUSTC_BOOTSTRAP=1.
# Crashes are written to fuzz/artifacts/<target>/; reproduce one with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run -s none <target> fuzz/artifacts/<target>/<file>   (in fuzz/)
# The checks live in fuzz/src/checks.rs; `cargo test -p twainmq --test fuzz_regressions`
# replays the committed corpus through them.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS="${1:-10000000}"
[ $# -gt 0 ] && shift
MAX_TIME="${FUZZ_MAX_TIME:-7200}"
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

cd fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list)
fi

# The sanitizer is off: the engine is safe Rust (unsafe_code is denied), and
# ASan would halve the executions. Debug assertions and overflow checks stay on.
echo "building ${#targets[@]} fuzz targets"
cargo fuzz build -s none

results=()
failed=0
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "target/new-corpus/$t"
    if [ "${FUZZ_GROW_CORPUS:-0}" = 1 ]; then
        dirs=("corpus/$t")
    else
        dirs=("target/new-corpus/$t" "corpus/$t")
    fi
    # Structured targets read a sequence of records or offers: past a few hundred
    # bytes, longer inputs mostly cost time.
    case "$t" in
        group_log | assign) extra=(-max_len=256) ;;
        *) extra=() ;;
    esac
    log="target/fuzz-$t.log"
    echo "fuzzing $t for $RUNS executions (at most ${MAX_TIME}s; log fuzz/$log)"
    start=$(date +%s)
    status=0
    nice cargo fuzz run -s none "$t" "${dirs[@]}" -- \
        -runs="$RUNS" -max_total_time="$MAX_TIME" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 "${extra[@]}" \
        >"$log" 2>&1 || status=$?
    secs=$(($(date +%s) - start))
    execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -n 1)
    execs=${execs:-0}
    if [ "$status" -ne 0 ]; then
        artifact=$(grep -o 'Test unit written to [^ ]*' "$log" | tail -n 1 | sed 's/Test unit written to //')
        result="FAILED (exit $status) ${artifact:+input $artifact}"
        grep -m 3 -E "panicked at|assertion|ERROR: libFuzzer" "$log" | sed 's/^/    /' || true
        failed=1
    elif [ "$execs" -ge "$RUNS" ]; then
        result="ok"
    else
        result="ok, but stopped at the ${MAX_TIME}s limit"
    fi
    results+=("$(printf '%-16s %12s executions %7ss  %s' "$t" "$execs" "$secs" "$result")")
    echo "${results[-1]}"
done

echo
echo "fuzz summary (RUNS=$RUNS):"
printf '%s\n' "${results[@]}"
exit "$failed"
