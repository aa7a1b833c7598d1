"""An independent Kafka client for the app's e2e tests (kafka-python: pure Python, neither the
app's krafka nor librdkafka): `create BOOTSTRAP TOPIC PARTITIONS` makes a topic; `read BOOTSTRAP
TOPIC PARTITION OFFSET` prints the record at that offset as JSON (key and value as hex, null as
null, headers in order with their values as hex or null, the timestamp in ms); `offsets BOOTSTRAP
GROUP` prints a group's commits as {"topic/partition": offset}; `groups BOOTSTRAP -` prints the
cluster's group ids; `produce BOOTSTRAP TOPIC PARTITION N` writes N records (key kN, value vN);
`topics BOOTSTRAP -` prints the topics' names; `dump BOOTSTRAP TOPIC` prints every record of the topic, by partition and offset, as `read` does
(with its partition and offset)."""

import json
import sys


def main() -> None:
    mode, bootstrap, topic = sys.argv[1:4]
    if mode == "create":
        from kafka.admin import KafkaAdminClient, NewTopic

        admin = KafkaAdminClient(bootstrap_servers=bootstrap)
        admin.create_topics([NewTopic(topic, int(sys.argv[4]), 1)])
        admin.close()
        return
    if mode == "produce":
        from kafka import KafkaProducer

        producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
        for i in range(int(sys.argv[5])):
            producer.send(topic, key=f"k{i}".encode(), value=f"v{i}".encode(), partition=int(sys.argv[4]))
        producer.flush()
        producer.close()
        return
    if mode == "topics":
        from kafka.admin import KafkaAdminClient

        admin = KafkaAdminClient(bootstrap_servers=bootstrap)
        print(json.dumps(sorted(admin.list_topics())))
        admin.close()
        return
    if mode in ("offsets", "groups"):
        from kafka.admin import KafkaAdminClient

        admin = KafkaAdminClient(bootstrap_servers=bootstrap)
        if mode == "offsets":
            got = admin.list_group_offsets(topic).get(topic, {})
            print(json.dumps({f"{tp.topic}/{tp.partition}": o.offset for tp, o in sorted(got.items()) if o.offset >= 0}))
        else:
            print(json.dumps(sorted(g["group_id"] for g in admin.list_groups())))
        admin.close()
        return
    from kafka import KafkaConsumer, TopicPartition

    hexed = lambda b: None if b is None else b.hex()  # noqa: E731
    if mode == "dump":
        consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, consumer_timeout_ms=5000)
        tps = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or [])]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        ends = consumer.end_offsets(tps)
        out = []
        for r in consumer:
            out.append({"partition": r.partition, "offset": r.offset, "key": hexed(r.key), "value": hexed(r.value), "headers": [[k, hexed(v)] for k, v in r.headers], "timestamp": r.timestamp})
            if all(consumer.position(tp) >= ends[tp] for tp in tps):
                break
        out.sort(key=lambda r: (r["partition"], r["offset"]))
        print(json.dumps(out))
        consumer.close()
        return
    partition, offset = int(sys.argv[4]), int(sys.argv[5])
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, consumer_timeout_ms=10000)
    tp = TopicPartition(topic, partition)
    consumer.assign([tp])
    consumer.seek(tp, offset)
    for r in consumer:
        if r.offset == offset:
            print(json.dumps({"key": hexed(r.key), "value": hexed(r.value), "headers": [[k, hexed(v)] for k, v in r.headers], "timestamp": r.timestamp}))
            break
    else:
        print(json.dumps(None))
    consumer.close()


if __name__ == "__main__":
    main()
