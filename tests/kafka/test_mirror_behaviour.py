"""Following live 0.2.3 producers, two-way mirroring, consumer groups both ways, and every
refusal: named, within seconds, nothing written."""

import json
import os
import random
import signal
import struct
import subprocess
import sys
import threading
import time

from conftest import REPO_ROOT, consume_json, create_kafka_topic, kafka_records, mirror, mirror_proc, run_cli

PY = sys.executable


def produce_foreign(address, topic, records):
    """Records written by confluent-kafka (librdkafka): (partition, key, value[, headers])."""
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": address, "enable.idempotence": True})
    for r in records:
        part, key, value = r[:3]
        p.produce(topic, value=value, key=key, partition=part, headers=r[3] if len(r) > 3 else None)
    assert p.flush(30) == 0


def test_follow_takes_live_023_producers_across_and_back_into_a_fresh_store(broker, tmp_path, topic):
    store = tmp_path / "s"
    store.mkdir()
    run_cli(store, "topics", "create", "live", "--key-type", "u32", "--partitions", "3")
    p = mirror_proc(store, f"live:{topic}", "--to", broker.url, "--follow", "--lease-timeout", "2")
    writer = REPO_ROOT / "tests" / "interop" / "concurrent_writer.py"
    go = tmp_path / "go"
    procs = [subprocess.Popen([PY, str(writer), str(store), "live", str(w), "400", str(go), str(tmp_path / f"ready{w}")]) for w in range(2)]
    while not all((tmp_path / f"ready{w}").exists() for w in range(2)):
        time.sleep(0.05)
    go.touch()
    for w in procs:
        assert w.wait(120) == 0
    deadline = time.time() + 60
    while time.time() < deadline and sum(len(v) for v in kafka_records(broker.address, topic).values()) < 800:
        time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert "interrupted" in out and "800 mirrored" in out, out
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    mirror(fresh, f"{topic}:live", "--from", broker.url)
    assert consume_json(fresh, "live") == consume_json(store, "live")


def test_two_way_mirroring_does_not_loop(broker, tmp_path, topic):
    store = tmp_path / "s"
    store.mkdir()
    run_cli(store, "topics", "create", "t", "--key-type", "u32", "--partitions", "2")
    run_cli(store, "produce", "t", "--jsonl", input="".join(json.dumps({"key": i, "payload": f"local {i}"}) + "\n" for i in range(10)))
    create_kafka_topic(broker.address, topic, 2)
    produce_foreign(broker.address, topic, [(i % 2, struct.pack(">I", 100 + i), f"kafka {i}".encode()) for i in range(10)])
    for _ in range(3):
        mirror(store, f"t:{topic}", "--to", broker.url, "--lease-timeout", "2")
        mirror(store, f"{topic}:t", "--from", broker.url)
    assert len(consume_json(store, "t")) == 20
    assert sum(len(v) for v in kafka_records(broker.address, topic).values()) == 20
    again_to = json.loads(mirror(store, f"t:{topic}", "--to", broker.url, "--json", "--lease-timeout", "2").stdout)["topics"][0]
    again_from = json.loads(mirror(store, f"{topic}:t", "--from", broker.url, "--json").stdout)["topics"][0]
    assert (again_to["mirrored"], again_from["mirrored"]) == (0, 0)


