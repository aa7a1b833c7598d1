"""Bad ground at the CLI door, beyond tests/interop/test_cli_errors.py (which
covers bad names, keys, payloads, configs and missing stores):

- links in the store pointing outside it: a topic folder that is a link
  (delete must refuse and leave the outside folder alone; produce must not
  write through it), a partition file that is a link (produce must refuse to
  write through it, dangling or not; check flags it);
- a full disk (a 2 MB tmpfs): produce fails with an error about the disk or
  space, leaves at most one unfinished line, and after space is freed the next
  produce succeeds and everything sent is readable;
- a read-only store (a tmpfs remounted read-only): every writing command
  fails with a clear error, every reading command still works, nothing panics.

The mount tests need root (or CAP_SYS_ADMIN) and are skipped otherwise.
"""

import json
import os
import random
import shutil
import subprocess
from contextlib import contextmanager

import pytest

from torture_common import check_store, figures_line, no_panic, noon_offset, problem_kinds, run_cli, CLOCK_ENV
from conftest import base_env
from torture_common import snapshot as snapshot_tree, snapshot_diff as describe_diff


def _fails(proc, words, what):
    err = proc.stderr
    assert proc.returncode != 0, f"{what}: expected failure, got exit 0\nstdout: {proc.stdout[:500]!r}\nstderr: {err[:500]!r}"
    assert proc.returncode > 0, f"{what}: killed by signal {-proc.returncode}"
    no_panic(err, what)
    assert proc.returncode != 101, f"{what}: exit 101 (a panic)"
    assert err.strip(), f"{what}: exit {proc.returncode} with an empty stderr"
    assert any(w in err.lower() for w in words), f"{what}: stderr mentions none of {words}: {err[-1000:]!r}"


def _noon_env():
    offset, day = noon_offset()
    env = base_env()
    env[CLOCK_ENV] = repr(offset)
    return env, day


# --------------------------------------------------------------------------
# Links pointing outside the store.


@pytest.fixture
def linked_topic(tmp_path):
    """A store whose topic `v` (2 messages) has its folder moved outside the
    store and replaced by a link to it."""
    store = tmp_path / "store"
    outside = tmp_path / "outside"
    store.mkdir()
    outside.mkdir()
    run_cli(store, "topics", "create", "v", "--key-type", "u32", "--partitions", 2)
    run_cli(store, "produce", "v", "--jsonl", input='{"key": 1, "payload": "one"}\n{"key": 2, "payload": "two"}\n')
    shutil.move(str(store / "v"), str(outside / "vdir"))
    (store / "v").symlink_to(outside / "vdir", target_is_directory=True)
    return store, outside


def test_delete_refuses_linked_topic_folder(linked_topic):
    store, outside = linked_topic
    before_out, before_store = snapshot_tree(outside), snapshot_tree(store)
    proc = run_cli(store, "topics", "delete", "v", "--yes", check=False)
    _fails(proc, ["link"], "topics delete of a topic whose folder is a link")
    assert snapshot_tree(outside) == before_out, f"the folder outside the store changed: {describe_diff(before_out, snapshot_tree(outside))}"
    assert snapshot_tree(store) == before_store, f"the store changed: {describe_diff(before_store, snapshot_tree(store))}"
    assert (store / "v").is_symlink()
    kinds = problem_kinds(check_store(store))
    assert kinds == {"symlink": 1}, kinds


def test_produce_refuses_linked_topic_folder(linked_topic):
    """`check` and the delete error say TwainMQ never writes through links: produce must not either."""
    store, outside = linked_topic
    before_out = snapshot_tree(outside)
    for args, stdin in ((["produce", "v", "--key", "3", "through the link"], None),
                        (["produce", "v", "--jsonl"], '{"key": 3, "payload": "through the link"}\n')):
        proc = run_cli(store, *args, input=stdin, check=False)
        after = snapshot_tree(outside)
        assert after == before_out, (
            f"`twainmq {' '.join(args)}` (exit {proc.returncode}) wrote through the link {store / 'v'} into {outside / 'vdir'}: "
            f"{describe_diff(before_out, after)}; stdout {proc.stdout.strip()!r}")
        _fails(proc, ["link"], f"produce into a topic whose folder is a link ({args[-1]})")


def test_reading_a_linked_topic_folder_is_refused(linked_topic):
    """Nothing outside the store is read: a topic folder that is a link (here to a
    folder outside the store) is refused for reading too, with an error naming it,
    and `check` reports it."""
    store, _ = linked_topic
    for args in (["consume", "v", "--json"], ["topics", "describe", "v"]):
        proc = run_cli(store, *args, check=False)
        _fails(proc, ["link"], f"`twainmq {' '.join(args)}` through a linked topic folder")
        assert "one" not in proc.stdout and "two" not in proc.stdout, proc.stdout


