"""Helpers for the consumer-group interop tests (test_groups_*.py).

Background processes (our CLI members, 0.2.3 members and producers) are started
in their own process groups and tracked by a `Procs` set, which kills every
group still alive when the test ends, whether it passed or failed.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import base_env, cli_binary, run_cli

# --------------------------------------------------------------------------
# Scripts run by the venv's Python (twainmq 0.2.3) in subprocesses.

PY_MEMBER_SCRIPT = r'''
"""A twainmq 0.2.3 group member: polls, logs what it reads, commits, rebalances on request."""
import json, os, signal, sys, time
from datetime import timedelta

import twainmq
import twainmq.consumer
from twainmq.encoding import partition_hash64

(store, topic, group, window, out_path, status_path, flag_path, commit_every) = sys.argv[1:9]
window = float(window)
commit_every = int(commit_every)
# Shorten 0.2.3's 60 s round window (the module constant the consumer reads).
twainmq.consumer.REBAL_LENGTH = timedelta(seconds=window)


# 0.2.3 takes a partition line still being written (no newline yet: on Linux a reader can see
# an append half done) for a whole one and dies decoding it ("unpack requires a buffer of 8
# bytes"; docs/FORMAT.md, "0.2.3's defects"). These tests are about the group protocol between
# 0.2.3 and us, so this 0.2.3 member reads partition files as a fixed 0.2.3 would: a line
# without its newline is put back and read again once whole.
class WholeLines:
    def __init__(self, f):
        self._f = f

    def readline(self):
        pos = self._f.tell()
        line = self._f.readline()
        if line and not line.endswith("\n"):
            self._f.seek(pos)
            return ""
        return line

    def __getattr__(self, name):
        return getattr(self._f, name)


_seek_active_file = twainmq.consumer.TwainMQConsumerlet._seek_active_file


def seek_whole_lines(self, *args, **kwargs):
    result = _seek_active_file(self, *args, **kwargs)
    f = self._current_file_handle
    if f is not None and not isinstance(f, WholeLines):
        self._current_file_handle = WholeLines(f)
    return result


twainmq.consumer.TwainMQConsumerlet._seek_active_file = seek_whole_lines

stop = False


def on_term(signum, frame):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
signal.signal(signal.SIGINT, on_term)


def status(**kw):
    tmp = status_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(kw, f)
    os.replace(tmp, status_path)


tmq = twainmq.Twain(store)
c = tmq.consumer(topic, group=group)
n_parts = c._n_partitions
status(id=c._consumer_id, pid=os.getpid(), state="running", triggered=0)
out = open(out_path, "a", encoding="utf-8")
count = since = triggered = 0
last_flag = 0.0
while not stop:
    m = c.poll()
    if m is None:
        out.flush()
        time.sleep(0.003)
    else:
        # 0.2.3's Message has no partition: the partitioner tells it.
        out.write(json.dumps({"partition": partition_hash64(m.key, n_parts), "offset": m.offset,
                              "key": m.key, "payload": m.message}) + "\n")
        count += 1
        since += 1
        if since >= commit_every:
            out.flush()  # what is committed has been written out first (at-least-once)
            c.commit()
            since = 0
    now = time.monotonic()
    if now - last_flag > 0.05:
        last_flag = now
        if os.path.exists(flag_path):
            os.remove(flag_path)
            c.trigger_rebal()
            triggered += 1
            status(id=c._consumer_id, pid=os.getpid(), state="running", triggered=triggered)
out.flush()
c.commit()
out.close()
status(id=c._consumer_id, pid=os.getpid(), state="exited", triggered=triggered,
       partitions=sorted(c._partitions), count=count)
'''

PY_PRODUCER_SCRIPT = r'''
"""A twainmq 0.2.3 producer: writes `count` text messages `<prefix>-<i>` with seeded random keys."""
import random, sys, time
import twainmq

store, topic, prefix, count, delay, seed, key_max = sys.argv[1:8]
rng = random.Random(int(seed))
tmq = twainmq.Twain(store)
p = tmq.producer(topic)
delay = float(delay)
for i in range(int(count)):
    p.write_message(rng.randrange(int(key_max) + 1), f"{prefix}-{i}")
    if delay:
        time.sleep(delay)
p.close()
'''


def write_scripts(dirpath):
    """Write the helper scripts into dirpath; returns (member_script, producer_script)."""
    d = Path(dirpath)
    d.mkdir(parents=True, exist_ok=True)
    member = d / "py023_member.py"
    member.write_text(PY_MEMBER_SCRIPT, encoding="utf-8")
    producer = d / "py023_producer.py"
    producer.write_text(PY_PRODUCER_SCRIPT, encoding="utf-8")
    return member, producer


# --------------------------------------------------------------------------
# Background processes.


class Proc:
    def __init__(self, name, popen, stdout_path, stderr_path):
        self.name = name
        self.popen = popen
        self.stdout_path = Path(stdout_path) if stdout_path else None
        self.stderr_path = Path(stderr_path) if stderr_path else None

    @property
    def pid(self):
        return self.popen.pid

    def alive(self):
        return self.popen.poll() is None

    def signal_group(self, sig):
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, sig)
            except ProcessLookupError:
                pass

    def wait(self, timeout):
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{self.name} (pid {self.pid}) did not exit within {timeout} s\n{self.tail()}")

    def stderr_text(self):
        if self.stderr_path and self.stderr_path.exists():
            return self.stderr_path.read_text(encoding="utf-8", errors="replace")
        return ""

    def tail(self, n=3000):
        return f"--- {self.name} stderr ---\n{self.stderr_text()[-n:]}"


class Procs:
    """Tracks background processes; `close()` SIGKILLs every process group still alive."""

    def __init__(self, logdir):
        self.logdir = Path(logdir)
        self.logdir.mkdir(parents=True, exist_ok=True)
        self.procs = []

    def start(self, name, cmd, stdout_path=None, stdin=None, env=None):
        stdout_path = Path(stdout_path) if stdout_path else self.logdir / f"{name}.out"
        stderr_path = self.logdir / f"{name}.err"
        out = open(stdout_path, "ab")
        err = open(stderr_path, "ab")
        try:
            popen = subprocess.Popen(
                [str(c) for c in cmd],
                stdout=out,
                stderr=err,
                stdin=stdin if stdin is not None else subprocess.DEVNULL,
                env=env or base_env(),
                start_new_session=True,  # own process group: killpg reaches every child
            )
        finally:
            out.close()
            err.close()
        p = Proc(name, popen, stdout_path, stderr_path)
        self.procs.append(p)
        return p

    def close(self):
        for p in self.procs:
            p.signal_group(signal.SIGKILL)
        for p in self.procs:
            try:
                p.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
            if p.popen.stdin:
                try:
                    p.popen.stdin.close()
                except OSError:
                    pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def cli_cmd(store, *args):
    return [str(cli_binary()), "--store", str(store), *[str(a) for a in args]]


# --------------------------------------------------------------------------
# Reading outputs and group state.


def read_jsonl_file(path):
    """JSON lines of a file another process may still be writing: a last line
    without its newline is not complete yet and is ignored."""
    path = Path(path)
    if not path.exists():
        return []
    data = path.read_bytes()
    if not data:
        return []
    lines = data.split(b"\n")
    complete = lines[:-1]  # the piece after the last newline is unfinished (or empty)
    out = []
    for i, line in enumerate(complete):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as e:
            pytest.fail(f"{path}: line {i} is not JSON ({e}): {line[:300]!r}")
    return out


def describe(store, group):
    proc = run_cli(store, "groups", "describe", group, "--json")
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        pytest.fail(f"groups describe --json did not print JSON ({e}): {proc.stdout[:2000]!r}")


def wait_until(pred, timeout, what, interval=0.1):
    """Poll pred() until it returns a truthy value; fail with `what` on timeout."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = pred()
        except AssertionError as e:  # a predicate may assert to explain itself
            last = None
            err = e
        else:
            err = None
        if last:
            return last
        if time.monotonic() > deadline:
            extra = f": {err}" if err else ""
            msg = what() if callable(what) else what
            pytest.fail(f"timed out after {timeout} s waiting for {msg}{extra}")
        time.sleep(interval)


