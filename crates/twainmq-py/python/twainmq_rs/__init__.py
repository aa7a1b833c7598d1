"""
twainmq_rs: TwainMQ's Rust engine for Python, a drop-in for twainmq 0.2.3.

Change one import line::

    from twainmq import Twain      # before
    from twainmq_rs import Twain   # after

and the program reads and writes the same stores (0.2.3 programs can share
them, and their consumer groups), many times faster, with the engine's
guarantees: a message is reported written only when it is in the store, a
deleted topic stops its producers and consumers, commits cover only what was
handed out, and no offset is given twice at a UTC midnight among our
producers. Where 0.2.3 has a defect this package does not copy, it says so
in its README ("Differences from 0.2.3").
"""

from ._native import ENGINE_VERSION as _ENGINE_VERSION
from .core import Twain, TwainMQConsumer, TwainMQProducer
from .encoding import Message
from .utils import multi_poll
from . import agent_base, atomic_append, errors  # noqa: F401  (0.2.3's submodules)

__version__ = _ENGINE_VERSION

__all__ = ["Twain", "TwainMQConsumer", "TwainMQProducer", "Message", "multi_poll", "errors"]
