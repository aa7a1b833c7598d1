"""The UTC day rollover with clocks that disagree (issue 11, item 1).

(a) test_rollover_skewed_ours: THREE of our producers (`produce T --jsonl`, fed
    steadily at ~1,750 msg/s each by feeder.py) append to ONE partition while
    UTC midnight passes mid-run, each on its own clock (TWAINMQ_CLOCK_OFFSET_SECS
    base, base+0.25 s, base+0.55 s): the producer still in its last second must
    not write into yesterday's file once another has started today's. Two
    followers (`consume --follow --json`, on the earliest and the latest clock)
    run from before the first message. Required: 0 lost, 0 duplicated, 0
    duplicate offsets in the final read; every follower saw every message once;
    `check` finds no offset_overlap and no duplicate_day (nor any other problem);
    seeks (`consume --from O --partition 0`) just before, at and just after the
    first offset of the new day's file return exactly the final read's messages
    from O on.
(b) test_rollover_lagging_023: two of our producers on the true clock and two
    twainmq 0.2.3 producers (py_writer.py) whose clocks lag 0.7 s and 1.8 s, into
    a 2-partition topic, with a follower and two of our group members. 0.2.3's
    laggards write into yesterday's file after ours started today's (we cannot
    change what they write). Required: nothing lost on disk (each message once
    in the final read, but for what a 0.2.3 writer never wrote because it gave
    up with TopicCorruptError); the follower saw every message (at least once);
    the group members together consumed every message (at least once); no late
    line was written by our producers; `check` reports one offset_overlap for
    each place where the read goes back (each overlap named), and only those.

Each run prints a figures line: lost / duplicated / duplicate offsets, overlaps,
late lines by writer kind, what the readers missed, the check kinds.

TORTURE_SCALE=short (`make test`): one run of each, about 20 s each.
TORTURE_SCALE=long (`make torture`): (a) 4 runs of 20 s of writing each, (b) one
run of 40 s.
"""

import json
import os
import shlex
import signal
import sys
import time
from collections import Counter, defaultdict

import pytest

from torture_common import (
    release_writers,
    FEEDER,
    KEY_STRIDE,
    LONG,
    PY_WRITER,
    SCALE,
    Consumed,
    Expected,
    Procs,
    check_store,
    cli_cmd,
    describe,
    env_with_offset,
    figures_line,
    member_id_from_stderr,
    no_panic,
    partition_files,
    plan_rollover,
    problem_kinds,
    read_all_to_file,
    run_cli,
    union_keys,
    wait_until,
)
from conftest import twainmq  # noqa: F401  (fixture: asserts twainmq==0.2.3)

RATE = 1750.0  # msg/s per producer
if LONG:
    OURS = dict(write_secs=20.0, lead=10.0, rounds=4)
    MIXED = dict(write_secs=40.0, lead=20.0)
else:
    OURS = dict(write_secs=5.0, lead=2.5, rounds=1)
    MIXED = dict(write_secs=5.0, lead=2.5)
SKEWS = (0.0, 0.25, 0.55)  # (a): seconds each of our producers' clocks runs ahead of the base clock
PY_LAGS = (0.7, 1.8)  # (b): seconds the 0.2.3 producers' clocks run behind ours
SETUP = 6.0  # seconds from planning midnight to GO, at most
CLI_BASE, PY_BASE = 100, 0


def _cli_writer(procs, tmp_path, store, topic, w, n, offset):
    """feeder.py | produce --jsonl, on its own clock."""
    pipeline = ("set -o pipefail; "
                + " ".join(shlex.quote(str(a)) for a in [sys.executable, FEEDER, w, n, RATE, tmp_path / "GO", tmp_path / f"ready-{w}"])
                + " | " + " ".join(shlex.quote(a) for a in cli_cmd(store, "produce", topic, "--jsonl")))
    return procs.start(f"cli-writer-{w}", ["bash", "-c", pipeline], env=env_with_offset(offset))


