"""The format's next version (docs/FORMAT.md, Part 3) against the real twainmq 0.2.3.

A topic with free keys (key type text, bytes or any) or large messages has
`key_width` 0 in its config: every 0.2.3 producer, consumer and group member
raises NotImplementedError("Zero width keys not yet supported") when it opens
such a topic, before reading or writing anything. These tests pin that for
each kind of extended topic, what 0.2.3's list_topics, create_topic and
delete_topic do with one, that 0.2.3 goes on working on the plain topics of
the same store, and why the mark is needed: a 0.2.3 consumer that meets a
large message's part on a topic it can open misnumbers every later message.
They also take messages of every size and keys of every kind through the
CLI's produce, consume, export, import and copy.
"""

import base64
import builtins
import datetime
import glob
import json
import random
import struct
import zlib

import pytest

from conftest import describe_diff, parse_jsonl, snapshot_tree

ZERO_WIDTH = "Zero width keys not yet supported"

# (topic, create flags, a key argument for produce)
EXTENDED = [
    ("free-text", ["--key-type", "text"], ["--key", "ключ"]),
    ("free-bytes", ["--key-type", "bytes"], ["--key-hex", "00ff10"]),
    ("free-any", ["--key-type", "any"], ["--no-key"]),
    ("large-u32", ["--key-type", "u32", "--large-messages"], ["--key", "7"]),
    ("large-any", ["--key-type", "any", "--max-message-bytes", "200000"], ["--key", "doc"]),
]


