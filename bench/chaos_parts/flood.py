"""A practice flood from one bot token during the chaos run (``--practice-flood``), and the
check that the referee kept practice matches within its bound.

Run as its own process (the benchmark starts and restarts it like any service):
``flood.py ADDRESS`` with ``PITCH_BOT_TOKEN`` (a registered bot that plays in no tournament)
and ``PITCH_ADMIN_TOKEN``.  It keeps one stream to the referee at ADDRESS, says a hello with
capacity 1024 and sends a batch of :data:`BATCH` practice requests every :data:`EVERY_S`
seconds (the attack that once took every match slot), answering each decision with its
first legal action after :data:`ANSWER_S`, and reconnecting when the stream ends.  Meanwhile it asks the
referee's ``ListMatches`` every :data:`WATCH_S` seconds how many practice matches run, and
writes a line ``flood {json}`` with its counts every :data:`REPORT_S` seconds: requests
sent, matches started and ended, refusals by the limit they name, the bound the welcome
stated and the most practice matches of its bot seen running at once."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import grpc

from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from pitch_sdk.protocol import wire

BATCH = 50
EVERY_S = 1.0
WATCH_S = 0.25
REPORT_S = 2.0
#: How long the flooding bot takes to answer: its practice matches last a few seconds, so
#: that the bound on them is reached and held.
ANSWER_S = 0.1
#: Refusal messages' settings: each refusal is counted under the limit it names.
LIMITS = ("PITCH_PRACTICE_PER_MINUTE", "PITCH_PRACTICE_PER_BOT", "PITCH_PRACTICE_SHARE", "PITCH_CONNECTS_PER_MINUTE")
PREFIX = "flood "


class Flood:
    """The flooding bot's stream and what it counted."""

    def __init__(self, address: str, token: str, admin: str) -> None:
        self.address, self.token, self.admin = address, token, admin
        self.counts: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        self.bound = 0
        """Practice matches at once, as the last welcome stated it."""
        self.peak = 0
        """The most practice matches seating this bot that ``ListMatches`` showed at once."""
        self.bot_id = ""

    async def stream(self) -> None:
        """One stream: hello, then a batch of practice requests every :data:`EVERY_S`."""
        async with grpc.aio.insecure_channel(self.address) as channel:
            call = bot_pb2_grpc.BotServiceStub(channel).Connect(metadata=(("authorization", f"Bearer {self.token}"),))
            outbox: asyncio.Queue[bot_pb2.BotMessage] = asyncio.Queue()
            outbox.put_nowait(bot_pb2.BotMessage(hello=bot_pb2.Hello(
                bot_name="flood", protocol_versions=["pitch.v1"], capacity=1024, skip_events=True)))
            helpers = [asyncio.create_task(self._write(call, outbox)), asyncio.create_task(self._send(outbox))]
            try:
                while isinstance(message := await call.read(), bot_pb2.RefereeMessage):
                    for inner in message.batch.messages if message.HasField("batch") else [message]:
                        self._handle(outbox, inner)
            finally:
                for helper in helpers:
                    helper.cancel()

    @staticmethod
    async def _write(call: Any, outbox: asyncio.Queue[bot_pb2.BotMessage]) -> None:
        """The stream's one writer (a call takes one write at a time)."""
        while True:
            await call.write(await outbox.get())

    async def _send(self, outbox: asyncio.Queue[bot_pb2.BotMessage]) -> None:
        seed = 0
        while True:
            requests = []
            for _ in range(BATCH):
                seed += 1
                requests.append(bot_pb2.BotMessage(practice=bot_pb2.PracticeRequest(preset="cutthroat", seed=seed)))
            outbox.put_nowait(bot_pb2.BotMessage(batch=bot_pb2.BotMessages(messages=requests)))
            self.counts["requests"] += BATCH
            await asyncio.sleep(EVERY_S)

    def _handle(self, outbox: asyncio.Queue[bot_pb2.BotMessage], message: bot_pb2.RefereeMessage) -> None:
        kind = message.WhichOneof("message")
        if kind == "welcome":
            self.bound, self.bot_id = message.welcome.practice_matches_at_once, message.welcome.bot_id
            self.counts["welcomes"] += 1
        elif kind == "match_started":
            self.counts["started"] += 1
        elif kind == "match_ended":
            self.counts["ended"] += 1
        elif kind == "error":
            named = [limit for limit in LIMITS if limit in message.error.message]
            self.refused[named[0] if named else message.error.message[:60]] += 1
        elif kind == "decision_request":
            answer = wire.first_legal_decision(message.decision_request)
            asyncio.get_running_loop().call_later(ANSWER_S, outbox.put_nowait, bot_pb2.BotMessage(decision=answer))

    async def watch(self) -> None:
        """Note the most practice matches of this bot running at once on the referee."""
        async with grpc.aio.insecure_channel(self.address) as channel:
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            while True:
                try:
                    running = await stub.ListMatches(arena_pb2.ListMatchesRequest(), timeout=5,
                                                     metadata=(("authorization", f"Bearer {self.admin}"),))
                    mine = sum(m.practice and self.bot_id in m.seat_bot_ids for m in running.matches)
                    self.peak = max(self.peak, mine)
                    self.counts["watched"] += 1
                except grpc.aio.AioRpcError:
                    self.counts["watch_failed"] += 1
                await asyncio.sleep(WATCH_S)

    def summary(self) -> dict[str, Any]:
        return {**self.counts, "refused": dict(self.refused), "bound": self.bound, "peak": self.peak}

    async def report(self) -> None:
        while True:
            await asyncio.sleep(REPORT_S)
            print(PREFIX + json.dumps(self.summary()), flush=True)


async def run(address: str) -> None:
    """Flood until SIGTERM, then write the last counts."""
    flood = Flood(address, os.environ["PITCH_BOT_TOKEN"], os.environ["PITCH_ADMIN_TOKEN"])
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    tasks = [asyncio.create_task(flood.watch()), asyncio.create_task(flood.report())]

    async def keep_streaming() -> None:
        while True:
            try:
                await flood.stream()
            except grpc.aio.AioRpcError as error:
                flood.counts[f"stream_ended_{error.code().name}"] += 1
            await asyncio.sleep(1.0)

    tasks.append(asyncio.create_task(keep_streaming()))
    await stop.wait()
    for task in tasks:
        task.cancel()
    print(PREFIX + json.dumps(flood.summary()), flush=True)


def summary(log: Path) -> dict[str, Any] | None:
    """The last counts a flood process wrote to its log (``None``: none yet)."""
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.startswith(PREFIX)]
    return json.loads(lines[-1][len(PREFIX):]) if lines else None


def over_bound(found: dict[str, Any] | None) -> list[str]:
    """The ``practice_over_bound`` check: more practice matches of the flooding bot at once
    than the referee's welcome said it allows (or a flood that never got a welcome)."""
    if found is None or not found.get("welcomes"):
        return ["the flood never got a welcome: nothing was checked"]
    if found["peak"] > found["bound"]:
        return [f"{found['peak']} practice matches of one bot at once, over the bound of {found['bound']}"]
    return []


if __name__ == "__main__":
    asyncio.run(run(sys.argv[1]))
