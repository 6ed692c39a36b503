"""The gRPC servicers: they translate messages; the logic lives in sessions and matches.

``BotService.Connect`` authenticates the token from the call metadata before reading any
message, negotiates the protocol from the hello, then pumps messages both ways.
``ArenaService`` validates admin requests and runs matches.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc

from pitch_sdk.batching import unbatched
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from pitch_sdk.rules import RulesError, preset
from referee.config import RefereeConfig
from referee.match import Match, MatchSpec, result_from_dict, result_to_dict
from referee.sessions import HousePresence, Presence, Registry
from workers.storage.store import BotRecord, Store, StoreError

log = logging.getLogger("pitch.referee")
Context = grpc.aio.ServicerContext[Any, Any]
PROTOCOL_VERSION = "pitch.v1"
MAX_GAMES = 1000
MAX_PRACTICE_GAMES = 10
FINISHED_MATCH_TTL_S = 600.0


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
        self.tasks: dict[str, asyncio.Task[bot_pb2.MatchResult]] = {}
        self.accepting = True
        self.house = BotRecord("house", "house", "referee", "plays the first legal action", 0.0)

    async def bot_for_token(self, token: str | None) -> BotRecord | None:
        """The registered bot a token belongs to (Redis is asked off the event loop)."""
        if not token:
            return None
        return await asyncio.to_thread(self.store.bot_for_token, token)

    async def seats_for(self, bot_ids: Sequence[str]) -> list[Presence]:
        """The connected presences of ``bot_ids``, in seat order."""
        seats: list[Presence] = []
        for bot_id in bot_ids:
            presence = self.registry.get(bot_id)
            if presence is None or not presence.connected:
                known = await asyncio.to_thread(self.store.bot, bot_id)
                if known is None:
                    raise RequestRefused(grpc.StatusCode.NOT_FOUND, f"bot {bot_id!r} is not registered")
                raise RequestRefused(grpc.StatusCode.FAILED_PRECONDITION, f"bot {known.name!r} is not connected")
            seats.append(presence)
        return seats

    def match_spec(self, match_id: str, preset_name: str, options_json: str, seats: Sequence[Presence],
                   seed: int, games: int, time_control: bot_pb2.TimeControl | None,
                   max_strikes: int | None) -> MatchSpec:
        """Validate a match request; raises :class:`RequestRefused` naming what is wrong."""
        config = self.config
        if not self.accepting:
            raise RequestRefused(grpc.StatusCode.UNAVAILABLE, "the referee is shutting down")
        if len(self.tasks) >= config.max_matches:
            raise RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"the referee already runs {config.max_matches} matches")
        try:
            options = json.loads(options_json) if options_json else {}
            if not isinstance(options, dict):
                raise RulesError("options_json must be a JSON object")
            rules = preset(preset_name, options)
        except (RulesError, json.JSONDecodeError) as exc:
            raise RequestRefused(grpc.StatusCode.INVALID_ARGUMENT, f"bad ruleset: {exc}") from None
        if len(seats) != rules.players:
            raise RequestRefused(grpc.StatusCode.INVALID_ARGUMENT,
                                 f"{preset_name} needs {rules.players} seats, got {len(seats)}")
        games = games or 1
        if games > MAX_GAMES:
            raise RequestRefused(grpc.StatusCode.INVALID_ARGUMENT, f"games must be at most {MAX_GAMES}")
        for holder in {id(p): p for p in seats}.values():
            needed = sum(1 for p in seats if p is holder)
            if holder.seats_in_use + needed > holder.capacity:
                raise RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                     f"bot {holder.bot.name!r} plays {holder.seats_in_use} of its "
                                     f"{holder.capacity} seats already; this match needs {needed} more")
        return MatchSpec(
            match_id=match_id, ruleset=rules, seats=tuple(seats), seed=seed, games=games,
            per_decision_ms=time_control.per_decision_ms if time_control and time_control.per_decision_ms
            else config.per_decision_ms,
            bank_ms=time_control.bank_ms if time_control else config.bank_ms,
            max_strikes=config.max_strikes if max_strikes is None else max_strikes,
            reconnect_grace_s=config.reconnect_grace_s)

    def start(self, spec: MatchSpec, record: bool) -> asyncio.Task[bot_pb2.MatchResult]:
        """Run a validated match in the background; ``record`` stores its result once."""
        match = Match(spec, practice=not record)
        for presence in spec.seats:
            presence.seats_in_use += 1

        async def run_and_record() -> bot_pb2.MatchResult:
            try:
                result = await match.run()
            finally:
                for presence in spec.seats:
                    presence.seats_in_use -= 1
            if record and result.completed:
                await asyncio.to_thread(self.store.record_match, spec.match_id, result_to_dict(result),
                                        match.game_logs)
            elif record:  # aborted: kept as evidence, and the same match id may be played again
                await asyncio.to_thread(self.store.record_aborted, spec.match_id, result_to_dict(result),
                                        match.game_logs)
            return result

        task = asyncio.create_task(run_and_record(), name=f"match-{spec.match_id}")
        self.matches[spec.match_id] = match
        self.tasks[spec.match_id] = task
        task.add_done_callback(lambda _: self._keep_finished(match))
        log.info("match %s started: %s, %d game(s), seats %s", spec.match_id, spec.ruleset.name,
                 spec.games, [p.bot.name for p in spec.seats])
        return task

    def match(self, match_id: str) -> Match | None:
        """A running match, or a recently finished one still kept in memory."""
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
        while len(self.finished) > self.config.finished_matches_kept:
            self.finished.popitem(last=False)
        asyncio.get_running_loop().call_later(FINISHED_MATCH_TTL_S, self._forget, match)

    def _forget(self, match: Match) -> None:
        if self.finished.get(match.spec.match_id) is match:
            del self.finished[match.spec.match_id]

    def start_practice(self, presence: Presence, request: bot_pb2.PracticeRequest) -> None:
        """Start a practice match for a connected bot against house bots (not recorded)."""
        try:
            if request.games > MAX_PRACTICE_GAMES:
                raise RequestRefused(grpc.StatusCode.INVALID_ARGUMENT,
                                     f"practice matches have at most {MAX_PRACTICE_GAMES} games")
            players = preset(request.preset).players if request.preset else 0
            if not request.preset:
                raise RequestRefused(grpc.StatusCode.INVALID_ARGUMENT, "a practice request needs a preset")
            if request.seat >= players:
                raise RequestRefused(grpc.StatusCode.INVALID_ARGUMENT,
                                     f"seat {request.seat} does not exist in {request.preset} ({players} seats)")
            seats: list[Presence] = [HousePresence(self.house) for _ in range(players)]
            seats[request.seat] = presence
            spec = self.match_spec(f"practice-{uuid.uuid4().hex}", request.preset, request.options_json, seats,
                                   request.seed, request.games, None, None)
        except RulesError as exc:
            presence.send(bot_pb2.RefereeMessage(error=bot_pb2.RequestError(message=f"bad practice request: {exc}")))
            return
        except RequestRefused as refused:
            presence.send(bot_pb2.RefereeMessage(error=bot_pb2.RequestError(
                message=f"practice refused: {refused}")))
            return
        self.start(spec, record=False)

    async def shutdown(self) -> None:
        """Stop taking matches; let running ones finish within the grace, then abort them."""
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


class BotServicer(bot_pb2_grpc.BotServiceServicer):
    """``BotService``: one long-lived stream per bot process."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    async def Connect(self, request_iterator: Any, context: Context) -> None:  # type: ignore[override]
        """Authenticate, read the hello, then pump decisions in and messages out."""
        bot = await self.arena.bot_for_token(bearer_token(context))
        if bot is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "missing or unknown bot token: send metadata 'authorization: Bearer <token>'")
            return
        hello = await self._read_hello(context)
        if hello is None:
            return
        presence, session = self.arena.registry.attach(bot, hello)
        log.info("bot %s connected (session %s, capacity %d)", bot.name, session.session_id, presence.capacity)
        await context.write(bot_pb2.RefereeMessage(welcome=bot_pb2.Welcome(
            protocol_version=PROTOCOL_VERSION, session_id=session.session_id, bot_id=bot.bot_id,
            reconnect_grace_seconds=int(self.arena.config.reconnect_grace_s))))
        reader = asyncio.create_task(self._read_answers(context, presence))
        reader.add_done_callback(lambda _: session.close())
        try:
            while (message := await session.next_message()) is not None:
                await context.write(message)
        finally:
            reader.cancel()
            self.arena.registry.detach(presence, session)
            log.info("bot %s disconnected (session %s)", bot.name, session.session_id)

    async def _read_hello(self, context: Context) -> bot_pb2.Hello | None:
        """The first message, which must be a hello with a protocol version we speak."""
        try:
            first = await asyncio.wait_for(context.read(), timeout=self.arena.config.hello_timeout_s)
        except TimeoutError:
            await self._refuse(context, bot_pb2.REFUSAL_REASON_BAD_HELLO, "no hello within the hello timeout")
            return None
        if first is grpc.aio.EOF:
            return None
        if not self.arena.accepting:
            await self._refuse(context, bot_pb2.REFUSAL_REASON_SHUTTING_DOWN, "the referee is shutting down")
            return None
        if first.WhichOneof("message") != "hello":
            await self._refuse(context, bot_pb2.REFUSAL_REASON_BAD_HELLO,
                               f"the first message must be a hello, got {first.WhichOneof('message')}")
            return None
        hello: bot_pb2.Hello = first.hello
        if PROTOCOL_VERSION not in hello.protocol_versions:
            await self._refuse(context, bot_pb2.REFUSAL_REASON_PROTOCOL_VERSION,
                               f"no common protocol version: you speak {list(hello.protocol_versions)}, "
                               f"the referee speaks [{PROTOCOL_VERSION!r}]")
            return None
        return hello

    async def _refuse(self, context: Context, reason: int, message: str) -> None:
        await context.write(bot_pb2.RefereeMessage(refusal=bot_pb2.Refusal(
            reason=reason, message=message, supported_protocol_versions=[PROTOCOL_VERSION])))  # type: ignore[arg-type]

    async def _read_answers(self, context: Context, presence: Presence) -> None:
        """Hand each answer to its pending decision; unknown ones are counted and ignored."""
        while True:
            message = await context.read()
            if message is grpc.aio.EOF:
                return
            for inner in unbatched(message):
                self._handle(inner, presence)

    def _handle(self, message: bot_pb2.BotMessage, presence: Presence) -> None:
        """Act on one message of a bot (a hello or a batch here is out of place: counted)."""
        kind = message.WhichOneof("message")
        if kind == "decision":
            presence.resolve(message.decision)
        elif kind == "practice":
            self.arena.start_practice(presence, message.practice)
        else:
            presence.ignored_answers += 1


