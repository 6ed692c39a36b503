"""Connecting a bot to a referee: the stream, reconnection, and running the bot's code.

Bot authors write plain synchronous :class:`~pitch_sdk.bot.Bot` code; this module does the
asyncio.  One :class:`BotClient` keeps one stream open (reconnecting with backoff when it
drops), creates a fresh bot instance for every seat it is given, and calls the bot in a
worker thread so a slow decision never blocks the stream (a bot that has been quick is
called on the stream's own thread: see :class:`_Pace`).  :func:`run_bot` is the
blocking entry point ``pitch-bot run`` uses.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import grpc

from pitch_sdk import __version__
from pitch_sdk.bot import Bot
from pitch_sdk.clock import Clock
from pitch_sdk.proto.pitch.v1 import bot_pb2, bot_pb2_grpc
from pitch_sdk.protocol import wire
from pitch_sdk.protocol.batching import unbatched
from pitch_sdk.protocol.observation_wire import ReceivedObservation
from pitch_sdk.remote import answering
from pitch_sdk.remote.tls import PLAINTEXT, ChannelSecurity
from pitch_sdk.rules import Action, Observation, Ruleset

log = logging.getLogger("pitch.bot")
PROTOCOL_VERSION = "pitch.v1"
QUICK_CPU_MS = 2.0
"""A decision is quick when the bot's code used less CPU time than this (see :class:`_Pace`)..."""
QUICK_WALL_MS = 12.0
"""... and took less time in all than this (in a worker thread, up to two of the GIL's 5 ms
switch intervals go to waiting for the GIL)."""
QUICK_STREAK = 8
"""Quick decisions in a row after which the bot is asked on the event loop's thread."""


@dataclass
class _Pace:
    """Where to ask the bot: on the event loop's thread once its latest ``QUICK_STREAK``
    decisions (any seat's: every seat runs the same code) were each quick, else in a
    worker thread.  For a quick bot the hop to a worker thread and back was a quarter of
    the SDK's cost per decision; a slow one keeps its thread, so it never holds up the
    stream for long, and one slow answer sends it back there."""

    quick: int = 0

    def inline(self) -> bool:
        """Whether to ask the bot on the event loop's thread."""
        return self.quick >= QUICK_STREAK

    def note(self, took: answering.Took) -> None:
        """Note how long the bot's code took over a decision."""
        quick = took.cpu_seconds * 1000 < QUICK_CPU_MS and took.seconds * 1000 < QUICK_WALL_MS
        self.quick = self.quick + 1 if quick else 0


class ConnectionRefused(RuntimeError):
    """The referee refused the bot for a reason retrying cannot fix (token, protocol)."""


class RefereeStopping(RuntimeError):
    """The referee is shutting down: the bot connects again with backoff (the referee is
    being restarted, or the arena's name leads to another one), as after a lost stream."""


