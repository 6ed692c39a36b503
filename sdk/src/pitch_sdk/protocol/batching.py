"""The protocol's optional batches (``RefereeMessage.batch``, ``BotMessage.batch``), shared by
the SDK client and the referee: one side joins the messages that are ready at the same
moment, the other handles a batch's messages in order as if they had come one by one."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TypeVar

from pitch_sdk.proto.pitch.v1 import bot_pb2

T = TypeVar("T")
M = TypeVar("M", bot_pb2.RefereeMessage, bot_pb2.BotMessage)


def unbatched(message: M) -> Sequence[M]:
    """The messages ``message`` stands for: a batch's members, or itself."""
    if message.WhichOneof("message") == "batch":
        return message.batch.messages
    return (message,)


def take_ready(queue: asyncio.Queue[T | None], first: T) -> tuple[list[T], bool]:
    """``first`` and every message already waiting in ``queue`` behind it, and whether the
    end of the queue (``None``) was taken with them."""
    ready = [first]
    while not queue.empty():
        message = queue.get_nowait()
        if message is None:
            return ready, True
        ready.append(message)
    return ready, False
