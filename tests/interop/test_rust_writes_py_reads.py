"""Our CLI writes a store; twainmq 0.2.3 (Python) reads it."""

import base64
import json
import random
import time
import zlib
from dataclasses import dataclass

import pytest

from conftest import Event, Reading, parse_jsonl, payload_equal, payload_of, strict_equal


rng = random.Random(77)

# Texts that can go through argv (no NUL; a leading '-' is tested separately).
ARG_TEXTS = [
    "hello from rust",
    "",
    "ünïcödé ✓ 日本語 😀",
    "tab\there",
    "quotes \"double\" 'single'",
    "<script>alert('x')</script>",
    "multi\nline\r\ntext",
    "   spaces   ",
    "x" * 1500,
]
ARG_BYTES = [b"", bytes(range(256)), b"\x00\xff", bytes(rng.getrandbits(8) for _ in range(700))]

JSONL_TEXTS = ARG_TEXTS + ["nul \x00 inside", "\ufeffbom", '{"type":"str"}', "\\u0000 literal"]
JSONL_BYTES = ARG_BYTES + [b"\xfb\x00\x01{}", b"\n", bytes(rng.getrandbits(8) for _ in range(1500))]
DATACLASSES = [
    Event(id=0, text="", tags=[], nested=[], big=0, flag=False, ratio=0.0),
    Event(id=2**64 - 1, text="ünïcödé 日本 😀 \"q\" <b>\t", tags=["a", "b,c", ""], nested=[[1, [2, [3, []]]], [None, True, 1.5]], big=2**64 - 1, flag=True, ratio=3.141592653589793),
    Event(id=-(2**63), text="neg", tags=["z"], nested=[[[[]]]], big=2**63, flag=False, ratio=-1e-300),
    Reading(sensor="s0", value=43.664746541669544, ok=False, samples=[1.5, -2.25, 1e100, 5e-324]),
    Reading(sensor="<script>", value=-0.0, ok=True, samples=[0.1, 0.2, 0.30000000000000004, 1e16, 1e-5, 123456789.0]),
    Reading(sensor="whole", value=1.0, ok=True, samples=[]),
]

# topic -> (key_type, partitions, message types, keys)
TOPICS = {
    "r_u8": ("u8", 3, None, [0, 1, 128, 254, 255]),
    "r_u16": ("u16", 4, ["Event", "Reading"], [0, 1, 256, 65534, 65535]),
    "r_u32": ("u32", 5, ["Event", "Reading"], [0, 1, 2**31, 2**32 - 1]),
    "r_u64": ("u64", 6, ["Event", "Reading"], [0, 1, 2**53 + 1, 2**63, 2**64 - 2, 2**64 - 1]),
    "r_char8": ("char8", 4, ["Event", "Reading"], ["", "a", "abcdefgh", "ünï", "日本", "😀😀", " x "]),
    "r_char3": ("char3", 2, ["Event", "Reading"], ["", "a", "abc", "é", "€"]),
    "r_char16": ("char16", 1, ["Reading", "Event"], ["", "sixteen-bytes-ok", "k"]),
}


def make_twain(twainmq, root):
    tmq = twainmq.Twain(root)
    tmq.register_msg_cls(Event)
    tmq.register_msg_cls(Reading)
    return tmq


def create_topic_cli(cli, store, topic, key_type, parts, mtypes):
    args = ["topics", "create", topic, "--key-type", key_type, "--partitions", parts]
    if mtypes:
        args += ["--message-types", ",".join(mtypes)]
    cli(store, *args)


def jsonl_line(key, msg):
    return json.dumps({"key": key, "payload": payload_of(msg)})


def py_read(tmq, topic, partitions):
    from twainmq.consumer import TwainMQConsumerlet

    out = {}
    for p in range(partitions):
        cl = TwainMQConsumerlet(tmq, topic, p, offset=0)
        msgs = []
        while (m := cl.poll()) is not None:
            msgs.append(m)
        out[p] = msgs
    return out


