#!/usr/bin/env bash
# The engine's, the CLI's, the Kafka bridge's and the app's backend's test suites, built for
# Windows (x86_64-pc-windows-gnu) and run under Wine: `make test-windows`, part of `make test`
# (the app's tests embed the built web UI, ui/dist, as the app does). Tests of what Wine cannot show are
# marked `#[cfg_attr(windows, ignore = "real Windows only ...")]`, each with its reason; the
# release workflow's Windows job runs them with --include-ignored.
# `--build-only` builds them and stops: scripts/package-windows.sh packs this build's app and
# twainmq.exe for the installer test (TWAINMQ_GUI_SUBSYSTEM below).
set -euo pipefail
cd "$(dirname "$0")/../.."
build_only=0
[ "${1:-}" = --build-only ] && build_only=1
target_dir=${TWAINMQ_WINDOWS_TARGET_DIR:-$PWD/target/windows}
packages=(-p twainmq -p twainmq-cli -p twainmq-kafka -p twainmq-desktop)
# The app linked as the GUI program users get (src-tauri/build.rs), so that the installer test
# packs this build's programs; the app's tests never start the app's own .exe.
export TWAINMQ_GUI_SUBSYSTEM=1

started=$(date +%s)
echo "windows: building the engine's, CLI's and app's tests for x86_64-pc-windows-gnu"
build_log="$target_dir/test-build.log"
mkdir -p "$target_dir"
set +e
scripts/windows/cargo.sh test --no-run --locked "${packages[@]}" > "$build_log" 2>&1
status=$?
set -e
grep -Ev '^\s+(Compiling|Fresh|Checking)' "$build_log" || true
[ "$status" = 0 ] || { echo "windows: the build failed (above)" >&2; exit 1; }
# Our crates build without a warning for Windows, as clippy -D warnings holds them on Linux.
if grep -qE '^warning: `twainmq(-cli|-kafka|-desktop)?` \(' "$build_log"; then
  echo "windows: warnings in our crates' Windows build (above)" >&2
  exit 1
fi
built=$(date +%s)
if [ "$build_only" = 1 ]; then
  echo "windows: built in $((built - started)) s" >&2
  exit 0
fi
# shellcheck source=prefix.sh
source scripts/windows/prefix.sh

# Each test binary, as cargo lists it, run under Wine through run.sh, which lets the app's find
# WebView2Loader.dll (they import it, as the app does; without it they exit with 53 before their
# first test). The prefix's network drive N: is where the network-store tests put their stores.
mapfile -t exes < <(scripts/windows/cargo.sh test --no-run --locked "${packages[@]}" --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        print(m["executable"])')
[ "${#exes[@]}" -gt 0 ] || { echo "windows: no test binaries were built" >&2; exit 1; }

export TWAINMQ_TEST_NETWORK_DRIVE='N:'
log_dir="$target_dir/wine-logs"
rm -rf "$log_dir"
mkdir -p "$log_dir"
failed=() passed=0 ignored=0 fails=0
for exe in "${exes[@]}"; do
  name=$(basename "$exe" .exe)
  t0=$(date +%s)
  set +e
  timeout 1200 scripts/windows/run.sh "$exe" --test-threads 2 </dev/null > "$log_dir/$name.log" 2>&1
  rc=$?
  set -e
  result=$(grep -E '^test result:' "$log_dir/$name.log" | tail -n 1 || true)
  echo "windows: ${name%-*} ($(( $(date +%s) - t0 )) s) ${result:-no result (exit $rc)}"
  p=$(sed -nE 's/.* ([0-9]+) passed.*/\1/p' <<<"$result"); passed=$((passed + ${p:-0}))
  i=$(sed -nE 's/.* ([0-9]+) ignored.*/\1/p' <<<"$result"); ignored=$((ignored + ${i:-0}))
  f=$(sed -nE 's/.* ([0-9]+) failed.*/\1/p' <<<"$result"); fails=$((fails + ${f:-0}))
  if [ "$rc" != 0 ] || [ -z "$result" ]; then
    failed+=("$name")
    grep -E -A25 '^---- |^failures:' "$log_dir/$name.log" | head -n 120 >&2 || tail -n 40 "$log_dir/$name.log" >&2
  fi
done
# What each ignored test is left to real Windows for, as the tests say.
grep -h -E "^test .* ignored, " "$log_dir"/*.log | sed 's/^test /windows: left to real Windows: /' || true
# The network-drive test ran (it returns early without a network drive).
if ! grep -qh "^test on_a_network_drive_appends_are_locked_and_the_rollover_agreed ... ok" "$log_dir"/*.log; then
  echo "windows: the network-drive test did not pass" >&2
  failed+=("network-drive")
fi
echo "windows: $passed passed, $fails failed, $ignored left to real Windows; built in $((built - started)) s, ran in $(( $(date +%s) - built )) s"
# The Kafka bridge's twainmq.exe against a broker on this machine (scripts/windows/kafka.sh).
if ! bash scripts/windows/kafka.sh; then
  failed+=("kafka-mirror")
fi
# Large messages from twainmq.exe writers SIGKILLed at random, beside 0.2.3 producers.
if ! bash scripts/windows/torture.sh; then
  failed+=("large-message-torture")
fi
if [ "${#failed[@]}" -gt 0 ]; then
  echo "windows: FAILED under Wine: ${failed[*]} (logs in $log_dir)" >&2
  exit 1
fi
