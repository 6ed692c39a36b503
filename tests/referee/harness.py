"""An in-process arena for tests: a private Redis, a real referee on a loopback port,
and helpers to register bots and connect them with the SDK's BotClient."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import grpc

from pitch_sdk.bot import Bot
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from pitch_sdk.remote.client import BotClient
from referee.arena import Arena as RefereeArena
from referee.config import RefereeConfig
from referee.server import RefereeServer
from store.fleet import FleetDirectory
from store.redis_store import Store
from store.seat_keys import seat_key
from store.tls import Tls, aio_channel

ADMIN = (("authorization", "Bearer test-admin"),)


@dataclass
class Arena:
    """A running referee and the clients a test connected to it."""

    server: RefereeServer
    address: str
    admin: arena_pb2_grpc.ArenaServiceStub
    channel: grpc.aio.Channel
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def register(self, name: str | None = None) -> arena_pb2.RegisterBotResponse:
        """Register a bot with a unique name."""
        return await self.admin.RegisterBot(arena_pb2.RegisterBotRequest(name=name or uuid.uuid4().hex[:8]),
                                            metadata=ADMIN)

    async def connect(self, factory: Callable[[], Bot], capacity: int = 4, **options: object) -> tuple[str, BotClient]:
        """Register and connect a bot; returns its id and client once the referee welcomed it."""
        registered = await self.register()
        client = BotClient(factory, self.address, registered.token, capacity=capacity, **options)  # type: ignore[arg-type]
        self.tasks.append(asyncio.create_task(client.run(self.stop)))
        await asyncio.wait_for(client.connected.wait(), timeout=10)
        return registered.bot_id, client

    async def run_match(self, preset: str, seats: list[str], **fields: object) -> arena_pb2.RunMatchResponse:
        """Run a match through the admin API."""
        return await self.admin.RunMatch(arena_pb2.RunMatchRequest(preset=preset, seat_bot_ids=seats, **fields),
                                         metadata=ADMIN)


@asynccontextmanager
async def running_arena(redis_url: str, prefix: str | None = None, **config: object) -> AsyncIterator[Arena]:
    """Start a referee (its own key prefix in the shared test Redis, unless ``prefix`` makes
    it one of a fleet) and stop it afterwards."""
    settings = {"address": "127.0.0.1:0", "admin_token": "test-admin", "relay_token": "test-relay",
                "per_decision_ms": 1000, "bank_ms": 2000, "reconnect_grace_s": 2.0, **config}
    store = Store.from_url(redis_url, prefix=prefix or f"test-{uuid.uuid4().hex[:8]}:")
    server = RefereeServer(RefereeConfig(**settings), store)  # type: ignore[arg-type]
    await server.start()
    address = f"127.0.0.1:{server.port}"
    channel = aio_channel(address, Tls(ca=str(settings.get("tls_ca", ""))) if settings.get("tls_cert") else Tls())
    arena = Arena(server, address, arena_pb2_grpc.ArenaServiceStub(channel), channel)
    try:
        yield arena
    finally:
        arena.stop.set()
        if arena.tasks:
            await asyncio.wait(arena.tasks, timeout=10)
        await channel.close()
        await server.stop()
        if prefix is None:  # a fleet's shared keys outlive each of its referees
            for key in store.client.scan_iter(f"{store.prefix}*"):
                store.client.delete(key)




class RawBot:
    """A hand-written client on the generated stubs, for tests that bend the protocol.

    ``handle(bot, message)`` sees every referee message; it may answer with
    :meth:`send`, end the stream with :meth:`close`, or return ``False`` to stop reading."""

    def __init__(self, arena: Arena, token: str, hello: bot_pb2.Hello,
                 handle: Callable[[RawBot, bot_pb2.RefereeMessage], bool | None]) -> None:
        self.outbox: asyncio.Queue[bot_pb2.BotMessage | None] = asyncio.Queue()
        self.outbox.put_nowait(bot_pb2.BotMessage(hello=hello))
        self.kinds: set[str] = set()
        self.welcomed = asyncio.Event()
        self.call = bot_pb2_grpc.BotServiceStub(arena.channel).Connect(
            self._requests(), metadata=(("authorization", f"Bearer {token}"),))
        self.task = asyncio.create_task(self._read(handle))

    async def _requests(self) -> AsyncIterator[bot_pb2.BotMessage]:
        while (message := await self.outbox.get()) is not None:
            yield message

    async def _read(self, handle: Callable[[RawBot, bot_pb2.RefereeMessage], bool | None]) -> None:
        try:
            async for message in self.call:
                self.kinds.add(message.WhichOneof("message") or "")
                if message.HasField("welcome"):
                    self.welcomed.set()
                if handle(self, message) is False:
                    return
        except grpc.aio.AioRpcError as error:
            # a write that loses the race with the referee's end of the call fails in the client's own
            # core (INTERNAL); the status the referee ended the call with is the answer under test
            code = await self.call.code()
            if error.code() != grpc.StatusCode.INTERNAL or code == grpc.StatusCode.INTERNAL:
                raise
            raise grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(),
                                       details=await self.call.details()) from error

    def send(self, message: bot_pb2.BotMessage) -> None:
        """Queue a message to the referee."""
        self.outbox.put_nowait(message)

    def close(self) -> None:
        """Half-close the stream (the referee then ends it)."""
        self.outbox.put_nowait(None)

    async def started(self) -> RawBot:
        """Wait for the welcome."""
        await asyncio.wait_for(self.welcomed.wait(), 10)
        return self


def answer_first(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
    """A RawBot handler that answers legal action 0 and leaves when its match ends."""
    if message.HasField("decision_request"):
        request = message.decision_request
        bot.send(bot_pb2.BotMessage(decision=bot_pb2.Decision(
            match_id=request.match_id, decision_id=request.decision_id, legal_action_index=0)))
    if message.HasField("match_ended"):
        bot.close()
    return None


FAST = {"fleet_ttl_s": 1.5}
"""Referee settings for fleet tests: a short directory TTL, so heartbeats come quickly."""


def run(coroutine: object) -> object:
    """Run a test coroutine on a fresh event loop."""
    return asyncio.run(coroutine)  # type: ignore[arg-type]


def sdk_seat(bot_id: str) -> str:
    """The seat key of an SDK bot's stream (its class says no version: the SDK sends "0"),
    under which the fleet's directory and seat ledger know it."""
    return seat_key(bot_id, "0")


def directory(redis_url: str, prefix: str, ttl_s: float = 1.5) -> FleetDirectory:
    """The fleet directory of the referees on ``prefix``, as a worker reads it."""
    return FleetDirectory(Store.from_url(redis_url, prefix), ttl_s)


async def eventually(condition: object, timeout: float = 10.0) -> None:
    """Wait until ``condition()`` holds (the directory is written off the event loop)."""
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition never held"
        await asyncio.sleep(0.05)


def played_here(arena: RefereeArena, match_id: str) -> bool:
    """Whether ``arena`` ran ``match_id`` itself (it keeps the matches it ran)."""
    return match_id in arena.finished or match_id in arena.matches


async def connect_everywhere(arenas: list[Arena], token: str, factory: Callable[[], Bot],
                             capacity: int) -> None:
    """One stream of the bot ``token`` to each referee (what a fleet bot keeps), until
    each welcomed it."""
    clients = []
    for arena in arenas:
        client = BotClient(factory, arena.address, token, capacity=capacity)
        arena.tasks.append(asyncio.create_task(client.run(arena.stop)))
        clients.append(client)
    for client in clients:
        await asyncio.wait_for(client.connected.wait(), 10)
