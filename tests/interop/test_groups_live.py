"""A live mixed consumer group: one twainmq 0.2.3 member (a Python subprocess)
and our CLI members share a 4-partition topic while 0.2.3 and CLI producers
write to it. Rounds are opened by joins, by the 0.2.3 member's trigger_rebal()
and by `groups rebalance`. Then one of our members is SIGKILLed and its
partitions must move; then a new CLI member joins and must resume from commits.

Checked: after every round each partition has exactly one owner (in `groups
describe` and in what members confirmed), every message is consumed
(at-least-once), what members read matches the log, and members taking a
partition start at its latest commit."""

import json
import signal
import time
from collections import Counter, defaultdict

import pytest

from conftest import parse_jsonl
from group_helpers import (
    PacedCliProducer,
    Procs,
    cli_cmd,
    commits_at,
    describe,
    ended_rounds,
    keys_by_partition,
    member_id_from_stderr,
    py_producer_items,
    read_group_log,
    read_jsonl_file,
    read_status,
    stable_round,
    start_py_member,
    start_py_producer,
    wait_until,
    write_scripts,
)

W = 2  # round window (s) for every member, and for `groups rebalance`
PARTS = 4
TOPIC = "live"
GROUP = "mixed"
KEY_MAX = 2**32 - 1
COMMIT_EVERY = 50
PHASE1, PHASE2, PHASE3 = 1200, 400, 300  # messages per producer (one 0.2.3, one CLI) per phase


def cli_items(prefix, count, seed):
    import random

    rng = random.Random(seed)
    return [(rng.randrange(KEY_MAX + 1), f"{prefix}-{i}") for i in range(count)]


class Member:
    """One member's output: our CLI's JSON lines or the 0.2.3 script's lines,
    normalised to dicts partition, offset, key, text."""

    def __init__(self, name, kind, proc, out_path, status_path=None):
        self.name, self.kind, self.proc, self.out_path, self.status_path = name, kind, proc, out_path, status_path
        self.id = None

    def records(self):
        out = []
        for r in read_jsonl_file(self.out_path):
            if self.kind == "cli":
                assert r["payload"]["type"] == "str", r
                out.append({"partition": r["partition"], "offset": r["offset"], "key": r["key"], "text": r["payload"]["value"]})
            else:
                out.append({"partition": r["partition"], "offset": r["offset"], "key": r["key"], "text": r["payload"]})
        return out

    def wait_id(self):
        def get():
            if self.kind == "cli":
                return member_id_from_stderr(self.proc)
            st = read_status(self.status_path)
            return st and st.get("id")

        def why():
            return f"{self.name} to join the group (alive={self.proc.alive()})\n{self.proc.tail()}"

        self.id = wait_until(get, 20, why)
        return self.id


def check_round_consistency(desc):
    """In every ended round: each member confirmed exactly what the round's
    assignment gives it, no partition was confirmed by two members, and the
    confirms cover every partition."""
    rounds = ended_rounds(desc)
    assert rounds, "no round ended"
    for r in rounds:
        assignment = {int(k): v for k, v in r["assignment"].items()}
        confirms = {int(k): v for k, v in r["confirms"].items()}
        where = f"round begun at group offset {r['begin_offset']} by {r['started_by']}: assignment {assignment}, confirms {confirms}"
        assert sorted(p for ps in assignment.values() for p in ps) == list(range(PARTS)), where
        seen = Counter(p for ps in confirms.values() for p in ps)
        doubled = sorted(p for p, n in seen.items() if n > 1)
        assert not doubled, f"partitions {doubled} confirmed by two members: {where}"
        assert sorted(seen) == list(range(PARTS)), f"confirms do not cover every partition: {where}"
        for mid, ps in confirms.items():
            assert ps == assignment.get(mid, []), f"member {mid} confirmed {ps}, assignment says {assignment.get(mid)}: {where}"


def check_offers(desc):
    """Every offer (in every round, superseded ones too) offers all partitions and
    owns exactly what its member held: what it confirmed in the last round that
    ended before it, or nothing if it never confirmed one (so members keep their
    partitions across rounds)."""
    held = {}
    for r in desc["rounds"]:  # in log order
        for o in r["offers"]:
            assert o["partitions"] == list(range(PARTS)), (r["begin_offset"], o)
            assert sorted(o["own"]) == sorted(held.get(o["id"], [])), (
                f"member {o['id']} offered own={o['own']} in the round begun at {r['begin_offset']}, "
                f"but held {held.get(o['id'], [])}"
            )
        if r.get("ended_at") is not None:
            for mid, ps in r["confirms"].items():
                held[int(mid)] = ps


