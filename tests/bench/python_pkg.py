"""twainmq 0.2.3 and twainmq_rs (our engine for Python) side by side, in one
run: the same workload as `twainmq bench` (100-byte text, 4 partitions),
one message per call, and our batch calls. Prints one JSON object.

Usage: python python_pkg.py [messages_023] [messages_ours]"""
import json
import os
import sys
import tempfile
import time


def body(size=100):
    return ("message 0 " + "".join(chr(97 + i % 26) for i in range(size)))[:size]


def one_by_one(mod, n):
    """Produce n messages one call each, then poll them one call each."""
    with tempfile.TemporaryDirectory() as root:
        tmq = mod.Twain(root)
        tmq.create_topic("bench", key_type="u32", partitions=4)
        producer = tmq.producer("bench")
        text = body()
        write = producer.write_message
        t, c = time.perf_counter(), time.process_time()
        for i in range(n):
            write(i % 100_000, text)
        produce = n / (time.perf_counter() - t)
        produce_cpu = n / (time.process_time() - c)
        if hasattr(producer, "close"):
            producer.close()
        line_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(root, "bench")) for f in fs if f.endswith(".tmf")) / n
        consumer = tmq.consumer("bench")
        poll = consumer.poll
        t = time.perf_counter()
        read = 0
        while poll() is not None:
            read += 1
        consume = read / (time.perf_counter() - t)
        assert read == n, (read, n)
    return produce, consume, line_bytes, produce_cpu


def python_write_ceiling(n, line_bytes):
    """The most any producer that writes each message with one write() can
    reach from a Python loop on this machine: Python's own os.write of a
    ready-made line of the same length to an O_APPEND file, one call each.
    By the clock and by the process's CPU time (on a machine shared with other
    work, time spent waiting for a core counts in the first only)."""
    line = b"x" * max(1, round(line_bytes) - 1) + b"\n"
    with tempfile.TemporaryDirectory() as root:
        fd = os.open(os.path.join(root, "floor.txt"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        write = os.write
        t, c = time.perf_counter(), time.process_time()
        for _ in range(n):
            write(fd, line)
        rate = n / (time.perf_counter() - t)
        rate_cpu = n / (time.process_time() - c)
        os.close(fd)
    return rate, rate_cpu


def batched(mod, n, batch=1000):
    """Ours only: write_messages in batches, poll_many in batches."""
    with tempfile.TemporaryDirectory() as root:
        tmq = mod.Twain(root)
        tmq.create_topic("bench", key_type="u32", partitions=4)
        producer = tmq.producer("bench")
        text = body()
        batches = [[((j + i) % 100_000, text) for j in range(batch)] for i in range(0, n, batch)]
        t = time.perf_counter()
        for b in batches:
            producer.write_messages(b)
        produce = n / (time.perf_counter() - t)
        producer.close()
        consumer = tmq.consumer("bench")
        t = time.perf_counter()
        read = 0
        while got := consumer.poll_many(batch):
            read += len(got)
        consume = read / (time.perf_counter() - t)
        assert read == n, (read, n)
    return produce, consume


def main():
    n023 = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    nours = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    import twainmq
    import twainmq_rs

    p023, c023, _, _ = one_by_one(twainmq, n023)
    pours, cours, line_bytes, pours_cpu = one_by_one(twainmq_rs, nours)
    ceiling, ceiling_cpu = python_write_ceiling(nours, line_bytes)
    pb, cb = batched(twainmq_rs, nours)
    print(json.dumps({
        "messages_023": n023, "messages_ours": nours,
        "produce_023": p023, "poll_023": c023,
        "produce_ours": pours, "poll_ours": cours,
        "produce_batched_ours": pb,
        "python_write_ceiling": ceiling, "line_bytes": line_bytes, "poll_many_ours": cb,
        "produce_ours_cpu": pours_cpu, "python_write_ceiling_cpu": ceiling_cpu,
    }))


if __name__ == "__main__":
    main()
