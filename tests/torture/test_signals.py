"""Signals, FIFOs and endless inputs (engine round 3, items 5, 6, 8 and 9): every
command answers SIGINT and SIGTERM within a second, never blocks opening a FIFO,
writes what it read before it stops (and says so), and reads a CSV row or a
JSONL line only up to the row limit, in bounded memory.
"""

import json
import os
import signal
import sys
import subprocess
import time

import pytest

from torture_common import base_env, cli_cmd, no_panic, run_cli

ANSWER = 1.0  # seconds a command may take to stop once signalled


@pytest.fixture
def store(tmp_path):
    s = tmp_path / "store"
    s.mkdir()
    run_cli(s, "topics", "create", "t", "--key-type", "u32", "--partitions", "2")
    return s


def start(store, *args, stdin=subprocess.DEVNULL, env=None):
    return subprocess.Popen(cli_cmd(store, *args), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env or base_env())


def stop_within(proc, sig, what, after=0.8):
    """Send `sig` after `after` s (the command still running then) and wait at
    most ANSWER for it to exit. Returns (returncode, stderr)."""
    time.sleep(after)
    assert proc.poll() is None, f"{what}: exited before the signal: {proc.stderr.read().decode()[-800:]}"
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        proc.wait(timeout=ANSWER + 2)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"{what}: still running {ANSWER + 2} s after {signal.Signals(sig).name}")
    took = time.monotonic() - sent
    err = proc.stderr.read().decode("utf-8", "replace")
    no_panic(err, what)
    assert took <= ANSWER, f"{what}: took {took:.2f} s to stop after {signal.Signals(sig).name}"
    return proc.returncode, err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_import_of_dev_zero_answers_a_signal(store, sig):
    """An endless JSONL line (as CSV, the row limit stops it first: below)."""
    proc = start(store, "import", "t", "/dev/zero", "--format", "jsonl", "--dry-run")
    rc, err = stop_within(proc, sig, "import /dev/zero")
    assert rc != 0 and "interrupted" in err.lower(), err[-800:]


def test_csv_from_dev_zero_stops_at_the_row_limit_in_bounded_memory(store):
    """/dev/zero as CSV: one endless cell. It stops at 64 MiB, with the reason,
    and memory stays far below what the bytes read would take."""
    proc = start(store, "import", "t", "/dev/zero", "--format", "csv")
    peak = 0
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        peak = max(peak, int(line.split()[1]) * 1024)
        except OSError:
            pass
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
        pytest.fail("import of /dev/zero as CSV ran for 60 s")
    err = proc.stderr.read().decode()
    no_panic(err, "csv /dev/zero")
    assert proc.returncode != 0 and "64 MiB" in err, err[-800:]
    assert peak < 400 << 20, f"peak RSS {peak >> 20} MiB"


def test_import_from_a_fifo_with_no_writer_answers_a_signal(store, tmp_path):
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    proc = start(store, "import", "t", fifo)
    rc, err = stop_within(proc, signal.SIGTERM, "import from a FIFO nobody writes")
    assert rc != 0, err


def test_export_to_a_fifo_with_no_reader_answers_a_signal(store, tmp_path):
    run_cli(store, "produce", "t", "--key", "1", "x")
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    proc = start(store, "export", "t", "-o", fifo)
    rc, err = stop_within(proc, signal.SIGTERM, "export to a FIFO nobody reads")
    assert rc != 0 and "interrupted" in err, err[-800:]


def test_a_fifo_at_the_index_caches_path_does_not_hang_consume(store, tmp_path):
    run_cli(store, "produce", "t", "--key", "1", "x")
    cache = tmp_path / "cache"
    cache.mkdir()
    env = base_env()
    env["TWAINMQ_INDEX_CACHE"] = str(cache)
    # The cache file's name is the store's; put a FIFO at every name it could take.
    run_cli(store, "topics", "describe", "t", env=env)
    names = [p.name for p in cache.iterdir()]
    assert names, "the cache wrote its file"
    for n in names:
        (cache / n).unlink()
        os.mkfifo(cache / n)
    done = subprocess.run(cli_cmd(store, "consume", "t", "--json"), capture_output=True, env=env, timeout=20)
    assert done.returncode == 0, done.stderr.decode()[-800:]
    assert len(done.stdout.splitlines()) == 1


