"""Shared helpers for the torture suites (tests/torture/test_*.py).

They build on the interop helpers: tests/interop/conftest.py (running the CLI,
fixtures), tests/interop/group_helpers.py (process groups, group state) and
tests/interop/concurrent_writer.py (deterministic per-writer message plans).
Those files are imported, never copied.

Size: env TORTURE_SCALE = "short" (default, `make test`) or "long" (`make torture`).
"""

import json
import math
import os
import signal
import subprocess
import sys
import time
import zlib
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
INTEROP = HERE.parent / "interop"
for _p in (str(INTEROP), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import pytest  # noqa: E402

from conftest import base_env, cli_binary, run_cli  # noqa: E402  (tests/interop/conftest.py)
from concurrent_writer import KEY_STRIDE, parse_text, plan  # noqa: E402
from group_helpers import Procs, cli_cmd, describe, member_id_from_stderr, wait_until  # noqa: E402,F401

SCALE = os.environ.get("TORTURE_SCALE", "short").strip().lower()
if SCALE not in ("short", "long"):
    raise RuntimeError(f"TORTURE_SCALE must be short or long, not {SCALE!r}")
LONG = SCALE == "long"

CLOCK_ENV = "TWAINMQ_CLOCK_OFFSET_SECS"
PY_WRITER = HERE / "py_writer.py"
FEEDER = HERE / "feeder.py"
PANIC_WORDS = ("panicked", "RUST_BACKTRACE")


def figures_line(tag, figures, capsys=None):
    """Print one `[tag] {json}` line (through pytest's capture when capsys is given)."""
    text = f"\n[{tag}] {json.dumps(figures, sort_keys=False, default=str)}"
    if capsys is not None:
        with capsys.disabled():
            print(text, flush=True)
    else:  # pragma: no cover
        print(text, flush=True)


# --------------------------------------------------------------------------
# Clock: put UTC midnight a few seconds into the run.


def plan_rollover(seconds_from_now):
    """A clock offset that makes UTC midnight happen `seconds_from_now` seconds
    from now (real time). Returns (offset_seconds, real_time_of_midnight,
    day_before 'YYYYMMDD', day_after 'YYYYMMDD')."""
    t_roll = time.time() + seconds_from_now
    midnight = (math.floor(t_roll / 86400) + 1) * 86400
    offset = midnight - t_roll
    before = datetime.fromtimestamp(midnight - 1, tz=timezone.utc).strftime("%Y%m%d")
    after = datetime.fromtimestamp(midnight, tz=timezone.utc).strftime("%Y%m%d")
    return offset, t_roll, before, after


def noon_offset():
    """A clock offset that puts the CLI's clock at 12:00 UTC of today: far from
    any midnight, so the day in file names is known."""
    now = time.time()
    noon = math.floor(now / 86400) * 86400 + 43200
    day = datetime.fromtimestamp(noon, tz=timezone.utc).strftime("%Y%m%d")
    return noon - now, day


def env_with_offset(offset):
    env = base_env()
    env[CLOCK_ENV] = repr(float(offset))
    return env


def release_writers(go_file, wprocs, ready_files, t_go_planned, t_roll, ready_timeout, margin):
    """Wait until every writer process is alive and has written its ready file,
    sleep until the planned GO time, then publish GO (the real time, written
    whole by a rename) in `go_file`. Fails when a writer died or when set-up
    left less than `margin` seconds before midnight. Returns the GO time."""
    def ready():
        for w, p in wprocs.items():
            if not p.alive():
                pytest.fail(f"writer {w} died before GO\n{p.tail()}")
        return all(f.exists() for f in ready_files)

    wait_until(ready, ready_timeout, "the writers to get ready")
    now = time.time()
    if now < t_go_planned:
        time.sleep(t_go_planned - now)
    t_go = time.time()
    assert t_go < t_roll - margin, f"set-up took too long: GO at {t_go - t_roll:+.1f} s from midnight"
    tmp = go_file.with_name(go_file.name + ".tmp")
    tmp.write_text(repr(t_go))
    os.replace(tmp, go_file)
    return t_go


# --------------------------------------------------------------------------
# Expected messages: one writer's plan is concurrent_writer.plan(writer, n).
# A message is identified by its key (writer * KEY_STRIDE + seq); its text
# starts with "w<writer>:s<seq>:". Only CRCs are kept in memory.


class Expected:
    def __init__(self, writers):
        """writers: {writer_id: message_count}"""
        self.crc = {}
        self.count = {}
        for w, n in writers.items():
            self.crc[w] = [zlib.crc32(text.encode("utf-8")) for _seq, _key, text in plan(w, n)]
            self.count[w] = n

    def keys(self, limits=None):
        """Every expected key; `limits` {writer: written} narrows a writer to its first messages."""
        out = set()
        for w, n in self.count.items():
            n = min(n, limits.get(w, n)) if limits else n
            out.update(w * KEY_STRIDE + s for s in range(n))
        return out

    def total(self, limits=None):
        return sum(min(n, limits.get(w, n)) if limits else n for w, n in self.count.items())

    def identify(self, rec):
        """(writer, seq) of a CLI JSON record, or raise ValueError if the record
        is not exactly one planned message (torn, altered, unknown, mismatched key)."""
        payload = rec.get("payload")
        if not isinstance(payload, dict) or payload.get("type") != "str" or not isinstance(payload.get("value"), str):
            raise ValueError(f"payload is not text: {str(payload)[:200]}")
        text = payload["value"]
        try:
            w, seq = parse_text(text)
        except Exception as e:
            raise ValueError(f"payload is not a planned message ({e}): {text[:120]!r}") from None
        crcs = self.crc.get(w)
        if crcs is None or not 0 <= seq < len(crcs):
            raise ValueError(f"unknown message w{w}:s{seq}")
        if zlib.crc32(text.encode("utf-8")) != crcs[seq]:
            raise ValueError(f"w{w}:s{seq}: payload differs from what was sent ({len(text)} chars)")
        if rec.get("key") != w * KEY_STRIDE + seq:
            raise ValueError(f"w{w}:s{seq}: key {rec.get('key')} instead of {w * KEY_STRIDE + seq}")
        return w, seq


class JsonlTail:
    """Reads a JSON-lines file another process is still writing, incrementally:
    only complete lines (ending in a newline) are parsed. `bad` collects lines
    that are not JSON objects (a reader printed half a line)."""

    def __init__(self, path):
        self.path = Path(path)
        self.pos = 0
        self.rest = b""
        self.lines = 0
        self.bad = []

    def poll(self, on_record):
        """Parse new complete lines, calling on_record(dict) for each. Returns how many."""
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read()
        except FileNotFoundError:
            return 0
        if not data:
            return 0
        self.pos += len(data)
        data = self.rest + data
        cut = data.rfind(b"\n")
        if cut < 0:
            self.rest = data
            return 0
        self.rest = data[cut + 1 :]
        n = 0
        for raw in data[:cut].split(b"\n"):
            if not raw.strip():
                continue
            self.lines += 1
            try:
                obj = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                self.bad.append(raw[:300])
                continue
            if not isinstance(obj, dict):
                self.bad.append(raw[:300])
                continue
            on_record(obj)
            n += 1
        return n


class Consumed:
    """What one reader printed: keys seen (with counts), records that are not
    planned messages, and (partition, offset) pairs."""

    def __init__(self, expected, path, keep_positions=False):
        self.expected = expected
        self.tail = JsonlTail(path)
        self.keys = Counter()
        self.invalid = []
        self.keep_positions = keep_positions
        self.records = []  # (partition, offset, key) when keep_positions

    def _on(self, rec):
        try:
            w, seq = self.expected.identify(rec)
        except ValueError as e:
            self.invalid.append(str(e))
            return
        key = w * KEY_STRIDE + seq
        self.keys[key] += 1
        if self.keep_positions:
            self.records.append((rec["partition"], rec["offset"], key))

    def poll(self):
        return self.tail.poll(self._on)


def union_keys(consumed_list):
    out = Counter()
    for c in consumed_list:
        out.update(c.keys)
    return out


# --------------------------------------------------------------------------
# The CLI.


def check_store(store, env=None, topic=None):
    """`twainmq check [--json]`: the list of problems (exit 0 = none, 1 = some)."""
    args = ["check"] + ([topic] if topic else []) + ["--json"]
    proc = run_cli(store, *args, check=False, env=env)
    assert proc.returncode in (0, 1), f"check exited {proc.returncode}: {proc.stderr[-2000:]}"
    try:
        problems = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"check --json printed no JSON: {proc.stdout[:1000]!r} / {proc.stderr[-1000:]!r}")
    assert (proc.returncode == 1) == bool(problems), f"check exit {proc.returncode} with {len(problems)} problems"
    return problems


