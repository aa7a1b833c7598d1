"""Where groups start and how `groups reset` moves them: checked with
`groups describe --json` and with twainmq 0.2.3 members reading the group."""

import json
import os
import re
import shutil
import signal
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest import describe_diff, parse_jsonl, snapshot_tree
from group_helpers import (
    Procs,
    cli_cmd,
    commits_at,
    describe,
    keys_by_partition,
    member_id_from_stderr,
    read_group_log,
    read_jsonl_file,
    stable_round,
    wait_until,
)

WINDOW = 1  # seconds a round stays open, for our members and for 0.2.3's

FIXTURE_STORE = Path(__file__).resolve().parents[1] / "fixtures" / "twainmq-0.2.3" / "store"
FIXTURE_EXPECTED = FIXTURE_STORE.parent / "expected.json"


def produce_jsonl(cli, store, topic, items):
    cli(store, "produce", topic, "--jsonl", input="".join(json.dumps({"key": k, "payload": t}) + "\n" for k, t in items))


def ends_of(desc):
    return {p["partition"]: p["end"] for p in desc["partitions"]}


def committed_of(desc):
    return {int(p): o for p, o in desc["committed"].items()}


def rfc3339(ts):
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def py_first_offsets(twainmq_mod, monkeypatch, store, topic, group, want, timeout=10.0):
    """Join `group` with a fresh 0.2.3 member (round window WINDOW), poll until it
    has read a message from every partition in `want`, and return
    ({partition: first offset read}, the member's partitions, its id)."""
    import twainmq.consumer
    from twainmq.encoding import partition_hash64

    monkeypatch.setattr(twainmq.consumer, "REBAL_LENGTH", timedelta(seconds=WINDOW))
    tmq = twainmq_mod.Twain(str(store))
    c = tmq.consumer(topic, group=group)
    n = c._n_partitions
    first = {}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not set(want) <= set(first):
        m = c.poll()
        if m is None:
            time.sleep(0.005)
            continue
        first.setdefault(partition_hash64(m.key, n), m.offset)
    # keep heartbeating a little so the round surely ended for it
    assert set(want) <= set(first), (
        f"0.2.3 member {c._consumer_id} read nothing from partitions {sorted(set(want) - set(first))} "
        f"within {timeout} s (its partitions: {c._partitions}, first offsets: {first})"
    )
    return first, sorted(c._partitions), c._consumer_id


def start_cli_member(procs, store, topic, group, name, *extra):
    out = procs.logdir / f"{name}.jsonl"
    p = procs.start(
        name,
        cli_cmd(store, "consume", topic, "--group", group, "--follow", "--json", "--rebalance-window", WINDOW, *extra),
        stdout_path=out,
    )
    return p, out


def wait_member_settled(store, group, proc, partitions, timeout=15):
    mid = wait_until(lambda: member_id_from_stderr(proc), 10, lambda: f"{proc.name} to join\n{proc.tail()}")
    wait_until(
        lambda: stable_round(describe(store, group), [mid], partitions),
        timeout,
        lambda: f"member {mid} to hold all {partitions} partitions of {group}\n{proc.tail()}",
    )
    return mid


def stop_member(proc, timeout=15):
    proc.signal_group(signal.SIGTERM)
    rc = proc.wait(timeout)
    assert rc == 0, f"{proc.name} exited {rc} on SIGTERM\n{proc.tail()}"
    err = proc.stderr_text().lower()
    assert "panic" not in err and "error" not in err, proc.tail()


# --------------------------------------------------------------------------


