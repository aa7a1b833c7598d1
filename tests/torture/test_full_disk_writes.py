"""A group write that meets a full disk, on tmpfs, ext4, XFS, btrfs and NTFS (ntfs-3g).

0.2.3 reads a group's whole log each time a member joins and dies on a line it
cannot decode, so a group record torn by a full disk ("short write 21 of 66
bytes") stops every 0.2.3 member from joining that group for good. A failed
append to a group log must leave nothing there: our group writes reserve their
space first (`fallocate`, where the file system has it: tmpfs, ext4, XFS,
btrfs), and a short write that happens anyway (ntfs-3g has no `fallocate`) is
cut off again while it is the file's last bytes.

Each file system gets a small fresh volume (a tmpfs, or an image on a loop
device), unmounted and deleted afterwards whatever happened. On it: a topic
and a group made by our CLI; the group's log padded with records 0.2.3 writes
until its next record crosses into an allocation unit the full disk does not
have; the disk filled; then `groups reset` and a member of ours write to the
group and fail. Checked: the log ends in a newline and 0.2.3 reads every line
of it; once space is freed a 0.2.3 member joins the group and reads from its
commit, and so does one of ours.

Skipped, with the reason, when not root or a tool or kernel module is missing.
"""

import contextlib
import errno
import json
import os
import shutil
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from torture_common import run_cli
from conftest import twainmq  # noqa: F401  (fixture: asserts twainmq==0.2.3)

# name: (image MB, mkfs command, mount command) ; tmpfs and ntfs-3g are special.
VOLUMES = {
    "tmpfs": None,
    "ext4": (16, ["mkfs.ext4", "-q", "-F", "-b", "4096"], None),
    # XFS wants 300 MB at least; speculative preallocation past a file's end would
    # hide the full disk from an append: allocsize keeps it to one block.
    "xfs": (320, ["mkfs.xfs", "-f", "-q"], "allocsize=4k"),
    "btrfs": (128, ["mkfs.btrfs", "-f", "-q", "--mixed"], None),
    "ntfs": (8, ["mkntfs", "-F", "-f", "-q"], None),
}


def _run(*cmd, timeout=120):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)


def _tool(name):
    return shutil.which(name) or next((f"{d}/{name}" for d in ("/usr/sbin", "/sbin") if os.path.exists(f"{d}/{name}")), None)


@contextlib.contextmanager
def volume(tmp_path, fs):
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("needs root on Linux (mount)")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if fs == "tmpfs":
        r = _run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt)
        if r.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
        try:
            yield mnt
        finally:
            _run("umount", mnt)
            if os.path.ismount(mnt):
                _run("umount", "-l", mnt)
        return
    size_mb, mkfs, options = VOLUMES[fs]
    if _tool(mkfs[0]) is None:
        pytest.skip(f"{mkfs[0]} not found (scripts/deps.sh installs it)")
    if fs != "ntfs" and fs not in Path("/proc/filesystems").read_text().split():
        _run("modprobe", "-q", fs)
        if fs not in Path("/proc/filesystems").read_text().split():
            pytest.skip(f"the kernel has no {fs}")
    if fs == "ntfs" and (_tool("ntfs-3g") is None or not os.path.exists("/dev/fuse")):
        pytest.skip("ntfs-3g or /dev/fuse missing")
    image = tmp_path / f"{fs}.img"
    with open(image, "wb") as f:
        f.truncate(size_mb << 20)
    r = _run(_tool(mkfs[0]), *mkfs[1:], image)
    if r.returncode != 0:
        pytest.skip(f"{mkfs[0]} failed: {r.stderr.strip()[-300:]}")
    r = _run("losetup", "-f", "--show", image)
    if r.returncode != 0:
        pytest.skip(f"no loop device: {r.stderr.strip()}")
    dev = r.stdout.strip()
    try:
        if fs == "ntfs":
            r = _run(_tool("ntfs-3g"), dev, mnt)
        else:
            r = _run("mount", "-t", fs, *(["-o", options] if options else []), dev, mnt)
        if r.returncode != 0:
            pytest.skip(f"cannot mount {fs}: {r.stderr.strip()}")
        try:
            yield mnt
        finally:
            for _ in range(20):
                if _run("umount", mnt).returncode == 0 or not os.path.ismount(mnt):
                    break
                time.sleep(0.25)
            if os.path.ismount(mnt):
                _run("umount", "-l", mnt)
    finally:
        _run("losetup", "-d", dev)
        image.unlink(missing_ok=True)


