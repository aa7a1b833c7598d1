"""The producer (twainmq.producer): ``TwainMQProducer`` is the engine's."""

import base64
from dataclasses import asdict, is_dataclass
import json
import zlib

from ._native import TwainMQProducer
from .agent_base import TwainMQBase  # noqa: F401  (importable from here, as from 0.2.3's module)
from .atomic_append import atomic_append  # noqa: F401
from .encoding import MAX_MESSAGE_SIZE, _DATACLASS_MAGIC, _GZIP_MAGIC, encode_datetime, key_to_base85, partition_hash64  # noqa: F401
from .errors import MessageKindError, MessageTooLongError, TopicCorruptError, UnknownMessageTypeError  # noqa: F401

__all__ = ["TwainMQProducer"]


def _type_name(message):
    return getattr(type(message), "__message_type__", type(message).__name__)


def _classify(message):
    """What the engine sends for ``message``, checked in 0.2.3's order:
    ``(2, type name, JSON)`` for a dataclass instance, ``(1, bytes)``,
    ``(0, str)``. The JSON is 0.2.3's: ``json.dumps(asdict(m), separators=(",", ":"))``."""
    if is_dataclass(message) and not isinstance(message, type):
        return (2, _type_name(message), json.dumps(asdict(message), separators=(",", ":")))
    if isinstance(message, bytes):
        return (1, bytes(message))
    if isinstance(message, str):
        return (0, str(message))
    raise MessageKindError(
        f"a message is a str, bytes or a dataclass instance, not {type(message).__name__}: "
        "encode it as one of those (bytes(...) for a bytearray or memoryview)")


def _encode_message_023(message, message_types):
    """0.2.3's ``encode_message``: the base85 text of the payload at zlib level 6."""
    kind = _classify(message)
    if kind[0] == 2:
        if kind[1] not in message_types:
            raise UnknownMessageTypeError(f"message type {kind[1]!r} is not declared by the topic (declared: {list(message_types)})")
        payload = _DATACLASS_MAGIC + message_types[kind[1]].to_bytes(2, "big", signed=False) + kind[2].encode("utf-8")
    elif kind[0] == 1:
        payload = _GZIP_MAGIC + kind[1]
    else:
        payload = kind[1].encode("utf-8")
    return base64.b85encode(zlib.compress(payload, level=6, wbits=-15)).decode("utf-8")