@pytest.mark.parametrize("target", ["existing", "dangling", "inside"])
@pytest.mark.parametrize("mode", ["key", "jsonl"])
def test_produce_refuses_linked_partition_file(tmp_path, target, mode):
    """Today's file of partition 0 is a link (to a file outside the store, to a
    missing file outside it, or to another topic's file): produce refuses, writes nothing anywhere."""
    env, day = _noon_env()
    store = tmp_path / "store"
    outside = tmp_path / "outside"
    store.mkdir()
    outside.mkdir()
    run_cli(store, "topics", "create", "p", "--key-type", "u32", "--partitions", 1, env=env)
    run_cli(store, "topics", "create", "other", "--key-type", "u32", "--partitions", 1, env=env)
    run_cli(store, "produce", "other", "--key", "1", "other's message", env=env)
    if target == "existing":
        dest = outside / "target.tmf"
        dest.write_bytes(b"")
    elif target == "dangling":
        dest = outside / "missing.tmf"
    else:
        dest = next((store / "other").glob("*.tmf"))
    link = store / "p" / f"0-{day}_0.tmf"
    link.symlink_to(dest)
    before_out, before_store = snapshot_tree(outside), snapshot_tree(store)
    if mode == "key":
        proc = run_cli(store, "produce", "p", "--key", "7", "through a link", check=False, env=env)
    else:
        proc = run_cli(store, "produce", "p", "--jsonl", input='{"key": 7, "payload": "through a link"}\n', check=False, env=env)
    assert snapshot_tree(outside) == before_out, f"written outside the store: {describe_diff(before_out, snapshot_tree(outside))}"
    assert snapshot_tree(store) == before_store, f"the store changed: {describe_diff(before_store, snapshot_tree(store))}"
    _fails(proc, ["link"], f"produce through a partition-file link ({target})")
    assert link.is_symlink() and not (target == "dangling" and dest.exists())


def test_check_flags_linked_partition_file(tmp_path):
    """produce refuses a linked partition file (test above) and tells the user to
    remove the link; `check` must list it too, not say "no problems found"."""
    env, day = _noon_env()
    store = tmp_path / "store"
    store.mkdir()
    (tmp_path / "outside.tmf").write_bytes(b"")
    run_cli(store, "topics", "create", "p", "--key-type", "u32", "--partitions", 1, env=env)
    (store / "p" / f"0-{day}_0.tmf").symlink_to(tmp_path / "outside.tmf")
    problems = check_store(store)
    assert any(p["kind"] == "symlink" and p["topic"] == "p" for p in problems), (
        f"check does not flag the linked partition file 0-{day}_0.tmf: {problems}")


# --------------------------------------------------------------------------
# A full disk and a read-only store (tmpfs mounts).


@contextmanager
def tmpfs(path, size):
    path.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {r.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(path)], capture_output=True)
        subprocess.run(["umount", str(path)], capture_output=True)
        if os.path.ismount(path):  # pragma: no cover
            subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _big_messages(n, seed, first_key=0):
    """Incompressible text payloads: ~2500-byte lines."""
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return [(first_key + i, f"big-{first_key + i}-" + "".join(rng.choices(alphabet, k=2000))) for i in range(n)]


def _jsonl(items):
    return "".join(json.dumps({"key": k, "payload": t}) + "\n" for k, t in items)


SPACE_WORDS = ["space", "disk", "full"]


