"""Crash torture: SIGKILL our CLI producers and group members at random
(seeded) points, many times, and restart them; plus torn tails made by hand.

- Producers (`produce --jsonl`, fed continuously from this process) are killed
  >= 20 times (short) / >= 200 times (long) while a `consume --follow` reads.
  The CLI has no per-message acknowledgement, so: every message appears at
  most once and whole; what one producer incarnation wrote is a prefix of what
  it was fed (no holes: a message is fully present or, with everything after
  it, absent); producers that exit normally wrote everything; every line the
  follower printed parses and is a message that was sent, and the follower saw
  exactly what is in the log. Every other incarnation runs with `--batch`, which
  promises less: each partition holds a prefix of what it was given, and the
  holes lie within one batch (1,000 lines) of the last message written.
  A kill inside a `write` can leave part of a line (the kernel stops a write
  between pages); the next writer ends it, so it becomes a damaged line that
  readers skip and `check` reports. Those are accepted only when the line's
  key is a message of a killed incarnation that is absent from the log.
- A torn tail (half a line appended to the active file, as a crash of a
  writer that does not write a line at once would leave) never swallows the
  next message: not from a new producer, nor from one that already had the
  file open. `check` reports exactly one unfinished_line before and one
  damaged_line after.
- Group members (`consume --group`) are SIGKILLed and restarted: at the end
  every message was consumed by someone, and every time a member took a
  partition it started at that partition's latest commit (so it re-reads at
  most the uncommitted range); re-read counts are reported.
"""

import json
import random
import re
import signal
import subprocess
import threading
import time
from collections import Counter, defaultdict

from torture_common import (
    LONG,
    SCALE,
    JsonlTail,
    Procs,
    check_store,
    cli_cmd,
    describe,
    figures_line,
    kill_group,
    member_id_from_stderr,
    no_panic,
    problem_kinds,
    read_all_to_file,
    run_cli,
    wait_until,
)
from conftest import twainmq  # noqa: F401  (fixture: asserts twainmq==0.2.3)
from group_helpers import PacedCliProducer, commits_at, keys_by_partition, read_group_log, stable_round

PARTS = 4
PRODUCER_KILLS = 220 if LONG else 24
PRODUCER_SLOTS = 2
MEMBER_KILLS = 40 if LONG else 6
SEED = 20261129

_POOL = "".join(random.Random(7).choices("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:-_\"'éü€日😀", k=2048))
STRIDE = 100_000  # key = incarnation * STRIDE + seq
MAX_BATCH = 1000  # lines in one `produce --jsonl --batch` batch, at most


def text_for(inc, seq):
    """Deterministic text of message `seq` of producer incarnation `inc`."""
    start = (inc * 7919 + seq * 104_729) % 1500
    length = (inc * 31 + seq * 17) % 400
    return f"i{inc}:s{seq}:" + _POOL[start : start + length]


def ident(rec):
    """(inc, seq) of a printed record whose key and text agree with text_for; else raise ValueError."""
    p = rec.get("payload") or {}
    text = p.get("value") if p.get("type") == "str" else None
    if not isinstance(text, str):
        raise ValueError(f"not a text message: {str(rec)[:200]}")
    try:
        i, s, _ = text.split(":", 2)
        inc, seq = int(i[1:]), int(s[1:])
    except ValueError:
        raise ValueError(f"not a sent message: {text[:100]!r}") from None
    if text != text_for(inc, seq) or rec.get("key") != inc * STRIDE + seq:
        raise ValueError(f"i{inc}:s{seq}: key or text differ from what was sent")
    return inc, seq


def batch_holes(inc, present, missing):
    """What breaks `--batch`'s promise in incarnation `inc`, whose messages
    `missing` (seq numbers) are absent before its last present one: a missing
    message with a later one present in its own partition, or one further back
    than a batch."""
    from twainmq.encoding import partition_hash64

    last = max(present)
    later_in_partition = {}
    for seq in present:
        p = partition_hash64(inc * STRIDE + seq, PARTS)
        later_in_partition[p] = max(later_in_partition.get(p, -1), seq)
    out = []
    for seq in missing:
        p = partition_hash64(inc * STRIDE + seq, PARTS)
        if later_in_partition.get(p, -1) > seq:
            out.append(f"incarnation {inc} (--batch): seq {seq} missing from partition {p}, which holds seq {later_in_partition[p]}")
        elif last - seq >= MAX_BATCH:
            out.append(f"incarnation {inc} (--batch): seq {seq} missing, {last - seq} before its last present message (a batch is at most {MAX_BATCH})")
    return out


