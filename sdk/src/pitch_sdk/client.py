"""Connecting a bot to a referee: the stream, reconnection, and running the bot's code.

Bot authors write plain synchronous :class:`~pitch_sdk.bot.Bot` code; this module does the
asyncio.  One :class:`BotClient` keeps one stream open (reconnecting with backoff when it
drops), creates a fresh bot instance for every seat it is given, and calls the bot in a
worker thread so a slow decision never blocks the stream.  :func:`run_bot` is the
blocking entry point ``pitch-bot run`` uses.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import zlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

import grpc

from pitch_sdk import __version__, wire
from pitch_sdk.batching import take_ready, unbatched
from pitch_sdk.bot import Bot
from pitch_sdk.proto.pitch.v1 import bot_pb2, bot_pb2_grpc
from pitch_sdk.rules import Ruleset

log = logging.getLogger("pitch.bot")
PROTOCOL_VERSION = "pitch.v1"


class ConnectionRefused(RuntimeError):
    """The referee refused the bot for a reason retrying cannot fix (token, protocol)."""


@dataclass
class _Seat:
    """One seat this process plays: its own bot instance and game counter."""

    ruleset: Ruleset
    bot: Bot
    seed: int
    game: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    budget_ms: float | None = None
    """The bot's own ``budget_ms``, before :func:`capped_budget` fits it to a decision."""


def capped_budget(wanted_ms: float | None, decision_ms: int) -> float | None:
    """A searching bot's time for one decision: its own budget, but at most half the time
    the referee gives the decision (``time_budget_ms``; 0: not said), so that its answer,
    the thread hop and the network fit well inside the time control."""
    if wanted_ms is None or decision_ms <= 0:
        return wanted_ms
    return min(wanted_ms, decision_ms / 2)


