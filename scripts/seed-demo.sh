#!/usr/bin/env bash
# Seed a demo store (once): topics with text, bytes and typed messages, written through the CLI.
set -euo pipefail
bin=$1
store=$2
if [ -e "$store/orders.twc" ]; then exit 0; fi
mkdir -p "$store"
t() { "$bin" --store "$store" "$@"; }
t topics create orders --key-type u32 --partitions 4 --message-types Order,Refund >/dev/null
t topics create sensors --key-type u64 --partitions 3 >/dev/null
t topics create chat --key-type char12 --partitions 2 >/dev/null
python3 - "$store" <<'PY' | t produce orders --jsonl
import json, random, sys
random.seed(7)
items = ["lamp", "desk", "chair", "monitor", "cable", "keyboard"]
for i in range(400):
    if i % 9 == 0:
        p = {"type": "dataclass", "class": "Refund", "fields": {"order": i - 3, "reason": random.choice(["damaged", "late", "wrong size"])}}
    else:
        p = {"type": "dataclass", "class": "Order", "fields": {"id": i, "item": random.choice(items), "qty": random.randint(1, 5), "price": round(random.uniform(3, 400), 2)}}
    print(json.dumps({"key": random.randint(1, 5000), "payload": p}))
PY
python3 - <<'PY' | t produce sensors --jsonl
import json, random, struct
random.seed(8)
for i in range(300):
    sensor = random.choice([11805601705697281889, 42, 7, 18446744073709551615])
    print(json.dumps({"key": sensor, "payload": {"type": "bytes", "hex": struct.pack(">Hf", i, random.uniform(-5, 35)).hex()}}))
PY
python3 - <<'PY' | t produce chat --jsonl
import json, random
random.seed(9)
who = ["ada", "grace", "linus", "ken", "bjarne"]
lines = ["hello", "ship it", "who broke main?", "lunch?", "日本語も大丈夫", "<img src=x onerror=alert(1)> is just text"]
for i in range(120):
    print(json.dumps({"key": random.choice(who), "payload": random.choice(lines)}))
PY
echo "seeded demo store in $store"
