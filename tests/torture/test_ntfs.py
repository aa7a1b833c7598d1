"""A store on a real NTFS volume: ntfs-3g on a loop device (issue 11, items 12 and 13).

ntfs-3g mounts as `fuseblk`, the way a Windows disk or a USB drive appears on
Linux. It is a local disk: `twainmq check` must not call it a network share,
and our producers must not lock every append there. And concurrent appends by
6 of our producers (`produce --jsonl`, fed from a pipe) and 2 of 0.2.3's to
one topic must lose, duplicate or tear nothing, with every producer ending
well (a producer whose read of a file's tail came back short while others
appended used to stop with "failed to fill whole buffer").

The volume: a sparse image file, `mkntfs`, `losetup`, `ntfs-3g`, mounted on a
folder whose name has a space (the mount table escapes it as \\040). It is
unmounted and detached after the module's tests, whatever happened. Skipped,
with the reason, when not root or when FUSE, loop devices, mkntfs or ntfs-3g
are missing (`scripts/deps.sh` installs ntfs-3g).

TORTURE_SCALE=short (default): 2,500 messages per writer, ~20 s.
TORTURE_SCALE=long: 25,000 per writer, three runs.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from torture_common import (
    CLOCK_ENV,
    FEEDER,
    KEY_STRIDE,
    LONG,
    PY_WRITER,
    SCALE,
    Consumed,
    Expected,
    Procs,
    check_store,
    cli_cmd,
    figures_line,
    no_panic,
    noon_offset,
    problem_kinds,
    read_all_to_file,
    run_cli,
    wait_until,
)
from conftest import twainmq  # noqa: F401  (fixture: asserts twainmq==0.2.3)
from test_rust_writes_py_reads import py_read  # tests/interop: every message of a topic, read by 0.2.3

TOPIC = "ntfs"
PARTS = 2  # few partitions: many writers on each file
CLI_IDS = [100 + i for i in range(6)]
PY_IDS = [0, 1]
PER_WRITER = 25_000 if LONG else 2_500
RUNS = 3 if LONG else 1
IMAGE_MB = 2048 if LONG else 256
UNPACED = 1e9  # messages/s: the feeders and 0.2.3 writers go as fast as they can
NETWORK_WORDS = ("network file system", "network_filesystem")


def _run(*cmd, timeout=60):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)


def _mount_line(mount_point):
    """The /proc/self/mountinfo fields of the mount on `mount_point` (the last, if stacked)."""
    escaped = str(mount_point).replace("\\", "\\134").replace(" ", "\\040").replace("\t", "\\011").replace("\n", "\\012")
    found = None
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split(" ")
        if len(fields) > 4 and fields[4] == escaped:
            found = fields
    return found


def _ntfs_unavailable():
    """Why an ntfs-3g volume cannot be made here, or None."""
    if not sys.platform.startswith("linux"):
        return "not Linux"
    if os.geteuid() != 0:
        return "needs root (losetup and a fuseblk mount)"
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse (FUSE is not available)"
    if not os.path.exists("/dev/loop-control") and not any(Path("/dev").glob("loop[0-9]*")):
        return "no loop devices (/dev/loop-control)"
    for tool in ("mkntfs", "ntfs-3g", "losetup"):
        if shutil.which(tool) is None and not os.path.exists(f"/sbin/{tool}") and not os.path.exists(f"/usr/sbin/{tool}"):
            return f"{tool} not found (apt-get install ntfs-3g, or run scripts/deps.sh)"
    return None


def _tool(name):
    return shutil.which(name) or next(p for p in (f"/usr/sbin/{name}", f"/sbin/{name}") if os.path.exists(p))


@pytest.fixture(scope="module")
def ntfs(tmp_path_factory):
    """The mount point (a Path) of a fresh ntfs-3g volume on a loop device."""
    why = _ntfs_unavailable()
    if why:
        pytest.skip(f"no ntfs-3g volume: {why}")
    base = tmp_path_factory.mktemp("ntfs")
    image = base / "volume.img"
    mnt = base / "ntfs volume"
    mnt.mkdir()
    with open(image, "wb") as f:
        f.truncate(IMAGE_MB << 20)  # sparse: costs only what is written
    made = _run(_tool("mkntfs"), "-F", "-f", "-q", image)
    assert made.returncode == 0, f"mkntfs failed: {made.stderr}"
    loop = _run(_tool("losetup"), "-f", "--show", image)
    if loop.returncode != 0:
        pytest.skip(f"no free loop device: losetup -f says {loop.stderr.strip()!r}")
    dev = loop.stdout.strip()
    mounted = False
    try:
        m = _run(_tool("ntfs-3g"), dev, mnt)
        if m.returncode != 0:
            pytest.skip(f"ntfs-3g could not mount {dev} (FUSE not usable here?): {m.stderr.strip()[-500:]}")
        mounted = True
        line = _mount_line(mnt)
        assert line is not None and "-" in line, f"{mnt} is not in /proc/self/mountinfo after ntfs-3g"
        fstype = line[line.index("-", 6) + 1]
        assert fstype == "fuseblk", f"ntfs-3g mounted {mnt} as {fstype!r}, not fuseblk: this test's premise is gone"
        yield mnt
    finally:
        if mounted:
            _unmount(mnt)
        _detach(dev)


def _unmount(mnt):
    # Every process of the tests has been killed (Procs); a lazy unmount is the
    # fallback if something still holds a file there.
    for cmd in (["umount", mnt], ["fusermount", "-u", mnt], ["umount", "-l", mnt]):
        if shutil.which(cmd[0]) and _run(*cmd).returncode == 0:
            break
    # ntfs-3g writes the volume back and exits after the unmount; the loop
    # device is busy until it has.
    wait_until(lambda: _mount_line(mnt) is None, 30, f"{mnt} to be unmounted")


def _detach(dev):
    for _ in range(50):
        if _run(_tool("losetup"), "-d", dev).returncode == 0:
            return
        time.sleep(0.2)
    pytest.fail(f"could not detach {dev} (losetup -d): still busy after 10 s")


def _fresh_store(ntfs, name):
    store = ntfs / name
    store.mkdir()
    return store


# --------------------------------------------------------------------------
# Item 12: a local NTFS disk is not a network share.


def test_check_and_producers_take_ntfs_3g_as_local(ntfs, tmp_path, capsys):
    store = _fresh_store(ntfs, "check")
    run_cli(store, "topics", "create", "t", "--key-type", "u32", "--partitions", 2)
    produced = run_cli(store, "produce", "t", "--key", 7, "hello from NTFS")
    lines = "".join(f'{{"key": {k}, "payload": "m{k}"}}\n' for k in range(50))
    streamed = run_cli(store, "produce", "t", "--jsonl", input=lines)
    # the same store through a symbolic link from outside the volume: the mount
    # is found from the real path
    link = tmp_path / "store-link"
    link.symlink_to(store)
    problems = check_store(store)
    problems_via_link = check_store(link)
    figures_line("ntfs check", dict(check=problem_kinds(problems), via_link=problem_kinds(problems_via_link),
                                    producer_warnings=[l for l in (produced.stderr + streamed.stderr).splitlines() if l.strip()]), capsys)
    for what, p in (("check", problems), ("check through a link", problems_via_link)):
        assert not [x for x in p if x["kind"] == "network_filesystem"], f"{what} calls a local ntfs-3g volume a network share: {p}"
        assert not p, f"{what} found problems in a fresh store on ntfs-3g: {p}"
    for proc in (produced, streamed):
        assert not any(w in proc.stderr for w in NETWORK_WORDS), f"the producer took ntfs-3g for a network file system (locks each append): {proc.stderr}"
    assert "sent 50 messages" in streamed.stderr, streamed.stderr
    read = run_cli(store, "consume", "t", "--json")
    assert len(read.stdout.splitlines()) == 51


# --------------------------------------------------------------------------
# Item 13: concurrent appends by our and 0.2.3's producers on ntfs-3g.


def _writers_run(store, tmp_path, offset):
    """Start the 8 writers on one GO, wait for them; return {writer: (returncode, stderr)},
    the 0.2.3 writers' status files and the seconds they took."""
    go_file = tmp_path / "GO"
    status = {}
    with Procs(tmp_path / "logs") as procs:
        wprocs = {}
        for w in PY_IDS:
            wprocs[w] = procs.start(f"py-writer-{w}", [
                sys.executable, PY_WRITER, store, TOPIC, w, PER_WRITER, repr(offset), UNPACED, go_file,
                tmp_path / f"ready-{w}", tmp_path / f"status-{w}.json"])
        for w in CLI_IDS:
            feeder = [sys.executable, FEEDER, w, PER_WRITER, UNPACED, go_file, tmp_path / f"ready-{w}"]
            pipeline = ("set -o pipefail; " + " ".join(shlex.quote(str(a)) for a in feeder) + " | "
                        + " ".join(shlex.quote(a) for a in cli_cmd(store, "produce", TOPIC, "--jsonl")))
            wprocs[w] = procs.start(f"cli-writer-{w}", ["bash", "-c", pipeline])

        def ready():
            for w, p in wprocs.items():
                if not p.alive():
                    pytest.fail(f"writer {w} died before GO\n{p.tail()}")
            return all((tmp_path / f"ready-{w}").exists() for w in wprocs)

        wait_until(ready, 120, "the writers to get ready")
        t_go = time.time()
        (tmp_path / "GO.tmp").write_text(repr(t_go))
        os.replace(tmp_path / "GO.tmp", go_file)
        deadline = time.monotonic() + (1800 if LONG else 300)
        while any(p.alive() for p in wprocs.values()):
            if time.monotonic() > deadline:
                pytest.fail("writers still running: " + ", ".join(p.name for p in wprocs.values() if p.alive()))
            time.sleep(0.1)
        seconds = time.time() - t_go
        ends = {w: (p.popen.returncode, p.stderr_text()) for w, p in wprocs.items()}
    for w in PY_IDS:
        path = tmp_path / f"status-{w}.json"
        status[w] = json.loads(path.read_text()) if path.exists() else {"written": None, "error": "no status file"}
    return ends, status, seconds


