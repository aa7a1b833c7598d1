"""One member of a consumer group, for test_mixed_group.py: 0.2.3's or ours,
as a separate process, as pipelines run them.

Usage: group_worker.py IMPL STORE TOPIC GROUP OUT STOPFILE
Polls, records each message's payload in OUT (one line each, flushed before
the commit that covers it), commits after each message, opens a round every
8 s from a random start (0.2.3's docs: members trigger rounds periodically
so departures are noticed; a round opened while another is open restarts it,
so with 1 s rounds the period must be well above members x 1 s, or no round
ever ends), and leaves when STOPFILE exists (committing first).

A 0.2.3 member can crash on a group-log line still being written (0.2.3's
reader takes a line without its newline for a whole one: docs/FORMAT.md,
"0.2.3's defects"; on Linux a reader can see an append that crosses a page
boundary half done). It is then joined again, as a supervisor would restart
it, and the crash is counted in OUT.crashes. Ours never crash: any error
ends the process with a traceback."""

import random
import sys
import time
from datetime import timedelta
from pathlib import Path

impl, store, topic, group, out_path, stop_file = sys.argv[1:7]
if impl == "0.2.3":
    import twainmq as mod
    import twainmq.consumer as consumer_module
else:
    import twainmq_rs as mod
    import twainmq_rs.consumer as consumer_module
consumer_module.REBAL_LENGTH = timedelta(seconds=1)

import builtins
builtins.print = lambda *a, **k: None  # 0.2.3's commit() prints its commit list

def join():
    return mod.Twain(store).consumer(topic, group=group)


c = join()
crashes = 0
PERIOD = 8.0
last_round = time.monotonic() - random.uniform(0, PERIOD)
with open(out_path, "a", encoding="utf-8") as out:
    while not Path(stop_file).exists():
        try:
            m = c.poll()
        except Exception as e:  # noqa: BLE001 (0.2.3 raises zlib.error, ValueError, ...)
            if impl != "0.2.3":
                raise
            crashes += 1
            sys.stderr.write(f"0.2.3 member crashed ({type(e).__name__}: {e}); joining again\n")
            Path(out_path + ".crashes").write_text(str(crashes))
            c = join()
            continue
        if m is None:
            time.sleep(0.01)
        else:
            out.write(f"{m.message}\n")
            out.flush()
            c.commit()
        if time.monotonic() - last_round > PERIOD:
            c.trigger_rebal()
            last_round = time.monotonic()
    c.commit()
    if impl != "0.2.3":
        c.close()
