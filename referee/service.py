"""The gRPC servicers: they translate messages; the logic lives in sessions and matches.

``BotService.Connect`` authenticates the token from the call metadata before reading any
message, negotiates the protocol from the hello, then pumps messages both ways.
``ArenaService`` validates admin requests and runs matches.

Both services are registered with identity request deserializers (see
:func:`add_bot_service` and :func:`add_arena_service`): grpc would otherwise parse a
request before any of our code runs, answer an undecodable one with UNKNOWN and Python
exception text, and log a traceback for each, so that anyone, with no token, could flood
the log.  Here the token is checked first, the size of the request next, and only then is
it parsed; a request that does not parse gets INVALID_ARGUMENT with a short message and a
log line that is rate limited (:class:`LogLimiter`).  Every value a client sends is
bounded (``referee.config``'s ``MAX_*``) before it is used, and repeated in a reply or a
log line only through :func:`referee.config.echo`.

No fault of the referee's own answers UNKNOWN: the store being unreachable is UNAVAILABLE
(callers retry), any other fault INTERNAL, logged with its traceback (rate limited).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

import grpc
import redis
from google.protobuf.message import DecodeError, Message

from pitch_sdk import wire
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from pitch_sdk.rules import Ruleset, preset
from referee import config as bounds
from referee.config import RefereeConfig, echo
from referee.match import Match, MatchSpec, result_from_dict, result_to_dict
from referee.sessions import HousePresence, Presence, Registry, Session
from workers.storage.store import BotRecord, Store, StoreError

log = logging.getLogger("pitch.referee")
Context = grpc.aio.ServicerContext[Any, Any]
PROTOCOL_VERSION = "pitch.v1"
MAX_GAMES = 1000
MAX_PRACTICE_GAMES = 10
FINISHED_MATCH_TTL_S = 600.0
RECORD_RETRY_MAX_S = 10.0
"""Longest pause between two attempts to record a played match while the store is down."""
M = TypeVar("M", bound=Message)


def bearer_token(context: Context) -> str | None:
    """The token from ``authorization: Bearer <token>`` call metadata, if any."""
    for key, value in context.invocation_metadata() or ():
        if key.lower() == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value[len("Bearer "):].strip()
    return None


class RequestRefused(Exception):
    """A request that cannot be honoured, with the gRPC status that says why."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def invalid(message: str) -> RequestRefused:
    """An INVALID_ARGUMENT refusal (bad input)."""
    return RequestRefused(grpc.StatusCode.INVALID_ARGUMENT, message)


def store_unreachable(exc: redis.RedisError) -> str:
    """The message of an UNAVAILABLE answer while Redis is down (callers retry)."""
    return f"the arena's store (Redis) cannot be reached: {echo(str(exc) or type(exc).__name__, 200)}"


class LogLimiter:
    """Log lines caused by clients, at most ``burst`` per ``period_s``: a client that sends
    garbage in a loop must not be able to fill the log.  The first line after a quiet spell
    says how many were left out."""

    def __init__(self, logger: logging.Logger, burst: int = 10, period_s: float = 60.0) -> None:
        self.logger, self.burst, self.period_s = logger, burst, period_s
        self._window = 0.0
        self._logged = 0
        self._suppressed = 0

    def log(self, level: int, message: str, *args: object, exc_info: BaseException | None = None) -> None:
        """Log ``message % args`` at ``level`` unless this period's lines are used up."""
        now = time.monotonic()
        if now - self._window >= self.period_s:
            self._window, self._logged = now, 0
        if self._logged >= self.burst:
            self._suppressed += 1
            return
        self._logged += 1
        if self._suppressed:
            message += f" ({self._suppressed} similar line(s) left out)"
            self._suppressed = 0
        self.logger.log(level, message, *args, exc_info=exc_info)


def decode(kind: type[M], raw: bytes, limit: int) -> M:
    """``raw`` parsed as a ``kind`` of at most ``limit`` bytes; raises an INVALID_ARGUMENT
    refusal with a short message (never the parser's exception text) otherwise."""
    if len(raw) > limit:
        raise invalid(f"a {kind.DESCRIPTOR.full_name} of {len(raw)} bytes is over the limit of {limit} bytes")
    try:
        return kind.FromString(raw)
    except DecodeError:
        raise invalid(f"undecodable {kind.DESCRIPTOR.full_name} ({len(raw)} bytes): not a valid encoding, or a "
                      "string that is not UTF-8") from None


def bounded(what: str, value: str, limit: int, printable: bool = True) -> str:
    """``value`` if it has at most ``limit`` characters (and only printable ones)."""
    if len(value) > limit:
        raise invalid(f"{what} has {len(value)} characters, more than {limit}: {echo(value)!r}")
    if printable and not value.isprintable():
        raise invalid(f"{what} {echo(value)!r} has control characters")
    return value


