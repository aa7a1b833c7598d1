"""The partition assignment: `twainmq-dev assign-stdin` (the engine's assignment) must compute exactly what
0.2.3's `RebalInProgress.get_assignments()` computes, for any offer set a group
log can hold (every member of a mixed group computes it on its own; any
difference means a partition read twice or by nobody)."""

import json
import random

import pytest

from conftest import run_cli

N_SETS = 2500
SEED = 20261129


def random_offer_sets(n, seed):
    rng = random.Random(seed)
    sets = []
    for _ in range(n):
        members = rng.randint(1, 8)
        ids = rng.sample(range(1, 51), members)  # distinct, random insertion order
        offer_set = []
        for cid in ids:
            r = rng.random()
            if r < 0.55:
                parts = list(range(16))  # the usual case: every partition
            elif r < 0.9:
                parts = rng.sample(range(16), rng.randint(0, 16))
            else:
                parts = [rng.randrange(16) for _ in range(rng.randint(0, 20))]  # repeats
            rng.shuffle(parts)
            own_kind = rng.random()
            if own_kind < 0.25:
                own = []
            elif own_kind < 0.6:
                own = rng.sample(range(16), rng.randint(1, 6))
            else:
                # partitions outside `partitions` (even outside the topic) and repeats
                own = [rng.randrange(0, 24) for _ in range(rng.randint(1, 12))]
            offer_set.append([cid, {"own": own, "partitions": parts}])
        sets.append(offer_set)
    # Hand-picked corners.
    sets += [
        [[7, {"own": [], "partitions": []}]],
        [[1, {"own": [3, 3, 3], "partitions": [3]}], [2, {"own": [3], "partitions": [3, 3]}]],
        [[5, {"own": [0, 0, 1], "partitions": list(range(16))}], [4, {"own": [2, 3], "partitions": list(range(16))}]],
        [[9, {"own": [], "partitions": [15]}], [3, {"own": [15], "partitions": list(range(16))}]],
        [[2, {"own": [1, 2, 3], "partitions": [0]}], [1, {"own": [0], "partitions": [0, 1]}]],
        [[i, {"own": [], "partitions": list(range(16))}] for i in (50, 1, 25, 2)],
    ]
    return sets


def reference_assignment(twainmq_mod, offer_set):
    from twainmq.consumer_groups import RebalInProgress, RebalOffer

    rebal = RebalInProgress(0.0)
    for cid, offer in offer_set:
        rebal.add_offer(cid, RebalOffer(list(offer["own"]), list(offer["partitions"])))
    return rebal.get_assignments()


def test_assign_matches_023(twainmq_dev_bin, twainmq):
    sets = random_offer_sets(N_SETS, SEED)
    stdin = "".join(json.dumps(s) + "\n" for s in sets)
    proc = run_cli(None, "assign-stdin", input=stdin, binary=twainmq_dev_bin)
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    assert len(lines) == len(sets), f"assign-stdin printed {len(lines)} lines for {len(sets)} offer sets"

    mismatches = []
    for i, (offer_set, line) in enumerate(zip(sets, lines)):
        got = json.loads(line)
        assert isinstance(got, dict), f"line {i}: not an object: {line!r}"
        expected = {str(k): v for k, v in reference_assignment(twainmq, offer_set).items()}
        # Every offering member appears (possibly with []), partitions sorted.
        if got != expected:
            mismatches.append((i, offer_set, got, expected))
        else:
            # Same content, also exact JSON types: lists of ints.
            for k, v in got.items():
                assert isinstance(v, list) and all(type(p) is int for p in v), f"line {i}: {k}: {v!r}"
    if mismatches:
        shown = "\n".join(
            f"set #{i}: offers={json.dumps(o)}\n   ours={json.dumps(g, sort_keys=True)}\n  0.2.3={json.dumps(e, sort_keys=True)}"
            for i, o, g, e in mismatches[:5]
        )
        pytest.fail(f"{len(mismatches)} of {len(sets)} assignments differ from 0.2.3's:\n{shown}")

    # The generator really exercised the tricky inputs.
    flat = [o for s in sets for _, o in s]
    assert any(len(set(o["own"])) < len(o["own"]) for o in flat), "no offer with repeated own partitions"
    assert any(set(o["own"]) - set(o["partitions"]) for o in flat), "no offer owning partitions it does not allow"
    assert any(len(o["partitions"]) == 16 for o in flat) and any(len(o["partitions"]) < 16 for o in flat)
    assert max(len(s) for s in sets) == 8


def test_assign_properties(twainmq_dev_bin):
    """Independent of 0.2.3: each offered partition goes to exactly one member
    that allows it, and a member keeps what it owns when nobody competes."""
    sets = random_offer_sets(400, SEED + 1)
    proc = run_cli(None, "assign-stdin", input="".join(json.dumps(s) + "\n" for s in sets), binary=twainmq_dev_bin)
    for offer_set, line in zip(sets, proc.stdout.splitlines()):
        got = {int(k): v for k, v in json.loads(line).items()}
        assert set(got) == {cid for cid, _ in offer_set}
        union = set()
        for cid, o in offer_set:
            union |= set(o["partitions"])
        taken = [p for ps in got.values() for p in ps]
        assert sorted(taken) == sorted(union), f"{offer_set} -> {got}: not each partition exactly once"
        allowed = {cid: set(o["partitions"]) for cid, o in offer_set}
        for cid, ps in got.items():
            assert set(ps) <= allowed[cid] and ps == sorted(ps)


def test_the_users_twainmq_has_no_test_hooks(twainmq_bin):
    """The hooks are in twainmq-dev only: the command users install refuses them."""
    for hook in ("assign-stdin", "seed-demo", "bench-search", "bench-transfer", "bench-large", "bench-mirror"):
        proc = run_cli(None, hook, check=False)
        assert proc.returncode == 2 and "unrecognized subcommand" in proc.stderr, f"twainmq {hook}: {proc.returncode} {proc.stderr[-300:]}"
