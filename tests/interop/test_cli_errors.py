"""Every validation error at the CLI level: non-zero exit, a clear message on
stderr, and the store left byte-for-byte unchanged."""

import json
import random
from dataclasses import dataclass

import pytest

from conftest import base_env, describe_diff, parse_jsonl, run_cli, snapshot_tree


@dataclass
class Event:
    id: int
    text: str


@dataclass
class Reading:
    sensor: str
    value: float


rng = random.Random(4096)
BIG_BYTES_HEX = bytes(rng.getrandbits(8) for _ in range(4000)).hex()
BIG_TEXT = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(5200))


def build_base_store(twainmq, root):
    """A store made by 0.2.3 with a few topics that already hold messages."""
    tmq = twainmq.Twain(root)
    tmq.register_msg_cls(Event)
    tmq.register_msg_cls(Reading)
    tmq.create_topic("t8", key_type="u8", partitions=2)
    tmq.create_topic("t16", key_type="u16", partitions=3, message_types=["Event", "Reading"])
    tmq.create_topic("t64", key_type="u64", partitions=2)
    tmq.create_topic("c8", key_type="char8", partitions=2)
    tmq.create_topic("untouched", key_type="u32", partitions=2)  # no partition files yet
    for topic, keys in (("t8", [0, 255]), ("t16", [1, 65535]), ("t64", [0, 2**64 - 1]), ("c8", ["", "abcdefgh"])):
        prod = tmq.producer(topic)
        for k in keys:
            prod.write_message(k, f"hello {k}")
            prod.write_message(k, b"\x00\x01")
    tmq.producer("t16").write_message(7, Event(1, "x"))
    return tmq


def jl(obj):
    return json.dumps(obj) + "\n"


def s(value):
    return {"type": "str", "value": value}


# (id, args, stdin, any-of keywords expected in stderr (lower-cased))
NAME_WORDS = ["name", "invalid"]
BAD_NAMES = {
    "dotdot": "..",
    "dot": ".",
    "slash": "a/b",
    "backslash": "a\\b",
    "empty": "",
    "unicode": "ünï",
    "space": "a b",
    "long201": "x" * 201,
    "group_prefix": "--group--x",
    "newline": "a\nb",
}
CASES = []
for cid, name in BAD_NAMES.items():
    CASES.append((f"create-{cid}", ["topics", "create", "--", name], None, NAME_WORDS))
    CASES.append((f"create-{cid}-opts", ["topics", "create", "--key-type", "u8", "--partitions", "2", "--", name], None, NAME_WORDS))
    if not name.startswith("-"):
        CASES.append((f"create-{cid}-no-dashdash", ["topics", "create", name, "--key-type", "u16"], None, NAME_WORDS))
