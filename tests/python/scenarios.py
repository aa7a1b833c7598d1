"""Scenarios run against twainmq 0.2.3 and twainmq_rs alike: each takes the
module and a store folder and returns what a program could observe, as plain
values, so the two runs compare with ==. Exceptions become
``("raise", class name, names of the class's bases)``: ours must raise
0.2.3's class or a subclass of it (see ``same``)."""

import dataclasses
import json
import math
from datetime import timedelta

from conftest import Event, Reading

SCENARIOS = {}


def scenario(f):
    SCENARIOS[f.__name__] = f
    return f


def payload(p):
    if isinstance(p, str):
        return ("str", p)
    if isinstance(p, bytes):
        return ("bytes", p.hex())
    if dataclasses.is_dataclass(p):
        # JSON text: NaN fields compare equal as text (NaN != NaN as floats).
        return ("dataclass", type(p).__name__, json.dumps(dataclasses.asdict(p)))
    return ("other", repr(p))


def msg(m, timestamp=True):
    """A Message as observed: offset, key, timestamp (UTC, exact), payload."""
    if m is None:
        return None
    ts = m.timestamp
    utc = ts.tzinfo is not None and ts.utcoffset() == timedelta(0)
    return (m.offset, m.key, ts.isoformat() if timestamp else None, utc, payload(m.message))


def attempt(f, *args, **kw):
    try:
        return ("ok", f(*args, **kw))
    except Exception as e:  # noqa: BLE001 (the class is what is compared)
        return ("raise", type(e).__name__, [c.__name__ for c in type(e).__mro__])


def same(a, b):
    """0.2.3's observation `a` equals ours `b`, an exception of ours being
    0.2.3's class or a subclass of it."""
    if isinstance(a, tuple) and a and a[0] == "raise":
        return isinstance(b, tuple) and b[:1] == ("raise",) and a[1] in b[2]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def drain(consumer, limit=100_000, timestamp=True):
    out = []
    while len(out) < limit and (m := consumer.poll()) is not None:
        out.append(msg(m, timestamp))
    return out


def partition_counts(topic_dir):
    """Which partition each message went to: the files' line counts. Empty
    files are left out: 0.2.3 makes every partition's file when a producer
    starts, ours on a partition's first message (a listed difference)."""
    counts = [(f.name.split("-")[0], len(f.read_bytes().splitlines())) for f in topic_dir.iterdir()]
    return sorted(c for c in counts if c[1])


def twain(mod, root, typed=True):
    t = mod.Twain(root)
    if typed:
        t.register_msg_cls(Reading)
        t.register_msg_cls(Event)
    return t


# -- reading a store 0.2.3 wrote ------------------------------------------

@scenario
def read_every_topic(mod, root):
    t = twain(mod, root)
    return {topic: drain(t.consumer(topic)) for topic in ["events", "sensors", "names", "typed", "tiny", "bigmsgs", "empty"]}


@scenario
def poll_many_in_batches(mod, root):
    t = twain(mod, root)
    c = t.consumer("events")
    out = []
    while batch := c.poll_many(7):
        out.append([msg(m) for m in batch])
    d = t.consumer("names")
    out.append([msg(m) for m in d.poll_many()])
    out.append([msg(m) for m in d.poll_many(0)])
    out.append([msg(m) for m in d.poll_many(-3)])
    out.append(attempt(d.poll_many, 2.0))
    return out


@scenario
def multi_poll_round_robin(mod, root):
    t = twain(mod, root)
    consumers = [t.consumer("events"), t.consumer("names"), t.consumer("tiny")]
    out, last = [], 0
    while (got := mod.multi_poll(consumers, last)) is not None:
        last, m = got
        out.append((last, msg(m)))
    return out


@scenario
def start_now_sees_nothing_old(mod, root):
    t = twain(mod, root)
    return [drain(t.consumer(topic, start_from="now")) for topic in ["events", "tiny", "empty"]]


@scenario
def typed_without_registration_raises(mod, root):
    t = twain(mod, root, typed=False)
    c = t.consumer("typed")
    return [attempt(c.poll)]


@scenario
def store_queries(mod, root):
    t = twain(mod, root)
    return [
        sorted(t.list_topics()),
        [t.topic_exists(n) for n in ["events", "empty", "nope", "--group--workers"]],
        str(t.root_dir) == str(root),
    ]


