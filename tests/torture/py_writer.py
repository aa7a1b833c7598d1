"""A twainmq 0.2.3 writer for the torture tests, with a shifted clock.

    python py_writer.py STORE TOPIC WRITER_ID N CLOCK_OFFSET RATE GO_FILE READY_FILE STATUS_FILE

Writes concurrent_writer.plan(WRITER_ID, N) with 0.2.3's producer, paced at
RATE messages/s from the start time written in GO_FILE (a UNIX time), with
0.2.3's clock shifted by CLOCK_OFFSET seconds: the `datetime` name of the
twainmq modules that read the time (agent_base: day files; producer:
timestamps; consumer: rounds) is replaced by a subclass whose now() adds the
offset. STATUS_FILE gets {"written": count, "error": ...} at the end; an
exception from 0.2.3 (e.g. TopicCorruptError after a rollover race made two
files for one day) ends the writer with exit code 3.
"""

import json
import os
import sys
import time
import traceback
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "interop"))
from concurrent_writer import plan  # noqa: E402


def shifted_datetime(offset):
    class ShiftedDatetime(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.now(tz) + timedelta(seconds=offset)

        @classmethod
        def utcnow(cls):  # pragma: no cover - 0.2.3 does not call it
            return datetime.utcnow() + timedelta(seconds=offset)

    return ShiftedDatetime


def main(argv):
    store, topic, writer_id, n, offset, rate, go_file, ready_file, status_file = argv
    writer_id, n, offset, rate = int(writer_id), int(n), float(offset), float(rate)
    import twainmq
    import twainmq.agent_base
    import twainmq.consumer
    import twainmq.producer

    shifted = shifted_datetime(offset)
    for mod in (twainmq.agent_base, twainmq.producer, twainmq.consumer):
        mod.datetime = shifted

    msgs = plan(writer_id, n)
    prod = twainmq.Twain(store).producer(topic)
    Path(ready_file).touch()
    deadline = time.monotonic() + 300
    while not os.path.exists(go_file) or os.path.getsize(go_file) == 0:
        if time.monotonic() > deadline:
            sys.exit("GO file never appeared")
        time.sleep(0.001)
    t_go = float(Path(go_file).read_text())
    written = 0
    error = None
    try:
        for i, (_seq, key, text) in enumerate(msgs):
            if i % 8 == 0:
                due = t_go + i / rate
                wait = due - time.time()
                if wait > 0:
                    time.sleep(wait)
            prod.write_message(key, text)
            written += 1
    except Exception as e:  # 0.2.3 gave up (reported by the test)
        error = f"{type(e).__name__}: {e}"
        traceback.print_exc()
    with open(status_file + ".tmp", "w") as f:
        json.dump({"written": written, "error": error}, f)
    os.replace(status_file + ".tmp", status_file)
    sys.exit(3 if error else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
