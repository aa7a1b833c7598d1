"""Hostile stores (issue 11): one hostile entry at a time, every everyday command, a time limit.

A small valid store is made once with the CLI (topic `t`: u32 keys, 2 partitions,
message types Ev/Other, messages in both partitions; group `g` on `t` with
commits). Each case copies it and plants ONE hostile thing: numbers in file
names past u64/u32 or past the config's partition count, impossible days, a
FIFO / folder / socket / character device where a file or folder belongs,
links out of the store (to a file of valid TwainMQ lines, to plain text,
dangling, looping), huge sparse files and lines without newlines, configs that
are empty, 100 MB, absurd counts and widths, hostile message type ids, JSON
nested 10,000 deep, topic names ending in `.twc`, hostile group configs and
group log records (commits of 2^63 or of partition 4e9, garbage, a 1 MB line).

Then every everyday command runs against it, each under a time limit:
topics list/describe (+--json), consume (from the start, --max 5,
--partition 0), consume --group --for 2, produce (--key and --jsonl), groups
list/describe (+--json), check (+--json), topics delete (each writing
command on its own copy). Asserted for every command:
- no hang (the time limit), no panic ("panicked", RUST_BACKTRACE, exit 101),
  no abort or other signal (allocation failure, stack overflow);
- exit 0, or a non-zero exit with an error on stderr that names the bad thing;
- nothing outside the store is read or written: the outside files' contents
  (decoded messages, raw lines, plain text) never appear in any output, and
  their bytes, mtime and atime are unchanged (atime is set before mtime, so
  any read moves it under relatime);
- reading commands leave the store exactly as it was; a failing produce or
  delete leaves it as it was; a delete that succeeds removes the topic and
  touches nothing else but the groups that read it;
- where the hostile entry leaves partitions untouched, `consume` still exits 0
  and returns every message of those partitions (one bad entry is reported,
  the rest still reads); where it leaves topic `t` untouched (stray configs,
  hostile groups), describe, list and produce on `t` still succeed;
- `check` exits 1 with a problem naming the entry (unless the case says the
  entry is harmless: `check_flags=False`, with the reason in its note);
- a member never joins under an id the group log already holds.
(atime shows reads only on relatime/strictatime mounts; on noatime the content
check remains.)

Cases run concurrently (a thread pool; each command is a process) in a
module fixture, so the whole battery takes well under a minute when nothing
hangs; each case is its own test id. `-k` selects cases as usual.
"""

import json
import os
import shutil
import socket
import stat
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import pytest

from torture_common import (
    CLOCK_ENV,
    base_env,
    PANIC_WORDS,
    cli_binary,
    encode_line,
    figures_line,
    file_contains,
    noon_offset,
    run_bounded,
    run_cli,
    stat_snapshot,
    stat_snapshot_diff,
)

TIME_LIMIT = float(os.environ.get("HOSTILE_TIME_LIMIT", "20"))
WORKERS = int(os.environ.get("HOSTILE_WORKERS", "4"))
TOPIC, GROUP, PARTS = "t", "g", 2
# 0.2.3's partitioner with 2 partitions: these keys go to partition 0 / 1
KEYS_P0, KEYS_P1 = (2, 3, 4, 5, 6), (1, 9, 10, 11, 13)
SECRET_TEXT = "OUTSIDE-SECRET-7f3a"  # the payloads of the outside file of valid lines
PLAIN_SECRET = "PLAIN-OUTSIDE-SECRET-91c2"  # the lines of the outside plain-text file
TYPE_SECRET = "OutsideSecretType"  # a message type name in the outside config
DEATH_WORDS = PANIC_WORDS + ("memory allocation of", "has overflowed its stack", "stack overflow", "Aborted")
U64_MAX = 2**64 - 1
GROUP_TYPES = {"~~TWAIN~~JOINED": 0, "~~TWAIN~~ABORTJOIN": 1, "~~TWAIN~~REBALOFFER": 2, "~~TWAIN~~REBALCONFIRM": 3,
               "~~TWAIN~~BEGINREBAL": 4, "~~TWAIN~~ENDREBAL": 5, "~~TWAIN~~COMMIT": 6}
COMMIT, BEGINREBAL, JOINED, OFFER = 6, 4, 0, 2


# --------------------------------------------------------------------------
# The cases.


