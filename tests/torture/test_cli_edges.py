"""The CLI at the edges (issue 11, items 2, 3, 4, 5, 9, 10):

- `produce --jsonl` (with and without --batch): a line that is not UTF-8, or
  whose message is too long for a line, is a bad line like any other:
  everything before it is sent, the error names it;
- numeric flags out of range (--for inf/nan/-1/1e300, zero windows, a zero
  auto-round, --commit-every 0) are refused naming the flag, the value and
  the range, before anything is written;
- new topic and group names ending in `.twc` (any case), or of the form of
  the store's temporary files, are refused; a topic 0.2.3 made under such a
  name can still be used;
- `consume --group` commits only what it wrote out: after its output is
  closed it commits nothing more; --max N leaves the next member at N;
  SIGTERM commits what was written;
- `topics delete` says what it would delete (messages, the groups reading the
  topic) and deletes those groups with it, so a topic made again under the
  same name starts with no commits;
- a topic deleted and made again under a running producer, follower or group
  member stops it with an error, and no `"offset": null` is ever printed;
- `check` finding problems exits 1 and still keeps the line index.
"""

import fcntl
import json
import os
import random
import signal
import subprocess
import time

import pytest

from torture_common import Procs, base_env, cli_cmd, describe, no_panic, run_cli, wait_until
from torture_common import snapshot as snapshot_tree, snapshot_diff as describe_diff
from group_helpers import read_jsonl_file

WINDOW = "0.3"  # seconds a round stays open: one member gets its partitions quickly


def run_bytes(store, *args, input=b"", env=None, timeout=120):
    """Run the CLI with bytes on stdin (run_cli takes text only, and these
    inputs are not UTF-8). Returns a CompletedProcess with text stdout/stderr."""
    proc = subprocess.run(
        cli_cmd(store, *args), input=input, capture_output=True, env=env or base_env(), timeout=timeout
    )
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    return proc


def fails(proc, words, what):
    """Non-zero exit without a panic, and stderr mentions every word of `words`."""
    no_panic(proc.stderr, what)
    assert proc.returncode not in (0, 101), f"{what}: exit {proc.returncode}\n{proc.stderr[-1500:]}"
    assert proc.returncode > 0, f"{what}: killed by signal {-proc.returncode}"
    low = proc.stderr.lower()
    missing = [w for w in words if w.lower() not in low]
    assert not missing, f"{what}: stderr does not mention {missing}: {proc.stderr[-1500:]!r}"


def values(store, topic):
    """(key, text) of every message of `topic`, in (partition, offset) order."""
    recs = [json.loads(l) for l in run_cli(store, "consume", topic, "--json").stdout.splitlines() if l.strip()]
    recs.sort(key=lambda r: (r["partition"], r["offset"]))
    return [(r["key"], r["payload"]["value"]) for r in recs]


def jline(key, text):
    return (json.dumps({"key": key, "payload": text}) + "\n").encode()


@pytest.fixture
def store(tmp_path):
    s = tmp_path / "store"
    s.mkdir()
    return s


# --------------------------------------------------------------------------
# Item 5: every kind of bad line stops produce with everything before it sent.

GOOD = b"".join(jline(k, f"good {k}") for k in (1, 2, 3))
_rng = random.Random(11)
INCOMPRESSIBLE = "".join(_rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(6000))
BAD_LINES = {
    # raw byte 0xff inside the JSON string, and a line of nothing but it
    "not-utf8-in-string": (b'{"key": 4, "payload": "caf\xff"}\n', ["line 4", "utf-8", "0xff"]),
    "not-utf8-alone": (b"\xff\xfe\n", ["line 4", "utf-8"]),
    # a valid message whose line would be over 4096 bytes
    "too-long-as-a-line": (jline(4, INCOMPRESSIBLE), ["line 4", "4096"]),
}


@pytest.mark.parametrize("batch", [False, True], ids=["one-by-one", "batch"])
@pytest.mark.parametrize("bad", list(BAD_LINES))
def test_bad_line_sends_everything_before_it_and_names_it(store, bad, batch):
    run_cli(store, "topics", "create", "t", "--partitions", 2)
    line, words = BAD_LINES[bad]
    args = ["produce", "t", "--jsonl"] + (["--batch"] if batch else [])
    proc = run_bytes(store, *args, input=GOOD + line + jline(5, "after the bad line"))
    fails(proc, words + ["sent: 3"], f"produce {' '.join(args[2:])} with a {bad} line")
    assert sorted(values(store, "t")) == [(1, "good 1"), (2, "good 2"), (3, "good 3")]


