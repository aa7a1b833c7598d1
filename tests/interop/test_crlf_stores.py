"""Stores whose lines end in CRLF: what git's core.autocrlf=true (the default of
Git for Windows), FTP in ASCII mode or an editor make of a store. 0.2.3 reads
partition files in text mode with universal newlines, so it reads such a store
whole; our CLI reads it as 0.2.3 does, with the same offsets, and writes LF
only into it. And the repository's own byte-exact files (the fixture store,
golden outputs, generated bindings) are never converted on a Windows checkout."""

import dataclasses
import json
import math
import shutil
import subprocess

import pytest

from conftest import REPO_ROOT, parse_jsonl, payload_equal, payload_of
from test_py_writes_rust_reads import TOPICS, build_store, make_twain

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "twainmq-0.2.3"

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


# The fixture store's typed messages (tests/fixtures/twainmq-0.2.3/README.md).
@dataclasses.dataclass
class FixtureReading:
    __message_type__ = "Reading"
    sensor: str
    value: float
    ok: bool


@dataclasses.dataclass
class FixtureEvent:
    __message_type__ = "Event"
    id: int
    text: str
    tags: list


def git(*args, cwd=None, check=True):
    env_args = ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main", "-c", "core.autocrlf=false"]
    return subprocess.run(["git", *env_args, *args], cwd=cwd, check=check, capture_output=True, text=True)


def crlf_copy(store, dest):
    """`store` committed to a repository of its own and cloned with
    core.autocrlf=true, as a Windows user's checkout: every line end of its
    text files (partition files and configs) becomes CRLF. Git keeps no empty
    folders: each topic's folder is made again, as 0.2.3 made it."""
    repo = dest.parent / f"{dest.name}-repo"
    shutil.copytree(store, repo / "store")
    git("init", "-q", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "store", cwd=repo)
    clone = dest.parent / f"{dest.name}-clone"
    subprocess.run(["git", "-c", "core.autocrlf=true", "clone", "-q", str(repo), str(clone)], check=True, capture_output=True)
    shutil.move(str(clone / "store"), str(dest))
    for twc in dest.glob("*.twc"):
        (dest / twc.stem).mkdir(exist_ok=True)
    tmfs = list(dest.glob("*/*.tmf"))
    assert any(b"\r\n" in f.read_bytes() for f in tmfs), "the checkout did not convert line ends"
    assert all(b"\n" not in f.read_bytes().replace(b"\r\n", b"") for f in tmfs), "a line end left as LF"
    return dest


def py_read_partitions(twainmq_mod, root, topic, partitions, classes=None):
    """Every message of each partition as 0.2.3's own per-partition reader gives it."""
    from twainmq.consumer import TwainMQConsumerlet

    if classes is None:
        tmq = make_twain(twainmq_mod, root)
    else:
        tmq = twainmq_mod.Twain(root)
        for c in classes:
            tmq.register_msg_cls(c)
    out = {}
    for p in range(partitions):
        cl = TwainMQConsumerlet(tmq, topic, p, offset=0)
        out[p] = list(iter(cl.poll, None))
    return out


def cli_read_partitions(cli, store, topic, partitions):
    proc = cli(store, "consume", topic, "--from", "start", "--json")
    assert "damaged" not in proc.stderr.lower() and "corrupt" not in proc.stderr.lower(), proc.stderr
    out = {p: [] for p in range(partitions)}
    for r in parse_jsonl(proc.stdout):
        out[r["partition"]].append(r)
    return out


def assert_same_reading(cli_parts, py_parts, what):
    for p, py_msgs in py_parts.items():
        got = cli_parts[p]
        assert len(got) == len(py_msgs), f"{what} p{p}: we read {len(got)} messages, 0.2.3 {len(py_msgs)}"
        for g, m in zip(got, py_msgs):
            where = f"{what} p{p} offset {m.offset}"
            assert g["offset"] == m.offset, f"{where}: our offset {g['offset']}"
            assert g["key"] == m.key, where
            assert payload_equal(g["payload"], payload_of(m.message)), where
            assert math.isclose(g["timestamp"], m.timestamp.timestamp(), rel_tol=0, abs_tol=1e-6), where


@needs_git
def test_a_store_0_2_3_wrote_checked_out_with_crlf_reads_as_0_2_3_reads_it(cli, twainmq, tmp_path):
    written = tmp_path / "written"
    written.mkdir()
    build_store(twainmq, written)
    store = crlf_copy(written, tmp_path / "crlf")
    total = 0
    for topic, (_, parts, _, _) in TOPICS.items():
        py = py_read_partitions(twainmq, store, topic, parts)
        # 0.2.3 reads the converted store whole: as it reads the one it wrote.
        assert {p: [(m.offset, m.key) for m in ms] for p, ms in py.items()} == {
            p: [(m.offset, m.key) for m in ms] for p, ms in py_read_partitions(twainmq, written, topic, parts).items()
        }
        assert_same_reading(cli_read_partitions(cli, store, topic, parts), py, topic)
        total += sum(len(ms) for ms in py.values())
    assert total > 500
    # Describe, check and search see the same store as before the conversion.
    for topic in TOPICS:
        before = json.loads(cli(written, "topics", "describe", topic, "--json").stdout)
        after = json.loads(cli(store, "topics", "describe", topic, "--json").stdout)
        assert [(p["partition"], p["start"], p["end"]) for p in after["partition_details"]] == [
            (p["partition"], p["start"], p["end"]) for p in before["partition_details"]
        ], topic
    assert cli(store, "check", check=False).returncode == cli(written, "check", check=False).returncode == 0
    assert cli(store, "search", "t_u16", "--text", "quotes", "--count").stdout == cli(written, "search", "t_u16", "--text", "quotes", "--count").stdout


