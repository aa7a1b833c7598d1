"""Many processes, 0.2.3 producers and our CLI producers mixed, append to one
topic at the same time. Nothing may be lost, duplicated, torn or reordered."""

import json
import os
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

from concurrent_writer import parse_text, plan
from conftest import base_env, cli_binary, parse_jsonl

PY_WRITERS = 4
CLI_WRITERS = 4
PER_WRITER = int(os.environ.get("TWAINMQ_CONCURRENCY_N", "25000"))
PARTITIONS = 4
TOPIC = "crowd"
BAD_WORDS = ("warn", "corrupt", "torn", "error", "invalid", "panic")


def _bad_lines(stderr):
    return [l for l in stderr.splitlines() if any(w in l.lower() for w in BAD_WORDS)]


def test_concurrent_mixed_producers(cli, twainmq, store, tmp_path, venv_python, capsys):
    from twainmq.consumer import TwainMQConsumerlet
    from twainmq.encoding import partition_hash64

    t_start = time.monotonic()
    cli(store, "topics", "create", TOPIC, "--key-type", "u32", "--partitions", PARTITIONS)
    writer_script = Path(__file__).with_name("concurrent_writer.py")
    start_file = tmp_path / "GO"
    logs = tmp_path / "logs"
    logs.mkdir()

    writers = list(range(PY_WRITERS + CLI_WRITERS))
    plans = {w: plan(w, PER_WRITER) for w in writers}
    expected = {key: (w, seq, text) for w in writers for seq, key, text in plans[w]}
    assert len(expected) == len(writers) * PER_WRITER

    procs = {}
    try:
        # 0.2.3 writers: each waits for the start file
        for w in writers[:PY_WRITERS]:
            ready = tmp_path / f"ready-{w}"
            procs[w] = subprocess.Popen(
                [venv_python, str(writer_script), str(store), TOPIC, str(w), str(PER_WRITER), str(start_file), str(ready)],
                stdout=open(logs / f"{w}.out", "wb"),
                stderr=open(logs / f"{w}.err", "wb"),
            )
        # our CLI writers: started now, fed their stdin at the start signal
        jsonl = {
            w: "".join(json.dumps({"key": key, "payload": {"type": "str", "value": text}}) + "\n" for _, key, text in plans[w]).encode()
            for w in writers[PY_WRITERS:]
        }
        for w in writers[PY_WRITERS:]:
            procs[w] = subprocess.Popen(
                [str(cli_binary()), "--store", str(store), "produce", TOPIC, "--jsonl"],
                stdin=subprocess.PIPE,
                stdout=open(logs / f"{w}.out", "wb"),
                stderr=open(logs / f"{w}.err", "wb"),
                env=base_env(),
            )
        go = threading.Event()

        def feed(w):
            go.wait()
            try:
                procs[w].stdin.write(jsonl[w])
            finally:
                procs[w].stdin.close()

        feeders = [threading.Thread(target=feed, args=(w,), daemon=True) for w in writers[PY_WRITERS:]]
        for t in feeders:
            t.start()

        deadline = time.monotonic() + 120
        while not all((tmp_path / f"ready-{w}").exists() for w in writers[:PY_WRITERS]):
            for w in writers[:PY_WRITERS]:
                assert procs[w].poll() is None, f"python writer {w} died: {(logs / f'{w}.err').read_text()}"
            assert time.monotonic() < deadline, "python writers never got ready"
            time.sleep(0.01)

        # barrier: everyone starts now
        t_go = time.monotonic()
        start_file.touch()
        go.set()
        for t in feeders:
            t.join(timeout=300)
        rcs = {w: p.wait(timeout=300) for w, p in procs.items()}
        t_written = time.monotonic()
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()

    for w in writers:
        err = (logs / f"{w}.err").read_text(errors="replace")
        kind = "0.2.3" if w < PY_WRITERS else "CLI"
        assert rcs[w] == 0, f"{kind} writer {w} exited {rcs[w]}: {err[-3000:]}"
        assert not _bad_lines(err), f"{kind} writer {w} stderr: {err[-3000:]}"

    total = len(expected)

    # raw files: every line complete, nothing but whole lines
    raw_lines = 0
    for f in sorted((store / TOPIC).iterdir()):
        data = f.read_bytes()
        assert data == b"" or data.endswith(b"\n"), f"{f.name} ends with a partial line"
        assert data.isascii(), f"{f.name} has non-ASCII bytes"
        raw_lines += data.count(b"\n")
    assert raw_lines == total, f"{raw_lines} lines on disk, {total} written"

    # --- our CLI reads everything
    proc = cli(store, "consume", TOPIC, "--from", "start", "--json")
    assert proc.returncode == 0
    assert not _bad_lines(proc.stderr), f"consume stderr: {proc.stderr[-3000:]}"
    recs = parse_jsonl(proc.stdout)
    t_cli_read = time.monotonic()

    by_part = {p: [] for p in range(PARTITIONS)}
    for r in recs:
        assert r["partition"] in by_part, r
        by_part[r["partition"]].append(r)
    seen = Counter(r["key"] for r in recs)
    dups = [k for k, c in seen.items() if c > 1]
    lost = [k for k in expected if k not in seen]
    alien = [k for k in seen if k not in expected]
    assert not dups, f"{len(dups)} duplicated keys, e.g. {dups[:5]}"
    assert not lost, f"{len(lost)} lost messages, e.g. {lost[:5]}"
    assert not alien, f"{len(alien)} unknown keys, e.g. {alien[:5]}"
    assert len(recs) == total

    for p, rs in by_part.items():
        assert [r["offset"] for r in rs] == list(range(len(rs))), f"partition {p}: offsets not contiguous from 0"
        last_seq = {}
        for r in rs:
            key = r["key"]
            w, seq, text = expected[key]
            assert partition_hash64(key, PARTITIONS) == p, f"key {key} in partition {p}"
            assert r["payload"] == {"type": "str", "value": text}, f"key {key}: payload {r['payload']!r:.200}"
            assert parse_text(text) == (w, seq)
            assert seq > last_seq.get(w, -1), f"partition {p}: writer {w} seq {seq} after {last_seq.get(w)}"
            last_seq[w] = seq

    # the writers really ran at the same time: their write windows (from the
    # message timestamps) share a common instant, and the partitions interleave them
    windows = {}
    for r in recs:
        w = expected[r["key"]][0]
        lo, hi = windows.get(w, (r["timestamp"], r["timestamp"]))
        windows[w] = (min(lo, r["timestamp"]), max(hi, r["timestamp"]))
    latest_start = max(lo for lo, _ in windows.values())
    earliest_end = min(hi for _, hi in windows.values())
    assert latest_start < earliest_end, f"writers did not overlap in time: {windows}"
    switches = sum(
        1 for rs in by_part.values() for a, b in zip(rs, rs[1:]) if expected[a["key"]][0] != expected[b["key"]][0]
    )
    assert switches > 1000, f"only {switches} writer switches in the logs: writes were not interleaved"

    # --- 0.2.3 reads the same log, identically
    tmq = twainmq.Twain(store)
    for p in range(PARTITIONS):
        cl = TwainMQConsumerlet(tmq, TOPIC, p, offset=0)
        mine = by_part[p]
        i = 0
        while (m := cl.poll()) is not None:
            assert i < len(mine), f"partition {p}: 0.2.3 reads more than our CLI ({i}+)"
            r = mine[i]
            assert (m.offset, m.key, m.message) == (r["offset"], r["key"], r["payload"]["value"]), f"partition {p} #{i}: 0.2.3 {m.offset, m.key} vs CLI {r['offset'], r['key']}"
            assert abs(m.timestamp.timestamp() - r["timestamp"]) <= 1e-6
            i += 1
        assert i == len(mine), f"partition {p}: 0.2.3 read {i}, our CLI {len(mine)}"
    t_py_read = time.monotonic()

    py_count = sum(1 for w in writers[:PY_WRITERS] for _ in plans[w])
    with capsys.disabled():
        print(
            f"\n[concurrency] {len(writers)} writers ({PY_WRITERS} x 0.2.3, {CLI_WRITERS} x CLI), "
            f"{total} messages ({py_count} from 0.2.3), per partition {[len(v) for v in by_part.values()]}; "
            f"write {t_written - t_go:.1f}s, CLI read {t_cli_read - t_written:.1f}s, "
            f"0.2.3 read {t_py_read - t_cli_read:.1f}s, total {t_py_read - t_start:.1f}s; "
            f"common write window {earliest_end - latest_start:.2f}s, {switches} writer switches"
        )
