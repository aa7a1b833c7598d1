"""Kafka's keys of any kind (bytes, text, empty, null) and values over one 4,096-byte line,
through the store topics of the format's next version (key type any, large messages): a
foreign topic comes into the store whole, and a store topic of such messages goes to Kafka and
back unchanged, as independent clients read it."""

import json
import random

from conftest import consume_json, create_kafka_topic, kafka_records, mirror, run_cli
from test_mirror_behaviour import produce_foreign

MiB = 1024 * 1024


def payload_bytes(m):
    p = m["payload"]
    return p["value"].encode() if p["type"] == "str" else bytes.fromhex(p["hex"])


def key_bytes(m):
    k = m["key"]
    if k is None:
        return None
    return bytes.fromhex(k["hex"]) if isinstance(k, dict) else k.encode()


def test_foreign_records_of_any_key_and_size_come_into_an_any_key_large_message_topic(broker, tmp_path, topic):
    rnd = random.Random(7)
    records = [
        (0, None, b"no key"),
        (0, b"", b"empty key"),
        (0, "user-\u00e9".encode(), b"text key"),
        (0, bytes([0xFF, 0, 0xFE]), b"binary key"),
        (0, rnd.randbytes(1000), b"a key of 1,000 bytes"),
        (1, None, b""),
        (1, b"k", rnd.randbytes(5000)),
        (1, b"k", rnd.randbytes(200_000)),
        # Near librdkafka's own largest message (message.max.bytes 1,000,000 by default).
        (1, None, rnd.randbytes(900_000)),
        (1, b"json", json.dumps({"rows": ["x" * 50] * 400}).encode()),
    ]
    create_kafka_topic(broker.address, topic, 2)
    produce_foreign(broker.address, topic, records)
    store = tmp_path / "s"
    store.mkdir()
    # Without a key type a foreign topic is refused, saying which option takes every key.
    r = mirror(store, f"{topic}:t", "--from", broker.url, check=False)
    assert r.returncode == 1 and "--key-type" in r.stderr and "any takes every Kafka key" in r.stderr, r.stderr
    out = json.loads(mirror(store, f"{topic}:t", "--from", broker.url, "--key-type", "any", "--large-messages", "--json").stdout)
    assert out["topics"][0]["mirrored"] == len(records)
    config = json.loads((store / "t.twc").read_text())
    assert config["key_width"] == 0 and config["extensions"] == {"key_type": "any", "max_message_bytes": MiB}
    got = consume_json(store, "t")
    by_partition = {0: [], 1: []}
    for m in got:
        by_partition[m["partition"]].append((key_bytes(m), payload_bytes(m)))
    for p in (0, 1):
        assert by_partition[p] == [(k, v) for (q, k, v) in records if q == p], p
    # A UTF-8 key reads as text, other bytes as hex, the null key as null.
    keys = [m["key"] for m in got if m["partition"] == 0]
    assert keys[:4] == [None, "", "user-\u00e9", {"hex": "ff00fe"}]
    # Nothing more on a second run.
    again = json.loads(mirror(store, f"{topic}:t", "--from", broker.url, "--key-type", "any", "--large-messages", "--json").stdout)
    assert again["topics"][0]["mirrored"] == 0


def test_a_store_topic_of_free_keys_and_large_messages_goes_to_kafka_and_back_unchanged(broker, tmp_path, topic):
    store = tmp_path / "s"
    store.mkdir()
    run_cli(store, "topics", "create", "a", "--key-type", "any", "--partitions", "2", "--max-message-bytes", str(3 * MiB))
    big = tmp_path / "big.bin"
    big.write_bytes(random.Random(3).randbytes(2 * MiB))
    text = tmp_path / "doc.json"
    text.write_text(json.dumps({"doc": "\u00e9" * 30_000}))
    run_cli(store, "produce", "a", "--no-key", "hello")
    run_cli(store, "produce", "a", "--key-hex", "00ff", "--bytes", "--value-file", str(big))
    run_cli(store, "produce", "a", "--key", "abc", "--value-file", str(text))
    # A bytes key whose bytes are UTF-8 stays a bytes key after the round trip.
    run_cli(store, "produce", "a", "--key-hex", "616263", "bytes key")
    run_cli(store, "produce", "a", "--key", "", "empty")
    out = json.loads(mirror(store, f"a:{topic}", "--to", broker.url, "--json").stdout)
    assert out["topics"][0]["mirrored"] == 5
    src = consume_json(store, "a")
    # What independent clients read: the key's bytes (null for none), the value's bytes.
    recs = kafka_records(broker.address, topic)
    seen = {p: [(key_bytes_or_none(r["key"]), r["value"]) for r in rs] for p, rs in recs.items()}
    assert seen == {p: [(key_bytes(m), payload_bytes(m)) for m in src if m["partition"] == p] for p in (0, 1)}
    # The Kafka topic was made with room for the store topic's largest message, its key and headers.
    assert int(topic_config(broker.address, topic)["max.message.bytes"]) >= 3 * MiB + 65536
    kinds = {r["key"]: r["headers"]["twainmq.key"] for rs in recs.values() for r in rs}
    assert kinds[None] == b"any" and kinds[b"\0\xff"] == b"bytes" and kinds[b""] == b"text"
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    mirror(fresh, f"{topic}:a", "--from", broker.url)
    assert json.loads((fresh / "a.twc").read_text()) == json.loads((store / "a.twc").read_text())
    back = consume_json(fresh, "a")

    assert back == src
    assert [m["key"] for m in back if m["payload"].get("value") == "bytes key"] == [{"hex": "616263"}]


def topic_config(address, topic):
    from confluent_kafka.admin import AdminClient, ConfigResource

    admin = AdminClient({"bootstrap.servers": address})  # kept alive until the answer is in
    [f] = admin.describe_configs([ConfigResource("topic", topic)]).values()
    return {name: entry.value for name, entry in f.result(10).items()}


def key_bytes_or_none(k):
    return None if k is None else bytes(k)