CASES += [
    ("produce-name-dotdot", ["produce", "..", "--key", "1", "x"], None, ["name", "invalid", ".."]),
    ("consume-name-dotdot", ["consume", ".."], None, ["name", "invalid", ".."]),
    # keys via argv
    ("key-u8-256", ["produce", "t8", "--key", "256", "x"], None, ["key"]),
    ("key-u8-neg", ["produce", "t8", "--key=-1", "x"], None, ["key"]),
    ("key-u16-neg", ["produce", "t16", "--key=-1", "x"], None, ["key"]),
    ("key-u16-abc", ["produce", "t16", "--key", "abc", "x"], None, ["key"]),
    ("key-u16-float", ["produce", "t16", "--key", "1.5", "x"], None, ["key"]),
    ("key-u16-empty", ["produce", "t16", "--key", "", "x"], None, ["key"]),
    ("key-u16-65536", ["produce", "t16", "--key", "65536", "x"], None, ["key"]),
    ("key-char8-9bytes", ["produce", "c8", "--key", "abcdefghi", "x"], None, ["key"]),
    ("key-char8-9bytes-utf8", ["produce", "c8", "--key", "ünïcöd", "x"], None, ["key"]),
    ("key-u64-2**64", ["produce", "t64", "--key", str(2**64), "x"], None, ["key"]),
    ("key-u64-huge", ["produce", "t64", "--key", "9" * 30, "x"], None, ["key"]),
    ("key-missing", ["produce", "t8", "x"], None, ["key"]),
    # keys via --jsonl
    ("jsonl-key-u8-256", ["produce", "t8", "--jsonl"], jl({"key": 256, "payload": s("x")}), ["key"]),
    ("jsonl-key-u8-neg", ["produce", "t8", "--jsonl"], jl({"key": -1, "payload": s("x")}), ["key"]),
    ("jsonl-key-u16-abc", ["produce", "t16", "--jsonl"], jl({"key": "abc", "payload": s("x")}), ["key"]),
    ("jsonl-key-u16-float", ["produce", "t16", "--jsonl"], jl({"key": 1.5, "payload": s("x")}), ["key"]),
    ("jsonl-key-char8-9bytes", ["produce", "c8", "--jsonl"], jl({"key": "abcdefghi", "payload": s("x")}), ["key"]),
    ("jsonl-key-u64-2**64", ["produce", "t64", "--jsonl"], jl({"key": 2**64, "payload": s("x")}), ["key"]),
    ("jsonl-key-missing", ["produce", "t8", "--jsonl"], jl({"payload": s("x")}), ["key"]),
    # payloads via --jsonl
    ("jsonl-unknown-class", ["produce", "t16", "--jsonl"], jl({"key": 1, "payload": {"type": "dataclass", "class": "Nope", "fields": {}}}), ["nope", "unknown"]),
    ("jsonl-class-on-untyped-topic", ["produce", "t8", "--jsonl"], jl({"key": 1, "payload": {"type": "dataclass", "class": "Event", "fields": {"id": 1, "text": "x"}}}), ["event", "unknown", "type"]),
    ("jsonl-unknown-payload-type", ["produce", "t8", "--jsonl"], jl({"key": 1, "payload": {"type": "blob", "value": "x"}}), ["payload", "type", "blob"]),
    ("jsonl-bad-hex", ["produce", "t8", "--jsonl"], jl({"key": 1, "payload": {"type": "bytes", "hex": "zz"}}), ["hex"]),
    ("jsonl-odd-hex", ["produce", "t8", "--jsonl"], jl({"key": 1, "payload": {"type": "bytes", "hex": "abc"}}), ["hex"]),
    ("jsonl-not-json", ["produce", "t8", "--jsonl"], "this is not json\n", ["json", "line"]),
    ("jsonl-payload-missing", ["produce", "t8", "--jsonl"], jl({"key": 1}), ["payload"]),
    ("jsonl-batch-key-u8-256", ["produce", "t8", "--jsonl", "--batch"], jl({"key": 256, "payload": s("x")}), ["key", "line 1"]),
    ("batch-without-jsonl", ["produce", "t8", "--batch"], None, ["--batch", "--jsonl"]),
    ("batch-with-key", ["produce", "t8", "--batch", "--key", "1", "x"], None, ["--batch", "--key"]),
    # too long
    ("too-long-bytes-arg", ["produce", "t8", "--key", "1", "--bytes-hex", BIG_BYTES_HEX], None, ["4096", "long", "large", "size", "exceed"]),
    ("too-long-text-arg", ["produce", "t8", "--key", "1", BIG_TEXT], None, ["4096", "long", "large", "size", "exceed"]),
    ("too-long-bytes-jsonl", ["produce", "t8", "--jsonl"], jl({"key": 1, "payload": {"type": "bytes", "hex": BIG_BYTES_HEX}}), ["4096", "long", "large", "size", "exceed"]),
    ("too-long-dataclass-jsonl", ["produce", "t16", "--jsonl"], jl({"key": 1, "payload": {"type": "dataclass", "class": "Event", "fields": {"id": 1, "text": BIG_TEXT}}}), ["4096", "long", "large", "size", "exceed"]),
    # bad --bytes-hex
    ("bytes-hex-invalid", ["produce", "t8", "--key", "1", "--bytes-hex", "xyz1"], None, ["hex"]),
    ("bytes-hex-odd", ["produce", "t8", "--key", "1", "--bytes-hex", "abc"], None, ["hex"]),
    # missing topics
    ("consume-missing", ["consume", "nope"], None, ["nope", "not found", "no such", "exist", "missing"]),
    ("consume-missing-json", ["consume", "nope", "--json"], None, ["nope", "not found", "no such", "exist", "missing"]),
    ("produce-missing", ["produce", "nope", "--key", "1", "x"], None, ["nope", "not found", "no such", "exist", "missing"]),
    ("produce-missing-jsonl", ["produce", "nope", "--jsonl"], jl({"key": 1, "payload": s("x")}), ["nope", "not found", "no such", "exist", "missing"]),
    ("describe-missing", ["topics", "describe", "nope", "--json"], None, ["nope", "not found", "no such", "exist", "missing"]),
    ("delete-missing", ["topics", "delete", "nope", "--yes"], None, ["nope", "not found", "no such", "exist", "missing"]),
    # topic creation
    ("create-existing", ["topics", "create", "t8"], None, ["exist"]),
    ("create-existing-other-args", ["topics", "create", "t16", "--key-type", "u64", "--partitions", "9"], None, ["exist"]),
    ("create-key-type-u7", ["topics", "create", "newt", "--key-type", "u7"], None, ["key"]),
    ("create-key-type-char", ["topics", "create", "newt", "--key-type", "char"], None, ["key"]),
    ("create-key-type-char0", ["topics", "create", "newt", "--key-type", "char0"], None, ["key"]),
    ("create-key-type-charx", ["topics", "create", "newt", "--key-type", "charX"], None, ["key"]),
    ("create-key-type-i32", ["topics", "create", "newt", "--key-type", "i32"], None, ["key"]),
    ("create-partitions-0", ["topics", "create", "newt", "--partitions", "0"], None, ["partition"]),
    ("create-partitions-neg", ["topics", "create", "newt", "--partitions=-1"], None, ["partition"]),
    ("create-partitions-abc", ["topics", "create", "newt", "--partitions", "abc"], None, ["partition"]),
    # consume options
    ("consume-partition-out-of-range", ["consume", "t8", "--partition", "2"], None, ["partition"]),
    ("consume-from-garbage", ["consume", "t8", "--from", "yesterday"], None, ["from", "offset", "yesterday"]),
    ("consume-from-negative", ["consume", "t8", "--from=-1"], None, ["from", "offset", "-1"]),
    # delete must be confirmed
    ("delete-without-yes", ["topics", "delete", "t8"], None, ["yes", "confirm"]),
    # new names whose files would pass for a config (x.twc's folder for x's config)
    ("create-twc-suffix", ["topics", "create", "x.twc"], None, [".twc"]),
    ("create-twc-suffix-upper", ["topics", "create", "T8.TWC"], None, [".twc"]),
    ("consume-group-twc-suffix", ["consume", "t8", "--group", "g.twc", "--rebalance-window", "0.3"], None, [".twc"]),
    # numbers out of range, refused before the store is touched
    ("consume-for-inf", ["consume", "t8", "--for", "inf"], None, ["--for", "inf"]),
    ("consume-for-nan", ["consume", "t8", "--for", "nan"], None, ["--for", "nan"]),
    ("consume-group-window-0", ["consume", "t8", "--group", "g", "--rebalance-window", "0"], None, ["--rebalance-window"]),
    ("consume-group-commit-every-0", ["consume", "t8", "--group", "g", "--commit-every", "0"], None, ["--commit-every"]),
]


