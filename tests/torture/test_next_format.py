"""The format's next version (docs/FORMAT.md, Part 3) under crashes and races,
on the test machine's disk (ext4), a real ntfs-3g volume and real XFS and
btrfs volumes (the loop-device fixtures of test_ntfs.py and test_filesystems.py).

- Large messages: 4 of our producers (`produce --jsonl --json`, each message
  acknowledged once it is in the store) append small and large messages (up
  to 900 KB, hundreds of parts) to one partition at once, SIGKILLed at random
  points and started again; beside them two 0.2.3 producers write a plain
  topic of the same store (0.2.3 cannot open the extended one). Every
  acknowledged message reads back whole, once, in each producer's order; no
  message has a byte of another; `twainmq check` names exactly the torn
  messages a line-by-line reading of the files (here, in Python) finds: parts
  that start a message whose end never came.
- Key table: 8 producer processes add the same 300 keys (in different orders)
  to one table at once: one entry, so one id, per key, and every message
  reads back with its key.

- The same with our writers the Windows build under Wine (`make test-windows`
  runs it through scripts/windows/torture.sh): Wine's appends between
  processes are not atomic, so acknowledged messages can be overwritten there
  (counted, Wine's); what is read is still whole, once, in order, and check
  names every message started and never ended.

TORTURE_SCALE=short (`make torture-short`): 8 kills on ext4 and 4 on each
volume (and under Wine); long (`make torture`): 60 and 20.
"""

import base64
import json
import random
import signal
import subprocess
import threading
import time
import zlib
from pathlib import Path

import pytest

from torture_common import LONG, HERE, check_store, figures_line, kill_group, no_panic, read_all_to_file
from conftest import run_cli, twainmq  # noqa: F401  (fixture: asserts twainmq==0.2.3)
from group_helpers import Procs, cli_cmd

# The volumes: the same fixtures the other file-system tests use (imported as
# modules, so their tests are not collected here a second time).
import test_filesystems as _fs
import test_ntfs as _ntfs

ntfs = _ntfs.ntfs
volume = _fs.volume
place = _fs.place

WRITERS = 4
KILLS_EXT4 = 60 if LONG else 8
KILLS_VOLUME = 20 if LONG else 4
FINAL_BATCH = 12
PY_WRITER = HERE / "py_writer.py"
KEY_CHARS = 10  # a text key's id: a u64, 10 base85 characters