@pytest.mark.parametrize("batch", [False, True], ids=["one-by-one", "batch"])
def test_full_disk(tmp_path, capsys, batch):
    with tmpfs(tmp_path / "mnt", "2m") as mnt:
        store = mnt / "store"
        store.mkdir()
        run_cli(store, "topics", "create", "t", "--key-type", "u32", "--partitions", 1)
        filler = mnt / "filler"
        filler.write_bytes(b"\0" * 1_000_000)
        first = _big_messages(2000, 1)  # ~5 MB: far more than fits
        proc = run_cli(store, "produce", "t", "--jsonl", *(["--batch"] if batch else []), input=_jsonl(first), check=False)
        _fails(proc, SPACE_WORDS, "produce on a full disk")
        # One by one, the count is exactly what landed. `--batch` sends lines
        # already read in as batches: the count is of messages before the failing
        # batch, which in a one-partition topic may have landed in part (a
        # prefix), never out of order.
        sent = int(proc.stderr.split("messages before it were sent: ", 1)[1].split(")", 1)[0].split(";", 1)[0])
        assert 0 < sent < len(first), proc.stderr
        if batch:
            # A batch reserves its space before writing, so the failed one left what it could
            # not reserve free (up to 64 KiB): fill that, so the disk is full again.
            fd = os.open(mnt / "top-up", os.O_WRONLY | os.O_CREAT)
            for size in (65536, 4096, 1):
                try:
                    while True:
                        os.write(fd, b"\0" * size)
                except OSError:
                    pass
            os.close(fd)
        full_problems = check_store(store)
        kinds = problem_kinds(full_problems)
        assert set(kinds) <= {"unfinished_line"} and kinds.get("unfinished_line", 0) <= 1, full_problems
        short_write = kinds.get("unfinished_line", 0) == 1
        # A short write is cut off again while nothing follows it: nothing of it is left.
        taken_back = "taken back" in proc.stderr
        assert not (taken_back and short_write), full_problems

        # still full: another produce fails cleanly too, and so does creating a topic
        again = run_cli(store, "produce", "t", "--key", "99999", "still full", check=False)
        # A batch reserves its space before writing (nothing of a failed write lands), and a
        # short write is cut off again: after either, the tail of the file's last page may
        # still take a small message.
        still_room = (batch or taken_back) and again.returncode == 0
        if not still_room:
            _fails(again, SPACE_WORDS, "produce on a disk that is still full")
        before = snapshot_tree(store)
        create = run_cli(store, "topics", "create", "u", "--key-type", "u8", check=False)
        _fails(create, SPACE_WORDS, "topics create on a full disk")
        assert not (store / "u").exists() and not (store / "u.twc").exists(), "a half-created topic was left behind"
        leftovers = sorted(set(os.listdir(store)) - {"t", "t.twc"})
        assert not leftovers, f"files left in the store after failed writes: {leftovers}"
        assert snapshot_tree(store) == before or short_write, describe_diff(before, snapshot_tree(store))

        # free space: producing works again, everything sent is readable
        filler.unlink()
        if batch:
            (mnt / "top-up").unlink()
        more = _big_messages(40, 2, first_key=100_000)
        run_cli(store, "produce", "t", "--jsonl", input=_jsonl(more))
        out = run_cli(store, "consume", "t", "--json")
        texts = [json.loads(l)["payload"]["value"] for l in out.stdout.splitlines()]
        extra = ["still full"] if still_room else []
        landed = len(texts) - len(more) - len(extra)
        want = [t for _, t in first[:landed]] + extra + [t for _, t in more]
        assert (sent <= landed if batch else sent == landed) and landed < len(first) and texts == want, (
            f"read {len(texts)} messages, expected a prefix of at least the {sent} sent before the disk filled, then the {len(more)} after")
        after_problems = check_store(store)
        after = problem_kinds(after_problems)
        if short_write:
            # the half line is ended by the next producer and skipped by readers
            assert after == {"damaged_line": 1}, after_problems
            assert out.stderr.lower().count("warning") >= 1
        else:
            assert after == {}, after_problems
        figures_line(f"full disk{' (--batch)' if batch else ''}", dict(sent_before_full=sent, landed=landed, error=proc.stderr.strip().splitlines()[-1][:300],
                                       still_full_error=(again.stderr.strip().splitlines() or ["(a small message still fitted the file's last page)"])[-1][:300],
                                       create_error=create.stderr.strip().splitlines()[-1][:300],
                                       left_by_short_write="one unfinished_line" if short_write else "nothing",
                                       check_after_recovery=after, readable=len(texts)), capsys)


