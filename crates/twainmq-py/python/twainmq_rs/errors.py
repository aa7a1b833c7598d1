"""Exceptions of twainmq_rs: 0.2.3's classes, and ours.

0.2.3's classes come first, with 0.2.3's names and bases, so ``except``
clauses written for twainmq 0.2.3 catch what they caught there. Where 0.2.3
let a built-in exception escape for a case (``ValueError`` for a topic that
exists, ``KeyError`` for a dataclass the topic does not declare,
``AttributeError`` for a key of the wrong kind), ours raises a
``TwainMQError`` subclass that is also that built-in. File-system failures
are the built-in ``OSError`` subclass of their errno, as in 0.2.3.

Every exception raised by the engine carries ``code``, a stable
machine-readable string (e.g. ``"topic_deleted"``), and, where it applies,
``topic``, ``group``, ``partition``, ``offset`` and ``path``.
"""


class TwainMQError(Exception):
    """Base of every TwainMQ exception."""

    code = "twainmq"


# 0.2.3's classes (twainmq/errors.py), same names, same bases.
class TopicCorruptError(TwainMQError): pass
class ConfigNotFoundError(TwainMQError): pass
class InvalidTopicNameError(ValueError, TwainMQError): pass
class InvalidGroupNameError(ValueError, TwainMQError): pass
class TopicAlreadyExists(TwainMQError): pass
class NoActiveMessageFileToReadError(TwainMQError): pass
class InvalidKeyTypeError(TwainMQError): pass
class InvalidMessageKeyError(TwainMQError): pass
class TopicDeleteError(TwainMQError): pass
class TwainSchemaError(TwainMQError): pass
class NoSchemaError(TwainSchemaError): pass
class MessageTooLongError(TwainMQError): pass


class _PlainKeyError(KeyError):
    """A KeyError whose str() is its message (KeyError's own quotes it)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


# Ours.
class TwainMQValueError(TwainMQError, ValueError):
    """An argument with a value no call accepts (a start position, a timeout)."""


class StoreNotFoundError(TwainMQError, FileNotFoundError):
    """The store's folder does not exist."""


class StoreNotAFolderError(TwainMQError, NotADirectoryError):
    """The store's path holds a file (or a FIFO, ...), not a folder."""


class TopicExistsError(TopicAlreadyExists, ValueError):
    """create_topic of a topic that exists (0.2.3: ValueError)."""


class TopicNotFoundError(ConfigNotFoundError, FileNotFoundError):
    """A topic has no config (0.2.3: ConfigNotFoundError, or FileNotFoundError on delete)."""


class ConfigCorruptError(TopicCorruptError, ValueError):
    """A topic's config is not one 0.2.3 could have written."""


class CorruptMessageError(TopicCorruptError, ValueError):
    """A line of a partition file is not a message; it is skipped (poll again)."""


class KeyKindError(InvalidMessageKeyError, AttributeError):
    """A key of the wrong kind: a str for an integer-keyed topic, or the reverse (0.2.3: AttributeError)."""


class MessageKindError(TwainMQError, AttributeError):
    """A message that is neither str, bytes nor a dataclass instance (0.2.3: AttributeError)."""


class UnknownMessageTypeError(TwainMQError, _PlainKeyError):
    """A dataclass whose type the topic's config does not declare (0.2.3: KeyError)."""


class UnregisteredMessageTypeError(TwainMQError, _PlainKeyError):
    """A message of a type no dataclass is registered for: register it and poll again (0.2.3: KeyError)."""


class InvalidPartitionCountError(TwainMQError, ValueError):
    """A partition count that is not an int from 1 to 10,000."""


class InvalidMessageTypeNameError(TwainMQError, ValueError):
    """A message type name a topic config cannot hold."""


class PartitionOutOfRangeError(TwainMQError, _PlainKeyError):
    """A partition the topic does not have (0.2.3, from a partitioner: KeyError)."""


class UnsafePathError(TwainMQError):
    """A link, FIFO, folder or device where a store file belongs: never opened."""


class ShortWriteError(TwainMQError, OSError):
    """A write landed in part (a full disk); the next write ends the line first."""


class TopicDeletedError(TwainMQError):
    """The topic was deleted (or deleted and made again) while in use: start again."""


class FileInUseError(TwainMQError, PermissionError):
    """Another process holds a file open so it cannot be deleted or replaced; nothing was changed."""


class GroupError(TwainMQError):
    """A consumer group failure (join failed, a group of another topic, ...)."""


class NotInGroupError(TwainMQError, AttributeError):
    """A group operation on a consumer without a group (0.2.3: AttributeError)."""


class ProducerClosedError(TwainMQError):
    """Not raised: a producer writes on after close() (it opens its files
    again), as 0.2.3's. Kept for programs that catch it."""


class ConsumerClosedError(TwainMQError):
    """poll after close()."""


class MessageTooLargeError(MessageTooLongError):
    """A message over its topic's max_message_bytes (a topic with large messages)."""


class NewerFormatError(TopicCorruptError):
    """A topic made by a newer TwainMQ (an extension this one does not know): never read or written."""


class InvalidTopicOptionError(TwainMQError, ValueError):
    """create_topic with an option out of range (max_message_bytes past 64 MiB, ...)."""