@dataclass
class _Seat:
    """One seat this process plays: its own bot instance and game counter."""

    ruleset: Ruleset
    bot: Bot
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
                 max_backoff_s: float = 10.0, practice: Sequence[bot_pb2.PracticeRequest] = (),
                 security: ChannelSecurity = PLAINTEXT) -> None:
        self.bot_factory = bot_factory
        self.security = security
        """Plaintext or TLS (see :mod:`pitch_sdk.remote.tls`)."""
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
        self.referee_address = address
        """The address the referee says it is reached at (its welcome's ``referee_address``)."""
        self.welcome: bot_pb2.Welcome | None = None
        """The referee's latest welcome."""
        self.on_fleet: Callable[[BotClient, list[str]], None] | None = None
        """Told the arena's live referees at each welcome and fleet update (set by
        :class:`pitch_sdk.remote.fleet.FleetBot`, which keeps a client on each); when set, the
        hello asks for fleet updates."""
        self._sample = bot_factory()
        self._pace = _Pace()

    def hello(self) -> bot_pb2.BotMessage:
        """The hello this client opens every stream with."""
        return bot_pb2.BotMessage(hello=bot_pb2.Hello(
            bot_name=self._sample.name, bot_version=getattr(self._sample, "version", "0"),
            sdk=f"pitch-sdk {__version__}", protocol_versions=[PROTOCOL_VERSION], rulesets=list(self.rulesets),
            capacity=self.capacity, observation_tensor=self.observation_tensor, batching=True,
            fleet_updates=self.on_fleet is not None))

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
            except RefereeStopping:
                log.info("referee %s is shutting down", self.address)
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.UNAUTHENTICATED:
                    raise ConnectionRefused(f"the referee rejected the token: {exc.details()}") from None
                if exc.code() == grpc.StatusCode.PERMISSION_DENIED:  # disabled by the operator: retrying is futile
                    raise ConnectionRefused(f"the referee refused the bot: {exc.details()}") from None
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
        async with self.security.channel(self.address) as channel:
            call = bot_pb2_grpc.BotServiceStub(channel).Connect(
                metadata=(("authorization", f"Bearer {self.token}"),))
            stopper = asyncio.create_task(stop.wait())
            stopper.add_done_callback(lambda _: call.cancel())
            outbox = _Outbox(call)
            outbox.put(self.hello())
            tasks: set[asyncio.Task[None]] = set()
            try:
                await outbox.flush()  # the hello, alone: a stream that failed already fails the read
                # ``read`` until the end (EOF), not ``async for``: one generator less per message
                while isinstance(message := await call.read(), bot_pb2.RefereeMessage):
                    for inner in unbatched(message):
                        self._dispatch(inner, outbox, tasks)
                    await outbox.flush()
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

    def _dispatch(self, message: bot_pb2.RefereeMessage, outbox: _Outbox, tasks: set[asyncio.Task[None]]) -> None:
        """Act on one referee message: a quick bot's answer goes into ``outbox`` now, a
        decision asked in a worker thread runs as a task that flushes its own answer."""
        kind = message.WhichOneof("message")
        if kind == "refusal":
            if message.refusal.reason == bot_pb2.REFUSAL_REASON_SHUTTING_DOWN:
                raise RefereeStopping(message.refusal.message)
            raise ConnectionRefused(f"referee refused the bot: {message.refusal.message}")
        if kind == "welcome":
            log.info("connected to %s as %s (session %s)", self.address, self._sample.name,
                     message.welcome.session_id)
            if message.welcome.other_versions:
                log.info("%s: versions %s of this bot are connected too; each plays the seats that name it, "
                         "and seats naming the bot alone come to this newest connection", self.address,
                         ", ".join(message.welcome.other_versions))
            if message.welcome.checking:
                log.info("%s: the arena checks this new version before it plays: practice matches against its "
                         "house bots follow; a strike rejects the version", self.address)
            self.welcome = message.welcome
            self.referee_address = message.welcome.referee_address or self.address
            self.connected.set()
            if self.on_fleet is not None and message.welcome.fleet:
                self.on_fleet(self, list(message.welcome.fleet))
            for request in self.practice:  # asked once: a reconnection resumes them
                outbox.put(bot_pb2.BotMessage(practice=request))
            self.practice = []
        elif kind == "match_started":
            self._start_seat(message.match_started)
        elif kind == "decision_request":
            asked = message.decision_request
            seat = self.seats.get((asked.match_id, asked.seat))
            if seat is not None and self._pace.inline() and not seat.lock.locked():  # no task: see _Pace
                self._send(self._ask(seat, asked, Clock(asked.time_budget_ms, asked.time_bank_ms)), outbox)
                return
            task = asyncio.create_task(self._decide(asked, outbox))
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
        elif kind == "fleet_update" and self.on_fleet is not None:
            self.on_fleet(self, list(message.fleet_update.addresses))
        elif kind == "error":
            log.error("referee refused a request: %s", message.error.message)
            self.errors.append(message.error.message)

    def _start_seat(self, started: bot_pb2.MatchStarted) -> None:
        key = (started.match_id, started.seat)
        if key in self.seats:  # re-sent after a reconnection: keep the bot's memory
            return
        ruleset = wire.ruleset_from_pb(started.ruleset)
        bot = self.bot_factory()
        self.seats[key] = _Seat(ruleset, bot, budget_ms=bot.budget_ms)
        log.info("match %s: playing seat %d of %s", started.match_id, started.seat, ruleset.name)

    async def _decide(self, request: bot_pb2.DecisionRequest, outbox: _Outbox) -> None:
        clock = Clock(request.time_budget_ms, request.time_bank_ms)  # running from the request's arrival
        seat = self.seats.get((request.match_id, request.seat))
        if seat is None:
            log.error("decision for unknown seat %d of match %s", request.seat, request.match_id)
            return
        async with seat.lock:
            if self._pace.inline():
                answer = self._ask(seat, request, clock)
            else:
                observation, legal = self._prepare(seat, request)
                answer, took = await asyncio.to_thread(answering.decide, seat.bot, request, observation, legal,
                                                       clock, QUICK_CPU_MS / 1000)
                self._pace.note(took)
        self._send(answer, outbox)
        await outbox.flush()

    def _prepare(self, seat: _Seat, request: bot_pb2.DecisionRequest) -> tuple[Observation, Sequence[Action]]:
        """Bring the seat's bot up to date and decode what it is asked."""
        self._tell(seat, request.events)  # what happened since the seat last heard
        if request.game != seat.game:
            seat.game = request.game
            answering.call_hook(seat.bot.start_game, seat.ruleset, request.seat,
                                random.Random(self._game_seed(request)))
        legal = ([wire.action_from_pb(a) for a in request.legal_actions] if request.legal_actions
                 else wire.card_set_actions(request.card_set))
        seat.bot.budget_ms = capped_budget(seat.budget_ms, request.time_budget_ms)
        return ReceivedObservation.of(request.observation, seat.ruleset, legal), legal

    def _ask(self, seat: _Seat, request: bot_pb2.DecisionRequest, clock: Clock) -> bot_pb2.BotMessage:
        """Ask a quick bot on this thread (see :class:`_Pace`)."""
        observation, legal = self._prepare(seat, request)
        answer, took = answering.decide(seat.bot, request, observation, legal, clock, QUICK_CPU_MS / 1000)
        self._pace.note(took)
        return answer

    def _send(self, answer: bot_pb2.BotMessage, outbox: _Outbox) -> None:
        self.decisions += 1
        outbox.put(answer)

    def _game_seed(self, first: bot_pb2.DecisionRequest) -> int:
        """The seed of a seat's ``rng`` for a game, from the client's seed, the seat, the game
        number and the cards dealt to the seat (``first`` is its first decision of the
        game).  Not from the match id: a tournament's match ids contain its random id, so
        the same tournament seed would not replay the same games; the dealt cards come from
        the match's deal seed, so the same seed and entrants give the same games."""
        dealt = b"".join(card.SerializeToString() for card in first.observation.hand)
        return zlib.crc32(dealt, zlib.crc32(f"{self.seed}:{first.seat}:{first.game}".encode()))

    def _on_events(self, batch: bot_pb2.MatchEvents) -> None:
        """Events that arrived on their own (at the end of a match)."""
        seat = self.seats.get((batch.match_id, batch.seat))
        if seat is not None:
            self._tell(seat, batch.events)

    @staticmethod
    def _tell(seat: _Seat, events: Sequence[bot_pb2.MatchEvent]) -> None:
        """Tell the seat's bot about finished hands and mucked hands shown (the hooks of :class:`Bot`)."""
        for event in events:
            kind = event.WhichOneof("event")
            if kind == "hand_result":
                result = wire.hand_result_from_pb(event.hand_result, seat.ruleset.bidding.auction)
                answering.call_hook(seat.bot.on_hand_result, result)
                if result.game_over:
                    answering.call_hook(seat.bot.on_game_end, result)
            elif kind == "muck_shown":
                shown = event.muck_shown
                answering.call_hook(seat.bot.on_muck_shown, shown.seat,
                                    tuple(wire.card_from_pb(c) for c in shown.cards), shown.redeal)

    def _end_match(self, match_id: str) -> None:
        for key in [k for k in self.seats if k[0] == match_id]:
            del self.seats[key]
        log.info("match %s ended", match_id)