def problem_kinds(problems):
    return dict(Counter(p["kind"] for p in problems))


def no_panic(text, what):
    for w in PANIC_WORDS:
        assert w not in text, f"{what}: the CLI panicked:\n{text[-3000:]}"


def read_all_to_file(store, topic, out_path, env=None, timeout=900):
    """`consume TOPIC --json` from the start into a file (logs can be too big for memory). Returns stderr."""
    err_path = Path(str(out_path) + ".err")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.run(
            [str(cli_binary()), "--store", str(store), "consume", topic, "--json"],
            stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env or base_env(), timeout=timeout,
        )
    stderr = err_path.read_text(encoding="utf-8", errors="replace")
    assert proc.returncode == 0, f"consume {topic} exited {proc.returncode}: {stderr[-3000:]}"
    data_end = Path(out_path).read_bytes()[-1:] if Path(out_path).stat().st_size else b"\n"
    assert data_end == b"\n", "consume printed a last line without its newline"
    return stderr


def warnings_of(stderr):
    return [l for l in stderr.splitlines() if l.lower().startswith("warning") or " warn " in l.lower() or "WARN" in l]


def kill_group(proc, sig=signal.SIGKILL):
    """Signal a Procs entry's process group; wait for it."""
    proc.signal_group(sig)
    try:
        return proc.popen.wait(timeout=20)
    except subprocess.TimeoutExpired:  # pragma: no cover
        proc.signal_group(signal.SIGKILL)
        return proc.popen.wait(timeout=20)


