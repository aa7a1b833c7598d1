#!/usr/bin/env bash
# End-to-end tests of the real app: Xvfb, tauri-driver over WebKitWebDriver, node's test runner.
# Usage: scripts/e2e.sh [test files...]   (needs `make app` first)
#        scripts/e2e.sh --run COMMAND...  runs COMMAND in tests/e2e instead (scripts/bench-app.sh)
# TWAINMQ_APP, TWAINMQ_BIN and E2E_ARTIFACTS may name other builds and folders; E2E_DISPLAY and
# E2E_DRIVER_PORT pick the X display and tauri-driver's port (default: random ones), so that runs
# side by side on one machine need not draw lots.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export TWAINMQ_APP="${TWAINMQ_APP:-$root/target/debug/twainmq-desktop}"
export TWAINMQ_BIN="${TWAINMQ_BIN:-$root/target/debug/twainmq}"
export E2E_ARTIFACTS="${E2E_ARTIFACTS:-$root/artifacts/e2e}"
mkdir -p "$E2E_ARTIFACTS"
work=$(mktemp -d)
export E2E_WORK="$work"
# The app keeps its recent-stores list and demo store here, not in the user's home.
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

display="${E2E_DISPLAY:-:$(( 90 + RANDOM % 9 ))}"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY="$display"
port="${E2E_DRIVER_PORT:-$(( 4444 + RANDOM % 500 ))}"
export E2E_DRIVER_PORT=$port
tauri-driver --port "$port" --native-port $(( port + 1000 )) --native-driver /usr/bin/WebKitWebDriver >"$work/driver.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  if curl -s "http://127.0.0.1:$port/status" >/dev/null 2>&1; then break; fi
  sleep 0.1
done
cd tests/e2e
status=0
if [ "${1:-}" = "--run" ]; then
  shift
  "$@" || status=$?
else
  files=("$@")
  # The cluster window's tests need the broker: `make kafka-test` runs them once it is built.
  if [ ${#files[@]} -eq 0 ]; then files=($(ls *.test.mjs | grep -v '^cluster\.test\.mjs$')); fi
  node --test --test-concurrency=1 "${files[@]}" || status=$?
fi
if [ $status -ne 0 ]; then
  echo "--- tauri-driver log"; tail -n 40 "$work/driver.log" || true
fi
exit $status
