"""Golden test of the CLI's output on the 0.2.3 fixture store: every read-only
command, in text and --json, and the error text and exit code of bad inputs,
compared byte for byte with the files in tests/interop/golden/.

It pins what the CLI prints so a refactoring (issue 12) cannot change it
unnoticed. When a change of output is intended, regenerate the files with

    GOLDEN_UPDATE=1 TWAINMQ_BIN=target/debug/twainmq .venv/bin/python -m pytest \
        tests/interop/test_golden_cli.py -q -p no:cacheprovider

and review the diff (`git diff tests/interop/golden`) before committing it.

Normalised: only the store's temporary path, replaced by `<STORE>` (it is in
error messages that name files). Nothing else varies: the fixture's clock is in
its files, the commands are read-only, and stderr carries no tracing
timestamps (TWAINMQ_LOG is unset, so only warnings are logged, and these runs
log none; a timestamped line would show up as a diff).
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import base_env, cli_binary, describe_diff, snapshot_tree

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "twainmq-0.2.3"
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("GOLDEN_UPDATE") == "1"

TOPICS = ["bigmsgs", "empty", "events", "names", "sensors", "tiny", "typed"]
GROUPS = ["tail", "workers"]


def _cases():
    """(golden file name, store variant, CLI arguments after --store)."""
    c = [
        ("topics-list", "fixture", ["topics", "list"]),
        ("topics-list-json", "fixture", ["topics", "list", "--json"]),
    ]
    for t in TOPICS:
        c += [
            (f"topics-describe-{t}", "fixture", ["topics", "describe", t]),
            (f"topics-describe-{t}-json", "fixture", ["topics", "describe", t, "--json"]),
            (f"consume-{t}", "fixture", ["consume", t]),
            (f"consume-{t}-json", "fixture", ["consume", t, "--json"]),
        ]
    c += [
        ("consume-events-partition-2", "fixture", ["consume", "events", "--partition", "2"]),
        ("consume-events-partition-2-json", "fixture", ["consume", "events", "--partition", "2", "--json"]),
        ("consume-events-from-30", "fixture", ["consume", "events", "--from", "30"]),
        ("consume-events-from-30-json", "fixture", ["consume", "events", "--from", "30", "--json"]),
        ("consume-events-from-now", "fixture", ["consume", "events", "--from", "now"]),
        ("consume-events-from-past-end", "fixture", ["consume", "events", "--from", "1000", "--json"]),
        ("consume-events-max-5", "fixture", ["consume", "events", "--max", "5"]),
        ("consume-events-max-5-json", "fixture", ["consume", "events", "--max", "5", "--json"]),
        ("consume-events-max-0", "fixture", ["consume", "events", "--max", "0"]),
        ("consume-events-for-0", "fixture", ["consume", "events", "--for", "0"]),
        ("consume-typed-p1-from-2-max-3", "fixture", ["consume", "typed", "--partition", "1", "--from", "2", "--max", "3"]),
        ("consume-typed-p1-from-2-max-3-json", "fixture",
         ["consume", "typed", "--partition", "1", "--from", "2", "--max", "3", "--json"]),
        ("groups-list", "fixture", ["groups", "list"]),
        ("groups-list-json", "fixture", ["groups", "list", "--json"]),
    ]
    for g in GROUPS:
        c += [
            (f"groups-describe-{g}", "fixture", ["groups", "describe", g]),
            (f"groups-describe-{g}-json", "fixture", ["groups", "describe", g, "--json"]),
        ]
    resets = {
        "earliest": ["--to", "earliest"],
        "latest": ["--to", "latest"],
        "offset-20-p1-p3": ["--to", "offset:20", "--partition", "1", "--partition", "3"],
        "time": ["--to", "time:2026-11-29T00:00:00Z"],
    }
    for g in GROUPS:
        for name, to in resets.items():
            c += [
                (f"groups-reset-{g}-{name}", "fixture", ["groups", "reset", g, *to, "--dry-run"]),
                (f"groups-reset-{g}-{name}-json", "fixture", ["groups", "reset", g, *to, "--dry-run", "--json"]),
            ]
    c += [
        ("check", "fixture", ["check"]),
        ("check-json", "fixture", ["check", "--json"]),
        ("check-events", "fixture", ["check", "events"]),
        ("check-events-json", "fixture", ["check", "events", "--json"]),
        # A damaged copy (see `damage`): the problem renderer and the consume warnings.
        ("damaged-check", "damaged", ["check"]),
        ("damaged-check-json", "damaged", ["check", "--json"]),
        ("damaged-topics-list", "damaged", ["topics", "list"]),
        ("damaged-topics-list-json", "damaged", ["topics", "list", "--json"]),
        ("damaged-groups-list", "damaged", ["groups", "list"]),
        ("damaged-groups-list-json", "damaged", ["groups", "list", "--json"]),
        ("damaged-topics-describe-events", "damaged", ["topics", "describe", "events"]),
        ("damaged-consume-events-p0", "damaged", ["consume", "events", "--partition", "0"]),
        ("damaged-consume-events-p0-json", "damaged", ["consume", "events", "--partition", "0", "--json"]),
        # Bad inputs: the error text and the exit code.
        ("err-no-store", None, ["topics", "list"]),
        ("err-describe-unknown-topic", "fixture", ["topics", "describe", "nope"]),
        ("err-consume-unknown-topic", "fixture", ["consume", "nope"]),
        ("err-consume-bad-name", "fixture", ["consume", "../events"]),
        ("err-consume-bad-from", "fixture", ["consume", "events", "--from", "yesterday"]),
        ("err-consume-negative-from", "fixture", ["consume", "events", "--from", "-1"]),
        ("err-consume-bad-partition", "fixture", ["consume", "events", "--partition", "9"]),
        ("err-consume-for-inf", "fixture", ["consume", "events", "--for", "inf"]),
        ("err-consume-for-negative", "fixture", ["consume", "events", "--for", "-1"]),
        ("err-consume-for-too-long", "fixture", ["consume", "events", "--for", "315360001"]),
        ("err-consume-group-with-partition", "fixture", ["consume", "events", "--group", "g", "--partition", "1"]),
        ("err-consume-group-from-offset", "fixture", ["consume", "events", "--group", "g", "--from", "3"]),
        ("err-consume-commit-every-0", "fixture", ["consume", "events", "--group", "g", "--commit-every", "0"]),
        ("err-groups-describe-unknown", "fixture", ["groups", "describe", "nope"]),
        ("err-reset-bad-target", "fixture", ["groups", "reset", "workers", "--to", "sideways", "--dry-run"]),
        ("err-reset-bad-offset", "fixture", ["groups", "reset", "workers", "--to", "offset:x", "--dry-run"]),
        ("err-reset-bad-time", "fixture", ["groups", "reset", "workers", "--to", "time:noon", "--dry-run"]),
        ("err-reset-bad-partition", "fixture", ["groups", "reset", "workers", "--to", "earliest", "--partition", "7", "--dry-run"]),
        ("err-reset-unknown-group", "fixture", ["groups", "reset", "nope", "--to", "earliest", "--dry-run"]),
        ("err-rebalance-window-0", "fixture", ["groups", "rebalance", "workers", "--window", "0"]),
        ("err-check-unknown-topic", "fixture", ["check", "nope"]),
        ("err-delete-without-yes", "fixture", ["topics", "delete", "events"]),
        ("err-produce-bad-key", "fixture", ["produce", "tiny", "--key", "256", "hello"]),
        ("err-unknown-command", "fixture", ["frobnicate"]),
    ]
    return c


CASES = _cases()


def damage(store):
    """Make the copy hostile in fixed ways: a garbage line after the first line
    of events partition 0's day file 0-20261129_40.tmf (offset 41), a stray file
    in the topic folder, and a topic and a group whose configs are not configs."""
    last = store / "events" / "0-20261129_40.tmf"
    data = last.read_bytes()
    cut = data.index(b"\n") + 1
    last.write_bytes(data[:cut] + b"this is not a twainmq line\n" + data[cut:])
    (store / "events" / "notes.txt").write_bytes(b"left here by hand\n")
    (store / "broken.twc").write_bytes(b"{not json")
    (store / "broken").mkdir()
    (store / "--group--wrecked.twc").write_bytes(b"[]")
    (store / "--group--wrecked").mkdir()


FIXED_MTIME = 1796040000.0


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """The fixture store copied twice (never written in place): as 0.2.3 left
    it, and damaged. Each copy's folders are recreated as the fixture README says."""
    out = {}
    for variant in ("fixture", "damaged"):
        root = tmp_path_factory.mktemp(f"golden-{variant}") / "store"
        shutil.copytree(FIXTURE / "store", root)
        for t in TOPICS:
            (root / t).mkdir(exist_ok=True)
        if variant == "damaged":
            damage(root)
        # Modification times show in `topics describe --json` (each file's and
        # the topic's last write): a checkout or a copy gives them the time it
        # ran, so every entry gets one fixed time (2026-11-30T12:00:00Z).
        for p in [root, *root.rglob("*")]:
            os.utime(p, (FIXED_MTIME, FIXED_MTIME), follow_symlinks=False)
        out[variant] = root
    return out


