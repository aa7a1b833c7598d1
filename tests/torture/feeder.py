"""Feeds one writer's plan to `twainmq produce --jsonl` at a steady rate.

    python feeder.py WRITER_ID N RATE GO_FILE READY_FILE | twainmq --store S produce T --jsonl

Prints concurrent_writer.plan(WRITER_ID, N) as {"key": K, "payload": TEXT}
lines, paced at RATE messages/s from the UNIX time written in GO_FILE.
"""

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "interop"))
from concurrent_writer import plan  # noqa: E402


def main(argv):
    writer_id, n, rate, go_file, ready_file = argv
    writer_id, n, rate = int(writer_id), int(n), float(rate)
    lines = [json.dumps({"key": key, "payload": text}) + "\n" for _seq, key, text in plan(writer_id, n)]
    out = sys.stdout
    Path(ready_file).touch()
    deadline = time.monotonic() + 300
    while not os.path.exists(go_file) or os.path.getsize(go_file) == 0:
        if time.monotonic() > deadline:
            sys.exit("GO file never appeared")
        time.sleep(0.001)
    t_go = float(Path(go_file).read_text())
    i = 0
    while i < n:
        due = min(n, int((time.time() - t_go) * rate) + 1)
        if due > i:
            out.write("".join(lines[i:due]))
            out.flush()
            i = due
        else:
            time.sleep(0.003)
    out.close()


if __name__ == "__main__":
    main(sys.argv[1:])