class _Outbox:
    """The messages a session sends, written with the stream call's own ``write``.

    The answers of a referee message (several, when it was a batch of requests for several
    seats) are put here while it is handled, then flushed as one message or one batch: no
    request iterator, whose hand-off to gRPC's own task for every message was a quarter of
    the SDK's cost per decision.  Only one write may be under way on a call, so a flush
    that finds one under way leaves its messages to it: that write's flush sends them next.
    """

    def __init__(self, call: grpc.aio.StreamStreamCall[bot_pb2.BotMessage, bot_pb2.RefereeMessage]) -> None:
        self.call = call
        self.pending: list[bot_pb2.BotMessage] = []
        self.writing = False

    def put(self, message: bot_pb2.BotMessage) -> None:
        """Queue ``message`` for the next flush."""
        self.pending.append(message)

    async def flush(self) -> None:
        """Write what is queued, unless a flush is writing already (it takes it along).

        A stream that has ended drops them: the session's read sees the end and reconnects,
        and the referee sends the requests still unanswered again."""
        if self.writing:
            return
        self.writing = True
        try:
            while self.pending:
                ready, self.pending = self.pending, []
                await self.call.write(ready[0] if len(ready) == 1 else
                                      bot_pb2.BotMessage(batch=bot_pb2.BotMessages(messages=ready)))
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as exc:
            log.debug("stream to %s ended before a write: %s", self.call, exc)
            self.pending = []
        finally:
            self.writing = False


def run_bot(bot_factory: Callable[[], Bot], address: str, token: str, **options: object) -> None:
    """Connect and play until Ctrl-C (blocking; for ``pitch-bot run`` and scripts)."""
    client = BotClient(bot_factory, address, token, **options)  # type: ignore[arg-type]
    try:
        asyncio.run(client.run())
    except KeyboardInterrupt:
        log.info("stopped")
