"""A torn record in a group log, against the real twainmq 0.2.3.

0.2.3 reads a group's whole log each time a member joins, decoding every line,
and dies on the first it cannot decode (`zlib.error`, `ValueError`,
`struct.error`): a record torn by a full disk or a crash, even once ended with a
newline, stops every 0.2.3 member from joining that group for good. Our members
make such a line harmless where it lies: it is overwritten, at its own length,
with a record 0.2.3 reads and ignores (docs/FORMAT.md, "Torn records in a group
log"). Then a 0.2.3 member joins and reads.
"""

import json
import time
from datetime import timedelta

import pytest

from conftest import parse_jsonl


def group_log(store, group):
    files = sorted((store / f"--group--{group}").iterdir(), key=lambda f: int(f.stem.split("_")[1]))
    return files


def read_023(twainmq, store, group):
    """Every record of the group log as 0.2.3 reads it (raises as 0.2.3 does)."""
    from twainmq.consumer import TwainMQConsumerlet

    tmq = twainmq.Twain(str(store))
    cl = TwainMQConsumerlet(tmq, f"--group--{group}", 0, offset=0)
    out = []
    while (m := cl.poll()) is not None:
        out.append(m)
    return out


def join_023(twainmq, store, topic, group, monkeypatch, polls=20):
    """A 0.2.3 member joins and polls through a short round; what it read."""
    import twainmq.consumer as consumer_mod

    monkeypatch.setattr(consumer_mod, "REBAL_LENGTH", timedelta(seconds=0.3))
    tmq = twainmq.Twain(str(store))
    member = tmq.consumer(topic, group=group)
    got = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(got) < polls:
        m = member.poll()
        if m is None:
            time.sleep(0.05)
            if member._partitions and not member._rebal_in_progress:
                break
            continue
        got.append(m)
    return member, got


def a_group_with_a_torn_record(cli, twainmq, store, torn_len, tail):
    """Topic t (1 partition, 10 messages), group g committed at 4 by our CLI, then
    one of its longest records cut to its first `torn_len` bytes: ended with a
    newline and followed by a whole record (as an older member of ours left it
    after a full disk), or left as the log's unfinished last line (`tail`)."""
    cli(store, "topics", "create", "t", "--key-type", "u32", "--partitions", "1")
    cli(store, "produce", "t", "--jsonl", input="".join(f'{{"key": {i}, "payload": "m{i}"}}\n' for i in range(10)))
    cli(store, "consume", "t", "--group", "g", "--max", "4", "--commit-every", "1", "--rebalance-window", "0.3")
    (log,) = group_log(store, "g")
    lines = log.read_bytes().splitlines(keepends=True)
    commit = max(lines, key=len)  # a commit or an offer: the longest records
    assert len(commit) > torn_len + 10
    with open(log, "ab") as f:
        if tail:
            f.write(commit[:torn_len])
        else:
            f.write(commit[:torn_len] + b"\n")
            f.write(commit)
    return log


# Every length of the stand-in's base85 modulo 5 (a last hunk of 1 to 4 characters, or none).
@pytest.mark.parametrize("tail,torn_len", [(False, 21), (True, 21), (False, 18), (False, 22), (False, 23), (True, 24), (False, 40)],
                         ids=["ended-21", "unfinished-21", "ended-18", "ended-22", "ended-23", "unfinished-24", "ended-40"])
def test_our_member_makes_a_torn_group_record_harmless_and_0_2_3_joins_after(cli, twainmq, store, monkeypatch, tail, torn_len):
    log = a_group_with_a_torn_record(cli, twainmq, store, torn_len, tail)
    size = log.stat().st_size
    # As the issue found it: 0.2.3 cannot join this group.
    with pytest.raises(Exception) as died:
        join_023(twainmq, store, "t", "g", monkeypatch)
    assert type(died.value).__name__ in ("error", "ValueError", "error", "UnicodeDecodeError"), repr(died.value)
    assert log.stat().st_size == size, "the 0.2.3 member died reading, before writing anything"
    # One of our members runs: it reads on from the commit, and mends the line.
    out = parse_jsonl(cli(store, "consume", "t", "--group", "g", "--max", "2", "--commit-every", "1",
                          "--rebalance-window", "0.3", "--json").stdout)
    assert [r["offset"] for r in out] == [4, 5]
    records = read_023(twainmq, store, "g")
    assert all(r.key >= 0 for r in records)
    # The mended line kept its place: 0.2.3 counts the same lines as there are newlines.
    assert len(records) == log.read_bytes().count(b"\n")
    # A 0.2.3 member joins and resumes from our member's last commit.
    member, got = join_023(twainmq, store, "t", "g", monkeypatch, polls=3)
    assert [m.offset for m in got] == [6, 7, 8]
    assert member._consumer_id is not None
    # Our tools count the mended line as no damage.
    problems = json.loads(cli(store, "check", "--json", check=False).stdout)
    assert not [p for p in problems if "group" in p["kind"] or p["topic"].startswith("--group--")], problems


def test_a_torn_record_too_short_to_mend_is_named_with_what_to_do(cli, twainmq, store, monkeypatch):
    """Under 18 bytes a line cannot hold a record 0.2.3 reads (a key of 5
    characters, a timestamp of 10, and 3 for the shortest deflate stream):
    `check` names it and says how to give the group a clean log."""
    a_group_with_a_torn_record(cli, twainmq, store, 12, tail=False)
    cli(store, "consume", "t", "--group", "g", "--max", "1", "--rebalance-window", "0.3")
    r = cli(store, "check", check=False)
    assert r.returncode == 1
    assert "0.2.3" in r.stdout and "groups export" in r.stdout and "groups import" in r.stdout, r.stdout
    # The way it gives: the group made again from its offsets, which 0.2.3 joins.
    offsets = store.parent / "offsets.json"
    offsets.write_text(cli(store, "groups", "export", "g").stdout)
    cli(store, "groups", "delete", "g", "--yes")
    cli(store, "groups", "import", "g", str(offsets))
    assert cli(store, "check").returncode == 0
    member, got = join_023(twainmq, store, "t", "g", monkeypatch, polls=2)
    assert [m.offset for m in got] == [5, 6]