def test_a_signal_during_a_slow_import_writes_every_line_read(store):
    """Lines come slowly from a pipe; SIGTERM midway: every line the import
    read is written (none read and dropped), and it says how many."""
    proc = start(store, "import", "t", "-", "--json", stdin=subprocess.PIPE)
    sent = 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < 1.5:
        for _ in range(200):
            proc.stdin.write((json.dumps({"key": sent, "payload": f"m{sent}"}) + "\n").encode())
            sent += 1
        proc.stdin.flush()
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("import from a pipe did not stop on SIGTERM")
    assert time.monotonic() - signalled <= ANSWER
    err = proc.stderr.read().decode()
    no_panic(err, "slow import")
    written = [json.loads(l) for l in run_cli(store, "consume", "t", "--json").stdout.splitlines() if l.strip()]
    keys = sorted(m["key"] for m in written)
    assert keys == list(range(len(keys))), "the lines written are the first ones read, none skipped"
    assert len(keys) > 1000, len(keys)
    assert f"{len(keys)} messages written" in err, err[-800:]
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass


def test_a_relative_index_cache_inside_the_store_is_not_used_and_said(store):
    """TWAINMQ_INDEX_CACHE=cache run from inside the store would put the cache in it."""
    run_cli(store, "produce", "t", "--key", "1", "x")
    env = base_env()
    env["TWAINMQ_INDEX_CACHE"] = "cache"
    before = sorted(p.name for p in store.iterdir())
    done = subprocess.run(cli_cmd(store, "topics", "describe", "t"), capture_output=True, env=env, cwd=store, timeout=20)
    assert done.returncode == 0, done.stderr.decode()
    assert "inside the store" in done.stderr.decode()
    assert sorted(p.name for p in store.iterdir()) == before, "nothing written in the store"


# Runs argv[1:] and writes its peak RSS (KiB) last on stderr; exits with its code.
PEAK_RSS = """
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(p.pid, 0)
sys.stderr.write(f"\\nmaxrss={usage.ru_maxrss}\\n")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def test_search_count_and_limit_keep_memory_flat(store, tmp_path):
    """`search --count` keeps no hit and `--limit N` stops once N have settled
    (engine round 3, item 10: 2M hits took 89-118 MB for either)."""
    lines = tmp_path / "in.jsonl"
    with open(lines, "w") as f:
        for i in range(1_000_000):
            f.write(f'{{"key": {i}, "payload": "hit {i}"}}\n')
    run_cli(store, "import", "t", lines)
    lines.unlink()

    def measured(*args):
        """stdout, peak RSS in KiB and seconds. The peak is taken by a fresh small
        interpreter that starts the CLI and reads its wait4: a child of this
        (large) pytest process would report pytest's own peak, as Linux keeps a
        process's peak across the vfork and exec that start it."""
        t0 = time.monotonic()
        done = subprocess.run([sys.executable, "-c", PEAK_RSS, *map(str, cli_cmd(store, "search", "t", *args))],
                              capture_output=True, env=base_env(), timeout=120)
        err = done.stderr.decode()
        assert done.returncode == 0, err[-800:]
        return done.stdout.decode(), int(err.rsplit("maxrss=", 1)[1]), time.monotonic() - t0

    out, rss, _ = measured("--text", "hit", "--count")
    assert out.strip() == "1000000"
    assert rss < 40 * 1024, f"--count: {rss} KB"
    out, rss, secs = measured("--text", "hit", "--limit", "1", "--json")
    assert len(out.splitlines()) == 1
    assert rss < 40 * 1024, f"--limit 1: {rss} KB"
    assert secs < 2.0, f"--limit 1 read on after its hit: {secs} s"