def produce_everything(cli, store):
    """Create the topics and produce via argv (text and --bytes-hex) and --jsonl.
    Returns {topic: [expected records in write order]}."""
    from twainmq.encoding import partition_hash64

    written = {}
    for topic, (kt, parts, mtypes, keys) in TOPICS.items():
        create_topic_cli(cli, store, topic, kt, parts, mtypes)
        recs = []
        i = 0
        # argv: text and bytes
        for msg in ARG_TEXTS + ARG_BYTES:
            key = keys[i % len(keys)]
            i += 1
            t0 = time.time()
            if isinstance(msg, bytes):
                cli(store, "produce", topic, "--key", key, "--bytes-hex", msg.hex())
            else:
                cli(store, "produce", topic, "--key", key, msg)
            t1 = time.time()
            recs.append(dict(key=key, payload=payload_of(msg), partition=partition_hash64(key, parts), t0=t0, t1=t1))
        # --jsonl: all three kinds, several rounds
        msgs = JSONL_TEXTS + JSONL_BYTES + (DATACLASSES if mtypes else [])
        lines = []
        batch = []
        for rnd in range(3):
            for msg in msgs:
                key = keys[(i * 3 + rnd) % len(keys)]
                i += 1
                lines.append(jsonl_line(key, msg))
                batch.append(dict(key=key, payload=payload_of(msg), partition=partition_hash64(key, parts)))
        t0 = time.time()
        cli(store, "produce", topic, "--jsonl", input="\n".join(lines) + "\n")
        t1 = time.time()
        for b in batch:
            b.update(t0=t0, t1=t1)
        recs += batch
        written[topic] = recs
    return written


def test_py_reads_everything_cli_wrote(cli, twainmq, store):
    written = produce_everything(cli, store)
    tmq = make_twain(twainmq, store)
    total = 0
    for topic, (kt, parts, mtypes, keys) in TOPICS.items():
        py = py_read(tmq, topic, parts)
        exp = {p: [w for w in written[topic] if w["partition"] == p] for p in range(parts)}
        assert sum(len(v) for v in py.values()) == len(written[topic]), f"{topic}: 0.2.3 read {sum(len(v) for v in py.values())} of {len(written[topic])}"
        for p in range(parts):
            assert len(py[p]) == len(exp[p]), f"{topic} p{p}: 0.2.3 read {len(py[p])}, expected {len(exp[p])} (partition_hash64 placement)"
            for i, (m, w) in enumerate(zip(py[p], exp[p])):
                where = f"{topic} p{p} #{i}"
                assert m.offset == i, where
                assert type(m.key) is type(w["key"]) and m.key == w["key"], f"{where}: key {m.key!r} != {w['key']!r}"
                assert payload_equal(payload_of(m.message), w["payload"]), f"{where}:\n got {payload_of(m.message)!r}\nwant {w['payload']!r}"
                ts = m.timestamp.timestamp()
                assert w["t0"] - 1e-3 <= ts <= w["t1"] + 1e-3, f"{where}: timestamp {ts} outside [{w['t0']}, {w['t1']}]"
            total += len(py[p])
        # and our own reader agrees
        recs = parse_jsonl(cli(store, "consume", topic, "--from", "start", "--json").stdout)
        assert len(recs) == len(written[topic])
        for p in range(parts):
            mine = [r for r in recs if r["partition"] == p]
            assert [r["offset"] for r in mine] == list(range(len(exp[p])))
            assert all(r["key"] == w["key"] and payload_equal(r["payload"], w["payload"]) for r, w in zip(mine, exp[p]))
    print(f"0.2.3 read {total} messages written by our CLI")


def test_typed_payload_bytes_match_0_2_3_encoding(cli, twainmq, store):
    """The decompressed payload of every line we write equals what 0.2.3's
    encode_message produces for the same message (0xFB + type id + compact
    ensure_ascii JSON; 0xFC + bytes; UTF-8 text)."""
    from twainmq.producer import TwainMQProducer

    topic = "enc"
    create_topic_cli(cli, store, topic, "u16", 1, ["Event", "Reading"])
    msgs = JSONL_TEXTS + JSONL_BYTES + DATACLASSES
    cli(store, "produce", topic, "--jsonl", input="".join(jsonl_line(7, m) + "\n" for m in msgs))
    files = sorted((store / topic).glob("0-*.tmf"))
    lines = b"".join(f.read_bytes() for f in files).split(b"\n")
    tmq = make_twain(twainmq, store)
    prod = TwainMQProducer(tmq, topic)
    assert lines[-1] == b""
    lines = lines[:-1]
    assert len(lines) == len(msgs)
    for line, msg in zip(lines, msgs):
        assert line.isascii()
        ours = zlib.decompress(base64.b85decode(line[3 + 10:]), wbits=-15)
        theirs = zlib.decompress(base64.b85decode(prod.encode_message(msg)), wbits=-15)
        assert ours == theirs, f"payload bytes differ for {msg!r}:\n ours   {ours[:200]!r}\n 0.2.3  {theirs[:200]!r}"
        assert line[:3] == base64.b85encode((7).to_bytes(2, "big"))


def test_dash_text_after_double_dash(cli, twainmq, store):
    cli(store, "topics", "create", "dash", "--key-type", "u8")
    cli(store, "produce", "dash", "--key", "1", "--", "-starts with a dash")
    cli(store, "produce", "dash", "--key", "2", "--", "--looks-like-a-flag")
    tmq = twainmq.Twain(store)
    got = [(m.key, m.message) for m in py_read(tmq, "dash", 1)[0]]
    assert got == [(1, "-starts with a dash"), (2, "--looks-like-a-flag")]


