"""The consumer (twainmq.consumer): ``TwainMQConsumer`` is the engine's;
``TwainMQConsumerlet``, 0.2.3's single-partition consumer, is one of ours
reading one partition. The group records and helpers 0.2.3's module
imports are importable from here too, as from 0.2.3's."""

from ._native import TwainMQConsumer
from .agent_base import TwainMQBase  # noqa: F401  (importable from here, as from 0.2.3's module)
from .consumer_groups import (  # noqa: F401  (importable from here, as from 0.2.3's module)
    CONSUMER_GROUP_MESSAGE_SET,
    REBAL_LENGTH,  # read here when a consumer joins a group, as in 0.2.3
    AbortJoin,
    BeginRebal,
    Commit,
    EndRebal,
    Joined,
    RebalConfirm,
    RebalInProgress,
    RebalOffer,
    _group_topic_name,
)
from .encoding import _DATACLASS_MAGIC, _GZIP_MAGIC, Message, base85_to_key, dataclass_from_dict, decode_datetime  # noqa: F401
from .errors import TopicCorruptError  # noqa: F401

__all__ = ["TwainMQConsumer", "TwainMQConsumerlet"]


class TwainMQConsumerlet:
    """
    A consumer of one partition, as 0.2.3's: ``offset`` is where to start
    (``None``: at the end of what is there now). No group, no commits.
    Usually you would use a ``TwainMQConsumer`` instead.

    Ours also takes ``poll(timeout=...)``, as ``TwainMQConsumer.poll`` does.
    """

    def __init__(self, twain, topic, partition, offset=None):
        if offset is not None and offset < 0:
            raise NotImplementedError("Seek back from end not yet implemented")
        self._twain = twain
        self._topic = topic
        self._partition = partition
        start = "now" if offset is None else "start"
        self._consumer = TwainMQConsumer(twain, topic, start, None, _partitions=[partition])
        if offset:
            self._consumer.seek(partition, offset)

    def poll(self, timeout=None):
        """The partition's next message, or ``None`` (without ``timeout``, at once)."""
        return self._consumer.poll(timeout)

    def decode_message(self, message):
        """0.2.3's: the payload of a line's base85 blob (``str``, ``bytes``, or a
        registered dataclass instance of a type the topic declares)."""
        import base64
        import json
        import zlib

        decoded = zlib.decompress(base64.b85decode(message.encode("utf-8")), wbits=-15)
        if decoded.startswith(_GZIP_MAGIC):
            return decoded[1:]
        if decoded.startswith(_DATACLASS_MAGIC):
            type_id = int.from_bytes(decoded[1:3], "big", signed=False)
            types = self._twain._native_store().topic_config(self._topic)["message_types"]
            name = {i: n for n, i in types.items()}[type_id]
            return dataclass_from_dict(self._twain._msg_cls_registry[name], json.loads(decoded[3:]))
        return decoded.decode("utf-8")

    @property
    def chunk_str_now(self):
        """Today's UTC date as 0.2.3 names day files (``YYYYMMDD``)."""
        return self._consumer.chunk_str_now

    @property
    def partition(self):
        return self._partition

    @property
    def topic(self):
        return self._topic

    @property
    def key_width(self):
        return self._consumer.key_width

    @property
    def _offset(self):
        """The next offset to read (0.2.3's attribute, which its commits use)."""
        return self._consumer.positions.get(self._partition, 0)