@dataclass
class Ctx:
    """Where a mutation works: a fresh copy of the seed store."""
    store: Path
    outside: Path
    day: str
    seed: dict  # {partition: [seed texts]}

    def pfile(self, p=0):
        return self.store / TOPIC / f"{p}-{self.day}_0.tmf"

    def next_name(self, p=0):
        """The name of partition p's next file (today, first = its line count)."""
        return f"{p}-{self.day}_{len(self.seed[p])}.tmf"

    def twc(self, name=TOPIC):
        return self.store / f"{name}.twc"

    def glog(self):
        return self.store / f"--group--{GROUP}" / f"0-{self.day}_0.tmf"


@dataclass
class Case:
    id: str
    mutate: Callable[[Ctx], None]
    names: tuple  # an error must mention one of these (the bad entry)
    keep: tuple = ()  # partitions of t left untouched: consume must return their messages
    t_ok: bool = False  # t itself is untouched: describe, consume, produce on t must succeed
    check_flags: bool = True  # `check` must report a problem naming the entry
    topic: str = TOPIC
    root_only: bool = False
    non_root_only: bool = False
    note: str = ""
    extra: Optional[Callable[[dict], list]] = None  # more failures from the results: {command: result} -> [text]


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


def _replace(path, make):
    """Remove a file or folder and make something else in its place."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
    make(path)


def _line(key, text):
    return encode_line(key, text)


def _twc(**over):
    cfg = {"key_width": 4, "partitions": PARTS, "message_types": {"Ev": 0, "Other": 1}}
    cfg.update(over)
    return json.dumps(cfg)


def _raw_twc(text):
    return lambda c: _write(c.twc(), text)


def _group_twc(**over):
    cfg = {"key_width": 4, "partitions": 1, "message_types": dict(GROUP_TYPES), "topic": TOPIC}
    cfg.update(over)
    return json.dumps(cfg)


def _group_record(type_id, fields, key=0):
    return encode_line(key, (type_id, fields))


def _append(path, data):
    with open(path, "ab") as f:
        f.write(data)


def _extra_file(name_fn, content=None):
    """Add a file to t/ (name from ctx) holding one valid line unless content is given."""
    def m(c):
        _write(c.store / TOPIC / name_fn(c), _line(2, "extra") if content is None else content)
    return m


def _socket(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(str(path))
    finally:
        s.close()  # the socket file stays


def _mk_outside(outside):
    """Files outside the store that must never be read: valid TwainMQ lines,
    plain text, a config. atime is set before mtime so any read moves it."""
    outside.mkdir(parents=True, exist_ok=True)
    _write(outside / "valid.tmf", b"".join(_line(k, f"{SECRET_TEXT}-{k}") for k in range(1, 6)))
    _write(outside / "plain.txt", "".join(f"{PLAIN_SECRET} line {i}\n" for i in range(5)))
    _write(outside / "config.twc", json.dumps({"key_width": 4, "partitions": PARTS, "message_types": {TYPE_SECRET: 0}}))
    (outside / "dir").mkdir(exist_ok=True)
    _write(outside / "dir" / f"0-20260101_0.tmf", _line(2, f"{SECRET_TEXT}-dir"))
    for p in outside.rglob("*"):
        if p.is_file():
            st = p.stat()
            os.utime(p, ns=(st.st_mtime_ns - 10_000_000_000, st.st_mtime_ns))


def _outside_state(outside):
    """(size, mtime_ns, atime_ns) of every outside file: stat only, no read."""
    return {str(p.relative_to(outside)): (p.stat().st_size, p.stat().st_mtime_ns, p.stat().st_atime_ns)
            for p in sorted(outside.rglob("*")) if p.is_file()}


def _secrets(outside):
    """Byte strings that betray a read of an outside file."""
    out = [SECRET_TEXT.encode(), PLAIN_SECRET.encode(), TYPE_SECRET.encode()]
    out += [l for l in (outside / "valid.tmf").read_bytes().split(b"\n") if l]
    return out


def _link(target_fn, name_fn=None):
    """Make a symlink in t/ (the next file of partition 0 unless name_fn) to target_fn(ctx)."""
    def m(c):
        (c.store / TOPIC / (name_fn(c) if name_fn else c.next_name(0))).symlink_to(target_fn(c))
    return m


def _nested(depth):
    return "[" * depth + "]" * depth


def _cases():
    cs = []

    def add(*a, **k):
        cs.append(Case(*a, **k))

    # ---- numbers in file names
    for label, first in (("u64max", U64_MAX), ("2pow64", 2**64), ("2pow63", 2**63), ("30nines", int("9" * 30)),
                         ("u64max-minus-2", U64_MAX - 2)):
        add(f"name-offset-{label}", _extra_file(lambda c, f=first: f"0-{c.day}_{f}.tmf",
                                                b"".join(_line(k, f"late{k}") for k in KEYS_P0[:3])),
            names=(str(first),), keep=(1,))
    add("name-offset-u64max-empty", _extra_file(lambda c: f"0-{c.day}_{U64_MAX}.tmf", b""), names=(str(U64_MAX),), keep=(1,))
    add("name-offset-negative", _extra_file(lambda c: f"0-{c.day}_-5.tmf"), names=("_-5.tmf",), keep=(1,))
    add("name-offset-leading-zeros", _extra_file(lambda c: f"0-{c.day}_{'0' * 30}{len(c.seed[0])}.tmf"), names=("0" * 30,),
        keep=(1,), check_flags=False, note="a first offset spelled with 30 leading zeros: 0.2.3's int() takes it")
    add("name-partition-past-count", _extra_file(lambda c: f"7-{c.day}_0.tmf"), names=("7-",), keep=(0, 1))
    add("name-partition-past-u32", _extra_file(lambda c: f"4294967296-{c.day}_0.tmf"), names=("4294967296",), keep=(0, 1))
    add("name-partition-past-u64", _extra_file(lambda c: f"18446744073709551616-{c.day}_0.tmf"),
        names=("18446744073709551616",), keep=(0, 1))
    add("name-partition-negative", _extra_file(lambda c: f"-1-{c.day}_0.tmf"), names=("-1-",), keep=(0, 1))
    for label, day in (("00000000", "00000000"), ("99991231", "99991231"), ("20261301", "20261301"), ("short", "2026121"),
                       ("letters", "2026ab01")):
        add(f"name-day-{label}", lambda c, d=day: c.pfile(0).rename(c.store / TOPIC / f"0-{d}_0.tmf"), names=(day,), keep=(1,),
            check_flags=label not in ("99991231",),
            note="a file dated after today is appended to (README), so check need not flag it" if label == "99991231" else "")
    add("name-day-00000000-extra", _extra_file(lambda c: f"0-00000000_{len(c.seed[0])}.tmf"), names=("00000000",), keep=(1,))

    # ---- file kinds
    add("fifo-partition-file", lambda c: _replace(c.pfile(0), os.mkfifo), names=(f"0-",), keep=(1,))
    add("fifo-next-partition-file", lambda c: os.mkfifo(c.store / TOPIC / c.next_name(0)), names=("0-",), keep=(0, 1))
    add("fifo-twc", lambda c: _replace(c.twc(), os.mkfifo), names=("t.twc",))
    add("fifo-topic-folder", lambda c: _replace(c.store / TOPIC, os.mkfifo), names=("t",))
    add("fifo-group-twc", lambda c: _replace(c.twc(f"--group--{GROUP}"), os.mkfifo), names=("--group--g", 'group "g"'), t_ok=True,
        keep=(0, 1))
    add("fifo-group-log", lambda c: _replace(c.glog(), os.mkfifo), names=("--group--g", 'group "g"'), t_ok=True, keep=(0, 1))
    add("dir-partition-file", lambda c: _replace(c.pfile(0), lambda p: (p.mkdir(), _write(p / "inner.tmf", _line(2, "inner")))),
        names=("0-",), keep=(1,))
    add("dir-twc", lambda c: _replace(c.twc(), Path.mkdir), names=("t.twc",))
    add("socket-partition-file", lambda c: _replace(c.pfile(0), _socket), names=("0-",), keep=(1,))
    add("chardev-zero-partition-file", lambda c: _replace(c.pfile(0), lambda p: os.mknod(p, stat.S_IFCHR | 0o644, os.makedev(1, 5))),
        names=("0-",), keep=(1,), root_only=True, note="a /dev/zero device node: reading it never ends")
    add("unreadable-partition-file", lambda c: c.pfile(0).chmod(0), names=("0-",), keep=(1,), non_root_only=True,
        note="chmod 000 does not stop root: skipped as root")

    # ---- links
    add("link-next-file-to-outside-lines", _link(lambda c: c.outside / "valid.tmf"), names=("link",), keep=(0, 1))
    add("link-partition-file-to-outside-lines", lambda c: _replace(c.pfile(0), lambda p: p.symlink_to(c.outside / "valid.tmf")),
        names=("link",), keep=(1,))
    add("link-next-file-to-outside-plain", _link(lambda c: c.outside / "plain.txt"), names=("link",), keep=(0, 1))
    add("link-dangling", _link(lambda c: c.outside / "missing.tmf"), names=("link",), keep=(0, 1))
    add("link-loop", _link(lambda c: c.store / TOPIC / c.next_name(0)), names=("link",), keep=(0, 1))
    add("link-devzero", _link(lambda c: Path("/dev/zero")), names=("link",), keep=(0, 1))
    add("link-to-folder", _link(lambda c: c.outside / "dir"), names=("link",), keep=(0, 1))
    add("link-twc-outside", lambda c: _replace(c.twc(), lambda p: p.symlink_to(c.outside / "config.twc")), names=("link", "t.twc"))

    # ---- sizes
    add("sparse-64g-next-file", lambda c: os.truncate(_touch(c.store / TOPIC / c.next_name(0)), 64 << 30), names=("0-",), keep=(0, 1),
        note="64 GiB of zeros (a hole): no line in it; reading it through takes long, a hole can be skipped (SEEK_DATA)")
    add("sparse-2g-tail-no-newline", lambda c: os.truncate(c.pfile(0), 2 << 30), names=("0-",), keep=(0, 1),
        note="partition 0's lines, then 2 GiB of zeros without a newline: an unfinished last line of 2 GiB")
    add("dense-64m-no-newline-next-file", lambda c: _write(c.store / TOPIC / c.next_name(0), b"A" * (64 << 20)), names=("0-",),
        keep=(0, 1))
    add("line-1mb-in-partition", lambda c: _append(c.pfile(0), b"B" * (1 << 20) + b"\n" + _line(2, "after-1mb")), names=("0-",),
        keep=(0, 1))
    add("garbage-lines-in-partition", lambda c: _append(c.pfile(0), bytes(range(256)) + b"\n\x00\x00\n\xff\xfe\n" + _line(2, "after-garbage")),
        names=("0-",), keep=(0, 1))

    # ---- topic configs
    add("twc-empty", _raw_twc(""), names=("t.twc",))
    add("twc-100mb", _raw_twc(_twc(padding="x" * (100 << 20))), names=("t.twc",), check_flags=False,
        note="a valid config with a 100 MB unknown key: working or refusing it as too big are both fine")
    for label, value in (("4000000000", 4000000000), ("0", 0), ("-1", -1), ("1e30", 1e30), ("string", "4"), ("true", True),
                         ("null", None), ("2pow64", 2**64), ("1.5", 1.5)):
        add(f"twc-partitions-{label}", _raw_twc(_twc(partitions=value)), names=("partitions", "t.twc"))
    for label, value in (("3", 3), ("0", 0), ("-100000", -100000), ("9", 9), ("string", "4"), ("2pow64", 2**64)):
        add(f"twc-key-width-{label}", _raw_twc(_twc(key_width=value)), names=("key_width", "key width", "t.twc"))
    for label, types in (("id-70000", {"Ev": 70000, "Other": 1}), ("id-minus-1", {"Ev": -1, "Other": 1}),
                         ("duplicate-ids", {"Ev": 0, "Other": 0}), ("list", ["Ev", "Other"]), ("id-string", {"Ev": "0"})):
        add(f"twc-message-types-{label}", _raw_twc(_twc(message_types=types)), names=("message_types", "message type", "t.twc"))
    add("twc-missing-keys", _raw_twc("{}"), names=("t.twc", "key_width", "partitions"))
    add("twc-not-object", _raw_twc("[4, 2]"), names=("t.twc",))
    add("twc-binary-garbage", lambda c: _write(c.twc(), bytes(range(256)) * 4), names=("t.twc",))
    add("twc-nested-10000-extra-key", _raw_twc(_twc()[:-1] + ', "x": ' + _nested(10000) + "}"), names=("t.twc",), check_flags=False,
        note="JSON nested 10,000 deep in an unknown key: refusing it (serde's depth limit) or ignoring it are both fine")
    add("twc-nested-10000", _raw_twc(_nested(10000)), names=("t.twc",))

    # ---- topic names
    def twc_named_topic(c):
        shutil.copyfile(c.twc(), c.store / "x.twc.twc")
        shutil.copytree(c.store / TOPIC, c.store / "x.twc")
    add("topic-name-ending-twc", twc_named_topic, names=("x.twc",), topic="x.twc",
        note="a topic named x.twc (0.2.3 accepts it): its folder x.twc is where topic x's config belongs")
    add("stray-config-empty-stem", lambda c: _write(c.store / ".twc", _twc()), names=(".twc", '""'), t_ok=True, keep=(0, 1))
    add("stray-config-bad-name", lambda c: _write(c.store / "bad name!.twc", _twc()), names=("bad name!",), t_ok=True, keep=(0, 1))
    add("stray-config-long-name", lambda c: _write(c.store / ("n" * 250 + ".twc"), _twc()), names=("n" * 40,), t_ok=True, keep=(0, 1))
    add("stray-config-group-prefix-only", lambda c: _write(c.store / "--group--.twc", _group_twc()), names=("--group--",), t_ok=True,
        keep=(0, 1))

    # ---- group configs
    for label, text in (("partitions-4000000000", _group_twc(partitions=4000000000)), ("key-width-3", _group_twc(key_width=3)),
                        ("empty", ""), ("garbage", "\x00\xff{"), ("no-commit-type", _group_twc(message_types={"~~TWAIN~~JOINED": 0})),
                        ("commit-id-70000", _group_twc(message_types=dict(GROUP_TYPES, **{"~~TWAIN~~COMMIT": 70000}))),
                        ("topic-not-string", _group_twc(topic=["t"])), ("topic-escape", _group_twc(topic="../outside")),
                        ("nested-10000", _nested(10000))):
        add(f"group-twc-{label}", lambda c, t=text: _write(c.twc(f"--group--{GROUP}"), t), names=("--group--g", "group g", 'group "g"', "g.twc"),
            t_ok=True, keep=(0, 1))

    # ---- group log records
    for label, fields in (("commit-2pow63", {"partition_offsets": [[0, 2**63]]}), ("commit-u64max", {"partition_offsets": [[0, U64_MAX]]}),
                          ("commit-2pow64", {"partition_offsets": [[0, 2**64]]}),
                          ("commit-partition-4000000000", {"partition_offsets": [[4000000000, 5]]}),
                          ("commit-partition-negative", {"partition_offsets": [[-1, 5]]}),
                          ("commit-offset-minus-5", {"partition_offsets": [[0, -5]]}),
                          ("commit-float", {"partition_offsets": [[0, 1.5]]}), ("commit-not-list", {"partition_offsets": "x"}),
                          ("commit-empty-fields", {})):
        add(f"group-log-{label}", lambda c, f=fields: _append(c.glog(), _group_record(COMMIT, f)), names=("--group--g", "group g", 'group "g"', "commit"),
            t_ok=True, keep=(0, 1))
    add("group-log-beginrebal-1e308", lambda c: _append(c.glog(), _group_record(BEGINREBAL, {"timestamp": 1e308}, key=1)),
        names=("--group--g", "group g", 'group "g"'), t_ok=True, keep=(0, 1), check_flags=False,
        note="a round that ends in 1e308 s: members must still stop at --for")
    add("group-log-offer-huge-partitions", lambda c: _append(c.glog(), _group_record(OFFER, {"own": [U64_MAX], "partitions": [4000000000, U64_MAX]}, key=1)),
        names=("--group--g", "group g", 'group "g"'), t_ok=True, keep=(0, 1), check_flags=False)
    add("group-log-joined-key-u32max", lambda c: _append(c.glog(), _group_record(JOINED, {"tag": 1}, key=2**32 - 1)),
        names=("--group--g", "group g", 'group "g"', "member"), t_ok=True, keep=(0, 1), check_flags=False,
        note="the next member id would be 2^32, past the group's u32 keys", extra=_no_reused_member_id)
    add("group-log-garbage-lines", lambda c: _append(c.glog(), bytes(range(1, 256)) + b"\n\x00\n" + b"\xff" * 100 + b"\n"),
        names=("--group--g", "group g", 'group "g"'), t_ok=True, keep=(0, 1))
    add("group-log-1mb-line", lambda c: _append(c.glog(), b"C" * (1 << 20) + b"\n"), names=("--group--g", "group g", 'group "g"'), t_ok=True, keep=(0, 1))
    return cs


def _no_reused_member_id(results):
    """A member id is max(ids in the log) + 1; when that does not fit in u32 the
    join must fail, not take an id the log already holds (4294967295 here)."""
    err = results["consume-group"]["stderr"]
    if "as member 4294967295" in err:
        return [f"consume-group joined as member 4294967295, an id the group log already holds: {_last_lines(err, 2)!r}"]
    return []


def _touch(path):
    path.touch()
    return path


CASES = _cases()


# --------------------------------------------------------------------------
# Running every command on a case.


def _commands(topic):
    """(name, copy, args, stdin). Reading commands share copy "read"; each writing one has its own."""
    jsonl = "".join(json.dumps({"key": k, "payload": f"hostile-{k}"}) + "\n" for k in (KEYS_P0[0], KEYS_P1[0])).encode()
    return [
        ("topics-list", "read", ["topics", "list"], None),
        ("topics-list-json", "read", ["topics", "list", "--json"], None),
        ("topics-describe", "read", ["topics", "describe", topic], None),
        ("topics-describe-json", "read", ["topics", "describe", topic, "--json"], None),
        ("consume", "read", ["consume", topic, "--json"], None),
        ("consume-max-5", "read", ["consume", topic, "--json", "--max", "5"], None),
        ("consume-partition-0", "read", ["consume", topic, "--json", "--partition", "0"], None),
        ("consume-by-time", "read", ["consume", topic, "--by-time", "--json"], None),
        ("search-text", "read", ["search", topic, "--text", "hostile", "--json"], None),
        ("search-where", "read", ["search", topic, "--where", 'key > 0 && text.contains("hostile")', "--count"], None),
        ("search-since", "read", ["search", topic, "--since", "2000-01-01T00:00:00Z", "--until", "2100-01-01T00:00:00Z", "--count"], None),
        ("groups-list", "read", ["groups", "list"], None),
        ("groups-list-json", "read", ["groups", "list", "--json"], None),
        ("groups-describe", "read", ["groups", "describe", GROUP], None),
        ("groups-describe-json", "read", ["groups", "describe", GROUP, "--json"], None),
        ("groups-lag-json", "read", ["groups", "lag", GROUP, "--json"], None),
        ("groups-lag-history", "read", ["groups", "lag", GROUP, "--history", "1d", "--json"], None),
        ("groups-export", "read", ["groups", "export", GROUP], None),
        ("groups-reset-shift-dry-run", "read", ["groups", "reset", GROUP, "--to", "shift:-1", "--dry-run", "--json"], None),
        ("check", "read", ["check"], None),
        ("check-json", "read", ["check", "--json"], None),
        ("consume-group", "group", ["consume", topic, "--group", GROUP, "--json", "--for", "2", "--rebalance-window", "0.3"], None),
        ("produce", "produce", ["produce", topic, "--key", str(KEYS_P0[0]), "hostile-one"], None),
        ("produce-jsonl", "produce", ["produce", topic, "--jsonl"], jsonl),
        ("topics-delete", "delete", ["topics", "delete", topic, "--yes"], None),
    ]


@pytest.fixture(scope="module")
def seed(tmp_path_factory):
    """The valid store every case starts from, and the day of its files."""
    offset, day = noon_offset()
    env = base_env()
    env[CLOCK_ENV] = repr(offset)
    store = tmp_path_factory.mktemp("hostile-seed") / "store"
    store.mkdir()
    run_cli(store, "topics", "create", TOPIC, "--key-type", "u32", "--partitions", PARTS, "--message-types", "Ev,Other", env=env)
    texts = {0: [], 1: []}
    lines = []
    for p, keys in ((0, KEYS_P0), (1, KEYS_P1)):
        for k in keys:
            texts[p].append(f"seed-{k}")
            lines.append(json.dumps({"key": k, "payload": f"seed-{k}"}))
    run_cli(store, "produce", TOPIC, "--jsonl", input="\n".join(lines) + "\n", env=env)
    run_cli(store, "consume", TOPIC, "--group", GROUP, "--json", "--max", "3", "--rebalance-window", "0.3", env=env)
    files = sorted(p.name for p in (store / TOPIC).iterdir())
    assert files == [f"0-{day}_0.tmf", f"1-{day}_0.tmf"], files
    return dict(store=store, day=day, texts=texts, env=env)


def _run_case(case, seed, root):
    """Make the copies, plant the hostile entry in each, run every command.
    Returns {"skip": reason} or the facts the test asserts on."""
    if case.root_only and os.geteuid() != 0:
        return {"skip": "needs root (mknod)"}
    if case.non_root_only and os.geteuid() == 0:
        return {"skip": "chmod 000 does not stop root"}
    root.mkdir(parents=True)
    outside = root / "outside"
    _mk_outside(outside)
    outside_before = _outside_state(outside)
    copies = {}
    for name in ("read", "group", "produce", "delete"):
        dst = root / name / "store"
        shutil.copytree(seed["store"], dst, symlinks=True)
        case.mutate(Ctx(dst, outside, seed["day"], seed["texts"]))
        copies[name] = dst
    before = {name: stat_snapshot(p) for name, p in copies.items()}
    env = dict(seed["env"])
    results = {}
    cmds = _commands(case.topic)
    by_copy = {}
    for c in cmds:
        by_copy.setdefault(c[1], []).append(c)

    def run_one(name, copy, args, stdin):
        cmd = [cli_binary(), "--store", copies[copy], *args]
        return name, run_bounded(cmd, TIME_LIMIT, env=env, stdin_bytes=stdin, out_dir=root / "out", name=name)

    def run_chain(chain):
        return [run_one(*c) for c in chain]

    # reading commands all at once on their copy; each writing copy's commands in order
    with ThreadPoolExecutor(max_workers=len(by_copy["read"]) + 3) as pool:
        futs = [pool.submit(run_one, *c) for c in by_copy["read"]]
        futs += [pool.submit(run_chain, by_copy[k]) for k in ("group", "produce", "delete")]
        for f in futs:
            r = f.result()
            for name, res in (r if isinstance(r, list) else [r]):
                results[name] = res
    after = {name: stat_snapshot(p) for name, p in copies.items()}
    outside_after = _outside_state(outside)  # stat first: reading the files below moves their atime
    secrets = _secrets(outside)
    leaks = {}
    for name, res in results.items():
        found = file_contains(res["stdout_path"], secrets) | file_contains(res["stderr_path"], secrets)
        if found:
            leaks[name] = sorted(s[:60].decode("ascii", "replace") for s in found)
    facts = dict(results=results, before=before, after=after, outside_before=outside_before, outside_after=outside_after,
                 leaks=leaks, outside_bytes_ok=(outside / "valid.tmf").read_bytes().count(b"\n") == 5)
    # the copies can be large (sparse files, 100 MB configs): keep only the outputs
    for name in copies:
        shutil.rmtree(root / name, ignore_errors=True)
    return facts


@pytest.fixture(scope="module")
def battery(request, seed, tmp_path_factory):
    """Every selected case, run concurrently once per module: {case id: facts}."""
    selected = [item.callspec.params["case"] for item in request.session.items
                if item.module is request.module and hasattr(item, "callspec") and "case" in item.callspec.params]
    base = tmp_path_factory.mktemp("hostile")

    def run(case):
        try:
            return _run_case(case, seed, base / case.id)
        except Exception:  # a case that cannot be set up fails alone, with its traceback
            return {"error": traceback.format_exc()}

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futs = {c.id: pool.submit(run, c) for c in selected}
        return {cid: f.result() for cid, f in futs.items()}


# --------------------------------------------------------------------------
# The assertions.


def _last_lines(text, n=4):
    """The panic or abort message when there is one (not the backtrace after it), else the last lines."""
    lines = text.strip().splitlines()
    at = next((i for i, l in enumerate(lines) if any(w in l for w in DEATH_WORDS)), None)
    if at is not None:
        return " | ".join(lines[at:at + 2])[:400]
    return " | ".join(lines[-n:])[-600:]


def _failures(case, facts, seed):
    """Every broken promise of one case, as readable lines."""
    out = []
    res = facts["results"]
    for name, r in res.items():
        what = f"{name} (`twainmq {' '.join(r['cmd'][3:])[:120]}`)"
        if r["timed_out"]:
            out.append(f"{what}: no exit within {TIME_LIMIT:g} s (a hang); stderr: {_last_lines(r['stderr'])!r}")
            continue
        rc = r["rc"]
        died = [w for w in DEATH_WORDS if w in r["stderr"]]
        if rc < 0 or rc == 101 or rc >= 128 or died:
            out.append(f"{what}: exit {rc}{' (signal ' + str(-rc) + ')' if rc < 0 else ''}: {_last_lines(r['stderr'])!r}")
            continue
        if name.startswith("check") and rc == 1 and r["stdout"].strip():
            continue  # problems found: judged below (check_flags)
        if rc != 0:
            err = r["stderr"].strip()
            if not err:
                out.append(f"{what}: exit {rc} with an empty stderr")
            elif not any(n.lower() in err.lower() for n in case.names):
                out.append(f"{what}: exit {rc}, the error names none of {list(case.names)}: {_last_lines(err)!r}")
    for name, found in facts["leaks"].items():
        out.append(f"{name}: printed what is outside the store: {found[:3]}")
    if facts["outside_before"] != facts["outside_after"] or not facts["outside_bytes_ok"]:
        changed = {k: (facts["outside_before"].get(k), facts["outside_after"].get(k))
                   for k in set(facts["outside_before"]) | set(facts["outside_after"])
                   if facts["outside_before"].get(k) != facts["outside_after"].get(k)}
        out.append(f"a file outside the store was read or written (size, mtime, atime before/after): {changed}")
    b, a = facts["before"], facts["after"]
    if b["read"] != a["read"]:
        out.append(f"reading commands changed the store: {stat_snapshot_diff(b['read'], a['read'])}")
    if all(res[n]["rc"] not in (0, None) for n in ("produce", "produce-jsonl")) and b["produce"] != a["produce"]:
        out.append(f"produce failed and still changed the store: {stat_snapshot_diff(b['produce'], a['produce'])}")
    d = res["topics-delete"]
    if d["rc"] == 0:
        gone = [k for k in a["delete"] if k == case.topic or k.startswith(case.topic + "/") or k == case.topic + ".twc"]
        if gone:
            out.append(f"topics-delete exited 0 and left {gone[:5]}")
        kept_b = {k: v for k, v in b["delete"].items() if not _topic_or_group(k, case.topic)}
        kept_a = {k: v for k, v in a["delete"].items() if not _topic_or_group(k, case.topic)}
        if kept_b != kept_a:
            out.append(f"topics-delete touched other entries: {stat_snapshot_diff(kept_b, kept_a)}")
    elif d["rc"] is not None and b["delete"] != a["delete"]:
        out.append(f"topics-delete failed and still changed the store: {stat_snapshot_diff(b['delete'], a['delete'])}")
    # what the hostile entry does not touch must still work
    if case.keep:
        c = res["consume"]
        if c["rc"] == 0:
            got = set()
            for line in c["stdout"].splitlines():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                pay = rec.get("payload") if isinstance(rec, dict) else None
                if isinstance(pay, dict) and isinstance(pay.get("value"), str):
                    got.add(pay["value"])
            missing = [t for p in case.keep for t in seed["texts"][p] if t not in got]
            if missing:
                out.append(f"consume: partitions {list(case.keep)} are untouched, yet {len(missing)} of their messages did not come back: "
                           f"{missing[:5]}")
        elif c["rc"] is not None:
            out.append(f"consume: exit {c['rc']} although partitions {list(case.keep)} are untouched (one bad entry must not stop the "
                       f"others being read): {_last_lines(c['stderr'])!r}")
    if case.t_ok:
        for name in ("topics-describe-json", "produce", "produce-jsonl", "topics-list-json"):
            r = res[name]
            if r["rc"] not in (0, None):
                out.append(f"{name}: exit {r['rc']} although topic {TOPIC} is untouched: {_last_lines(r['stderr'])!r}")
        lst = res["topics-list-json"]
        if lst["rc"] == 0 and f'"{TOPIC}"' not in lst["stdout"]:
            out.append(f"topics-list-json does not list {TOPIC}: {lst['stdout'][:300]!r}")
    if case.extra:
        out += case.extra(res)
    if case.check_flags:
        for name in ("check", "check-json"):
            r = res[name]
            if r["rc"] == 0:
                out.append(f"{name}: exit 0 ('no problems') on a store with the hostile entry: {_last_lines(r['stdout'])!r}")
            elif r["rc"] not in (None,) and not r["stdout"].strip():
                out.append(f"{name}: stopped with an error instead of listing the problem: {_last_lines(r['stderr'], 2)!r}")
        r = res["check-json"]
        if r["rc"] == 1 and r["stdout"].strip():
            try:
                json.loads(r["stdout"])
            except json.JSONDecodeError:
                out.append(f"check-json: exit 1 and stdout is not JSON: {r['stdout'][:200]!r}")
            if not any(n.lower() in r["stdout"].lower() for n in case.names):
                out.append(f"check-json: the problems name none of {list(case.names)}: {r['stdout'][:400]!r}")
    return out


def _topic_or_group(rel, topic):
    top = rel.split("/", 1)[0]
    return top in (topic, topic + ".twc") or top.startswith("--group--")


_REPORT = {}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_store(case, battery, seed):
    facts = battery[case.id]
    if "skip" in facts:
        pytest.skip(facts["skip"])
    if "error" in facts:
        pytest.fail(f"{case.id}: the case could not be run:\n{facts['error']}")
    failures = _failures(case, facts, seed)
    slow = {n: r["seconds"] for n, r in facts["results"].items() if r["seconds"] > 5 and not r["timed_out"]}
    _REPORT[case.id] = dict(failures=failures, slow=slow)
    path = os.environ.get("HOSTILE_REPORT_JSON")
    if path:
        Path(path).write_text(json.dumps(_REPORT, indent=1))
    assert not failures, f"{case.id}: {len(failures)} broken promises" + (f" ({case.note})" if case.note else "") + ":\n  " + "\n  ".join(failures)


def test_hostile_battery_summary(battery, capsys):
    """One figures line for the whole battery (runs after the cases it selected)."""
    ran = {k: v for k, v in battery.items() if "results" in v}
    seconds = max((r["seconds"] for v in ran.values() for r in v["results"].values()), default=0)
    figures_line("hostile stores", dict(cases=len(ran), commands=sum(len(v["results"]) for v in ran.values()),
                                        timeouts=sum(r["timed_out"] for v in ran.values() for r in v["results"].values()),
                                        slowest_command_s=seconds), capsys)