# (args to cli topics create, args to 0.2.3 create_topic)
CREATE_CASES = [
    (["plain"], dict()),
    (["u8x3", "--key-type", "u8", "--partitions", "3"], dict(key_type="u8", partitions=3)),
    (["u16x1", "--key-type", "u16"], dict(key_type="u16")),
    (["u32x5", "--key-type", "u32", "--partitions", "5", "--message-types", "Event"], dict(key_type="u32", partitions=5, message_types=["Event"])),
    (["u64x16", "--key-type", "u64", "--partitions", "16", "--message-types", "Event,Reading"], dict(key_type="u64", partitions=16, message_types=["Event", "Reading"])),
    (["c8", "--key-type", "char8", "--partitions", "2", "--message-types", "Reading,Event"], dict(key_type="char8", partitions=2, message_types=["Reading", "Event"])),
    (["c3", "--key-type", "char3"], dict(key_type="char3")),
    (["c200", "--key-type", "char200", "--partitions", "12"], dict(key_type="char200", partitions=12)),
    (["many", "--message-types", ",".join(f"T{i}" for i in range(20))], dict(message_types=[f"T{i}" for i in range(20)])),
    (["x" * 200, "--key-type", "u8"], dict(key_type="u8")),
]


@pytest.mark.parametrize("cli_args,py_kwargs", CREATE_CASES, ids=[c[0][0][:20] for c in CREATE_CASES])
def test_twc_byte_identical(cli, twainmq, tmp_path, cli_args, py_kwargs):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    ours.mkdir()
    theirs.mkdir()
    name = cli_args[0]
    cli(ours, "topics", "create", *cli_args)
    twainmq.Twain(theirs).create_topic(name, **py_kwargs)
    a = (ours / f"{name}.twc").read_bytes()
    b = (theirs / f"{name}.twc").read_bytes()
    assert a == b, f"\nours:   {a!r}\n0.2.3:  {b!r}"
    # same store layout: the .twc plus the (empty) topic folder
    assert sorted(p.name for p in ours.iterdir()) == sorted(p.name for p in theirs.iterdir())
    assert (ours / name).is_dir()
    assert twainmq.Twain(ours).topic_exists(name)


def test_list_topics_sees_cli_topics(cli, twainmq, store):
    for topic, (kt, parts, mtypes, _) in TOPICS.items():
        create_topic_cli(cli, store, topic, kt, parts, mtypes)
    tmq = twainmq.Twain(store)
    assert sorted(tmq.list_topics()) == sorted(TOPICS)
    # 0.2.3 can also produce to a topic our CLI created (it needs the topic folder)
    from twainmq.encoding import partition_hash64

    tmq.producer("r_u32").write_message(2**32 - 1, "from python")
    recs = parse_jsonl(cli(store, "consume", "r_u32", "--json").stdout)
    assert [(r["partition"], r["offset"], r["key"], r["payload"]) for r in recs] == [
        (partition_hash64(2**32 - 1, 5), 0, 2**32 - 1, {"type": "str", "value": "from python"})
    ]


def test_alternating_producers_share_files(cli, twainmq, store):
    """CLI and 0.2.3 take turns appending to the same partitions: one log,
    offsets continuous, both readers see the same sequence."""
    from twainmq.encoding import partition_hash64

    parts = 3
    cli(store, "topics", "create", "mix", "--key-type", "u32", "--partitions", parts, "--message-types", "Event,Reading")
    tmq = make_twain(twainmq, store)
    expected = []
    for rnd in range(4):
        lines = []
        for k in range(10):
            key = rnd * 100 + k
            msg = f"cli r{rnd} k{k}" if k % 3 else DATACLASSES[k % len(DATACLASSES)]
            lines.append(jsonl_line(key, msg))
            expected.append((key, payload_of(msg)))
        cli(store, "produce", "mix", "--jsonl", input="\n".join(lines) + "\n")
        prod = tmq.producer("mix")
        for k in range(10):
            key = rnd * 100 + 50 + k
            msg = f"py r{rnd} k{k}".encode() if k % 2 else f"py r{rnd} k{k}"
            prod.write_message(key, msg)
            expected.append((key, payload_of(msg)))
    # one file per partition (same UTC day), shared by both writers
    files = sorted(f.name for f in (store / "mix").iterdir())
    assert all(f.endswith(".tmf") for f in files)
    py = py_read(tmq, "mix", parts)
    recs = parse_jsonl(cli(store, "consume", "mix", "--json").stdout)
    for p in range(parts):
        exp = [(k, pl) for k, pl in expected if partition_hash64(k, parts) == p]
        got_py = [(m.offset, m.key, payload_of(m.message)) for m in py[p]]
        got_cli = [(r["offset"], r["key"], r["payload"]) for r in recs if r["partition"] == p]
        want = [(i, k, pl) for i, (k, pl) in enumerate(exp)]
        assert len(got_py) == len(want) and all(a[:2] == b[:2] and payload_equal(a[2], b[2]) for a, b in zip(got_py, want)), f"p{p} (0.2.3 read), files {files}"
        assert len(got_cli) == len(want) and all(a[:2] == b[:2] and payload_equal(a[2], b[2]) for a, b in zip(got_cli, want)), f"p{p} (CLI read), files {files}"


