"""twainmq 0.2.3 (Python) writes a store; our CLI reads it."""

import json
import math
import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest import Event, Reading, parse_jsonl, payload_equal, payload_of


rng = random.Random(20240923)

TEXTS = [
    "hello",
    "",
    "ünïcödé ✓ 日本語 😀 \u00e9\u0301",
    "tab\there\tand\ttabs",
    "quotes \"double\" 'single' `back`",
    "<script>alert('x')</script>",
    "back\\slash \\n not a newline",
    "real\nnewline\r\nand CR\r",
    "nul \x00 char and \x7f del and \x1b esc",
    '{"type":"bytes","hex":"00"}',
    "\ufeffBOM first",
    "   leading and trailing spaces   ",
    "a" * 2000,
    "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789 ñ€") for _ in range(1200)),
]

BYTES = [
    b"",
    bytes(range(256)),
    b"\x00",
    b"\xff" * 10,
    b"\xfb\x00\x00{}",  # looks like a typed payload inside bytes
    b"\xfc\xfc",
    b"\n\r\n",
    bytes(rng.getrandbits(8) for _ in range(1000)),
    "utf-8 text as bytes ✓".encode(),
]

DATACLASSES = [
    Event(id=0, text="", tags=[], nested=[], big=0, flag=False, ratio=0.0),
    Event(
        id=2**64 - 1,
        text="ünïcödé 日本 😀 \"q\" <b>",
        tags=["a", "b,c", '"q"', "", "tab\t"],
        nested=[[1, [2, [3, []]]], [], ["x", None, True, 1.5]],
        big=2**64 - 1,
        flag=True,
        ratio=3.141592653589793,
    ),
    Event(id=-(2**63), text="neg", tags=["z"], nested=[[[[]]]], big=2**63, flag=False, ratio=-1e-300),
    Event(id=12345678901234567890, text="x" * 300, tags=["日本"] * 5, nested=[[2**64 - 2, -(2**63)]], big=2**64 - 2, flag=True, ratio=1e300),
    Reading(sensor="s0", value=43.664746541669544, ok=False, samples=[1.5, -2.25, 1e100, 5e-324]),
    Reading(sensor="<script>", value=-0.0, ok=True, samples=[0.1, 0.2, 0.30000000000000004]),
    Reading(sensor="whole", value=1.0, ok=True, samples=[]),
    Reading(sensor="ß∂ƒ", value=2.5e-8, ok=False, samples=[[1.0, 2], {"k": "v", "n": [1]}]),
]

# topic -> (key_type, partitions, message_types or None, keys)
TOPICS = {
    "t_u8": ("u8", 3, None, [0, 1, 2, 127, 128, 200, 254, 255]),
    "t_u16": ("u16", 4, ["Event", "Reading"], [0, 1, 255, 256, 1000, 32768, 65534, 65535]),
    "t_u32": ("u32", 5, ["Event", "Reading"], [0, 1, 65536, 2**31, 3626809857, 2**32 - 2, 2**32 - 1]),
    "t_u64": ("u64", 7, ["Reading", "Event"], [0, 1, 2**32, 2**53 + 1, 2**63, 14542731574252009633, 2**64 - 2, 2**64 - 1]),
    "t_char8": ("char8", 4, ["Event", "Reading"], ["", "a", "abcdefgh", "ünï", "日本", "éééé", "😀😀", " x y ", "a\tb", "12345678"]),
    "t_char3": ("char3", 2, ["Event", "Reading"], ["", "a", "abc", "é", "€", "日", "a é"[:2], "xyz"]),
    "t_char16": ("char16", 1, ["Event", "Reading"], ["", "sixteen-bytes-ok", "ünïcödé_üni", "k"]),
    # Event's type id is 300: checks the 2-byte big-endian type id.
    "t_manytypes": ("u16", 2, [f"T{i}" for i in range(256)] + ["Reading"] + [f"U{i}" for i in range(43)] + ["Event"], [0, 7, 65535]),
    "t_empty": ("u32", 3, None, []),
}


