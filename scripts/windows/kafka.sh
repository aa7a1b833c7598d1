#!/usr/bin/env bash
# The Kafka bridge's Windows build under Wine (part of scripts/windows/test.sh): twainmq.exe
# mirrors the 0.2.3 fixture's topics to a nisshi broker on this machine (127.0.0.1) and back into
# a fresh store, and every message comes back equal (read by the Linux build); then a second
# run each way mirrors nothing (it resumed from the target: the Kafka tail, the store's journal
# and lock under Windows' file semantics), and a second mirror into a store topic whose lock
# another holds is refused.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=prefix.sh
source scripts/windows/prefix.sh
target_dir=${TWAINMQ_WINDOWS_TARGET_DIR:-$PWD/target/windows}
exe=$target_dir/x86_64-pc-windows-gnu/debug/twainmq.exe
linux=${TWAINMQ_BIN:-$PWD/target/debug/twainmq}
scripts/windows/cargo.sh build --locked -p twainmq-cli >"$target_dir/kafka-build.log" 2>&1 || { tail -n 40 "$target_dir/kafka-build.log" >&2; exit 1; }
[ -x "$linux" ] || cargo build -q --locked -p twainmq-cli
nisshi=$(bash scripts/nisshi.sh wait)
work=$(mktemp -d)
broker=
cleanup() { [ -n "$broker" ] && kill "$broker" 2>/dev/null && wait "$broker" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/broker"
(cd "$work/broker" && exec "$nisshi" broker --storage-engine sqlite://broker.db --listener-url "tcp://127.0.0.1:$port" \
  --advertised-listener-url "tcp://127.0.0.1:$port" --cluster-id wine --group-initial-rebalance-delay 0s >broker.log 2>&1) &
broker=$!
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
cp -r tests/fixtures/twainmq-0.2.3/store "$work/src"
mkdir "$work/back"
topics=(bigmsgs events names sensors tiny typed)
export TWAINMQ_INDEX_CACHE=off
wine_mirror() { "$WINE" "$exe" "$@" </dev/null; }
t0=$(date +%s)
wine_mirror --store "$work/src" mirror "${topics[@]}" --to "kafka://127.0.0.1:$port" --lease-timeout 2 --json >"$work/to.json"
wine_mirror --store "$work/back" mirror "${topics[@]}" --from "kafka://127.0.0.1:$port" --json >"$work/from.json"
for t in "${topics[@]}"; do
  "$linux" --store "$work/src" consume "$t" --from start --json >"$work/$t.src"
  "$linux" --store "$work/back" consume "$t" --from start --json >"$work/$t.back"
  cmp -s "$work/$t.src" "$work/$t.back" || { echo "windows: kafka: topic $t differs after the round trip under Wine" >&2; diff "$work/$t.src" "$work/$t.back" | head >&2; exit 1; }
done
again_to=$(wine_mirror --store "$work/src" mirror "${topics[@]}" --to "kafka://127.0.0.1:$port" --lease-timeout 2 --json)
again_from=$(wine_mirror --store "$work/back" mirror "${topics[@]}" --from "kafka://127.0.0.1:$port" --json)
for doc in "$again_to" "$again_from"; do
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); n=sum(t["mirrored"] for t in d["topics"]); sys.exit(f"windows: kafka: a second run mirrored {n} records" if n else 0)' "$doc"
done
# Two mirrors under Wine into one store topic: the second is refused (the first holds its lock,
# LockFileEx through std's File::try_lock).
"$WINE" "$exe" --store "$work/back" mirror events --from "kafka://127.0.0.1:$port" --follow </dev/null >/dev/null 2>&1 &
holder=$!
for _ in $(seq 100); do [ -e "$work/back/~twainmq-mirror/events.lock" ] && break; sleep 0.1; done
sleep 1
set +e
busy=$(wine_mirror --store "$work/back" mirror events --from "kafka://127.0.0.1:$port" 2>&1)
rc=$?
set -e
kill -KILL "$holder"; wait "$holder" 2>/dev/null || true
if [ "$rc" = 0 ] || ! grep -q "already has a mirror writing to it" <<<"$busy"; then
  echo "windows: kafka: a second mirror into a locked store topic was not refused under Wine: $busy" >&2
  exit 1
fi
n=$(python3 -c 'import json,sys; print(sum(t["mirrored"] for t in json.load(open(sys.argv[1]))["topics"]))' "$work/to.json")
echo "windows: kafka: twainmq.exe mirrored the fixture's ${#topics[@]} topics ($n messages) to nisshi and back under Wine, equal; resumed with nothing to do; a second mirror refused ($(( $(date +%s) - t0 )) s)"
