"""`twainmq groups lag`: exit 1 over --max-lag / --max-age naming the
partitions, 0 otherwise (for scripts and cron), and `--history` from the files,
on a group 0.2.3 members read."""

import json
import time
from datetime import timedelta

from conftest import base_env, run_cli
from group_helpers import keys_by_partition


def produce(cli, store, topic, items):
    cli(store, "produce", topic, "--jsonl", input="".join(json.dumps({"key": k, "payload": t}) + "\n" for k, t in items))


def lag(store, group, *args, env=None):
    r = run_cli(store, "groups", "lag", group, *args, check=False, env=env)
    assert "panicked" not in r.stderr, r.stderr
    return r


def test_lag_thresholds_exit_codes_and_history(cli, store, twainmq, monkeypatch):
    topic, group, parts = "lt", "g", 2
    cli(store, "topics", "create", topic, "--key-type", "u32", "--partitions", parts)
    keys = keys_by_partition(parts, 2**32 - 1, 10, start=1000)
    produce(cli, store, topic, [(keys[p][i], f"m{p}-{i}") for i in range(10) for p in range(parts)])
    # A 0.2.3 member reads all 20 and commits; then 2 more land in partition 0 and 5 in partition 1.
    import twainmq.consumer

    monkeypatch.setattr(twainmq.consumer, "REBAL_LENGTH", timedelta(seconds=1))
    c = twainmq.Twain(str(store)).consumer(topic, group=group)
    deadline, seen = time.monotonic() + 15, 0
    while time.monotonic() < deadline and seen < 20:
        if c.poll() is None:
            time.sleep(0.01)
        else:
            seen += 1
    assert seen == 20
    c.commit()
    produce(cli, store, topic, [(keys[0][i], "late") for i in range(2)] + [(keys[1][i], "late") for i in range(5)])
    desc = json.loads(cli(store, "groups", "describe", group, "--json").stdout)
    lags = {p["partition"]: p["lag"] for p in desc["partitions"]}
    assert lags == {0: 2, 1: 5}, lags
    worst = max(lags.values())

    # No threshold, or one no partition passes: exit 0.
    for args in [[], ["--max-lag", worst], ["--max-age", "1h"]]:
        r = lag(store, group, *args, "--json")
        assert r.returncode == 0, (args, r.stderr)
        out = json.loads(r.stdout)
        assert out["over"] == [] and out["total_lag"] == sum(lags.values()), out
    # Over: exit 1, the partitions named on stdout (text and JSON) and stderr.
    r = lag(store, group, "--max-lag", worst - 1, "--json")
    over = sorted(p for p, l in lags.items() if l > worst - 1)
    assert r.returncode == 1 and json.loads(r.stdout)["over"] == over and str(over) in r.stderr, (r.stdout, r.stderr)
    r = lag(store, group, "--max-lag", 0)
    assert r.returncode == 1 and f"over: partitions {sorted(p for p, l in lags.items() if l > 0)}" in r.stdout, r.stdout
    # --max-age by the store's clock: an hour later every unconsumed message is older than 10 m.
    env = base_env()
    env["TWAINMQ_CLOCK_OFFSET_SECS"] = "3600"
    r = lag(store, group, "--max-age", "10m", "--json", env=env)
    out = json.loads(r.stdout)
    assert r.returncode == 1 and out["over"] == sorted(p for p, l in lags.items() if l > 0), out
    assert all(p["over"] == (["max_age"] if p["lag"] else []) for p in out["partitions"]), out
    # Bad thresholds are refused before anything is read.
    for args in [["--max-age", "soon"], ["--max-age", "0s"], ["--max-lag", "-1"], ["--history", "1h", "--buckets", "0"]]:
        r = lag(store, group, *args)
        assert r.returncode == 2 and "error" in r.stderr, (args, r.stderr)

    # History: the last minute, from the files; the last point is the lag now, rounds are marked.
    r = lag(store, group, "--history", "1m", "--buckets", 6, "--json")
    assert r.returncode == 0, r.stderr
    h = json.loads(r.stdout)
    assert [len(p["points"]) for p in h["partitions"]] == [6, 6]
    assert {p["partition"]: p["points"][-1]["lag"] for p in h["partitions"]} == lags, h
    assert any(m["kind"] == "round" for m in h["marks"]), h["marks"]
    r = lag(store, "nope", "--max-lag", 1)
    assert r.returncode == 1 and "does not exist" in r.stderr, r.stderr


def test_a_commit_past_the_partition_end_is_flagged_with_what_it_skips(cli, store):
    """A partition truncated under a group's commit: the lag is 0, which hides that the
    group will skip what is written next. describe flags it, and a member shows that
    exactly that many new messages are skipped."""
    cli(store, "topics", "create", "t", "--key-type", "u16", "--partitions", 1)
    produce(cli, store, "t", [(1, f"m{i}") for i in range(20)])
    cli(store, "groups", "import", "g", "-", input=json.dumps({"group": "g", "topic": "t", "offsets": {"0": 20}}))
    (f,) = list((store / "t").glob("0-*.tmf"))
    data = f.read_bytes()
    cut = [i for i, b in enumerate(data) if b == ord("\n")][4] + 1  # 5 whole lines
    f.write_bytes(data[:cut])
    d = json.loads(cli(store, "groups", "describe", "g", "--json").stdout)
    (p,) = d["partitions"]
    assert (p["committed"], p["end"], p["lag"], p["past_end"]) == (20, 5, 0, 15)
    text = cli(store, "groups", "describe", "g").stdout
    assert "PAST THE END by 15" in text
    assert "partition 0 has commit 20, past its end 5: the next 15 messages written there will be skipped by this group" in text
    assert "twainmq groups reset g --to latest --partition 0" in text

    # What it means, for real: of 16 messages written now (offsets 5 to 20), a member of the
    # group reads only the one at offset 20.
    produce(cli, store, "t", [(1, f"n{i}") for i in range(16)])
    out = cli(store, "consume", "t", "--group", "g", "--json", "--rebalance-window", 0.3, "--for", 3).stdout
    assert [(json.loads(line)["offset"], json.loads(line)["payload"]["value"]) for line in out.splitlines()] == [(20, "n15")]