def bounded_list(what: str, values: Sequence[str], limit: int, item_limit: int) -> None:
    """Check a list of short strings: at most ``limit`` of at most ``item_limit`` characters."""
    if len(values) > limit:
        raise invalid(f"{what} has {len(values)} entries, more than {limit}")
    for value in values:
        bounded(f"an entry of {what}", value, item_limit)


def parse_options(text: str) -> dict[str, Any]:
    """A ruleset's options JSON as a dict, refused unless it is small: its length, nesting
    and list lengths are bounded so that parsing it and building the ruleset from it cost
    about a millisecond whatever a client sends (an 800 KB options list used to take the
    rules engine seconds, and a deeply nested one overflows the parser's recursion)."""
    if not text:
        return {}
    if len(text) > bounds.MAX_OPTIONS_JSON_CHARS:
        raise invalid(f"bad ruleset: options_json has {len(text)} characters, more than "
                      f"{bounds.MAX_OPTIONS_JSON_CHARS}")
    try:
        options = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise invalid(f"bad ruleset: options_json is not JSON: {echo(str(exc))}") from None
    if not isinstance(options, dict):
        raise invalid("bad ruleset: options_json must be a JSON object")
    _check_options_shape(options, 1)
    return options


def _check_options_shape(value: object, depth: int) -> None:
    if depth > bounds.MAX_OPTIONS_DEPTH:
        raise invalid(f"bad ruleset: options_json nests deeper than {bounds.MAX_OPTIONS_DEPTH} levels")
    if isinstance(value, list | dict):
        if len(value) > bounds.MAX_OPTIONS_LIST_ITEMS:
            raise invalid(f"bad ruleset: a list or object in options_json has {len(value)} entries, more "
                          f"than {bounds.MAX_OPTIONS_LIST_ITEMS}")
        for item in value.values() if isinstance(value, dict) else value:
            _check_options_shape(item, depth + 1)


def build_ruleset(preset_name: str, options_json: str) -> Ruleset:
    """The ruleset a request names (CPU work: called off the event loop); also encoded once,
    so that a value the protocol cannot carry (a target of 10**30) is refused here rather
    than failing the match."""
    bounded("preset", preset_name, bounds.MAX_NAME_CHARS)
    options = parse_options(options_json)
    try:
        rules = preset(preset_name, options)
        wire.ruleset_to_pb(rules)
    except (ValueError, TypeError, OverflowError) as exc:  # RulesError is a ValueError
        raise invalid(f"bad ruleset: {echo(str(exc), 800)}") from None
    return rules


def check_time_control(time_control: bot_pb2.TimeControl | None, max_strikes: int | None) -> None:
    """Refuse time controls and fault policies past their bounds."""
    if time_control is not None and max(time_control.per_decision_ms, time_control.bank_ms) > bounds.MAX_TIME_MS:
        raise invalid(f"time_control: per_decision_ms and bank_ms must be at most {bounds.MAX_TIME_MS}")
    if max_strikes is not None and max_strikes > bounds.MAX_STRIKES:
        raise invalid(f"fault_policy.max_strikes must be at most {bounds.MAX_STRIKES}")


