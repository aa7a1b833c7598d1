#!/usr/bin/env bash
# `make python-test`: the wheel `make wheel` built, installed into .venv beside twainmq 0.2.3,
# then tests/python (the differential suite against 0.2.3, the pinned differences, the
# boundary tests, a mixed live group of 0.2.3 members and ours, and the wheel in a fresh venv).
set -euo pipefail
cd "$(dirname "$0")/.."
tag=$(.venv/bin/python -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
whl=$(ls -t target/wheels/twainmq_rs-*-"$tag"-*.whl 2>/dev/null | head -1)
if [ -z "$whl" ]; then
  echo "python-test: no twainmq_rs wheel for $tag in target/wheels: run make wheel" >&2
  exit 1
fi
echo "python-test: $whl"
.venv/bin/python -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$whl"
TWAINMQ_WHEEL=$PWD/$whl .venv/bin/python -m pytest tests/python -q -p no:cacheprovider "$@"