def torn_by_kill(store, topic, problems, killed, present):
    """The problems `check` found that a SIGKILL explains, and the others.

    A kill can land while the kernel copies a write into the file (it stops
    between pages), leaving part of a line. Producers of ours end such a tail
    before they append, or, when their line landed on it in the same instant,
    write that message again: either way the fragment becomes a damaged line
    that readers skip. It is explained when its key is a message of a killed
    incarnation that is absent from the log (so what that incarnation wrote is
    still a prefix, which the hole checks verify)."""
    import base64
    import struct

    explained, other = [], []
    for pr in problems:
        ok = False
        if pr.get("kind") == "damaged_line":
            with open(store / topic / pr["file"], "rb") as f:
                lines = f.read().split(b"\n")
            line = lines[pr["line"] - 1]
            try:
                key = struct.unpack(">I", base64.b85decode(line[:5]))[0]
                ok = key // STRIDE in killed and (key // STRIDE, key % STRIDE) not in present
            except (ValueError, struct.error):
                ok = False
        (explained if ok else other).append(pr)
    return explained, other


def warnings_left(err, torn_lines):
    """The warnings in a reader's stderr, less those about the damaged lines a kill explains."""
    out = []
    for w in err.splitlines():
        if "warning" not in w.lower():
            continue
        if torn_lines and re.match(r"warning: skipped \d+ damaged lines?$", w.strip()):
            continue
        if any(f"{t['file']}, line {t['line']})" in w for t in torn_lines):
            continue
        out.append(w)
    return out


def test_batch_holes_flags_what_batch_does_not_allow(twainmq):
    """The `--batch` check accepts a batch cut between partitions and flags a
    hole inside a partition or one further back than a batch."""
    from twainmq.encoding import partition_hash64

    inc = 3
    part = {seq: partition_hash64(inc * STRIDE + seq, PARTS) for seq in range(3000)}
    # a cut batch: of seqs 2000-2999 only partition 0's made it
    present = set(range(2000)) | {s for s in range(2000, 3000) if part[s] == 0}
    missing = sorted(set(range(max(present) + 1)) - present)
    assert missing and batch_holes(inc, present, missing) == []
    # a message missing from a partition that holds a later one
    p1 = [s for s in range(1000, 2000) if part[s] == 1]
    gap = present - {p1[0]}
    assert any("missing from partition 1" in h for h in batch_holes(inc, gap, sorted(set(range(max(gap) + 1)) - gap)))
    # a partition with nothing for longer than a batch before the last message
    old = set(range(500)) | {s for s in range(500, 3000) if part[s] != 2}
    assert any("a batch is at most" in h for h in batch_holes(inc, old, sorted(set(range(max(old) + 1)) - old)))


class Incarnation:
    """One `produce --jsonl` process, fed as fast as it reads by a thread."""

    def __init__(self, procs, inc, store, topic, limit=None):
        self.inc = inc
        self.fed = 0  # messages completely written into the pipe
        self.limit = limit  # None: feed until killed
        self.error = None
        self.batch = inc % 2 == 0
        args = ["produce", topic, "--jsonl"] + (["--batch"] if self.batch else [])
        self.proc = procs.start(f"producer-{inc}", cli_cmd(store, *args), stdin=subprocess.PIPE)
        self.thread = threading.Thread(target=self._feed, daemon=True)
        self.thread.start()

    def _feed(self):
        stdin = self.proc.popen.stdin
        seq = 0
        try:
            while self.limit is None or seq < self.limit:
                n = 25 if self.limit is None else min(25, self.limit - seq)
                block = "".join(
                    json.dumps({"key": self.inc * STRIDE + s, "payload": text_for(self.inc, s)}) + "\n" for s in range(seq, seq + n)
                )
                stdin.write(block.encode("utf-8"))
                stdin.flush()
                seq += n
                self.fed = seq
                if self.limit is None:
                    time.sleep(0.004)  # ~6k messages/s: the producer is always busy, the log stays small
                if seq >= STRIDE - 100:
                    break
            stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass  # killed
        except Exception as e:  # pragma: no cover
            self.error = e