@dataclass
class Unrecorded:
    """A played match whose result the store has not taken yet (Redis was unreachable): kept
    here, retried in the background, and returned to a retry of the same match id once it is
    recorded, so that the result of a played match is never lost nor played again."""

    result: bot_pb2.MatchResult
    game_logs: list[str]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Arena:
    """The referee's shared state: store, connected bots, matches in progress."""

    def __init__(self, config: RefereeConfig, store: Store) -> None:
        self.config = config
        self.store = store
        self.registry = Registry()
        self.matches: dict[str, Match] = {}
        """Running matches."""
        self.finished: OrderedDict[str, Match] = OrderedDict()
        """The newest finished matches, oldest first (see :meth:`_keep_finished`)."""
        self._finished_at: dict[str, float] = {}
        """When each of :attr:`finished` ended (monotonic clock)."""
        self.tasks: dict[str, asyncio.Task[bot_pb2.MatchResult]] = {}
        self.unrecorded: dict[str, Unrecorded] = {}
        """Played matches not recorded yet, by match id (see :meth:`record`)."""
        self.recorders: set[asyncio.Task[None]] = set()
        self.client_faults = LogLimiter(log)
        """Undecodable requests, protocol violations: one client can cause any number of them."""
        self.internal_faults = LogLimiter(log)
        """Unexpected exceptions (logged with their traceback)."""
        self.accepting = True
        self.house = BotRecord("house", "house", "referee", "plays the first legal action", 0.0)

    async def bot_for_token(self, token: str | None) -> BotRecord | None:
        """The registered bot a token belongs to (Redis is asked off the event loop)."""
        if not token or len(token) > bounds.MAX_ID_CHARS:
            return None
        return await asyncio.to_thread(self.store.bot_for_token, token)

    async def seats_for(self, bot_ids: Sequence[str]) -> list[Presence]:
        """The connected presences of ``bot_ids``, in seat order."""
        bounded_list("seat_bot_ids", bot_ids, bounds.MAX_LIST_ITEMS, bounds.MAX_ID_CHARS)
        seats: list[Presence] = []
        for bot_id in bot_ids:
            presence = self.registry.get(bot_id)
            if presence is None or not presence.connected:
                known = await asyncio.to_thread(self.store.bot, bot_id)
                if known is None:
                    raise RequestRefused(grpc.StatusCode.NOT_FOUND, f"bot {echo(bot_id)!r} is not registered")
                raise RequestRefused(grpc.StatusCode.FAILED_PRECONDITION,
                                     f"bot {echo(known.name)!r} is not connected")
            seats.append(presence)
        return seats

    async def match_spec(self, match_id: str, preset_name: str, options_json: str, seats: Sequence[Presence],
                         seed: int, games: int, time_control: bot_pb2.TimeControl | None,
                         max_strikes: int | None) -> MatchSpec:
        """Validate a match request; raises :class:`RequestRefused` naming what is wrong.
        The ruleset is built off the event loop: it is the one CPU-heavy step."""
        config = self.config
        self._check_room()
        check_time_control(time_control, max_strikes)
        games = games or 1
        if games > MAX_GAMES:
            raise invalid(f"games must be at most {MAX_GAMES}")
        rules = await asyncio.to_thread(build_ruleset, preset_name, options_json)
        self._check_room()  # again: matches may have started while the ruleset was built
        if len(seats) != rules.players:
            raise invalid(f"{echo(preset_name)} needs {rules.players} seats, got {len(seats)}")
        for holder in {id(p): p for p in seats}.values():
            needed = sum(1 for p in seats if p is holder)
            if holder.seats_in_use + needed > holder.capacity:
                raise RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                     f"bot {echo(holder.bot.name)!r} plays {holder.seats_in_use} of its "
                                     f"{holder.capacity} seats already; this match needs {needed} more")
        return MatchSpec(
            match_id=match_id, ruleset=rules, seats=tuple(seats), seed=seed, games=games,
            per_decision_ms=time_control.per_decision_ms if time_control and time_control.per_decision_ms
            else config.per_decision_ms,
            bank_ms=time_control.bank_ms if time_control else config.bank_ms,
            max_strikes=config.max_strikes if max_strikes is None else max_strikes,
            reconnect_grace_s=config.reconnect_grace_s)

    def _check_room(self) -> None:
        if not self.accepting:
            raise RequestRefused(grpc.StatusCode.UNAVAILABLE, "the referee is shutting down")
        if len(self.tasks) >= self.config.max_matches:
            raise RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"the referee already runs {self.config.max_matches} matches")

    def start(self, spec: MatchSpec, record: bool) -> asyncio.Task[bot_pb2.MatchResult]:
        """Run a validated match in the background; ``record`` stores its result once (see
        :meth:`record`)."""
        match = Match(spec, practice=not record)
        for presence in spec.seats:
            presence.seats_in_use += 1

        async def run_and_record() -> bot_pb2.MatchResult:
            try:
                result = await match.run()
            finally:
                for presence in spec.seats:
                    presence.seats_in_use -= 1
            if record:
                await self.record(spec.match_id, result, match.game_logs)
            return result

        task = asyncio.create_task(run_and_record(), name=f"match-{spec.match_id}")
        self.matches[spec.match_id] = match
        self.tasks[spec.match_id] = task
        task.add_done_callback(lambda _: self._keep_finished(match))
        log.info("match %s started: %s, %d game(s), seats %s", spec.match_id, spec.ruleset.name,
                 spec.games, [p.bot.name for p in spec.seats])
        return task

    async def record(self, match_id: str, result: bot_pb2.MatchResult, game_logs: list[str]) -> None:
        """Store a played match once (an aborted one as evidence only); when the store cannot
        be reached the result stays in :attr:`unrecorded` and is retried in the background
        until it is stored (:meth:`flush` is the retry)."""
        self.unrecorded[match_id] = Unrecorded(result, game_logs)
        try:
            await self.flush(match_id)
        except redis.RedisError as exc:
            log.error("match %s was played but cannot be recorded yet (%s); retrying in the background",
                      match_id, store_unreachable(exc))
            recorder = asyncio.create_task(self._keep_recording(match_id), name=f"record-{match_id}")
            self.recorders.add(recorder)
            recorder.add_done_callback(self.recorders.discard)

    async def flush(self, match_id: str) -> None:
        """Record ``match_id`` if its result is waiting in :attr:`unrecorded` (one attempt);
        raises ``redis.RedisError`` while the store cannot be reached."""
        waiting = self.unrecorded.get(match_id)
        if waiting is None:
            return
        async with waiting.lock:  # the background retry and a caller's retry never write twice
            if self.unrecorded.get(match_id) is not waiting:
                return
            result = result_to_dict(waiting.result)
            write = self.store.record_match if waiting.result.completed else self.store.record_aborted
            await asyncio.to_thread(write, match_id, result, waiting.game_logs)
            del self.unrecorded[match_id]

    async def _keep_recording(self, match_id: str) -> None:
        delay = 0.1
        while match_id in self.unrecorded:
            await asyncio.sleep(delay)
            delay = min(2 * delay, RECORD_RETRY_MAX_S)
            try:
                await self.flush(match_id)
            except redis.RedisError:
                continue

    async def known_result(self, match_id: str) -> bot_pb2.MatchResult | None:
        """The result of a match id already played: recorded, or played and waiting to be
        recorded (then recorded now, or UNAVAILABLE), or just finished while Redis was asked."""
        if (result := await self._played_unrecorded(match_id)) is not None:
            return result
        recorded = await asyncio.to_thread(self.store.match_result, match_id)
        if recorded is not None:
            return result_from_dict(recorded)
        if (result := await self._played_unrecorded(match_id)) is not None:  # ended while we asked Redis
            return result
        finished = self.finished.get(match_id)
        if (finished is not None and finished.result is not None and finished.result.completed
                and match_id not in self.tasks and match_id not in self.unrecorded):
            return finished.result  # recorded while we asked Redis
        return None

    async def _played_unrecorded(self, match_id: str) -> bot_pb2.MatchResult | None:
        waiting = self.unrecorded.get(match_id)
        if waiting is None or not waiting.result.completed:
            return None
        await self.record_now(match_id)
        return waiting.result

    async def record_now(self, match_id: str) -> None:
        """:meth:`flush`, refused with UNAVAILABLE (and a message saying the result is safe)
        while the store cannot be reached."""
        try:
            await self.flush(match_id)
        except redis.RedisError as exc:
            raise RequestRefused(grpc.StatusCode.UNAVAILABLE,
                                 f"match {echo(match_id)!r} was played, but its result is not recorded yet: "
                                 f"{store_unreachable(exc)}; the referee keeps the result and retries; "
                                 "run the same match id again to get it") from None

    def match(self, match_id: str) -> Match | None:
        """A running match, or a recently finished one still kept in memory."""
        self._prune_finished()
        return self.matches.get(match_id) or self.finished.get(match_id)

    def _keep_finished(self, match: Match) -> None:
        """Move an ended match to :attr:`finished`: streamable for ``FINISHED_MATCH_TTL_S``,
        but only the newest ``finished_matches_kept`` are kept, since each holds its whole
        event log and at a high match rate ten minutes of them would grow memory (and every
        full garbage collection) without bound.  Afterwards only the store's record remains."""
        match_id = match.spec.match_id
        self.tasks.pop(match_id, None)
        if self.matches.get(match_id) is match:
            del self.matches[match_id]
        self.finished.pop(match_id, None)
        self.finished[match_id] = match
        self._finished_at[match_id] = time.monotonic()
        self._prune_finished()

    def _prune_finished(self) -> None:
        """Drop the oldest finished matches beyond ``finished_matches_kept`` or older than
        ``FINISHED_MATCH_TTL_S``.  Pruned here, on every finish and look-up, rather than by a
        timer per match: a timer holds its match (and its whole event log) for the full TTL,
        however many matches finish meanwhile, which grew the referee by about 0.03 MB a match
        at a high match rate (``bench/referee_memory.py``)."""
        now = time.monotonic()
        while self.finished:
            oldest = next(iter(self.finished))
            if (len(self.finished) <= self.config.finished_matches_kept
                    and now - self._finished_at[oldest] < FINISHED_MATCH_TTL_S):
                return
            del self.finished[oldest]
            del self._finished_at[oldest]

    async def start_practice(self, presence: Presence, request: bot_pb2.PracticeRequest) -> None:
        """Start a practice match for a connected bot against house bots (not recorded); a
        request that cannot be honoured is answered with a ``RequestError``."""
        try:
            if request.games > MAX_PRACTICE_GAMES:
                raise invalid(f"practice matches have at most {MAX_PRACTICE_GAMES} games")
            if not request.preset:
                raise invalid("a practice request needs a preset")
            players = (await asyncio.to_thread(build_ruleset, request.preset, "")).players
            if request.seat >= players:
                raise invalid(f"seat {request.seat} does not exist in {echo(request.preset)} ({players} seats)")
            seats: list[Presence] = [HousePresence(self.house) for _ in range(players)]
            seats[request.seat] = presence
            spec = await self.match_spec(f"practice-{uuid.uuid4().hex}", request.preset, request.options_json,
                                         seats, request.seed, request.games, None, None)
        except RequestRefused as refused:
            presence.send(bot_pb2.RefereeMessage(error=bot_pb2.RequestError(
                message=f"practice refused: {refused}")))
            return
        if presence.connected:
            self.start(spec, record=False)

    async def shutdown(self) -> None:
        """Stop taking matches; let running ones finish within the grace, then abort them;
        make a last attempt to record what is still unrecorded (and log what is lost)."""
        self.accepting = False
        running = [t for t in self.tasks.values() if not t.done()]
        if running:
            log.info("shutdown: waiting up to %.1fs for %d match(es)", self.config.shutdown_grace_s, len(running))
            _, late = await asyncio.wait(running, timeout=self.config.shutdown_grace_s)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late)
                log.warning("shutdown: aborted %d match(es)", len(late))
        for recorder in list(self.recorders):
            recorder.cancel()
        for match_id in list(self.unrecorded):
            try:
                await self.flush(match_id)
            except redis.RedisError as exc:
                log.error("shutdown: match %s is lost, the store cannot be reached (%s); its result: %s", match_id,
                          store_unreachable(exc), json.dumps(result_to_dict(self.unrecorded[match_id].result)))