@needs_git
def test_our_producer_appends_lf_lines_to_a_crlf_store_that_0_2_3_then_reads_whole(cli, twainmq, tmp_path):
    written = tmp_path / "written"
    written.mkdir()
    build_store(twainmq, written)
    store = crlf_copy(written, tmp_path / "crlf")
    before = {f: f.read_bytes() for f in store.glob("t_u8/*.tmf")}
    ends = py_read_partitions(twainmq, store, "t_u8", 3)
    lines = "\n".join(json.dumps({"key": k, "payload": f"after {k}"}) for k in range(12)) + "\n"
    cli(store, "produce", "t_u8", "--jsonl", input=lines)
    # Appended to today's CRLF files, LF only, nothing before rewritten.
    for f, old in before.items():
        now = f.read_bytes()
        assert now[: len(old)] == old, f.name
        assert b"\r" not in now[len(old):], f.name
    py = py_read_partitions(twainmq, store, "t_u8", 3)
    for p, msgs in py.items():
        new = msgs[len(ends[p]):]
        assert [m.offset for m in new] == list(range(len(ends[p]), len(msgs))), f"p{p}"
        assert all(m.message.startswith("after ") for m in new) and [m.key for m in msgs[: len(ends[p])]] == [m.key for m in ends[p]]
    assert sum(len(ms) for ms in py.values()) == sum(len(ms) for ms in ends.values()) + 12
    assert_same_reading(cli_read_partitions(cli, store, "t_u8", 3), py, "t_u8")


@needs_git
def test_the_fixture_store_checked_out_with_crlf_reads_as_expected_in_0_2_3_and_ours(cli, twainmq, tmp_path):
    """The fixture's days, configs and group logs, converted: 0.2.3 reads what
    expected.json holds (what it read before the conversion), and so do we, in
    consume, groups describe and check."""
    plain = tmp_path / "plain"
    shutil.copytree(FIXTURE / "store", plain)
    expected = json.loads((FIXTURE / "expected.json").read_text())
    for topic in expected["topics"]:
        (plain / topic).mkdir(exist_ok=True)
    store = crlf_copy(plain, tmp_path / "crlf")
    for topic, want in expected["topics"].items():
        parts = want["config"]["partitions"]
        py = py_read_partitions(twainmq, store, topic, parts, [FixtureReading, FixtureEvent])
        for p, msgs in py.items():
            assert [(m.offset, m.key) for m in msgs] == [(w["offset"], w["key"]) for w in want["partitions"][str(p)]], f"{topic} p{p}"
        assert_same_reading(cli_read_partitions(cli, store, topic, parts), py, topic)
    for group in expected["groups"]:
        a = json.loads(cli(plain, "groups", "describe", group, "--json").stdout)
        b = json.loads(cli(store, "groups", "describe", group, "--json").stdout)
        assert (b["committed"], b["lag"], len(b["members"])) == (a["committed"], a["lag"], len(a["members"])), group
    check = json.loads(cli(store, "check", "--json", check=False).stdout)
    plain_check = json.loads(cli(plain, "check", "--json", check=False).stdout)
    assert check == json.loads(json.dumps(plain_check).replace(str(plain), str(store)))


# What tests and tools need byte for byte as committed: a Windows checkout must not convert them.
BYTE_EXACT = [
    "tests/fixtures",
    "tests/interop/golden",
    "ui/src/lib/bindings.ts",
    "ui/src/lib/recorded/store.json",
    "fuzz/corpus/line_decode",
    "fuzz/corpus/group_log",
    "scripts",
    ".ci/run",
    "Makefile",
]


@needs_git
def test_a_windows_checkout_of_the_repository_converts_none_of_its_byte_exact_files(tmp_path):
    """The committed tree (HEAD) checked out as Git for Windows does by default
    (core.autocrlf=true), with the repository's .gitattributes: every file that
    tests compare byte for byte, and every script, comes out as committed."""
    if git("rev-parse", "--is-inside-work-tree", cwd=REPO_ROOT, check=False).returncode != 0:
        pytest.skip("not a git checkout")
    index, out = tmp_path / "index", tmp_path / "checkout"
    env = {"GIT_INDEX_FILE": str(index)}

    def git_env(*args):
        import os

        return subprocess.run(["git", *args], cwd=REPO_ROOT, env={**os.environ, **env}, check=True, capture_output=True)

    git_env("read-tree", "HEAD")
    git_env("-c", "core.autocrlf=true", "checkout-index", "-a", f"--prefix={out}/")
    files = [f for entry in BYTE_EXACT for f in ((out / entry).rglob("*") if (out / entry).is_dir() else [out / entry]) if f.is_file()]
    assert len(files) > 100
    converted = []
    for f in files:
        rel = f.relative_to(out).as_posix()
        committed = subprocess.run(["git", "cat-file", "blob", f"HEAD:{rel}"], cwd=REPO_ROOT, check=True, capture_output=True).stdout
        if f.read_bytes() != committed:
            converted.append(rel)
    assert converted == [], f"{len(converted)} files converted on a CRLF checkout, e.g. {converted[:5]}"
