"""`make kafka-bench`: the --follow latency as a user meets it, measured with independent clients.

    python kafka_follow_latency.py TWAINMQ BROKER_ADDRESS [MESSAGES] [RATE]

A twainmq 0.2.3 producer writes MESSAGES messages one at a time at RATE a second into a store
topic, each carrying its write time; `twainmq mirror --follow` (its own process, as a user runs
it) takes them to the broker; a confluent-kafka (librdkafka) reader that asks every 5 ms notes
when each becomes readable. Beside it, the broker's own floor: confluent-kafka producing the same
records straight to the broker at the same rate, read by the same kind of reader. Prints one JSON
object: p50, p99 and max in milliseconds for both.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import twainmq
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def reader(address, topic, n, out):
    """A thread reading `topic`'s partition 0 from the start until `n` stamped records are in."""
    c = Consumer({"bootstrap.servers": address, "group.id": f"latency-{time.time_ns()}", "enable.auto.commit": False,
                  "fetch.wait.max.ms": 5, "fetch.min.bytes": 1})
    c.assign([TopicPartition(topic, 0, 0)])

    def run():
        deadline = time.time() + 120
        while len(out) < n and time.time() < deadline:
            m = c.poll(0.05)
            if m is None or m.error():
                continue
            out.append(time.time() - float(m.value().decode()))
        c.close()

    t = threading.Thread(target=run)
    t.start()
    return t


def paced(n, rate, send):
    start = time.time()
    for i in range(n):
        due = start + i / rate
        now = time.time()
        if due > now:
            time.sleep(due - now)
        send(i, repr(time.time()))


def summary(lat, n):
    lat = sorted(lat)
    if len(lat) < n:
        raise SystemExit(f"only {len(lat)} of {n} records became readable within 120 s")
    at = lambda q: round(lat[round((len(lat) - 1) * q)] * 1000, 1)  # noqa: E731
    return {"p50_ms": at(0.5), "p99_ms": at(0.99), "max_ms": round(lat[-1] * 1000, 1)}


def wait_for_topic(address, topic, timeout=30):
    admin = AdminClient({"bootstrap.servers": address})
    deadline = time.time() + timeout
    while time.time() < deadline:
        if topic in admin.list_topics(timeout=5).topics:
            return
        time.sleep(0.1)
    raise SystemExit(f"the mirror did not make {topic} within {timeout} s")


def main():
    bin_, address = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    rate = int(sys.argv[4]) if len(sys.argv) > 4 else 500
    store = tempfile.mkdtemp(prefix="kafka-latency-")
    topic = f"follow-{os.getpid()}"
    subprocess.run([bin_, "--store", store, "topics", "create", topic, "--key-type", "u64"], check=True, capture_output=True)
    mirror = subprocess.Popen([bin_, "--store", store, "mirror", topic, "--to", f"kafka://{address}", "--follow"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_topic(address, topic)
        # Let the mirror take its lease and start following before measuring.
        time.sleep(2)
        lat = []
        t = reader(address, topic, n, lat)
        producer = twainmq.Twain(store).producer(topic)
        paced(n, rate, producer.write_message)
        t.join()
        follow = summary(lat, n)
    finally:
        mirror.terminate()
        mirror.wait(30)
        shutil.rmtree(store, ignore_errors=True)
    direct_topic = f"direct-{os.getpid()}"
    admin = AdminClient({"bootstrap.servers": address})
    for f in admin.create_topics([NewTopic(direct_topic, 1, 1)]).values():
        f.result(30)
    p = Producer({"bootstrap.servers": address, "enable.idempotence": True, "linger.ms": 2})
    # One record first, so that the producer's start (metadata, its producer id) is not measured,
    # as the mirror's is not; the reader reads it and it is left out.
    p.produce(direct_topic, value=repr(time.time()).encode(), partition=0)
    p.flush(30)
    lat = []
    t = reader(address, direct_topic, n + 1, lat)

    def send(i, stamp):
        p.produce(direct_topic, key=i.to_bytes(8, "big"), value=stamp.encode(), partition=0)
        p.poll(0)

    paced(n, rate, send)
    p.flush(30)
    t.join()
    print(json.dumps({"messages": n, "rate": rate, "follow": follow, "direct": summary(lat[1:], n)}))


if __name__ == "__main__":
    main()
