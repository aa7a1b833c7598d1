"""Member status (live / stale / gone) and group state (stable / rebalancing /
stuck / empty) as `groups describe` and `groups list` infer them from the group
log, with real twainmq 0.2.3 members and ours, killed or leaving cleanly. The
inference is relative to the store's clock, which TWAINMQ_CLOCK_OFFSET_SECS
shifts for the CLI."""

import json
import shutil
import signal
import time
from pathlib import Path

from conftest import base_env, run_cli
from group_helpers import (
    Procs,
    cli_cmd,
    describe,
    member_id_from_stderr,
    read_status,
    stable_round,
    start_py_member,
    wait_until,
    write_scripts,
)

FIXTURE_STORE = Path(__file__).resolve().parents[1] / "fixtures" / "twainmq-0.2.3" / "store"


def describe_at(store, group, offset_secs):
    """`groups describe --json` with the CLI's clock shifted by offset_secs."""
    env = base_env()
    env["TWAINMQ_CLOCK_OFFSET_SECS"] = str(offset_secs)
    return json.loads(run_cli(store, "groups", "describe", group, "--json", env=env).stdout)


def statuses(d):
    return {m["id"]: m["status"] for m in d["members"]}


def test_fixture_workers_is_empty_and_its_member_not_live_but_live_by_a_clock_at_its_last_record(tmp_path):
    store = tmp_path / "store"
    shutil.copytree(FIXTURE_STORE, store)
    d = json.loads(run_cli(store, "groups", "describe", "workers", "--json").stdout)
    assert d["state"] == "empty" and d["live_members"] == 0, d["state_reason"]
    assert [m["status"] for m in d["members"]] == ["gone"], d["members"]
    assert d["members"][0]["follows_resets"] is False, "0.2.3 wrote it"
    listed = json.loads(run_cli(store, "groups", "list", "--json").stdout)
    assert {g["group"]: (g["state"], g["live_members"], g["members"]) for g in listed}["workers"] == ("empty", 0, 1)
    # The same log read by a clock one second after its last record: the member is live.
    at = d["last_record_at"] + 1.0 - time.time()
    d = describe_at(store, "workers", at)
    assert d["state"] == "stable" and statuses(d) == {1: "live"}, (d["state_reason"], d["members"])
    d = describe_at(store, "workers", at + 60)
    assert d["state"] == "empty" and statuses(d) == {1: "stale"}, d["members"]


def test_real_023_members_live_then_killed_mid_round_leave_the_group_stuck_until_one_of_ours_joins(cli, store, tmp_path):
    topic, group, parts = "st", "g", 4
    cli(store, "topics", "create", topic, "--key-type", "u16", "--partitions", parts)
    member_script, _ = write_scripts(tmp_path / "scripts")
    with Procs(tmp_path / "logs") as procs:
        members = []
        for i in range(2):
            out, status, flag = (tmp_path / f"m{i}.{x}" for x in ("jsonl", "status", "flag"))
            p = start_py_member(procs, f"py{i}", member_script, store, topic, group, 1, out, status, flag, 5)
            members.append((p, status))
            # One at a time: 0.2.3's join (largest id + 1) races when two start together.
            wait_until(lambda: read_status(status), 20, lambda: f"0.2.3 member {i} to join\n{p.tail()}")
        ids = [read_status(s)["id"] for _, s in members]
        wait_until(lambda: stable_round(describe(store, group), ids, parts), 20, "the 0.2.3 members to share the partitions")
        d = describe(store, group)
        assert d["state"] == "stable" and statuses(d) == {i: "live" for i in ids}, (d["state_reason"], d["members"])
        assert all(m["follows_resets"] is False for m in d["members"])
        r = run_cli(store, "groups", "list")
        assert f"{group}\ttopic {topic}\tstable\t2 live of 2 members" in r.stdout, r.stdout

        # A round opens; both are killed before its end (no ENDREBAL is ever written).
        cli(store, "groups", "rebalance", group, "--window", 3)
        for p, _ in members:
            p.signal_group(signal.SIGKILL)
        for p, _ in members:
            p.wait(10)
        d = describe(store, group)
        assert d["state"] == "rebalancing" and d["open_round"] is not None, d["state_reason"]
        later = describe_at(store, group, 3 + 11)
        assert later["state"] == "stuck" and later["live_members"] == 0, (later["state_reason"], later["members"])
        assert "next member to join" in later["state_reason"]
        assert set(statuses(later).values()) == {"stale"}, later["members"]
        much_later = describe_at(store, group, 700)
        assert set(statuses(much_later).values()) == {"gone"}, much_later["members"]

        # One of ours joins: its round replaces the stuck one and it takes every partition.
        ours = procs.start("ours", cli_cmd(store, "consume", topic, "--group", group, "--follow", "--rebalance-window", 1))
        mid = wait_until(lambda: member_id_from_stderr(ours), 10, lambda: f"our member to join\n{ours.tail()}")
        wait_until(lambda: stable_round(describe(store, group), [mid], parts), 20, lambda: f"member {mid} to hold all\n{ours.tail()}")
        d = describe(store, group)
        assert d["state"] == "stable" and statuses(d) == {mid: "live"}, (d["state_reason"], d["members"])
        assert d["members"][0]["follows_resets"] is True
        assert {m["id"]: m["status"] for m in d["former_members"]} == {i: "gone" for i in ids}, d["former_members"]

        # It leaves cleanly: gone (left), and the group is empty.
        ours.signal_group(signal.SIGTERM)
        assert ours.wait(15) == 0, ours.tail()
        d = describe(store, group)
        assert d["state"] == "empty" and d["members"] == [], (d["state_reason"], d["members"])
        former = {m["id"]: m for m in d["former_members"]}
        assert former[mid]["status"] == "gone" and former[mid]["status_reason"].startswith("left"), former[mid]


def test_groups_json_into_a_closed_pipe_exits_quietly(tmp_path):
    """`| head` that has already gone: nothing written, no error, exit 0, the store unchanged."""
    import os
    import subprocess

    from conftest import cli_binary, snapshot_tree

    store = tmp_path / "store"
    shutil.copytree(FIXTURE_STORE, store)
    snap = snapshot_tree(store)
    for args in (["describe", "workers", "--json"], ["list", "--json"], ["export", "workers"], ["lag", "workers", "--history", "1d", "--json"],
                 ["reset", "workers", "--to", "shift:-1", "--dry-run", "--json"]):
        r, w = os.pipe()
        os.close(r)  # the reader is gone before anything is written
        p = subprocess.run([str(cli_binary()), "--store", str(store), "groups", *args], stdout=w, stderr=subprocess.PIPE,
                           env=base_env(), timeout=60)
        os.close(w)
        err = p.stderr.decode()
        assert p.returncode == 0 and "error" not in err, (args, p.returncode, err)
    assert snapshot_tree(store) == snap
