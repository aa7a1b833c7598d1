"""Nothing lost, nothing twice, without transactions: the mirror killed (SIGKILL) at random
points and started again, each way; the broker killed and restarted under a following mirror."""

import json
import random
import signal
import struct
import subprocess
import time

from conftest import Broker, consume_json, create_kafka_topic, kafka_records, mirror, mirror_proc, run_cli

# How long a killed mirror holds a Kafka target (its lease group's session): short here, so
# that 30 restarts do not take minutes of waiting.
LEASE = "2"


def fill(store, topic, partitions, per_partition, key_type="u32"):
    """A topic of `partitions` partitions with `per_partition` messages in each, of every kind."""
    run_cli(store, "topics", "create", topic, "--key-type", key_type, "--partitions", str(partitions), "--message-types", "Reading")
    lines = []
    for i in range(per_partition * partitions):
        if i % 3 == 0:
            payload = f"text {i} " + "x" * (i % 50)
        elif i % 3 == 1:
            payload = {"type": "bytes", "hex": struct.pack(">I", i).hex()}
        else:
            payload = {"type": "dataclass", "class": "Reading", "fields": {"i": i}}
        lines.append(json.dumps({"key": i, "payload": payload}) + "\n")
    run_cli(store, "produce", topic, "--jsonl", "--batch", input="".join(lines))
    return consume_json(store, topic)


def origins(records):
    """(partition, origin offset) of each Kafka record, in Kafka order per partition."""
    out = {}
    for p, rs in records.items():
        out[p] = [int(r["headers"]["twainmq.origin"].decode().rsplit(":", 1)[1]) for r in rs]
    return out


def assert_kafka_equals_store(broker, kafka_topic, store, topic):
    src = consume_json(store, topic)
    recs = kafka_records(broker.address, kafka_topic)
    by_p = {}
    for m in src:
        by_p.setdefault(m["partition"], []).append(m)
    for p, rs in recs.items():
        want = by_p.get(p, [])
        got = origins({p: rs})[p]
        assert got == [m["offset"] for m in want], f"partition {p}: origins in Kafka are the source's offsets once each, in order"
        for r, m in zip(rs, want):
            assert r["key"] == struct.pack(">I", m["key"])
            assert struct.unpack(">d", bytes.fromhex(r["headers"]["twainmq.ts"].decode()))[0] == m["timestamp"]


def kill_once_started(p, rng, within):
    """SIGKILL `p` at a random moment within `within` seconds after it says where it starts
    (so the kill lands while records go across, not while it waits for the target); whether
    it was still running then."""
    for line in p.stderr:
        if "from offsets" in line:
            break
    time.sleep(rng.uniform(0, within))
    alive = p.poll() is None
    if alive:
        p.send_signal(signal.SIGKILL)
    p.communicate()
    return alive


def append(store, topic, start, n):
    lines = "".join(json.dumps({"key": i, "payload": f"more {i}"}) + "\n" for i in range(start, start + n))
    run_cli(store, "produce", topic, "--jsonl", "--batch", input=lines)


def test_kill_9_at_30_random_points_to_kafka_then_the_target_equals_the_source(broker, tmp_path, topic):
    store = tmp_path / "s"
    store.mkdir()
    fill(store, "t", 3, 5000)
    rng = random.Random(34)
    kills = 0
    runs = 0
    while kills < 30:
        runs += 1
        assert runs <= 60, f"only {kills} of {runs} runs were killed while sending"
        append(store, "t", 100_000 + runs * 5000, 5000)
        p = mirror_proc(store, f"t:{topic}", "--to", broker.url, "--lease-timeout", LEASE)
        kills += kill_once_started(p, rng, 1.0)
    mirror(store, f"t:{topic}", "--to", broker.url, "--lease-timeout", LEASE)
    assert_kafka_equals_store(broker, topic, store, "t")


def test_kill_9_at_30_random_points_from_kafka_then_the_store_equals_the_source(broker, tmp_path, topic):
    src = tmp_path / "src"
    src.mkdir()
    fill(src, "t", 3, 20000)
    mirror(src, f"t:{topic}", "--to", broker.url, "--lease-timeout", LEASE)
    dst = tmp_path / "dst"
    dst.mkdir()
    # A local producer writes into the target topic between the mirror's runs: its lines are
    # not the mirror's and must not be taken for them.
    rng = random.Random(43)
    kills = 0
    local = 0
    runs = 0
    while kills < 30:
        runs += 1
        assert runs <= 60, f"only {kills} of {runs} runs were killed while writing"
        p = mirror_proc(dst, f"{topic}:t", "--from", broker.url)
        kills += kill_once_started(p, rng, 0.5)
        if (dst / "t.twc").exists() and runs % 5 == 0:
            run_cli(dst, "produce", "t", "--key", str(10_000_000 + runs), f"local {runs}")
            local += 1
    mirror(dst, f"{topic}:t", "--from", broker.url)
    want = consume_json(src, "t")
    got = consume_json(dst, "t")
    locals_ = [m for m in got if m["key"] >= 10_000_000]
    assert len(locals_) == local
    mirrored = [m for m in got if m["key"] < 10_000_000]
    strip = lambda ms: sorted(((m["partition"], m["key"], m["timestamp"], json.dumps(m["payload"], sort_keys=True)) for m in ms))
    assert strip(mirrored) == strip(want)
    # In each partition, the mirrored messages keep the source's order.
    for p in range(3):
        assert [m["key"] for m in mirrored if m["partition"] == p] == [m["key"] for m in want if m["partition"] == p]


def test_a_following_mirror_rides_out_the_broker_killed_and_restarted(tmp_path, topic):
    b = Broker(tmp_path / "own-broker").start()
    try:
        store = tmp_path / "s"
        store.mkdir()
        run_cli(store, "topics", "create", "t", "--key-type", "u32", "--partitions", "2")
        p = mirror_proc(store, f"t:{topic}", "--to", b.url, "--follow", "--lease-timeout", LEASE, "--timeout", "2")
        sent = 0

        def produce(n):
            nonlocal sent
            lines = "".join(json.dumps({"key": sent + i, "payload": f"m{sent + i}"}) + "\n" for i in range(n))
            run_cli(store, "produce", "t", "--jsonl", input=lines)
            sent += n

        produce(200)
        time.sleep(2)
        # Down for longer than a delivery may take (3 x --timeout): the mirror fails, says why,
        # and starts again from the target's tail once the broker is back.
        b.kill()
        produce(300)
        time.sleep(10)
        b.start()
        produce(200)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if sum(len(v) for v in kafka_records(b.address, topic, timeout=10).values()) >= sent:
                    break
            except Exception:
                pass
            time.sleep(1)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
        assert p.returncode == 0, err
        assert "trying again" in err, "the failure was shown while retrying"
        assert_kafka_equals_store(b, topic, store, "t")
    finally:
        b.stop()