def test_group_offsets_go_across_both_ways_translated_through_origins(broker, tmp_path, topic):
    from confluent_kafka import Consumer, TopicPartition

    # Store -> Kafka: the Kafka topic already holds 5 foreign records in each partition, so a
    # store offset is a different Kafka offset.
    store = tmp_path / "s"
    store.mkdir()
    run_cli(store, "topics", "create", "t", "--key-type", "u32", "--partitions", "2")
    run_cli(store, "produce", "t", "--jsonl", input="".join(json.dumps({"key": i, "payload": f"m{i}"}) + "\n" for i in range(60)))
    kt = f"{topic}-a"
    create_kafka_topic(broker.address, kt, 2)
    produce_foreign(broker.address, kt, [(p, b"\0\0\0\1", b"before") for p in (0, 1) for _ in range(5)])
    run_cli(store, "consume", "t", "--group", "sg", "--max", "25", "--commit-every", "1", "--rebalance-window", "0.5")
    committed = {int(p): c for p, c in json.loads(run_cli(store, "groups", "describe", "sg", "--json").stdout)["committed"].items()}
    out = json.loads(mirror(store, f"t:{kt}", "--to", broker.url, "--groups", "--json", "--lease-timeout", "2").stdout)
    [g] = out["topics"][0]["groups"]
    assert g["group"] == "sg"
    c = Consumer({"bootstrap.servers": broker.address, "group.id": "sg", "enable.auto.commit": False})
    got = {tp.partition: tp.offset for tp in c.committed([TopicPartition(kt, p) for p in (0, 1)], timeout=10)}
    c.close()
    for p, off in committed.items():
        if off > 0:
            assert got[p] == off + 5, (p, off, got)

    # Kafka -> store: a group of confluent-kafka consumers committed; the store topic already
    # holds 3 local messages in each partition.
    kt2 = f"{topic}-b"
    create_kafka_topic(broker.address, kt2, 2)
    produce_foreign(broker.address, kt2, [(p, struct.pack(">I", i), f"r{i}".encode()) for p in (0, 1) for i in range(40)])
    c = Consumer({"bootstrap.servers": broker.address, "group.id": "kg", "enable.auto.commit": False, "session.timeout.ms": 6000})
    c.assign([TopicPartition(kt2, 0), TopicPartition(kt2, 1)])
    c.commit(offsets=[TopicPartition(kt2, 0, 20), TopicPartition(kt2, 1, 35)], asynchronous=False)
    c.close()
    run_cli(store, "topics", "create", "u", "--key-type", "u32", "--partitions", "2")
    for p in (0, 1):
        for i in range(3):
            run_cli(store, "produce", "u", "--key", str(1000 + 2 * i + p), "local")
    before = {m["partition"] for m in consume_json(store, "u")}
    assert before == {0, 1}
    local = {p: sum(1 for m in consume_json(store, "u") if m["partition"] == p) for p in (0, 1)}
    out = json.loads(mirror(store, f"{kt2}:u", "--from", broker.url, "--groups", "--json").stdout)
    groups = {g["group"]: g for g in out["topics"][0]["groups"]}
    assert "kg" in groups
    desc = json.loads(run_cli(store, "groups", "describe", "kg", "--json").stdout)
    assert {int(p): c for p, c in desc["committed"].items()} == {0: local[0] + 20, 1: local[1] + 35}


def test_a_kafka_group_with_live_members_gets_no_commit(broker, tmp_path, topic):
    from confluent_kafka import Consumer, TopicPartition

    create_kafka_topic(broker.address, topic, 1)
    produce_foreign(broker.address, topic, [(0, struct.pack(">I", i), b"v") for i in range(10)])
    c = Consumer({"bootstrap.servers": broker.address, "group.id": "live-g", "enable.auto.commit": False, "session.timeout.ms": 6000,
                  "auto.offset.reset": "earliest"})
    c.subscribe([topic])
    stop = threading.Event()
    caught_up = threading.Event()

    # One thread uses the consumer (librdkafka's committed() beside a poll in another thread can block).
    def keep():
        while not stop.is_set():
            m = c.poll(0.2)
            if m is not None and not m.error():
                c.commit(message=m, asynchronous=False)
                if m.offset() == 9:
                    caught_up.set()

    t = threading.Thread(target=keep)
    t.start()
    try:
        assert caught_up.wait(60), "the Kafka consumer read and committed the 10 records"
        store = tmp_path / "s"
        store.mkdir()
        out = json.loads(mirror(store, f"{topic}:t", "--from", broker.url, "--groups", "--json", "--key-type", "u32").stdout)
        # The store group has no member: the Kafka group's commit goes across.
        assert {g["group"]: g["written"] for g in out["topics"][0]["groups"]}["live-g"] == [[0, 10, 10]]
        # Store -> Kafka the other way round: the Kafka group has a live member, so nothing is written there.
        run_cli(store, "groups", "reset", "live-g", "--to", "offset:4")
        out = json.loads(mirror(store, f"t:{topic}", "--to", broker.url, "--groups", "--json", "--lease-timeout", "2").stdout)
        [g] = out["topics"][0]["groups"]
        assert g["written"] == [] and "live members" in g["note"], g
    finally:
        stop.set()
        t.join()
        c.close()


