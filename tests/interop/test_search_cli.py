"""`twainmq search` and `consume --by-time` on a store 0.2.3 wrote: the timeline
is the topic in timestamp order, and search gives exactly the timeline filtered."""

import json
import random
from datetime import datetime, timezone

from conftest import Event, parse_jsonl


def rfc3339(ts):
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def written_store(twainmq, store, n=400):
    tmq = twainmq.Twain(store)
    tmq.register_msg_cls(Event)
    tmq.create_topic("orders", key_type="u16", partitions=3, message_types=["Event"])
    prod = tmq.producer("orders")
    rng = random.Random(7)
    for i in range(n):
        key = rng.choice([1, 2, 3, 500, 65535])
        if i % 5 == 0:
            prod.write_message(key, Event(id=i, text=f"Timeout #{i}", tags=["x"], nested=[], big=2**70, flag=True, ratio=0.5))
        elif i % 7 == 0:
            prod.write_message(key, bytes([0xAB, i % 256]))
        else:
            prod.write_message(key, f"order {i} ok" + (" TIMEOUT" if i % 3 == 0 else ""))
    return tmq


def text_of(m):
    p = m["payload"]
    if p["type"] == "str":
        return p["value"]
    if p["type"] == "bytes":
        return p["hex"]
    return (p["class"] or "") + " " + json.dumps(p["fields"])


def ids(rows):
    return [(m["partition"], m["offset"]) for m in rows]


def test_by_time_is_the_topic_in_timestamp_order(cli, twainmq, store):
    written_store(twainmq, store)
    timeline = parse_jsonl(cli(store, "consume", "orders", "--by-time", "--json").stdout)
    everything = parse_jsonl(cli(store, "consume", "orders", "--json").stdout)
    assert len(timeline) == len(everything) == 400
    assert ids(timeline) == ids(sorted(everything, key=lambda m: (m["timestamp"], m["partition"], m["offset"])))
    # One partition's timeline is that partition.
    p1 = parse_jsonl(cli(store, "consume", "orders", "--by-time", "--partition", "1", "--json").stdout)
    assert ids(p1) == ids([m for m in everything if m["partition"] == 1])
    # From a time: the first message at or after it, then on.
    at = timeline[123]["timestamp"]
    later = parse_jsonl(cli(store, "consume", "orders", "--by-time", "--from", rfc3339(at), "--json").stdout)
    assert ids(later) == ids(timeline[123:])


def test_search_is_the_timeline_filtered(cli, twainmq, store):
    written_store(twainmq, store)
    timeline = parse_jsonl(cli(store, "consume", "orders", "--by-time", "--json").stdout)

    def search(*args):
        return parse_jsonl(cli(store, "search", "orders", *args, "--json").stdout)

    want = [m for m in timeline if "timeout" in text_of(m).lower()]
    assert want and ids(search("--text", "timeout")) == ids(want)
    assert ids(search("--text", "TIMEOUT", "--case-sensitive")) == ids([m for m in timeline if "TIMEOUT" in text_of(m)])
    assert ids(search("--regex", r"order \d+ ok$")) == ids([m for m in timeline if m["payload"]["type"] == "str" and m["payload"]["value"].endswith(" ok")])
    assert ids(search("--key", "500")) == ids([m for m in timeline if m["key"] == 500])
    assert ids(search("--partition", "2", "--partition", "0", "--text", "ab")) == ids(
        [m for m in timeline if m["partition"] in (0, 2) and "ab" in text_of(m).lower()])
    # Typed fields beyond 64 bits come back exactly.
    typed = search("--text", "Timeout #")
    assert typed and all(m["payload"]["fields"]["big"] == 2**70 for m in typed)

    # Time bounds are inclusive, to the microsecond.
    lo, hi = timeline[50]["timestamp"], timeline[250]["timestamp"]
    bounded = search("--since", rfc3339(lo), "--until", rfc3339(hi))
    assert ids(bounded) == ids(timeline[50:251])
    assert ids(search("--since", rfc3339(hi))) == ids(timeline[250:])
    assert ids(search("--until", rfc3339(lo))) == ids(timeline[:51])

    # --count and --limit.
    assert cli(store, "search", "orders", "--text", "timeout", "--count").stdout.strip() == str(len(want))
    assert ids(search("--text", "timeout", "--limit", "5")) == ids(want[:5])
    assert cli(store, "search", "orders", "--key", "4", "--count").stdout.strip() == "0"


