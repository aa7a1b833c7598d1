"""The consumer-group records (0.2.3's twainmq.consumer_groups), as plain
dataclasses: each ``Twain`` registers them, so a group's log reads as
0.2.3 reads it. Our engine, not these classes, runs the group protocol."""

from dataclasses import dataclass
from datetime import timedelta

from .encoding import _is_safe
from .errors import InvalidGroupNameError

#: How long a round this process opens stays open for offers (0.2.3: 60 s).
#: Read when a consumer joins; patch ``twainmq_rs.consumer.REBAL_LENGTH``
#: as you would ``twainmq.consumer.REBAL_LENGTH``.
REBAL_LENGTH = timedelta(seconds=60)


@dataclass
class Joined:
    tag: int
    __message_type__ = "~~TWAIN~~JOINED"


@dataclass
class AbortJoin:
    tag: int
    __message_type__ = "~~TWAIN~~ABORTJOIN"


@dataclass
class RebalOffer:
    own: list
    partitions: list
    __message_type__ = "~~TWAIN~~REBALOFFER"


@dataclass
class RebalConfirm:
    partitions: list
    __message_type__ = "~~TWAIN~~REBALCONFIRM"


@dataclass
class BeginRebal:
    timestamp: float
    __message_type__ = "~~TWAIN~~BEGINREBAL"


@dataclass
class EndRebal:
    __message_type__ = "~~TWAIN~~ENDREBAL"


@dataclass
class Commit:
    partition_offsets: list
    __message_type__ = "~~TWAIN~~COMMIT"


CONSUMER_GROUP_MESSAGE_CLASSES = [Joined, AbortJoin, RebalOffer, RebalConfirm, BeginRebal, EndRebal, Commit]
CONSUMER_GROUP_MESSAGE_SET = [c.__message_type__ for c in CONSUMER_GROUP_MESSAGE_CLASSES]


def _group_topic_name(group):
    if not _is_safe(group):
        raise InvalidGroupNameError(f"Consumer group names must be [a-zA-Z0-9_.], {group} is not valid")
    return f"--group--{group}"


class RebalInProgress:
    """
    A round as 0.2.3's members track it: the offers made, and the
    assignment they lead to (0.2.3's rule, MIT-licensed, unchanged). Our
    members do not use it (the engine assigns by the same rule); it is here
    for programs that compute a round's outcome themselves.
    """

    def __init__(self, rebal_ending):
        self.rebal_ending = rebal_ending
        self._offers = dict()

    def add_offer(self, cons_id: int, rebal_offer: RebalOffer):
        self._offers[cons_id] = rebal_offer

    def get_assignments(self):
        """``{member id: sorted partitions}``: owned partitions kept first,
        members with fewer offered partitions served first, round-robin."""
        cleaned = []
        for cid, offer in self._offers.items():
            allowed = set(offer.partitions)
            owned = [p for p in offer.own if p in allowed]
            cleaned.append((cid, allowed, owned))
        consumer_lists = {}
        for cid, allowed, owned in cleaned:
            consumer_lists[cid] = sorted(owned) + sorted(p for p in allowed if p not in owned)
        sorted_consumers = sorted(cleaned, key=lambda x: (len(x[1]), -len(x[2]), x[0]))
        assigned = {cid: [] for cid, _, _ in cleaned}
        remaining_lists = {cid: list(consumer_lists[cid]) for cid, _, _ in cleaned}
        all_partitions = set()
        for _, allowed, _ in cleaned:
            all_partitions.update(allowed)
        assigned_partitions = set()
        while len(assigned_partitions) < len(all_partitions):
            for cid, allowed, owned in sorted_consumers:
                lst = remaining_lists[cid]
                while lst and lst[0] in assigned_partitions:
                    lst.pop(0)
                if not lst:
                    continue
                p = lst.pop(0)
                assigned[cid].append(p)
                assigned_partitions.add(p)
        for cid in assigned:
            assigned[cid].sort()
        return assigned
