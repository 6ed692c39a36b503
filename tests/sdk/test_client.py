"""The SDK client's outgoing stream: answers ready at the same moment go as one batch."""

from __future__ import annotations

import asyncio

from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.remote.answering import Took
from pitch_sdk.remote.client import QUICK_STREAK, _coalesced, _Pace


def decision(decision_id: str) -> bot_pb2.BotMessage:
    return bot_pb2.BotMessage(decision=bot_pb2.Decision(decision_id=decision_id))


def test_ready_answers_go_as_one_batch_the_hello_alone_and_nothing_after_the_end() -> None:
    """bot.proto: a batch carries "several messages at once (answers to several decision
    requests, typically), handled in order"; the hello is always sent on its own (it must
    be the first message of the stream), a lone answer is sent as itself, and the end of
    the queue ends the stream even when it comes in the middle of a burst."""

    async def scenario() -> list[bot_pb2.BotMessage]:
        outbox: asyncio.Queue[bot_pb2.BotMessage | None] = asyncio.Queue()
        for message in (bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="b")), decision("1"), decision("2"),
                        decision("3")):
            outbox.put_nowait(message)
        stream = _coalesced(outbox)
        sent = [await anext(stream), await anext(stream)]
        outbox.put_nowait(decision("4"))
        sent.append(await anext(stream))
        for message in (decision("5"), decision("6"), None, decision("never")):
            outbox.put_nowait(message)
        sent.extend([m async for m in stream])
        return sent

    hello, first_burst, lone, last_burst = asyncio.run(scenario())
    assert hello.HasField("hello")
    assert [m.decision.decision_id for m in first_burst.batch.messages] == ["1", "2", "3"]
    assert lone.decision.decision_id == "4"
    assert [m.decision.decision_id for m in last_burst.batch.messages] == ["5", "6"]


def test_a_bot_is_asked_inline_only_after_a_streak_of_quick_decisions() -> None:
    """The client asks the bot on the stream's thread (no worker-thread hop) once its last
    QUICK_STREAK decisions were quick, in CPU and in all; one slow decision, by either
    measure, sends it back to worker threads."""
    pace = _Pace()
    quick = Took(seconds=0.001, cpu_seconds=0.0005)
    for _ in range(QUICK_STREAK - 1):
        pace.note(quick)
    assert not pace.inline()
    pace.note(quick)
    assert pace.inline()
    pace.note(Took(seconds=0.5, cpu_seconds=0.0001))  # waiting (I/O, sleep): slow in all
    assert not pace.inline()
    for _ in range(QUICK_STREAK):
        pace.note(quick)
    pace.note(Took(seconds=0.004, cpu_seconds=0.004))  # computing: slow in CPU
    assert not pace.inline()
