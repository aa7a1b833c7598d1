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


def crlf_copy(dest, ending=b"\r\n"):
    """A copy of the fixture store whose partition files' line ends are
    `ending`, as git's core.autocrlf=true (CRLF) or an old Mac (CR) leaves
    them. 0.2.3 reads them in text mode with universal newlines."""
    root = copy_fixture(dest)
    for f in root.glob("*/*.tmf"):
        f.write_bytes(f.read_bytes().replace(b"\n", ending))
    return root


# Scenarios that read (and write after reading) a converted store.
CRLF_SCENARIOS = ["read_every_topic", "poll_many_in_batches", "multi_poll_round_robin", "start_now_sees_nothing_old",
                  "write_then_read_every_key_type", "group_reads_all_then_resumes_from_commit", "consumerlets_and_the_round_rule"]
CRLF_READ_ONLY = CRLF_SCENARIOS[:4]


@pytest.mark.parametrize("ending", [b"\r\n", b"\r"], ids=["crlf", "cr"])
@pytest.mark.parametrize("name", CRLF_SCENARIOS)
def test_a_crlf_store_reads_as_0_2_3_reads_it(name, ending, impls, tmp_path):
    results = {}
    for label, mod in impls.items():
        root = crlf_copy(tmp_path / label, ending)
        cross_read.other = impls["ours" if label == "0.2.3" else "0.2.3"]
        with short_rounds(impls), contextlib.redirect_stdout(io.StringIO()):
            results[label] = SCENARIOS[name](mod, root)
    assert same(results["0.2.3"], results["ours"]), f"{name} differs:\n0.2.3: {results['0.2.3']!r}\nours:  {results['ours']!r}"
    if name in CRLF_READ_ONLY:
        # And as 0.2.3 reads the store before it was converted.
        plain = copy_fixture(tmp_path / "plain")
        with short_rounds(impls), contextlib.redirect_stdout(io.StringIO()):
            assert same(SCENARIOS[name](impls["0.2.3"], plain), results["ours"]), name
