"""A session's outgoing queue: messages are queued encoded and batched by concatenation."""

from __future__ import annotations

import asyncio

from pitch_sdk.proto.pitch.v1 import bot_pb2
from referee.sessions import Session, encode_batch


def strike(text: str) -> bot_pb2.RefereeMessage:
    return bot_pb2.RefereeMessage(strike=bot_pb2.Strike(match_id="m", message=text))


def encoded_strike(text: str) -> bytes:
    return strike(text).SerializeToString()


def test_concatenated_batch_parses_as_the_batch_protobuf_builds() -> None:
    """bot.proto: a batch is a ``RefereeMessage.batch`` whose ``messages`` are handled in
    order.  The concatenated encoding parses to exactly the message protobuf builds, with
    members whose lengths take one, two and three varint bytes."""
    members = [strike(""), strike("x" * 300), strike("y" * 20_000)]
    built = bot_pb2.RefereeMessage(batch=bot_pb2.RefereeMessages(messages=members))
    encoded = encode_batch([m.SerializeToString() for m in members])
    assert bot_pb2.RefereeMessage.FromString(encoded) == built
    assert encoded == built.SerializeToString()


def test_a_batching_session_sends_what_is_queued_as_one_batch_and_then_closes() -> None:
    """A bot whose hello sets ``batching`` gets every message queued by now in one batch, a
    lone message as itself; messages queued before the close go out first.  A bot without
    the flag gets them one by one."""

    async def drain(hello: bot_pb2.Hello) -> list[bot_pb2.RefereeMessage]:
        session = Session(hello)
        for text in ("a", "b", "c"):
            session.send(encoded_strike(text))
        written = [await session.next_message()]
        session.send(encoded_strike("d"))
        written.append(await session.next_message())
        session.send(encoded_strike("e"))
        session.close()
        session.send(encoded_strike("dropped"))
        while (encoded := await session.next_message()) is not None:
            written.append(encoded)
        return [bot_pb2.RefereeMessage.FromString(w or b"") for w in written]

    batched = asyncio.run(drain(bot_pb2.Hello(batching=True)))
    assert [[m.strike.message for m in w.batch.messages] for w in batched[:1]] == [["a", "b", "c"]]
    assert [w.strike.message for w in batched[1:]] == ["d", "e"]
    single = asyncio.run(drain(bot_pb2.Hello()))
    assert [w.strike.message for w in single] == ["a", "b", "c", "d", "e"]


def test_a_waiting_batching_writer_takes_what_the_same_turn_queues_in_one_batch() -> None:
    """A writer waiting on an empty queue is woken by the first message; what is queued
    later in the same turn of the event loop (the other matches woken by one answer
    batch) leaves in the same batch, not in writes of its own.  A bot without
    ``batching`` still gets them one by one."""

    async def written(hello: bot_pb2.Hello) -> list[list[str]]:
        session = Session(hello)
        loop = asyncio.get_running_loop()

        def first_match_moves() -> None:
            session.send(encoded_strike("first"))  # wakes the writer: its wake-up is queued now
            loop.call_soon(session.send, encoded_strike("second"))  # queued after the wake-up

        loop.call_soon(first_match_moves)
        writes = [await session.next_message()]
        await asyncio.sleep(0)  # whatever was still to come has been queued
        session.close()
        while (encoded := await session.next_message()) is not None:
            writes.append(encoded)
        messages = [bot_pb2.RefereeMessage.FromString(w or b"") for w in writes]
        return [[m.strike.message for m in w.batch.messages] if w.HasField("batch") else [w.strike.message]
                for w in messages]

    assert asyncio.run(written(bot_pb2.Hello(batching=True))) == [["first", "second"]]
    assert asyncio.run(written(bot_pb2.Hello())) == [["first"], ["second"]]