def body(w, inc, i, size):
    """The deterministic payload of message (writer, incarnation, index): a
    header naming it, then hex of a seeded random stream (deflate halves it)."""
    head = f"{w}:{inc}:{i}:{size}|"
    rng = random.Random(w * 1_000_003 + inc * 10_007 + i)
    n = max(0, size - len(head))
    return head + rng.randbytes((n + 1) // 2).hex()[:n]


def size_for(rng):
    r = rng.random()
    if r < 0.5:
        return rng.randint(50, 300)
    if r < 0.85:
        return rng.randint(5_000, 60_000)
    return rng.randint(200_000, 900_000)


class Incarnation:
    """One `produce --jsonl --json` process of writer `w`, fed by a thread;
    its acknowledgements (one JSON line a message, in order) in its stdout file."""

    def __init__(self, procs, store, topic, w, inc, limit=None, seed=0, cmd=cli_cmd):
        self.w, self.inc, self.limit = w, inc, limit
        self.sizes = []
        self.error = None
        self.proc = procs.start(f"w{w}-{inc}", cmd(store, "produce", topic, "--jsonl", "--json"), stdin=subprocess.PIPE)
        self.rng = random.Random(seed)
        self.thread = threading.Thread(target=self._feed, daemon=True)
        self.thread.start()

    def _feed(self):
        stdin = self.proc.popen.stdin
        i = 0
        try:
            while self.limit is None or i < self.limit:
                size = size_for(self.rng)
                self.sizes.append(size)
                line = json.dumps({"key": f"w{self.w}", "payload": body(self.w, self.inc, i, size)}) + "\n"
                stdin.write(line.encode())
                stdin.flush()
                i += 1
            stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass  # killed
        except Exception as e:  # pragma: no cover
            self.error = e

    def acked(self):
        """How many of its messages it acknowledged (wrote, whole, to the store)."""
        text = self.proc.stdout_path.read_text()
        lines = text.split("\n")
        # A line cut by the kill is no acknowledgement.
        return sum(1 for line in lines[:-1] if line.startswith("{"))


def parts_in_files(store, topic):
    """Read the partition's files line by line, as the format says: the offset
    of every start part whose message never got its end part."""
    files = sorted((store / topic).glob("0-*.tmf"), key=lambda p: int(p.stem.split("_")[1]))
    starts, ends = {}, set()
    for f in files:
        first = int(f.stem.split("_")[1])
        for n, line in enumerate(f.read_bytes().split(b"\n")[:-1]):
            blob = line[KEY_CHARS + 10:]
            try:
                data = zlib.decompress(base64.b85decode(blob), -15)
            except (ValueError, zlib.error):
                continue  # a line torn by a kill and ended by the next writer
            if data[:1] == b"\xf8":
                starts[data[1:9]] = first + n
            elif data[:1] == b"\xfa":
                ends.add(data[1:9])
    return sorted(o for mid, o in starts.items() if mid not in ends)


def large_messages_under_kills(store_parent, capsys, kills, tag, seed, writer_cmd=cli_cmd, wine=False):
    """`writer_cmd` makes our writers' commands (the Windows build under Wine for
    `wine`); everything else (0.2.3, the reading and the check) is the Linux side's."""
    rng = random.Random(seed)
    store = store_parent / "store"
    store.mkdir()
    topic = "big"
    run_cli(store, "topics", "create", topic, "--key-type", "text", "--large-messages")
    run_cli(store, "topics", "create", "plain023", "--key-type", "u32", "--partitions", "2")
    t0 = time.monotonic()
    incs = []
    with Procs(store_parent / "logs") as procs:
        # Two 0.2.3 producers on the plain topic, all along.
        go = store_parent / "go"
        py = []
        for k in range(2):
            ready, status = store_parent / f"ready{k}", store_parent / f"status{k}"
            py.append((status, procs.start(f"py{k}", [pytest_python(), PY_WRITER, store, "plain023", 100 + k, 3000, 0, 400, go, ready, status])))
        go.write_text(str(time.time()))
        slots = [Incarnation(procs, store, topic, w, 0, seed=rng.random(), cmd=writer_cmd) for w in range(WRITERS)]
        incs.extend(slots)
        next_inc = 1
        for _ in range(kills):
            time.sleep(rng.uniform(0.1, 0.6))
            w = rng.randrange(WRITERS)
            victim = slots[w]
            rc = kill_group(victim.proc, signal.SIGKILL)
            assert rc == -signal.SIGKILL, f"writer {w} had exited on its own ({rc}): {victim.proc.tail()}"
            victim.thread.join(10)
            slots[w] = Incarnation(procs, store, topic, w, next_inc, seed=rng.random(), cmd=writer_cmd)
            incs.append(slots[w])
            next_inc += 1
        # The last incarnations are stopped too, then each writer ends with a batch it finishes.
        for w in range(WRITERS):
            kill_group(slots[w].proc, signal.SIGKILL)
            slots[w].thread.join(10)
            slots[w] = Incarnation(procs, store, topic, w, next_inc, limit=FINAL_BATCH, seed=rng.random(), cmd=writer_cmd)
            incs.append(slots[w])
            next_inc += 1
        for s in slots:
            s.thread.join(120)
            assert s.proc.popen.wait(300) == 0, s.proc.tail()
            assert s.acked() == FINAL_BATCH
        for status, p in py:
            assert p.popen.wait(300) == 0, p.tail()
            assert json.loads(status.read_text())["written"] == 3000
        for s in incs:
            no_panic(s.proc.stderr_text(), s.proc.name)
            assert s.error is None, s.error
    elapsed = time.monotonic() - t0

    out = store_parent / "all.jsonl"
    read_err = read_all_to_file(store, topic, out)
    no_panic(read_err, "consume")
    got = [json.loads(line) for line in out.read_text().splitlines()]
    seen = {}
    order = {}
    for m in got:
        text = m["payload"]["value"]
        w, inc, i, size = map(int, text.split("|", 1)[0].split(":"))
        assert m["key"] == f"w{w}", f"message of writer {w} under key {m['key']!r}"
        assert text == body(w, inc, i, size), f"message {(w, inc, i)} of {size} bytes is not whole (a part of another?)"
        assert (w, inc, i) not in seen, f"message {(w, inc, i)} delivered twice (offsets {seen[(w, inc, i)]} and {m['offset']})"
        seen[(w, inc, i)] = m["offset"]
        # Each producer's order: incarnations one after another, indices in order.
        assert order.get(w, (-1, -1)) < (inc, i), f"writer {w}: {(inc, i)} after {order.get(w)}"
        order[w] = (inc, i)
    acked_total = 0
    lost = []
    for s in incs:
        acked = s.acked()
        acked_total += acked
        for i in range(acked):
            if (s.w, s.inc, i) not in seen:
                lost.append(f"acknowledged message {(s.w, s.inc, i)} ({s.sizes[i]} bytes) is missing")
    # Under Wine appends between processes are not atomic (docs/PLATFORMS.md: two writers land at
    # one end and one overwrites the other), so a part can be overwritten after its writer
    # acknowledged the message: that loss is Wine's, and counted. Everything read is still whole,
    # once, in order, and named by check; on Windows (FILE_APPEND_DATA) and every Linux file
    # system nothing acknowledged is lost.
    if not wine:
        assert not lost, lost[:5]
    # Offsets grow with the reading order (a message's offset is its end part's line).
    offsets = [m["offset"] for m in got]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)
    problems = check_store(store)
    kinds = {}
    for p in problems:
        kinds.setdefault(p["kind"], []).append(p)
    # Under Wine an overwritten part can also leave a message whose parts do not chain (broken).
    allowed = {"torn_message", "damaged_line", "unfinished_line"} | ({"broken_message"} if wine else set())
    assert set(kinds) <= allowed, f"unexpected problems: {problems[:5]}"
    torn = sorted(p["offset"] for p in kinds.get("torn_message", []))
    if not wine:
        assert torn == parts_in_files(store, topic), "check names exactly the messages the files hold started and never ended"
    else:
        # Every started message the files hold without its end is named (torn, or broken when
        # a later part of it was overwritten).
        named = set(torn) | {p["offset"] for p in kinds.get("broken_message", [])}
        assert set(parts_in_files(store, topic)) <= named, "check names every message the files hold started and never ended"
    plain = run_cli(store, "consume", "plain023", "--json").stdout.splitlines()
    assert len(plain) == 6000, "the 0.2.3 producers' messages, all there"
    large = sum(1 for m in got if len(m["payload"]["value"]) > 4096)
    figures_line(tag, {"kills": kills, "messages": len(got), "large": large, "acknowledged": acked_total, "acknowledged_lost": len(lost), "torn_messages": len(torn),
                       "damaged_lines": len(kinds.get("damaged_line", [])), "lines": offsets[-1] + 1 if offsets else 0,
                       "secs": round(elapsed, 1)}, capsys)