@dataclass
class Box:
    value: object


BIG_INTS = {"2**64": 2**64, "2**70": 2**70, "-2**63-1": -(2**63) - 1, "10**40": 10**40, "nested": [1, [2**64 + 1, {"k": -(2**65)}]]}


@pytest.mark.parametrize("name", list(BIG_INTS))
def test_big_int_fields_from_jsonl(cli, twainmq, store, name):
    """0.2.3 carries arbitrary-precision ints in typed fields. A JSON integer beyond
    64 bits given to `produce --jsonl` must reach 0.2.3 exactly, or be refused with
    an error; silently turning it into a float is data corruption."""
    value = BIG_INTS[name]
    cli(store, "topics", "create", "big", "--key-type", "u8", "--message-types", "Box")
    line = json.dumps({"key": 1, "payload": {"type": "dataclass", "class": "Box", "fields": {"value": value}}})
    before = sorted((p.name, p.read_bytes()) for p in (store / "big").iterdir())
    proc = cli(store, "produce", "big", "--jsonl", input=line + "\n", check=False)
    if proc.returncode != 0:
        assert proc.stderr.strip(), "failed without a message"
        assert sorted((p.name, p.read_bytes()) for p in (store / "big").iterdir()) == before
        return
    tmq = twainmq.Twain(store)
    tmq.register_msg_cls(Box)
    msgs = py_read(tmq, "big", 1)[0]
    assert len(msgs) == 1
    got = json.loads(json.dumps(msgs[0].message.value))
    assert strict_equal(got, value), f"0.2.3 reads {got!r}, we were given {value!r}"


def test_cli_starts_todays_file_after_python_days(cli, twainmq, store, monkeypatch):
    """0.2.3 wrote on earlier (faked) UTC days; our CLI, writing today, must start
    `p-<today>_<first>.tmf` with first = last file's first + its lines, so that
    0.2.3 reads one continuous log."""
    from datetime import datetime, timedelta, timezone

    import twainmq.agent_base as agent_base
    import twainmq.producer as producer_mod
    from twainmq.encoding import partition_hash64

    clock = {"now": datetime(2025, 1, 30, 12, 0, 0, tzinfo=timezone.utc)}

    class FakeDatetime(datetime):
        @classmethod
        def now(cls, tz=None):
            return clock["now"].astimezone(tz) if tz else clock["now"]

    parts = 3
    tmq = make_twain(twainmq, store)
    tmq.create_topic("days", key_type="u16", partitions=parts, message_types=["Event", "Reading"])
    monkeypatch.setattr(agent_base, "datetime", FakeDatetime)
    monkeypatch.setattr(producer_mod, "datetime", FakeDatetime)
    prod = tmq.producer("days")
    expected = []
    for day in range(3):
        for i in range(7):
            clock["now"] += timedelta(seconds=1)
            key = day * 100 + i
            prod.write_message(key, f"py day{day} {i}")
            expected.append((key, f"py day{day} {i}"))
        clock["now"] += timedelta(days=1)
    monkeypatch.undo()
    counts = {p: sum(1 for k, _ in expected if partition_hash64(k, parts) == p) for p in range(parts)}

    lines = []
    for i in range(12):
        key = 1000 + i
        lines.append(jsonl_line(key, f"cli today {i}"))
        expected.append((key, f"cli today {i}"))
    cli(store, "produce", "days", "--jsonl", input="\n".join(lines) + "\n")

    today = datetime.now(timezone.utc).strftime("%Y%m%d")
    names = {f.name for f in (store / "days").iterdir()}
    for p in range(parts):
        if any(partition_hash64(1000 + i, parts) == p for i in range(12)):
            assert f"{p}-{today}_{counts[p]}.tmf" in names, f"partition {p}: expected {p}-{today}_{counts[p]}.tmf in {sorted(names)}"

    msgs = py_read(tmq, "days", parts)
    for p in range(parts):
        want = [(k, t) for k, t in expected if partition_hash64(k, parts) == p]
        got = [(m.offset, m.key, m.message) for m in msgs[p]]
        assert got == [(i, k, t) for i, (k, t) in enumerate(want)], f"partition {p}; files {sorted(names)}"
