"""Export, import and copy (issue 14) against the real twainmq 0.2.3: round
trips of the fixture store, 0.2.3 reading what import and copy wrote in the
partitions its partitioner picks, CSV with hostile payloads, bad lines."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO_ROOT, cli_binary, base_env, parse_jsonl, payload_equal, payload_of, snapshot_tree, describe_diff

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "twainmq-0.2.3" / "store"


def fixture_copy(tmp_path):
    s = tmp_path / "src"
    shutil.copytree(FIXTURE, s)
    return s


def spec_of(cli, store, topic):
    d = json.loads(cli(store, "topics", "describe", topic, "--json").stdout)
    types = [n for n, _ in sorted(d["message_types"].items(), key=lambda kv: kv[1])] if isinstance(d["message_types"], dict) else []
    return d["key_type"], d["partitions"], types


def create_like(cli, store, topic, key_type, parts, types, partitions=None):
    args = ["topics", "create", topic, "--key-type", key_type, "--partitions", partitions or parts]
    if types:
        args += ["--message-types", ",".join(types)]
    cli(store, *args)


def classes_of(recs):
    """The typed classes of exported records and their fields."""
    out = {}
    for r in recs:
        if r["payload"]["type"] == "dataclass":
            out.setdefault(r["payload"]["class"], list(r["payload"]["fields"]))
    return out


def essence(recs):
    """(key, timestamp, payload) of each message, sorted: what a round trip keeps."""
    return sorted((json.dumps(r["key"]), r["timestamp"], json.dumps(r["payload"], sort_keys=True)) for r in recs)


def py_read_all(twainmq, root, topic, parts, classes=None):
    """Every message of `topic` as 0.2.3 reads it; `classes` {name: [fields]}
    are registered as dataclasses first (0.2.3 decodes typed messages only so)."""
    import dataclasses

    from twainmq.consumer import TwainMQConsumerlet

    tmq = twainmq.Twain(str(root))
    for name, fields in (classes or {}).items():
        tmq.register_msg_cls(dataclasses.make_dataclass(name, fields))
    out = []
    for p in range(parts):
        cl = TwainMQConsumerlet(tmq, topic, p, offset=0)
        while (m := cl.poll()) is not None:
            out.append((p, m))
    return out


def test_every_fixture_topic_round_trips_and_0_2_3_reads_it_where_its_partitioner_puts_it(cli, twainmq, tmp_path):
    from twainmq.encoding import partition_hash64

    src = fixture_copy(tmp_path)
    topics = [l.split("\t")[0] for l in cli(src, "topics", "list").stdout.splitlines()]
    assert len(topics) >= 6
    checked = 0
    for fmt in ["jsonl", "csv"]:
        for topic in topics:
            kt, parts, types = spec_of(cli, src, topic)
            out = tmp_path / f"{topic}.{fmt}"
            cli(src, "export", topic, "--format", fmt, "--output", out)
            assert not (tmp_path / f"{topic}.{fmt}.partial").exists()
            new = f"{topic}_{fmt}"
            create_like(cli, src, new, kt, parts, types)
            cli(src, "import", new, out, "--keep-timestamps")
            before = parse_jsonl(cli(src, "export", topic).stdout)
            after = parse_jsonl(cli(src, "export", new).stdout)
            assert essence(after) == essence(before), f"{topic} via {fmt}"
            # 0.2.3 reads the imported topic, each message in the partition its partitioner picks.
            seen = py_read_all(twainmq, src, new, parts, classes_of(before))
            assert len(seen) == len(before)
            for p, m in seen:
                assert p == partition_hash64(m.key, parts), f"{new}: key {m.key!r} in partition {p}"
            want = sorted((json.dumps(r["key"]), json.dumps(r["payload"], sort_keys=True)) for r in before)
            got = sorted((json.dumps(m.key), json.dumps(payload_of(m.message), sort_keys=True)) for _, m in seen)
            assert got == want, f"0.2.3 reads {new} otherwise"
            checked += len(seen)
    assert checked > 500


def test_csv_keeps_quotes_commas_newlines_and_any_bytes(cli, store, tmp_path):
    cli(store, "topics", "create", "t", "--key-type", "char8", "--partitions", "3")
    texts = ['a "quoted", text', "line\nbreak", "cr\r\nlf", "", ",", '"', "ünï 😀", "tab\tx", "=1+1", "  pad  "]
    blobs = [bytes(range(256)), b"\xff\xfe\x00", b"\n\r,\""]
    lines = [json.dumps({"key": f"k{i}", "payload": t}) for i, t in enumerate(texts)]
    lines += [json.dumps({"key": f"b{i}", "payload": {"type": "bytes", "hex": b.hex()}}) for i, b in enumerate(blobs)]
    cli(store, "produce", "t", "--jsonl", input="\n".join(lines) + "\n")
    out = tmp_path / "t.csv"
    cli(store, "export", "t", "--format", "csv", "-o", out)
    raw = out.read_bytes()
    assert raw.startswith(b"partition,offset,timestamp,key,kind,class,payload\n")
    cli(store, "topics", "create", "t2", "--key-type", "char8", "--partitions", "2")
    r = cli(store, "import", "t2", out, "--keep-timestamps", "--json")
    assert json.loads(r.stdout)["messages"] == len(lines)
    assert essence(parse_jsonl(cli(store, "export", "t2").stdout)) == essence(parse_jsonl(cli(store, "export", "t").stdout))


def bad_jsonl():
    return [
        json.dumps({"key": 1, "payload": "one"}),
        json.dumps({"key": 2, "payload": "two"}),
        '{"key": 3, "payload": ',  # line 3: not JSON
        json.dumps({"key": "x", "payload": "wrong key type"}),  # line 4
        json.dumps({"key": 5, "payload": {"type": "bytes", "hex": __import__("os").urandom(5000).hex()}}),  # line 5: over the limit
        json.dumps({"key": 70000, "payload": "key out of range"}),  # line 6
        json.dumps({"key": 7, "payload": "seven"}),
    ]


def test_a_bad_line_stops_the_import_with_everything_before_it_written(cli, store, tmp_path):
    cli(store, "topics", "create", "t", "--key-type", "u16", "--partitions", "2")
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(bad_jsonl()) + "\n")
    r = cli(store, "import", "t", f, check=False)
    assert r.returncode != 0
    assert "line 3" in r.stderr and "2 messages written" in r.stderr, r.stderr
    assert [m["payload"]["value"] for m in parse_jsonl(cli(store, "export", "t").stdout)] == ["one", "two"] or \
        sorted(m["payload"]["value"] for m in parse_jsonl(cli(store, "export", "t").stdout)) == ["one", "two"]


def test_dry_run_names_every_bad_line_and_writes_nothing(cli, store, tmp_path):
    cli(store, "topics", "create", "t", "--key-type", "u16", "--partitions", "2")
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(bad_jsonl()) + "\n")
    before = snapshot_tree(store)
    r = cli(store, "import", "t", f, "--dry-run", "--json")
    assert snapshot_tree(store) == before, describe_diff(before, snapshot_tree(store))
    rep = json.loads(r.stdout)
    assert rep["messages"] == 3 and rep["bad_lines"] == 4 and rep["first_bad"]["line"] == 3
    assert sum(rep["partitions"]) == 3
    for n, words in [(3, "not a"), (4, "integer"), (5, "4096"), (6, "out of range")]:
        assert f"bad line {n}:" in r.stderr and words in r.stderr.split(f"bad line {n}:")[1].splitlines()[0], r.stderr


def test_skip_bad_writes_the_good_lines_and_reports_each_skipped(cli, store, tmp_path):
    cli(store, "topics", "create", "t", "--key-type", "u16", "--partitions", "2")
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(bad_jsonl()) + "\n")
    r = cli(store, "import", "t", f, "--skip-bad", "--json")
    assert json.loads(r.stdout)["messages"] == 3
    # (A line over the limit is found when its batch is encoded, so it may be reported after later lines.)
    assert sorted(l.split(":")[0] for l in r.stderr.splitlines() if l.startswith("skipped line")) == [f"skipped line {n}" for n in (3, 4, 5, 6)]
    assert sorted(m["payload"]["value"] for m in parse_jsonl(cli(store, "export", "t").stdout)) == ["one", "seven", "two"]


def test_import_into_a_missing_topic_or_from_a_folder_is_refused(cli, store, tmp_path):
    f = tmp_path / "in.jsonl"
    f.write_text(json.dumps({"key": 1, "payload": "x"}) + "\n")
    r = cli(store, "import", "nope", f, check=False)
    assert r.returncode != 0 and "nope" in r.stderr
    assert not (store / "nope").exists()
    cli(store, "topics", "create", "t")
    r = cli(store, "import", "t", tmp_path, check=False)
    assert r.returncode != 0 and "folder" in r.stderr


def test_export_to_a_store_is_a_store_0_2_3_opens(cli, twainmq, tmp_path):
    src = fixture_copy(tmp_path)
    dst = tmp_path / "exported"
    cli(src, "export", "typed", "--format", "store", "--output", dst)
    before = parse_jsonl(cli(src, "export", "typed").stdout)
    tmq = twainmq.Twain(str(dst))
    assert "typed" in tmq.list_topics()
    _, parts, _ = spec_of(cli, src, "typed")
    seen = py_read_all(twainmq, dst, "typed", parts, classes_of(before))
    assert len(seen) == len(before)
    after = parse_jsonl(cli(dst, "export", "typed").stdout)
    assert essence(after) == essence(before)
    # Again into the same folder: refused, nothing changed.
    snap = snapshot_tree(dst)
    r = cli(src, "export", "typed", "--format", "store", "--output", dst, check=False)
    assert r.returncode != 0 and "already has" in r.stderr
    assert snapshot_tree(dst) == snap


def test_copy_into_another_store_repartitions_by_the_targets_partitioner(cli, twainmq, tmp_path):
    from twainmq.encoding import partition_hash64

    src = fixture_copy(tmp_path)
    dst = tmp_path / "dst"
    dst.mkdir()
    kt, parts, types = spec_of(cli, src, "events")
    create_like(cli, dst, "ev", kt, parts, types, partitions=5)
    cli(src, "copy", "events", "--to", f"{dst}:ev", "--keep-timestamps", "--since", "2026-11-27T21:31:00Z")
    want = parse_jsonl(cli(src, "search", "events", "--since", "2026-11-27T21:31:00Z", "--json").stdout)
    assert 0 < len(want) < 240
    seen = py_read_all(twainmq, dst, "ev", 5)
    assert len(seen) == len(want)
    assert all(p == partition_hash64(m.key, 5) for p, m in seen)
    assert essence(parse_jsonl(cli(dst, "export", "ev").stdout)) == essence(want)
    r = cli(src, "copy", "events", "--to", "events", check=False)
    assert r.returncode != 0 and "itself" in r.stderr


def test_copy_with_a_rate_is_paced(cli, store):
    import time

    cli(store, "topics", "create", "a", "--partitions", "2")
    cli(store, "topics", "create", "b", "--partitions", "2")
    cli(store, "produce", "a", "--jsonl", "--batch", input="".join(json.dumps({"key": i, "payload": f"m{i}"}) + "\n" for i in range(300)))
    t = time.time()
    cli(store, "copy", "a", "--to", "b", "--rate", "200")
    assert time.time() - t >= 1.0
    assert len(parse_jsonl(cli(store, "export", "b").stdout)) == 300


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_export_into_a_closed_pipe_ends_quietly(cli, store, fmt):
    """`| head` ends an export with status 0 and no error, JSONL and CSV alike
    (CSV ended with status 1 and "Broken pipe")."""
    cli(store, "topics", "create", "t", "--partitions", "2")
    cli(store, "produce", "t", "--jsonl", "--batch", input="".join(json.dumps({"key": i, "payload": "x" * 90}) + "\n" for i in range(50000)))
    cmd = f"'{cli_binary()}' --store '{store}' export t --format {fmt} | head -1; exit ${{PIPESTATUS[0]}}"
    p = subprocess.Popen(["bash", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=base_env())
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0 and len(out.splitlines()) == 1
    assert b"error" not in err, err


def test_import_on_a_disk_that_fills_leaves_whole_lines_and_counts_what_landed(cli, tmp_path):
    """A 2 MB tmpfs, half filled: the import stops with the count of what is in
    the topic, which is a prefix of the input, with no half line left."""
    import os
    import random

    mnt = tmp_path / "mnt"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {r.stderr.strip()}")
    try:
        store = mnt / "store"
        store.mkdir()
        cli(store, "topics", "create", "t", "--key-type", "u32")
        (mnt / "filler").write_bytes(b"\0" * 1_000_000)
        rng = random.Random(5)
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
        # ~2.6 MB of lines, more than fits; a batch of 4,096 (some 530 KB) fits, the next does not.
        texts = ["".join(rng.choices(alphabet, k=100)) for _ in range(20000)]
        f = tmp_path / "in.jsonl"
        f.write_text("".join(json.dumps({"key": i, "payload": t}) + "\n" for i, t in enumerate(texts)))
        r = cli(store, "import", "t", f, check=False)
        assert r.returncode != 0
        assert "space" in r.stderr.lower(), r.stderr
        written = int(r.stderr.split(" messages written")[0].rsplit(" ", 1)[1])
        problems = json.loads(cli(store, "check", "--json", check=False).stdout)
        assert problems == [], problems
        (mnt / "filler").unlink()
        got = [m["payload"]["value"] for m in parse_jsonl(cli(store, "export", "t").stdout)]
        assert 0 < written == len(got) < len(texts)
        assert got == texts[:written]
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
        if os.path.ismount(mnt):
            subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_export_to_a_fifo_a_folder_and_an_interrupted_file(cli, store, tmp_path):
    import os
    import signal
    import threading
    import time

    cli(store, "topics", "create", "t", "--partitions", "2")
    cli(store, "produce", "t", "--jsonl", "--batch", input="".join(json.dumps({"key": i, "payload": f"m{i}"}) + "\n" for i in range(2000)))
    # A FIFO is written as it is (no .partial beside it).
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = {}
    reader = threading.Thread(target=lambda: got.setdefault("lines", fifo.read_text().splitlines()))
    reader.start()
    cli(store, "export", "t", "--output", fifo)
    reader.join(30)
    assert len(got["lines"]) == 2000 and not (tmp_path / "fifo.partial").exists()
    # A folder is refused, and nothing is made.
    r = cli(store, "export", "t", "--output", tmp_path, check=False)
    assert r.returncode != 0 and "folder" in r.stderr
    # Interrupted: no file under the name asked for, no .partial left.
    cli(store, "produce", "t", "--jsonl", "--batch", input="".join(json.dumps({"key": k % 60000, "payload": "y" * 80}) + "\n" for k in range(300000)))
    out = tmp_path / "big.jsonl"
    p = subprocess.Popen([str(cli_binary()), "--store", str(store), "export", "t", "--output", str(out)], env=base_env(), stderr=subprocess.PIPE)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    if p.returncode == 0:
        pytest.skip("the export finished before the signal")
    assert b"interrupted" in err, err
    assert not out.exists() and not (tmp_path / "big.jsonl.partial").exists()


def test_export_as_a_store_inside_the_store_is_refused(cli, store):
    """A store written into the source store's folder (or a topic's folder) is
    taken for the store's own: `check` saw nothing, `topics create sub` said it
    existed, `topics delete sub` that it did not. Refused as file exports are."""
    from conftest import snapshot_tree, describe_diff

    cli(store, "topics", "create", "t", "--partitions", "2")
    cli(store, "produce", "t", "--key", "1", "hello")
    before = snapshot_tree(store)
    for out in (store / "sub", store / "t" / "0-20990101_5.tmf"):
        r = cli(store, "export", "t", "--format", "store", "--output", out, check=False)
        assert r.returncode != 0 and "outside" in r.stderr, r.stderr
        assert snapshot_tree(store) == before, describe_diff(before, snapshot_tree(store))
    assert cli(store, "check").returncode == 0


def test_a_dry_run_says_where_an_import_without_skip_bad_stops(cli, store, tmp_path):
    """The dry run's count is of every good line; without --skip-bad the first bad line ends
    the import, and the dry run says how many go before it (a retry would write them again)."""
    cli(store, "topics", "create", "t", "--key-type", "u16", "--partitions", 2)
    f = tmp_path / "in.jsonl"
    f.write_text("".join(f'{{"key": {i}, "payload": "m{i}"}}\n' if i != 3 else "oops\n" for i in range(1, 7)))
    out = cli(store, "import", "t", f, "--dry-run").stdout
    assert "would write 5 messages from 6 lines" in out
    assert "without --skip-bad the import writes the 2 messages before line 3, then stops there" in out
    r = json.loads(cli(store, "import", "t", f, "--dry-run", "--json").stdout)
    assert (r["messages"], r["messages_before_first_bad"], r["passed_over"]) == (5, 2, 0)
    r = cli(store, "import", "t", f, check=False)
    assert r.returncode != 0 and "2 messages written" in r.stderr, r.stderr
