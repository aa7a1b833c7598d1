"""A Python filter over twainmq 0.2.3's consumer: the field filter `twainmq-dev bench-search`
runs (`value.country == "DE" && value.amount > 100`), on the same 100-byte JSON messages."""
import json
import sys
import tempfile
import time

from twainmq import Twain


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    countries = ["DE", "FR", "US", "GB", "JP"]
    with tempfile.TemporaryDirectory() as root:
        tmq = Twain(root)
        tmq.create_topic("bench", key_type="u32", partitions=4)
        producer = tmq.producer("bench")
        for i in range(n):
            body = json.dumps({"id": i, "country": countries[i % 5], "amount": (i * 7919) % 500, "note": "n" * 40, "ok": True}, separators=(",", ":"))
            producer.write_message(i % 1000, body)
        consumer = tmq.consumer("bench")
        t = time.perf_counter()
        read = hits = 0
        while True:
            m = consumer.poll()
            if m is None:
                break
            read += 1
            try:
                v = json.loads(m.message)
            except (TypeError, ValueError):
                continue
            if isinstance(v, dict) and v.get("country") == "DE" and v.get("amount", 0) > 100:
                hits += 1
        rate = read / (time.perf_counter() - t)
        assert read == n, (read, n)
    print(json.dumps({"messages": n, "filter_msgs_per_s": rate, "hits": hits}))


if __name__ == "__main__":
    main()