class SessionEnd(Exception):
    """A bot broke the protocol: its stream ends with ``code`` and ``message``."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


class BotServicer(bot_pb2_grpc.BotServiceServicer):
    """``BotService``: one long-lived stream per bot process (messages arrive as bytes)."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    async def Connect(self, request_iterator: Any, context: Context) -> None:  # type: ignore[override]
        """Authenticate, read the hello, then pump decisions in and messages out; a stream
        the referee ends for a reason ends with a status that says it."""
        try:
            bot = await self.arena.bot_for_token(bearer_token(context))
        except redis.RedisError as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, store_unreachable(exc))
        if bot is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "missing or unknown bot token: send metadata 'authorization: Bearer <token>'")
        try:
            hello = await self._read_hello(context)
        except RequestRefused as refused:
            self.arena.client_faults.log(logging.WARNING, "bot %r: bad first message: %s", bot.name, refused)
            await context.abort(refused.code, str(refused))
        if hello is None:
            return
        presence, session = self.arena.registry.attach(bot, hello)
        log.info("bot %r connected (session %s, capacity %d)", bot.name, session.session_id, presence.capacity)
        await context.write(bot_pb2.RefereeMessage(welcome=bot_pb2.Welcome(
            protocol_version=PROTOCOL_VERSION, session_id=session.session_id, bot_id=bot.bot_id,
            reconnect_grace_seconds=int(self.arena.config.reconnect_grace_s))))
        reader = asyncio.create_task(self._read_answers(context, presence, session))
        reader.add_done_callback(lambda task: self._reader_ended(task, bot, session))
        try:
            while (message := await session.next_message()) is not None:
                await context.write(message)
        finally:
            reader.cancel()
            self.arena.registry.detach(presence, session)
            log.info("bot %r disconnected (session %s)", bot.name, session.session_id)
        if session.ending is not None:
            await context.abort(*session.ending)

    def _reader_ended(self, reader: asyncio.Task[None], bot: BotRecord, session: Session) -> None:
        """End the session when its reader ends: cleanly at the bot's end of stream, with the
        status of a protocol violation, or INTERNAL (traceback logged) on a fault of ours."""
        fault = None if reader.cancelled() else reader.exception()
        if isinstance(fault, SessionEnd):
            self.arena.client_faults.log(logging.WARNING, "bot %r (session %s) ended: %s", bot.name,
                                         session.session_id, fault)
            session.end(fault.code, str(fault))
        elif fault is not None:
            self.arena.internal_faults.log(logging.ERROR, "bot %r (session %s): internal error", bot.name,
                                           session.session_id, exc_info=fault)
            session.end(grpc.StatusCode.INTERNAL, f"internal error in the referee ({type(fault).__name__}); "
                                                  "reconnect to resume")
        session.close()

    async def _read_hello(self, context: Context) -> bot_pb2.Hello | None:
        """The first message, which must be a hello with a protocol version we speak; an
        undecodable one is refused with INVALID_ARGUMENT."""
        try:
            first = await asyncio.wait_for(context.read(), timeout=self.arena.config.hello_timeout_s)
        except TimeoutError:
            await self._refuse(context, bot_pb2.REFUSAL_REASON_BAD_HELLO, "no hello within the hello timeout")
            return None
        if first is grpc.aio.EOF:
            return None
        message = decode(bot_pb2.BotMessage, first, bounds.MAX_BOT_MESSAGE_BYTES)
        if not self.arena.accepting:
            await self._refuse(context, bot_pb2.REFUSAL_REASON_SHUTTING_DOWN, "the referee is shutting down")
            return None
        if message.WhichOneof("message") != "hello":
            await self._refuse(context, bot_pb2.REFUSAL_REASON_BAD_HELLO,
                               f"the first message must be a hello, got {message.WhichOneof('message')}")
            return None
        hello: bot_pb2.Hello = message.hello
        try:
            check_hello(hello)
        except RequestRefused as refused:
            await self._refuse(context, bot_pb2.REFUSAL_REASON_BAD_HELLO, f"bad hello: {refused}")
            return None
        if PROTOCOL_VERSION not in hello.protocol_versions:
            await self._refuse(context, bot_pb2.REFUSAL_REASON_PROTOCOL_VERSION,
                               f"no common protocol version: you speak {list(hello.protocol_versions)}, "
                               f"the referee speaks [{PROTOCOL_VERSION!r}]")
            return None
        return hello

    async def _refuse(self, context: Context, reason: int, message: str) -> None:
        await context.write(bot_pb2.RefereeMessage(refusal=bot_pb2.Refusal(
            reason=reason, message=message, supported_protocol_versions=[PROTOCOL_VERSION])))  # type: ignore[arg-type]

    async def _read_answers(self, context: Context, presence: Presence, session: Session) -> None:
        """Hand each answer to its pending decision (unknown ones are counted and ignored);
        raises :class:`SessionEnd` on a message that breaks the protocol."""
        while True:
            raw = await context.read()
            if raw is grpc.aio.EOF:
                return
            try:
                message = decode(bot_pb2.BotMessage, raw, bounds.MAX_BOT_MESSAGE_BYTES)
            except RequestRefused as refused:
                raise SessionEnd(refused.code, str(refused)) from None
            kind = message.WhichOneof("message")
            if kind == "decision":  # the hot path: no coroutine per answer
                presence.resolve(message.decision)
            elif kind != "batch":
                await self._handle(kind, message, presence, session)
            else:
                members = message.batch.messages
                if len(members) > bounds.MAX_BATCH_MESSAGES:
                    raise SessionEnd(grpc.StatusCode.INVALID_ARGUMENT,
                                     f"a batch of {len(members)} messages, more than {bounds.MAX_BATCH_MESSAGES}")
                for inner in members:
                    if (inner_kind := inner.WhichOneof("message")) == "decision":
                        presence.resolve(inner.decision)
                    else:
                        await self._handle(inner_kind, inner, presence, session)

    async def _handle(self, kind: str | None, message: bot_pb2.BotMessage, presence: Presence,
                      session: Session) -> None:
        """Act on a bot's message other than an answer; a hello after the welcome is answered
        with a ``RequestError`` and counted, a batch here is inside a batch: the stream ends."""
        if kind == "practice":
            await self.arena.start_practice(presence, message.practice)
        elif kind == "hello":
            presence.ignored_messages += 1
            presence.send(bot_pb2.RefereeMessage(error=bot_pb2.RequestError(
                message=f"a hello after the welcome is ignored: this stream is session {session.session_id}; "
                        "open a new stream to start a new session")))
        elif kind == "batch":
            raise SessionEnd(grpc.StatusCode.INVALID_ARGUMENT, "a batch inside a batch (batches do not nest)")
        else:
            presence.ignored_messages += 1


