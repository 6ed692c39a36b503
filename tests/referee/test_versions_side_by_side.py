"""Two versions of one bot connected at once: each plays the seats that name it.

An author's new version is tested against the old one (an SPRT), so both must be connected
with the bot's one token, each a player of its own: a seat ``{bot id}@{version}`` is that
version, a seat naming the bot alone its current version (pinned, else its newest).  Before, the second stream
replaced the first (ABORTED, and the SDK reconnected: the two flipped), and a versioned
seat was "not registered".  Real referees over loopback gRPC, real SDK clients, a real
Redis."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable

import grpc
import pytest

from pitch_sdk.bot import Bot
from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2
from pitch_sdk.remote.client import BotClient
from referee.sessions import MAX_VERSIONS_CONNECTED
from store.seat_keys import seat_key
from store.seats import SeatLedger
from tests.referee.bots import FirstLegalBot, GatedBot
from tests.referee.harness import ADMIN, FAST, Arena, RawBot, directory, eventually, run, running_arena


def versioned(factory: Callable[[], Bot], version: str) -> Callable[[], Bot]:
    """``factory``'s bot saying ``version`` in its hello (the SDK sends a bot's ``version``)."""
    def make() -> Bot:
        bot = factory()
        bot.version = version  # type: ignore[attr-defined]
        return bot
    return make


async def connect(arena: Arena, token: str, factory: Callable[[], Bot], version: str,
                  capacity: int = 4) -> BotClient:
    """One stream of the bot ``token`` at ``version``, welcomed."""
    client = BotClient(versioned(factory, version), arena.address, token, capacity=capacity)
    arena.tasks.append(asyncio.create_task(client.run(arena.stop)))
    await asyncio.wait_for(client.connected.wait(), 10)
    return client


def test_two_versions_stay_connected_and_each_plays_the_seats_that_name_it(redis_url: str) -> None:
    """Version 1 and then version 2 of one bot connect with its token: neither stream is
    replaced, the second's welcome names the first, and a partnership match of version 2
    against version 1 seats each where the match says (its result's versions by seat); a
    seat naming the bot alone goes to the newest connection, and ListBots counts both."""
    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            bot_id, token = registered.bot_id, registered.token
            first = await connect(arena, token, FirstLegalBot, "1")
            second = await connect(arena, token, FirstLegalBot, "2")
            await asyncio.sleep(1.0)  # a replaced stream would have ended and reconnected by now
            registry = arena.server.arena.registry
            assert [(p.version, p.connected) for p in registry.versions(bot_id)] == [("1", True), ("2", True)]
            assert first.connected.is_set() and second.connected.is_set()
            head_to_head = await arena.run_match(
                "partnership", [seat_key(bot_id, "2"), seat_key(bot_id, "1")] * 2, seed=3,
                options_json='{"target": 3}')
            assert head_to_head.result.completed
            assert list(head_to_head.seat_bot_versions) == ["2", "1", "2", "1"]
            assert len(set(head_to_head.seat_rated_ids)) == 2  # rated apart, though one bot
            plain = await arena.run_match("cutthroat", [bot_id] * 3, seed=4, options_json='{"target": 3}')
            assert plain.result.completed and list(plain.seat_bot_versions) == ["2"] * 3
            listed = {bot.bot_id: bot for bot in (await arena.admin.ListBots(arena_pb2.ListBotsRequest(),
                                                                              metadata=ADMIN)).bots}
            assert listed[bot_id].connected and listed[bot_id].capacity == 8 and listed[bot_id].bot_version == "2"

    run(scenario())


def test_a_seat_naming_the_bot_alone_goes_to_the_version_its_owner_pinned(redis_url: str) -> None:
    """"the bot's current version is the newest one that was not rejected (or the one its
    owner pins)": with versions 1 and 2 connected, the bot alone plays as 2, the newest;
    pinned to 1 (while both stay connected), it plays as 1 from the next heartbeat on, and
    as 2 again once unpinned."""
    async def scenario() -> None:
        async with running_arena(redis_url, fleet_ttl_s=0.6) as arena:
            registered = await arena.register()
            bot_id, token = registered.bot_id, registered.token
            for version in ("1", "2"):
                await connect(arena, token, FirstLegalBot, version)
            versions = arena.server.arena.versions

            async def plays_as() -> list[str]:
                played = await arena.run_match("cutthroat", [bot_id] * 3, seed=4, options_json='{"target": 3}')
                return list(played.seat_bot_versions)

            assert await plays_as() == ["2"] * 3
            await asyncio.to_thread(versions.pin, bot_id, "1")
            await asyncio.sleep(0.5)  # a heartbeat (every 0.2 s) reads the bots' current versions
            assert await plays_as() == ["1"] * 3
            await asyncio.to_thread(versions.pin, bot_id, None)
            await asyncio.sleep(0.5)
            assert await plays_as() == ["2"] * 3

    run(scenario())


def test_the_second_version_is_told_the_first_is_connected(redis_url: str) -> None:
    """The welcome's ``other_versions`` tells a stream which other versions of its bot play
    beside it (a second process with the bot's token is not silently a replacement)."""
    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            welcomes: list[bot_pb2.Welcome] = []

            def keep_welcome(bot: RawBot, message: bot_pb2.RefereeMessage) -> None:
                if message.HasField("welcome"):
                    welcomes.append(message.welcome)

            for version in ("old", "new"):
                hello = bot_pb2.Hello(protocol_versions=["pitch.v1"], bot_version=version, capacity=1)
                await RawBot(arena, registered.token, hello, keep_welcome).started()
            assert [list(w.other_versions) for w in welcomes] == [[], ["old"]]

    run(scenario())


def test_versions_connected_at_once_are_bounded(redis_url: str) -> None:
    """A token cycling version strings cannot open presences without bound: past
    :data:`MAX_VERSIONS_CONNECTED` versions connected at once, a new one is refused with
    RESOURCE_EXHAUSTED saying why, and the connected ones play on."""
    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            bots = []
            for number in range(MAX_VERSIONS_CONNECTED):
                hello = bot_pb2.Hello(protocol_versions=["pitch.v1"], bot_version=f"v{number}", capacity=1)
                bots.append(await RawBot(arena, registered.token, hello, lambda bot, message: None).started())
            hello = bot_pb2.Hello(protocol_versions=["pitch.v1"], bot_version="one-too-many", capacity=1)
            extra = RawBot(arena, registered.token, hello, lambda bot, message: None)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await asyncio.wait_for(extra.task, 10)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "the most at once" in (refused.value.details() or "")
            registry = arena.server.arena.registry
            assert sum(p.connected for p in registry.versions(registered.bot_id)) == MAX_VERSIONS_CONNECTED

    run(scenario())


def test_a_version_connected_to_another_referee_is_relayed_and_holds_its_own_seats(redis_url: str) -> None:
    """Version 1 on one referee, version 2 on another: a match on the first seating version
    2 relays it from the second; each version's seats are in its own ledger (each process
    declared its own capacity), and every seat is given back."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"
    ledger = SeatLedger(directory(redis_url, prefix))
    gate = threading.Event()

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, **FAST) as first, \
                running_arena(redis_url, prefix, **FAST) as second:
            registered = await first.register()
            bot_id, token = registered.bot_id, registered.token
            await connect(first, token, lambda: GatedBot(gate), "1", capacity=2)
            await connect(second, token, lambda: GatedBot(gate), "2", capacity=2)
            new, old = seat_key(bot_id, "2"), seat_key(bot_id, "1")
            await eventually(lambda: len(ledger.directory.hosting([new])) == 1)
            match = asyncio.create_task(first.run_match("partnership", [new, old] * 2, seed=5,
                                                        options_json='{"target": 3}'))
            await eventually(lambda: ledger.entries(new) != {} and ledger.entries(old) != {})
            assert [v.split(":")[1] for v in ledger.entries(new).values()] == ["2"]
            assert [v.split(":")[1] for v in ledger.entries(old).values()] == ["2"]
            assert first.server.arena.registry.get(new) is None  # version 2 plays here through the relay
            gate.set()
            done = await asyncio.wait_for(match, 30)
            assert done.result.completed and list(done.seat_bot_versions) == ["2", "1", "2", "1"]
            await eventually(lambda: ledger.entries(new) == {} and ledger.entries(old) == {})

    try:
        run(scenario())
    finally:
        gate.set()