def _py_writer(procs, tmp_path, store, topic, w, n, offset):
    return procs.start(f"py-writer-{w}", [sys.executable, PY_WRITER, store, topic, w, n, repr(offset), RATE, tmp_path / "GO",
                                          tmp_path / f"ready-{w}", tmp_path / f"status-{w}.json"], env=env_with_offset(offset))


def _go(tmp_path, wprocs, t_go_planned, t_roll):
    """Wait for every writer to be ready, then write the GO time (real clock)."""
    ready_files = [tmp_path / f"ready-{w}" for w in wprocs]
    return release_writers(tmp_path / "GO", wprocs, ready_files, t_go_planned, t_roll, 60, 1.0)


def _wait_writers(wprocs, watchers, readers, limit):
    deadline = time.monotonic() + limit
    while any(p.alive() for p in wprocs.values()):
        for c in watchers:
            c.poll()
        for p in readers:
            if not p.alive():
                pytest.fail(f"{p.name} died during the run\n{p.tail()}")
        if time.monotonic() > deadline:
            pytest.fail("writers still running: " + ", ".join(p.name for p in wprocs.values() if p.alive()))
        time.sleep(0.2)


def _catch_up(consumed_list, want, stall=6.0, limit=90.0):
    """Poll readers until they have every wanted key (or stall). Returns how many are missing."""
    t_end = time.monotonic() + limit
    last_change, last_n = time.monotonic(), -1
    while True:
        for c in consumed_list:
            c.poll()
        got = union_keys(consumed_list)
        missing = sum(1 for k in want if k not in got)
        if missing == 0:
            return 0
        n_now = sum(c.tail.lines for c in consumed_list)
        if n_now != last_n:
            last_change, last_n = time.monotonic(), n_now
        if time.monotonic() - last_change > stall or time.monotonic() > t_end:
            return missing
        time.sleep(0.25)


def _analyse(final_records):
    """From the final read (partition, offset, key) in read order: the places the
    offset goes back (an overlap), the late keys (lines of the older file at or
    past the newer file's first offset), offset gaps, and duplicate (partition, offset) pairs."""
    resets, gaps, late = [], [], set()
    seen_at = defaultdict(list)
    by_part = defaultdict(list)
    for p, o, key in final_records:
        prev = by_part[p][-1][0] if by_part[p] else None
        if prev is not None and o != prev + 1:
            if o <= prev:
                resets.append((p, o, prev))
                late.update(k for ro, k in by_part[p] if ro >= o)
            else:
                gaps.append((p, prev, o))
        by_part[p].append((o, key))
        seen_at[(p, o)].append(key)
    dup_offsets = {po: ks for po, ks in seen_at.items() if len(ks) > 1}
    return resets, gaps, late, dup_offsets, by_part


def _stop_readers(readers, watchers):
    for p in readers:
        p.signal_group(signal.SIGTERM)
    rcs = {p.name: p.wait(60) for p in readers}
    for c in watchers:
        c.poll()
    for p in readers:
        no_panic(p.stderr_text(), p.name)
    assert all(rc == 0 for rc in rcs.values()), f"readers exited {rcs}\n" + "\n".join(p.tail() for p in readers)


# --------------------------------------------------------------------------
# (a) our producers only, clocks 0.25 / 0.55 s apart, one partition