def test_refusals_are_named_within_seconds_and_write_nothing(broker, tmp_path, topic):
    store = tmp_path / "s"
    store.mkdir()
    run_cli(store, "topics", "create", "three", "--key-type", "u32", "--partitions", "3")
    run_cli(store, "produce", "three", "--key", "1", "x")
    # Partition counts differ: refused both ways, naming both.
    create_kafka_topic(broker.address, f"{topic}-two", 2)
    r = mirror(store, f"three:{topic}-two", "--to", broker.url, check=False)
    assert r.returncode == 1 and "has 3 partitions but Kafka topic" in r.stderr and "has 2" in r.stderr, r.stderr
    r = mirror(store, f"{topic}-two:three", "--from", broker.url, check=False)
    assert r.returncode == 1 and "has 2 partitions but store topic three has 3" in r.stderr, r.stderr
    # A missing Kafka topic.
    r = mirror(store, f"{topic}-nope:x", "--from", broker.url, "--key-type", "u8", check=False)
    assert r.returncode == 1 and f"has no topic \"{topic}-nope\"" in r.stderr, r.stderr
    # Records the target topic cannot hold: each named by topic, partition and offset, with what would take it.
    cases = [
        ("nullkey", (0, None, b"v"), "no key (null)", "--key-type any"),
        # (Random bytes: a line holds the value deflated, so 5,000 bytes of one letter would fit.)
        ("big", (0, b"\0\0\0\1", random.Random(5).randbytes(5000)), "4096", "--large-messages"),
        ("decimal", (0, b"42", b"v"), "4-byte big-endian", "IntegerSerializer"),
        ("header", (0, b"\0\0\0\1", b"v", [("trace-id", b"1")]), "header \"trace-id\"", "--drop-headers"),
        ("tombstone", (0, b"\0\0\0\1", None), "tombstone", "tombstone"),
    ]
    for name, rec, what, hint in cases:
        kt = f"{topic}-{name}"
        create_kafka_topic(broker.address, kt, 1)
        produce_foreign(broker.address, kt, [(0, b"\0\0\0\2", b"fine"), rec])
        t0 = time.time()
        r = mirror(store, f"{kt}:{name}", "--from", broker.url, "--key-type", "u32", check=False)
        assert r.returncode == 1, r.stderr
        assert f"topic \"{kt}\" partition 0 offset 1 cannot be mirrored" in r.stderr and what in r.stderr and hint in r.stderr, r.stderr
        assert time.time() - t0 < 20
        # The record before it is in; the refused one is not, and a second run stops at it again.
        assert [m["payload"]["value"] for m in consume_json(store, name)] == ["fine"]
    r = mirror(store, f"{topic}-header:hdr", "--from", broker.url, "--key-type", "u32", "--drop-headers", check=False)
    assert r.returncode == 0, r.stderr
    # A broker that is not there: the error names it, within seconds.
    t0 = time.time()
    r = mirror(store, "three", "--to", "kafka://127.0.0.1:9", check=False)
    assert r.returncode == 1 and "Kafka at 127.0.0.1:9: connect failed" in r.stderr, r.stderr
    assert time.time() - t0 < 15


def test_two_mirrors_on_one_target_are_refused(broker, tmp_path, topic):
    store = tmp_path / "s"
    store.mkdir()
    run_cli(store, "topics", "create", "t", "--key-type", "u32", "--partitions", "1")
    run_cli(store, "produce", "t", "--key", "1", "x")
    # Kafka target: the first holds the lease group; the second waits one session, then gives up.
    first = mirror_proc(store, f"t:{topic}", "--to", broker.url, "--follow", "--lease-timeout", "2")
    time.sleep(6)
    r = mirror(store, f"t:{topic}", "--to", broker.url, "--lease-timeout", "2", check=False)
    assert r.returncode == 1 and "already has a mirror writing to it" in r.stderr and f"twainmq-mirror.{topic}" in r.stderr, r.stderr
    first.send_signal(signal.SIGTERM)
    assert first.wait(30) == 0
    # Store target: the first holds the topic's lock in the store.
    other = tmp_path / "o"
    other.mkdir()
    first = mirror_proc(other, f"{topic}:t", "--from", broker.url, "--follow")
    deadline = time.time() + 20
    while time.time() < deadline and not (other / "~twainmq-mirror" / "t.lock").exists():
        time.sleep(0.1)
    time.sleep(1)
    r = mirror(other, f"{topic}:t", "--from", broker.url, check=False)
    assert r.returncode == 1 and "store topic t already has a mirror writing to it" in r.stderr, r.stderr
    first.send_signal(signal.SIGTERM)
    assert first.wait(30) == 0