def test_bad_line_with_json_output_prints_the_lines_sent(store):
    run_cli(store, "topics", "create", "t")
    proc = run_bytes(store, "produce", "t", "--jsonl", "--json", input=GOOD + b"\xff\n")
    fails(proc, ["line 4", "utf-8"], "produce --jsonl --json with a line that is not UTF-8")
    printed = [json.loads(l) for l in proc.stdout.splitlines()]
    assert [p["offset"] for p in printed] == [0, 1, 2], printed


# --------------------------------------------------------------------------
# Item 9: numbers out of range are refused when the command line is read.

BAD_NUMBERS = [
    (["consume", "t", "--for", "inf"], "--for", "inf"),
    (["consume", "t", "--for", "1e300"], "--for", "1e300"),
    (["consume", "t", "--for", "nan"], "--for", "nan"),
    (["consume", "t", "--for", "-1"], "--for", "-1"),
    (["consume", "t", "--for=-1"], "--for", "-1"),
    (["consume", "t", "--for", "315360001"], "--for", "315360001"),
    (["consume", "t", "--follow", "--for", "inf"], "--for", "inf"),
    (["consume", "t", "--group", "g", "--for", "inf"], "--for", "inf"),
    (["consume", "t", "--group", "g", "--rebalance-window", "0"], "--rebalance-window", "0"),
    (["consume", "t", "--group", "g", "--rebalance-window", "-1"], "--rebalance-window", "-1"),
    (["consume", "t", "--group", "g", "--rebalance-window", "nan"], "--rebalance-window", "nan"),
    (["consume", "t", "--group", "g", "--rebalance-window", "inf"], "--rebalance-window", "inf"),
    (["consume", "t", "--group", "g", "--rebalance-window", "86401"], "--rebalance-window", "86401"),
    (["consume", "t", "--group", "g", "--auto-round", "0", "--rebalance-window", "0"], "--auto-round", "0"),
    (["consume", "t", "--group", "g", "--auto-round", "0"], "--auto-round", "0"),
    (["consume", "t", "--group", "g", "--auto-round", "0.05"], "--auto-round", "0.05"),
    (["consume", "t", "--group", "g", "--auto-round", "nan"], "--auto-round", "nan"),
    (["consume", "t", "--group", "g", "--commit-every", "0"], "--commit-every", "0"),
    (["consume", "t", "--group", "g", "--commit-every", "-1"], "--commit-every", "-1"),
    (["groups", "rebalance", "g", "--window", "0"], "--window", "0"),
    (["groups", "rebalance", "g", "--window", "nan"], "--window", "nan"),
    (["groups", "rebalance", "g", "--window", "inf"], "--window", "inf"),
    (["groups", "rebalance", "g", "--window", "-5"], "--window", "-5"),
]


@pytest.fixture
def small_store(store):
    """Topic t (2 partitions, 10 messages) and group g on it."""
    run_cli(store, "topics", "create", "t", "--partitions", 2)
    run_cli(store, "produce", "t", "--jsonl", input="".join(jline(k, f"m{k}").decode() for k in range(10)))
    run_cli(store, "consume", "t", "--group", "g", "--rebalance-window", WINDOW, "--for", 10)
    return store


@pytest.mark.parametrize("args,flag,value", BAD_NUMBERS, ids=[" ".join(a[2:]) for a, _, _ in BAD_NUMBERS])
def test_numbers_out_of_range_are_refused(small_store, args, flag, value):
    before = snapshot_tree(small_store)
    start = time.monotonic()
    proc = run_cli(small_store, *args, check=False, timeout=30)
    fails(proc, [flag, f"'{value}'"], " ".join(args))
    assert "at most" in proc.stderr or "1 or more" in proc.stderr, f"the accepted range is not said: {proc.stderr[-1500:]}"
    assert time.monotonic() - start < 10, "refused only after running"
    after = snapshot_tree(small_store)
    assert before == after, f"the store changed: {describe_diff(before, after)}"


def test_numbers_in_range_are_taken(small_store):
    """Controls for the refusals: the bounds themselves are fine."""
    assert len(run_cli(small_store, "consume", "t", "--for", "0").stdout.splitlines()) == 0
    assert len(run_cli(small_store, "consume", "t", "--for", "0.5").stdout.splitlines()) == 10
    start = time.monotonic()
    run_cli(small_store, "consume", "t", "--follow", "--for", "0.5")
    assert time.monotonic() - start < 10
    run_cli(small_store, "groups", "rebalance", "g", "--window", "0.2")
    run_cli(small_store, "consume", "t", "--group", "g2", "--rebalance-window", "0.2", "--auto-round", "0.1",
            "--commit-every", "1", "--for", "3")
    assert describe(small_store, "g2")["partitions"][0]["committed"] is not None