@pytest.mark.parametrize("round_no", range(OURS["rounds"]))
def test_rollover_skewed_ours(tmp_path, twainmq, capsys, monkeypatch, round_no):
    t0 = time.monotonic()
    store = tmp_path / "store"
    store.mkdir()
    topic = "skew"
    ids = [CLI_BASE + i for i in range(len(SKEWS))]
    n = int(RATE * OURS["write_secs"])
    expected = Expected({w: n for w in ids})
    base, t_roll, day_before, day_after = plan_rollover(SETUP + OURS["lead"])
    monkeypatch.delenv("TWAINMQ_STORE", raising=False)
    run_cli(store, "topics", "create", topic, "--key-type", "u32", "--partitions", 1, env=env_with_offset(base))
    figures = dict(scale=SCALE, round=round_no, producers=len(ids), partitions=1, rate_per_producer=RATE,
                   clock_skews_s=list(SKEWS), messages=len(ids) * n)
    with Procs(tmp_path / "logs") as procs:
        followers = [procs.start(f"follower-{i}", cli_cmd(store, "consume", topic, "--json", "--follow"), env=env_with_offset(base + s))
                     for i, s in enumerate((SKEWS[0], SKEWS[-1]))]
        wprocs = {w: _cli_writer(procs, tmp_path, store, topic, w, n, base + s) for w, s in zip(ids, SKEWS)}
        t_go = _go(tmp_path, wprocs, t_roll - OURS["lead"], t_roll)
        figures["midnight_after_go_s"] = round(t_roll - t_go, 2)
        seen = [Consumed(expected, f.stdout_path) for f in followers]
        _wait_writers(wprocs, seen, followers, OURS["write_secs"] * 3 + 60)
        for w, p in wprocs.items():
            err = p.stderr_text()
            no_panic(err, p.name)
            assert p.popen.returncode == 0 and f"sent {n} messages" in err, f"{p.name} exited {p.popen.returncode}\n{p.tail()}"
        want = expected.keys()
        read_path = tmp_path / "final.jsonl"
        read_err = read_all_to_file(store, topic, read_path, env=env_with_offset(base))
        final = Consumed(expected, read_path, keep_positions=True)
        final.poll()
        for c in seen:
            _catch_up([c], want)
        _stop_readers(followers, seen)

    resets, gaps, late, dup_offsets, by_part = _analyse(final.records)
    lost = sorted(k for k in want if k not in final.keys)
    dups = sorted(k for k, c in final.keys.items() if c > 1)
    problems = check_store(store, env=env_with_offset(base))
    kinds = problem_kinds(problems)
    files = partition_files(store, topic).get(0, [])
    # seeks around the first offset of the new day's file
    seq = by_part[0]
    new_first = min((first for d, first, _ in files if d == day_after), default=None)
    seek_errors = []
    if new_first is not None:
        for o in sorted({max(0, new_first - 25), new_first, new_first + 7}):
            start = next((i for i, (ro, _) in enumerate(seq) if ro == o), None)
            if start is None:
                seek_errors.append(f"offset {o} is not in the final read")
                continue
            want_slice = [k for _, k in seq[start:start + 50]]
            out = run_cli(store, "consume", topic, "--from", o, "--partition", 0, "--max", 50, "--json", env=env_with_offset(base))
            got = [json.loads(l)["key"] for l in out.stdout.splitlines() if l.strip()]
            if got != want_slice:
                bad = next((i for i, (a, b) in enumerate(zip(got, want_slice)) if a != b), min(len(got), len(want_slice)))
                seek_errors.append(f"--from {o}: {len(got)} messages, first difference at #{bad}: {got[bad:bad + 2]} instead of "
                                   f"{want_slice[bad:bad + 2]}")
    follower_missed = [sum(1 for k in want if k not in c.keys) for c in seen]
    follower_dups = [sum(v - 1 for v in c.keys.values()) for c in seen]
    figures.update(
        lost=len(lost), duplicated=len(dups), duplicate_offsets=len(dup_offsets),
        offset_overlaps=kinds.get("offset_overlap", 0), duplicate_day=kinds.get("duplicate_day", 0),
        read_offset_resets=len(resets), late_lines=len(late), offset_gaps=len(gaps),
        files=[f"{d}_{first}" for d, first, _ in files], follower_missed=follower_missed, follower_duplicates=follower_dups,
        seek_errors=len(seek_errors), check=kinds, seconds=round(time.monotonic() - t0, 1))
    figures_line(f"rollover skewed ours #{round_no}", figures, capsys)

    assert not final.invalid and not final.tail.bad, (final.invalid[:3], final.tail.bad[:2])
    assert not lost, f"{len(lost)} messages lost, e.g. {lost[:5]}"
    assert not dups, f"{len(dups)} messages twice in the final read, e.g. {dups[:5]}"
    assert not dup_offsets, (f"{len(dup_offsets)} offsets given to two messages (a producer wrote into yesterday's file after "
                             f"another started today's), e.g. {sorted(dup_offsets.items())[:3]}")
    assert kinds.get("offset_overlap", 0) == 0 and kinds.get("duplicate_day", 0) == 0, json.dumps(problems[:5])
    assert not problems, f"check: {kinds}: {json.dumps(problems[:5])}"
    assert not gaps, f"offset gaps in the read: {gaps[:5]}"
    assert {day_before, day_after} <= {d for d, _, _ in files}, f"files {files}: midnight did not pass mid-run"
    assert not any("warning" in l.lower() for l in read_err.splitlines()), read_err[-2000:]
    assert not seek_errors, "seeks in the rollover region: " + "; ".join(seek_errors)
    for c, missed, d in zip(seen, follower_missed, follower_dups):
        assert not c.invalid and not c.tail.bad, (c.invalid[:3], c.tail.bad[:2])
        assert missed == 0, f"a follower missed {missed} messages (followers: {follower_missed})"
        assert d == 0, f"a follower printed {d} messages twice"


