"""The SDK client's outgoing stream, written with the call's own ``write`` over real gRPC on
loopback: answers ready at the same moment go as one batch, one write at a time; and how
the client times a bot's decisions to choose the thread it asks it on."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

import grpc

from pitch_sdk.bot import Bot
from pitch_sdk.clock import Clock
from pitch_sdk.proto.pitch.v1 import bot_pb2, bot_pb2_grpc
from pitch_sdk.protocol import wire
from pitch_sdk.remote.answering import Took, decide
from pitch_sdk.remote.client import QUICK_STREAK, _Outbox, _Pace
from pitch_sdk.rules import Action, GameState, Observation, observe, preset

Scenario = Callable[[_Outbox, grpc.aio.StreamStreamCall[bot_pb2.BotMessage, bot_pb2.RefereeMessage]],
                    Awaitable[None]]


class Recorder(bot_pb2_grpc.BotServiceServicer):
    """The far end of the stream: keeps every message it receives, in order."""

    def __init__(self) -> None:
        self.received: list[bot_pb2.BotMessage] = []

    async def Connect(self, request_iterator: AsyncIterator[bot_pb2.BotMessage],
                      context: grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.RefereeMessage]
                      ) -> AsyncIterator[bot_pb2.RefereeMessage]:
        async for message in request_iterator:
            self.received.append(message)
        return
        yield  # a generator: the stream's (empty) answer


def received(scenario: Scenario) -> list[bot_pb2.BotMessage]:
    """What a real stream's far end received while ``scenario`` used an outbox on it."""

    async def run() -> list[bot_pb2.BotMessage]:
        recorder = Recorder()
        server = grpc.aio.server()
        bot_pb2_grpc.add_BotServiceServicer_to_server(recorder, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = bot_pb2_grpc.BotServiceStub(channel).Connect()
                await scenario(_Outbox(call), call)
                if not call.done():
                    await call.done_writing()
                    assert [m async for m in call] == []
        finally:
            await server.stop(None)
        return recorder.received

    return asyncio.run(run())


def decision(decision_id: str) -> bot_pb2.BotMessage:
    return bot_pb2.BotMessage(decision=bot_pb2.Decision(decision_id=decision_id))


def ids(message: bot_pb2.BotMessage) -> list[str]:
    """The decision ids a message carries, batched or not."""
    if message.HasField("batch"):
        return [m.decision.decision_id for m in message.batch.messages]
    return [message.decision.decision_id]


def test_answers_put_together_go_as_one_batch_and_a_lone_one_as_itself() -> None:
    """bot.proto: a batch carries "several messages at once (answers to several decision
    requests, typically), handled in order"; a lone answer is sent as itself."""

    async def scenario(outbox: _Outbox, call: object) -> None:
        for name in ("1", "2", "3"):
            outbox.put(decision(name))
        await outbox.flush()
        outbox.put(decision("4"))
        await outbox.flush()
        await outbox.flush()  # nothing queued: nothing sent

    burst, lone = received(scenario)
    assert burst.HasField("batch") and ids(burst) == ["1", "2", "3"]
    assert lone.HasField("decision") and ids(lone) == ["4"]


def test_a_flush_during_a_write_leaves_its_messages_to_that_write() -> None:
    """gRPC allows one write under way per call: an answer flushed while another is being
    written (a worker thread's answer while the read loop writes, say) is sent by the
    flush under way, right after, not in a second write at the same time."""

    async def scenario(outbox: _Outbox, call: object) -> None:
        outbox.put(decision("1"))
        first = asyncio.create_task(outbox.flush())
        await asyncio.sleep(0)
        assert outbox.writing  # the first flush waits on its write
        outbox.put(decision("2"))
        outbox.put(decision("3"))
        await outbox.flush()  # returns at once, leaving both to the first
        assert len(outbox.pending) == 2
        await first
        assert outbox.pending == [] and not outbox.writing

    assert [ids(m) for m in received(scenario)] == [["1"], ["2", "3"]]


def test_a_flush_on_an_ended_stream_drops_its_messages_without_raising() -> None:
    """A stream that ended (the referee went away, the bot stopped) ends the session's read
    loop, which reconnects; a flush that finds it ended must not raise on top of that (in a
    decision's task the error would go unretrieved)."""

    async def scenario(outbox: _Outbox, call: grpc.aio.StreamStreamCall[bot_pb2.BotMessage,
                                                                         bot_pb2.RefereeMessage]) -> None:
        outbox.put(decision("1"))
        await outbox.flush()
        call.cancel()
        outbox.put(decision("2"))
        await outbox.flush()
        assert outbox.pending == [] and not outbox.writing

    assert all(ids(m) == ["1"] for m in received(scenario))  # "1" may or may not have arrived before the end


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


class Spending(Bot):
    """Answers the first legal action after ``spend(seconds)`` (computing or sleeping)."""

    def __init__(self, spend: Callable[[float], None], seconds: float) -> None:
        super().__init__()
        self.spend, self.seconds = spend, seconds

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        self.spend(self.seconds)
        return legal_actions[0]


def compute(seconds: float) -> None:
    started = time.thread_time()
    while time.thread_time() - started < seconds:
        pass


def test_the_cpu_time_is_read_only_for_a_decision_long_in_all() -> None:
    """Reading the thread's CPU time is a system call, so ``decide`` reads it at the end only
    for a decision that took ``read_cpu_from`` or more in all: a shorter one reports its
    wall-clock time as its CPU time (which it bounds); a long one its real CPU time,
    however it spent the wall-clock time (computing, or waiting)."""
    state = GameState.new(preset("partnership"), seed=1)
    legal = state.legal_actions()
    request = bot_pb2.DecisionRequest(match_id="m", decision_id="d",
                                      legal_actions=[wire.action_to_pb(a) for a in legal])
    observation = observe(state, state.to_move)

    def took(bot: Bot) -> Took:
        answer, spent = decide(bot, request, observation, legal, Clock(), read_cpu_from=0.002)
        assert answer.decision.legal_action_index == 0
        return spent

    quick = took(Spending(compute, 0))
    assert quick.cpu_seconds == quick.seconds or quick.seconds >= 0.002  # (a loaded machine may stall it)
    computing = took(Spending(compute, 0.004))
    assert computing.cpu_seconds >= 0.004 and computing.seconds >= 0.004
    waiting = took(Spending(time.sleep, 0.004))
    assert waiting.seconds >= 0.004 and waiting.cpu_seconds < 0.002