def test_producer_sigkills(tmp_path, twainmq, capsys):
    rng = random.Random(SEED)
    t0 = time.monotonic()
    store = tmp_path / "store"
    store.mkdir()
    topic = "crash"
    run_cli(store, "topics", "create", topic, "--key-type", "u32", "--partitions", PARTS)
    incs = []
    kills = 0
    kill_exit = Counter()
    with Procs(tmp_path / "logs") as procs:
        follower = procs.start("follower", cli_cmd(store, "consume", topic, "--json", "--follow"))
        time.sleep(0.2)
        slots = []
        next_inc = 1
        for _ in range(PRODUCER_SLOTS):
            slots.append(Incarnation(procs, next_inc, store, topic))
            incs.append(slots[-1])
            next_inc += 1
        follow_tail = JsonlTail(follower.stdout_path)
        follow_recs = []
        while kills < PRODUCER_KILLS:
            time.sleep(rng.uniform(0.03, 0.35))
            i = rng.randrange(PRODUCER_SLOTS)
            victim = slots[i]
            rc = kill_group(victim.proc, signal.SIGKILL)
            kill_exit[rc] += 1
            victim.thread.join(10)
            assert not victim.thread.is_alive()
            kills += 1
            slots[i] = Incarnation(procs, next_inc, store, topic)
            incs.append(slots[i])
            next_inc += 1
            follow_tail.poll(follow_recs.append)
            assert follower.alive(), f"the follower died\n{follower.tail()}"
        # the last incarnations are not killed: they get a fixed batch and end normally
        for i in range(PRODUCER_SLOTS):
            kill_group(slots[i].proc, signal.SIGKILL)
            slots[i].thread.join(10)
            kills += 1
            slots[i] = Incarnation(procs, next_inc, store, topic, limit=3000)
            incs.append(slots[i])
            next_inc += 1
        finals = list(slots)
        for s in finals:
            s.thread.join(60)
            rc = s.proc.wait(60)
            assert rc == 0, f"producer {s.inc} exited {rc}\n{s.proc.tail()}"
            assert s.fed == 3000 and s.error is None
            assert f"sent 3000 messages" in s.proc.stderr_text()
        for s in incs:
            no_panic(s.proc.stderr_text(), s.proc.name)
            assert s.error is None, s.error

        # the full log
        read_path = tmp_path / "final.jsonl"
        read_err = read_all_to_file(store, topic, read_path)
        final = []
        final_tail = JsonlTail(read_path)
        final_tail.poll(final.append)
        assert not final_tail.bad
        present = Counter()
        torn = []
        for r in final:
            try:
                present[ident(r)] += 1
            except ValueError as e:
                torn.append(str(e))
        # the follower catches up, then stops
        deadline = time.monotonic() + (300 if LONG else 60)
        while len(follow_recs) < len(final) and time.monotonic() < deadline:
            follow_tail.poll(follow_recs.append)
            time.sleep(0.2)
        follower.signal_group(signal.SIGTERM)
        assert follower.wait(30) == 0, follower.tail()
        follow_tail.poll(follow_recs.append)
        follower_err = follower.stderr_text()

    assert set(kill_exit) == {-signal.SIGKILL}, f"producers had exited on their own before the kill: exit codes {dict(kill_exit)}"
    killed = {s.inc for s in incs} - {s.inc for s in finals}
    torn_lines, problems = torn_by_kill(store, topic, check_store(store), killed, present)
    fed = {s.inc: s.fed for s in incs}
    by_inc = defaultdict(list)
    for (inc, seq), c in present.items():
        by_inc[inc].append(seq)
    dups = [k for k, c in present.items() if c > 1]
    batched = {s.inc for s in incs if s.batch}
    holes = []
    batch_cuts = 0
    for inc, seqs in by_inc.items():
        seqs.sort()
        if seqs != list(range(len(seqs))):
            missing = sorted(set(range(seqs[-1] + 1)) - set(seqs))
            if inc not in batched:
                holes.append(f"incarnation {inc}: {len(missing)} missing before its last present message, e.g. seq {missing[:5]}")
            else:
                batch_cuts += 1
                holes += batch_holes(inc, set(seqs), missing)
        if inc in fed and len(seqs) > fed[inc]:
            holes.append(f"incarnation {inc}: {len(seqs)} present but only {fed[inc]} fed")
    unknown = [inc for inc in by_inc if inc not in fed]
    cut = sum(fed[s.inc] - len(by_inc.get(s.inc, [])) for s in incs)
    follower_bad = []
    follower_keys = Counter()
    for r in follow_recs:
        try:
            follower_keys[ident(r)] += 1
        except ValueError as e:
            follower_bad.append(str(e))
    figures_line("crash producers", dict(
        scale=SCALE, kills=kills, producer_exit_codes_at_kill=dict(kill_exit), incarnations=len(incs),
        messages_fed=sum(fed.values()), messages_present=sum(present.values()),
        fed_not_written=cut, duplicates=len(dups), torn=len(torn), holes=len(holes),
        batched_incarnations=len(batched), batches_cut_across_partitions=batch_cuts,
        follower_lines=len(follow_recs), follower_bad=len(follower_bad) + len(follow_tail.bad),
        damaged_lines_left_by_kills=len(torn_lines),
        check=problem_kinds(problems), seconds=round(time.monotonic() - t0, 1)), capsys)

    assert not torn, f"{len(torn)} torn/altered messages, e.g. {torn[:3]}"
    assert not dups, f"{len(dups)} messages twice, e.g. {dups[:5]}"
    assert not unknown, unknown
    assert not holes, holes[:5]
    for s in finals:
        assert len(by_inc.get(s.inc, [])) == s.fed, f"producer {s.inc} exited 0 but {s.fed - len(by_inc.get(s.inc, []))} of its messages are missing"
    assert not problems, f"check: {json.dumps(problems[:5])}"
    assert len(torn_lines) <= kills, f"more damaged lines than kills: {json.dumps(torn_lines[:5])}"
    assert not warnings_left(read_err, torn_lines), read_err[-2000:]
    assert not follow_tail.bad, f"the follower printed partial lines: {follow_tail.bad[:3]}"
    assert not follower_bad, f"the follower printed messages that were not sent: {follower_bad[:3]}"
    assert not warnings_left(follower_err, torn_lines), follower_err[-2000:]
    assert not [k for k, c in follower_keys.items() if c > 1], "the follower printed a message twice"
    assert set(follower_keys) == set(present), (
        f"the follower saw {len(follower_keys)} messages, the log holds {len(present)}; "
        f"missed e.g. {sorted(set(present) - set(follower_keys))[:5]}")