def test_read_only_store(tmp_path, capsys):
    with tmpfs(tmp_path / "mnt", "4m") as mnt:
        store = mnt / "store"
        store.mkdir()
        run_cli(store, "topics", "create", "t", "--key-type", "u32", "--partitions", 2)
        items = [(k, f"ro-{k}") for k in range(1, 21)]
        run_cli(store, "produce", "t", "--jsonl", input=_jsonl(items))
        run_cli(store, "consume", "t", "--group", "g", "--json", "--rebalance-window", "0.3", "--for", "2")
        r = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"remounting read-only is not permitted here: {r.stderr.strip()}")
        assert not os.access(store, os.W_OK) or subprocess.run(["touch", str(store / "probe")], capture_output=True).returncode != 0
        before = snapshot_tree(store)
        ro_words = ["read-only", "read only", "readonly"]
        writes = {
            "produce": (["produce", "t", "--key", "1", "x"], None),
            "produce-jsonl": (["produce", "t", "--jsonl"], '{"key": 1, "payload": "x"}\n'),
            "topics-create": (["topics", "create", "u"], None),
            "topics-delete": (["topics", "delete", "t", "--yes"], None),
            "consume-group": (["consume", "t", "--group", "g", "--json", "--for", "2", "--rebalance-window", "0.3"], None),
            "consume-new-group": (["consume", "t", "--group", "g2", "--json", "--for", "2"], None),
            "groups-reset": (["groups", "reset", "g", "--to", "earliest"], None),
            "groups-rebalance": (["groups", "rebalance", "g", "--window", "1"], None),
        }
        errors = {}
        for name, (args, stdin) in writes.items():
            proc = run_cli(store, *args, input=stdin, check=False, timeout=60)
            _fails(proc, ro_words, f"{name} on a read-only store")
            errors[name] = proc.stderr.strip().splitlines()[-1]
        reads = {
            "consume": ["consume", "t", "--json"],
            "consume-partition": ["consume", "t", "--json", "--partition", "1"],
            "topics-list": ["topics", "list", "--json"],
            "topics-describe": ["topics", "describe", "t", "--json"],
            "groups-list": ["groups", "list", "--json"],
            "groups-describe": ["groups", "describe", "g", "--json"],
            "groups-reset-dry-run": ["groups", "reset", "g", "--to", "earliest", "--dry-run", "--json"],
            "check": ["check", "--json"],
        }
        outs = {}
        for name, args in reads.items():
            proc = run_cli(store, *args, check=False, timeout=60)
            no_panic(proc.stderr, name)
            assert proc.returncode == 0, f"{name} on a read-only store exited {proc.returncode}: {proc.stderr[-1000:]}"
            outs[name] = proc.stdout
        got = sorted(json.loads(l)["payload"]["value"] for l in outs["consume"].splitlines())
        assert got == sorted(t for _, t in items)
        assert json.loads(outs["check"]) == []
        assert json.loads(outs["groups-describe"])["committed"] == {"0": sum(1 for k, _ in items if _part(k) == 0),
                                                                     "1": sum(1 for k, _ in items if _part(k) == 1)}
        assert snapshot_tree(store) == before
        doubled = sorted(n for n, e in errors.items() if e.lower().count("(os error 30)") > 1)
        figures_line("read-only store", dict(errors=errors, errors_repeating_the_os_error=doubled), capsys)


def _part(key):
    from twainmq.encoding import partition_hash64

    return partition_hash64(key, 2)


@pytest.mark.parametrize("batch", [False, True], ids=["one-by-one", "batch"])
@pytest.mark.parametrize("bad", ["key", "too_long", "not_json"])
def test_jsonl_bad_line_stops_with_everything_before_it_sent(tmp_path, bad, batch):
    """A bad line stops `produce --jsonl` with everything before it sent, in
    order, and its line number named; also with `--batch`, which sends lines
    already read in as batches."""
    store = tmp_path / "store"
    store.mkdir()
    run_cli(store, "topics", "create", "t", "--key-type", "u8", "--partitions", 3)
    lines = [json.dumps({"key": i % 200, "payload": f"m{i}"}) for i in range(3000)]
    lines.insert(10, "")  # blank lines are skipped, and still counted as lines
    bad_at = 2500  # 0-based index in `lines`
    lines[bad_at] = {
        "key": json.dumps({"key": 300, "payload": "key out of range"}),
        "too_long": json.dumps({"key": 1, "payload": {"type": "bytes", "hex": os.urandom(4000).hex()}}),
        "not_json": "{not json",
    }[bad]
    proc = run_cli(store, "produce", "t", "--jsonl", *(["--batch"] if batch else []), input="\n".join(lines) + "\n", check=False)
    assert proc.returncode != 0, proc.stderr
    no_panic(proc.stderr, "produce --jsonl with a bad line")
    assert f"input line {bad_at + 1} (messages before it were sent: {bad_at - 1})" in proc.stderr, proc.stderr
    out = run_cli(store, "consume", "t", "--json")
    got = sorted(int(json.loads(l)["payload"]["value"][1:]) for l in out.stdout.splitlines())
    assert got == list(range(bad_at - 1)), f"read {len(got)} messages, expected the {bad_at - 1} before the bad line"
    per_partition = {}
    for l in out.stdout.splitlines():
        m = json.loads(l)
        per_partition.setdefault(m["partition"], []).append(int(m["payload"]["value"][1:]))
    assert all(v == sorted(v) for v in per_partition.values()), "a partition's messages are out of input order"
