"""The referee's shared state: the store, the connected bots, the running and recently
finished matches, and the played matches whose result the store has not taken yet.

The servicers (:mod:`referee.service`) translate messages and call this; the matches
themselves run in :mod:`referee.match`, the bots' sessions live in :mod:`referee.sessions`."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

import grpc
import redis

from pitch_sdk.proto.pitch.v1 import bot_pb2
from referee import config as bounds
from referee.admission import (
    RequestRefused,
    bounded_list,
    build_ruleset,
    check_time_control,
    invalid,
    store_unreachable,
)
from referee.client_limits import ClientLimits, bot_client
from referee.config import RefereeConfig, echo
from referee.drain import drained
from referee.fleet import FleetMember
from referee.log_limit import LogLimiter
from referee.match import Match, MatchSpec
from referee.relay import Relays, close_relays
from referee.sessions import HousePresence, Presence, Registry
from store.accounts import Accounts
from store.redis_store import BotRecord, Store
from store.results import result_from_dict, result_to_dict
from store.seat_keys import bot_of_seat, version_of_seat
from store.versions import BotVersions

log = logging.getLogger("pitch.referee")

MAX_GAMES = 1000

MAX_PRACTICE_GAMES = 10

FINISHED_MATCH_TTL_S = 600.0

RECORD_RETRY_MAX_S = 10.0
"""Longest pause between two attempts to record a played match while the store is down."""

SHUTDOWN_RECORD_RETRY_S = 0.25
"""How often a stopping referee tries again to record a played match while the store is
down: its grace is short, so it retries far more often than the background recorder."""

CLAIM_POLL_S = 0.25
"""How often a RunMatch whose match another referee runs looks again (see :meth:`Arena.claim`)."""


@dataclass
class Unrecorded:
    """A played match whose result the store has not taken yet (Redis was unreachable): kept
    here, retried in the background, and returned to a retry of the same match id once it is
    recorded, so that the result of a played match is never lost nor played again."""

    result: bot_pb2.MatchResult
    game_logs: list[str]
    seat_versions: tuple[str | None, ...] = ()
    """The seats' bot versions (see :attr:`referee.match.MatchSpec.seat_versions`)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class MatchGates:
    """One lock per match id that some ``RunMatch`` of this referee is claiming, validating
    or starting, so that the calls for one match id take those steps one at a time.

    Workers deliver a ``RunMatch`` more than once (a retry, a resend after a lost task, a
    message restored after a Redis restart), and two calls for one match id may reach a
    referee at once.  The fleet-wide claim cannot tell them apart (both are this referee's),
    so without the gate both validated at once: the second one's relay was refused (the
    first one's held the bot), its failure released the claim the first one still needed,
    and another referee took it and ran the same match (the chaos benchmark's
    ``chaos3-cutthroat.3``).  Through the gate, the later call finds the first one's match
    running and joins it, or finds the claim released by the first one's failure and claims
    it anew.  A lock is dropped once no call holds or waits for it."""

    def __init__(self) -> None:
        self._gates: dict[str, tuple[asyncio.Lock, list[int]]] = {}
        """Per match id: its lock and how many calls hold or wait for it (a one-item list)."""

    @asynccontextmanager
    async def gate(self, match_id: str) -> AsyncIterator[bool]:
        """Hold ``match_id``'s lock for the block; yields whether another call held it first
        (then the match may have started, or even ended, meanwhile)."""
        lock, users = self._gates.setdefault(match_id, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            waited = users[0] > 1  # another call holds the lock or is queued before this one
            async with lock:
                yield waited
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self._gates[match_id]

    def __len__(self) -> int:
        """How many match ids have a gate now (for tests: none is kept once unused)."""
        return len(self._gates)


class Arena:
    """The referee's shared state: store, connected bots, matches in progress."""

    def __init__(self, config: RefereeConfig, store: Store) -> None:
        self.config = config
        self.store = store
        self.registry = Registry()
        self.versions = BotVersions(store, config.max_bot_versions)
        self.accounts = Accounts(store)
        """Authors' accounts: which bots the operator disabled, and bots registered with an API token."""
        self.matches: dict[str, Match] = {}
        """Running matches."""
        self.finished: OrderedDict[str, Match] = OrderedDict()
        """The newest finished matches, oldest first (see :meth:`_keep_finished`)."""
        self._finished_at: dict[str, float] = {}
        """When each of :attr:`finished` ended (monotonic clock)."""
        self.tasks: dict[str, asyncio.Task[bot_pb2.MatchResult]] = {}
        self.gates = MatchGates()
        """Serializes the ``RunMatch`` calls of one match id from its claim to its start."""
        self.unrecorded: dict[str, Unrecorded] = {}
        """Played matches not recorded yet, by match id (see :meth:`record`)."""
        self.recorders: set[asyncio.Task[None]] = set()
        self.limits = ClientLimits.from_config(config)
        """What one client may ask: actions a minute per token, practice matches at once."""
        self.client_faults = LogLimiter(log)
        """Undecodable requests, protocol violations: one client can cause any number of them."""
        self.client_events = LogLimiter(log)
        """A bot's streams opening and ending: one token can open any number of them."""
        self.refusals = LogLimiter(log, burst=1, what="refusal(s)")
        """Refused requests: the first of a client's each minute, then how many followed."""
        self.internal_faults = LogLimiter(log)
        """Unexpected exceptions (logged with their traceback)."""
        self.accepting = True
        self.house = BotRecord("house", "house", "referee", "plays the first legal action", 0.0)
        self.fleet: FleetMember | None = None
        """This referee's entry in the fleet directory (set by the server once it listens)."""
        self.relays: Relays | None = None
        """Seats relayed from the fleet's other referees (set by the server with the fleet)."""

    async def bot_for_token(self, token: str | None) -> BotRecord | None:
        """The registered bot a token belongs to (Redis is asked off the event loop)."""
        if not token or len(token) > bounds.MAX_ID_CHARS:
            return None
        return await asyncio.to_thread(self.store.bot_for_token, token)

    async def seats_for(self, bot_ids: Sequence[str], match_id: str) -> list[Presence]:
        """The presences of ``bot_ids``, in seat order (each a bot id, its newest connected
        version, or ``{bot id}@{version}``, that version: :mod:`store.seat_keys`): a bot
        connected here plays here; one connected only to another referee of the fleet is
        relayed from there (see :mod:`referee.relay`; close them with
        :func:`referee.relay.close_relays` if the match does not start)."""
        bounded_list("seat_bot_ids", bot_ids, bounds.MAX_LIST_ITEMS, bounds.MAX_ID_CHARS)
        here: dict[str, Presence] = {}
        away: dict[str, list[int]] = {}
        for seat, named in enumerate(bot_ids):
            presence = self.registry.get(named)
            if presence is not None and presence.checking and presence.connected:
                raise RequestRefused(grpc.StatusCode.FAILED_PRECONDITION,
                                     f"bot {echo(presence.label)!r} is a new version the arena is checking: it plays "
                                     "once it passed (its other versions, if connected, may be named instead)")
            if presence is None or not presence.connected:
                away.setdefault(named, []).append(seat)
            else:
                here[named] = presence
        relayed: dict[str, Presence] = {}
        try:
            for named, seats in away.items():
                known = await asyncio.to_thread(self.store.bot, bot_of_seat(named))
                if known is None:
                    raise RequestRefused(grpc.StatusCode.NOT_FOUND, f"bot {echo(named)!r} is not registered")
                version = version_of_seat(named)
                label = echo(known.name if version is None else f"{known.name}@{version}")
                if self.relays is None:
                    raise RequestRefused(grpc.StatusCode.FAILED_PRECONDITION, f"bot {label!r} is not connected")
                relayed[named] = await self.relays.seat(known, match_id, seats, named)
        except BaseException:
            close_relays(relayed.values())
            raise
        return [here.get(named) or relayed[named] for named in bot_ids]

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
                                     f"bot {echo(holder.label)!r} plays {holder.seats_in_use} of its "
                                     f"{holder.capacity} seats already; this match needs {needed} more")
        if self.fleet is not None:  # last: a match refused after this would hold seats it never plays
            await self.fleet.seats.take(match_id, seats)
            try:
                self._check_room()  # again: matches may have started while Redis answered
            except RequestRefused:
                if match_id not in self.tasks:  # else the seats are the running match's
                    await self.fleet.seats.release(match_id)
                raise
        return MatchSpec(
            match_id=match_id, ruleset=rules, seats=tuple(seats), seed=seed, games=games,
            per_decision_ms=time_control.per_decision_ms if time_control and time_control.per_decision_ms
            else config.per_decision_ms,
            bank_ms=time_control.bank_ms if time_control else config.bank_ms,
            max_strikes=config.max_strikes if max_strikes is None else max_strikes,
            reconnect_grace_s=config.reconnect_grace_s,
            seat_versions=tuple(p.session.hello.bot_version if p.session is not None else None for p in seats))

    def _check_room(self) -> None:
        if not self.accepting:
            raise RequestRefused(grpc.StatusCode.UNAVAILABLE, "the referee is shutting down")
        if len(self.tasks) >= self.config.max_matches:
            raise RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"the referee already runs {self.config.max_matches} matches")

    def start(self, spec: MatchSpec, record: bool,
              ended: Callable[[], None] = lambda: None) -> asyncio.Task[bot_pb2.MatchResult]:
        """Run a validated match in the background; ``record`` stores its result once (see
        :meth:`record`).  ``ended`` is called as soon as the match ends, before the bots
        can have read its end (a practice slot is free by the time a bot asks again)."""
        match = Match(spec, practice=not record)
        for presence in spec.seats:
            presence.seats_in_use += 1

        async def run_and_record() -> bot_pb2.MatchResult:
            try:
                try:
                    result = await match.run()
                finally:
                    ended()
                    for presence in spec.seats:
                        presence.seats_in_use -= 1
                    close_relays(spec.seats)
                    if self.fleet is not None:
                        await self.fleet.seats.release(spec.match_id)
                if record:
                    await self.record(spec.match_id, result, match.game_logs, spec.seat_versions)
                return result
            finally:  # recorded (or aborted): another referee may run the match id now
                if record and self.fleet is not None:
                    await self.fleet.release(spec.match_id)

        task = asyncio.create_task(run_and_record(), name=f"match-{spec.match_id}")
        self.matches[spec.match_id] = match
        self.tasks[spec.match_id] = task
        if self.fleet is not None:
            self.fleet.running_changed()
        task.add_done_callback(lambda _: self._keep_finished(match))
        log.info("match %s started: %s, %d game(s), seats %s", spec.match_id, spec.ruleset.name,
                 spec.games, [p.bot.name for p in spec.seats])
        return task

    async def record(self, match_id: str, result: bot_pb2.MatchResult, game_logs: list[str],
                     seat_versions: tuple[str | None, ...] = ()) -> None:
        """Store a played match once (an aborted one as evidence only); when the store cannot
        be reached the result stays in :attr:`unrecorded` and is retried in the background
        until it is stored (:meth:`flush` is the retry)."""
        self.unrecorded[match_id] = Unrecorded(result, game_logs, seat_versions)
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
            await asyncio.to_thread(self._write, match_id, waiting)
            del self.unrecorded[match_id]

    def _write(self, match_id: str, waiting: Unrecorded) -> None:
        """Store a played match (or an aborted one as evidence) with the versions that
        played it, each resolved to its rated id (see :mod:`store.versions`)."""
        result = result_to_dict(waiting.result)
        if waiting.seat_versions:
            result.update(self.versions.stamp(
                [(seat.bot_id, version) for seat, version in zip(waiting.result.seats, waiting.seat_versions,
                                                                 strict=True)]))
        write = self.store.record_match if waiting.result.completed else self.store.record_aborted
        write(match_id, result, waiting.game_logs)

    async def _keep_recording(self, match_id: str) -> None:
        delay = 0.1
        while match_id in self.unrecorded:
            await asyncio.sleep(delay)
            delay = min(2 * delay, RECORD_RETRY_MAX_S)
            try:
                await self.flush(match_id)
            except redis.RedisError:
                continue

    async def claim(self, match_id: str) -> bot_pb2.MatchResult | None:
        """Claim ``match_id`` fleet-wide before running it, so that it runs on one referee at a
        time: while another referee holds the claim (it runs the match), wait; when that
        referee recorded the match meanwhile, its result (``None``: the claim is ours).  A
        SIGKILLed holder's claim expires with its heartbeat TTL, and the match is played
        here again from its seed (the store keeps the first record of a match id)."""
        fleet = self.fleet
        if fleet is None:
            return None
        while not await fleet.claim(match_id):
            await asyncio.sleep(CLAIM_POLL_S)
            if (known := await self.known_result(match_id)) is not None:
                return known
            self._check_room()
        try:
            known = await self.known_result(match_id)
        except BaseException:  # e.g. Redis unreachable: a claim nobody uses would be renewed for ever
            await fleet.release(match_id)
            raise
        if known is not None:  # recorded just before its claim lapsed
            await fleet.release(match_id)
            return known
        return None

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
        if self.fleet is not None:
            self.fleet.running_changed()

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
        request that cannot be honoured is answered with a ``RequestError``.  The bot's
        request rate is checked before any work, and its practice slot (see
        :class:`referee.client_limits.PracticeSlots`) taken before the request is validated."""
        bot_id = presence.bot.bot_id
        slots = self.limits.practice
        try:
            self.limits.practice_requests.check(bot_id)
            if request.games > MAX_PRACTICE_GAMES:
                raise invalid(f"practice matches have at most {MAX_PRACTICE_GAMES} games")
            if not request.preset:
                raise invalid("a practice request needs a preset")
            slots.take(bot_id)
            try:
                players = (await asyncio.to_thread(build_ruleset, request.preset, "")).players
                if request.seat >= players:
                    raise invalid(f"seat {request.seat} does not exist in {echo(request.preset)} ({players} seats)")
                seats: list[Presence] = [HousePresence(self.house) for _ in range(players)]
                seats[request.seat] = presence
                spec = await self.match_spec(f"practice-{uuid.uuid4().hex}", request.preset, request.options_json,
                                             seats, request.seed, request.games, None, None)
            except BaseException:
                slots.give_back(bot_id)
                raise
        except RequestRefused as refused:
            self.refusals.log(logging.WARNING, "bot %r: practice request refused: %s", presence.bot.name, refused,
                              client=bot_client(bot_id))
            presence.send(bot_pb2.RefereeMessage(error=bot_pb2.RequestError(
                message=f"practice refused: {refused}")))
            return
        if presence.connected:
            self.start(spec, record=False, ended=lambda: slots.give_back(bot_id))
        else:
            slots.give_back(bot_id)
            if self.fleet is not None:
                await self.fleet.seats.release(spec.match_id)

    async def shutdown(self, deadline: float | None = None, relayed: Callable[[], int] = lambda: 0) -> None:
        """Stop taking matches; let running ones, and the seats this referee relays for other
        referees' matches (``relayed`` counts them), finish by ``deadline`` (the event
        loop's clock; default: the shutdown grace from now), then abort the matches left;
        keep trying to record the played matches the store did not take until the same
        deadline (a Redis restart during a stop loses no result), and log what is lost."""
        self.accepting = False
        loop = asyncio.get_running_loop()
        if deadline is None:
            deadline = loop.time() + self.config.shutdown_grace_s
        running = [t for t in self.tasks.values() if not t.done()]
        if running or relayed():
            log.info("shutdown: waiting up to %.1fs for %d match(es) and %d relayed seat(s) of other referees' "
                     "matches", max(0.0, deadline - loop.time()), len(running), relayed())
            await drained(lambda: sum(not t.done() for t in running) + relayed(), deadline)
            late = [t for t in running if not t.done()]
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late)
                log.warning("shutdown: aborted %d match(es)", len(late))
        for recorder in list(self.recorders):
            recorder.cancel()
        await self._record_by(deadline)
        for match_id in list(self.unrecorded):
            try:
                await self.flush(match_id)
            except redis.RedisError as exc:
                log.error("shutdown: match %s is lost, the store cannot be reached (%s); its result: %s", match_id,
                          store_unreachable(exc), json.dumps(result_to_dict(self.unrecorded[match_id].result)))

    async def _record_by(self, deadline: float) -> None:
        """Retry every unrecorded result until the store takes it or ``deadline`` passes."""
        loop = asyncio.get_running_loop()
        if self.unrecorded:
            log.info("shutdown: waiting up to %.1fs for the store to take %d played match(es)",
                     max(0.0, deadline - loop.time()), len(self.unrecorded))
        while self.unrecorded and loop.time() < deadline:
            for match_id in list(self.unrecorded):
                with suppress(redis.RedisError):
                    await self.flush(match_id)
            if self.unrecorded:
                await asyncio.sleep(max(0.0, min(SHUTDOWN_RECORD_RETRY_S, deadline - loop.time())))
