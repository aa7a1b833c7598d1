"""Members that leave cleanly (SIGTERM, or the end of --for) hand their
partitions over: the remaining members, ours or 0.2.3's, take them from the
leaver's final commit, without anyone having to open a round by hand."""

import json
import signal
import time

from group_helpers import (
    Procs,
    cli_cmd,
    describe,
    keys_by_partition,
    member_id_from_stderr,
    read_jsonl_file,
    read_status,
    stable_round,
    start_py_member,
    wait_until,
    write_scripts,
)

PARTS = 4


def produce(cli, store, topic, items):
    cli(store, "produce", topic, "--jsonl", input="".join(json.dumps({"key": k, "payload": t}) + "\n" for k, t in items))


def texts(path):
    return [r["payload"] if isinstance(r["payload"], str) else r["payload"]["value"] for r in read_jsonl_file(path)]


def test_leaving_cli_member_hands_partitions_to_023_member(cli, store, tmp_path):
    """A 0.2.3 member and one of ours share a group; ours stops on SIGTERM. The
    0.2.3 member must end up with every partition, continuing each exactly at
    our member's final commit (nothing re-read, nothing skipped)."""
    W = 1.5
    topic, group = "lv", "handover"
    cli(store, "topics", "create", topic, "--key-type", "u16", "--partitions", PARTS)
    keys = keys_by_partition(PARTS, 2**16 - 1, 6)
    produce(cli, store, topic, [(k, f"seed-{k}") for p in range(PARTS) for k in keys[p]])
    member_script, _ = write_scripts(tmp_path / "scripts")
    py_out, py_status, flag = tmp_path / "py.jsonl", tmp_path / "py.status", tmp_path / "flag"
    with Procs(tmp_path / "logs") as procs:
        py = start_py_member(procs, "py023", member_script, store, topic, group, W, py_out, py_status, flag, 10)
        pid = wait_until(lambda: (read_status(py_status) or {}).get("id"), 20, lambda: f"0.2.3 member to join\n{py.tail()}")
        wait_until(lambda: stable_round(describe(store, group), [pid], PARTS), 15, "the 0.2.3 member to hold everything")
        a_out = tmp_path / "a.jsonl"
        a = procs.start("cliA", cli_cmd(store, "consume", topic, "--group", group, "--follow", "--json",
                                        "--rebalance-window", W, "--commit-every", 7), stdout_path=a_out)
        aid = wait_until(lambda: member_id_from_stderr(a), 10, lambda: a.tail())
        settled = wait_until(lambda: stable_round(describe(store, group), [pid, aid], PARTS), 15,
                             lambda: f"a round with both members\n{a.tail()}\n{py.tail()}")
        a_parts = {int(k): v for k, v in settled["assignment"].items()}[aid]
        assert a_parts, "our member got no partition"
        batch = [(keys[p][i % 6], f"b1-{p}-{i}") for i in range(30) for p in range(PARTS)]
        produce(cli, store, topic, batch)
        want = {t for _, t in batch}
        wait_until(lambda: want <= set(texts(a_out)) | set(texts(py_out)), 20, "batch 1 to be consumed")
        py_lines_before = len(read_jsonl_file(py_out))

        a.signal_group(signal.SIGTERM)
        assert a.wait(15) == 0, a.tail()
        final = {int(k): v for k, v in describe(store, group)["committed"].items()}
        a_recs = read_jsonl_file(a_out)
        for p in a_parts:
            last = max(r["offset"] for r in a_recs if r["partition"] == p)
            assert final[p] == last + 1, f"partition {p}: our member read up to {last} but committed {final[p]} on exit"
        # Nobody opens a round by hand: the leaver's own round moves its partitions.
        wait_until(lambda: stable_round(describe(store, group), [pid], PARTS), 4 * W + 5,
                   lambda: f"the 0.2.3 member to take every partition after our member left\n{py.tail()}")
        batch2 = [(keys[p][i % 6], f"b2-{p}-{i}") for i in range(10) for p in range(PARTS)]
        produce(cli, store, topic, batch2)
        want2 = {t for _, t in batch2}
        wait_until(lambda: want2 <= set(texts(py_out)), 20, "batch 2 to be consumed by the 0.2.3 member")
        after = read_jsonl_file(py_out)[py_lines_before:]
        for p in a_parts:
            first = next(r["offset"] for r in after if r["partition"] == p)
            assert first == final[p], f"0.2.3 took partition {p} at {first}, our member's final commit was {final[p]}"
        py.signal_group(signal.SIGTERM)
        assert py.wait(15) == 0, py.tail()


def test_member_leaving_during_open_round_gets_no_partitions(cli, store, tmp_path):
    """A member that joins (so offers in its round) and stops cleanly before
    that round ends must not strand partitions: after the round, every
    partition belongs to a live member and new messages are consumed."""
    topic, group = "lr", "early-leaver"
    cli(store, "topics", "create", topic, "--key-type", "u16", "--partitions", PARTS)
    keys = keys_by_partition(PARTS, 2**16 - 1, 3)
    produce(cli, store, topic, [(k, f"seed-{k}") for p in range(PARTS) for k in keys[p]])
    with Procs(tmp_path / "logs") as procs:
        a_out = tmp_path / "a.jsonl"
        a = procs.start("cliA", cli_cmd(store, "consume", topic, "--group", group, "--follow", "--json",
                                        "--rebalance-window", 1), stdout_path=a_out)
        aid = wait_until(lambda: member_id_from_stderr(a), 10, lambda: a.tail())
        wait_until(lambda: stable_round(describe(store, group), [aid], PARTS), 10, lambda: a.tail())

        # B joins with a 3 s round and leaves cleanly after 1 s, before its round ends.
        t0 = time.monotonic()
        r = cli(store, "consume", topic, "--group", group, "--json", "--rebalance-window", 3, "--for", 1)
        assert time.monotonic() - t0 < 3, "B was meant to leave while its round was open"
        bid = int(r.stderr.split("as member", 1)[1].split()[0])

        batch = [(keys[p][i % 3], f"new-{p}-{i}") for i in range(5) for p in range(PARTS)]
        produce(cli, store, topic, batch)

        def settled():
            d = describe(store, group)
            return stable_round(d, [aid], PARTS)

        def why():
            d = describe(store, group)
            return (f"member {aid} (alive) to own every partition after member {bid} left; describe members: "
                    f"{[(m['id'], m['partitions']) for m in d['members']]}, open round: {d['open_round'] is not None}")

        wait_until(settled, 3 + 1 + 5, why)
        want = {t for _, t in batch}
        wait_until(lambda: want <= set(texts(a_out)), 10, "the new messages to be consumed")
        a.signal_group(signal.SIGTERM)
        assert a.wait(15) == 0, a.tail()