@pytest.mark.parametrize("run_no", range(RUNS))
def test_concurrent_producers_on_ntfs_3g(ntfs, tmp_path, twainmq, capsys, monkeypatch, run_no):
    """6 CLI producers and 2 0.2.3 producers, unpaced, on one 2-partition topic
    of an ntfs-3g volume: every producer exits 0 having sent everything, the
    full read has every message once, untorn, in each writer's order, our read
    and 0.2.3's read agree, and `check` finds nothing."""
    from twainmq.encoding import partition_hash64

    t0 = time.monotonic()
    offset, _day = noon_offset()  # far from midnight: one file per partition
    monkeypatch.setenv(CLOCK_ENV, repr(offset))
    store = _fresh_store(ntfs, f"concurrent-{run_no}")
    run_cli(store, "topics", "create", TOPIC, "--key-type", "u32", "--partitions", PARTS)
    writers = PY_IDS + CLI_IDS
    expected = Expected({w: PER_WRITER for w in writers})

    ends, py_status, write_s = _writers_run(store, tmp_path, offset)
    failed = {}
    for w, (rc, err) in ends.items():
        no_panic(err, f"writer {w}")
        if w in PY_IDS:
            st = py_status[w]
            if rc != 0 or st["error"] or st["written"] != PER_WRITER:
                failed[w] = f"0.2.3 writer exit {rc}, status {st}"
        elif rc != 0 or f"sent {PER_WRITER} messages" not in err:
            failed[w] = f"exit {rc}: " + " | ".join(l for l in err.splitlines()[-3:])
    cli_warnings = sorted({l.split("WARN", 1)[1].split(" topic=")[0].strip() for w in CLI_IDS for l in ends[w][1].splitlines() if "WARN" in l})

    # ---- the full read by our CLI
    read_path = tmp_path / "final.jsonl"
    read_err = read_all_to_file(store, TOPIC, read_path)
    final = Consumed(expected, read_path, keep_positions=True)
    final.poll()
    # limit what is expected to what each producer reported sent (a stopped
    # producer's unsent messages are counted as `unsent`, not lost)
    sent = {w: (py_status[w]["written"] or 0) if w in PY_IDS else (PER_WRITER if w not in failed else 0) for w in writers}
    for w in CLI_IDS:
        if w in failed:  # what the store holds of it, for the figures: its prefix
            sent[w] = sum(1 for k in final.keys if k // KEY_STRIDE == w)
    present = expected.keys(sent)
    seen = final.keys
    lost = sorted(k for k in present if k not in seen)
    dups = sorted(k for k, c in seen.items() if c > 1)
    alien = sorted(k for k in seen if k not in present)
    torn = final.invalid + [b.decode("utf-8", "replace") for b in final.tail.bad]

    order_errors = []
    wrong_partition = []
    offsets = defaultdict(list)
    last_seq = {}
    ours = defaultdict(list)
    for p, o, key in final.records:
        w, seq = divmod(key, KEY_STRIDE)
        if partition_hash64(key, PARTS) != p:
            wrong_partition.append((p, key))
        if o != len(offsets[p]):
            order_errors.append(f"partition {p}: offset {o} at position {len(offsets[p])}")
        offsets[p].append(o)
        if seq <= last_seq.get((p, w), -1):
            order_errors.append(f"partition {p}: writer {w} seq {seq} after {last_seq[(p, w)]}")
        last_seq[(p, w)] = seq
        ours[p].append((o, key))

    # ---- the full read by 0.2.3, message for message the same
    theirs = py_read(twainmq.Twain(str(store)), TOPIC, PARTS)
    read_differences = []
    for p in range(PARTS):
        mine = ours[p]
        other = [(m.offset, m.key) for m in theirs[p]]
        if mine != other:
            at = next((i for i, (a, b) in enumerate(zip(mine, other)) if a != b), min(len(mine), len(other)))
            read_differences.append(f"partition {p}: ours {len(mine)} messages, 0.2.3's {len(other)}, first difference at #{at}")

    problems = check_store(store)
    figures_line(f"ntfs-3g concurrent #{run_no}", dict(
        scale=SCALE, writers=f"{len(writers)} ({len(PY_IDS)} x 0.2.3, {len(CLI_IDS)} x CLI produce --jsonl)",
        partitions=PARTS, messages=expected.total(), write_s=round(write_s, 1),
        msg_per_s=round(expected.total() / write_s) if write_s else None,
        stopped_producers=failed, unsent=expected.total() - sum(sent.values()),
        lost=len(lost), duplicated=len(dups), torn=len(torn), alien=len(alien),
        per_partition=[len(offsets[p]) for p in range(PARTS)], order_errors=len(order_errors),
        cli_vs_023_read="same" if not read_differences else read_differences,
        check=problem_kinds(problems), producer_warnings=cli_warnings,
        seconds=round(time.monotonic() - t0, 1)), capsys)

    assert not failed, f"{len(failed)} producers did not send everything: {failed}"
    assert not torn, f"{len(torn)} torn or altered messages, e.g. {torn[:3]}"
    assert not lost, f"{len(lost)} messages lost, e.g. {lost[:5]}"
    assert not dups, f"{len(dups)} messages duplicated, e.g. {dups[:5]}"
    assert not alien, f"{len(alien)} unexpected messages, e.g. {alien[:5]}"
    assert not wrong_partition, f"{len(wrong_partition)} messages in the wrong partition, e.g. {wrong_partition[:3]}"
    assert not order_errors, f"{len(order_errors)} order/offset errors, e.g. {order_errors[:5]}"
    assert not read_differences, read_differences
    assert not problems, f"check: {problems[:5]}"
    assert not any("warn" in l.lower() for l in read_err.splitlines()), f"the full read warned: {read_err[-2000:]}"
    assert not [w for w in cli_warnings if "network" in w], f"our producers took ntfs-3g for a network file system: {cli_warnings}"
