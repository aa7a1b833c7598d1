"""Retention and purge (issue 14) against the real twainmq 0.2.3: 0.2.3 writes
on faked earlier days, our retention deletes the old day files, and 0.2.3's
readers and producers go on with what is left (a first file not at offset 0)."""

import json
from datetime import datetime, timedelta, timezone

import pytest

from conftest import parse_jsonl


def py_write_days(twainmq, store, monkeypatch, parts=2, days=3, per_day=6):
    """0.2.3 writes `per_day` messages a day on `days` UTC days in January 2025."""
    import twainmq.agent_base as agent_base
    import twainmq.producer as producer_mod

    clock = {"now": datetime(2025, 1, 30, 12, 0, 0, tzinfo=timezone.utc)}

    class FakeDatetime(datetime):
        @classmethod
        def now(cls, tz=None):
            return clock["now"].astimezone(tz) if tz else clock["now"]

    tmq = twainmq.Twain(str(store))
    tmq.create_topic("days", key_type="u16", partitions=parts, message_types=[])
    monkeypatch.setattr(agent_base, "datetime", FakeDatetime)
    monkeypatch.setattr(producer_mod, "datetime", FakeDatetime)
    prod = tmq.producer("days")
    for day in range(days):
        for i in range(per_day):
            clock["now"] += timedelta(seconds=1)
            prod.write_message(day * 100 + i, f"py day{day} {i}")
        clock["now"] += timedelta(days=1)
    monkeypatch.undo()
    return tmq


def py_read(twainmq, store, parts, offset=0):
    from twainmq.consumer import TwainMQConsumerlet

    tmq = twainmq.Twain(str(store))
    out = {}
    for p in range(parts):
        cl = TwainMQConsumerlet(tmq, "days", p, offset=offset)
        out[p] = []
        while (m := cl.poll()) is not None:
            out[p].append((m.offset, m.message))
    return out


def day_files(store, p):
    return sorted((f.name for f in (store / "days").iterdir() if f.name.startswith(f"{p}-")), key=lambda n: int(n.split("_")[1][:-4]))


def test_retention_deletes_old_days_and_0_2_3_reads_and_writes_on(cli, twainmq, store, monkeypatch):
    py_write_days(twainmq, store, monkeypatch)
    before = {p: day_files(store, p) for p in range(2)}
    assert all(len(v) == 3 for v in before.values())
    everything = py_read(twainmq, store, 2)
    cli(store, "retention", "set", "days", "--days", "7")
    # The .twc keeps 0.2.3's keys; 0.2.3 still opens the topic with the extra key.
    cfg = json.loads((store / "days.twc").read_text())
    assert cfg["retention"] == {"days": 7} and cfg["key_width"] == 2 and cfg["partitions"] == 2
    dry = cli(store, "retention", "apply", "--dry-run", "--json")
    plan = json.loads(dry.stdout)
    assert [f["name"] for f in plan[0]["files"]] == before[0][:2] + before[1][:2] or \
        sorted(f["name"] for f in plan[0]["files"]) == sorted(before[0][:2] + before[1][:2])
    assert {p: day_files(store, p) for p in range(2)} == before, "a dry run deletes nothing"
    cli(store, "retention", "apply")
    after = {p: day_files(store, p) for p in range(2)}
    assert after == {p: before[p][2:] for p in range(2)}, "only the newest file of each partition is left"
    # 0.2.3 from offset 0: starts at the first file left, with the offsets it had.
    left = py_read(twainmq, store, 2)
    for p in range(2):
        first = int(after[p][0].split("_")[1][:-4])
        assert left[p] == [m for m in everything[p] if m[0] >= first], f"partition {p}"
        assert left[p][0][0] == first > 0
    # 0.2.3 writes today: its new file starts after the lines left, as ours read it.
    tmq = twainmq.Twain(str(store))
    prod = tmq.producer("days")
    prod.write_message(0, "py today")
    ours = parse_jsonl(cli(store, "consume", "days", "--json").stdout)
    mine = [r for r in ours if r["payload"]["value"] == "py today"]
    p = mine[0]["partition"]
    assert mine[0]["offset"] == everything[p][-1][0] + 1
    # And ours writes on after it.
    cli(store, "produce", "days", "--key", "0", "cli today")
    again = py_read(twainmq, store, 2)
    assert [m for _, m in again[p][-2:]] == ["py today", "cli today"]
    assert again[p][-1][0] == everything[p][-1][0] + 2


