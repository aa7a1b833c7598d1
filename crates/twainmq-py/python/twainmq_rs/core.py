"""``Twain``: a TwainMQ store, as 0.2.3's ``twainmq.core.Twain``."""

import json
import logging
from pathlib import Path
import random
import threading

from . import _native
from .consumer import TwainMQConsumer
from .consumer_groups import CONSUMER_GROUP_MESSAGE_CLASSES
from .encoding import dataclass_from_dict
from .encoding import _is_safe  # noqa: F401  (importable from here, as from 0.2.3's module)
from .errors import InvalidKeyTypeError, InvalidTopicNameError, TopicDeleteError, UnknownMessageTypeError, UnregisteredMessageTypeError  # noqa: F401
from .producer import TwainMQProducer

logger = logging.getLogger(__name__)

__all__ = ["Twain", "TwainMQConsumer", "TwainMQProducer"]


class Twain:
    """
    A TwainMQ installation rooted at a directory: its topics, producers,
    consumers and the registry of dataclass message types. As 0.2.3's.

    >>> tmq = Twain("C:/TwainMQ")
    >>> tmq.create_topic("hello_world", "u16")
    >>> tmq.producer("hello_world").write_message(42, "Hello!")
    >>> msg = tmq.consumer("hello_world").poll()

    The folder is opened on first use (it must exist then, as in 0.2.3).
    """

    def __init__(self, root_dir):
        self._root_dir = Path(root_dir)
        self._msg_cls_registry = dict()
        self._store = None
        self._store_lock = threading.Lock()
        for m in CONSUMER_GROUP_MESSAGE_CLASSES:
            self.register_msg_cls(m)

    def _native_store(self):
        """The engine's store (opened once, on first use)."""
        store = self._store
        if store is None:
            with self._store_lock:
                if self._store is None:
                    self._store = _native.Store(self._root_dir)
                store = self._store
        return store

    def register_msg_cls(self, message_cls):
        """
        Register a dataclass message type, under its ``__message_type__`` or
        its class name, so consumers of this Twain decode it.

        Raises ``KeyError`` if a class of that name is already registered.
        """
        name = getattr(message_cls, "__message_type__", message_cls.__name__)
        if name in self._msg_cls_registry:
            raise KeyError(f"Class already registered: {name}")
        self._msg_cls_registry[name] = message_cls

    def create_topic(self, topic_name, key_type=None, partitions=1, message_types=None, *, large_messages=False, max_message_bytes=None):
        """
        Create a topic. ``key_type``: ``"u8"``, ``"u16"`` (the default),
        ``"u32"``, ``"u64"`` or ``"charN"``; ``partitions``: 1 by default;
        ``message_types``: the names of the dataclass types it carries.

        Ours (the format's next version, which twainmq 0.2.3 refuses to open:
        its producers and consumers raise ``NotImplementedError``):
        ``key_type`` ``"text"`` (any str key), ``"bytes"`` or ``"any"`` (str,
        bytes or ``None``); ``large_messages=True`` allows messages over one
        4,096-byte line, up to ``max_message_bytes`` (1 MiB by default, at
        most 64 MiB; giving it implies ``large_messages``).

        Raises ``InvalidTopicNameError``, ``InvalidKeyTypeError``,
        ``InvalidTopicOptionError``, and ``ValueError``
        (``TopicExistsError``) if the topic exists.
        """
        if key_type is None:
            key_type = "u16"
        names = [] if message_types is None else list(message_types)
        # Numbered as 0.2.3 numbers them (a name listed twice takes its last
        # place's id); a name that is not a str is refused, after the topic's
        # name and key type are checked, as 0.2.3 checks them.
        if large_messages and max_message_bytes is None:
            max_message_bytes = 1 << 20
        self._native_store().create_topic(topic_name, key_type, partitions, names, max_message_bytes)

    def delete_topic(self, topic_name):
        """
        Delete a topic and all of its data, after a typed confirmation
        (``YES`` and a digit), as 0.2.3. Ours also deletes its config and the
        consumer groups that read it (0.2.3 leaves both behind).

        Returns ``TopicDeleteError`` (not raised) if the confirmation fails.
        """
        challenge_digit = random.randint(0, 9)
        confirm = input(f"To confirm delete of topic {topic_name} in {self.root_dir}, type YES{challenge_digit}")
        if confirm == f"YES{challenge_digit}":
            groups = self._native_store().delete_topic(topic_name)
            logger.info(f"Topic deleted: {topic_name}" + (f" (and its groups {', '.join(groups)})" if groups else ""))
        else:
            return TopicDeleteError("User confirm failed, topic not deleted")

    def producer(self, topic_name):
        """A producer for the topic."""
        return TwainMQProducer(self, topic_name)

    def consumer(self, topic_name, start_from=None, group=None):
        """
        A consumer of the topic. ``start_from``: ``"start"`` (the default) or
        ``"now"``, where to begin when there is no commit to resume from;
        ``group``: a consumer group to join (assignment by rounds, commits).
        """
        if start_from is None:
            start_from = "start"
        return TwainMQConsumer(self, topic_name, start_from, group)

    def _topic_path(self, topic_name: str) -> Path:
        return self.root_dir / topic_name

    def _config_path(self, topic_name):
        return self.root_dir / f"{topic_name}.twc"

    def topic_exists(self, topic_name):
        """Whether the topic exists (its config or its folder)."""
        try:
            store = self._native_store()
        except FileNotFoundError:
            return False
        return store.topic_exists(topic_name)

    def list_topics(self):
        """The topics' names, sorted (consumer groups excluded)."""
        return self._native_store().list_topics()

    @property
    def root_dir(self):
        return self._root_dir

    def _decode_typed(self, type_name, type_id, fields_json):
        """A typed message's dataclass instance, as 0.2.3 decodes it (the
        engine calls this for each typed message it hands out)."""
        if type_name is None:
            raise UnknownMessageTypeError(
                f"message type id {type_id} is not declared in the topic's config: the message cannot be decoded (skipped)")
        cls = self._msg_cls_registry.get(type_name)
        if cls is None:
            raise UnregisteredMessageTypeError(
                f"message type {type_name!r} is not registered with this Twain: call "
                f"register_msg_cls() with its dataclass and poll again (the message waits, uncommitted)")
        return dataclass_from_dict(cls, json.loads(fields_json))