def make_twain(twainmq, root):
    tmq = twainmq.Twain(root)
    tmq.register_msg_cls(Event)
    tmq.register_msg_cls(Reading)
    return tmq


def plan_messages(keys, message_types):
    payloads = list(TEXTS) + list(BYTES)
    if message_types:
        payloads += list(DATACLASSES)
    if not keys:
        return []
    n = max(len(keys), len(payloads)) * 3
    return [(keys[i % len(keys)], payloads[(i * 5) % len(payloads)]) for i in range(n)]


def build_store(twainmq, root):
    """Create every topic with 0.2.3 and write the planned messages.
    Returns {topic: [written record dicts in write order]}."""
    from twainmq.encoding import partition_hash64

    tmq = make_twain(twainmq, root)
    written = {}
    for topic, (key_type, parts, mtypes, keys) in TOPICS.items():
        tmq.create_topic(topic, key_type=key_type, partitions=parts, message_types=mtypes)
        prod = tmq.producer(topic)
        recs = []
        for key, msg in plan_messages(keys, mtypes):
            t0 = time.time()
            prod.write_message(key, msg)
            t1 = time.time()
            recs.append(dict(key=key, payload=payload_of(msg), partition=partition_hash64(key, parts), t0=t0, t1=t1))
        written[topic] = recs
    return tmq, written


def py_read(twainmq, tmq, topic, partitions):
    """Read every partition with 0.2.3's own per-partition consumerlets."""
    from twainmq.consumer import TwainMQConsumerlet

    out = {}
    for p in range(partitions):
        cl = TwainMQConsumerlet(tmq, topic, p, offset=0)
        msgs = []
        while (m := cl.poll()) is not None:
            msgs.append(m)
        out[p] = msgs
    return out


def cli_read(cli, store, topic, *extra):
    proc = cli(store, "consume", topic, "--from", "start", "--json", *extra)
    assert proc.returncode == 0
    recs = parse_jsonl(proc.stdout)
    for r in recs:
        for field in ("partition", "offset", "key", "timestamp", "payload"):
            assert field in r, f"consume --json record lacks {field!r}: {r}"
    return recs, proc


def group_by_partition(recs):
    by = {}
    for r in recs:
        by.setdefault(r["partition"], []).append(r)
    return by


def expected_by_partition(written, partitions):
    exp = {p: [] for p in range(partitions)}
    for w in written:
        exp[w["partition"]].append(w)
    return exp


def test_consume_reads_everything_0_2_3_wrote(cli, twainmq, store):
    tmq, written = build_store(twainmq, store)
    total = 0
    for topic, (key_type, parts, mtypes, keys) in TOPICS.items():
        recs, proc = cli_read(cli, store, topic)
        assert "warn" not in proc.stderr.lower() and "corrupt" not in proc.stderr.lower(), proc.stderr
        py = py_read(twainmq, tmq, topic, parts)
        exp = expected_by_partition(written[topic], parts)
        got = group_by_partition(recs)

        assert len(recs) == len(written[topic]), f"{topic}: CLI read {len(recs)} messages, 0.2.3 wrote {len(written[topic])}"
        assert set(got) <= set(range(parts)), f"{topic}: partitions out of range: {sorted(got)}"
        for p in range(parts):
            e = exp[p]
            g = got.get(p, [])
            pm = py[p]
            # sanity of the test itself: 0.2.3 put the messages where partition_hash64 says
            assert len(pm) == len(e), f"{topic} p{p}: 0.2.3 read {len(pm)} != written {len(e)}"
            assert len(g) == len(e), f"{topic} p{p}: CLI read {len(g)} messages, expected {len(e)}"
            for i, (gr, er, pr) in enumerate(zip(g, e, pm)):
                where = f"{topic} p{p} #{i}"
                assert type(gr["partition"]) is int and gr["partition"] == p
                assert type(gr["offset"]) is int and gr["offset"] == i, f"{where}: offset {gr['offset']!r}, expected {i}"
                assert pr.offset == i
                assert type(gr["key"]) is type(er["key"]), f"{where}: key {gr['key']!r} has JSON type {type(gr['key']).__name__}, expected {er['key']!r}"
                assert gr["key"] == er["key"], f"{where}: key {gr['key']!r} != {er['key']!r}"
                assert pr.key == er["key"]
                assert payload_equal(gr["payload"], er["payload"]), f"{where}: payload\n got {gr['payload']!r}\nwant {er['payload']!r}"
                assert payload_equal(payload_of(pr.message), er["payload"])
                ts = gr["timestamp"]
                assert isinstance(ts, (int, float)) and not isinstance(ts, bool), f"{where}: timestamp {ts!r}"
                assert math.isclose(ts, pr.timestamp.timestamp(), rel_tol=0, abs_tol=1e-6), f"{where}: ts {ts!r} vs 0.2.3 {pr.timestamp.timestamp()!r}"
                assert er["t0"] - 1e-3 <= ts <= er["t1"] + 1e-3, f"{where}: ts {ts} outside write window [{er['t0']}, {er['t1']}]"
        total += len(recs)
    assert total > 500
    print(f"CLI read {total} messages written by 0.2.3 across {len(TOPICS)} topics")