class BotClient:
    """A bot process's connection to one referee."""

    def __init__(self, bot_factory: Callable[[], Bot], address: str, token: str, *, capacity: int = 4,
                 rulesets: tuple[str, ...] = (), observation_tensor: bool = False, seed: int = 0,
                 max_backoff_s: float = 10.0, practice: Sequence[bot_pb2.PracticeRequest] = ()) -> None:
        self.bot_factory = bot_factory
        self.address = address
        self.token = token
        self.capacity = capacity
        self.rulesets = rulesets
        self.observation_tensor = observation_tensor
        self.seed = seed
        self.max_backoff_s = max_backoff_s
        self.seats: dict[tuple[str, int], _Seat] = {}
        self.decisions = 0
        self.connected = asyncio.Event()
        self.practice = list(practice)
        self.results: list[bot_pb2.MatchResult] = []
        """Results of the matches this client played, in the order they ended."""
        self.strikes: list[bot_pb2.Strike] = []
        """Every strike the referee gave this bot's seats."""
        self.errors: list[str] = []
        """Requests the referee refused (bad practice requests)."""
        self._sample = bot_factory()

    def hello(self) -> bot_pb2.BotMessage:
        """The hello this client opens every stream with."""
        return bot_pb2.BotMessage(hello=bot_pb2.Hello(
            bot_name=self._sample.name, bot_version=getattr(self._sample, "version", "0"),
            sdk=f"pitch-sdk {__version__}", protocol_versions=[PROTOCOL_VERSION], rulesets=list(self.rulesets),
            capacity=self.capacity, observation_tensor=self.observation_tensor, batching=True))

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Stay connected until ``stop`` is set, reconnecting with jittered backoff."""
        stop = stop or asyncio.Event()
        backoff = 0.25
        while not stop.is_set():
            try:
                await self._session(stop)
                backoff = 0.25
            except ConnectionRefused:
                raise
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.UNAUTHENTICATED:
                    raise ConnectionRefused(f"the referee rejected the token: {exc.details()}") from None
                log.warning("stream to %s lost (%s: %s)", self.address, exc.code().name, exc.details())
            self.connected.clear()
            if stop.is_set():
                break
            delay = backoff * (0.5 + random.random())
            log.info("reconnecting in %.2fs", delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=delay)
            backoff = min(backoff * 2, self.max_backoff_s)

    async def _session(self, stop: asyncio.Event) -> None:
        outbox: asyncio.Queue[bot_pb2.BotMessage | None] = asyncio.Queue()
        outbox.put_nowait(self.hello())

        async with grpc.aio.insecure_channel(self.address) as channel:
            call = bot_pb2_grpc.BotServiceStub(channel).Connect(
                _coalesced(outbox), metadata=(("authorization", f"Bearer {self.token}"),))
            stopper = asyncio.create_task(stop.wait())
            stopper.add_done_callback(lambda _: call.cancel())
            tasks: set[asyncio.Task[None]] = set()
            try:
                async for message in call:
                    for inner in unbatched(message):
                        self._dispatch(inner, outbox, tasks)
            except asyncio.CancelledError:
                if not stop.is_set():
                    raise
            except grpc.aio.AioRpcError as exc:
                if not (stop.is_set() and exc.code() == grpc.StatusCode.CANCELLED):
                    raise
            finally:
                stopper.cancel()
                for task in tasks:
                    task.cancel()
                outbox.put_nowait(None)

    def _dispatch(self, message: bot_pb2.RefereeMessage, outbox: asyncio.Queue[bot_pb2.BotMessage | None],
                  tasks: set[asyncio.Task[None]]) -> None:
        """Act on one referee message (decisions run as tasks, answering through ``outbox``)."""
        kind = message.WhichOneof("message")
        if kind == "refusal":
            raise ConnectionRefused(f"referee refused the bot: {message.refusal.message}")
        if kind == "welcome":
            log.info("connected to %s as %s (session %s)", self.address, self._sample.name,
                     message.welcome.session_id)
            self.connected.set()
            for request in self.practice:  # asked once: a reconnection resumes them
                outbox.put_nowait(bot_pb2.BotMessage(practice=request))
            self.practice = []
        elif kind == "match_started":
            self._start_seat(message.match_started)
        elif kind == "decision_request":
            task = asyncio.create_task(self._decide(message.decision_request, outbox))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        elif kind == "events":
            self._on_events(message.events)
        elif kind == "strike":
            strike = message.strike
            self.strikes.append(strike)
            log.warning("strike %d in match %s seat %d: %s (referee played %s)", strike.strikes,
                        strike.match_id, strike.seat, strike.message, strike.fallback.text)
        elif kind == "match_ended":
            self.results.append(message.match_ended.result)
            self._end_match(message.match_ended.match_id)
        elif kind == "error":
            log.error("referee refused a request: %s", message.error.message)
            self.errors.append(message.error.message)

    def _start_seat(self, started: bot_pb2.MatchStarted) -> None:
        key = (started.match_id, started.seat)
        if key in self.seats:  # re-sent after a reconnection: keep the bot's memory
            return
        ruleset = wire.ruleset_from_pb(started.ruleset)
        seed = zlib.crc32(f"{self.seed}:{started.match_id}:{started.seat}".encode())
        bot = self.bot_factory()
        self.seats[key] = _Seat(ruleset, bot, seed, budget_ms=bot.budget_ms)
        log.info("match %s: playing seat %d of %s", started.match_id, started.seat, ruleset.name)

    async def _decide(self, request: bot_pb2.DecisionRequest, outbox: asyncio.Queue[bot_pb2.BotMessage | None]
                      ) -> None:
        seat = self.seats.get((request.match_id, request.seat))
        if seat is None:
            log.error("decision for unknown seat %d of match %s", request.seat, request.match_id)
            return
        async with seat.lock:
            self._tell(seat, request.events)  # what happened since the seat last heard
            if request.game != seat.game:
                seat.game = request.game
                seat.bot.start_game(seat.ruleset, request.seat, random.Random(seat.seed + request.game))
            legal = ([wire.action_from_pb(a) for a in request.legal_actions] if request.legal_actions
                     else wire.card_set_actions(request.card_set))
            observation = wire.observation_from_pb(request.observation, seat.ruleset, legal)
            seat.bot.budget_ms = capped_budget(seat.budget_ms, request.time_budget_ms)
            action = await asyncio.to_thread(seat.bot.act, observation, legal)
        self.decisions += 1
        outbox.put_nowait(bot_pb2.BotMessage(decision=bot_pb2.Decision(
            match_id=request.match_id, decision_id=request.decision_id, action=wire.action_to_pb(action))))

    def _on_events(self, batch: bot_pb2.MatchEvents) -> None:
        """Events that arrived on their own (at the end of a match)."""
        seat = self.seats.get((batch.match_id, batch.seat))
        if seat is not None:
            self._tell(seat, batch.events)

    @staticmethod
    def _tell(seat: _Seat, events: Sequence[bot_pb2.MatchEvent]) -> None:
        """Tell the seat's bot about finished hands (the hooks of :class:`Bot`)."""
        for event in events:
            if event.WhichOneof("event") == "hand_result":
                result = wire.hand_result_from_pb(event.hand_result, seat.ruleset.bidding.auction)
                seat.bot.on_hand_result(result)
                if result.game_over:
                    seat.bot.on_game_end(result)

    def _end_match(self, match_id: str) -> None:
        for key in [k for k in self.seats if k[0] == match_id]:
            del self.seats[key]
        log.info("match %s ended", match_id)


async def _coalesced(outbox: asyncio.Queue[bot_pb2.BotMessage | None]) -> AsyncIterator[bot_pb2.BotMessage]:
    """The stream's messages: each as it is queued, or, when several are ready at once
    (answers of several seats), one batch of them all; ends at ``None``."""
    while (message := await outbox.get()) is not None:
        if outbox.empty() or message.HasField("hello"):
            yield message
            continue
        ready, ended = take_ready(outbox, message)
        yield bot_pb2.BotMessage(batch=bot_pb2.BotMessages(messages=ready))
        if ended:
            return


def run_bot(bot_factory: Callable[[], Bot], address: str, token: str, **options: object) -> None:
    """Connect and play until Ctrl-C (blocking; for ``pitch-bot run`` and scripts)."""
    client = BotClient(bot_factory, address, token, **options)  # type: ignore[arg-type]
    try:
        asyncio.run(client.run())
    except KeyboardInterrupt:
        log.info("stopped")
