"""The deliberate differences between twainmq_rs and twainmq 0.2.3, each
shown on both: what 0.2.3 does (its defect, from docs/FORMAT.md "0.2.3's
defects") and what ours does instead. The package README lists the same
ones ("Differences from 0.2.3"); a difference not pinned here is a bug."""

import contextlib
import io
import json
import time
from datetime import timedelta

import pytest

from conftest import Event, Reading, copy_fixture
from scenarios import msg


@pytest.fixture
def both(tmp_path, impls):
    """(module, store copy) for 0.2.3 and for ours."""
    return {label: (mod, copy_fixture(tmp_path / label)) for label, mod in impls.items()}


def test_start_now_does_not_skip_what_is_written_after_it(both):
    # 0.2.3's "now" consumer with no file for today re-seeks to the END of
    # today's file once one appears, so the first messages of the day are
    # never read; ours starts at the end of what existed when it was made.
    seen = {}
    for label, (mod, root) in both.items():
        t = mod.Twain(root)
        c = t.consumer("tiny", start_from="now")
        assert c.poll() is None
        with t.producer("tiny") as p:
            for i in range(3):
                p.write_message(i, f"new {i}")
        seen[label] = [m.message for m in iter(c.poll, None)]
    assert seen["0.2.3"] == []
    assert seen["ours"] == ["new 0", "new 1", "new 2"]


def test_an_unregistered_type_waits_instead_of_being_lost(both):
    # 0.2.3 raises KeyError and the line is gone without its offset being
    # counted: the messages after it in that partition get offsets one too
    # low, and at the next file boundary it seeks back by offset and reads a
    # message twice. Ours raises UnregisteredMessageTypeError (a KeyError)
    # and keeps the message for after register_msg_cls().
    got = {}
    for label, (mod, root) in both.items():
        t = mod.Twain(root)
        c = t.consumer("typed")
        with pytest.raises(KeyError):
            c.poll()
        t.register_msg_cls(Reading)
        t.register_msg_cls(Event)
        got[label] = [msg(m) for m in iter(c.poll, None)]
    ours, old = got["ours"], got["0.2.3"]
    lost_key = ours[0][1]
    assert ours[0][0] == 0 and ours[0][4][1] == "Event"
    assert len(ours) == 49 and len(set(ours)) == 49
    assert lost_key not in [m[1] for m in old]
    ids = [(m[1], m[2]) for m in old]  # key and timestamp: a message's identity
    assert len(set(ids)) == 48 and len(ids) == 49  # one lost, one read twice


def test_delete_topic_removes_its_config_and_groups(both, monkeypatch):
    # 0.2.3 removes the folder only: the .twc stays, so list_topics() still
    # names the topic and create_topic() refuses the name; its groups stay.
    answers = iter(f"YES{d}" for d in range(10))
    for label, (mod, root) in both.items():
        t = mod.Twain(root)
        monkeypatch.setattr("random.randint", lambda a, b: 4)
        monkeypatch.setattr("builtins.input", lambda prompt: "YES4")
        assert t.delete_topic("events") is None
        if label == "0.2.3":
            assert "events" in t.list_topics() and (root / "events.twc").exists()
            assert (root / "--group--workers").exists()
        else:
            assert "events" not in t.list_topics() and not (root / "events.twc").exists()
            assert not (root / "--group--workers").exists() and not (root / "--group--workers.twc").exists()
            t.create_topic("events")
    del answers


def test_a_member_given_a_partition_with_no_file_yet_misses_nothing(both):
    # 0.2.3: a member whose round gives it a partition that has no file yet
    # opens that partition "at the end" once a file appears, so the messages
    # written in between are never read by the group; ours reads them.
    import twainmq.consumer
    import twainmq_rs.consumer
    saved = twainmq.consumer.REBAL_LENGTH, twainmq_rs.consumer.REBAL_LENGTH
    twainmq.consumer.REBAL_LENGTH = twainmq_rs.consumer.REBAL_LENGTH = timedelta(seconds=0.5)
    try:
        got = {}
        for label, (mod, root) in both.items():
            t = mod.Twain(root)
            t.create_topic("fresh", "u16", 1)
            c = t.consumer("fresh", group="g")
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:  # past the join's round
                assert c.poll() is None
                time.sleep(0.05)
            with t.producer("fresh") as p:
                for i in range(3):
                    p.write_message(i, f"m{i}")
            time.sleep(0.1)
            got[label] = [m.message for m in iter(c.poll, None)]
        assert got["0.2.3"] == []
        assert got["ours"] == ["m0", "m1", "m2"]
    finally:
        twainmq.consumer.REBAL_LENGTH, twainmq_rs.consumer.REBAL_LENGTH = saved