def test_topics_list_matches_list_topics(cli, twainmq, store):
    tmq, _ = build_store(twainmq, store)
    # a consumer group (its topic --group--grp) must not be listed
    tmq.consumer("t_u16", start_from="start", group="grp")
    assert (store / "--group--grp.twc").is_file()
    py_topics = set(tmq.list_topics())
    assert py_topics == set(TOPICS)

    proc = cli(store, "topics", "list", "--json")
    listed = json.loads(proc.stdout)
    assert isinstance(listed, list)
    names = [t["name"] for t in listed]
    assert len(names) == len(set(names)), f"duplicate topics: {names}"
    assert set(names) == py_topics
    for t in listed:
        key_type, parts, _, _ = TOPICS[t["name"]]
        assert t["key_type"] == key_type, t
        assert type(t["partitions"]) is int and t["partitions"] == parts, t


def test_describe_counts(cli, twainmq, store):
    _, written = build_store(twainmq, store)
    for topic, (key_type, parts, _, _) in TOPICS.items():
        d = json.loads(cli(store, "topics", "describe", topic, "--json").stdout)
        assert d["partitions"] == parts, d
        details = d["partition_details"]
        assert isinstance(details, list) and len(details) == parts, details
        counts = {p: 0 for p in range(parts)}
        for w in written[topic]:
            counts[w["partition"]] += 1
        for i, det in enumerate(details):
            p = det.get("partition", i)
            assert p == i, f"{topic}: partition_details out of order: {details}"
            on_disk = sorted(f.name for f in (store / topic).glob(f"{p}-*.tmf"))
            assert det["start"] == 0, f"{topic} p{p}: {det}"
            assert det["end"] == counts[p], f"{topic} p{p}: end {det['end']} != {counts[p]} messages"
            files = det["files"]
            if isinstance(files, list):
                names = [Path(str(f.get("name", f.get("path")) if isinstance(f, dict) else f)).name for f in files]
                assert sorted(names) == on_disk, f"{topic} p{p}: files {files} != {on_disk}"
                if files and isinstance(files[0], dict) and "lines" in files[0]:
                    assert sum(f["lines"] for f in files) == counts[p], f"{topic} p{p}: {files}"
            else:
                assert files == len(on_disk), f"{topic} p{p}: files {files} != {on_disk}"
        if "messages" in d:
            assert d["messages"] == len(written[topic]), d


