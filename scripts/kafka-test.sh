#!/usr/bin/env bash
# The Kafka bridge (twainmq mirror, and the app's cluster window's reads) against a real Kafka-protocol broker: `make kafka-test`,
# part of `make test`. The broker, nisshi, is built once (scripts/nisshi.sh; scripts/deps.sh
# starts that build in the background); each suite run starts its own brokers on free ports of
# 127.0.0.1 with SQLite storage and stops them after (tests/kafka/conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
NISSHI=$(bash scripts/nisshi.sh wait)
export NISSHI
echo "kafka: broker $NISSHI (waited $(( $(date +%s) - started )) s for it)"
export TWAINMQ_BIN=${TWAINMQ_BIN:-$PWD/target/debug/twainmq}
# The app's view of a cluster: the bridge's browse API, and the app's cluster service through the
# Source seam (each test starts its broker with $NISSHI).
cargo test -q -p twainmq-kafka --test browse
cargo test -q -p twainmq-desktop --test domains cluster::
.venv/bin/python -m pytest tests/kafka -q -p no:cacheprovider -W ignore::DeprecationWarning "$@"
# The cluster window in the real app (connect, browse, no password in any file it wrote), against
# a broker of its own: after the bridge's suites, since it needs the broker built ($NISSHI).
bash scripts/e2e.sh cluster.test.mjs
