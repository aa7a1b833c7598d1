"""Shared fixtures for the cross-language interop tests.

The tests drive our Rust CLI (`twainmq`) and the reference Python package
`twainmq==0.2.3` against the same store directory. Run them with the Python of
the venv made from tests/requirements.txt, e.g.

    TWAINMQ_BIN=target/debug/twainmq .venv/bin/python -m pytest tests/interop -q
"""

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

# the test modules import helpers from here and from concurrent_writer.py
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))


# The typed payloads both directions send (0.2.3 names a class by its name, so
# these two are "Event" and "Reading" to both sides).
@dataclass
class Event:
    id: int
    text: str
    tags: list
    nested: list
    big: int
    flag: bool
    ratio: float


@dataclass
class Reading:
    sensor: str
    value: float
    ok: bool
    samples: list


# The CLI keeps line indexes between runs (in the user's cache folder by
# default): a test session keeps them in a folder of its own.
os.environ.setdefault("TWAINMQ_INDEX_CACHE", tempfile.mkdtemp(prefix="twainmq-index-cache-"))
atexit.register(shutil.rmtree, os.environ["TWAINMQ_INDEX_CACHE"], True)

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BIN = REPO_ROOT / "target" / "debug" / ("twainmq.exe" if os.name == "nt" else "twainmq")


def cli_binary():
    """Path of the CLI under test: $TWAINMQ_BIN, else <repo>/target/debug/twainmq."""
    env = os.environ.get("TWAINMQ_BIN")
    return Path(env).resolve() if env else DEFAULT_BIN


def dev_binary():
    """Path of the development tools (`twainmq-dev`: test hooks, never shipped): $TWAINMQ_DEV_BIN,
    else beside the CLI under test."""
    env = os.environ.get("TWAINMQ_DEV_BIN")
    if env:
        return Path(env).resolve()
    cli = cli_binary()
    return cli.with_name("twainmq-dev" + cli.suffix)


def base_env():
    """Environment for CLI runs: inherited, minus TWAINMQ_STORE (tests pass --store)."""
    env = dict(os.environ)
    env.pop("TWAINMQ_STORE", None)
    env.setdefault("RUST_BACKTRACE", "0")
    return env


def run_cli(store, *args, input=None, check=True, env=None, cwd=None, timeout=300, binary=None):
    """Run the CLI (or `binary`, e.g. dev_binary()). `store` None means: no --store flag.
    Returns a CompletedProcess with text stdout/stderr (UTF-8). With check=True a non-zero
    exit fails the test, showing the command and its stderr."""
    binary = binary or cli_binary()
    cmd = [str(binary)]
    if store is not None:
        cmd += ["--store", str(store)]
    cmd += [str(a) for a in args]
    if isinstance(input, bytes):
        input = input.decode("utf-8")
    proc = subprocess.run(
        cmd,
        input=input,
        capture_output=True,
        encoding="utf-8",
        errors="strict",
        env=base_env() if env is None else env,
        cwd=cwd,
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        pytest.fail(
            f"CLI failed (exit {proc.returncode}): {cmd!r}\n"
            f"--- stderr ---\n{proc.stderr[-4000:]}\n--- stdout ---\n{proc.stdout[-2000:]}"
        )
    return proc


def parse_jsonl(text):
    """Parse JSON-lines output; every non-empty line must be one JSON object."""
    out = []
    for i, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:  # pragma: no cover - failure path
            pytest.fail(f"CLI output line {i} is not JSON ({e}): {line[:300]!r}")
        assert isinstance(obj, dict), f"line {i} is not a JSON object: {line[:300]!r}"
        out.append(obj)
    return out


def strict_equal(a, b):
    """Deep equality that also requires equal JSON types: bool is not int, int is
    not float (1 != 1.0), str is not int. Floats compare exactly (== on f64)."""
    if type(a) is not type(b):
        # json.loads gives list/dict/str/int/float/bool/None; tuples from dataclasses
        # are normalised by the callers.
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    return a == b


def payload_of(value, twainmq_mod=None):
    """The CLI's JSON payload shape for a Python message (str, bytes or dataclass)."""
    import dataclasses

    if isinstance(value, str):
        return {"type": "str", "value": value}
    if isinstance(value, (bytes, bytearray)):
        return {"type": "bytes", "hex": bytes(value).hex()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        name = getattr(cls, "__message_type__", cls.__name__)
        # round-trip through json so tuples become lists, exactly as 0.2.3 stores them
        fields = json.loads(json.dumps(dataclasses.asdict(value)))
        return {"type": "dataclass", "class": name, "fields": fields}
    raise TypeError(f"unsupported message {value!r}")


def payload_equal(got, expected):
    """Compare a CLI payload object with the expected one. Hex is compared
    case-insensitively; everything else strictly (see strict_equal)."""
    if not isinstance(got, dict) or got.get("type") != expected["type"]:
        return False
    if expected["type"] == "bytes":
        return set(got) == {"type", "hex"} and isinstance(got["hex"], str) and got["hex"].lower() == expected["hex"]
    return strict_equal(got, expected)


def snapshot_tree(root):
    """Every path under root (dirs and files), with file contents: for
    byte-for-byte 'nothing changed' checks."""
    root = Path(root)
    snap = {}
    if not root.exists():
        return None
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        snap[("dir", rel)] = None
        for f in filenames:
            p = Path(dirpath) / f
            snap[("file", os.path.relpath(p, root))] = p.read_bytes()
    return snap


def describe_diff(before, after):
    if before is None or after is None:
        return f"before exists={before is not None}, after exists={after is not None}"
    added = sorted(k[1] for k in after.keys() - before.keys())
    removed = sorted(k[1] for k in before.keys() - after.keys())
    changed = sorted(k[1] for k in before.keys() & after.keys() if before[k] != after[k])
    return f"added={added} removed={removed} changed={changed}"


@pytest.fixture(scope="session")
def twainmq_bin():
    binary = cli_binary()
    if not binary.is_file():
        pytest.fail(
            f"twainmq CLI not found at {binary}: run `cargo build -p twainmq-cli` "
            f"or set TWAINMQ_BIN"
        )
    return binary


@pytest.fixture(scope="session")
def twainmq_dev_bin():
    binary = dev_binary()
    if not binary.is_file():
        pytest.fail(
            f"twainmq-dev (the test hooks) not found at {binary}: run `cargo build -p twainmq-dev` "
            f"or set TWAINMQ_DEV_BIN"
        )
    return binary


@pytest.fixture
def cli(twainmq_bin):
    """cli(store, *args, input=None, check=True, env=None, cwd=None) -> CompletedProcess"""
    return run_cli


@pytest.fixture(scope="session")
def twainmq():
    """The reference implementation, twainmq==0.2.3."""
    import twainmq as mod
    from importlib.metadata import version

    v = version("twainmq")
    assert v == "0.2.3", f"tests need twainmq==0.2.3, found {v} (use the venv from tests/requirements.txt)"
    return mod


@pytest.fixture
def store(tmp_path):
    """A fresh, empty store directory for this test."""
    s = tmp_path / "store"
    s.mkdir()
    return s


@pytest.fixture(scope="session")
def venv_python():
    """The Python running the tests (the venv's), for helper subprocesses."""
    return sys.executable