def pytest_python():
    import sys
    return sys.executable


def test_large_messages_under_sigkills_on_ext4(tmp_path, twainmq, capsys):  # noqa: F811
    large_messages_under_kills(tmp_path, capsys, KILLS_EXT4, "next-format large messages, SIGKILLs, ext4", 1)


def test_large_messages_under_sigkills_on_ntfs_3g(ntfs, tmp_path, twainmq, capsys):  # noqa: F811
    parent = ntfs / "large"
    parent.mkdir()
    large_messages_under_kills(parent, capsys, KILLS_VOLUME, "next-format large messages, SIGKILLs, ntfs-3g", 2)


def test_large_messages_under_sigkills_on_xfs_and_btrfs(volume, place, twainmq, capsys):  # noqa: F811
    large_messages_under_kills(place, capsys, KILLS_VOLUME, f"next-format large messages, SIGKILLs, {volume.fs}", 3)
    _fs._store_was_on(volume, place / "store")


def test_large_messages_under_sigkills_from_windows_writers_under_wine(tmp_path, twainmq, capsys):  # noqa: F811
    """Our writers are the Windows build, run under Wine (scripts/windows/torture.sh sets
    TWAINMQ_WINDOWS_EXE after building it, in `make test-windows`); the 0.2.3 producers, the
    reading and the check are the Linux side's, on the same store."""
    import os

    exe = os.environ.get("TWAINMQ_WINDOWS_EXE")
    if not exe:
        pytest.skip("the Windows build runs here only in make test-windows (scripts/windows/torture.sh)")
    wine = os.environ.get("TWAINMQ_WINE", "wine64")

    def windows_cmd(store, *args):
        return [wine, exe, "--store", str(store), *[str(a) for a in args]]

    large_messages_under_kills(tmp_path, capsys, KILLS_VOLUME, "next-format large messages, SIGKILLs, Windows writers under Wine", 4,
                               writer_cmd=windows_cmd, wine=True)


