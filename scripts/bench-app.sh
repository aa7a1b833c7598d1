#!/usr/bin/env bash
# `make bench-app`: the app's performance goals (issue 7) measured in the release app under Xvfb,
# through tauri-driver over WebKitWebDriver (like scripts/e2e.sh, but only tests/e2e/perf.bench.mjs).
# Needs the release app and CLI (`make bench-app` builds them). Figures: artifacts/bench-app.json.
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
mkdir -p "$E2E_ARTIFACTS"
work=$(mktemp -d)
export E2E_WORK="$work"
# The app keeps its recent-stores list and demo store here, not in the user's home.
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

display=":$(( 90 + RANDOM % 9 ))"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY="$display"
port=$(( 4444 + RANDOM % 500 ))
export E2E_DRIVER_PORT=$port
tauri-driver --port "$port" --native-port $(( port + 1000 )) --native-driver /usr/bin/WebKitWebDriver >"$work/driver.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  if curl -s "http://127.0.0.1:$port/status" >/dev/null 2>&1; then break; fi
  sleep 0.1
done
cd tests/e2e
status=0
node perf.bench.mjs || status=$?
if [ $status -ne 0 ]; then
  echo "--- tauri-driver log"; tail -n 40 "$work/driver.log" || true
fi
exit $status
