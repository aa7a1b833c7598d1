"""Messages and 0.2.3's encoding helpers (twainmq.encoding).

``Message`` is built by the engine (it has the fields, equality, hash and
repr of 0.2.3's frozen dataclass, and ``dataclasses.fields``/``asdict``/
``replace`` work on it). The helpers below are 0.2.3's own, for programs
that call them; the engine does not use them.
"""

import base64
from dataclasses import fields, is_dataclass
from datetime import datetime, timezone
import re
import struct

from ._native import Message, MAX_MESSAGE_SIZE
from .errors import InvalidMessageKeyError

_MULTIPART_START = b"\xF8"
_MULTIPART_CONTINUE = b"\xF9"
_MULTIPART_END = b"\xFA"
_DATACLASS_MAGIC = b"\xFB"
_GZIP_MAGIC = b"\xFC"

VALID_NAME_RE = re.compile(r'^[A-Za-z0-9_.-]+$')

__all__ = ["Message", "MAX_MESSAGE_SIZE", "partition_hash64", "encode_datetime", "decode_datetime",
           "dataclass_from_dict", "key_to_base85", "base85_to_key", "find_key_char_width"]


def _is_safe(name: str) -> bool:
    return bool(VALID_NAME_RE.fullmatch(name))


def encode_datetime(dt):
    """Return 10 byte encoded date string"""
    ts = dt.astimezone(timezone.utc).timestamp()
    return base64.b85encode(struct.pack("!d", ts)).decode("utf-8")


def decode_datetime(s):
    ts = struct.unpack("!d", base64.b85decode(s.encode("utf-8")))[0]
    return datetime.fromtimestamp(ts, tz=timezone.utc)


def dataclass_from_dict(cls, data):
    """A dataclass instance from its fields' dict, nested dataclasses too (as 0.2.3 decodes)."""
    kwargs = {}
    for f in fields(cls):
        value = data[f.name]
        if is_dataclass(f.type):
            value = dataclass_from_dict(f.type, value)
        kwargs[f.name] = value
    return cls(**kwargs)


def key_to_base85(k, width: int) -> str:
    """Encode the key as a base85 string"""
    if width < 0:
        b = k.encode("utf-8")
        if len(b) > -width:
            raise InvalidMessageKeyError(f"Key {k} too long for {-width} byte string")
        b = b.ljust(-width, b"\0")
    elif width > 0:
        try:
            b = k.to_bytes(width, byteorder="big", signed=False)
        except OverflowError:
            raise InvalidMessageKeyError(f"Integer key too large for {width} bytes")
    else:
        raise NotImplementedError("Zero width keys not yet supported")
    return base64.b85encode(b).decode("ascii")


def base85_to_key(s: str, width: int):
    """Decode a Base85 string back into an key."""
    b = base64.b85decode(s.encode("ascii"))
    if width < 0:
        return b.rstrip(b"\0").decode("utf-8")
    elif width > 0:
        return int.from_bytes(b, byteorder="big", signed=False)
    else:
        raise NotImplementedError("Zero width keys not yet supported")


def find_key_char_width(width) -> int:
    """Find the width of the key when encoded"""
    if width > 0:
        return len(key_to_base85(1, width=width))
    elif width < 0:
        return len(key_to_base85("a", width=width))
    else:
        raise NotImplementedError("Zero width keys not yet supported")


def partition_hash64(x, partitions) -> int:
    """Using splitmix64 to convert the key into a partition number for even mixing (0.2.3's partitioner)."""
    if isinstance(x, str):
        x = int.from_bytes(x.encode("utf-8"), signed=False)
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
    x = (x ^ (x >> 27)) * 0x94d049bb133111eb
    x = x ^ (x >> 31)
    return x % partitions
