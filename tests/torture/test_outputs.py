"""Where exports and copies may write (engine round 3, item 3): never inside a store, however
the store is reached. A bind mount of the store is the same folder under another path: compared
by device and inode, it is still the store (needs root to mount; skipped otherwise)."""

import json
import os
import subprocess

import pytest

from torture_common import run_cli


@pytest.fixture
def bound(tmp_path):
    """A store with a topic, and the same store bind-mounted at another path."""
    if os.geteuid() != 0:
        pytest.skip("a bind mount needs root")
    store = tmp_path / "store"
    store.mkdir()
    run_cli(store, "topics", "create", "t", "--key-type", "u32", "--partitions", "2")
    for i in range(20):
        run_cli(store, "produce", "t", "--key", str(i), f"m{i}")
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    done = subprocess.run(["mount", "--bind", str(store), str(mirror)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"mount --bind failed here: {done.stderr.decode().strip()}")
    try:
        yield store, mirror
    finally:
        subprocess.run(["umount", str(mirror)], check=False)


def snapshot(store):
    return {str(p.relative_to(store)): p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()}


def test_export_into_a_bind_mount_of_the_store_is_refused(bound):
    store, mirror = bound
    before = snapshot(store)
    part = next((mirror / "t").iterdir())
    for target in [part, mirror / "t.twc", mirror / "report.jsonl"]:
        done = run_cli(store, "export", "t", "-o", target, check=False)
        assert done.returncode != 0, f"{target}: {done.stdout}"
        assert "inside the store" in done.stderr or "TwainMQ store" in done.stderr, done.stderr
    assert snapshot(store) == before, "nothing in the store changed"


def test_copy_into_the_same_topic_through_a_bind_mount_is_refused(bound):
    store, mirror = bound
    before = snapshot(store)
    done = run_cli(store, "copy", "t", "--to", f"{mirror}:t", check=False)
    assert done.returncode != 0 and "into itself" in done.stderr, done.stderr
    assert snapshot(store) == before
    total = len([l for l in run_cli(store, "consume", "t", "--json").stdout.splitlines() if l.strip()])
    assert total == 20, "the topic was not doubled"
