"""Load and read a Kafka-protocol broker for the cluster benchmark (tests/e2e/cluster.bench.mjs),
with confluent-kafka (librdkafka), the client Kafka users measure against:
`fill BOOTSTRAP TOPIC N PARTITIONS T0_MS` writes N JSON records (record i in partition i % P at
T0 + i ms, key user-(i % 1000)); `topics BOOTSTRAP PREFIX COUNT` makes COUNT one-partition topics;
`consume BOOTSTRAP TOPIC` reads the topic whole from its start to its end at the start (no
group), printing {"records": n, "seconds": s}."""

import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def fill(bootstrap: str, topic: str, n: int, partitions: int, t0: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept: a dropped client ends its futures
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result()
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.num.messages": 10000, "queue.buffering.max.messages": 500000})
    countries = [b"FR", b"DE", b"JP", b"US"]
    for i in range(n):
        value = b'{"n":%d,"country":"%s","amount":%d}' % (i, countries[i % 4], i % 997)
        while True:
            try:
                p.produce(topic, key=b"user-%d" % (i % 1000), value=value, partition=i % partitions, timestamp=t0 + i)
                break
            except BufferError:
                p.poll(0.05)
        if i % 10000 == 0:
            p.poll(0)
    if p.flush(120) != 0:
        raise SystemExit("records left unsent")


def topics(bootstrap: str, prefix: str, count: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    names = [f"{prefix}{i:04d}" for i in range(count)]
    for i in range(0, count, 100):
        for f in admin.create_topics([NewTopic(n, 1, 1) for n in names[i : i + 100]]).values():
            f.result()


def consume(bootstrap: str, topic: str) -> None:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-unused", "enable.auto.commit": False})
    meta = c.list_topics(topic, timeout=10).topics[topic]
    ends = {}
    for p in meta.partitions:
        low, high = c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
        if high > low:
            ends[p] = (low, high)
    total = sum(h - l for l, h in ends.values())
    started = time.time()
    c.assign([TopicPartition(topic, p, low) for p, (low, _) in ends.items()])
    n = 0
    left = set(ends)
    while left:
        for m in c.consume(10000, 1.0):
            if m.error():
                continue
            n += 1
            if m.offset() + 1 >= ends[m.partition()][1]:
                left.discard(m.partition())
        if time.time() - started > 600:
            raise SystemExit("did not reach the end in 10 minutes")
    seconds = time.time() - started
    c.close()
    print(json.dumps({"records": n, "total": total, "seconds": seconds}))


if __name__ == "__main__":
    mode, bootstrap = sys.argv[1:3]
    if mode == "fill":
        fill(bootstrap, sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
    elif mode == "topics":
        topics(bootstrap, sys.argv[3], int(sys.argv[4]))
    else:
        consume(bootstrap, sys.argv[3])
