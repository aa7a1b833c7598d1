#!/usr/bin/env bash
# `make kafka-bench`: the mirror's throughput each way beside the same client (krafka) producing
# and consuming the same records directly, and the --follow latency from a store write to the
# record readable in Kafka, against a nisshi broker started here (SQLite, 127.0.0.1).
#   scripts/kafka-bench.sh [MESSAGES]      (default 200000; the release `twainmq`)
set -euo pipefail
cd "$(dirname "$0")/.."
messages=${1:-200000}
bin=${TWAINMQ_DEV_BIN:-$PWD/target/release/twainmq-dev}
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
p50, p99, mx = r['follow_latency_us']
d50, d99, dmx = r['direct_latency_us']
print(f"  --follow, store write to readable in Kafka: p50 {p50/1000:.1f} ms, p99 {p99/1000:.1f} ms, max {mx/1000:.1f} ms ({r['follow_messages']} messages at {r['follow_rate']}/s)")
print(f"  the broker's own: krafka producing each straight to it, same reader: p50 {d50/1000:.1f} ms, p99 {d99/1000:.1f} ms, max {dmx/1000:.1f} ms")
PY