def check_hello(hello: bot_pb2.Hello) -> None:
    """Bound every string and list of a hello (they end up in listings and terminals)."""
    bounded("bot_name", hello.bot_name, bounds.MAX_NAME_CHARS)
    bounded("bot_version", hello.bot_version, bounds.MAX_NAME_CHARS)
    bounded("sdk", hello.sdk, bounds.MAX_SDK_CHARS)
    bounded_list("protocol_versions", hello.protocol_versions, bounds.MAX_LIST_ITEMS, bounds.MAX_NAME_CHARS)
    bounded_list("rulesets", hello.rulesets, bounds.MAX_LIST_ITEMS, bounds.MAX_NAME_CHARS)
    if hello.capacity > bounds.MAX_CAPACITY:
        raise invalid(f"capacity {hello.capacity} is more than {bounds.MAX_CAPACITY}")


def add_bot_service(servicer: BotServicer, server: grpc.aio.Server) -> None:
    """Register ``BotService`` like the generated ``add_BotServiceServicer_to_server``, but
    with messages in as bytes (parsed by the servicer, see the module docstring) and a
    serializer that also takes already encoded messages (a session queues bytes)."""
    handler: grpc.RpcMethodHandler[Any, Any] = grpc.stream_stream_rpc_method_handler(
        servicer.Connect, request_deserializer=None, response_serializer=_encoded)
    _register(server, "pitch.v1.BotService", {"Connect": handler})