# -- making topics ---------------------------------------------------------

@scenario
def create_topic_arguments(mod, root):
    t = twain(mod, root)
    out = [
        attempt(t.create_topic, "fresh"),
        attempt(t.create_topic, "c8", "char8", 3, ["Reading"]),
        attempt(t.create_topic, "k64", key_type="u64", partitions=2),
        attempt(t.create_topic, "a/b"),
        attempt(t.create_topic, "bad name"),
        attempt(t.create_topic, ""),
        attempt(t.create_topic, "x1", "u12"),
        attempt(t.create_topic, "x2", "char"),
        attempt(t.create_topic, "x3", "charx"),
        attempt(t.create_topic, "events"),
        attempt(t.create_topic, "a/b", "u12"),  # the name is checked first
        attempt(t.create_topic, "ok2", "u12", 0),
        attempt(t.create_topic, "fresh", "u8"),
    ]
    configs = {n: json.loads((root / f"{n}.twc").read_text()) for n in ["fresh", "c8", "k64"]}
    return out + [configs, sorted(t.list_topics())]


@scenario
def register_twice(mod, root):
    t = twain(mod, root)

    @dataclasses.dataclass
    class Reading:  # noqa: F811 (the same name again)
        x: int

    return [attempt(t.register_msg_cls, Reading)]


@scenario
def missing_topics(mod, root):
    t = twain(mod, root)
    return [
        attempt(t.producer, "nope"),
        attempt(t.consumer, "nope"),
        attempt(t.consumer, "events", start_from="later"),
        attempt(t.consumer, "events", group="bad name"),
        attempt(mod.multi_poll, []),
    ]


# -- writing ------------------------------------------------------------------

KEYS = {
    "u8": [0, 1, 200, 255, 17],
    "u16": [0, 65535, 4242, 7, 7, 7],
    "u32": [0, 2**32 - 1, 123456789, 3],
    "u64": [0, 2**64 - 1, 2**40 + 3, 99],
    "char4": ["", "a", "abcd", "ü", "日本", "x y"],
}
PAYLOADS = ["hello", "", "ünïcödé 日本 🎉", b"", b"\x00\xff\xfe binary", "x" * 1000, b"\x01" * 2000]


@scenario
def write_then_read_every_key_type(mod, root):
    t = twain(mod, root)
    out = []
    for kt, keys in KEYS.items():
        t.create_topic(f"w_{kt}", kt, 3)
        with t.producer(f"w_{kt}") as p:
            for i, k in enumerate(keys):
                out.append(attempt(p.write_message, k, PAYLOADS[i % len(PAYLOADS)]))
        out.append(drain(t.consumer(f"w_{kt}"), timestamp=False))
        out.append(partition_counts(root / f"w_{kt}"))
    return out


@scenario
def write_dataclasses(mod, root):
    t = twain(mod, root)
    t.create_topic("dc", "u16", 2, ["Reading", "Event"])
    p = t.producer("dc")
    out = [
        attempt(p.write_message, 1, Reading("s1", 1.5, True)),
        attempt(p.write_message, 2, Event(7, 'say "hi" 日本\\', ["a", "b"])),
        attempt(p.write_message, 3, Reading("nan", float("nan"), False)),
    ]

    @dataclasses.dataclass
    class Other:
        z: int

    out.append(attempt(p.write_message, 4, Other(1)))
    out.append(attempt(p.encode_message, Reading("s1", 1.5, True)))
    out.append(attempt(p.encode_message, "text"))
    out.append(attempt(p.encode_message, b"bytes"))
    out.append(drain(t.consumer("dc"), timestamp=False))
    return out


@scenario
def bad_writes(mod, root):
    t = twain(mod, root)
    out = []
    with t.producer("tiny") as p:  # u8
        out += [attempt(p.write_message, 256, "x"), attempt(p.write_message, -1, "x"), attempt(p.write_message, "k", "x")]
        out += [attempt(p.write_message, 1, "y" * 5000), attempt(p.write_message, 1, 12345), attempt(p.write_message, 1, None)]
        out += [attempt(p.write_message, 1.0, "x"), attempt(p.write_message, 1, bytearray(b"x")), attempt(p.write_message, True, "x")]
    with t.producer("names") as p:  # char8
        out += [attempt(p.write_message, "123456789", "x"), attempt(p.write_message, 5, "x")]
    out.append(drain(t.consumer("tiny"), timestamp=False)[-1:])
    return out