# --------------------------------------------------------------------------
# Item 10: new names ending in .twc (any case) or shaped like our temporary files.

BAD_NEW_NAMES = ["x.twc", "X.TWC", "a.b.Twc", ".x.twc.tmp-123", ".X.TWC.TMP-1"]


@pytest.mark.parametrize("name", BAD_NEW_NAMES)
def test_new_topic_names_like_store_files_are_refused(store, name):
    run_cli(store, "topics", "create", "x")
    before = snapshot_tree(store)
    proc = run_cli(store, "topics", "create", "--", name, check=False)
    fails(proc, ["invalid topic name", name], f"topics create {name}")
    assert snapshot_tree(store) == before, describe_diff(before, snapshot_tree(store))
    assert json.loads(run_cli(store, "topics", "list", "--json").stdout) == [
        {"name": "x", "key_type": "u16", "partitions": 1, "message_types": []}
    ]


@pytest.mark.parametrize("group", ["g.twc", "G.TWC"])
def test_new_group_names_ending_in_twc_are_refused(store, group):
    run_cli(store, "topics", "create", "t")
    before = snapshot_tree(store)
    proc = run_cli(store, "consume", "t", "--group", group, "--rebalance-window", WINDOW, "--for", 5, check=False)
    fails(proc, ["invalid consumer group name", ".twc"], f"consume --group {group}")
    assert snapshot_tree(store) == before, describe_diff(before, snapshot_tree(store))
    assert run_cli(store, "groups", "list", "--json").stdout.strip() == "[]"


def test_names_with_dots_stay_valid(store):
    """Controls: dots elsewhere, and leading dots 0.2.3 users may have, are fine (a name
    ending in a dot is not: Windows drops it, see platform.rs)."""
    names = ["...x", ".events", "a.twc.b", "x.twcx", "twc", "x.tmp"]
    for n in names:
        run_cli(store, "topics", "create", "--", n)
    listed = [t["name"] for t in json.loads(run_cli(store, "topics", "list", "--json").stdout)]
    assert sorted(listed) == sorted(names)


def test_existing_topic_named_like_a_config_is_still_usable(store):
    """A topic 0.2.3 made as `legacy.twc` (its config and folder written here as
    0.2.3 writes them) can still be written, read and deleted."""
    (store / "legacy.twc.twc").write_text('{"key_width": 2, "partitions": 1, "message_types": {}}')
    (store / "legacy.twc").mkdir()
    run_cli(store, "produce", "legacy.twc", "--key", 1, "kept")
    assert values(store, "legacy.twc") == [(1, "kept")]
    run_cli(store, "topics", "delete", "legacy.twc", "--yes")
    assert not (store / "legacy.twc").exists() and not (store / "legacy.twc.twc").exists()


# --------------------------------------------------------------------------
# Item 4: a group member commits only what it wrote out.


def committed(store, group):
    return {p["partition"]: p["committed"] for p in describe(store, group)["partitions"]}


def produce_numbered(store, topic, n, partitions=1):
    run_cli(store, "topics", "create", topic, "--partitions", partitions, "--key-type", "u32")
    lines = "".join(json.dumps({"key": i, "payload": f"message number {i:06d}"}) + "\n" for i in range(n))
    run_cli(store, "produce", topic, "--jsonl", "--batch", input=lines)


def consume_into_closed_pipe(store, args, lines_to_read=3):
    """Run `consume ARGS` into a 4 KiB pipe, read `lines_to_read` lines, close the
    pipe. Returns (bytes read, pipe capacity, exit code, stderr)."""
    r, w = os.pipe()
    try:
        capacity = fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
    except OSError:  # pragma: no cover - an old kernel: take the pipe as it is
        capacity = fcntl.fcntl(w, fcntl.F_GETPIPE_SZ)
    proc = subprocess.Popen(cli_cmd(store, *args), stdout=w, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=base_env())
    os.close(w)
    got = b""
    try:
        while got.count(b"\n") < lines_to_read:
            chunk = os.read(r, 1)  # byte by byte: nothing more is taken out of the pipe than those lines
            if not chunk:
                break
            got += chunk
    finally:
        os.close(r)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"consume did not stop after its output was closed: {err[-2000:]!r}")
    assert got.count(b"\n") == lines_to_read, f"read only {got!r}"
    return len(got), capacity, proc.returncode, err.decode("utf-8", "replace")