def fill(mnt):
    """Fill the volume to its last byte (ENOSPC even for one byte)."""
    filler = mnt / "filler"
    free = shutil.disk_usage(mnt).free
    with open(filler, "wb") as f:
        try:
            os.posix_fallocate(f.fileno(), 0, max(0, free - (256 << 10)))
        except OSError:
            pass
    fd = os.open(filler, os.O_WRONLY | os.O_APPEND)
    try:
        for size in (1 << 20, 1 << 16, 4096, 512, 64, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as e:
                if e.errno not in (errno.ENOSPC, errno.EDQUOT):
                    raise
        # Other files of the volume may hold room past their ends: take what is left.
        extra = mnt / "filler2"
        with contextlib.suppress(OSError):
            with open(extra, "ab") as f2:
                for _ in range(1 << 16):
                    f2.write(b"\0")
                    f2.flush()
    finally:
        os.close(fd)
    return filler


def group_log_files(store, group):
    return sorted((store / f"--group--{group}").iterdir(), key=lambda f: int(f.stem.split("_")[1]))


def read_023(twainmq, store, group):
    from twainmq.consumer import TwainMQConsumerlet

    cl = TwainMQConsumerlet(twainmq.Twain(str(store)), f"--group--{group}", 0, offset=0)
    out = []
    while (m := cl.poll()) is not None:
        out.append(m)
    return out


def pad_group_log(twainmq, store, group, unit, room):
    """Append `ABORTJOIN` records under key 0 as 0.2.3 writes them (every
    member passes over them) until the log is past one allocation unit and its
    last unit has between room[0] and room[1] bytes left."""
    from twainmq.consumer_groups import AbortJoin

    tmq = twainmq.Twain(str(store))
    prod = tmq.producer(f"--group--{group}")
    # The line length of a record with each tag size.
    sizes = {}
    for digits in range(1, 20):
        tag = int("9" * digits)
        sizes.setdefault(16 + len(prod.encode_message(AbortJoin(tag))), tag)
    (log,) = group_log_files(store, group)
    for _ in range(10_000):
        size = log.stat().st_size
        left = (-size) % unit
        if size > unit and room[0] <= left <= room[1]:
            return size
        fits = [n for n in sizes if room[0] <= (left - n) % unit <= room[1]]
        n = min(fits) if fits and size + min(fits) > unit else min(sizes)
        prod.write_message(0, AbortJoin(sizes[n]))
    raise AssertionError("could not pad the group log")


@pytest.mark.parametrize("fs", list(VOLUMES))
def test_a_group_write_on_a_full_disk_leaves_nothing_0_2_3_cannot_read(tmp_path, twainmq, monkeypatch, fs):
    import twainmq.consumer as consumer_mod

    monkeypatch.setattr(consumer_mod, "REBAL_LENGTH", timedelta(seconds=0.3))
    with volume(tmp_path, fs) as mnt:
        store = mnt / "store"
        store.mkdir()
        run_cli(store, "topics", "create", "t", "--key-type", "u32", "--partitions", "1")
        run_cli(store, "produce", "t", "--jsonl", input="".join(f'{{"key": {i}, "payload": "m{i}"}}\n' for i in range(20)))
        run_cli(store, "consume", "t", "--group", "g", "--max", "3", "--commit-every", "1", "--rebalance-window", "0.3")
        unit = os.statvfs(mnt).f_bsize
        # A commit record under key 0 is about 55 bytes: it ends past the unit.
        pad_group_log(twainmq, store, "g", unit, (20, 39))
        (log,) = group_log_files(store, "g")
        filler = fill(mnt)
        before = log.read_bytes()
        r = run_cli(store, "groups", "reset", "g", "--to", "earliest", check=False)
        assert r.returncode != 0, f"{fs}: the reset did not meet the full disk: {r.stdout} {r.stderr}"
        assert "space" in r.stderr.lower() or "full" in r.stderr.lower(), r.stderr
        # What held: the reservation where the file system has one, else the cut.
        how = "taken back" if fs == "ntfs" else "make room"
        assert how in r.stderr, f"{fs}: {r.stderr}"
        r = run_cli(store, "consume", "t", "--group", "g", "--max", "1", "--rebalance-window", "0.3", check=False)
        after = log.read_bytes()
        assert after.endswith(b"\n"), f"{fs}: a torn record is left: {after[len(before):]!r} ({r.stderr[-500:]})"
        records = read_023(twainmq, store, "g")
        assert len(records) == after.count(b"\n"), f"{fs}: 0.2.3 reads every line"
        # Space again: 0.2.3 joins at the group's commit, 3, and so does one of ours after it.
        filler.unlink()
        with contextlib.suppress(FileNotFoundError):
            (mnt / "filler2").unlink()
        tmq = twainmq.Twain(str(store))
        member = tmq.consumer("t", group="g")
        got = []
        deadline = time.monotonic() + 10
        while len(got) < 2 and time.monotonic() < deadline:
            m = member.poll()
            if m is None:
                time.sleep(0.05)
            else:
                got.append(m.offset)
        assert got == [3, 4], f"{fs}: {got}"
        member.commit()
        out = run_cli(store, "consume", "t", "--group", "g", "--max", "1", "--rebalance-window", "0.3", "--json").stdout
        assert [json.loads(x)["offset"] for x in out.splitlines()] == [5], out
        assert run_cli(store, "check", check=False).returncode == 0


@pytest.mark.parametrize("fs", ["tmpfs", "ntfs"])
@pytest.mark.parametrize("json_out", [False, True], ids=["text", "json"])
def test_an_import_stopped_by_a_full_disk_reports_exactly_what_landed(tmp_path, twainmq, fs, json_out):
    """A 4-partition import into a disk that fills: a batch goes to every
    partition, so a failed batch can land in some partitions and not others.
    The report (text and --json) says exactly which input lines are in the
    topic: every line before the one it stopped at, and any after it that
    landed anyway (with a reservation first, where the file system has one,
    none do: what landed is a true prefix)."""
    import random

    with volume(tmp_path, fs) as mnt:
        store = mnt / "store"
        store.mkdir()
        run_cli(store, "topics", "create", "t", "--key-type", "u32", "--partitions", "4")
        rng = random.Random(7)
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
        # About 220 bytes a line in the topic: a batch of 4,096 lines is some 900 KB.
        n = 20_000
        inp = tmp_path / "in.jsonl"
        inp.write_text("".join(json.dumps({"key": i, "payload": "".join(rng.choices(alphabet, k=200))}) + "\n" for i in range(n)))
        free = shutil.disk_usage(mnt).free
        filler = mnt / "filler"
        with open(filler, "wb") as f:
            f.write(b"\0" * max(0, free - (2 << 20)))  # about 2 MB left: two batches and part of a third
        r = run_cli(store, "import", "t", inp, *(["--json"] if json_out else []), check=False)
        assert r.returncode != 0, r.stdout
        assert "space" in r.stderr.lower(), r.stderr
        filler.unlink()
        landed = sorted(json.loads(x)["key"] + 1 for x in run_cli(store, "export", "t").stdout.splitlines())
        assert 0 < len(landed) < n
        if json_out:
            report = json.loads(r.stdout)
            stop = report["stopped"]
            line, after = stop["line"], stop["landed_after"]
            assert report["messages"] == len(landed), report
            assert sum(report["partitions"]) == len(landed), report
        else:
            # "import stopped at input line N: every line before it is in the topic ..."
            text = r.stderr
            line = int(text.split("stopped at input line ")[1].split(":")[0].split(" ")[0])
            assert f"{len(landed)} messages" in text, text
            after = []
            if "lines after it" in text:
                after = None  # named in full by --json only
        prefix = list(range(1, line))
        if after is None:
            assert landed[: line - 1] == prefix
        else:
            assert landed == sorted(prefix + after), f"{fs}: lines before {line} and {after[:10]}... vs {landed[:5]}..."
        # 0.2.3 reads the same messages (no half line anywhere), and writes and reads on.
        from twainmq.consumer import TwainMQConsumerlet

        tmq = twainmq.Twain(str(store))
        py_keys = []
        for p in range(4):
            cl = TwainMQConsumerlet(tmq, "t", p, offset=0)
            while (m := cl.poll()) is not None:
                py_keys.append(m.key + 1)
        assert sorted(py_keys) == landed
        now = tmq.consumer("t", start_from="now")
        tmq.producer("t").write_message(123_456, "after the full disk")
        assert [m.message for m in iter(now.poll, None)] == ["after the full disk"]
        if fs == "tmpfs":
            assert landed == prefix, "reserved first: a true prefix"
        elif json_out:
            # ntfs-3g reserves nothing: the failed batch landed in the partitions written before.
            assert after, f"{fs}: expected lines past the stop (no reservation there)"
        print(f"[{fs}] stopped at line {line}, {len(landed)} landed, {len(after or [])} after it; {r.stderr.strip()[-400:]}")


def test_retention_set_on_a_full_disk_leaves_no_temporary_file(tmp_path):
    """The new config is written beside the old and renamed over it: on a full
    disk the write fails and the temporary file goes too (it was left as
    `t.twc.retention-tmp`, a name every process shared)."""
    with volume(tmp_path, "tmpfs") as mnt:
        store = mnt / "store"
        store.mkdir()
        run_cli(store, "topics", "create", "t")
        run_cli(store, "retention", "set", "t", "--days", "7")
        before = sorted(p.name for p in store.iterdir())
        config = (store / "t.twc").read_bytes()
        filler = fill(mnt)
        r = run_cli(store, "retention", "set", "t", "--days", "3", check=False)
        assert r.returncode != 0 and "space" in r.stderr.lower(), r.stderr
        assert sorted(p.name for p in store.iterdir()) == before
        assert (store / "t.twc").read_bytes() == config, "the old setting stays, whole"
        filler.unlink()
        run_cli(store, "retention", "set", "t", "--days", "3")
        assert sorted(p.name for p in store.iterdir()) == before
