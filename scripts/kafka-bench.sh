#!/usr/bin/env bash
# `make kafka-bench`: the mirror's throughput each way beside the same client (krafka) producing
# and consuming the same records directly, and the --follow latency from a store write to the
# record readable in Kafka (tests/bench/kafka_follow_latency.py), against a nisshi broker started here (SQLite, 127.0.0.1).
#   scripts/kafka-bench.sh [MESSAGES]      (default 200000; the release `twainmq`)
set -euo pipefail
cd "$(dirname "$0")/.."
messages=${1:-200000}
bin=${TWAINMQ_DEV_BIN:-$PWD/target/release/twainmq-dev}
twainmq=${TWAINMQ_BIN:-$PWD/target/release/twainmq}
nisshi=$(bash scripts/nisshi.sh wait)
work=$(mktemp -d)
trap 'kill $broker 2>/dev/null || true; wait $broker 2>/dev/null || true; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/broker" "$work/store"
(cd "$work/broker" && exec "$nisshi" broker --storage-engine sqlite://broker.db --listener-url "tcp://127.0.0.1:$port" \
  --advertised-listener-url "tcp://127.0.0.1:$port" --cluster-id bench --group-initial-rebalance-delay 0s >broker.log 2>&1) &
broker=$!
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
TWAINMQ_INDEX_CACHE=off "$bin" --store "$work/store" bench-mirror --kafka "kafka://127.0.0.1:$port" --messages "$messages" > "$work/report.json"
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"kafka bench: {r['messages']} records of {r['payload_bytes']} bytes in {r['partitions']} partitions, nisshi (SQLite) on 127.0.0.1")
print(f"  store -> Kafka: mirror {r['mirror_to_kafka']:,.0f} rec/s, krafka producing the same records {r['produce_direct']:,.0f} rec/s ({r['mirror_to_kafka'] / r['produce_direct']:.2f}x)")
print(f"  Kafka -> store: mirror {r['mirror_from_kafka']:,.0f} rec/s, krafka consuming them {r['consume_direct']:,.0f} rec/s ({r['mirror_from_kafka'] / r['consume_direct']:.2f}x)")
PY
# The --follow latency as a user meets it: a 0.2.3 producer, `twainmq mirror --follow` in its own
# process, a confluent-kafka reader; beside it confluent-kafka producing straight to the broker.
.venv/bin/python tests/bench/kafka_follow_latency.py "$twainmq" "127.0.0.1:$port" 2000 500 > "$work/latency.json"
python3 - "$work/latency.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f, d = r["follow"], r["direct"]
print(f"  --follow, a 0.2.3 write to readable by confluent-kafka: p50 {f['p50_ms']} ms, p99 {f['p99_ms']} ms, max {f['max_ms']} ms ({r['messages']} messages at {r['rate']}/s)")
print(f"  the broker's own: confluent-kafka producing each straight to it, same reader: p50 {d['p50_ms']} ms, p99 {d['p99_ms']} ms, max {d['max_ms']} ms")
PY
