"""The concurrent-append, SIGKILL and midnight torture on real XFS and btrfs
volumes (engine round 3, item 22).

docs/USING.md names XFS among the local file systems where O_APPEND is atomic
between processes; the other torture runs use the test machine's own disk
(ext4) and ntfs-3g. Here each file system gets a fresh volume: a sparse image
file, `mkfs.xfs` / `mkfs.btrfs`, `losetup`, `mount`, unmounted, detached and
deleted after the module's tests on it, whatever happened. Then, on it:

- `twainmq check` and our producers take it as a local disk (its `statfs`
  magic, 0x58465342 for XFS and 0x9123683E for btrfs, is not one of the network
  ones in crates/twainmq/src/sys/kind.rs): test_ntfs.py's check test.
- concurrent appends: 6 of our producers and 2 of 0.2.3's, unpaced, on one
  2-partition topic (test_ntfs.py's test_concurrent_producers_on_ntfs_3g):
  nothing lost, duplicated, torn or out of order, one message per offset, our
  read and 0.2.3's the same, `check` clean.
- SIGKILLs: our producers killed mid-write again and again under a follower
  (test_crash.py's test_producer_sigkills): no duplicate, no hole, `check`
  clean but for the damaged lines a kill explains.
- midnight: three of our producers with clocks 0.25 / 0.55 s apart through a
  UTC midnight into one partition (test_rollover_skew.py's
  test_rollover_skewed_ours): no offset given twice, no message lost or
  duplicated, `check` clean.

The bodies are those tests' own, called with a folder on the volume as the
store's parent (they take it as a parameter); this file makes the volumes,
checks that each store really was on the file system under test (the mount
holding it, in /proc/self/mountinfo, has the right type and device), and
prints each run's figures line under a tag naming the file system (the
borrowed bodies' assertion messages still say "ntfs-3g" where they do).

Skipped, with the reason, when not root, when loop devices are missing, when
the kernel has no such file system, or when mkfs.xfs / mkfs.btrfs are missing
(`scripts/deps.sh` installs xfsprogs and btrfs-progs). Once the volume is
mounted a wrong result fails.

TORTURE_SCALE=short (`make test`): one run of each per file system, about a
minute for both. TORTURE_SCALE=long (`make torture`): the long scales of the
borrowed tests (25,000 messages per writer, 220 kills, 20 s of writing around
midnight), two concurrent and two midnight runs per file system.
"""

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from torture_common import LONG
from conftest import twainmq  # noqa: F401  (fixture: asserts twainmq==0.2.3)

# Imported as modules, never by their test functions' names (pytest would
# collect those here a second time).
import test_crash as _crash
import test_ntfs as _ntfs
import test_rollover_skew as _skew

FILESYSTEMS = {
    # name: (mkfs tool, its arguments, Debian package, statfs magic)
    "xfs": ("mkfs.xfs", ["-f", "-q"], "xfsprogs", 0x58465342),
    "btrfs": ("mkfs.btrfs", ["-f", "-q"], "btrfs-progs", 0x9123683E),
}
IMAGE_MB = 4096 if LONG else 1024  # sparse; XFS wants at least 300 MB
CONCURRENT_RUNS = 2 if LONG else 1
MIDNIGHT_ROUNDS = 2 if LONG else 1