def key_table_race(store_parent, capsys, tag):
    store = store_parent / "keys-store"
    store.mkdir()
    run_cli(store, "topics", "create", "k", "--key-type", "any", "--partitions", "3")
    keys = [f"key-{i}" for i in range(150)] + [{"hex": f"{i:04x}"} for i in range(150)]
    procs_n = 8
    with Procs(store_parent / "key-logs") as procs:
        running = []
        for n in range(procs_n):
            order = list(keys)
            random.Random(n).shuffle(order)
            lines = "".join(json.dumps({"key": k, "payload": f"{n}:{json.dumps(k)}"}) + "\n" for k in order)
            p = procs.start(f"keys{n}", cli_cmd(store, "produce", "k", "--jsonl"), stdin=subprocess.PIPE)
            running.append((p, lines))
        # All at once: every process has its input before any is waited for.
        for p, lines in running:
            p.popen.stdin.write(lines.encode())
            p.popen.stdin.close()
        for p, _ in running:
            assert p.popen.wait(120) == 0, p.tail()
            no_panic(p.stderr_text(), p.name)
    table = (store / "k" / "keys.twk").read_bytes().split(b"\n")
    assert table[0] == b"twainmq key table 1"
    entries = [e for e in table[1:] if e]
    decoded = []
    for e in entries:
        raw = base64.b85decode(e)
        assert zlib.crc32(raw[:-4]) == int.from_bytes(raw[-4:], "big"), "a whole entry"
        decoded.append((raw[:1], raw[1:-4]))
    assert len(decoded) == len(set(decoded)) == len(keys), f"{len(decoded)} entries for {len(keys)} keys: one id per key"
    got = [json.loads(line) for line in run_cli(store, "consume", "k", "--json").stdout.splitlines()]
    assert len(got) == procs_n * len(keys)
    for m in got:
        n, k = m["payload"]["value"].split(":", 1)
        assert json.dumps(m["key"]) == k, "each message has its own key back"
    assert check_store(store) == []
    figures_line(tag, {"processes": procs_n, "keys": len(keys), "entries": len(decoded), "messages": len(got)}, capsys)


def test_eight_processes_racing_on_a_key_table_give_one_id_per_key(tmp_path, capsys):
    key_table_race(tmp_path, capsys, "next-format key table race, ext4")


def test_eight_processes_racing_on_a_key_table_on_ntfs_3g(ntfs, capsys):
    parent = ntfs / "keys"
    parent.mkdir()
    key_table_race(parent, capsys, "next-format key table race, ntfs-3g")