def run(store, args):
    """Run the CLI with bytes in and out (no newline translation), as a user's
    shell would: no TWAINMQ_STORE, no log filter, no clock shift."""
    env = base_env()
    for k in ("TWAINMQ_LOG", "TWAINMQ_CLOCK_OFFSET_SECS", "RUST_LOG", "NO_COLOR", "CLICOLOR_FORCE"):
        env.pop(k, None)
    cmd = [str(cli_binary())] + (["--store", str(store)] if store is not None else []) + args
    return subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL, env=env, timeout=120)


def render(args, proc, store):
    """One golden file: the command, its exit code, stdout and stderr, each
    stream's exact bytes (the lengths make the layout unambiguous)."""
    def norm(b):
        return b.replace(str(store).encode(), b"<STORE>") if store is not None else b

    out, err = norm(proc.stdout), norm(proc.stderr)
    head = f"$ twainmq {' '.join(args)}\nexit {proc.returncode}\n".encode()
    return (head + f"--- stdout ({len(out)} bytes)\n".encode() + out
            + f"--- stderr ({len(err)} bytes)\n".encode() + err)


@pytest.mark.parametrize("name,variant,args", CASES, ids=[c[0] for c in CASES])
def test_golden(twainmq_bin, stores, name, variant, args):
    store = stores[variant] if variant else None
    before = snapshot_tree(store) if store else None
    proc = run(store, args)
    got = render(args, proc, store)
    assert b"panicked" not in proc.stderr, proc.stderr.decode(errors="replace")
    if store is not None:
        # Every command here is read-only: the store is left byte for byte as it was.
        after = snapshot_tree(store)
        assert after == before, describe_diff(before, after)
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_bytes(got)
        return
    assert path.is_file(), f"no golden file {path}: run with GOLDEN_UPDATE=1 to record it"
    want = path.read_bytes()
    if got != want:
        # The first differing line, readable; the assertion is on the bytes.
        g, w = got.decode(errors="replace").splitlines(), want.decode(errors="replace").splitlines()
        first = next((i for i, (a, b) in enumerate(zip(g, w)) if a != b), min(len(g), len(w)))
        pytest.fail(
            f"{name}: output differs from {path} at line {first + 1}:\n"
            f"  want: {w[first] if first < len(w) else '<end>'!r}\n"
            f"  got:  {g[first] if first < len(g) else '<end>'!r}\n"
            f"(if the change is intended, regenerate with GOLDEN_UPDATE=1)"
        )


def test_no_stale_golden_files():
    """Every golden file belongs to a case (a renamed case leaves none behind)."""
    if UPDATE:
        for p in GOLDEN.glob("*.txt"):
            if p.stem not in {c[0] for c in CASES}:
                p.unlink()
    names = {p.stem for p in GOLDEN.glob("*.txt")}
    assert names == {c[0] for c in CASES}, (
        f"missing {sorted({c[0] for c in CASES} - names)}, stale {sorted(names - {c[0] for c in CASES})}"
    )
