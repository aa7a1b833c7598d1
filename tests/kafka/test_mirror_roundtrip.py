"""Store -> Kafka -> store: every message comes back equal (key, payload kind, bytes, exact
timestamp), and what the bridge wrote is what independent Kafka clients read."""

import json
import struct

from conftest import FIXTURE_STORE, consume_json, kafka_records, mirror, run_cli

FIXTURE_TOPICS = ["bigmsgs", "events", "names", "sensors", "tiny", "typed"]


def renamed(prefix, topics):
    return [f"{t}:{prefix}{t}" for t in topics]


def test_the_023_fixture_goes_to_kafka_and_back_into_a_fresh_store_unchanged(broker, fixture_store, tmp_path, topic):
    prefix = f"{topic}-"
    out = mirror(fixture_store, *renamed(prefix, FIXTURE_TOPICS + ["empty"]), "--to", broker.url, "--json")
    summary = json.loads(out.stdout)
    by_source = {t["source"]: t for t in summary["topics"]}
    for t in FIXTURE_TOPICS:
        assert by_source[t]["mirrored"] == sum(1 for _ in consume_json(fixture_store, t)), t
        assert by_source[t]["created"] is True
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    mirror(fresh, *[f"{prefix}{t}:{t}" for t in FIXTURE_TOPICS + ["empty"]], "--from", broker.url)
    for t in FIXTURE_TOPICS + ["empty"]:
        src = json.loads((fixture_store / f"{t}.twc").read_text())
        dst = json.loads((fresh / f"{t}.twc").read_text())
        assert dst == src, f"{t}: the topic is made as it was (key type, partitions, message types)"
        assert consume_json(fresh, t) == consume_json(fixture_store, t), t
    # The fixture was never written to.
    assert not (FIXTURE_STORE / "~twainmq-mirror").exists()
    # Again: nothing more goes either way (each side resumes where the other says it is).
    again = json.loads(mirror(fixture_store, *renamed(prefix, FIXTURE_TOPICS), "--to", broker.url, "--json").stdout)
    assert [t["mirrored"] for t in again["topics"]] == [0] * len(FIXTURE_TOPICS)
    back = json.loads(mirror(fresh, *[f"{prefix}{t}:{t}" for t in FIXTURE_TOPICS], "--from", broker.url, "--json").stdout)
    assert [t["mirrored"] for t in back["topics"]] == [0] * len(FIXTURE_TOPICS)


def test_independent_clients_read_keys_values_timestamps_and_headers_as_documented(broker, tmp_path, topic):
    store = tmp_path / "s"
    store.mkdir()
    run_cli(store, "topics", "create", "u", "--key-type", "u32", "--partitions", "3", "--message-types", "Reading")
    run_cli(store, "topics", "create", "c", "--key-type", "char16", "--partitions", "1")
    lines = [
        {"key": 7, "payload": "héllo"},
        {"key": 4294967295, "payload": {"type": "bytes", "hex": "00ff10"}},
        {"key": 9, "payload": {"type": "dataclass", "class": "Reading", "fields": {"sensor": "a", "value": 1.5}}},
    ]
    run_cli(store, "produce", "u", "--jsonl", input="".join(json.dumps(l) + "\n" for l in lines))
    run_cli(store, "produce", "c", "--key", "clé", "text")
    mirror(store, f"u:{topic}-u", f"c:{topic}-c", "--to", broker.url)
    src = consume_json(store, "u")
    recs = kafka_records(broker.address, f"{topic}-u")
    got = {}
    for p, rs in recs.items():
        for r in rs:
            got[(p, r["offset"])] = r
    assert len(got) == 3
    for m in src:
        r = got[(m["partition"], m["offset"])]
        # u32 keys: 4 bytes big-endian, as Kafka's IntegerSerializer writes them.
        assert r["key"] == struct.pack(">I", m["key"])
        assert r["timestamp"] == round(m["timestamp"] * 1000)
        h = r["headers"]
        assert struct.unpack(">d", bytes.fromhex(h["twainmq.ts"].decode()))[0] == m["timestamp"]
        assert h["twainmq.key"] == b"u32"
        assert h["twainmq.origin"].decode().endswith(f":u:{m['partition']}:{m['offset']}")
        kind = m["payload"]["type"]
        assert h["twainmq.kind"] == kind.encode()
        if kind == "str":
            assert r["value"] == m["payload"]["value"].encode()
        elif kind == "bytes":
            assert r["value"] == bytes.fromhex(m["payload"]["hex"])
        else:
            assert h["twainmq.type"] == b"Reading"
            assert json.loads(r["value"]) == m["payload"]["fields"]
    # The string key is its UTF-8 bytes, without the store's NUL padding (StringSerializer's).
    [c] = kafka_records(broker.address, f"{topic}-c")[0]
    assert (c["key"], c["value"]) == ("clé".encode(), b"text")
    # kafka-python (pure Python, no librdkafka) reads the same.
    from kafka import KafkaConsumer, TopicPartition

    kc = KafkaConsumer(bootstrap_servers=broker.address, enable_auto_commit=False, consumer_timeout_ms=5000)
    tps = [TopicPartition(f"{topic}-u", p) for p in range(3)]
    kc.assign(tps)
    kc.seek_to_beginning(*tps)
    seen = {(r.partition, r.offset): (r.key, r.value, r.timestamp) for r in kc}
    kc.close()
    assert seen == {k: (v["key"], v["value"], v["timestamp"]) for k, v in got.items()}