def test_search_refuses_bad_input_before_reading(cli, twainmq, store):
    written_store(twainmq, store, n=10)
    for args, needle in [
        (["--regex", "("], "invalid regular expression"),
        (["--since", "yesterday"], "RFC 3339"),
        (["--since", "2026-12-01T00:00:00Z", "--until", "2026-11-01T00:00:00Z"], "--since is after --until"),
        (["--partition", "3"], "partition 3 does not exist"),
    ]:
        r = cli(store, "search", "orders", *args, check=False)
        assert r.returncode != 0 and needle in r.stderr, (args, r.stderr)
    r = cli(store, "search", "nope", check=False)
    assert r.returncode != 0 and "does not exist" in r.stderr


def test_where_filters_fields_of_json_and_typed_payloads(cli, twainmq, store):
    tmq = written_store(twainmq, store)
    prod = tmq.producer("orders")
    for i in range(60):
        prod.write_message(i % 4, json.dumps({"country": ["DE", "FR", "US"][i % 3], "amount": i * 10, "items": list(range(i % 5))}))
    timeline = parse_jsonl(cli(store, "consume", "orders", "--by-time", "--json").stdout)

    def value(m):
        p = m["payload"]
        if p["type"] == "dataclass":
            return p["fields"]
        if p["type"] == "str":
            try:
                return json.loads(p["value"])
            except ValueError:
                return None
        return None

    def search(expr):
        return ids(parse_jsonl(cli(store, "search", "orders", "--where", expr, "--json").stdout))

    def obj(m):
        v = value(m)
        return v if isinstance(v, dict) else {}

    want = [m for m in timeline if obj(m).get("country") == "DE" and obj(m).get("amount", 0) > 100]
    assert want and search('value.country == "DE" && value.amount > 100') == ids(want)
    assert search("value.items.size() > 2") == ids([m for m in timeline if len(obj(m).get("items", [])) > 2])
    assert search('class == "Event" && value.big > 1000') == ids([m for m in timeline if m["payload"]["type"] == "dataclass"])
    assert search("key in [1, 2]") == ids([m for m in timeline if m["key"] in (1, 2)])
    assert search('kind == "bytes"') == ids([m for m in timeline if m["payload"]["type"] == "bytes"])
    r = cli(store, "search", "orders", "--where", "value.country == ", check=False)
    assert r.returncode != 0 and "invalid filter at 1:" in r.stderr


def test_by_time_follow_interleaves_live_writes_of_every_partition(twainmq, store):
    """consume --by-time --follow, started on an empty topic, prints what 0.2.3 then
    writes to three partitions as one timeline: every message, in the order written."""
    from test_py_writes_rust_reads import _start_follow
    import time

    tmq = twainmq.Twain(store)
    tmq.create_topic("live", key_type="u32", partitions=3)
    n = 90
    follower = _start_follow(store, "live", "--by-time", "--from", "start", "--max", n, "--for", 30)
    try:
        time.sleep(0.7)
        prod = tmq.producer("live")
        for i in range(n):
            prod.write_message(i, f"live {i}")
            if i % 10 == 0:
                time.sleep(0.05)
        out, err = follower.communicate(timeout=40)
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()
    assert follower.returncode == 0, err
    recs = parse_jsonl(out)
    assert [r["payload"]["value"] for r in recs] == [f"live {i}" for i in range(n)], err[-500:]
    assert len({r["partition"] for r in recs}) == 3


def test_search_and_by_time_into_a_pipe_closed_early_end_quietly(twainmq, store):
    """`search ... | head -1` and `consume --by-time | head -1`: the reader goes
    away after one line; we end with status 0 and nothing on standard error,
    as `cat` does, and never a panic or a "broken pipe" message."""
    import os
    import subprocess

    written_store(twainmq, store, n=3000)
    bin_ = os.environ["TWAINMQ_BIN"]
    for args in (["search", "orders", "--text", "order"], ["search", "orders", "--where", "kind == \"str\"", "--json"], ["consume", "orders", "--by-time"]):
        p = subprocess.Popen([bin_, "--store", str(store), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        first = p.stdout.readline()
        p.stdout.close()
        _, err = p.communicate(timeout=30)
        assert first, args
        assert p.returncode == 0, (args, p.returncode, err)
        assert err == b"", (args, err)
