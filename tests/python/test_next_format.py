"""twainmq_rs on topics of the format's next version (docs/FORMAT.md, Part 3):
write_message of large messages and of free keys (str, bytes, None) where the
topic allows them; 0.2.3's errors, unchanged, where it does not; and 0.2.3
itself refusing such a topic at open."""

import dataclasses
import random

import pytest


@dataclasses.dataclass
class Doc:
    body: str


def text_of(n, seed):
    r = random.Random(seed)
    words = ["lorem", "ipsum", "ключ", "🔑", '{"id":', "42}"]
    out, size = [], 0
    while size < n:
        w = r.choice(words) + str(r.randrange(1000)) + " "
        out.append(w)
        size += len(w.encode())
    return "".join(out).encode()[:n].decode("utf-8", "ignore")


def test_large_messages_and_free_keys_round_trip(tmp_path):
    import twainmq_rs

    tmq = twainmq_rs.Twain(tmp_path)
    tmq.register_msg_cls(Doc)
    tmq.create_topic("k", key_type="any", partitions=3, message_types=["Doc"], large_messages=True)
    keys = ["", "ключ 🔑", "k" * 1000, b"", b"\x00\xff" * 500, None]
    sent = []
    with tmq.producer("k") as p:
        for i, n in enumerate([0, 1, 4096, 5000, 100_000, 1 << 20]):
            key = keys[i % len(keys)]
            # (A dataclass's JSON escapes non-ASCII text: half the size stays within the limit.)
            for message in [text_of(n, i), random.Random(i).randbytes(n), Doc(text_of(n // 2, i))]:
                p.write_message(key, message)
                sent.append((key, message))
        # A batch mixing large and small messages.
        batch = [(None, "small"), (b"\x01", bytes(300_000)), ("z", "tiny")]
        assert p.write_messages(batch) == 3
        sent.extend(batch)
    c = tmq.consumer("k")
    got = []
    while (m := c.poll()) is not None:
        got.append((m.key, m.message))
    c.close()

    def norm(pairs):
        return sorted((repr(k), repr(m)) for k, m in pairs)

    assert norm(got) == norm(sent)
    # Keys come back as the kind they were sent: str, bytes, None.
    assert {type(k) for k, _ in got} == {str, bytes, type(None)}


def test_over_the_topic_limit_raises_message_too_large_a_message_too_long_error(tmp_path):
    import twainmq_rs
    from twainmq_rs.errors import MessageTooLargeError, MessageTooLongError

    tmq = twainmq_rs.Twain(tmp_path)
    tmq.create_topic("t", key_type="text", max_message_bytes=10_000)
    with tmq.producer("t") as p:
        p.write_message("a", "x" * 10_000)
        with pytest.raises(MessageTooLargeError) as e:
            p.write_message("a", "x" * 10_001)
    assert isinstance(e.value, MessageTooLongError) and e.value.code == "message_too_large"
    with pytest.raises(twainmq_rs.errors.InvalidTopicOptionError):
        tmq.create_topic("u", key_type="any", max_message_bytes=(64 << 20) + 1)


def test_plain_topics_raise_023s_errors_unchanged(tmp_path, impls):
    """A message over one line and a key 0.2.3's key types cannot hold: the
    same exception classes from both."""
    for name, mod in impls.items():
        tmq = mod.Twain(tmp_path / name)
        tmq.root_dir.mkdir()
        tmq.create_topic("plain", "u16")
        p = tmq.producer("plain")
        with pytest.raises(mod.errors.MessageTooLongError):
            p.write_message(1, random.Random(1).randbytes(5000))
        with pytest.raises(AttributeError):
            p.write_message(None, "no key on a u16 topic")
        with pytest.raises(AttributeError):
            p.write_message(b"\x01", "no bytes key on a u16 topic")


def test_free_key_types_take_their_kinds(tmp_path):
    import twainmq_rs
    from twainmq_rs.errors import InvalidMessageKeyError, KeyKindError

    tmq = twainmq_rs.Twain(tmp_path)
    tmq.create_topic("texts", key_type="text")
    tmq.create_topic("raw", key_type="bytes")
    with tmq.producer("texts") as p:
        with pytest.raises(InvalidMessageKeyError):
            p.write_message(None, "a text topic's messages have keys")
        with pytest.raises(KeyKindError):
            p.write_message(5, "an int is no text key")
        with pytest.raises(InvalidMessageKeyError):
            p.write_message(b"\xff", "bytes that are not UTF-8 are no text")
        p.write_message("ok", "x")
    with tmq.producer("raw") as p:
        p.write_message("text", "a str is its UTF-8 bytes here")
    assert tmq.consumer("raw").poll().key == b"text"
    assert tmq.consumer("texts").poll().key == "ok"


def test_023_refuses_a_topic_ours_made_with_the_format_s_next_version(tmp_path, impls):
    ours, theirs = impls["ours"].Twain(tmp_path), impls["0.2.3"].Twain(tmp_path)
    ours.create_topic("large", key_type="u32", large_messages=True)
    ours.create_topic("keys", key_type="bytes")
    for topic in ["large", "keys"]:
        with pytest.raises(NotImplementedError, match="Zero width keys not yet supported"):
            theirs.producer(topic)
        with pytest.raises(NotImplementedError, match="Zero width keys not yet supported"):
            theirs.consumer(topic)
    assert sorted(theirs.list_topics()) == ["keys", "large"]
    # Ours reads the config as 0.2.3 would find it, and what it is.
    cfg = ours._native_store().topic_config("large")
    assert (cfg["key_width"], cfg["key_type"], cfg["max_message_bytes"]) == (0, "u32", 1 << 20)
