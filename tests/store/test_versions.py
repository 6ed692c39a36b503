"""Bot versions with real parts: an in-process referee, SDK bots over loopback gRPC, a private
redis-server.  A bot that reconnects with a new version is rated as a new row; the old
version keeps its results and history and leaves the default leaderboard."""

from __future__ import annotations

import asyncio
import json
import uuid

import grpc

from competitions.ratings.leaderboard import Leaderboard, record_match
from pitch_sdk.bot import Bot
from pitch_sdk.bots.loader import load_bot
from pitch_sdk.proto.pitch.v1 import arena_pb2
from pitch_sdk.remote.client import BotClient
from store.redis_store import Store
from store.versions import BotVersions, rated_view
from tests.cli.test_cli import invoke
from tests.referee.test_hostile import hello_bytes, raw_connect
from tests.workers.celery_harness import ArenaThread, wait_until

ADMIN = (("authorization", "Bearer test-admin"),)
#: A version is the bot's own text: rich markup in it must be printed, not interpreted.
NEW_VERSION = "[bold]2[/bold]"


def _versioned(spec: str, version: str) -> Bot:
    """A built-in bot that says hello with ``version`` (the SDK sends a bot's ``version``)."""
    bot = load_bot(spec)
    bot.version = version  # type: ignore[attr-defined]
    return bot


def _connect(arena: ArenaThread, token: str, version: str) -> asyncio.Event:
    """Connect a registered bot as the heuristic bot at ``version``; the event stops it."""

    async def start() -> asyncio.Event:
        stop = asyncio.Event()

        async def stop_with_the_arena() -> None:  # so the arena's teardown does not wait for it
            await arena.arena.stop.wait()
            stop.set()

        client = BotClient(lambda: _versioned("heuristic", version), arena.arena.address, token)
        arena.arena.tasks.append(asyncio.create_task(client.run(stop)))
        arena.arena.tasks.append(asyncio.create_task(stop_with_the_arena()))
        await asyncio.wait_for(client.connected.wait(), timeout=10)
        return stop

    stop: asyncio.Event = arena.call(start())
    return stop


def _play(arena: ArenaThread, store: Store, seats: list[str]) -> arena_pb2.RunMatchResponse:
    """One recorded cutthroat match of two short games, rated as a worker rates it."""
    response: arena_pb2.RunMatchResponse = arena.call(arena.arena.run_match(
        "cutthroat", seats, games=2, seed=7, options_json='{"target": 5}', match_id=f"v-{uuid.uuid4().hex[:8]}"))
    stored = store.match_result(response.result.match_id)
    assert stored is not None
    record_match(store, stored)
    return response


def _connected_version(arena: ArenaThread, bot_id: str) -> arena_pb2.BotInfo:
    async def listed() -> arena_pb2.ListBotsResponse:
        return await arena.arena.admin.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN)

    bots = arena.call(listed()).bots
    return next(bot for bot in bots if bot.bot_id == bot_id)