def _unescape(field):
    """A /proc/self/mountinfo path field, its octal escapes (\\040 ...) undone."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field)


def mount_of(path):
    """(fstype, 'major:minor', mount point, source) of the mount holding `path` (its real path)."""
    real = os.path.realpath(path)
    best = None
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split(" ")
        sep = fields.index("-", 6)
        mp = _unescape(fields[4])
        if real == mp or real.startswith(mp.rstrip("/") + "/"):
            if best is None or len(mp) >= len(best[2]):  # the deepest, and the last of stacked mounts
                best = (fields[sep + 1], fields[2], mp, _unescape(fields[sep + 2]))
    return best


def statfs_magic(path):
    """`statfs`'s f_type of `path` (coreutils' stat -f), or None."""
    out = subprocess.run(["stat", "-f", "-c", "%t", str(path)], capture_output=True, text=True)
    return int(out.stdout.strip(), 16) if out.returncode == 0 else None


def _unavailable(fs):
    """Why a volume of `fs` cannot be made here, or None."""
    tool, _args, package, _magic = FILESYSTEMS[fs]
    if not sys.platform.startswith("linux"):
        return "not Linux"
    if os.geteuid() != 0:
        return "needs root (losetup and mount)"
    if not os.path.exists("/dev/loop-control") and not any(Path("/dev").glob("loop[0-9]*")):
        return "no loop devices (/dev/loop-control)"

    def known():
        return fs in Path("/proc/filesystems").read_text().split()

    if not known() and shutil.which("modprobe"):
        subprocess.run(["modprobe", "-q", fs], capture_output=True)
    if not known():
        return f"the kernel has no {fs} (not in /proc/filesystems, modprobe {fs} did not add it)"
    for t in (tool, "losetup", "mount", "umount"):
        if shutil.which(t) is None and not any(os.path.exists(f"{d}/{t}") for d in ("/usr/sbin", "/sbin")):
            return f"{t} not found (apt-get install {package}, or run scripts/deps.sh)"
    return None


@dataclass
class Volume:
    fs: str
    mnt: Path
    dev: str
    options: str
    magic: int

    def holds(self, path):
        """Fail unless `path` is on this volume: the mount holding it is ours, of type fs, and
        path has the mount point's device (btrfs gives a subvolume's files a device number of its
        own, not the one /proc/self/mountinfo shows, so the two stats are compared)."""
        m = mount_of(path)
        dev, root_dev = os.stat(path).st_dev, os.stat(self.mnt).st_dev
        assert m is not None and m[0] == self.fs and m[2] == str(self.mnt) and dev == root_dev, (
            f"{path} is not on the {self.fs} volume {self.mnt}: its mount is {m}, its device "
            f"{os.major(dev)}:{os.minor(dev)}, the volume's {os.major(root_dev)}:{os.minor(root_dev)}")

    def figures(self, store):
        """The volume, and the store's files: their bytes and what the file system allocated for
        them (more when it keeps preallocated space past the end, as XFS does for growing files)."""
        size = allocated = 0
        for dirpath, _dirs, files in os.walk(store):
            for name in files:
                st = os.lstat(os.path.join(dirpath, name))
                size += st.st_size
                allocated += st.st_blocks * 512
        return dict(fs=self.fs, volume=f"{IMAGE_MB} MB image on {self.dev}", mount_options=self.options,
                    statfs_magic=hex(self.magic), store_mb=round(size / 2**20, 1), store_allocated_mb=round(allocated / 2**20, 1))


@pytest.fixture(scope="module", params=sorted(FILESYSTEMS))
def volume(request, tmp_path_factory):
    """A fresh XFS or btrfs volume on a loop device, mounted (a Volume)."""
    fs = request.param
    why = _unavailable(fs)
    if why:
        pytest.skip(f"no {fs} volume: {why}")
    tool, args, _package, magic = FILESYSTEMS[fs]
    base = tmp_path_factory.mktemp(fs)
    image = base / "volume.img"
    mnt = base / f"{fs} volume"  # a space: the mount table escapes it as \040
    mnt.mkdir()
    with open(image, "wb") as f:
        f.truncate(IMAGE_MB << 20)  # sparse: costs only what is written
    made = _ntfs._run(_ntfs._tool(tool), *args, image)
    loop = _ntfs._run(_ntfs._tool("losetup"), "-f", "--show", image) if made.returncode == 0 else None
    if loop is None or loop.returncode != 0:
        image.unlink()
        assert made.returncode == 0, f"{tool} failed: {made.stderr}"
        pytest.skip(f"no free loop device: losetup -f says {loop.stderr.strip()!r}")
    dev = loop.stdout.strip()
    mounted = False
    try:
        # default options (btrfs discards freed space itself; XFS's online discard would make
        # removing a test's folder take seconds, and the image is deleted at the end anyway)
        m = _ntfs._run("mount", "-t", fs, dev, mnt)
        assert m.returncode == 0, f"mount -t {fs} {dev} failed although the kernel lists {fs}: {m.stderr.strip()[-500:]}"
        mounted = True
        line = _ntfs._mount_line(mnt)
        assert line is not None, f"{mnt} is not in /proc/self/mountinfo after mount"
        sep = line.index("-", 6)
        assert line[sep + 1] == fs, f"{mnt} is mounted as {line[sep + 1]!r}, not {fs}"
        got = statfs_magic(mnt)
        assert got == magic, f"statfs magic of {fs} is {got and hex(got)}, not {hex(magic)}: the engine's kind.rs may take it otherwise"
        yield Volume(fs, mnt, dev, line[sep + 3] if len(line) > sep + 3 else "", magic)
    finally:
        if mounted:
            _ntfs._unmount(mnt)
        _ntfs._detach(dev)
        image.unlink(missing_ok=True)


@pytest.fixture
def place(volume, request):
    """A fresh folder on the volume for one test (removed after it: the volume is small)."""
    d = volume.mnt / re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name)
    d.mkdir()
    volume.holds(d)
    yield d
    shutil.rmtree(d, ignore_errors=True)


class Retag:
    """The capsys a borrowed test body gets: the figures line it prints comes
    out under `tag`, with the volume's figures in front (the body only uses
    capsys through torture_common.figures_line)."""

    def __init__(self, capsys, tag, volume, store):
        self.capsys, self.tag, self.volume, self.store = capsys, tag, volume, store
        self.figures = None

    @contextlib.contextmanager
    def disabled(self):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            yield
        text = buf.getvalue()
        m = re.match(r"\s*\[([^\]\n]*)\] (.*)", text, re.S)
        if m is None:  # not a figures line: let it through unchanged
            with self.capsys.disabled():
                print(text, end="", flush=True)
            return
        self.figures = json.loads(m[2])
        round_no = re.search(r"#\d+$", m[1])
        tag = f"{self.tag}{' ' + round_no[0] if round_no else ''}"
        with self.capsys.disabled():
            print(f"\n[{tag}] {json.dumps({**self.volume.figures(self.store), **self.figures}, default=str)}", flush=True)


def _store_was_on(volume, store):
    assert store.is_dir(), f"the test made no store at {store}"
    volume.holds(store)
    assert statfs_magic(store) == volume.magic


# --------------------------------------------------------------------------


def test_check_takes_it_as_local(volume, place, tmp_path, capsys):
    """`check` (also through a link from another file system) and our producers
    call the volume local: no network_filesystem problem, no locked appends."""
    store = place / "check"
    _ntfs.test_check_and_producers_take_ntfs_3g_as_local(place, tmp_path, Retag(capsys, f"{volume.fs} check", volume, store))
    _store_was_on(volume, store)


@pytest.mark.parametrize("run_no", range(CONCURRENT_RUNS))
def test_concurrent_appends(volume, place, tmp_path, twainmq, capsys, monkeypatch, run_no):  # noqa: F811
    store = place / f"concurrent-{run_no}"
    _ntfs.test_concurrent_producers_on_ntfs_3g(place, tmp_path, twainmq, Retag(capsys, f"{volume.fs} concurrent", volume, store),
                                               monkeypatch, run_no)
    _store_was_on(volume, store)


def test_producer_sigkills(volume, place, twainmq, capsys):  # noqa: F811
    store = place / "store"
    _crash.test_producer_sigkills(place, twainmq, Retag(capsys, f"{volume.fs} crash producers", volume, store))
    _store_was_on(volume, store)


@pytest.mark.parametrize("round_no", range(MIDNIGHT_ROUNDS))
def test_midnight_skewed_clocks(volume, place, twainmq, capsys, monkeypatch, round_no):  # noqa: F811
    store = place / "store"
    _skew.test_rollover_skewed_ours(place, twainmq, Retag(capsys, f"{volume.fs} midnight skewed ours", volume, store),
                                    monkeypatch, round_no)
    _store_was_on(volume, store)