def _check_failure(proc, words, what):
    err = proc.stderr
    assert proc.returncode != 0, f"{what}: expected failure, got exit 0\nstdout: {proc.stdout[:500]!r}\nstderr: {err[:500]!r}"
    assert proc.returncode > 0, f"{what}: killed by signal {-proc.returncode}"
    assert proc.returncode != 101 and "panicked" not in err, f"{what}: the CLI panicked: {err[-2000:]}"
    assert err.strip(), f"{what}: exit {proc.returncode} with an empty stderr"
    low = err.lower()
    assert any(w in low for w in words), f"{what}: stderr does not mention any of {words}: {err[-1000:]!r}"


@pytest.mark.parametrize("args,stdin,words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_cli_rejects(cli, twainmq, store, args, stdin, words):
    build_base_store(twainmq, store)
    before = snapshot_tree(store)
    proc = cli(store, *args, input=stdin, check=False)
    _check_failure(proc, words, f"twainmq {' '.join(a[:40] for a in args)}")
    after = snapshot_tree(store)
    assert before == after, f"store changed: {describe_diff(before, after)}"


def test_names_at_the_limit_are_fine(cli, twainmq, store):
    """Controls for the cases above: 200 characters, dots and dashes inside are valid (a name
    ending in a dot is not: Windows drops it, see platform.rs::reserved_names_trailing_dots_and_case_twins_are_refused)."""
    for name in ("x" * 200, "a.b-c_D9", "...x", ".lead", "-lead"):
        cli(store, "topics", "create", "--", name)
    assert sorted(twainmq.Twain(store).list_topics()) == sorted(["x" * 200, "a.b-c_D9", "...x", ".lead", "-lead"])


def test_message_just_under_limit_is_fine(cli, twainmq, store):
    """Control for the too-long cases: 3000 incompressible bytes (a ~3770-byte line) are accepted."""
    build_base_store(twainmq, store)
    data = bytes(random.Random(5).getrandbits(8) for _ in range(3000))
    cli(store, "produce", "t8", "--key", "3", "--bytes-hex", data.hex())
    recs = [r for r in parse_jsonl(cli(store, "consume", "t8", "--json").stdout) if r["key"] == 3]
    assert [r["payload"] for r in recs] == [{"type": "bytes", "hex": data.hex()}]


CORRUPT_CONFIGS = {
    "garbage": b"\x00\xffgarbage{not json",
    "empty": b"",
    "truncated": b'{\n"key_width": 2,\n"partitions": 3,\n"message_ty',
    "missing-partitions": b'{"key_width": 2, "message_types": {}}',
    "zero-width": b'{"key_width": 0, "partitions": 1, "message_types": {}}',
    "zero-partitions": b'{"key_width": 2, "partitions": 0, "message_types": {}}',
    "not-an-object": b"[1, 2, 3]",
}
CORRUPT_COMMANDS = {
    "produce": (["produce", "broken_cfg", "--key", "1", "x"], None),
    "produce-jsonl": (["produce", "broken_cfg", "--jsonl"], jl({"key": 1, "payload": s("x")})),
    "consume": (["consume", "broken_cfg", "--json"], None),
    "describe": (["topics", "describe", "broken_cfg", "--json"], None),
}


@pytest.mark.parametrize("command", list(CORRUPT_COMMANDS))
@pytest.mark.parametrize("config", list(CORRUPT_CONFIGS))
def test_corrupt_twc(cli, twainmq, store, config, command):
    build_base_store(twainmq, store)
    twainmq.Twain(store).create_topic("broken_cfg", key_type="u16", partitions=3)
    twainmq.Twain(store).producer("broken_cfg").write_message(1, "before corruption")
    (store / "broken_cfg.twc").write_bytes(CORRUPT_CONFIGS[config])
    before = snapshot_tree(store)
    args, stdin = CORRUPT_COMMANDS[command]
    proc = cli(store, *args, input=stdin, check=False)
    _check_failure(proc, ["broken_cfg", "corrupt", ".twc", "config"], f"{command} with {config} .twc")
    after = snapshot_tree(store)
    assert before == after, f"store changed: {describe_diff(before, after)}"


MISSING_STORE_COMMANDS = [
    ["topics", "list"],
    ["topics", "list", "--json"],
    ["topics", "create", "x"],
    ["topics", "describe", "x"],
    ["produce", "x", "--key", "1", "hello"],
    ["consume", "x"],
]


@pytest.mark.parametrize("args", MISSING_STORE_COMMANDS, ids=[" ".join(a) for a in MISSING_STORE_COMMANDS])
def test_missing_store(twainmq_bin, tmp_path, args):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "x.twc").write_text('{"key_width": 2, "partitions": 1, "message_types": {}}')
    (cwd / "x").mkdir()
    env = base_env()
    assert "TWAINMQ_STORE" not in env
    before = snapshot_tree(cwd)
    proc = run_cli(None, *args, check=False, env=env, cwd=cwd, input="")
    _check_failure(proc, ["store"], f"{' '.join(args)} without --store")
    assert snapshot_tree(cwd) == before, describe_diff(before, snapshot_tree(cwd))


