#!/usr/bin/env bash
# `make torture`: the long form of the torture suites (tests/torture), several minutes:
# >= 1.1M messages from 10 writers (5 CLI, 5 twainmq 0.2.3) across a UTC rollover,
# 3 more rollovers with our writers only, 2000 quick rollovers under readers,
# >= 200 producer SIGKILLs, 40 group-member SIGKILLs; midnight with clocks that disagree
# (test_rollover_skew.py: 4 runs of 3 of our producers into one partition, clocks 0/0.25/0.55 s
# apart, and a run with 0.2.3 producers lagging 0.7/1.8 s), the hostile-store battery
# (test_hostile.py), and the concurrent-append, SIGKILL and midnight runs again on XFS and btrfs
# loop volumes (test_filesystems.py, as root); large messages under 60 SIGKILLs (20 on each of
# ntfs-3g, XFS and btrfs) and a key table raced by 8 processes (test_next_format.py).
# `make test` runs the short form.
# Extra arguments go to pytest (e.g. -k crash, -x).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r tests/requirements.txt
fi
if [ -z "${TWAINMQ_BIN:-}" ]; then
  cargo build -p twainmq-cli --locked
  export TWAINMQ_BIN="$PWD/target/debug/twainmq"
fi
echo "torture (long) with $TWAINMQ_BIN"
TORTURE_SCALE=long exec .venv/bin/python -m pytest tests/torture -q -p no:cacheprovider -rA --durations=0 "$@"
