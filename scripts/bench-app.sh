#!/usr/bin/env bash
# `make bench-app`: the app's performance goals (issue 7) measured in the release app under Xvfb,
# through tauri-driver over WebKitWebDriver (scripts/e2e.sh's set-up, running only
# tests/e2e/perf.bench.mjs, then the memory walk, tests/e2e/memory.bench.mjs, then a Kafka
# cluster's window, tests/e2e/cluster.bench.mjs). Needs the release app and CLI (`make bench-app`
# builds them). Figures: artifacts/bench-app.json, artifacts/bench-app-memory.json and
# artifacts/bench-app-cluster.json.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# BENCH_APP: another build of the app to measure (say, an older one, for a before/after).
export TWAINMQ_APP="${BENCH_APP:-$root/target/release/twainmq-desktop}"
export TWAINMQ_BIN="$root/target/release/twainmq"
for b in "$TWAINMQ_APP" "$TWAINMQ_BIN"; do
  [ -x "$b" ] || { echo "missing $b: run make bench-app (it builds the release app and CLI)" >&2; exit 1; }
done
export E2E_ARTIFACTS="${BENCH_SHOTS:-$root/artifacts/bench-app}"
export BENCH_JSON="${BENCH_JSON:-$root/artifacts/bench-app.json}"
bash scripts/e2e.sh --run node perf.bench.mjs
# The app's memory over a walk repeated round after round (tests/e2e/memory.bench.mjs).
bash scripts/e2e.sh --run node memory.bench.mjs
# A Kafka cluster's window against nisshi (tests/e2e/cluster.bench.mjs; said and skipped when the
# broker is not built): artifacts/bench-app-cluster.json.
exec bash scripts/e2e.sh --run node cluster.bench.mjs
