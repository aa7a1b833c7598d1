"""Measure twainmq 0.2.3 on the same workload as `twainmq bench`: 100-byte text, 4 partitions."""
import json
import sys
import tempfile
import time

from twainmq import Twain


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    with tempfile.TemporaryDirectory() as root:
        tmq = Twain(root)
        tmq.create_topic("bench", key_type="u32", partitions=4)
        producer = tmq.producer("bench")
        body = ("message 0 " + "".join(chr(97 + i % 26) for i in range(size)))[:size]
        t = time.perf_counter()
        for i in range(n):
            producer.write_message(i % 100_000, body)
        produce = n / (time.perf_counter() - t)
        consumer = tmq.consumer("bench")
        t = time.perf_counter()
        read = 0
        while consumer.poll() is not None:
            read += 1
        consume = read / (time.perf_counter() - t)
        assert read == n, (read, n)
    print(json.dumps({"messages": n, "produce_msgs_per_s": produce, "consume_msgs_per_s": consume}))


if __name__ == "__main__":
    main()