def test_store_from_env(cli, twainmq, store):
    """Control for test_missing_store: TWAINMQ_STORE is honoured."""
    env = base_env()
    env["TWAINMQ_STORE"] = str(store)
    run_cli(None, "topics", "create", "via_env", "--key-type", "u8", env=env)
    assert twainmq.Twain(store).list_topics() == ["via_env"]


def test_an_empty_store_variable_is_named_as_such(twainmq_bin, tmp_path):
    """TWAINMQ_STORE set but empty is that variable's problem, not --store's."""
    env = base_env()
    env["TWAINMQ_STORE"] = ""
    proc = run_cli(None, "topics", "list", check=False, env=env, cwd=tmp_path)
    assert proc.returncode != 0
    assert "TWAINMQ_STORE" in proc.stderr and "empty" in proc.stderr, proc.stderr
    assert "a value is required for '--store" not in proc.stderr, proc.stderr
    # --store still wins over it.
    store = tmp_path / "s"
    store.mkdir()
    run_cli(store, "topics", "create", "t", env=env)


def test_check_of_a_topic_that_does_not_exist_says_so(cli, store):
    r = cli(store, "check", "nope", check=False)
    assert r.returncode != 0
    assert "does not exist" in r.stderr + r.stdout and "corrupt" not in r.stderr + r.stdout, (r.stdout, r.stderr)
    r = cli(store, "check", "nope", "--json", check=False)
    assert r.returncode != 0 and "corrupt_config" not in r.stdout + r.stderr, (r.stdout, r.stderr)


def test_produce_to_a_topic_whose_folder_is_gone_names_the_folder(cli, store):
    import shutil

    cli(store, "topics", "create", "t")
    cli(store, "produce", "t", "--key", "1", "hello")
    shutil.rmtree(store / "t")
    before = snapshot_tree(store)
    r = cli(store, "produce", "t", "--key", "1", "again", check=False)
    assert r.returncode != 0
    assert "folder" in r.stderr and str(store / "t") in r.stderr, r.stderr
    assert "no config file" not in r.stderr, r.stderr
    assert snapshot_tree(store) == before