# --------------------------------------------------------------------------
# (b) our producers with lagging 0.2.3 producers, follower and group members


def test_rollover_lagging_023(tmp_path, twainmq, capsys, monkeypatch):
    t0 = time.monotonic()
    store = tmp_path / "store"
    store.mkdir()
    topic, group, parts = "lag", "laggards", 2
    ours = [CLI_BASE, CLI_BASE + 1]
    pys = [PY_BASE + i for i in range(len(PY_LAGS))]
    n = int(RATE * MIXED["write_secs"])
    expected = Expected({w: n for w in ours + pys})
    base, t_roll, day_before, day_after = plan_rollover(SETUP + 4.0 + MIXED["lead"])
    monkeypatch.delenv("TWAINMQ_STORE", raising=False)
    monkeypatch.setenv("TWAINMQ_CLOCK_OFFSET_SECS", repr(base))  # run_cli, describe and Procs' default env: our clock
    run_cli(store, "topics", "create", topic, "--key-type", "u32", "--partitions", parts)
    figures = dict(scale=SCALE, ours=len(ours), py023=len(pys), py023_lag_s=list(PY_LAGS), partitions=parts, messages=len(expected.keys()))
    py_status = {}
    with Procs(tmp_path / "logs") as procs:
        follower = procs.start("follower", cli_cmd(store, "consume", topic, "--json", "--follow"))
        members, member_ids = [], []
        for i in range(2):
            m = procs.start(f"member{i}", cli_cmd(store, "consume", topic, "--group", group, "--json", "--follow",
                                                  "--rebalance-window", "1", "--commit-every", "100"))
            members.append(m)
            member_ids.append(wait_until(lambda m=m: m.alive() and member_id_from_stderr(m), 30, lambda m=m: f"{m.name} to join\n{m.tail()}"))

        def settled():
            d = describe(store, group)
            return d.get("open_round") is None and {m["id"] for m in d["members"]} == set(member_ids)

        wait_until(settled, 30, "the two members to settle")
        wprocs = {w: _cli_writer(procs, tmp_path, store, topic, w, n, base) for w in ours}
        wprocs.update({w: _py_writer(procs, tmp_path, store, topic, w, n, base - lag) for w, lag in zip(pys, PY_LAGS)})
        t_go = _go(tmp_path, wprocs, t_roll - MIXED["lead"], t_roll)
        figures["midnight_after_go_s"] = round(t_roll - t_go, 2)
        f_seen = Consumed(expected, follower.stdout_path)
        m_seen = [Consumed(expected, m.stdout_path) for m in members]
        _wait_writers(wprocs, [f_seen] + m_seen, [follower] + members, MIXED["write_secs"] * 3 + 60)
        limits = {}
        for w, p in wprocs.items():
            err = p.stderr_text()
            no_panic(err, p.name)
            if w in pys:
                st = json.loads((tmp_path / f"status-{w}.json").read_text())
                py_status[w] = st
                if st["error"]:  # 0.2.3 gave up (two files for one day): what it never wrote is not expected
                    assert p.popen.returncode == 3, f"{p.name}: exit {p.popen.returncode}, {st}"
                    limits[w] = st["written"]
                else:
                    assert p.popen.returncode == 0 and st["written"] == n, f"{p.name}: {st}\n{p.tail()}"
            else:
                assert p.popen.returncode == 0 and f"sent {n} messages" in err, f"{p.name} exited {p.popen.returncode}\n{p.tail()}"
        want = expected.keys(limits)
        read_path = tmp_path / "final.jsonl"
        read_all_to_file(store, topic, read_path)
        final = Consumed(expected, read_path, keep_positions=True)
        final.poll()
        _catch_up([f_seen], want)
        _catch_up(m_seen, want)
        _stop_readers([follower] + members, [f_seen] + m_seen)

    resets, gaps, late, dup_offsets, _ = _analyse(final.records)
    lost = sorted(k for k in want if k not in final.keys)
    dups = sorted(k for k, c in final.keys.items() if c > 1)
    problems = check_store(store)
    kinds = problem_kinds(problems)
    overlaps = [p for p in problems if p["kind"] == "offset_overlap"]
    late_by = Counter("0.2.3" if k // KEY_STRIDE in pys else "ours" for k in late)
    f_missed = sorted(k for k in want if k not in f_seen.keys)
    group_keys = union_keys(m_seen)
    g_missed = sorted(k for k in want if k not in group_keys)
    figures.update(
        lost=len(lost), duplicated=len(dups), duplicate_offsets=len(dup_offsets), read_offset_resets=len(resets),
        offset_overlaps=len(overlaps), late_lines=dict(late_by), duplicate_day=kinds.get("duplicate_day", 0),
        py023_errors={w: s["error"] for w, s in py_status.items() if s["error"]},
        follower_missed=len(f_missed), follower_duplicates=sum(c - 1 for c in f_seen.keys.values()),
        group_missed=len(g_missed), group_duplicates=sum(c - 1 for c in group_keys.values()),
        files={p: [f"{d}_{first}" for d, first, _ in fs] for p, fs in sorted(partition_files(store, topic).items())},
        check=kinds, seconds=round(time.monotonic() - t0, 1))
    figures_line("rollover lagging 0.2.3", figures, capsys)

    assert not final.invalid and not final.tail.bad, (final.invalid[:3], final.tail.bad[:2])
    assert not lost, f"{len(lost)} messages lost on disk, e.g. {lost[:5]}"
    assert not dups, f"{len(dups)} messages twice in the final read, e.g. {dups[:5]}"
    ours_late = sorted(k for k in late if k // KEY_STRIDE in ours)
    assert not ours_late, f"{len(ours_late)} lines of OUR producers landed in yesterday's file after today's was started, e.g. {ours_late[:5]}"
    assert not f_missed, f"the follower missed {len(f_missed)} messages (late 0.2.3 lines must still be delivered), e.g. {f_missed[:5]}"
    assert not g_missed, f"the group missed {len(g_missed)} messages (at-least-once), e.g. {g_missed[:5]}"
    assert len(overlaps) == len(resets), (f"check names {len(overlaps)} offset overlaps, the read goes back {len(resets)} times "
                                          f"{resets[:5]}: {json.dumps(overlaps[:5])}")
    for (p, o, _prev) in resets:
        assert any(x.get("partition") == p and x.get("offset") == o for x in overlaps), (
            f"no offset_overlap problem names partition {p} at offset {o}: {json.dumps(overlaps[:5])}")
    unexpected = {k: v for k, v in kinds.items() if k not in ("offset_overlap", "duplicate_day")}
    assert not unexpected, f"check reports more than the overlaps: {json.dumps([p for p in problems if p['kind'] in unexpected][:5])}"
    assert not kinds.get("duplicate_day") or late, "two files for one day without any late line"