@scenario
def producer_attributes(mod, root):
    t = twain(mod, root)
    p = t.producer("names")
    c = t.consumer("events")
    return [p.topic, p.key_width, c.topic, c.key_width, str(c)]


@scenario
def custom_partitioner(mod, root):
    t = twain(mod, root)
    t.create_topic("cp", "u16", 4)
    p = mod.TwainMQProducer(t, "cp", partitioner=lambda key, n: (key * 3) % n)
    for k in range(10):
        p.write_message(k, f"m{k}")
    p.close()
    return partition_counts(root / "cp")


@scenario
def cross_read(mod, root):
    """What the other implementation wrote, read by this one: run with
    `other` set by the test to the other module."""
    other = cross_read.other
    t_other = twain(other, root)
    t_other.create_topic("x", "u32", 3, ["Reading"])
    with t_other.producer("x") as p:
        for i in range(30):
            p.write_message(i * 7919, Reading(f"s{i}", i / 3, i % 2 == 0) if i % 3 == 0 else (f"text {i}" if i % 3 == 1 else bytes([i]) * i))
    return drain(twain(mod, root).consumer("x"), timestamp=False)


# -- groups ---------------------------------------------------------------------

def wait_for_messages(consumer, seconds=15.0):
    """Poll (heartbeating) until messages come, then drain; 0.2.3's members
    get partitions only when their first round ends."""
    import time
    deadline = time.monotonic() + seconds
    out = []
    while time.monotonic() < deadline:
        m = consumer.poll()
        if m is not None:
            out.append(msg(m))
            while (m := consumer.poll()) is not None:
                out.append(msg(m))
            return out
        time.sleep(0.05)
    return out


@scenario
def group_reads_all_then_resumes_from_commit(mod, root):
    import time
    t = twain(mod, root)
    c = t.consumer("names", group="fresh")
    got = sorted(wait_for_messages(c))
    c.commit()
    # A second member after the first stops heartbeating: the round it
    # opens gives it everything, from the commits: nothing is left.
    time.sleep(0.3)
    d = t.consumer("names", group="fresh")
    deadline = time.monotonic() + 3
    again = []
    while time.monotonic() < deadline:
        if (m := d.poll()) is not None:
            again.append(msg(m))
        time.sleep(0.05)
    return [got, again, str(c).split("(")[0]]


@dataclasses.dataclass
class Point:
    x: float
    y: float


@dataclasses.dataclass
class Shape:
    __message_type__ = "shape.v2"
    name: str
    corners: list
    centre: Point


@scenario
def nested_and_renamed_dataclasses(mod, root):
    t = twain(mod, root)
    t.register_msg_cls(Shape)
    t.create_topic("shapes", "char6", 2, ["shape.v2", "Reading"])
    with t.producer("shapes") as p:
        p.write_message("tri", Shape("triangle", [[0, 0], [1, 0], [0, 1]], Point(0.3, 0.3)))
        p.write_message("sq", Shape("square 日本", [], Point(-1e300, float("inf"))))
        p.write_message("r", Reading("s", 1.0, True))
    got = drain(t.consumer("shapes"), timestamp=False)
    fresh = twain(mod, root)  # no Shape registered
    return [got, attempt(fresh.consumer("shapes").poll_many, 5)]


@scenario
def consumerlets_and_the_round_rule(mod, root):
    from importlib import import_module
    consumer = import_module(mod.__name__ + ".consumer")
    groups = import_module(mod.__name__ + ".consumer_groups")
    t = twain(mod, root)
    out = []
    for p in range(4):
        out.append(drain(consumer.TwainMQConsumerlet(t, "events", p, offset=0)))
        out.append(drain(consumer.TwainMQConsumerlet(t, "events", p, offset=30)))
        out.append(drain(consumer.TwainMQConsumerlet(t, "events", p, offset=500)))
    out.append(drain(consumer.TwainMQConsumerlet(t, "events", 2)))
    out.append(attempt(consumer.TwainMQConsumerlet, t, "events", 1, offset=-1))
    c = consumer.TwainMQConsumerlet(t, "names", 1, offset=3)
    out.append([c.partition, c.topic, c.key_width, c._offset, msg(c.poll()), c._offset])
    r = groups.RebalInProgress(0)
    r.add_offer(3, groups.RebalOffer([1], [0, 1, 2, 3, 4]))
    r.add_offer(1, groups.RebalOffer([], [0, 1, 2, 3, 4]))
    r.add_offer(2, groups.RebalOffer([4, 9], [2, 3, 4]))
    out.append(r.get_assignments())
    f = root / "appended.txt"
    import_module(mod.__name__ + ".atomic_append").atomic_append(f, b"one\n")
    import_module(mod.__name__ + ".atomic_append").atomic_append(str(f), b"two\n")
    out.append(f.read_bytes())
    return out