def big_text(n):
    words = ["lorem", "ipsum", "dolor", "sit", "amet", "ключ", "🔑", '{"id":', "42}"]
    out, i = [], 0
    size = 0
    while size < n:
        w = words[(i * 7 + i // 3) % len(words)] + str(i % 97) + " "
        out.append(w)
        size += len(w.encode())
        i += 1
    text = "".join(out).encode()[:n]
    return text.decode("utf-8", "ignore")


@pytest.mark.parametrize("topic,flags,key", EXTENDED, ids=[e[0] for e in EXTENDED])
def test_023_refuses_each_kind_of_extended_topic_at_open_and_changes_nothing(store, cli, twainmq, tmp_path, topic, flags, key):
    cli(store, "topics", "create", topic, "--partitions", "2", *flags)
    config = json.loads((store / f"{topic}.twc").read_text())
    assert config["key_width"] == 0 and "extensions" in config, config
    value = tmp_path / "value.txt"
    value.write_text(big_text(150_000 if "large" in topic else 1000))
    cli(store, "produce", topic, *key, "--value-file", value)
    # A plain topic beside it, used by 0.2.3 before and after.
    cli(store, "topics", "create", "plain", "--key-type", "u16")
    tmq = twainmq.Twain(store)
    tmq.producer("plain").write_message(1, "before")
    before = snapshot_tree(store)
    for what, open_it in [
        ("producer", lambda: tmq.producer(topic)),
        ("consumer", lambda: tmq.consumer(topic)),
        ("consumer from now", lambda: tmq.consumer(topic, start_from="now")),
        ("group member", lambda: tmq.consumer(topic, group="readers")),
    ]:
        with pytest.raises(NotImplementedError, match=ZERO_WIDTH):
            open_it()
    with pytest.raises(ValueError, match="already exists"):
        tmq.create_topic(topic, "u16")
    after = snapshot_tree(store)
    assert after == before, f"0.2.3 changed the store: {describe_diff(before, after)}"
    assert not (store / "--group--readers.twc").exists(), "the group member wrote nothing"
    # list_topics names it (0.2.3 lists every .twc); the key table is no topic.
    assert sorted(tmq.list_topics()) == sorted([topic, "plain"])
    # 0.2.3 goes on with the plain topic; ours reads the extended one whole.
    tmq.producer("plain").write_message(2, "after")
    c = tmq.consumer("plain")
    assert [(m.offset, m.message) for m in iter(c.poll, None)] == [(0, "before"), (1, "after")]
    got = parse_jsonl(cli(store, "consume", topic, "--json").stdout)
    assert len(got) == 1 and got[0]["payload"]["value"] == value.read_text()
    assert cli(store, "check", check=False).returncode == 0


def test_023_delete_topic_of_an_extended_topic_leaves_its_config_and_ours_finishes_the_delete(store, cli, twainmq, monkeypatch):
    cli(store, "topics", "create", "k", "--key-type", "any")
    cli(store, "produce", "k", "--key", "x", "hello")
    tmq = twainmq.Twain(store)
    monkeypatch.setattr(builtins, "input", lambda prompt: "YES" + prompt[-1])
    assert tmq.delete_topic("k") is None
    # 0.2.3 removes the folder (the key table with it) and leaves the config, as for any topic.
    assert not (store / "k").exists() and (store / "k.twc").exists()
    assert "k" in tmq.list_topics()
    # Ours: an empty topic that cannot take messages until deleted; check says nothing is lost.
    assert cli(store, "consume", "k").stdout == ""
    assert cli(store, "check", check=False).returncode == 0
    refused = cli(store, "produce", "k", "--key", "x", "again", check=False)
    # The refusal names what is missing (the topic's folder) and the way out.
    assert refused.returncode != 0 and "has its config but no folder" in refused.stderr, refused.stderr
    assert "twainmq topics delete k --yes" in refused.stderr, refused.stderr
    cli(store, "topics", "delete", "k", "--yes")
    assert not (store / "k.twc").exists()
    cli(store, "topics", "create", "k", "--key-type", "u16")
    tmq.producer("k").write_message(1, "a 0.2.3 topic again")


def test_a_large_message_part_on_a_plain_topic_misnumbers_a_023_consumer(store, twainmq):
    """Why extended topics have key_width 0: on a topic it can open, a 0.2.3
    consumer meeting a part (payload 0xF8) raises UnicodeDecodeError after its
    readline() took the line, without counting it: every later message gets
    an offset one too low."""
    tmq = twainmq.Twain(store)
    tmq.create_topic("plain", "u16")
    p = tmq.producer("plain")
    p.write_message(1, "first")
    (path,) = glob.glob(str(store / "plain" / "*.tmf"))
    key = base64.b85encode((2).to_bytes(2, "big")).decode()
    ts = base64.b85encode(struct.pack("!d", datetime.datetime.now(datetime.timezone.utc).timestamp())).decode()
    co = zlib.compressobj(6, zlib.DEFLATED, -15)
    blob = base64.b85encode(co.compress(b"\xf8" + bytes(40)) + co.flush()).decode()
    with open(path, "a") as f:
        f.write(key + ts + blob + "\n")
    p.write_message(3, "third")
    c = tmq.consumer("plain")
    assert (lambda m: (m.offset, m.message))(c.poll()) == (0, "first")
    with pytest.raises(UnicodeDecodeError):
        c.poll()
    third = c.poll()
    assert (third.offset, third.message) == (1, "third"), "0.2.3 gives the third line offset 1, not 2"


def _jsonl_record(key, payload):
    return json.dumps({"key": key, "payload": payload}, ensure_ascii=False)


def test_cli_round_trips_every_size_and_key_kind_through_produce_consume_export_import_and_copy(store, cli, tmp_path):
    limit = 1 << 20
    cli(store, "topics", "create", "src", "--key-type", "any", "--partitions", "3", "--large-messages", "--message-types", "Doc")
    sizes = [0, 1, 100, 4096, 5000, 100_000, limit]
    keys = ["", "ключ 🔑", "k" * 1000, {"hex": ""}, {"hex": "00ff" * 500}, None]
    expected = []
    lines = []
    for i, n in enumerate(sizes):
        key = keys[i % len(keys)]
        text = big_text(n)
        raw = bytes((j * 131 + i) % 256 for j in range(n))
        fields = {"body": big_text(max(0, n - 20))}
        for payload in [
            {"type": "str", "value": text},
            {"type": "bytes", "hex": raw.hex()},
            {"type": "dataclass", "class": "Doc", "fields": fields},
        ]:
            if payload["type"] == "dataclass" and len(json.dumps(fields, separators=(",", ":"))) > limit:
                continue
            lines.append(_jsonl_record(key, payload))
            expected.append((json.dumps(key), json.dumps(payload, sort_keys=True)))
    cli(store, "produce", "src", "--jsonl", input="\n".join(lines) + "\n")
    # Also one from a file and one from standard input, at the limit, and one over it.
    blob = tmp_path / "blob.bin"
    blob.write_bytes(bytes(range(256)) * (limit // 256))
    cli(store, "produce", "src", "--key-hex", "0a0b", "--value-file", blob, "--bytes")
    expected.append((json.dumps({"hex": "0a0b"}), json.dumps({"type": "bytes", "hex": blob.read_bytes().hex()}, sort_keys=True)))
    over = tmp_path / "over.txt"
    over.write_text("x" * (limit + 1))
    refused = cli(store, "produce", "src", "--no-key", "--value-file", over, check=False)
    assert refused.returncode != 0 and "over the 1048576-byte limit" in refused.stderr

    def normalise(text):
        out = []
        for m in parse_jsonl(text):
            p = dict(m["payload"])
            if p["type"] == "dataclass":
                p = {"type": "dataclass", "class": p["class"], "fields": p["fields"]}
            out.append((json.dumps(m["key"]), json.dumps(p, sort_keys=True)))
        return sorted(out)

    got = normalise(cli(store, "consume", "src", "--json").stdout)
    assert got == sorted(expected)
    export = tmp_path / "export.jsonl"
    cli(store, "export", "src", "--output", export)
    assert normalise(export.read_text()) == sorted(expected)
    cli(store, "topics", "create", "dst", "--key-type", "any", "--partitions", "2", "--large-messages", "--message-types", "Doc")
    cli(store, "import", "dst", export)
    assert normalise(cli(store, "consume", "dst", "--json").stdout) == sorted(expected)
    csv = tmp_path / "export.csv"
    cli(store, "export", "src", "--format", "csv", "--output", csv)
    cli(store, "topics", "create", "viacsv", "--key-type", "any", "--large-messages", "--message-types", "Doc")
    cli(store, "import", "viacsv", csv, "--format", "csv")
    assert normalise(cli(store, "consume", "viacsv", "--json").stdout) == sorted(expected)
    cli(store, "topics", "create", "copied", "--key-type", "any", "--partitions", "5", "--large-messages", "--message-types", "Doc")
    cli(store, "copy", "src", "--to", "copied")
    assert normalise(cli(store, "consume", "copied", "--json").stdout) == sorted(expected)
    # The text form shows each key's kind: strings quoted, bytes as 0x..., none as null.
    text = cli(store, "consume", "src").stdout
    assert "\tnull\t" in text and "\t0x0a0b\t" in text and '\t"ключ 🔑"\t' in text
    assert cli(store, "check", check=False).returncode == 0


def test_a_message_of_the_largest_size_any_topic_takes_round_trips_and_one_byte_more_is_refused(store, cli, tmp_path):
    """64 MiB (the largest max_message_bytes) of random bytes: about 20,800 parts."""
    limit = 64 << 20
    cli(store, "topics", "create", "huge", "--key-type", "bytes", "--max-message-bytes", limit)
    refused = cli(store, "topics", "create", "huger", "--max-message-bytes", limit + 1, check=False)
    assert refused.returncode != 0 and "67108864" in refused.stderr
    blob = tmp_path / "blob.bin"
    data = random.Random(7).randbytes(limit)
    blob.write_bytes(data)
    sent = json.loads(cli(store, "produce", "huge", "--key-hex", "01", "--value-file", blob, "--bytes", "--json").stdout)
    assert sent["offset"] > 20_000, "a message of that size takes that many lines"
    got = parse_jsonl(cli(store, "consume", "huge", "--json").stdout)
    assert len(got) == 1 and got[0]["offset"] == sent["offset"] and got[0]["key"] == {"hex": "01"}
    assert bytes.fromhex(got[0]["payload"]["hex"]) == data
    blob.write_bytes(data + b"!")
    over = cli(store, "produce", "huge", "--key-hex", "01", "--value-file", blob, "--bytes", check=False)
    assert over.returncode != 0 and "no topic takes a message that large" in over.stderr
    assert cli(store, "check", check=False).returncode == 0
