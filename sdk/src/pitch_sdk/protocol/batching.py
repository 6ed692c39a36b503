"""The protocol's optional batches (``RefereeMessage.batch``, ``BotMessage.batch``), shared by
the SDK client and the referee: one side joins the messages that are ready at the same
moment, the other handles a batch's messages in order as if they had come one by one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pitch_sdk.proto.pitch.v1 import bot_pb2

M = TypeVar("M", bot_pb2.RefereeMessage, bot_pb2.BotMessage)


def unbatched(message: M) -> Sequence[M]:
    """The messages ``message`` stands for: a batch's members, or itself."""
    if message.WhichOneof("message") == "batch":
        return message.batch.messages
    return (message,)