def test_from_now_new_group_sees_only_new_messages(cli, store, tmp_path, twainmq):
    topic, group, parts = "nowt", "fresh", 3
    cli(store, "topics", "create", topic, "--key-type", "u16", "--partitions", parts)
    keys = keys_by_partition(parts, 2**16 - 1, 4)
    all_keys = [k for p in range(parts) for k in keys[p]]
    old = [(k, f"old-{i}") for i, k in enumerate(all_keys * 3)]
    produce_jsonl(cli, store, topic, old)

    with Procs(tmp_path / "logs") as procs:
        member, out = start_cli_member(procs, store, topic, group, "now-member", "--from", "now", "--commit-every", 5)
        mid = wait_member_settled(store, group, member, parts)
        desc = describe(store, group)
        # A group created "from now" holds 0.2.3's -1 commits until someone commits.
        assert committed_of(desc) == {p: -1 for p in range(parts)}, desc["committed"]
        assert [m["id"] for m in desc["members"]] == [mid]
        assert read_jsonl_file(out) == [], "a --from now member read messages written before it joined"

        # New messages, from our CLI and from 0.2.3.
        new_cli = [(k, f"new-cli-{i}") for i, k in enumerate(all_keys * 2)]
        produce_jsonl(cli, store, topic, new_cli)
        tmq = twainmq.Twain(str(store))
        prod = tmq.producer(topic)
        new_py = [(k, f"new-py-{i}") for i, k in enumerate(reversed(all_keys * 2))]
        for k, t in new_py:
            prod.write_message(k, t)
        expected = {t for _, t in new_cli + new_py}

        def got_all():
            return {r["payload"]["value"] for r in read_jsonl_file(out)} >= expected

        wait_until(got_all, 15, lambda: f"member to read the new messages\n{member.tail()}")
        stop_member(member)

    got = [r["payload"]["value"] for r in read_jsonl_file(out)]
    assert sorted(got) == sorted(expected), f"extra: {sorted(set(got) - expected)[:10]}, repeats: {len(got) - len(set(got))}"
    # Exited cleanly: committed exactly the end of every partition.
    desc = describe(store, group)
    ends = ends_of(desc)
    assert ends == {p: len(old + new_cli + new_py) // parts for p in range(parts)}
    assert committed_of(desc) == ends, (desc["committed"], ends)


def test_minus_one_commits_of_023_do_not_crash_us(cli, store, tmp_path, twainmq, monkeypatch):
    """A group 0.2.3 created with start_from="now" (it writes -1 commits and then
    crashes resuming from them, as in the fixture's `tail` group) is usable by us."""
    import twainmq.consumer

    # The fixture's own `tail` group: described and dry-run reset, read only.
    fx = tmp_path / "fixture"
    shutil.copytree(FIXTURE_STORE, fx)
    expected = json.loads(FIXTURE_EXPECTED.read_text())
    for t in expected["topics"]:
        (fx / t).mkdir(exist_ok=True)
    before = snapshot_tree(fx)
    d = describe(fx, "tail")
    assert d["topic"] == "events"
    assert committed_of(d) == {p: -1 for p in range(4)}
    assert [(m["id"], m["partitions"]) for m in d["members"]] == [(1, [0, 1, 2, 3])]
    ev_ends = {int(p): len(v) for p, v in expected["topics"]["events"]["partitions"].items()}
    assert ends_of(d) == ev_ends
    plan = json.loads(cli(fx, "groups", "reset", "tail", "--to", "earliest", "--dry-run", "--json").stdout)
    assert plan["applied"] is False
    assert [(r["partition"], r["before"], r["after"]) for r in plan["rows"]] == [(p, -1, 0) for p in range(4)]
    assert snapshot_tree(fx) == before, describe_diff(before, snapshot_tree(fx))

    # The same situation made live: 0.2.3 creates a "now" group and dies on its -1 commits.
    topic, group = "tl", "tail"
    tmq = twainmq.Twain(str(store))
    tmq.create_topic(topic, key_type="u16", partitions=4)
    prod = tmq.producer(topic)
    for i in range(40):
        prod.write_message(i * 7 + 1, f"before-{i}")
    monkeypatch.setattr(twainmq.consumer, "REBAL_LENGTH", timedelta(seconds=WINDOW))
    c = tmq.consumer(topic, start_from="now", group=group)
    with pytest.raises(NotImplementedError):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            c.poll()
            time.sleep(0.01)
    records = read_group_log(twainmq, store, group)
    assert records[0]["type"] == "~~TWAIN~~COMMIT" and records[0]["fields"]["partition_offsets"] == [[p, -1] for p in range(4)]
    assert records[-1]["type"] == "~~TWAIN~~ENDREBAL"

    d = describe(store, group)
    assert d["topic"] == topic
    assert committed_of(d) == {p: -1 for p in range(4)}

    # Our member joins, takes the partitions at their end: reads nothing old, exits cleanly.
    r = cli(store, "consume", topic, "--group", group, "--json", "--rebalance-window", WINDOW, "--for", 20)
    assert parse_jsonl(r.stdout) == [], "a member taking -1 partitions must start at their end"
    assert "panic" not in r.stderr.lower() and "error" not in r.stderr.lower(), r.stderr
    d = describe(store, group)
    ends = ends_of(d)
    assert sum(ends.values()) == 40
    assert committed_of(d) == ends, "on exit the member commits where it started: the end"

    # New messages are read by the next member, from those commits; 0.2.3 joins fine now too.
    for i in range(12):
        prod.write_message(i * 11 + 3, f"after-{i}")
    r = cli(store, "consume", topic, "--group", group, "--json", "--rebalance-window", WINDOW, "--for", 20)
    got = sorted(m["payload"]["value"] for m in parse_jsonl(r.stdout))
    assert got == sorted(f"after-{i}" for i in range(12))
    for i in range(4):
        prod.write_message(5000 + i, f"late-{i}")
    want = {p for p in range(4) if ends_of(describe(store, group))[p] > committed_of(describe(store, group))[p]}
    first, parts, _ = py_first_offsets(twainmq, monkeypatch, store, topic, group, want)
    d = describe(store, group)
    for p in want:
        assert first[p] == committed_of(d)[p], (p, first, d["committed"])


TABLE_ROW = re.compile(r"^\s*(\d+)\s+(-?\d+|-)\s+(\d+)\s+\((\d+)\.\.(\d+)\)\s*$")


def test_resets_seen_by_describe_and_by_023(cli, store, tmp_path, twainmq, monkeypatch):
    topic, group, parts, per = "rt", "g", 3, 10
    cli(store, "topics", "create", topic, "--key-type", "u32", "--partitions", parts)
    keys = keys_by_partition(parts, 2**32 - 1, per, start=100000)
    batch1 = [(keys[p][i], f"b1-{p}-{i}") for i in range(per) for p in range(parts)]
    produce_jsonl(cli, store, topic, batch1)  # our CLI writes the first half
    time.sleep(0.25)
    t_mid = time.time()
    time.sleep(0.25)
    tmq = twainmq.Twain(str(store))
    prod = tmq.producer(topic)
    for i in range(per):  # 0.2.3 writes the second half
        for p in range(parts):
            prod.write_message(keys[p][i], f"b2-{p}-{i}")

    # One of our members reads everything and commits at the end.
    r = cli(store, "consume", topic, "--group", group, "--json", "--rebalance-window", WINDOW, "--commit-every", 7, "--for", 20)
    assert len(parse_jsonl(r.stdout)) == 2 * per * parts
    d = describe(store, group)
    assert ends_of(d) == {p: 2 * per for p in range(parts)}
    assert committed_of(d) == {p: 2 * per for p in range(parts)}

    # Dry run: the table, and not one byte written anywhere in the store.
    snap = snapshot_tree(store)
    r = cli(store, "groups", "reset", group, "--to", "earliest", "--dry-run")
    rows = [TABLE_ROW.match(l) for l in r.stdout.splitlines()]
    rows = [tuple(m.groups()) for m in rows if m]
    assert rows == [(str(p), str(2 * per), "0", "0", str(2 * per)) for p in range(parts)], r.stdout
    assert "before" in r.stdout and "after" in r.stdout
    for target, after in [("earliest", 0), ("latest", 2 * per), (f"time:{rfc3339(t_mid)}", per),
                          ("time:2000-01-01T00:00:00Z", 0), ("time:2100-01-01T00:00:00Z", 2 * per)]:
        plan = json.loads(cli(store, "groups", "reset", group, "--to", target, "--dry-run", "--json").stdout)
        assert plan["applied"] is False and plan["group"] == group and plan["topic"] == topic
        assert [(x["partition"], x["before"], x["after"], x["start"], x["end"]) for x in plan["rows"]] == [
            (p, 2 * per, after, 0, 2 * per) for p in range(parts)
        ], (target, plan)
    assert snapshot_tree(store) == snap, describe_diff(snap, snapshot_tree(store))
    assert committed_of(describe(store, group)) == {p: 2 * per for p in range(parts)}

    def reset(*args):
        plan = json.loads(cli(store, "groups", "reset", group, *args, "--json").stdout)
        assert plan["applied"] is True
        # what we wrote is a plain COMMIT record 0.2.3 reads
        last = read_group_log(twainmq, store, group)[-1]
        assert last["type"] == "~~TWAIN~~COMMIT", last
        assert sorted(map(tuple, last["fields"]["partition_offsets"])) == sorted((x["partition"], x["after"]) for x in plan["rows"])
        return plan

    # earliest
    reset("--to", "earliest")
    assert committed_of(describe(store, group)) == {p: 0 for p in range(parts)}
    first, got_parts, _ = py_first_offsets(twainmq, monkeypatch, store, topic, group, range(parts))
    assert got_parts == list(range(parts))
    assert first == {p: 0 for p in range(parts)}, first

    # latest: nothing to read until new messages; the first new one is read first
    plan = reset("--to", "latest")
    assert [x["after"] for x in plan["rows"]] == [2 * per] * parts
    assert committed_of(describe(store, group)) == {p: 2 * per for p in range(parts)}
    produce_jsonl(cli, store, topic, [(keys[p][0], f"b3-{p}-{i}") for i in range(2) for p in range(parts)])
    first, _, _ = py_first_offsets(twainmq, monkeypatch, store, topic, group, range(parts))
    assert first == {p: 2 * per for p in range(parts)}, first
    end = 2 * per + 2

    # offset:N on one partition only; the others keep their commits
    plan = reset("--to", "offset:5", "--partition", 1)
    assert [(x["partition"], x["before"], x["after"]) for x in plan["rows"]] == [(1, 2 * per, 5)]
    assert committed_of(describe(store, group)) == {0: 2 * per, 1: 5, 2: 2 * per}
    first, _, _ = py_first_offsets(twainmq, monkeypatch, store, topic, group, range(parts))
    assert first == {0: 2 * per, 1: 5, 2: 2 * per}, first

    # time:T between the two halves: the first message at or after T
    plan = reset("--to", f"time:{rfc3339(t_mid)}")
    assert [(x["partition"], x["after"], x["end"]) for x in plan["rows"]] == [(p, per, end) for p in range(parts)]
    assert committed_of(describe(store, group)) == {p: per for p in range(parts)}
    first, _, _ = py_first_offsets(twainmq, monkeypatch, store, topic, group, range(parts))
    assert first == {p: per for p in range(parts)}, first


def test_reset_warns_when_members_hold_partitions(cli, store, tmp_path, twainmq):
    topic, parts = "wt", 2
    cli(store, "topics", "create", topic, "--key-type", "u16", "--partitions", parts)
    produce_jsonl(cli, store, topic, [(k, f"m{k}") for k in range(1, 21)])

    # A group with no member yet (0.2.3's creation record only): no warning.
    from twainmq.consumer_groups import CONSUMER_GROUP_MESSAGE_SET, Commit

    tmq = twainmq.Twain(str(store))
    tmq.create_topic("--group--idle", key_type="u32", partitions=1, message_types=CONSUMER_GROUP_MESSAGE_SET)
    tmq.producer("--group--idle").write_message(0, Commit([(p, 0) for p in range(parts)]))
    r = cli(store, "groups", "reset", "idle", "--to", "latest", "--json")
    plan = json.loads(r.stdout)
    assert plan["topic"] == topic and plan["live_members"] == [] and plan["applied"] is True
    assert "warning" not in r.stderr.lower(), r.stderr
    d = describe(store, "idle")
    assert committed_of(d) == ends_of(d) and sum(ends_of(d).values()) == 20

    # One of our live members holds the partitions: the reset applies, the member
    # is named as following it (no warning), and it reads everything again.
    with Procs(tmp_path / "logs") as procs:
        member, out = start_cli_member(procs, store, topic, "busy", "busy-member", "--commit-every", 1)
        mid = wait_member_settled(store, "busy", member, parts)
        wait_until(lambda: len(read_jsonl_file(out)) == 20, 15, lambda: f"the member to read all 20\n{member.tail()}")
        wait_until(lambda: committed_of(describe(store, "busy")) == ends_of(describe(store, "busy")), 15, "its commits")
        snap = snapshot_tree(store / "--group--busy")
        r = cli(store, "groups", "reset", "busy", "--to", "earliest", "--dry-run", "--json")
        plan = json.loads(r.stdout)
        assert (plan["following"], plan["overwriting"], plan["live_holders"]) == ([mid], [], [mid]), plan
        assert "warning" not in r.stderr.lower() and str(mid) in r.stderr and "would move" in r.stderr, r.stderr
        assert snapshot_tree(store / "--group--busy") == snap
        r = cli(store, "groups", "reset", "busy", "--to", "earliest", "--json")
        plan = json.loads(r.stdout)
        assert plan["live_members"] == [mid] and plan["following"] == [mid] and plan["applied"] is True
        # It moves to the reset: reads the 20 messages again, and its commits end where they did.
        wait_until(lambda: len(read_jsonl_file(out)) == 40, 15, lambda: f"the member to read all 20 again\n{member.tail()}")
        again = sorted((m["partition"], m["offset"]) for m in read_jsonl_file(out)[20:])
        assert again == sorted((m["partition"], m["offset"]) for m in read_jsonl_file(out)[:20])
        wait_until(lambda: committed_of(describe(store, "busy")) == ends_of(describe(store, "busy")), 15, "its commits")
        stop_member(member)

    # A 0.2.3 member holds them: the warning names it as overwriting the reset, and says how to make it stick.
    import twainmq.consumer

    twainmq.consumer.REBAL_LENGTH = timedelta(seconds=WINDOW)
    c = tmq.consumer(topic, group="old")
    wait_until(lambda: c.poll() is None and c._partitions == list(range(parts)) and stable_round(describe(store, "old"), [c._consumer_id], parts),
               15, "the 0.2.3 member to take every partition")
    r = cli(store, "groups", "reset", "old", "--to", "latest", "--dry-run", "--json")
    plan = json.loads(r.stdout)
    assert (plan["following"], plan["overwriting"]) == ([], [c._consumer_id]), plan
    assert "warning" in r.stderr and "overwrite" in r.stderr and "groups rebalance old" in r.stderr, r.stderr


def test_reset_to_time_across_day_files_of_023_fixture(cli, tmp_path):
    """`time:T` over 0.2.3's multi-day partition files (the fixture's `workers`
    group on `events`): the first offset whose timestamp is >= T, per
    partition, or the end; dry runs only, so nothing changes."""
    import random

    fx = tmp_path / "fixture"
    shutil.copytree(FIXTURE_STORE, fx)
    expected = json.loads(FIXTURE_EXPECTED.read_text())
    for t in expected["topics"]:
        (fx / t).mkdir(exist_ok=True)
    parts = {int(p): [m["timestamp"] for m in ms] for p, ms in expected["topics"]["events"]["partitions"].items()}
    all_ts = sorted(t for ts in parts.values() for t in ts)
    rng = random.Random(7)
    times = [all_ts[0] - 3600, all_ts[-1] + 3600]
    times += [(x + y) / 2 for x, y in zip(all_ts, all_ts[1:]) if y - x > 1e-3 and rng.random() < 0.15]
    times += [x for x in all_ts if rng.random() < 0.1]  # exactly a message's time: that message is included
    # around each UTC midnight the files change
    day0 = int(all_ts[0]) // 86400 * 86400
    for d in range(day0, int(all_ts[-1]) + 86400, 86400):
        times += [d - 0.5, d + 0.5]
    before = snapshot_tree(fx)
    commits = commits_at([{"offset": m["offset"], "type": m["payload"]["class"], "fields": m["payload"]["fields"]}
                          for m in expected["groups"]["workers"]["partitions"]["0"]], 10**9)
    for t in times:
        plan = json.loads(cli(fx, "groups", "reset", "workers", "--to", f"time:{rfc3339(t)}", "--dry-run", "--json").stdout)
        want = []
        for p in sorted(parts):
            ts = parts[p]
            after = next((o for o, x in enumerate(ts) if x >= t), len(ts))
            want.append((p, commits[p], after, 0, len(ts)))
        got = [(r["partition"], r["before"], r["after"], r["start"], r["end"]) for r in plan["rows"]]
        assert got == want, f"time:{rfc3339(t)} ({t})"
    assert snapshot_tree(fx) == before, describe_diff(before, snapshot_tree(fx))


def test_shift_ago_group_and_file_resets_each_dry_run_first_then_read_by_023(cli, store, tmp_path, twainmq, monkeypatch):
    topic, group, parts, per = "nm", "g", 3, 10
    cli(store, "topics", "create", topic, "--key-type", "u32", "--partitions", parts)
    keys = keys_by_partition(parts, 2**32 - 1, per, start=100000)
    produce_jsonl(cli, store, topic, [(keys[p][i], f"a-{p}-{i}") for i in range(per) for p in range(parts)])
    time.sleep(4)
    t_second = time.time()
    produce_jsonl(cli, store, topic, [(keys[p][i], f"b-{p}-{i}") for i in range(per) for p in range(parts)])
    end = 2 * per
    r = cli(store, "consume", topic, "--group", group, "--json", "--rebalance-window", WINDOW, "--for", 20)
    assert len(parse_jsonl(r.stdout)) == end * parts
    assert committed_of(describe(store, group)) == {p: end for p in range(parts)}

    def dry_then_apply(*args, want):
        """The dry run's JSON lists each partition's before and after and writes nothing; then it is applied."""
        snap = snapshot_tree(store)
        before = committed_of(describe(store, group))
        plan = json.loads(cli(store, *args, "--dry-run", "--json").stdout)
        assert plan["applied"] is False
        assert {x["partition"]: (x["before"], x["after"]) for x in plan["rows"]} == {p: (before[p], a) for p, a in want.items()}, plan
        assert snapshot_tree(store) == snap, describe_diff(snap, snapshot_tree(store))
        plan = json.loads(cli(store, *args, "--json").stdout)
        assert plan["applied"] is True and {x["partition"]: x["after"] for x in plan["rows"]} == want
        assert committed_of(describe(store, group)) == {**before, **want}
        first, got, _ = py_first_offsets(twainmq, monkeypatch, store, topic, group, [p for p in want if want[p] < end] or [])
        for p, a in want.items():
            if a < end:
                assert first[p] == a, (args, first)

    dry_then_apply("groups", "reset", group, "--to", "shift:-3", want={p: end - 3 for p in range(parts)})
    dry_then_apply("groups", "reset", group, "--to", "shift:+2", "--partition", 0, want={0: end - 1})
    dry_then_apply("groups", "reset", group, "--to", "shift:-1000", "--partition", 1, want={1: 0})
    dry_then_apply("groups", "reset", group, "--to", "shift:+1000", "--partition", 1, want={1: end})
    # The second half was written 4 s after the first: a duration reaching just past its start.
    ago = int(time.time() - t_second) + 2
    dry_then_apply("groups", "reset", group, "--to", f"ago:{ago}s", want={p: per for p in range(parts)})

    # group:OTHER: another group of the topic, its commits copied.
    cli(store, "consume", topic, "--group", "src", "--max", 0, "--rebalance-window", WINDOW)
    cli(store, "groups", "reset", "src", "--to", "offset:4")
    cli(store, "groups", "reset", "src", "--to", "offset:7", "--partition", 2)
    dry_then_apply("groups", "reset", group, "--to", "group:src", want={0: 4, 1: 4, 2: 7})

    # A file: export, edit, import (dry run first), and a round trip back out.
    exported = json.loads(cli(store, "groups", "export", "src").stdout)
    assert exported == {"group": "src", "topic": topic, "offsets": {"0": 4, "1": 4, "2": 7}}
    exported["offsets"] = {"0": 2, "2": 9}
    f = tmp_path / "offsets.json"
    f.write_text(json.dumps(exported))
    dry_then_apply("groups", "import", group, f, want={0: 2, 2: 9})
    assert json.loads(cli(store, "groups", "export", group).stdout)["offsets"] == {"0": 2, "1": 4, "2": 9}
    f.write_text(json.dumps({"offsets": {"1": 6}}))
    dry_then_apply("groups", "reset", group, "--to", f"file:{f}", want={1: 6})

    # Refused, nothing written: another topic's group, a partition the topic lacks, a bad file.
    cli(store, "topics", "create", "other", "--partitions", parts)
    cli(store, "consume", "other", "--group", "elsewhere", "--max", 0, "--rebalance-window", WINDOW)
    snap = snapshot_tree(store)
    for args, says in [
        (["reset", group, "--to", "group:elsewhere"], "reads topic \"other\""),
        (["reset", group, "--to", "group:nope"], "nope"),
        (["import", group, str(tmp_path / "missing.json")], "could not read"),
        (["import", group, str(tmp_path)], "not a regular file"),
    ]:
        r = cli(store, "groups", *args, check=False)
        assert r.returncode == 1 and says in r.stderr, (args, r.stderr)
    # A FIFO is refused, never opened (it would block); a huge file is refused unread past its limit.
    fifo = tmp_path / "offsets.fifo"
    os.mkfifo(fifo)
    r = cli(store, "groups", "import", group, fifo, check=False, timeout=30)
    assert r.returncode == 1 and "not a regular file" in r.stderr, r.stderr
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as h:
        h.truncate(17 << 20)
    r = cli(store, "groups", "import", group, huge, check=False)
    assert r.returncode == 1 and "larger than" in r.stderr, r.stderr
    f.write_text(json.dumps({"offsets": {"7": 1}}))
    r = cli(store, "groups", "import", group, f, check=False)
    assert r.returncode == 1 and "partition 7" in r.stderr, r.stderr
    f.write_text("{\"offsets\": {\"0\": \"x\"}}")
    r = cli(store, "groups", "import", group, f, check=False)
    assert r.returncode == 1 and "not an offset" in r.stderr and "groups export" in r.stderr, r.stderr
    assert snapshot_tree(store) == snap, describe_diff(snap, snapshot_tree(store))


def test_delete_lists_what_goes_and_needs_yes(cli, store):
    cli(store, "topics", "create", "dt", "--partitions", 2)
    cli(store, "consume", "dt", "--group", "gone", "--max", 0, "--rebalance-window", WINDOW)
    snap = snapshot_tree(store)
    r = cli(store, "groups", "delete", "gone", check=False)
    assert r.returncode == 1 and "nothing deleted" in r.stderr and "committed offsets of 2 partitions" in r.stderr, r.stderr
    assert snapshot_tree(store) == snap
    r = cli(store, "groups", "delete", "gone", "--yes", "--json")
    out = json.loads(r.stdout)
    assert out["group"] == "gone" and out["committed"] == {"0": 0, "1": 0}, out
    assert json.loads(cli(store, "groups", "list", "--json").stdout) == []
    assert not (store / "--group--gone.twc").exists() and not (store / "--group--gone").exists()
    r = cli(store, "groups", "delete", "gone", "--yes", check=False)
    assert r.returncode == 1 and "does not exist" in r.stderr, r.stderr
    # A topic that merely looks like nothing else is never deleted as a group.
    r = cli(store, "groups", "delete", "dt", "--yes", check=False)
    assert r.returncode == 1 and (store / "dt.twc").exists(), r.stderr