def _register(server: grpc.aio.Server, service: str, handlers: dict[str, grpc.RpcMethodHandler[Any, Any]]) -> None:
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
    server.add_registered_method_handlers(service, handlers)


def _encoded(message: bot_pb2.RefereeMessage | bytes) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


class ArenaServicer(arena_pb2_grpc.ArenaServiceServicer):
    """``ArenaService``: admin calls.  The admin token, decoding and error mapping are
    :func:`add_arena_service`'s; the methods here see parsed, authorized requests."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    async def RegisterBot(self, request: arena_pb2.RegisterBotRequest,
                          context: Context) -> arena_pb2.RegisterBotResponse:
        """Register a bot and return its token once."""
        bounded("owner", request.owner, bounds.MAX_OWNER_CHARS)
        bounded("description", request.description, bounds.MAX_DESCRIPTION_CHARS, printable=False)
        try:
            record, token = await asyncio.to_thread(
                self.arena.store.register_bot, request.name, request.owner, request.description)
        except StoreError as exc:
            raise RequestRefused(grpc.StatusCode.ALREADY_EXISTS if str(exc).startswith("a bot named")
                                 else grpc.StatusCode.INVALID_ARGUMENT, str(exc)) from None
        return arena_pb2.RegisterBotResponse(bot_id=record.bot_id, token=token)

    async def ListBots(self, request: arena_pb2.ListBotsRequest,
                       context: Context) -> arena_pb2.ListBotsResponse:
        """Every registered bot and whether it is connected."""
        bots = []
        for record in await asyncio.to_thread(self.arena.store.bots):
            presence = self.arena.registry.get(record.bot_id)
            connected = presence is not None and presence.connected
            bots.append(arena_pb2.BotInfo(
                bot_id=record.bot_id, name=record.name, owner=record.owner, connected=connected,
                capacity=presence.capacity if connected and presence else 0,
                seats_in_use=presence.seats_in_use if presence else 0,
                bot_version=presence.session.hello.bot_version if connected and presence and presence.session else ""))
        return arena_pb2.ListBotsResponse(bots=bots)

    async def RunMatch(self, request: arena_pb2.RunMatchRequest,
                       context: Context) -> arena_pb2.RunMatchResponse:
        """Validate, run (or join) the match, record its result once, return it.  A match
        played while the store is unreachable is answered UNAVAILABLE, its result kept until
        it is recorded and then returned to a retry of the same match id."""
        arena = self.arena
        match_id = bounded("match_id", request.match_id, bounds.MAX_ID_CHARS) or uuid.uuid4().hex
        known = await arena.known_result(match_id)
        if known is not None:
            return arena_pb2.RunMatchResponse(result=known)
        task = arena.tasks.get(match_id)
        if task is None:
            seats = await arena.seats_for(request.seat_bot_ids)
            spec = await arena.match_spec(
                match_id, request.preset, request.options_json, seats, request.seed, request.games,
                request.time_control if request.HasField("time_control") else None,
                request.fault_policy.max_strikes if request.HasField("fault_policy") else None)
            task = arena.tasks.get(match_id) or arena.start(spec, record=True)  # joined while validating
        result = await asyncio.shield(task)
        await arena.record_now(match_id)
        return arena_pb2.RunMatchResponse(result=result)

    async def StreamMatchEvents(self, request: arena_pb2.StreamMatchEventsRequest,
                                context: Context
                                ) -> AsyncIterator[arena_pb2.StreamMatchEventsResponse]:
        """A running or finished match's public events, from the start."""
        match = self.arena.match(request.match_id)
        if match is None:
            raise RequestRefused(grpc.StatusCode.NOT_FOUND, f"no match {echo(request.match_id)!r} on this referee")
        async for item in match.events():
            yield item

    async def ListMatches(self, request: arena_pb2.ListMatchesRequest,
                          context: Context) -> arena_pb2.ListMatchesResponse:
        """The matches running now, oldest first: public facts only (ids, seats, progress)."""
        running = sorted(self.arena.matches.values(), key=lambda m: m.started_unix)
        return arena_pb2.ListMatchesResponse(matches=[arena_pb2.RunningMatch(
            match_id=m.spec.match_id, preset=m.spec.ruleset.name, seat_bot_ids=[p.bot.bot_id for p in m.spec.seats],
            seat_names=[p.bot.name for p in m.spec.seats], games=m.spec.games, game=m.game,
            started_unix=m.started_unix, practice=m.practice) for m in running])

    async def GetMatchLog(self, request: arena_pb2.GetMatchLogRequest,
                          context: Context) -> arena_pb2.GetMatchLogResponse:
        """A finished match's result and full game logs."""
        match_id = bounded("match_id", request.match_id, bounds.MAX_ID_CHARS)
        result = await asyncio.to_thread(self.arena.store.match_result, match_id)
        if result is None:
            raise RequestRefused(grpc.StatusCode.NOT_FOUND, f"no recorded match {echo(match_id)!r}")
        logs = await asyncio.to_thread(self.arena.store.match_logs, match_id)
        return arena_pb2.GetMatchLogResponse(result=result_from_dict(result), game_logs_json=logs)


