"""Shared fixtures of the twainmq_rs suites: copies of the 0.2.3 fixture
store, the two implementations side by side, and the fixture's dataclasses."""

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "twainmq-0.2.3"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text())


@dataclasses.dataclass
class Reading:
    sensor: str
    value: float
    ok: bool


@dataclasses.dataclass
class Event:
    id: int
    text: str
    tags: list


def copy_fixture(dest: Path) -> Path:
    """A writable copy of the fixture store (never the fixture itself), with
    the empty topic folders git does not keep."""
    store = dest / "store"
    shutil.copytree(FIXTURE / "store", store)
    for topic in EXPECTED["topics"]:
        (store / topic).mkdir(exist_ok=True)
    return store


@pytest.fixture
def fixture_store(tmp_path):
    return copy_fixture(tmp_path)


@pytest.fixture(scope="session")
def impls():
    import twainmq
    import twainmq_rs
    return {"0.2.3": twainmq, "ours": twainmq_rs}
