"""Helper for test_concurrency.py: the deterministic message plan of one writer,
and (run as a script) a twainmq 0.2.3 producer that writes that plan.

    python concurrent_writer.py STORE TOPIC WRITER_ID N START_FILE READY_FILE

The script builds its producer and its messages, touches READY_FILE, waits until
START_FILE exists, then writes the N messages as fast as it can.
"""

import os
import random
import sys
import time

KEY_STRIDE = 1_000_000
_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-_\t\"'<>éüß€日本😀"


def plan(writer_id, n):
    """[(seq, key, text)] for writer `writer_id`: key = writer_id*1_000_000 + seq,
    text = 'w<id>:s<seq>:' padded with random characters to 10..600 characters."""
    r = random.Random(10_007 * (writer_id + 1))
    pool = "".join(r.choices(_ALPHABET, k=4096))
    out = []
    for seq in range(n):
        head = f"w{writer_id}:s{seq}:"
        length = r.randint(10, 600)
        pad = max(0, length - len(head))
        off = r.randrange(0, len(pool) - pad + 1)
        out.append((seq, writer_id * KEY_STRIDE + seq, head + pool[off:off + pad]))
    return out


def parse_text(text):
    """(writer_id, seq) from a payload text."""
    w, s, _ = text.split(":", 2)
    assert w[0] == "w" and s[0] == "s", text
    return int(w[1:]), int(s[1:])


def main(argv):
    store, topic, writer_id, n, start_file, ready_file = argv
    writer_id, n = int(writer_id), int(n)
    import twainmq

    tmq = twainmq.Twain(store)
    prod = tmq.producer(topic)
    msgs = plan(writer_id, n)
    with open(ready_file, "w"):
        pass
    deadline = time.monotonic() + 120
    while not os.path.exists(start_file):
        if time.monotonic() > deadline:
            sys.exit("start file never appeared")
        time.sleep(0.0005)
    for _seq, key, text in msgs:
        prod.write_message(key, text)


if __name__ == "__main__":
    main(sys.argv[1:])
