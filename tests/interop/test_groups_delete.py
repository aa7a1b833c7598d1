"""Deleting a group while its members run, with real 0.2.3 members: what happens to
them (they crash on the group's log, FileNotFoundError), and `groups delete`
refusing while the log shows live members, as Kafka refuses to delete a group
that is not empty, unless the user says they are stopped (--members-stopped)."""

import json

from group_helpers import (
    Procs,
    describe,
    keys_by_partition,
    read_status,
    stable_round,
    start_py_member,
    wait_until,
    write_scripts,
)

PARTS = 2


def produce(cli, store, topic, items):
    cli(store, "produce", topic, "--jsonl", input="".join(json.dumps({"key": k, "payload": t}) + "\n" for k, t in items))


def groups(cli, store):
    return cli(store, "groups", "list").stdout.split()


def test_delete_refuses_a_group_with_live_023_members_and_they_crash_when_it_goes(cli, store, tmp_path):
    W = 1.5
    topic, group = "work", "busy"
    cli(store, "topics", "create", topic, "--key-type", "u16", "--partitions", PARTS)
    keys = keys_by_partition(PARTS, 2**16 - 1, 4)
    produce(cli, store, topic, [(k, f"seed-{k}") for p in range(PARTS) for k in keys[p]])
    member_script, _ = write_scripts(tmp_path / "scripts")
    with Procs(tmp_path / "logs") as procs:
        members = []
        for name in ("py1", "py2"):
            st = tmp_path / f"{name}.status"
            proc = start_py_member(procs, name, member_script, store, topic, group, W, tmp_path / f"{name}.jsonl", st, tmp_path / f"{name}.flag", 1)
            mid = wait_until(lambda st=st: (read_status(st) or {}).get("id"), 20, lambda proc=proc: f"{proc.name} to join\n{proc.tail()}")
            members.append((proc, mid))
        ids = sorted(mid for _, mid in members)
        wait_until(lambda: stable_round(describe(store, group), ids, PARTS), 20, "both 0.2.3 members to hold the partitions")
        assert sorted(m["id"] for m in describe(store, group)["members"] if m["status"] == "live") == ids

        # Asked with --yes while they run: refused, nothing deleted, the members named and what
        # would happen to them said.
        r = cli(store, "groups", "delete", group, "--yes", check=False)
        assert r.returncode != 0, r.stdout
        assert "nothing deleted" in r.stderr
        for mid in ids:
            assert str(mid) in r.stderr
        assert "FileNotFoundError" in r.stderr and "--members-stopped" in r.stderr, r.stderr
        assert group in groups(cli, store)
        assert all(proc.alive() for proc, _ in members), "a refused delete touched nothing"
        r = cli(store, "groups", "delete", group, "--yes", "--json", check=False)
        assert r.returncode != 0 and r.stdout == "", "refused with --json too, nothing printed as deleted"

        # Said to be stopped (they are not: this shows what the flag's name promises to avoid).
        r = cli(store, "groups", "delete", group, "--yes", "--members-stopped")
        assert group not in groups(cli, store)
        # The truth the refusal tells: a running 0.2.3 member dies on the group's log at its next
        # commit (each message is committed here), it does not make the group again.
        produce(cli, store, topic, [(k, f"after-{k}") for p in range(PARTS) for k in keys[p]])
        for proc, _ in members:
            proc.wait(30)
            assert proc.popen.returncode != 0
            assert "FileNotFoundError" in proc.stderr_text(), proc.tail()
        assert group not in groups(cli, store), "no 0.2.3 member made the group again"


def test_delete_goes_ahead_once_the_members_are_not_live(cli, store):
    """A group with no live member (here: none ever joined) is deleted with --yes alone."""
    cli(store, "topics", "create", "quiet", "--key-type", "u16", "--partitions", 1)
    cli(store, "groups", "import", "idle", "-", input=json.dumps({"group": "idle", "topic": "quiet", "offsets": {"0": 0}}))
    assert "idle" in groups(cli, store)
    cli(store, "groups", "delete", "idle", "--yes")
    assert "idle" not in groups(cli, store)