def test_commit_does_not_print(both, capsys):
    # 0.2.3's commit() prints the commit list (a debugging leftover).
    import twainmq.consumer
    import twainmq_rs.consumer
    saved = twainmq.consumer.REBAL_LENGTH, twainmq_rs.consumer.REBAL_LENGTH
    twainmq.consumer.REBAL_LENGTH = twainmq_rs.consumer.REBAL_LENGTH = timedelta(seconds=0.5)
    try:
        out = {}
        for label, (mod, root) in both.items():
            c = mod.Twain(root).consumer("tiny", group="g")
            deadline = time.monotonic() + 10
            while c.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            capsys.readouterr()
            c.commit()
            out[label] = capsys.readouterr().out
        assert out["0.2.3"].startswith("[(0, ")
        assert out["ours"] == ""
    finally:
        twainmq.consumer.REBAL_LENGTH, twainmq_rs.consumer.REBAL_LENGTH = saved


def test_a_group_made_with_start_now_resumes(both):
    # 0.2.3 writes -1 commits for a group made with start_from="now" and then
    # cannot resume from them: when its round gives it partitions, poll()
    # raises NotImplementedError (expected.json late_group_error); ours reads
    # -1 as "the end" and resumes there.
    import twainmq.consumer
    import twainmq_rs.consumer
    saved = twainmq.consumer.REBAL_LENGTH, twainmq_rs.consumer.REBAL_LENGTH
    twainmq.consumer.REBAL_LENGTH = twainmq_rs.consumer.REBAL_LENGTH = timedelta(seconds=0.5)
    try:
        mod, root = both["0.2.3"]
        c = mod.Twain(root).consumer("events", group="tail")
        with pytest.raises(NotImplementedError):
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                c.poll()
                time.sleep(0.05)
        mod, root = both["ours"]
        t = mod.Twain(root)
        c = t.consumer("events", group="tail")
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            assert c.poll() is None
            time.sleep(0.05)
        t.producer("events").write_message(1, "after")
        assert c.poll(timeout=5).message == "after"
    finally:
        twainmq.consumer.REBAL_LENGTH, twainmq_rs.consumer.REBAL_LENGTH = saved


@pytest.mark.parametrize("args,ours_error", [
    (("p0", "u16", 0), "InvalidPartitionCountError"),
    (("pneg", "u16", -2), "InvalidPartitionCountError"),
    (("pstr", "u16", "2"), "InvalidPartitionCountError"),
    (("CON",), "InvalidTopicNameError"),
    (("nul.txt",), "InvalidTopicNameError"),
    (("dot.",), "InvalidTopicNameError"),
    (("Events",), "InvalidTopicNameError"),
    (("--group--x",), "InvalidTopicNameError"),
])
def test_topics_no_one_could_use_are_refused(both, args, ours_error):
    # 0.2.3 makes them: a topic of 0 partitions no producer can write
    # (ZeroDivisionError), one whose partition count is the string "2", char0 keys, names Windows cannot hold (device
    # names, a trailing dot, a case twin of "events"), a name in the groups'
    # namespace. Ours refuses each with a ValueError naming the problem.
    mod, root = both["0.2.3"]
    mod.Twain(root).create_topic(*args)
    mod, root = both["ours"]
    with pytest.raises(ValueError) as e:
        mod.Twain(root).create_topic(*args)
    assert type(e.value).__name__ == ours_error, e.value
    assert not (root / f"{args[0]}.twc").exists()


def test_char0_keys_are_refused(both):
    # 0.2.3 makes a char0 topic, whose every key is "" (all messages in one
    # partition); ours refuses it as an invalid key type.
    mod, root = both["0.2.3"]
    mod.Twain(root).create_topic("c0", "char0")
    mod, root = both["ours"]
    with pytest.raises(mod.errors.InvalidKeyTypeError, match="from 1 to"):
        mod.Twain(root).create_topic("c0", "char0")


def test_a_key_of_the_wrong_kind(both):
    # 0.2.3: AttributeError ('str' object has no attribute 'to_bytes') or a
    # TypeError deep in its encoder; ours: KeyKindError, which is both an
    # InvalidMessageKeyError and an AttributeError, naming the topic's key type.
    mod, root = both["0.2.3"]
    with pytest.raises(AttributeError):
        mod.Twain(root).producer("tiny").write_message("k", "x")
    mod, root = both["ours"]
    with pytest.raises(AttributeError) as e:
        mod.Twain(root).producer("tiny").write_message("k", "x")
    assert isinstance(e.value, mod.errors.InvalidMessageKeyError)
    assert "u8" in str(e.value)