def ended_rounds(desc):
    return [r for r in desc["rounds"] if r.get("ended_at") is not None]


def stable_round(desc, member_ids, partitions):
    """The last ended round if the group is settled: no round open, the last
    ended round's assignment covers exactly `member_ids`, and each of them
    confirmed it. Else None."""
    if desc.get("open_round") is not None:
        return None
    ended = ended_rounds(desc)
    if not ended:
        return None
    last = ended[-1]
    assignment = {int(k): v for k, v in last["assignment"].items()}
    confirms = {int(k): v for k, v in last["confirms"].items()}
    if set(assignment) != set(member_ids):
        return None
    if not set(member_ids) <= set(confirms):
        return None
    covered = sorted(p for ps in assignment.values() for p in ps)
    if covered != list(range(partitions)):
        return None
    return last


def read_group_log(twainmq_mod, store, group):
    """Every record of the group log via 0.2.3's reader (a standalone consumer on
    `--group--<group>`): list of dicts offset, key, type, fields."""
    import dataclasses

    tmq = twainmq_mod.Twain(str(store))
    con = tmq.consumer(f"--group--{group}", start_from="start")
    out = []
    while (m := con.poll()) is not None:
        msg = m.message
        assert dataclasses.is_dataclass(msg), f"group record {m.offset} is not a typed record: {msg!r}"
        fields = {f.name: getattr(msg, f.name) for f in dataclasses.fields(msg)}
        out.append({"offset": m.offset, "key": m.key, "type": type(msg).__message_type__, "fields": fields})
    return out


