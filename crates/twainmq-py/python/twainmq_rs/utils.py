"""0.2.3's ``multi_poll`` (twainmq.utils)."""

import random


def multi_poll(consumers, offset=None):
    """
    Poll multiple TwainMQ consumers in a fair, round-robin sequence.

    Returns ``(index, msg)`` for the first consumer after ``offset`` (the
    index of the last consumer that returned a message; random if ``None``)
    that has a message, or ``None`` when none has. Pass the returned index
    back as ``offset`` to go on round-robin. As 0.2.3's.
    """
    n = len(consumers)
    if offset is None:
        offset = random.randrange(n)
    for c_offset in range(n):
        i = (c_offset + offset + 1) % n
        msg = consumers[i].poll()
        if msg is not None:
            return (i, msg)
