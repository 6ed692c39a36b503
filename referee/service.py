"""The gRPC servicers: they translate messages; the logic lives in the arena
(:mod:`referee.arena`), sessions and matches, and what a request may hold in
:mod:`referee.admission`.

``BotService.Connect`` authenticates the token from the call metadata before reading any
message, negotiates the protocol from the hello, then pumps messages both ways.
``ArenaService`` validates admin requests and runs matches.

Both services are registered with identity request deserializers (see
:func:`add_bot_service` and :func:`add_arena_service`): grpc would otherwise parse a
request before any of our code runs, answer an undecodable one with UNKNOWN and Python
exception text, and log a traceback for each, so that anyone, with no token, could flood
the log.  Here the token is checked first, the size of the request next, and only then is
it parsed; a request that does not parse gets INVALID_ARGUMENT with a short message and a
log line that is rate limited (:class:`referee.log_limit.LogLimiter`).  Every value a client sends is
bounded (``referee.config``'s ``MAX_*``) before it is used, and repeated in a reply or a
log line only through :func:`referee.config.echo`.

No fault of the referee's own answers UNKNOWN: the store being unreachable is UNAVAILABLE
(callers retry), any other fault INTERNAL, logged with its traceback (rate limited).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn

import grpc
import redis
from google.protobuf.message import Message

from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from referee import config as bounds
from referee.admission import (
    DISABLED,
    Context,
    RequestRefused,
    bearer_token,
    bounded,
    check_hello,
    decode,
    is_admin,
    store_unreachable,
)
from referee.arena import Arena
from referee.client_limits import bot_client, peer_client
from referee.config import echo
from referee.relay import close_relays
from referee.sessions import Presence, Session, TooManyVersions
from referee.version_check import VersionChecker, needs_check, rejection
from store.accounts import API_TOKEN_PREFIX, Unauthorized
from store.rate_limits import CHANGES_PER_ACCOUNT, RateLimited, RateLimiter
from store.redis_store import BOT_VERSIONS, RATED_IDS, BotRecord, StoreError
from store.results import result_from_dict
from store.seat_keys import seat_key
from store.versions import Arrival, CheckState, VersionLimitError

log = logging.getLogger("pitch.referee")
PROTOCOL_VERSION = "pitch.v1"


class SessionEnd(Exception):
    """A bot broke the protocol: its stream ends with ``code`` and ``message``."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