def test_consume_partition_offset_max_and_now(cli, twainmq, store):
    _, written = build_store(twainmq, store)
    topic = "t_u64"
    parts = TOPICS[topic][1]
    exp = expected_by_partition(written[topic], parts)
    p = max(exp, key=lambda q: len(exp[q]))
    assert len(exp[p]) >= 8
    recs = parse_jsonl(cli(store, "consume", topic, "--partition", p, "--from", 3, "--max", 4, "--json").stdout)
    assert [r["offset"] for r in recs] == [3, 4, 5, 6]
    assert all(r["partition"] == p for r in recs)
    assert [r["key"] for r in recs] == [w["key"] for w in exp[p][3:7]]
    assert all(payload_equal(r["payload"], w["payload"]) for r, w in zip(recs, exp[p][3:7]))

    # --from OFFSET past the end: nothing, clean exit
    recs = parse_jsonl(cli(store, "consume", topic, "--partition", p, "--from", len(exp[p]), "--json").stdout)
    assert recs == []

    # --max over all partitions
    recs = parse_jsonl(cli(store, "consume", topic, "--from", "start", "--max", 5, "--json").stdout)
    assert len(recs) == 5

    # --from now without --follow: at the end already, nothing
    recs = parse_jsonl(cli(store, "consume", topic, "--from", "now", "--json").stdout)
    assert recs == []

    # the partition filter reads the whole partition
    recs = parse_jsonl(cli(store, "consume", topic, "--partition", p, "--from", "start", "--json").stdout)
    assert [r["offset"] for r in recs] == list(range(len(exp[p])))


class _FakeClock:
    """Pins 0.2.3's idea of 'now' (used for the chunk day and the timestamps)."""

    now = None


def test_multiday_files(cli, twainmq, store, monkeypatch):
    """0.2.3 writes over several (faked) UTC days, so partitions have several
    files, some empty; our CLI must read across them with continuous offsets."""
    import twainmq.agent_base as agent_base
    import twainmq.producer as producer_mod
    from twainmq.encoding import partition_hash64

    real_datetime = datetime

    class FakeDatetime(real_datetime):
        @classmethod
        def now(cls, tz=None):
            return _FakeClock.now.astimezone(tz) if tz else _FakeClock.now

    monkeypatch.setattr(agent_base, "datetime", FakeDatetime)
    monkeypatch.setattr(producer_mod, "datetime", FakeDatetime)

    tmq = make_twain(twainmq, store)
    topic, parts = "multiday", 3
    base = real_datetime(2026, 3, 27, 23, 59, 50, tzinfo=timezone.utc)
    _FakeClock.now = base
    tmq.create_topic(topic, key_type="u16", partitions=parts, message_types=["Event", "Reading"])
    prod = tmq.producer(topic)
    written = []
    keys = [0, 1, 2, 3, 5, 8, 13, 65535]
    payloads = TEXTS[:6] + BYTES[:4] + DATACLASSES[:3]
    t = base
    for day in range(4):
        n = 5 if day != 2 else 1  # day 2 leaves most partitions with an empty file
        for i in range(n):
            t = t + timedelta(seconds=1, microseconds=123457)
            _FakeClock.now = t
            key = keys[(day * 7 + i) % len(keys)]
            msg = payloads[(day * 3 + i) % len(payloads)]
            prod.write_message(key, msg)
            written.append(dict(key=key, payload=payload_of(msg), partition=partition_hash64(key, parts), ts=t.timestamp()))
        t = t.replace(hour=23, minute=59, second=58) + timedelta(seconds=5)  # next UTC day
    monkeypatch.undo()

    files = sorted(f.name for f in (store / topic).iterdir())
    assert len(files) >= 3 * parts, files  # one file per partition per day

    recs, _ = cli_read(cli, store, topic)
    got = group_by_partition(recs)
    exp = expected_by_partition(written, parts)
    for p in range(parts):
        g = got.get(p, [])
        assert [r["offset"] for r in g] == list(range(len(exp[p]))), f"p{p}: {[r['offset'] for r in g]}; files {files}"
        assert [r["key"] for r in g] == [w["key"] for w in exp[p]]
        for r, w in zip(g, exp[p]):
            assert payload_equal(r["payload"], w["payload"]), (r, w)
            assert math.isclose(r["timestamp"], w["ts"], rel_tol=0, abs_tol=1e-6), (r["timestamp"], w["ts"])

    # reading from the middle of a later file
    for p in range(parts):
        if len(exp[p]) > 2:
            mid = len(exp[p]) - 2
            g = parse_jsonl(cli(store, "consume", topic, "--partition", p, "--from", mid, "--json").stdout)
            assert [r["offset"] for r in g] == [mid, mid + 1]
            assert [r["key"] for r in g] == [w["key"] for w in exp[p][mid:]]