def test_files_a_group_has_not_consumed_stay_and_the_preview_names_it(cli, twainmq, store, monkeypatch):
    py_write_days(twainmq, store, monkeypatch, parts=1)
    cli(store, "consume", "days", "--group", "g", "--max", "8", "--commit-every", "1", "--rebalance-window", "0.3")
    cli(store, "retention", "set", "days", "--days", "1")
    dry = cli(store, "retention", "apply", "days", "--dry-run")
    assert "not yet consumed by g" in dry.stdout, dry.stdout
    plan = json.loads(cli(store, "retention", "apply", "days", "--json").stdout)[0]
    assert [(f["first"], f["deleted"], f["unconsumed_by"]) for f in plan["files"]] == [(0, True, []), (6, False, ["g"])]
    assert len(day_files(store, 0)) == 2
    plan = json.loads(cli(store, "retention", "apply", "days", "--force", "--json").stdout)[0]
    assert [(f["first"], f["deleted"]) for f in plan["files"]] == [(6, True)]
    assert day_files(store, 0) == [day_files(store, 0)[-1]]
    # The group resumes where it was; what went is not read.
    out = parse_jsonl(cli(store, "consume", "days", "--group", "g", "--rebalance-window", "0.3", "--json").stdout)
    assert [r["offset"] for r in out] == list(range(12, 18))


def test_purge_empties_the_topic_and_0_2_3_goes_on_from_the_same_offsets(cli, twainmq, store, monkeypatch):
    py_write_days(twainmq, store, monkeypatch, parts=2)
    ends = {p: len(v) for p, v in py_read(twainmq, store, 2).items()}
    preview = cli(store, "topics", "purge", "days", "--all")
    assert "would delete 6 files" in preview.stdout and "nothing deleted" in preview.stderr
    # Before anything is deleted it says what a purge of everything does to running 0.2.3 programs.
    assert "stop 0.2.3 producers" in preview.stdout and "restart 0.2.3 consumers" in preview.stdout
    assert all(len(day_files(store, p)) == 3 for p in range(2))
    cli(store, "topics", "purge", "days", "--all", "--yes")
    assert all(v == [] for v in py_read(twainmq, store, 2).values())
    assert parse_jsonl(cli(store, "consume", "days", "--json").stdout) == []
    assert json.loads(cli(store, "topics", "describe", "days", "--json").stdout)["messages"] == 0
    tmq = twainmq.Twain(str(store))
    tmq.producer("days").write_message(0, "py after purge")
    after = py_read(twainmq, store, 2)
    p = next(p for p, v in after.items() if v)
    assert after[p] == [(ends[p], "py after purge")]
    cli(store, "produce", "days", "--key", "0", "cli after purge")
    assert [m for _, m in py_read(twainmq, store, 2)[p]] == ["py after purge", "cli after purge"]


def test_retention_refuses_a_topic_without_a_setting_and_bad_settings(cli, store):
    cli(store, "topics", "create", "t")
    r = cli(store, "retention", "apply", "t", check=False)
    assert r.returncode != 0 and "no retention setting" in r.stderr
    (store / "t.twc").write_text(json.dumps({"key_width": 2, "partitions": 1, "message_types": {}, "retention": "forever"}))
    r = cli(store, "retention", "show", "t", check=False)
    assert r.returncode != 0 and "retention" in r.stderr and "fix or remove" in r.stderr


def _entries_by_day(store, topic, parts):
    """{partition: [day of each entry 0.2.3 counts for it]}"""
    out = {p: [] for p in range(parts)}
    for f in (store / topic).iterdir():
        stem = f.stem
        part, _, rest = stem.partition("-")
        if part.isdigit() and int(part) < parts:
            out[int(part)].append(rest.split("_")[0])
    return out