def add_bot_service(servicer: BotServicer, server: grpc.aio.Server) -> None:
    """Register ``BotService`` like the generated ``add_BotServiceServicer_to_server``, but
    with a serializer that also takes already encoded messages (a session queues bytes)."""
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.Connect, request_deserializer=bot_pb2.BotMessage.FromString, response_serializer=_encoded)
    handlers = {"Connect": handler}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("pitch.v1.BotService", handlers),))
    server.add_registered_method_handlers("pitch.v1.BotService", handlers)


def _encoded(message: bot_pb2.RefereeMessage | bytes) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


class ArenaServicer(arena_pb2_grpc.ArenaServiceServicer):
    """``ArenaService``: admin calls, each checked against the admin token."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    async def _admin(self, context: Context) -> None:
        if bearer_token(context) != self.arena.config.admin_token:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong admin token")

    async def RegisterBot(self, request: arena_pb2.RegisterBotRequest,
                          context: Context) -> arena_pb2.RegisterBotResponse:
        """Register a bot and return its token once."""
        await self._admin(context)
        try:
            record, token = await asyncio.to_thread(
                self.arena.store.register_bot, request.name, request.owner, request.description)
        except StoreError as exc:
            await context.abort(grpc.StatusCode.ALREADY_EXISTS if "already" in str(exc)
                                else grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        return arena_pb2.RegisterBotResponse(bot_id=record.bot_id, token=token)

    async def ListBots(self, request: arena_pb2.ListBotsRequest,
                       context: Context) -> arena_pb2.ListBotsResponse:
        """Every registered bot and whether it is connected."""
        await self._admin(context)
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
        """Validate, run (or join) the match, record its result once, return it."""
        await self._admin(context)
        arena = self.arena
        match_id = request.match_id or uuid.uuid4().hex
        recorded = await asyncio.to_thread(arena.store.match_result, match_id)
        if recorded is not None:
            return arena_pb2.RunMatchResponse(result=result_from_dict(recorded))
        finished = arena.finished.get(match_id)
        if (finished is not None and finished.result is not None and finished.result.completed
                and match_id not in arena.tasks):
            return arena_pb2.RunMatchResponse(result=finished.result)  # ended while we asked Redis
        task = arena.tasks.get(match_id)
        if task is None:
            try:
                seats = await arena.seats_for(request.seat_bot_ids)
                spec = arena.match_spec(match_id, request.preset, request.options_json, seats, request.seed,
                                        request.games, request.time_control if request.HasField("time_control")
                                        else None,
                                        request.fault_policy.max_strikes if request.HasField("fault_policy") else None)
            except RequestRefused as refused:
                await context.abort(refused.code, str(refused))
            task = arena.start(spec, record=True)
        return arena_pb2.RunMatchResponse(result=await asyncio.shield(task))

    async def StreamMatchEvents(self, request: arena_pb2.StreamMatchEventsRequest,
                                context: Context
                                ) -> AsyncIterator[arena_pb2.StreamMatchEventsResponse]:
        """A running or finished match's public events, from the start."""
        await self._admin(context)
        match = self.arena.match(request.match_id)
        if match is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r} on this referee")
        async for item in match.events():
            yield item

    async def ListMatches(self, request: arena_pb2.ListMatchesRequest,
                          context: Context) -> arena_pb2.ListMatchesResponse:
        """The matches running now, oldest first: public facts only (ids, seats, progress)."""
        await self._admin(context)
        running = sorted(self.arena.matches.values(), key=lambda m: m.started_unix)
        return arena_pb2.ListMatchesResponse(matches=[arena_pb2.RunningMatch(
            match_id=m.spec.match_id, preset=m.spec.ruleset.name, seat_bot_ids=[p.bot.bot_id for p in m.spec.seats],
            seat_names=[p.bot.name for p in m.spec.seats], games=m.spec.games, game=m.game,
            started_unix=m.started_unix, practice=m.practice) for m in running])

    async def GetMatchLog(self, request: arena_pb2.GetMatchLogRequest,
                          context: Context) -> arena_pb2.GetMatchLogResponse:
        """A finished match's result and full game logs."""
        await self._admin(context)
        result = await asyncio.to_thread(self.arena.store.match_result, request.match_id)
        if result is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no recorded match {request.match_id!r}")
        logs = await asyncio.to_thread(self.arena.store.match_logs, request.match_id)
        return arena_pb2.GetMatchLogResponse(result=result_from_dict(result), game_logs_json=logs)