def partition_files(store, topic):
    """{partition: [(day, first, name)]} of a topic folder."""
    out = {}
    for f in sorted((Path(store) / topic).iterdir()):
        stem = f.name[:-4] if f.name.endswith(".tmf") else None
        if stem is None:
            continue
        p, rest = stem.split("-", 1)
        day, first = rest.split("_", 1)
        out.setdefault(int(p), []).append((day, int(first), f.name))
    return out


def snapshot(root):
    """Every entry under root without following links: dirs, file contents, and
    links (by target). For byte-for-byte 'nothing changed' checks on stores with links."""
    root = Path(root)
    if not root.exists():
        return None
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        snap[("dir", rel)] = None
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if p.is_symlink():
                snap[("link", os.path.relpath(p, root))] = os.readlink(p)
            elif name in filenames:
                snap[("file", os.path.relpath(p, root))] = p.read_bytes()
    return snap


def snapshot_diff(before, after):
    if before is None or after is None:
        return f"before exists={before is not None}, after exists={after is not None}"
    added = sorted(k[1] for k in after.keys() - before.keys())
    removed = sorted(k[1] for k in before.keys() - after.keys())
    changed = sorted(k[1] for k in before.keys() & after.keys() if before[k] != after[k])
    return f"added={added} removed={removed} changed={changed}"


# --------------------------------------------------------------------------
# Hostile stores (test_hostile.py): lines made by hand, and "nothing changed"
# checks that never open anything but small regular files (a snapshot() of a
# store holding a FIFO would hang, one holding a 64 GiB sparse file would read it).


def encode_line(key, payload, key_width=4, ts=1_796_000_000.0):
    """One TwainMQ line, newline included, as 0.2.3 writes it (FORMAT.md).
    payload: str (text), bytes (0xFC + bytes) or (type_id, fields) (a typed
    record: 0xFB, the 2-byte id, compact JSON). Unsigned int keys only."""
    import base64
    import struct

    if isinstance(payload, str):
        body = payload.encode("utf-8")
    elif isinstance(payload, bytes):
        body = b"\xfc" + payload
    else:
        type_id, fields = payload
        body = b"\xfb" + type_id.to_bytes(2, "big") + json.dumps(fields, separators=(",", ":")).encode("utf-8")
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    blob = deflate.compress(body) + deflate.flush()
    line = (base64.b85encode(key.to_bytes(key_width, "big")) + base64.b85encode(struct.pack("!d", ts))
            + base64.b85encode(blob) + b"\n")
    return line


