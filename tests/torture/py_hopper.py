"""A twainmq 0.2.3 producer that crosses many UTC midnights quickly.

    python py_hopper.py STORE TOPIC ROLLOVERS SEED OUT_JSON

Its clock (the `datetime` of twainmq.agent_base and twainmq.producer) starts
at 2030-01-01 23:59:59 UTC and jumps one day ahead after each burst of 1-4
messages, so every burst but the first starts a new day file. Right before a
jump it appends the burst's last line, then its next write lists the folder,
counts the old file and creates the new one: readers at the end of the old
file must still return that last line. Small random pauses (seeded) vary
where the readers are when it happens. Writes [[key, text], ...] to OUT_JSON.
"""

import json
import random
import sys
import time
from datetime import datetime, timedelta, timezone


def main(argv):
    store, topic, rollovers, seed, out_json = argv
    rollovers, rng = int(rollovers), random.Random(int(seed))
    import twainmq
    import twainmq.agent_base
    import twainmq.producer

    base = datetime(2030, 1, 1, 23, 59, 59, tzinfo=timezone.utc)
    state = {"days": 0, "t0": time.time()}

    class HopDatetime(datetime):
        @classmethod
        def now(cls, tz=None):
            return base + timedelta(days=state["days"], seconds=(time.time() - state["t0"]) % 0.5)

    twainmq.agent_base.datetime = HopDatetime
    twainmq.producer.datetime = HopDatetime
    prod = twainmq.Twain(store).producer(topic)
    sent = []
    key = 0
    for day in range(rollovers + 1):
        state["days"] = day
        for _ in range(rng.randint(1, 4)):
            key += 1
            text = f"hop-{day}-{key}"
            prod.write_message(key, text)
            sent.append([key, text])
            pause = rng.choice([0, 0, 0.00005, 0.0002, 0.001])
            end = time.perf_counter() + pause
            while time.perf_counter() < end:
                pass
    with open(out_json, "w") as f:
        json.dump(sent, f)


if __name__ == "__main__":
    main(sys.argv[1:])
