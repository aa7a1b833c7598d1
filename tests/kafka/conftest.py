"""The Kafka bridge against a real Kafka-protocol broker: nisshi (scripts/nisshi.sh builds it),
on 127.0.0.1, SQLite storage, on a free port, started here and stopped after.

    TWAINMQ_BIN=target/debug/twainmq NISSHI=$(scripts/nisshi.sh wait) .venv/bin/python -m pytest tests/kafka -q

Independent clients read what the bridge wrote and write what it reads: confluent-kafka
(librdkafka) and kafka-python (pure Python).
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
sys.path.insert(0, str(REPO_ROOT / "tests" / "interop"))


def _interop_helpers():
    """The interop suite's CLI helpers (its conftest, loaded under a name of its own)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("interop_conftest", REPO_ROOT / "tests" / "interop" / "conftest.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_interop = _interop_helpers()
base_env, cli_binary, run_cli = _interop.base_env, _interop.cli_binary, _interop.run_cli

FIXTURE_STORE = REPO_ROOT / "tests" / "fixtures" / "twainmq-0.2.3" / "store"


def nisshi_binary():
    env = os.environ.get("NISSHI")
    if env:
        return env
    out = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "nisshi.sh"), "wait"], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """One nisshi broker: its folder (the SQLite database), its port, its process.
    kill() and start() again keep both, as a broker restarted on its machine."""

    def __init__(self, folder, extra=(), env=None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.extra = list(extra)
        self.env = env
        self.proc = None
        self.log = self.folder / "broker.log"

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    @property
    def url(self):
        return f"kafka://{self.address}"

    def start(self, wait=True):
        cmd = [
            nisshi_binary(), "broker",
            "--storage-engine", "sqlite://broker.db",
            "--listener-url", f"tcp://127.0.0.1:{self.port}",
            "--advertised-listener-url", f"tcp://127.0.0.1:{self.port}",
            "--cluster-id", "twainmq-test",
            # A first group join waits this long for more members (Kafka's group.initial.rebalance.delay.ms).
            "--group-initial-rebalance-delay", "0s",
            *self.extra,
        ]
        env = dict(os.environ, RUST_LOG=os.environ.get("NISSHI_LOG", "warn"))
        env.update(self.env or {})
        self.proc = subprocess.Popen(cmd, cwd=self.folder, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT, env=env)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nisshi exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"nisshi did not listen on {self.port} within {timeout} s")

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="session")
def broker(tmp_path_factory):
    b = Broker(tmp_path_factory.mktemp("broker")).start()
    yield b
    b.stop()


_topic_seq = [0]


@pytest.fixture
def topic(request):
    """A Kafka and store topic name of this test's own."""
    _topic_seq[0] += 1
    name = "".join(c if c.isalnum() else "-" for c in request.node.name)[:60]
    return f"{name}-{_topic_seq[0]}-{os.getpid()}"


@pytest.fixture
def fixture_store(tmp_path):
    """A copy of the 0.2.3 fixture store (never the fixture itself)."""
    dst = tmp_path / "fixture-store"
    shutil.copytree(FIXTURE_STORE, dst)
    return dst


def mirror(store, *args, check=True, timeout=300, env=None):
    """Run `twainmq mirror` (short timeouts: a broker here answers at once)."""
    return run_cli(store, "mirror", *args, check=check, timeout=timeout, env=env)


def mirror_proc(store, *args, env=None):
    """Start `twainmq mirror` in the background."""
    cmd = [str(cli_binary()), "--store", str(store), "mirror", *[str(a) for a in args]]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env or base_env(), text=True)


def consume_json(store, topic):
    """Every message of a store topic, as `consume --json` prints it, by (partition, offset)."""
    out = run_cli(store, "consume", topic, "--from", "start", "--json").stdout
    msgs = [json.loads(line) for line in out.splitlines() if line.strip()]
    return sorted(msgs, key=lambda m: (m["partition"], m["offset"]))


def kafka_records(address, topic, partitions=None, timeout=30):
    """Every record of a Kafka topic, read with confluent-kafka (librdkafka), by partition in
    offset order: dicts of offset, key, value, timestamp (ms), headers."""
    from confluent_kafka import Consumer, TopicPartition
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": address})
    md = admin.list_topics(topic, timeout=10)
    n = len(md.topics[topic].partitions)
    c = Consumer({"bootstrap.servers": address, "group.id": f"reader-{time.time_ns()}", "enable.auto.commit": False,
                  "auto.offset.reset": "earliest", "enable.partition.eof": True})
    out = {p: [] for p in range(n)}
    try:
        ends = {}
        for p in range(n):
            lo, hi = c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            ends[p] = hi
        c.assign([TopicPartition(topic, p, 0) for p in range(n)])
        deadline = time.time() + timeout
        done = {p for p in range(n) if ends[p] == 0}
        while len(done) < n and time.time() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                if m.error().code() == -191:  # _PARTITION_EOF
                    if m.offset() >= ends[m.partition()]:
                        done.add(m.partition())
                    continue
                raise RuntimeError(m.error())
            out[m.partition()].append({
                "offset": m.offset(), "key": m.key(), "value": m.value(), "timestamp": m.timestamp()[1],
                "headers": dict((k, v) for k, v in (m.headers() or [])),
            })
            if m.offset() + 1 >= ends[m.partition()]:
                done.add(m.partition())
        assert len(done) == n, f"read {[len(v) for v in out.values()]} of {ends} within {timeout} s"
    finally:
        c.close()
    return out


def create_kafka_topic(address, topic, partitions):
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": address})
    fs = admin.create_topics([NewTopic(topic, partitions, 1)])
    for f in fs.values():
        f.result(30)