def test_member_commits_nothing_after_its_output_is_closed(store):
    """`consume --group G --commit-every 100000 | head -3`: the 3 lines read, a
    pipe's worth of lines lost, and no commit past the group's initial one."""
    produce_numbered(store, "t", 20000)
    args = ["consume", "t", "--group", "G", "--commit-every", 100000, "--rebalance-window", WINDOW]
    _, _, code, err = consume_into_closed_pipe(store, args)
    no_panic(err, "consume --group into a closed pipe")
    assert code == 0, f"exit {code}: {err[-2000:]}"
    assert committed(store, "G") == {0: 0}, f"committed past what was delivered: {committed(store, 'G')}\n{err[-2000:]}"
    # The next member starts where nothing was skipped.
    out = run_cli(store, "consume", "t", "--group", "G", "--rebalance-window", WINDOW, "--max", 1, "--json").stdout
    assert json.loads(out)["offset"] == 0


def test_periodic_commits_cover_only_what_reached_the_pipe(store):
    """With --commit-every 10, a commit may cover only lines written into the
    pipe: what was read from it plus what it held when it was closed."""
    produce_numbered(store, "t", 20000)
    # The exact bytes of every line, from a plain consume (the member prints the same lines).
    lines = run_cli(store, "consume", "t").stdout.encode().splitlines(keepends=True)
    args = ["consume", "t", "--group", "G", "--commit-every", 10, "--rebalance-window", WINDOW]
    read, capacity, code, err = consume_into_closed_pipe(store, args)
    no_panic(err, "consume --group --commit-every 10 into a closed pipe")
    assert code == 0, f"exit {code}: {err[-2000:]}"
    could_deliver, total = 0, 0
    for line in lines:
        total += len(line)
        if total > read + capacity:
            break
        could_deliver += 1
    got = committed(store, "G")[0]
    assert got <= could_deliver, (
        f"committed offset {got}, but at most {could_deliver} lines ({read} bytes read, a {capacity}-byte pipe) "
        f"were written out\n{err[-2000:]}"
    )


def test_max_then_the_next_member_starts_exactly_there(store):
    produce_numbered(store, "t", 300, partitions=3)
    first = run_cli(store, "consume", "t", "--group", "G", "--rebalance-window", WINDOW, "--max", 50, "--json").stdout
    rest = run_cli(store, "consume", "t", "--group", "G", "--rebalance-window", WINDOW, "--json").stdout
    a = [(r["partition"], r["offset"]) for r in map(json.loads, first.splitlines())]
    b = [(r["partition"], r["offset"]) for r in map(json.loads, rest.splitlines())]
    assert len(a) == 50 and len(set(a)) == 50
    assert not set(a) & set(b), f"read twice: {sorted(set(a) & set(b))[:10]}"
    assert len(a) + len(b) == 300 and len(set(a) | set(b)) == 300


def test_sigterm_commits_what_was_written(store, tmp_path):
    produce_numbered(store, "t", 500, partitions=2)
    out = tmp_path / "member.out"
    with Procs(tmp_path / "logs") as procs:
        m = procs.start("member", cli_cmd(store, "consume", "t", "--group", "G", "--follow", "--json",
                                          "--commit-every", 100000, "--rebalance-window", WINDOW), stdout_path=out)
        wait_until(lambda: len(read_jsonl_file(out)) >= 500, 30, lambda: f"500 messages read\n{m.tail()}")
        m.popen.send_signal(signal.SIGTERM)
        assert m.popen.wait(timeout=20) == 0, m.tail()
    assert sum(committed(store, "G").values()) == 500, committed(store, "G")


# --------------------------------------------------------------------------
# Item 3: deleting a topic deletes the groups that read it.


def test_delete_says_what_it_deletes_and_takes_the_groups(store):
    produce_numbered(store, "t", 200, partitions=2)
    run_cli(store, "consume", "t", "--group", "G", "--rebalance-window", WINDOW)
    assert sum(committed(store, "G").values()) == 200

    before = snapshot_tree(store)
    proc = run_cli(store, "topics", "delete", "t", check=False)
    fails(proc, ["nothing deleted", "200 messages", "G", "--yes"], "topics delete without --yes")
    assert snapshot_tree(store) == before, describe_diff(before, snapshot_tree(store))

    proc = run_cli(store, "topics", "delete", "t", "--yes")
    assert "200 messages" in proc.stdout and "G" in proc.stdout, proc.stdout
    assert json.loads(run_cli(store, "groups", "list", "--json").stdout) == []

    produce_numbered(store, "t", 100, partitions=2)
    out = run_cli(store, "consume", "t", "--group", "G", "--rebalance-window", WINDOW, "--json").stdout
    assert len(out.splitlines()) == 100, "the old group's commits applied to the new topic"


# --------------------------------------------------------------------------
# Item 2: a topic deleted and made again under a running command.