#: ArenaService's methods: request type, response type, whether the response streams.
ADMIN_METHODS: dict[str, tuple[type[Message], type[Message], bool]] = {
    "RegisterBot": (arena_pb2.RegisterBotRequest, arena_pb2.RegisterBotResponse, False),
    "ListBots": (arena_pb2.ListBotsRequest, arena_pb2.ListBotsResponse, False),
    "RunMatch": (arena_pb2.RunMatchRequest, arena_pb2.RunMatchResponse, False),
    "StreamMatchEvents": (arena_pb2.StreamMatchEventsRequest, arena_pb2.StreamMatchEventsResponse, True),
    "GetMatchLog": (arena_pb2.GetMatchLogRequest, arena_pb2.GetMatchLogResponse, False),
    "ListMatches": (arena_pb2.ListMatchesRequest, arena_pb2.ListMatchesResponse, False),
}


def add_arena_service(servicer: ArenaServicer, server: grpc.aio.Server) -> None:
    """Register ``ArenaService`` with requests in as bytes: each call's admin token is
    checked before its request is parsed (see the module docstring), and every refusal,
    store outage or fault of ours gets its own status instead of grpc's UNKNOWN."""
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for name, (request_type, response_type, streams) in ADMIN_METHODS.items():
        method = getattr(servicer, name)
        if streams:
            handlers[name] = grpc.unary_stream_rpc_method_handler(
                _admin_stream(servicer.arena, name, request_type, method),
                request_deserializer=None, response_serializer=response_type.SerializeToString)
        else:
            handlers[name] = grpc.unary_unary_rpc_method_handler(
                _admin_unary(servicer.arena, name, request_type, method),
                request_deserializer=None, response_serializer=response_type.SerializeToString)
    _register(server, "pitch.v1.ArenaService", handlers)