def _active_file(store, topic, partition):
    files = sorted((store / topic).glob(f"{partition}-*.tmf"))
    assert files, f"no file for partition {partition}"
    return files[-1]


def _half_line(path):
    """The first half of a real line of the file (as a crash mid-write would leave)."""
    line = path.read_bytes().splitlines()[-1]
    return line[: len(line) // 2]


def test_torn_tail_then_new_producer(tmp_path, twainmq, capsys):
    """Half a line at the end of the active file; a producer started afterwards
    ends it first, so its message is whole and readable."""
    store = tmp_path / "store"
    store.mkdir()
    topic = "torn"
    run_cli(store, "topics", "create", topic, "--key-type", "u32", "--partitions", PARTS)
    keys = keys_by_partition(PARTS, 2**32 - 1, 3, start=11)
    p = 2
    jl = "".join(json.dumps({"key": k, "payload": f"before-{q}-{i}"}) + "\n" for q in range(PARTS) for i, k in enumerate(keys[q]))
    run_cli(store, "produce", topic, "--jsonl", input=jl)
    with Procs(tmp_path / "logs") as procs:
        follower = procs.start("follower", cli_cmd(store, "consume", topic, "--json", "--follow"))
        wait_until(lambda: len(JsonlTail_all(follower.stdout_path)) == 3 * PARTS, 20, "the follower to read the first messages")
        active = _active_file(store, topic, p)
        with open(active, "ab") as f:
            f.write(_half_line(active))
        time.sleep(0.6)
        assert len(JsonlTail_all(follower.stdout_path)) == 3 * PARTS, "the follower printed something for half a line"
        before = check_store(store, topic=topic)
        assert [(x["kind"], x["partition"], x["file"], x["line"]) for x in before] == [("unfinished_line", p, active.name, 4)], before
        t = time.monotonic()
        out = run_cli(store, "produce", topic, "--key", keys[p][0], "after-the-tear")
        produce_s = time.monotonic() - t
        assert "offset 4" in out.stdout, out.stdout  # line 4 is the ended fragment, the message is at offset 4
        wait_until(lambda: any(r["payload"]["value"] == "after-the-tear" for r in JsonlTail_all(follower.stdout_path)), 20,
                   lambda: f"the follower to print the message after the tear\n{follower.tail()}")
        follower.signal_group(signal.SIGTERM)
        assert follower.wait(20) == 0
        follower_out = follower.stdout_path.read_bytes()
        follower_err = follower.stderr_text()
    recs = JsonlTail_all(follower.stdout_path)
    assert follower_out.endswith(b"\n") and len(recs) == len(follower_out.splitlines()), "the follower printed a partial line"
    assert [r["payload"]["value"] for r in recs if r["partition"] == p] == [f"before-{p}-0", f"before-{p}-1", f"before-{p}-2", "after-the-tear"]
    assert sum(1 for l in follower_err.splitlines() if "warning" in l.lower() and "offset 3" in l) == 1, follower_err
    after = check_store(store, topic=topic)
    assert [(x["kind"], x["partition"], x["file"], x["line"], x["offset"]) for x in after] == [("damaged_line", p, active.name, 4, 3)], after
    full = run_cli(store, "consume", topic, "--json", "--partition", p)
    assert [r["payload"]["value"] for r in map(json.loads, full.stdout.splitlines())][-1] == "after-the-tear"
    figures_line("torn tail, new producer", dict(produce_waited_s=round(produce_s, 2), check_before=problem_kinds(before),
                                                  check_after=problem_kinds(after)), capsys)


def JsonlTail_all(path):
    out = []
    JsonlTail(path).poll(out.append)
    return out


def test_torn_tail_with_live_producer(tmp_path, twainmq, capsys):
    """A producer that already has the file open when another writer leaves half
    a line must not glue its next message to that fragment (the message would be
    lost inside a damaged line although the producer reported it sent)."""
    store = tmp_path / "store"
    store.mkdir()
    topic = "torn"
    run_cli(store, "topics", "create", topic, "--key-type", "u32", "--partitions", 1)
    with Procs(tmp_path / "logs") as procs:
        prod = procs.start("live", cli_cmd(store, "produce", topic, "--jsonl"), stdin=subprocess.PIPE)
        prod.popen.stdin.write(b'{"key": 1, "payload": "live-1"}\n')
        prod.popen.stdin.flush()
        wait_until(lambda: list((store / topic).glob("*.tmf")) and _active_file(store, topic, 0).read_bytes().endswith(b"\n"),
                   20, "the first message")
        active = _active_file(store, topic, 0)
        with open(active, "ab") as f:
            f.write(_half_line(active))
        time.sleep(1.5)  # the fragment is old: a crash, not a write in progress
        prod.popen.stdin.write(b'{"key": 2, "payload": "live-2"}\n')
        prod.popen.stdin.close()
        assert prod.wait(30) == 0, prod.tail()
        assert "sent 2 messages" in prod.stderr_text()
    out = run_cli(store, "consume", topic, "--json")
    texts = [r["payload"]["value"] for r in map(json.loads, out.stdout.splitlines())]
    problems = check_store(store, topic=topic)
    figures_line("torn tail, live producer", dict(readable=texts, check=problem_kinds(problems)), capsys)
    assert texts == ["live-1", "live-2"], (
        f"the live producer reported 2 messages sent, but the log reads {texts}: its second message was glued "
        f"to the torn fragment ({active.name} ends {active.read_bytes()[-80:]!r})")


# --------------------------------------------------------------------------
# Group members killed and restarted.

GROUP = "crashers"
G_WINDOW = 1.0
G_COMMIT_EVERY = 25


def _member_takes(records):
    """{(member, partition): [allowed start offsets per take]}: each time a member's
    REBALCONFIRM includes a partition its previous one did not, it takes the
    partition and must start at its latest commit (as of the round's ENDREBAL, or
    a commit written between that and its confirm)."""
    takes = defaultdict(list)
    held = defaultdict(set)
    last_end = None
    round_ended = False
    for r in records:
        if r["type"] == "~~TWAIN~~BEGINREBAL":
            round_ended = False
        elif r["type"] == "~~TWAIN~~ENDREBAL" and not round_ended:
            last_end = r["offset"]  # the round's first ENDREBAL decides
            round_ended = True
        elif r["type"] == "~~TWAIN~~REBALCONFIRM":
            m = r["key"]
            now = set(r["fields"]["partitions"])
            for p in sorted(now - held[m]):
                at_end = commits_at(records, last_end if last_end is not None else r["offset"])
                allowed = {at_end.get(p, 0)}
                allowed |= {o for x in records if last_end is not None and last_end < x["offset"] < r["offset"]
                            and x["type"] == "~~TWAIN~~COMMIT" for q, o in x["fields"]["partition_offsets"] if q == p}
                takes[(m, p)].append(allowed)
            held[m] = now
    return takes


def test_group_member_sigkills(tmp_path, twainmq, capsys):
    rng = random.Random(SEED + 1)
    t0 = time.monotonic()
    store = tmp_path / "store"
    store.mkdir()
    topic = "gcrash"
    run_cli(store, "topics", "create", topic, "--key-type", "u32", "--partitions", PARTS)
    # every partition has a file before the members start
    seed_keys = keys_by_partition(PARTS, 2**32 - 1, 2, start=5)
    run_cli(store, "produce", topic, "--jsonl",
            input="".join(json.dumps({"key": k, "payload": f"seed-{k}"}) + "\n" for ks in seed_keys.values() for k in ks))
    produced = [f"seed-{k}" for ks in seed_keys.values() for k in ks]
    duration = MEMBER_KILLS * 1.5 + 2
    # chunks 0.12 s apart: members go idle between them (and flush what they printed),
    # so a kill usually leaves printed-but-uncommitted messages that the next owner re-reads
    chunk, pause = 10, 0.12
    n_msgs = int(duration / pause * chunk)
    items = [(rng.randrange(2**32), f"g-{i}") for i in range(n_msgs)]
    produced += [t for _, t in items]
    incarnations = []  # (slot, Proc, out_path)
    logs = tmp_path / "logs"
    with Procs(logs) as procs:

        def start_member(slot):
            k = len(incarnations)
            out = logs / f"member-{slot}-{k}.jsonl"
            p = procs.start(f"member-{slot}-{k}", cli_cmd(store, "consume", topic, "--group", GROUP, "--json", "--follow",
                                                          "--rebalance-window", G_WINDOW, "--commit-every", G_COMMIT_EVERY),
                            stdout_path=out)
            incarnations.append((slot, p, out))
            return p

        slots = []
        for i in range(2):  # one after the other (concurrent first joins: test_torture.py)
            slots.append(start_member(i))
            p = slots[-1]
            wait_until(lambda p=p: member_id_from_stderr(p), 20, lambda p=p: f"{p.name} to join\n{p.tail()}")
        feeder = PacedCliProducer(procs, "producer", store, topic, items, chunk=chunk, pause=pause)
        feeder.start()
        kills = 0
        while kills < MEMBER_KILLS:
            time.sleep(rng.uniform(0.6, 2.4))
            i = rng.randrange(2)
            kill_group(slots[i], signal.SIGKILL)
            kills += 1
            slots[i] = start_member(i)
            for j, p in enumerate(slots):
                if j != i:
                    assert p.alive(), f"{p.name} died\n{p.tail()}"
        feeder.join_checked(120)
        live_ids = [wait_until(lambda p=p: member_id_from_stderr(p), 20, lambda p=p: f"{p.name} to join\n{p.tail()}") for p in slots]
        wait_until(lambda: stable_round(describe(store, GROUP), live_ids, PARTS), 30, f"a settled round of members {live_ids}")

        def consumed():
            texts = Counter()
            for _, _, out in incarnations:
                recs = []
                JsonlTail(out).poll(recs.append)
                texts.update(r["payload"]["value"] for r in recs)
            return texts

        def all_consumed():
            got = consumed()
            return all(t in got for t in produced)

        def how_many_missing():
            got = consumed()
            return f"every message to be consumed: {sum(1 for t in produced if t not in got)} missing"

        wait_until(all_consumed, 120 if LONG else 60, how_many_missing, interval=0.3)
        for p in slots:
            p.signal_group(signal.SIGTERM)
        for p in slots:
            assert p.wait(30) == 0, p.tail()
        for _, p, _ in incarnations:
            no_panic(p.stderr_text(), p.name)

    log = {(r["partition"], r["offset"]): (r["key"], r["payload"]["value"])
           for r in map(json.loads, run_cli(store, "consume", topic, "--json").stdout.splitlines())}
    assert sorted(t for _, t in log.values()) == sorted(produced)
    records = read_group_log(twainmq, store, GROUP)
    takes = _member_takes(records)
    reads = Counter()
    bad_starts = []
    member_ids = []
    for slot, p, out in incarnations:
        mid = member_id_from_stderr(p)
        member_ids.append(mid)
        recs = []
        tail = JsonlTail(out)
        tail.poll(recs.append)
        assert not tail.bad, f"{p.name} printed a partial line in the middle: {tail.bad[:2]}"
        last = {}
        take_idx = defaultdict(int)
        for r in recs:
            pos = (r["partition"], r["offset"])
            assert log.get(pos) == (r["key"], r["payload"]["value"]), f"{p.name} read {r} which is not in the log at {pos}"
            reads[pos] += 1
            part, off = pos
            if last.get(part) is None or off != last[part] + 1:
                # a (re)start in this partition: it must be at a commit of one of this member's takes
                options = takes.get((mid, part), [])
                j = take_idx[part]
                while j < len(options) and off not in options[j]:
                    j += 1
                if j == len(options):
                    bad_starts.append(f"{p.name} (member {mid}) started partition {part} at offset {off}; "
                                      f"commits at its takes: {[sorted(a) for a in options]}")
                else:
                    take_idx[part] = j + 1
            last[part] = off
    missing = [pos for pos in log if pos not in reads]
    rereads = sum(c - 1 for c in reads.values())
    moves = sum(len(v) for v in takes.values())
    d = describe(store, GROUP)
    figures_line("crash group members", dict(
        scale=SCALE, kills=MEMBER_KILLS, incarnations=len(incarnations), member_ids=member_ids, messages=len(log),
        reads=sum(reads.values()), re_reads=rereads, partition_takes=moves,
        re_reads_per_take=round(rereads / max(1, moves), 1), commit_every=G_COMMIT_EVERY,
        rounds=len(d["rounds"]), group_records=d["records"], seconds=round(time.monotonic() - t0, 1)), capsys)
    assert not missing, f"{len(missing)} messages consumed by nobody, e.g. {missing[:5]}"
    assert not bad_starts, "members did not resume from commits:\n" + "\n".join(bad_starts[:10])
    ends = {row["partition"]: row["end"] for row in d["partitions"]}
    committed = {int(k): v for k, v in d["committed"].items()}
    assert committed == ends, f"after the last members stopped cleanly, commits {committed} != ends {ends}"