def replace_topic(store, partitions):
    run_cli(store, "topics", "delete", "t", "--yes")
    run_cli(store, "topics", "create", "t", "--partitions", partitions, "--key-type", "u32")


def test_producer_stops_when_its_topic_is_replaced(store, tmp_path):
    """`produce --jsonl --json` never prints a null offset, and a message it
    reports written after the topic was replaced is in the new topic; it stops
    with the topic_deleted error naming how many were sent."""
    run_cli(store, "topics", "create", "t", "--partitions", 2, "--key-type", "u32")
    proc = subprocess.Popen(cli_cmd(store, "produce", "t", "--jsonl", "--json"), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=base_env())
    try:
        printed = []
        for i in range(5):
            proc.stdin.write(jline(i, f"before {i}"))
            proc.stdin.flush()
            printed.append(json.loads(proc.stdout.readline()))
        replace_topic(store, 3)
        after = []
        for i in range(5, 10):
            try:
                proc.stdin.write(jline(i, f"after {i}"))
                proc.stdin.flush()
            except BrokenPipeError:
                break
            line = proc.stdout.readline()
            if not line:
                break
            after.append(json.loads(line))
        proc.stdin.close()
        code = proc.wait(timeout=10)
        err = proc.stderr.read().decode("utf-8", "replace")
    finally:
        if proc.poll() is None:
            proc.kill()
    assert all(isinstance(p["offset"], int) for p in printed + after), f"an offset that is not a number: {printed + after}"
    in_new = [k for k, _ in values(store, "t")]
    assert len(in_new) == len(after), f"reported written after the replace: {after}; in the new topic: {in_new}"
    no_panic(err, "produce while the topic is replaced")
    assert code != 0, f"the producer went on after its topic was replaced (exit 0): {err[-1500:]}"
    assert "deleted" in err.lower() and f"sent: {5 + len(after)}" in err, err[-1500:]


@pytest.mark.parametrize("mode", ["follow", "group"])
def test_reader_stops_when_its_topic_is_replaced(store, tmp_path, mode):
    """A follower (or a group member) of t, t deleted and made again with
    another partition count: it stops within 5 s with the topic_deleted error."""
    produce_numbered(store, "t", 20, partitions=2)
    out = tmp_path / "reader.out"
    extra = ["--group", "G", "--rebalance-window", WINDOW] if mode == "group" else []
    with Procs(tmp_path / "logs") as procs:
        r = procs.start("reader", cli_cmd(store, "consume", "t", "--follow", "--json", *extra), stdout_path=out)
        wait_until(lambda: len(read_jsonl_file(out)) >= 20, 30, lambda: f"20 messages read\n{r.tail()}")
        replace_topic(store, 3)
        run_cli(store, "produce", "t", "--key", 1, "in the new topic")
        try:
            code = r.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the {mode} reader still runs 5 s after its topic was replaced\n{r.tail()}")
        err = r.stderr_text()
    no_panic(err, f"{mode} reader of a replaced topic")
    assert code != 0, f"exit 0 after the topic was replaced: {err[-1500:]}"
    assert "deleted" in err.lower(), err[-1500:]


# --------------------------------------------------------------------------
# `check` returns its exit code through main, which keeps the line index.


def test_check_with_problems_exits_1_and_keeps_the_index(store, tmp_path):
    produce_numbered(store, "t", 3000)
    (store / "t" / "stray.txt").write_text("not a partition file")
    cache = tmp_path / "cache"
    env = base_env()
    env["TWAINMQ_INDEX_CACHE"] = str(cache)
    proc = run_cli(store, "check", "--json", check=False, env=env)
    assert proc.returncode == 1, f"exit {proc.returncode}: {proc.stderr[-1500:]}"
    assert json.loads(proc.stdout), "no problem reported"
    assert cache.is_dir() and len(list(cache.iterdir())) == 1, "the line index counted by check was not kept"


def test_produce_jsonl_and_import_take_a_byte_order_mark(store, tmp_path):
    """A JSONL file saved with a BOM (Windows editors write one) is read as CSV
    files with one are (engine round 3, item 18)."""
    run_cli(store, "topics", "create", "t", "--key-type", "u32")
    bom = "\ufeff".encode()
    done = run_bytes(store, "produce", "t", "--jsonl", input=bom + jline(1, "first") + jline(2, "second"))
    assert done.returncode == 0, done.stderr
    f = tmp_path / "in.jsonl"
    f.write_bytes(bom + jline(3, "third"))
    run_cli(store, "import", "t", f)
    assert values(store, "t") == [(1, "first"), (2, "second"), (3, "third")]