async def _admitted(arena: Arena, name: str, request_type: type[Message], raw: bytes, context: Context) -> Message:
    """The request, once the call is authorized (before anything is parsed)."""
    if bearer_token(context) != arena.config.admin_token:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong admin token")
    try:
        return decode(request_type, raw, bounds.MAX_ADMIN_REQUEST_BYTES)
    except RequestRefused as refused:
        arena.client_faults.log(logging.WARNING, "ArenaService.%s: %s", name, refused)
        raise


async def _refuse_fault(arena: Arena, name: str, fault: Exception, context: Context) -> NoReturn:
    """Answer a refusal, an unreachable store or an unexpected fault with its own status."""
    if isinstance(fault, RequestRefused):
        await context.abort(fault.code, str(fault))
    if isinstance(fault, redis.RedisError):
        await context.abort(grpc.StatusCode.UNAVAILABLE, store_unreachable(fault))
    arena.internal_faults.log(logging.ERROR, "ArenaService.%s: internal error", name, exc_info=fault)
    await context.abort(grpc.StatusCode.INTERNAL, f"internal error in the referee ({type(fault).__name__})")


AdminUnary = Callable[[Any, Context], Awaitable[Message]]


def _admin_unary(arena: Arena, name: str, request_type: type[Message],
                 method: AdminUnary) -> Callable[[bytes, Context], Awaitable[Message]]:
    async def handle(raw: bytes, context: Context) -> Message:
        try:
            return await method(await _admitted(arena, name, request_type, raw, context), context)
        except grpc.aio.AbortError:
            raise
        except Exception as fault:  # every other exception is answered with its own status
            await _refuse_fault(arena, name, fault, context)

    return handle


def _admin_stream(arena: Arena, name: str, request_type: type[Message],
                  method: Callable[[Any, Context], AsyncIterator[Message]]
                  ) -> Callable[[bytes, Context], AsyncIterator[Message]]:
    async def handle(raw: bytes, context: Context) -> AsyncIterator[Message]:
        try:
            async for item in method(await _admitted(arena, name, request_type, raw, context), context):
                yield item
        except grpc.aio.AbortError:
            raise
        except Exception as fault:
            await _refuse_fault(arena, name, fault, context)

    return handle