def test_a_string_key_ending_in_nul_is_refused(both):
    # 0.2.3 pads char keys with NUL and strips them on reading, so "ab\0" is
    # read back as "ab": ours refuses such a key rather than change it.
    mod, root = both["0.2.3"]
    t = mod.Twain(root)
    t.producer("names").write_message("ab\0", "x")
    assert [m.key for m in iter(t.consumer("names", start_from="start").poll, None)][-1] == "ab"
    mod, root = both["ours"]
    with pytest.raises(mod.errors.InvalidMessageKeyError):
        mod.Twain(root).producer("names").write_message("ab\0", "x")


def test_trigger_rebal_outside_a_group(both):
    # 0.2.3: AttributeError ('_group_producer'); ours: NotInGroupError, an
    # AttributeError that says the consumer has no group.
    for label, (mod, root) in both.items():
        c = mod.Twain(root).consumer("tiny")
        with pytest.raises(AttributeError) as e:
            c.trigger_rebal()
        if label == "ours":
            assert type(e.value).__name__ == "NotInGroupError"


def test_a_deleted_topic_stops_a_consumer(both):
    # Both read on to the end of the file they have open. Then 0.2.3 raises a
    # bare FileNotFoundError from listing the gone folder; ours raises
    # TopicDeletedError, which says the topic was deleted, as its producers do.
    import shutil
    for label, (mod, root) in both.items():
        c = mod.Twain(root).consumer("tiny")
        assert c.poll() is not None
        shutil.rmtree(root / "tiny")
        (root / "tiny.twc").unlink()
        rest = []
        with pytest.raises(FileNotFoundError if label == "0.2.3" else mod.errors.TopicDeletedError):
            while True:
                rest.append(c.poll())
        assert 0 < len(rest) < 10 and None not in rest  # the rest of its open file only


def test_list_topics_is_sorted(both):
    # 0.2.3 lists in the folder's order (arbitrary); ours sorted.
    mod, root = both["ours"]
    names = mod.Twain(root).list_topics()
    assert names == sorted(names)
    mod, root = both["0.2.3"]
    assert sorted(mod.Twain(root).list_topics()) == names


def test_partition_files_appear_with_their_first_message(both):
    # 0.2.3's producer makes today's file of every partition when it starts;
    # ours on a partition's first message (no empty files for readers to
    # list, and no file made by a producer that writes nothing).
    for label, (mod, root) in both.items():
        t = mod.Twain(root)
        t.create_topic("lazy", "u16", 3)
        t.producer("lazy").write_message(1, "x")
        files = [f for f in (root / "lazy").iterdir()]
        assert len(files) == (3 if label == "0.2.3" else 1), files


def test_a_message_near_the_size_limit(both):
    # The limit (4096 bytes a line) is the same, but ours compresses with
    # its own deflate, so near the limit a payload one accepts the other may
    # refuse. Ours measures its own line exactly: what it accepts, 0.2.3 reads.
    import os
    payload = os.urandom(3000)  # incompressible: base85 of ~3000 bytes is ~3750 chars
    for label, (mod, root) in both.items():
        t = mod.Twain(root)
        t.producer("tiny").write_message(1, payload)
    mod, root = both["0.2.3"]
    back = [m.message for m in iter(mod.Twain(root).consumer("tiny").poll, None)]
    assert back[-1] == payload
    mod, root = both["ours"]
    back = [m.message for m in iter(both["0.2.3"][0].Twain(root).consumer("tiny").poll, None)]
    assert back[-1] == payload
    for label, (mod, root) in both.items():
        with pytest.raises(mod.errors.MessageTooLongError):
            mod.Twain(root).producer("tiny").write_message(1, os.urandom(3400))


def test_stdout_is_quiet(both):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        mod, root = both["ours"]
        mod.Twain(root).producer("tiny").write_message(1, "x")
    assert out.getvalue() == ""


@contextlib.contextmanager
def short_rounds(seconds=0.5):
    import twainmq.consumer
    import twainmq_rs.consumer
    saved = twainmq.consumer.REBAL_LENGTH, twainmq_rs.consumer.REBAL_LENGTH
    twainmq.consumer.REBAL_LENGTH = twainmq_rs.consumer.REBAL_LENGTH = timedelta(seconds=seconds)
    try:
        yield
    finally:
        twainmq.consumer.REBAL_LENGTH, twainmq_rs.consumer.REBAL_LENGTH = saved