def test_a_new_version_is_a_new_row_and_the_old_keeps_its_results(arena: ArenaThread,
                                                                   env: dict[str, str]) -> None:
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    name = f"evolving-{uuid.uuid4().hex[:6]}"
    registered = arena.call(arena.arena.register(name))
    bot, token = registered.bot_id, registered.token
    opponent, third = arena.connect("random"), arena.connect("random")
    first = _connect(arena, token, "1.0")
    one = _play(arena, store, [bot, opponent, third])
    assert list(one.seat_bot_versions) == ["1.0", "0", "0"]  # the SDK's default version is "0"
    assert list(one.seat_rated_ids) == [bot, opponent, third]  # a bot's first version: its own id
    assert _connected_version(arena, bot).rated_id == bot

    arena.loop.call_soon_threadsafe(first.set)
    wait_until(lambda: not _connected_version(arena, bot).connected, 10, "the first version to disconnect")
    _connect(arena, token, NEW_VERSION)
    two = _play(arena, store, [opponent, bot, third])
    newer = f"{bot}-v2"
    assert list(two.seat_rated_ids) == [opponent, newer, third]
    assert list(two.seat_bot_versions) == ["0", NEW_VERSION, "0"]
    info = _connected_version(arena, bot)
    assert info.rated_id == newer and info.bot_version == NEW_VERSION
    # Results stay the registered bot's (its matches, its conduct); ratings are the version's.
    stored = store.match_result(two.result.match_id)
    assert stored is not None and [s["bot_id"] for s in stored["seats"]] == [opponent, bot, third]
    assert [s["bot_id"] for s in rated_view(stored)["seats"]] == [opponent, newer, third]
    assert store.bot_match_count(bot) == 2

    current = Leaderboard(store, "cutthroat")
    every = Leaderboard(store, "cutthroat", all_versions=True)
    assert {row.bot_id for row in current.top(10)} == {opponent, third, newer}
    assert {row.bot_id for row in every.top(10)} == {opponent, third, bot, newer} and every.size() == 4
    assert current.size() == 3 and [row.rank for row in current.top(10)] == [1, 2, 3]
    assert [p.match_id for p in every.history(bot)] == [one.result.match_id]
    assert [p.match_id for p in every.history(newer)] == [two.result.match_id]
    assert {row.bot_id for row in current.fitted()} == {opponent, third, bot, newer}  # the fit keeps every version
    versions = BotVersions(store).versions(bot)
    assert [(v.rated_id, v.version, v.current) for v in versions] == [(bot, "1.0", False), (newer, NEW_VERSION, True)]

    code, out, err = invoke(env, "leaderboard", "cutthroat", "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [row["rank"] for row in rows] == [1, 2, 3]  # ranked among the versions shown
    assert {row["bot_id"]: row["name"] for row in rows if row["bot_id"].startswith(bot)} == {
        newer: f"{name}@{NEW_VERSION}"}
    code, out, err = invoke(env, "leaderboard", "cutthroat", "--all-versions", "--json")
    assert code == 0, err
    assert {row["bot_id"]: row["name"] for row in json.loads(out)["rows"] if row["bot_id"].startswith(bot)} == {
        bot: f"{name}@1.0", newer: f"{name}@{NEW_VERSION}"}
    code, out, err = invoke(env, "leaderboard", "cutthroat", "--all-versions")
    assert code == 0, err
    assert f"{name}@1.0" in out and f"{name}@[bo" in out  # the markup printed as text (the name cut at 20)


def test_a_new_version_past_the_limit_is_refused_and_known_ones_still_connect(redis_url: str) -> None:
    """PITCH_MAX_BOT_VERSIONS bounds the rated entities one bot can make: with 2 versions
    known, a hello with a third is refused with RESOURCE_EXHAUSTED naming the setting and
    allocates nothing; a known version still connects."""
    limited = ArenaThread(redis_url, max_bot_versions=2)
    try:
        registered = limited.call(limited.arena.register(f"many-{uuid.uuid4().hex[:6]}"))
        store = limited.arena.server.arena.store
        versions = BotVersions(store)
        versions.connected(registered.bot_id, "a")
        versions.connected(registered.bot_id, "b")
        _, code, details = limited.call(raw_connect(limited.arena, registered.token, [hello_bytes(bot_version="c")]))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "PITCH_MAX_BOT_VERSIONS" in details
        assert [v.version for v in versions.versions(registered.bot_id)] == ["a", "b"]
        _connect(limited, registered.token, "a")
        # "a" plays again, but the bot's current version stays its newest, "b" (its owner pins "a" to go back)
        assert versions.current(registered.bot_id) == f"{registered.bot_id}-v2"
    finally:
        limited.close()


def test_stamp_reads_known_versions_and_allocates_a_new_one(redis_url: str) -> None:
    """A result's version fields: each seat's rated id, read for known versions (in one
    round trip) and allocated for a version not seen yet; a seat the referee plays itself
    (version ``None``) is rated under its bot's id.  Seats keep their order."""
    store = Store.from_url(redis_url, prefix=f"stamp-{uuid.uuid4().hex[:8]}:")
    one, _ = store.register_bot(f"one-{uuid.uuid4().hex[:6]}")
    two, _ = store.register_bot(f"two-{uuid.uuid4().hex[:6]}")
    versions = BotVersions(store)
    versions.connected(one.bot_id, "1")
    later = versions.connected(one.bot_id, "2").rated_id
    stamped = versions.stamp([(one.bot_id, "2"), (two.bot_id, None), (one.bot_id, "1"), (two.bot_id, "new")])
    assert stamped == {"bot_versions": ["2", "", "1", "new"],
                       "rated_ids": [later, two.bot_id, one.bot_id, two.bot_id]}
    assert later == f"{one.bot_id}-v2"
    assert [v.version for v in versions.versions(two.bot_id)] == ["new"]  # allocated on first sight