def test_torn_last_line_is_not_returned(cli, twainmq, store):
    """A line without its final newline (a producer mid-write, or a crash) is not a
    message yet: our CLI must not return it, and must return it once completed."""
    tmq = make_twain(twainmq, store)
    tmq.create_topic("torn", key_type="u16", partitions=1)
    prod = tmq.producer("torn")
    for k in range(3):
        prod.write_message(k, f"complete {k}")
    (path,) = (store / "torn").glob("0-*.tmf")
    # encode a 4th line exactly as 0.2.3 would, and append only half of it
    line = path.read_bytes().splitlines(keepends=True)[0]
    full = line[:3] + line[3:13] + prod.encode_message("the fourth").encode() + b"\n"
    with path.open("ab") as f:
        f.write(full[: len(full) // 2])
    recs, proc = cli_read(cli, store, "torn")
    assert [r["offset"] for r in recs] == [0, 1, 2], recs
    assert [r["payload"]["value"] for r in recs] == ["complete 0", "complete 1", "complete 2"]
    with path.open("ab") as f:
        f.write(full[len(full) // 2 :])
    recs, proc = cli_read(cli, store, "torn")
    assert [r["offset"] for r in recs] == [0, 1, 2, 3]
    assert recs[3]["payload"] == {"type": "str", "value": "the fourth"} and recs[3]["key"] == 0


def _start_follow(store, topic, *extra):
    import subprocess

    from conftest import base_env, cli_binary

    return subprocess.Popen(
        [str(cli_binary()), "--store", str(store), "consume", topic, "--follow", "--json", *map(str, extra)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=base_env(),
        encoding="utf-8",
    )


def test_follow_sees_live_python_writes(cli, twainmq, store):
    """consume --follow started before 0.2.3 has created any partition file (the
    0.2.3 reader loses messages here) sees every message 0.2.3 then writes."""
    from twainmq.encoding import partition_hash64

    tmq = make_twain(twainmq, store)
    tmq.create_topic("live", key_type="u32", partitions=3, message_types=["Event", "Reading"])
    assert list((store / "live").iterdir()) == []
    n = 60
    follower = _start_follow(store, "live", "--from", "start", "--max", n, "--for", 30)
    try:
        time.sleep(0.7)
        prod = tmq.producer("live")
        written = []
        for i in range(n):
            msg = DATACLASSES[i % len(DATACLASSES)] if i % 4 == 0 else f"live {i}"
            prod.write_message(i * 7919, msg)
            written.append((i * 7919, payload_of(msg)))
            if i % 10 == 0:
                time.sleep(0.1)
        out, err = follower.communicate(timeout=40)
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()
    assert follower.returncode == 0, err
    recs = parse_jsonl(out)
    assert len(recs) == n, f"follower saw {len(recs)} of {n} messages; stderr: {err[-500:]}"
    for p in range(3):
        mine = [r for r in recs if r["partition"] == p]
        exp = [(k, pl) for k, pl in written if partition_hash64(k, 3) == p]
        assert [r["offset"] for r in mine] == list(range(len(exp)))
        assert [r["key"] for r in mine] == [k for k, _ in exp]
        assert all(payload_equal(r["payload"], pl) for r, (_, pl) in zip(mine, exp))


def test_follow_from_now_skips_old_messages(cli, twainmq, store):
    tmq = make_twain(twainmq, store)
    tmq.create_topic("tail", key_type="u8", partitions=2)
    prod = tmq.producer("tail")
    for k in range(10):
        prod.write_message(k, f"old {k}")
    follower = _start_follow(store, "tail", "--from", "now", "--max", 5, "--for", 30)
    try:
        time.sleep(1.5)  # let the follower take its "now" position first
        prod = tmq.producer("tail")
        for k in range(5):
            prod.write_message(k, f"new {k}")
        out, err = follower.communicate(timeout=40)
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()
    assert follower.returncode == 0, err
    recs = parse_jsonl(out)
    from twainmq.encoding import partition_hash64

    old = {p: sum(1 for k in range(10) if partition_hash64(k, 2) == p) for p in range(2)}
    want = set()
    for k in range(5):
        p = partition_hash64(k, 2)
        want.add((p, old[p], k, f"new {k}"))
        old[p] += 1
    got = {(r["partition"], r["offset"], r["key"], r["payload"]["value"]) for r in recs}
    assert len(recs) == 5 and got == want, recs


@dataclass
class Box:
    value: object


# Values 0.2.3 stores in typed messages without complaint (json.dumps writes
# arbitrary-precision ints, NaN/Infinity, and \udcff escapes; json.loads reads them).
ODD_FIELD_VALUES = {
    "int_2**64": 2**64,
    "int_2**70": 2**70,
    "int_-2**63-1": -(2**63) - 1,
    "int_10**40": 10**40,
    "int_-10**30": -(10**30),
    "nan": float("nan"),
    "inf": float("inf"),
    "-inf": float("-inf"),
    "lone_surrogate": "lone \udcff surrogate",
    "nested_big": [2**64, {"k": -(2**65)}],
}


def _same_value(got, want):
    if isinstance(want, float) and math.isnan(want):
        return (isinstance(got, float) and math.isnan(got)) or got == "NaN"
    if isinstance(want, float) and math.isinf(want):
        return (isinstance(got, float) and got == want) or got == ("Infinity" if want > 0 else "-Infinity")
    from conftest import strict_equal

    return strict_equal(got, want)


@pytest.mark.parametrize("name", list(ODD_FIELD_VALUES))
def test_typed_fields_beyond_64_bit_and_special_floats(cli, twainmq, store, name):
    """0.2.3 writes (and reads back) these; our CLI must return the message, with
    the value exact, not skip it as damaged nor round big ints to floats."""
    value = ODD_FIELD_VALUES[name]
    tmq = twainmq.Twain(store)
    tmq.register_msg_cls(Box)
    tmq.create_topic("odd", key_type="u8", partitions=1, message_types=["Box"])
    prod = tmq.producer("odd")
    prod.write_message(1, "before")
    prod.write_message(2, Box(value))
    prod.write_message(3, "after")
    # 0.2.3 itself reads it back
    from twainmq.consumer import TwainMQConsumerlet

    cl = TwainMQConsumerlet(tmq, "odd", 0, offset=0)
    py = [cl.poll() for _ in range(3)]
    assert _same_value(json.loads(json.dumps(py[1].message.value)), value)

    recs, proc = cli_read(cli, store, "odd")
    assert [r["offset"] for r in recs] == [0, 1, 2], f"CLI skipped a valid 0.2.3 message; stderr: {proc.stderr.strip()[:400]}"
    assert "warning" not in proc.stderr.lower(), proc.stderr
    got = recs[1]["payload"]
    assert got["type"] == "dataclass" and got["class"] == "Box", got
    assert _same_value(got["fields"]["value"], value), f"field value {got['fields']['value']!r}, 0.2.3 wrote {value!r}"


def test_topic_defaults_are_0_2_3s(cli, twainmq, store):
    """`twainmq topics create NAME` (and the app's New Topic, from the same engine constants)
    makes what 0.2.3's `create_topic(NAME)` makes: the same key type and partition count."""
    tmq = make_twain(twainmq, store)
    tmq.create_topic("by_py")
    cli(store, "topics", "create", "by_cli")
    py = json.loads((store / "by_py.twc").read_text())
    ours = json.loads((store / "by_cli.twc").read_text())
    assert (ours["key_width"], ours["partitions"]) == (py["key_width"], py["partitions"]), (ours, py)
    listed = {t["name"]: t for t in json.loads(cli(store, "topics", "list", "--json").stdout)}
    assert (listed["by_cli"]["key_type"], listed["by_cli"]["partitions"]) == ("u16", 1)