def stat_snapshot(root, hash_limit=1 << 20):
    """{relative path: (kind, size, mtime_ns, crc or None)} of every entry under
    root, without following links and without opening anything but regular
    files of at most hash_limit bytes (FIFOs, devices and huge files are
    compared by their metadata only). A link records its target."""
    root = Path(root)
    snap = {}
    if not os.path.lexists(root):
        return snap
    stack = [root]
    while stack:
        d = stack.pop()
        for entry in sorted(os.scandir(d), key=lambda e: e.name):
            st = entry.stat(follow_symlinks=False)
            rel = os.path.relpath(entry.path, root)
            import stat as _stat

            if _stat.S_ISLNK(st.st_mode):
                snap[rel] = ("link", os.readlink(entry.path), st.st_mtime_ns, None)
            elif _stat.S_ISDIR(st.st_mode):
                snap[rel] = ("dir", None, None, None)
                stack.append(Path(entry.path))
            elif _stat.S_ISREG(st.st_mode):
                crc = None
                if st.st_size <= hash_limit:
                    with open(entry.path, "rb") as f:
                        crc = zlib.crc32(f.read())
                snap[rel] = ("file", st.st_size, st.st_mtime_ns, crc)
            else:
                snap[rel] = (f"special:{_stat.S_IFMT(st.st_mode):o}", None, st.st_mtime_ns, None)
    return snap


def stat_snapshot_diff(before, after):
    added = sorted(after.keys() - before.keys())
    removed = sorted(before.keys() - after.keys())
    changed = sorted(k for k in before.keys() & after.keys() if before[k] != after[k])
    return f"added={added} removed={removed} changed={changed}"


def run_bounded(cmd, timeout, env=None, stdin_bytes=None, out_dir=None, name="cmd", keep=64 * 1024):
    """Run a command with a time limit in its own session (killed with its whole
    process group when the limit passes). stdout/stderr go to files in out_dir
    (a hostile store can make a command print gigabytes); returns a dict with
    rc (None on timeout, negative for a signal), seconds, timed_out, the last
    `keep` bytes of stdout/stderr as text, their sizes and paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    out_path, err_path = out_dir / f"{name}.out", out_dir / f"{name}.err"
    t0 = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        popen = subprocess.Popen([str(c) for c in cmd], stdout=out, stderr=err,
                                 stdin=subprocess.PIPE if stdin_bytes is not None else subprocess.DEVNULL,
                                 env=env or base_env(), start_new_session=True)
        timed_out = False
        try:
            if stdin_bytes is not None:
                try:
                    popen.stdin.write(stdin_bytes)
                    popen.stdin.close()
                except BrokenPipeError:
                    pass
            popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(popen.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            popen.wait(timeout=30)

    def tail(p):
        size = p.stat().st_size
        with open(p, "rb") as f:
            f.seek(max(0, size - keep))
            return f.read().decode("utf-8", errors="replace"), size

    stdout, out_size = tail(out_path)
    stderr, err_size = tail(err_path)
    return dict(cmd=[str(c) for c in cmd], rc=None if timed_out else popen.returncode, timed_out=timed_out,
                seconds=round(time.monotonic() - t0, 2), stdout=stdout, stderr=stderr,
                stdout_bytes=out_size, stderr_bytes=err_size, stdout_path=str(out_path), stderr_path=str(err_path))


def file_contains(path, needles, chunk=1 << 22):
    """The needles (bytes) found anywhere in a file, read in chunks."""
    found = set()
    longest = max((len(n) for n in needles), default=0)
    prev = b""
    with open(path, "rb") as f:
        while True:
            data = f.read(chunk)
            if not data:
                break
            window = prev + data
            found.update(n for n in needles if n in window)
            prev = window[-longest:] if longest else b""
    return found