def check_ownership(desc, live_ids):
    members = {m["id"]: m["partitions"] for m in desc["members"]}
    assert set(members) == set(live_ids), f"describe lists members {sorted(members)}, live are {sorted(live_ids)}"
    owned = [p for ps in members.values() for p in ps]
    assert sorted(owned) == list(range(PARTS)), f"not every partition owned exactly once: {members}"
    for row in desc["partitions"]:
        assert row["owner"] is not None and row["partition"] in members[row["owner"]], (row, members)
    return members


def test_mixed_live_group(cli, store, tmp_path, twainmq, capsys):
    from twainmq.encoding import partition_hash64

    t0 = time.monotonic()
    member_script, producer_script = write_scripts(tmp_path / "scripts")
    cli(store, "topics", "create", TOPIC, "--key-type", "u32", "--partitions", PARTS)
    # Every partition gets files and messages before any member reads it (0.2.3
    # readers mishandle a partition whose first file appears later).
    seed_keys = keys_by_partition(PARTS, KEY_MAX, 10, start=7)
    seed = [(k, f"seed-{p}-{i}") for p in range(PARTS) for i, k in enumerate(seed_keys[p])]
    cli(store, "produce", TOPIC, "--jsonl", input="".join(json.dumps({"key": k, "payload": t}) + "\n" for k, t in seed))
    produced = {t: "seed" for _, t in seed}
    flag = tmp_path / "rebalance.flag"
    logs = tmp_path / "logs"
    figures = {}
    killed = set()

    with Procs(logs) as procs:

        def cli_member(name):
            out = logs / f"{name}.jsonl"
            proc = procs.start(
                name,
                cli_cmd(store, "consume", TOPIC, "--group", GROUP, "--follow", "--json",
                        "--rebalance-window", W, "--commit-every", COMMIT_EVERY),
                stdout_path=out,
            )
            return Member(name, "cli", proc, out)

        def settle(live, timeout=20):
            ids = [m.id for m in live]
            return wait_until(
                lambda: stable_round(describe(store, GROUP), ids, PARTS),
                timeout,
                lambda: f"a settled round with members {ids}\n" + "\n".join(m.proc.tail(1500) for m in live),
            )

        def consumed(members):
            texts = Counter()
            for m in members:
                texts.update(r["text"] for r in m.records())
            return texts

        def wait_consumed(wanted, members, what, timeout=40):
            def done():
                for m in members:
                    if m.name not in killed and not m.proc.alive():
                        pytest.fail(f"{m.name} died\n{m.proc.tail()}")
                got = consumed(members)
                missing = [t for t in wanted if t not in got]
                return not missing

            wait_until(done, timeout, lambda: f"{what}: {sum(1 for t in wanted if t not in consumed(members))} of {len(wanted)} not consumed")

        def produce_phase(name, count, seed_base):
            py_items = py_producer_items(f"py{name}", count, seed_base, KEY_MAX)
            cl_items = cli_items(f"cli{name}", count, seed_base + 1)
            for _, t in py_items + cl_items:
                produced[t] = name
            py = start_py_producer(procs, f"py-producer-{name}", producer_script, store, TOPIC,
                                   f"py{name}", count, 0.004, seed_base, KEY_MAX)
            feeder = PacedCliProducer(procs, f"cli-producer-{name}", store, TOPIC, cl_items, chunk=40, pause=0.15)
            feeder.start()
            return py, feeder, [t for _, t in py_items + cl_items]

        def finish_phase(py, feeder):
            feeder.join_checked(60)
            rc = py.wait(60)
            assert rc == 0, f"0.2.3 producer failed\n{py.tail()}"

        # ---- three members join one after another, each join a round
        a = cli_member("cliA")
        a.wait_id()
        settle([a])
        p = Member("py023", "py", None, logs / "py023.jsonl", tmp_path / "py023.status")
        p.proc = start_py_member(procs, "py023", member_script, store, TOPIC, GROUP, W,
                                 p.out_path, p.status_path, flag, COMMIT_EVERY)
        p.wait_id()
        settle([a, p])
        b = cli_member("cliB")
        b.wait_id()
        settle([a, p, b])
        check_ownership(describe(store, GROUP), [a.id, p.id, b.id])

        # ---- phase 1: both producers write while rounds run (one opened by 0.2.3, one from outside)
        py1, feed1, texts1 = produce_phase("1", PHASE1, 101)
        time.sleep(0.5)
        flag.touch()  # the 0.2.3 member calls trigger_rebal()
        wait_until(lambda: (read_status(p.status_path) or {}).get("triggered") == 1, 10, "the 0.2.3 member to trigger a round")
        time.sleep(0.3)
        settle([a, p, b])
        cli(store, "groups", "rebalance", GROUP, "--window", W)
        time.sleep(0.3)
        settle([a, p, b])
        finish_phase(py1, feed1)
        wait_consumed([t for t, ph in produced.items() if ph in ("seed", "1")], [a, p, b], "phase 1")
        desc = settle([a, p, b])
        d = describe(store, GROUP)
        check_round_consistency(d)
        check_offers(d)
        before_kill = check_ownership(d, [a.id, p.id, b.id])
        starters = {r["started_by"] for r in ended_rounds(d)}
        assert {a.id, p.id, b.id, 0} <= starters, f"rounds were started by {starters}"

        # ---- SIGKILL one of our members; its partitions must move
        b_parts = before_kill[b.id]
        assert b_parts, "cliB held no partition: nothing to move"
        lines_at_kill = {m.name: len(m.records()) for m in (a, p)}
        killed.add(b.name)
        b.proc.signal_group(signal.SIGKILL)
        b.proc.wait(10)
        t_kill = time.monotonic()
        commits_at_kill = {int(k): v for k, v in describe(store, GROUP)["committed"].items()}
        py2, feed2, texts2 = produce_phase("2", PHASE2, 202)
        cli(store, "groups", "rebalance", GROUP, "--window", W)
        time.sleep(W + 0.5)  # more than the window
        kill_round = settle([a, p])
        assert kill_round["started_by"] == 0
        figures["partitions_moved_after_kill_s"] = round(time.monotonic() - t_kill, 2)
        d = describe(store, GROUP)
        after_kill = check_ownership(d, [a.id, p.id])
        finish_phase(py2, feed2)
        wait_consumed(texts2, [a, p], "messages produced after the kill (by live members)")
        # The dead member's partitions are read by their new owners from its last commit.
        for part in b_parts:
            new_owner = next(m for m in (a, p) if part in after_kill[m.id])
            post = [r for r in new_owner.records()[lines_at_kill[new_owner.name]:] if r["partition"] == part]
            assert post, f"{new_owner.name} took partition {part} but read nothing from it"
            assert post[0]["offset"] == commits_at_kill[part], (
                f"{new_owner.name} took partition {part} of the killed member at offset {post[0]['offset']}, "
                f"its last commit was {commits_at_kill[part]}"
            )

        # ---- a new CLI member joins: it resumes from commits
        c = cli_member("cliC")
        c.wait_id()
        join_round = settle([a, p, c])
        assert join_round["started_by"] == c.id
        d = describe(store, GROUP)
        after_join = check_ownership(d, [a.id, p.id, c.id])
        assert after_join[c.id], "the new member got no partition"
        py3, feed3, texts3 = produce_phase("3", PHASE3, 303)
        finish_phase(py3, feed3)
        wait_consumed(list(produced), [a, p, b, c], "every produced message")

        # Owners caught up with the end of their partitions, then everyone stops cleanly.
        def caught_up():
            d = describe(store, GROUP)
            owners = {m["id"]: m["partitions"] for m in d["members"]}
            ends = {row["partition"]: row["end"] for row in d["partitions"]}
            for m in (a, p, c):
                last = defaultdict(lambda: -1)
                for r in m.records():
                    last[r["partition"]] = max(last[r["partition"]], r["offset"])
                if any(last[q] < ends[q] - 1 for q in owners[m.id]):
                    return False
            return True

        wait_until(caught_up, 30, "the owners to reach the end of their partitions")
        for m in (a, p, c):
            m.proc.signal_group(signal.SIGTERM)
        for m in (a, p, c):
            rc = m.proc.wait(20)
            assert rc == 0, f"{m.name} exited {rc} on SIGTERM\n{m.proc.tail()}"
        assert read_status(p.status_path)["state"] == "exited"

    # ---------------- after the run
    d = describe(store, GROUP)
    ends = {row["partition"]: row["end"] for row in d["partitions"]}
    assert sum(ends.values()) == len(produced), f"the topic holds {sum(ends.values())} messages, {len(produced)} were produced"
    committed = {int(k): v for k, v in d["committed"].items()}
    assert committed == ends, f"after every member stopped cleanly, commits {committed} != ends {ends}"
    check_round_consistency(d)
    check_offers(d)
    listed = json.loads(cli(store, "groups", "list", "--json").stdout)
    assert [(g["group"], g["topic"]) for g in listed] == [(GROUP, TOPIC)], listed

    # What was read is what is in the log, and the partitioner agrees with 0.2.3's.
    log = parse_jsonl(cli(store, "consume", TOPIC, "--json").stdout)
    by_pos = {(r["partition"], r["offset"]): (r["key"], r["payload"]["value"]) for r in log}
    assert sorted(t for _, t in by_pos.values()) == sorted(produced)
    members = {"cliA": a, "py023": p, "cliB": b, "cliC": c}
    all_records = []
    for name, m in members.items():
        recs = m.records()
        for r in recs:
            assert by_pos.get((r["partition"], r["offset"])) == (r["key"], r["text"]), (name, r)
            assert r["partition"] == partition_hash64(r["key"], PARTS), (name, r)
        # within one member, a partition is read in order, without gaps, except
        # where it restarts at a commit after taking the partition again
        all_records += recs

    counts = Counter(r["text"] for r in all_records)
    missing = [t for t in produced if t not in counts]
    assert not missing, f"{len(missing)} messages consumed by nobody, e.g. {missing[:5]}"
    duplicates = sum(n - 1 for n in counts.values())

    # The new member started each partition at that partition's commit (as of
    # the round's end, or a commit the old owner wrote before the new one confirmed).
    records = read_group_log(twainmq, store, GROUP)
    end_off = next(r["offset"] for r in records if r["type"] == "~~TWAIN~~ENDREBAL" and r["offset"] > join_round["begin_offset"])
    conf_off = next(r["offset"] for r in records
                    if r["type"] == "~~TWAIN~~REBALCONFIRM" and r["key"] == c.id and r["offset"] > end_off)
    at_end = commits_at(records, end_off)
    c_recs = c.records()
    reread = 0
    for part in after_join[c.id]:
        allowed = {at_end[part]} | {o for r in records if end_off < r["offset"] < conf_off and r["type"] == "~~TWAIN~~COMMIT"
                                    for q, o in r["fields"]["partition_offsets"] if q == part}
        first = next(r["offset"] for r in c_recs if r["partition"] == part)
        assert first in allowed, f"cliC started partition {part} at {first}; commits then: {sorted(allowed)}"
        assert first > 0, f"cliC re-read partition {part} from 0"
        # read by the others before cliC took it over
        read_before = max((r["offset"] for m in (a, p, b) for r in m.records() if r["partition"] == part), default=-1)
        reread_here = sum(1 for r in c_recs if r["partition"] == part and r["offset"] <= read_before)
        # at most the uncommitted range is read again
        assert reread_here <= max(0, read_before + 1 - min(allowed)), (part, reread_here, read_before, allowed)
        reread += reread_here

    figures.update(
        messages=len(produced),
        consumed_lines=len(all_records),
        duplicates=duplicates,
        rounds_ended=len(ended_rounds(d)),
        rounds_total=len(d["rounds"]),
        round_starters=dict(Counter(str(r["started_by"]) for r in ended_rounds(d))),
        round_enders=dict(Counter(str(r["ended_by"]) for r in ended_rounds(d))),
        group_records=d["records"],
        per_member={n: len(m.records()) for n, m in members.items()},
        ids={n: m.id for n, m in members.items()},
        killed_member_partitions=b_parts,
        new_member_partitions=after_join[c.id],
        new_member_reread=reread,
        seconds=round(time.monotonic() - t0, 1),
    )
    with capsys.disabled():
        print(f"\n[groups live] {json.dumps(figures)}")