def commits_at(records, upto_offset):
    """Committed offset per partition after applying every COMMIT at offset <= upto_offset."""
    c = {}
    for r in records:
        if r["offset"] > upto_offset:
            break
        if r["type"] == "~~TWAIN~~COMMIT":
            for p, o in r["fields"]["partition_offsets"]:
                c[int(p)] = int(o)
    return c


def keys_by_partition(n_partitions, key_max, per_partition, start=1):
    """Integer keys grouped by the partition 0.2.3's partitioner sends them to."""
    from twainmq.encoding import partition_hash64

    out = {p: [] for p in range(n_partitions)}
    k = start
    while any(len(v) < per_partition for v in out.values()):
        assert k <= key_max
        p = partition_hash64(k, n_partitions)
        if len(out[p]) < per_partition:
            out[p].append(k)
        k += 1
    return out


# --------------------------------------------------------------------------
# Producing.


class PacedCliProducer(threading.Thread):
    """Feeds `produce TOPIC --jsonl` on stdin in chunks with pauses, so messages
    trickle in while members run."""

    def __init__(self, procs, name, store, topic, items, chunk=50, pause=0.05):
        super().__init__(daemon=True)
        self.items = items  # list of (key, text)
        self.chunk = chunk
        self.pause = pause
        self.proc = procs.start(name, cli_cmd(store, "produce", topic, "--jsonl"), stdin=subprocess.PIPE)
        self.error = None

    def run(self):
        try:
            stdin = self.proc.popen.stdin
            for i in range(0, len(self.items), self.chunk):
                block = "".join(json.dumps({"key": k, "payload": t}) + "\n" for k, t in self.items[i : i + self.chunk])
                stdin.write(block.encode("utf-8"))
                stdin.flush()
                time.sleep(self.pause)
            stdin.close()
        except Exception as e:  # pragma: no cover - reported by join_checked
            self.error = e

    def join_checked(self, timeout):
        self.join(timeout)
        assert not self.is_alive(), f"{self.proc.name} still feeding after {timeout} s"
        assert self.error is None, f"{self.proc.name}: {self.error!r}"
        rc = self.proc.wait(timeout)
        assert rc == 0, f"{self.proc.name} exited {rc}\n{self.proc.tail()}"


def py_producer_items(prefix, count, seed, key_max):
    """The (key, text) pairs PY_PRODUCER_SCRIPT writes for these arguments."""
    import random

    rng = random.Random(seed)
    return [(rng.randrange(key_max + 1), f"{prefix}-{i}") for i in range(count)]


def start_py_producer(procs, name, script, store, topic, prefix, count, delay, seed, key_max):
    return procs.start(
        name, [sys.executable, script, store, topic, prefix, count, delay, seed, key_max]
    )


def start_py_member(procs, name, script, store, topic, group, window, out_path, status_path, flag_path, commit_every):
    return procs.start(
        name,
        [sys.executable, script, store, topic, group, window, out_path, status_path, flag_path, commit_every],
    )


def read_status(path):
    try:
        return json.loads(Path(path).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def member_id_from_stderr(proc):
    """Our CLI member's id from its `joined group G as member ID` line, or None yet."""
    for line in proc.stderr_text().splitlines():
        if "joined group" in line and "as member" in line:
            return int(line.rsplit("as member", 1)[1].split()[0])
    return None