# -- what a program written for 0.2.3 does with its objects ---------------

@scenario
def write_after_close(mod, root):
    # 0.2.3's close() does nothing: a producer writes on after it.
    t = twain(mod, root)
    p = t.producer("tiny")
    p.write_message(1, "before")
    p.close()
    p.write_message(2, "after close")
    with p:
        pass
    p.write_message(3, "after the with block")
    p.close()
    p.close()
    c = t.consumer("tiny")
    return drain(c, timestamp=False)[-3:]


@scenario
def message_types_listed_twice(mod, root):
    # {name: i for i, name in enumerate(types)}: a repeat takes its last place's id.
    import base64
    import zlib

    t = twain(mod, root)
    t.create_topic("dup", "u16", 1, ["Reading", "Event", "Reading"])
    p = t.producer("dup")
    p.write_message(1, Reading("s", 1.5, True))
    p.write_message(2, Event(7, "e", ["t"]))
    # The type id in each line's payload (u16 keys: 3 characters, then 10 of timestamp).
    ids = []
    for f in sorted((root / "dup").iterdir()):
        for line in f.read_bytes().splitlines():
            payload = zlib.decompress(base64.b85decode(line[13:]), wbits=-15)
            ids.append(int.from_bytes(payload[1:3], "big"))
    return [(root / "dup.twc").read_text(), ids, drain(t.consumer("dup"), timestamp=False)]


@scenario
def messages_are_frozen(mod, root):
    # Its fields cannot be assigned or deleted: dataclasses.FrozenInstanceError
    # (an AttributeError). Names that are not fields: test_differences.py.
    import dataclasses
    m = twain(mod, root).consumer("tiny").poll()
    out = []
    for name in ["offset", "key", "timestamp", "message"]:
        try:
            setattr(m, name, 1)
            out.append("assigned")
        except dataclasses.FrozenInstanceError as e:
            out.append(("FrozenInstanceError", str(e)))
        try:
            delattr(m, name)
            out.append("deleted")
        except dataclasses.FrozenInstanceError as e:
            out.append(("FrozenInstanceError", str(e)))
    return out


@scenario
def public_names_and_signatures(mod, root):
    # What a program can see of the classes: their public members and how
    # they are called (keyword names included), as inspect shows them.
    import inspect
    from importlib import import_module

    producer_mod, consumer_mod = import_module(mod.__name__ + ".producer"), import_module(mod.__name__ + ".consumer")
    atomic = import_module(mod.__name__ + ".atomic_append")
    t = twain(mod, root)
    p, c = t.producer("tiny"), t.consumer("tiny")
    cl = consumer_mod.TwainMQConsumerlet(t, "tiny", 0, offset=0)

    def public(obj):
        return sorted(n for n in dir(obj) if not n.startswith("_"))

    def params(f):
        return [(q.name, q.kind.name, q.default) for q in inspect.signature(f).parameters.values() if q.name != "self"]

    out = [
        atomic.INVALID_HANDLE_VALUE,
        params(mod.TwainMQProducer),
        params(mod.TwainMQConsumer),
        params(import_module(mod.__name__ + ".encoding").Message),
        [n for n in public(p) if n not in ("flush", "write_messages")],
        [n for n in public(c) if n not in ("close", "group", "positions", "seek")],
        public(cl),
        bool(p.__exit__(type=None, value=None, traceback=None)),
        c.chunk_str_now == p.chunk_str_now == cl.chunk_str_now == t.producer("tiny").chunk_str_now,
    ]
    # A line's payload decoded as 0.2.3's consumerlet decodes it.
    line = sorted((root / "tiny").iterdir())[0].read_bytes().splitlines()[0].decode()
    out.append(cl.decode_message(line[2 + 10:]))
    return out
