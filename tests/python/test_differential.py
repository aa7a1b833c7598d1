"""The differential suite: every scenario of scenarios.py run against
twainmq 0.2.3 and twainmq_rs on copies of the same store; what a program
observes must be equal (ours may raise a subclass of 0.2.3's exception).
Deliberate differences are pinned in test_differences.py, not here."""

import contextlib
import io
from datetime import timedelta

import pytest

from conftest import copy_fixture
from scenarios import SCENARIOS, cross_read, same


@contextlib.contextmanager
def short_rounds(impls):
    """0.2.3's rounds last 60 s; both implementations read REBAL_LENGTH from
    their consumer module when a member joins, so patch it the same way."""
    import twainmq.consumer
    import twainmq_rs.consumer
    saved = twainmq.consumer.REBAL_LENGTH, twainmq_rs.consumer.REBAL_LENGTH
    twainmq.consumer.REBAL_LENGTH = twainmq_rs.consumer.REBAL_LENGTH = timedelta(seconds=1)
    try:
        yield
    finally:
        twainmq.consumer.REBAL_LENGTH, twainmq_rs.consumer.REBAL_LENGTH = saved


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name, impls, tmp_path):
    results = {}
    for label, mod in impls.items():
        root = copy_fixture(tmp_path / label)
        cross_read.other = impls["ours" if label == "0.2.3" else "0.2.3"]
        with short_rounds(impls), contextlib.redirect_stdout(io.StringIO()):
            results[label] = SCENARIOS[name](mod, root)
    assert same(results["0.2.3"], results["ours"]), f"{name} differs:\n0.2.3: {results['0.2.3']!r}\nours:  {results['ours']!r}"
