#!/usr/bin/env bash
# The large-message crash torture (tests/torture/test_next_format.py) with our writers the
# Windows build under Wine: four `twainmq.exe produce` processes SIGKILLed at random points,
# two 0.2.3 producers (Linux Python) beside them on the same store, everything read and checked
# by the Linux build. Run by scripts/windows/test.sh (`make test-windows`).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/windows/prefix.sh
target_dir=${TWAINMQ_WINDOWS_TARGET_DIR:-$PWD/target/windows}
exe=$target_dir/x86_64-pc-windows-gnu/debug/twainmq.exe
scripts/windows/cargo.sh build --locked -p twainmq-cli >"$target_dir/torture-build.log" 2>&1 || { tail -n 40 "$target_dir/torture-build.log" >&2; exit 1; }
linux=${TWAINMQ_BIN:-$PWD/target/debug/twainmq}
[ -x "$linux" ] || cargo build -q --locked -p twainmq-cli
# Wine's server and its services (services.exe, winedevice, rpcss...) started here, before the
# writers: the writers are killed by process group, and the services a first writer started
# would be in its group and die with it; every Wine process after that waits five minutes for
# them (measured: 300 s a process, --version too).
"$WINE" "$exe" --version </dev/null >/dev/null
TWAINMQ_WINDOWS_EXE=$exe TWAINMQ_WINE=$WINE TWAINMQ_BIN=$linux \
  .venv/bin/python -m pytest tests/torture/test_next_format.py -q -p no:cacheprovider -s \
  -k test_large_messages_under_sigkills_from_windows_writers_under_wine