def test_purge_never_leaves_two_files_for_one_day_and_0_2_3_goes_on(cli, twainmq, store):
    """A purge of everything while a group has not read today's file deletes
    nothing and makes nothing; forced, today's file is followed by one of the
    day before, then today's is made again, empty. Either way 0.2.3's producer
    and consumer(start_from="now") open the topic and read on (two files for
    today made both raise TopicCorruptError)."""
    tmq = twainmq.Twain(str(store))
    tmq.create_topic("t", key_type="u16", partitions=2, message_types=[])
    prod = tmq.producer("t")
    for i in range(20):
        prod.write_message(i, f"before {i}")
    member = tmq.consumer("t", group="g")  # the group starts at 0 and commits nothing
    del member
    before = sorted(f.name for f in (store / "t").iterdir())
    r = cli(store, "topics", "purge", "t", "--all", "--yes")
    assert "not yet consumed by g" in r.stdout, r.stdout
    assert sorted(f.name for f in (store / "t").iterdir()) == before, "kept files get no successor"
    # 0.2.3 opens the topic as before: a producer, and a consumer from now.
    later = twainmq.Twain(str(store))
    now = later.consumer("t", start_from="now")
    later.producer("t").write_message(1, "after a refused purge")
    got = [m.message for m in iter(now.poll, None)]
    assert got == ["after a refused purge"]

    ends = {int(f.name.split("-")[0]): None for f in (store / "t").iterdir()}
    for p in ends:
        ends[p] = sum(1 for _ in py_read_topic(twainmq, store, "t", p))
    cli(store, "topics", "purge", "t", "--all", "--force", "--yes")
    by_day = _entries_by_day(store, "t", 2)
    today = datetime.now(timezone.utc).strftime("%Y%m%d")
    for p, days in by_day.items():
        # Made before today's file went, one of the day before; then today's.
        assert sorted(days) == [min(days), today] and min(days) < today, f"partition {p}: {days}"
    after = twainmq.Twain(str(store))
    now = after.consumer("t", start_from="now")
    after.producer("t").write_message(1, "after a purge of everything")
    got = [(m.offset, m.message) for m in iter(now.poll, None)]
    p = next(p for p in range(2) if any(True for _ in py_read_topic(twainmq, store, "t", p)))
    assert got == [(ends[p], "after a purge of everything")], got
    for p, days in _entries_by_day(store, "t", 2).items():
        assert len(days) == len(set(days)), f"partition {p}: {days}"
    # Ours reads it with the same offset.
    ours = parse_jsonl(cli(store, "consume", "t", "--json").stdout)
    assert [(r["offset"], r["payload"]["value"]) for r in ours] == got


def py_read_topic(twainmq, store, topic, p):
    from twainmq.consumer import TwainMQConsumerlet

    cl = TwainMQConsumerlet(twainmq.Twain(str(store)), topic, p, offset=0)
    while (m := cl.poll()) is not None:
        yield m


def test_retention_set_changes_only_what_it_is_given(cli, store):
    """`--days` alone keeps a `--bytes` set before (and the other way round), 0
    removes that limit, and a bare `retention set` changes nothing and says
    what to give (it used to remove the setting, silently)."""
    cli(store, "topics", "create", "t")

    def setting():
        return json.loads((store / "t.twc").read_text()).get("retention")

    cli(store, "retention", "set", "t", "--days", "7", "--bytes", "1000000")
    assert setting() == {"days": 7, "bytes_per_partition": 1000000}
    cli(store, "retention", "set", "t", "--days", "3")
    assert setting() == {"days": 3, "bytes_per_partition": 1000000}
    cli(store, "retention", "set", "t", "--bytes", "5000")
    assert setting() == {"days": 3, "bytes_per_partition": 5000}
    r = cli(store, "retention", "set", "t", check=False)
    assert r.returncode != 0 and "--days" in r.stderr and "--bytes" in r.stderr, r.stderr
    assert setting() == {"days": 3, "bytes_per_partition": 5000}
    cli(store, "retention", "set", "t", "--days", "0")
    assert setting() == {"bytes_per_partition": 5000}
    r = cli(store, "retention", "set", "t", "--bytes", "0")
    assert setting() is None and "removed" in r.stdout, r.stdout


def test_consuming_a_purged_topic_from_the_start_prints_no_warning(cli, twainmq, store, monkeypatch):
    py_write_days(twainmq, store, monkeypatch, parts=2)
    cli(store, "retention", "set", "days", "--days", "1")
    cli(store, "retention", "apply")
    r = cli(store, "consume", "days", "--json")
    got = parse_jsonl(r.stdout)
    assert got and min(m["offset"] for m in got) > 0, "the oldest files are gone"
    assert "WARN" not in r.stderr and r.stderr.strip() == "", r.stderr