def test_one_group_name_on_a_second_topic_is_refused(both):
    # A group's commits name partitions, not topics. 0.2.3 lets a group that
    # read topic "a" read topic "b" too: b's partition 0 starts at a's
    # committed offset, and the messages of b before it are never read (a
    # larger topic would re-read or skip whatever the offsets happen to say).
    # Ours records the group's topic and refuses another with GroupError.
    with short_rounds():
        for label, (mod, root) in both.items():
            t = mod.Twain(root)
            t.create_topic("a", "u16", 1)
            t.create_topic("b", "u16", 1)
            with t.producer("a") as p:
                for i in range(5):
                    p.write_message(i, f"a{i}")
            with t.producer("b") as p:
                for i in range(5):
                    p.write_message(i, f"b{i}")
            c = t.consumer("a", group="g")
            deadline = time.monotonic() + 10
            got = []
            while len(got) < 5 and time.monotonic() < deadline:
                got += [m.message for m in iter(c.poll, None)]
                time.sleep(0.05)
            assert got == [f"a{i}" for i in range(5)]
            c.commit()
            if label == "0.2.3":
                d = t.consumer("b", group="g")
                deadline = time.monotonic() + 3
                seen = []
                while time.monotonic() < deadline:
                    seen += [m.message for m in iter(d.poll, None)]
                    time.sleep(0.05)
                assert seen == []  # b0..b4 skipped: b started at a's commit, 5
            else:
                with pytest.raises(mod.errors.GroupError, match='"a"'):
                    t.consumer("b", group="g")


@pytest.mark.parametrize("types", [[1, 2], ["Event", None]])
def test_message_types_that_are_not_strings_are_refused(both, types):
    # A message type is named by its dataclass (the class's name or its
    # __message_type__), a str. 0.2.3 writes json.dump's text of anything
    # else ("1", "null"): types no dataclass names. (A value JSON cannot key,
    # a tuple, makes it fail after it made the topic's folder, leaving a topic
    # without a config that create_topic then refuses.) Ours refuses them
    # with InvalidMessageTypeNameError (a ValueError), making nothing.
    mod, root = both["0.2.3"]
    mod.Twain(root).create_topic("nt", "u16", 1, types)
    assert json.loads((root / "nt.twc").read_text())["message_types"] == {json.dumps(types[0]).strip('"'): 0, json.dumps(types[1]).strip('"'): 1}
    mod, root = both["ours"]
    with pytest.raises(mod.errors.InvalidMessageTypeNameError, match="not a str"):
        mod.Twain(root).create_topic("nt", "u16", 1, types)
    assert not (root / "nt").exists() and not (root / "nt.twc").exists()


def test_assigning_an_attribute_that_is_no_field_of_a_message(both):
    # A field cannot be assigned or deleted in either (FrozenInstanceError:
    # test_differential.py's messages_are_frozen). Another name: 0.2.3's
    # Message, a frozen dataclass with slots, raises TypeError from inside
    # dataclasses on Python 3.10 and 3.11 (super() against the class that
    # slots replaced); ours raises FrozenInstanceError for any name, as a
    # frozen dataclass means to.
    import dataclasses
    import sys
    for label, (mod, root) in both.items():
        m = mod.Twain(root).consumer("tiny").poll()
        with pytest.raises((TypeError, dataclasses.FrozenInstanceError)) as e:
            m.tag = "mine"
        if label == "ours":
            assert type(e.value) is dataclasses.FrozenInstanceError
        elif sys.version_info < (3, 12):
            assert type(e.value) is TypeError


def test_group_records_have_no_json_schema_methods(both):
    # 0.2.3's group-protocol records (Joined, Commit, ...) are dataclasses
    # with the JsonSchemaMixin of its dependency dataclasses-jsonschema
    # (to_dict, to_json, from_dict, from_json, json_schema). Ours are plain
    # dataclasses with the same fields (twainmq-rs depends on nothing); a
    # program that reads a group's log gets the same values.
    import dataclasses
    from importlib import import_module
    for label, (mod, _) in both.items():
        groups = import_module(mod.__name__ + ".consumer_groups")
        commit = groups.Commit(partition_offsets=[[0, 5]])
        assert dataclasses.asdict(commit) == {"partition_offsets": [[0, 5]]}
        assert [f.name for f in dataclasses.fields(groups.RebalOffer)] == ["own", "partitions"]
        assert hasattr(commit, "to_dict") == (label == "0.2.3")