class BotServicer(bot_pb2_grpc.BotServiceServicer):
    """``BotService``: one long-lived stream per bot process (messages arrive as bytes)."""

    def __init__(self, arena: Arena, checker: VersionChecker) -> None:
        self.arena = arena
        self.checker = checker

    def _arrive(self, bot: BotRecord, version: str) -> Arrival:
        """Note a hello's version in the store: a new version of an author's bot is
        allocated with a pending check (:mod:`referee.version_check`)."""
        return self.arena.versions.connected(bot.bot_id, version, check=needs_check(self.arena, bot, version))

    async def Connect(self, request_iterator: Any, context: Context) -> None:  # type: ignore[override]
        """Authenticate, read the hello, then pump decisions in and messages out; a stream
        the referee ends for a reason ends with a status that says it."""
        arena = self.arena
        try:
            bot = await arena.bot_for_token(bearer_token(context))
        except redis.RedisError as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, store_unreachable(exc))
        if bot is None:
            await self._abort(context, peer_client(context.peer()), grpc.StatusCode.UNAUTHENTICATED,
                              "missing or unknown bot token: send metadata 'authorization: Bearer <token>'")
        client = bot_client(bot.bot_id)
        if not arena.limits.connects.allow(client):  # before any other work for the stream
            await self._abort(context, client, grpc.StatusCode.RESOURCE_EXHAUSTED,
                              f"too many streams opened: {arena.limits.connects.describe()}; reconnect later")
        try:
            playable = await asyncio.to_thread(arena.accounts.playable, [bot.bot_id])
        except redis.RedisError as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, store_unreachable(exc))
        if not playable[bot.bot_id]:
            await self._abort(context, client, grpc.StatusCode.PERMISSION_DENIED, DISABLED)
        try:
            hello = await self._read_hello(context, client)
        except RequestRefused as refused:
            arena.client_faults.log(logging.WARNING, "bot %r: bad first message: %s", bot.name, refused, client=client)
            await context.abort(refused.code, str(refused))
        if hello is None:
            return
        try:  # rated apart from the bot's other versions; its current one if it is its newest
            arrival = await asyncio.to_thread(self._arrive, bot, hello.bot_version)
        except redis.RedisError as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, store_unreachable(exc))
        except VersionLimitError as exc:
            await self._abort(context, client, grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        if arrival.check == CheckState.FAILED:
            found = await asyncio.to_thread(self.checker.checks.get, bot.bot_id, hello.bot_version)
            await self._refuse(context, client, bot_pb2.REFUSAL_REASON_VERSION_REJECTED,
                               rejection(hello.bot_version, found.summary if found else "failed"))
            return
        previous = arena.registry.get(seat_key(bot.bot_id, hello.bot_version))
        replaced = previous.session if previous is not None and previous.connected else None
        try:
            presence, session = arena.registry.attach(bot, hello)
        except TooManyVersions as exc:
            await self._abort(context, client, grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        presence.checking = arrival.check == CheckState.PENDING
        presence.rated_id = arrival.rated_id
        if arrival.current is not None:
            arena.registry.current[bot.bot_id] = arrival.current
        others = [p.version for p in arena.registry.versions(bot.bot_id) if p.connected and p is not presence]
        arena.client_events.log(logging.INFO, "bot %r connected (session %s, version %s, capacity %d%s%s)",
                                bot.name, session.session_id, echo(hello.bot_version), presence.capacity,
                                f"; ends its previous stream, session {replaced.session_id}" if replaced else "",
                                f"; beside its versions {', '.join(map(echo, others))}" if others else "",
                                client=client)
        fleet = arena.fleet
        if fleet is not None and not presence.checking:  # a version being checked is listed once it passed
            fleet.bot_connected(presence)
        await context.write(bot_pb2.RefereeMessage(welcome=bot_pb2.Welcome(
            protocol_version=PROTOCOL_VERSION, session_id=session.session_id, bot_id=bot.bot_id,
            reconnect_grace_seconds=int(arena.config.reconnect_grace_s),
            fleet=fleet.addresses if fleet else [], referee_address=fleet.address if fleet else "",
            practice_matches_at_once=min(arena.limits.practice.per_bot, arena.limits.practice.total),
            practice_requests_per_minute=arena.limits.practice_requests.per_minute, other_versions=others,
            checking=presence.checking)))
        if presence.checking:
            self.checker.start(presence)
        reader = asyncio.create_task(self._read_answers(context, presence, session))
        reader.add_done_callback(lambda task: self._reader_ended(task, bot, session))
        try:
            while (message := await session.next_message()) is not None:
                await context.write(message)
        finally:
            reader.cancel()
            arena.registry.detach(presence, session)
            if fleet is not None and not presence.connected:
                fleet.bot_disconnected(presence)
            arena.client_events.log(logging.INFO, "bot %r disconnected (session %s)", bot.name, session.session_id,
                                    client=client)
        if session.ending is not None:
            await context.abort(*session.ending)

    async def _abort(self, context: Context, client: str, code: grpc.StatusCode, message: str) -> NoReturn:
        """End a stream before its welcome with ``code`` and ``message``; logged once per client a minute."""
        self.arena.refusals.log(logging.WARNING, "%s: Connect refused (%s): %s", client, code.name, message,
                                client=client)
        await context.abort(code, message)

    def _reader_ended(self, reader: asyncio.Task[None], bot: BotRecord, session: Session) -> None:
        """End the session when its reader ends: cleanly at the bot's end of stream, with the
        status of a protocol violation, or INTERNAL (traceback logged) on a fault of ours."""
        fault = None if reader.cancelled() else reader.exception()
        if isinstance(fault, SessionEnd):
            self.arena.client_faults.log(logging.WARNING, "bot %r (session %s) ended: %s", bot.name,
                                         session.session_id, fault, client=bot_client(bot.bot_id))
            session.end(fault.code, str(fault))
        elif fault is not None:
            self.arena.internal_faults.log(logging.ERROR, "bot %r (session %s): internal error", bot.name,
                                           session.session_id, exc_info=fault, client=bot_client(bot.bot_id))
            session.end(grpc.StatusCode.INTERNAL, f"internal error in the referee ({type(fault).__name__}); "
                                                  "reconnect to resume")
        session.close()

    async def _read_hello(self, context: Context, client: str) -> bot_pb2.Hello | None:
        """The first message, which must be a hello with a protocol version we speak; an
        undecodable one is refused with INVALID_ARGUMENT."""
        try:
            first = await asyncio.wait_for(context.read(), timeout=self.arena.config.hello_timeout_s)
        except TimeoutError:
            await self._refuse(context, client, bot_pb2.REFUSAL_REASON_BAD_HELLO, "no hello within the hello timeout")
            return None
        if first is grpc.aio.EOF:
            return None
        message = decode(bot_pb2.BotMessage, first, bounds.MAX_BOT_MESSAGE_BYTES)
        if not self.arena.accepting:
            await self._refuse(context, client, bot_pb2.REFUSAL_REASON_SHUTTING_DOWN, "the referee is shutting down")
            return None
        if message.WhichOneof("message") != "hello":
            await self._refuse(context, client, bot_pb2.REFUSAL_REASON_BAD_HELLO,
                               f"the first message must be a hello, got {message.WhichOneof('message')}")
            return None
        hello: bot_pb2.Hello = message.hello
        try:
            check_hello(hello)
        except RequestRefused as refused:
            await self._refuse(context, client, bot_pb2.REFUSAL_REASON_BAD_HELLO, f"bad hello: {refused}")
            return None
        if PROTOCOL_VERSION not in hello.protocol_versions:
            await self._refuse(context, client, bot_pb2.REFUSAL_REASON_PROTOCOL_VERSION,
                               f"no common protocol version: you speak {list(hello.protocol_versions)}, "
                               f"the referee speaks [{PROTOCOL_VERSION!r}]")
            return None
        return hello

    async def _refuse(self, context: Context, client: str, reason: int, message: str) -> None:
        self.arena.refusals.log(logging.WARNING, "%s: hello refused: %s", client, message, client=client)
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


def add_bot_service(servicer: BotServicer, server: grpc.aio.Server) -> None:
    """Register ``BotService`` like the generated ``add_BotServiceServicer_to_server``, but
    with messages in as bytes (parsed by the servicer, see the module docstring) and a
    serializer that also takes already encoded messages (a session queues bytes)."""
    handler: grpc.RpcMethodHandler[Any, Any] = grpc.stream_stream_rpc_method_handler(
        servicer.Connect, request_deserializer=None, response_serializer=encoded)
    register_handlers(server, "pitch.v1.BotService", {"Connect": handler})


def register_handlers(server: grpc.aio.Server, service: str,
                      handlers: dict[str, grpc.RpcMethodHandler[Any, Any]]) -> None:
    """Register a service's handlers (generic and registered, as generated code does)."""
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
    server.add_registered_method_handlers(service, handlers)


def encoded(message: Message | bytes) -> bytes:
    """A response serializer that passes already encoded messages through."""
    return message if isinstance(message, bytes) else message.SerializeToString()


class ArenaServicer(arena_pb2_grpc.ArenaServiceServicer):
    """``ArenaService``: admin calls.  The admin token, decoding and error mapping are
    :func:`add_arena_service`'s; the methods here see parsed, authorized requests."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    async def RegisterBot(self, request: arena_pb2.RegisterBotRequest,
                          context: Context) -> arena_pb2.RegisterBotResponse:
        """Register a bot and return its token once.  With the admin token the bot's owner is
        the request's; with an author's personal API token the bot belongs to that account
        (the request's owner is ignored), within the account's limits."""
        bounded("owner", request.owner, bounds.MAX_OWNER_CHARS)
        bounded("description", request.description, bounds.MAX_DESCRIPTION_CHARS, printable=False)
        try:
            if is_admin(context, self.arena.config.admin_token):
                record, token = await asyncio.to_thread(
                    self.arena.store.register_bot, request.name, request.owner, request.description)
            else:
                record, token = await asyncio.to_thread(self._register_owned, bearer_token(context) or "", request)
        except Unauthorized as exc:
            raise RequestRefused(grpc.StatusCode.UNAUTHENTICATED, str(exc)) from None
        except RateLimited as exc:
            raise RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc)) from None
        except StoreError as exc:
            raise RequestRefused(grpc.StatusCode.ALREADY_EXISTS if str(exc).startswith("a bot named")
                                 else grpc.StatusCode.INVALID_ARGUMENT, str(exc)) from None
        return arena_pb2.RegisterBotResponse(bot_id=record.bot_id, token=token)

    def _register_owned(self, token: str, request: arena_pb2.RegisterBotRequest) -> tuple[BotRecord, str]:
        """A bot for the account whose API token this is (a change counted against its limit)."""
        account = self.arena.accounts.for_token(token)
        RateLimiter(self.arena.store).hit(CHANGES_PER_ACCOUNT, account.key)
        return self.arena.accounts.create_bot(account, request.name, request.description)

    async def ListBots(self, request: arena_pb2.ListBotsRequest,
                       context: Context) -> arena_pb2.ListBotsResponse:
        """Every registered bot and whether it is connected."""
        bots = []
        records = await asyncio.to_thread(self.arena.store.bots)
        current = await asyncio.to_thread(self.arena.versions.current_of, [r.bot_id for r in records])
        for record in records:  # every connected version of a bot counts: each plays its own seats
            versions = self.arena.registry.versions(record.bot_id)
            live = [p for p in versions if p.playable]  # a version being checked plays nothing yet
            newest = self.arena.registry.get(record.bot_id)
            bots.append(arena_pb2.BotInfo(
                bot_id=record.bot_id, name=record.name, owner=record.owner, connected=bool(live),
                capacity=sum(p.capacity for p in live), seats_in_use=sum(p.seats_in_use for p in versions),
                bot_version=newest.version if live and newest else "",
                rated_id=current.get(record.bot_id, "")))
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
            return await self._response(match_id, known)
        async with arena.gates.gate(match_id) as waited:  # one call of this referee at a time from claim to start
            task = arena.tasks.get(match_id)
            if task is None:
                started = await self._claim_and_start(request, match_id, waited)
                if isinstance(started, bot_pb2.MatchResult):  # played meanwhile, here or by another referee
                    return await self._response(match_id, started)
                task = started
        result = await asyncio.shield(task)
        if not result.completed:  # aborted at shutdown: kept apart, never the match's result
            raise RequestRefused(grpc.StatusCode.UNAVAILABLE,
                                 f"match {echo(match_id)!r} was aborted: the referee is shutting down; run the "
                                 "same match id again on another referee of the arena")
        await arena.record_now(match_id)
        return await self._response(match_id, result)

    async def _claim_and_start(self, request: arena_pb2.RunMatchRequest, match_id: str, waited: bool
                               ) -> asyncio.Task[bot_pb2.MatchResult] | bot_pb2.MatchResult:
        """Claim, validate and start a match that no call of this referee runs, or return its
        result if it was played meanwhile (``waited``: the call that held the match id's gate
        before this one may have played it).  The caller holds the match id's gate (see
        :class:`referee.arena.MatchGates`), so when validation fails no other call of this
        referee needs the claim, and it is released: another referee may run the match."""
        arena = self.arena
        if waited and (known := await arena.known_result(match_id)) is not None:
            return known
        seats: list[Presence] = []
        try:
            if (known := await arena.claim(match_id)) is not None:  # another referee played it meanwhile
                return known
            seats = await arena.seats_for(request.seat_bot_ids, match_id)
            spec = await arena.match_spec(
                match_id, request.preset, request.options_json, seats, request.seed, request.games,
                request.time_control if request.HasField("time_control") else None,
                request.fault_policy.max_strikes if request.HasField("fault_policy") else None)
        except BaseException:
            close_relays(seats)
            if match_id not in arena.tasks and arena.fleet is not None:  # refused: free the match id
                await arena.fleet.release(match_id)
            raise
        return arena.start(spec, record=True)

    async def _response(self, match_id: str, result: bot_pb2.MatchResult) -> arena_pb2.RunMatchResponse:
        """A recorded match's response, with the versions that played it (from its record)."""
        stored = await asyncio.to_thread(self.arena.store.match_result, match_id) or {}
        return arena_pb2.RunMatchResponse(result=result, seat_bot_versions=stored.get(BOT_VERSIONS, []),
                                          seat_rated_ids=stored.get(RATED_IDS, []))

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
    register_handlers(server, "pitch.v1.ArenaService", handlers)


def _account_token(context: Context) -> bool:
    """Whether the call carries an author's personal API token (RegisterBot takes one; the
    servicer checks it)."""
    return (bearer_token(context) or "").startswith(API_TOKEN_PREFIX)


async def _admitted(arena: Arena, name: str, request_type: type[Message], raw: bytes, context: Context) -> Message:
    """The request, once the call is authorized (before anything is parsed)."""
    if not is_admin(context, arena.config.admin_token) and not (name == "RegisterBot" and _account_token(context)):
        raise RequestRefused(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong admin token")
    try:
        return decode(request_type, raw, bounds.MAX_ADMIN_REQUEST_BYTES)
    except RequestRefused as refused:
        arena.client_faults.log(logging.WARNING, "ArenaService.%s: %s", name, refused,
                                client=peer_client(context.peer()))
        raise


async def _refuse_fault(arena: Arena, name: str, fault: Exception, context: Context) -> NoReturn:
    """Answer a refusal, an unreachable store or an unexpected fault with its own status; a
    refusal is logged once per client a minute (then how many followed)."""
    if isinstance(fault, RequestRefused):
        client = peer_client(context.peer())
        arena.refusals.log(logging.WARNING, "%s: ArenaService.%s refused (%s): %s", client, name, fault.code.name,
                           fault, client=client)
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
