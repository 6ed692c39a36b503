"""The arena's compliance check of a remote bot's new version, on a real referee over
loopback with real Redis and SDK bots (:mod:`referee.version_check`).

The issue's words: "On every new version (a submission, or a remote bot saying hello with a
version it never used), the arena by itself: runs the compliance check against it on the
arena's own machines (... the practice requests for remote ones); rejects a failing version
with the check's report shown to its owner", and "A broken version (illegal moves) is
rejected before it plays a rated game"."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import grpc
import pytest

from competitions.version_tests.status import version_status
from pitch_sdk.bot import Bot
from pitch_sdk.bots.loader import load_bot
from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2
from pitch_sdk.remote.client import BotClient, ConnectionRefused
from store.accounts import Accounts
from store.fleet import FleetDirectory
from store.seat_keys import seat_key
from store.version_checks import VersionChecks
from store.version_tests import VersionTestStore
from store.versions import BotVersions, CheckState
from tests.referee.bots import IllegalBot, SteadyBot
from tests.referee.harness import ADMIN, Arena, RawBot, run, running_arena
from tests.referee.test_versions_side_by_side import versioned


async def _author_bot(arena: Arena, name: str) -> tuple[str, str]:
    """An author's bot (owned by an account, as sign-up makes them): its id and token."""
    accounts = Accounts(arena.server.arena.store)
    account = accounts.get("author") or accounts.create("author", "author-password")
    record, token = accounts.create_bot(account, name)
    return record.bot_id, token


async def _start(arena: Arena, token: str, factory: Callable[[], Bot], version: str) -> tuple[BotClient,
                                                                                                asyncio.Task[None]]:
    client = BotClient(versioned(factory, version), arena.address, token, capacity=2)
    task = asyncio.create_task(client.run(arena.stop))
    arena.tasks.append(task)
    await asyncio.wait_for(client.connected.wait(), timeout=10)
    return client, task


async def _settled(arena: Arena, bot_id: str, version: str, timeout_s: float = 60.0) -> CheckState:
    checks = VersionChecks(arena.server.arena.versions)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = await asyncio.to_thread(checks.get, bot_id, version)
        assert found is not None, "an author's new version must have a check"
        if found.state != CheckState.PENDING:
            return found.state
        await asyncio.sleep(0.1)
    raise AssertionError(f"the check of {bot_id}@{version} did not end within {timeout_s} s")


def test_a_new_version_plays_only_the_check_until_it_passed_then_plays_and_waits_for_its_test(
        redis_url: str) -> None:
    """While checked, a version is listed nowhere and a match naming it is refused saying
    why, while its bot's earlier version still plays the seats naming the bot; once it
    passed, it is listed, plays, is the bot's current version and waits for its SPRT."""
    async def scenario() -> None:
        async with running_arena(redis_url, fleet_ttl_s=3.0) as arena:
            store = arena.server.arena.store
            bot_id, token = await _author_bot(arena, "checked-bot")
            opponent = (await arena.connect(lambda: load_bot("random")))[0]
            third = (await arena.connect(lambda: load_bot("random")))[0]
            first, _ = await _start(arena, token, lambda: load_bot("heuristic"), "1")
            assert await _settled(arena, bot_id, "1") == CheckState.PASSED
            second, _ = await _start(arena, token, lambda: load_bot("heuristic"), "2")
            directory = FleetDirectory(store, 3.0)
            assert seat_key(bot_id, "2") not in directory.connected_bots(versions=True)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await arena.run_match("cutthroat", [seat_key(bot_id, "2"), opponent, third], games=1,
                                      options_json='{"target": 5}')
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "checking" in refused.value.details()
            # the bot alone: its version that may play, version 1
            played = await arena.run_match("cutthroat", [bot_id, opponent, third], games=1,
                                           options_json='{"target": 5}')
            assert store.match_result(played.result.match_id)["bot_versions"][0] == "1"  # type: ignore[index]
            listed = await arena.admin.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN)
            assert next(b for b in listed.bots if b.bot_id == bot_id).bot_version == "1"
            assert version_status(store, bot_id, "2").state == "checking"  # type: ignore[union-attr]

            assert await _settled(arena, bot_id, "2") == CheckState.PASSED
            assert second.welcome is not None and second.welcome.checking
            check = VersionChecks(arena.server.arena.versions).get(bot_id, "2")
            assert check is not None and check.summary.startswith("compliance check passed: 11 matches")
            assert "play: asked" in check.report and "bid: asked" in check.report
            await asyncio.sleep(0.3)  # the directory's write queue
            assert seat_key(bot_id, "2") in directory.connected_bots(versions=True)
            versions = BotVersions(store)
            assert versions.current(bot_id) == f"{bot_id}-v2"
            assert VersionTestStore(store).waits(seat_key(bot_id, "2"))
            played = await arena.run_match("cutthroat", [seat_key(bot_id, "2"), opponent, third], games=1,
                                           options_json='{"target": 5}')
            assert played.result.completed
            assert store.match_result(played.result.match_id)["bot_versions"][0] == "2"  # type: ignore[index]
            assert first.welcome is not None and first.welcome.checking  # version 1 was new too

    run(scenario())


def test_a_version_playing_illegal_moves_is_rejected_before_any_arena_match_and_stays_rejected(
        redis_url: str) -> None:
    """A failing version's stream ends with FAILED_PRECONDITION saying so, it played no
    recorded match, its owner reads the report, and a hello with it again is refused with
    REFUSAL_REASON_VERSION_REJECTED, on which the SDK stops rather than retries."""
    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            store = arena.server.arena.store
            bot_id, token = await _author_bot(arena, "broken-bot")
            client = BotClient(versioned(IllegalBot, "7"), arena.address, token, capacity=2)
            with pytest.raises(ConnectionRefused) as stopped:
                await asyncio.wait_for(client.run(arena.stop), timeout=60)
            assert "failed the arena's compliance check" in str(stopped.value)
            assert client.welcome is not None and client.welcome.checking
            assert store.bot_match_count(bot_id) == 0
            status = version_status(store, bot_id, "7")
            assert status is not None and status.state == "rejected"
            assert status.check is not None and "illegal action" in status.check["report"]
            assert BotVersions(store).current(bot_id) is None  # a rejected version is never current

            refusal: list[bot_pb2.Refusal] = []

            def note(_: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                if message.HasField("refusal"):
                    refusal.append(message.refusal)
                return None

            again = RawBot(arena, token, bot_pb2.Hello(bot_name="broken", bot_version="7", capacity=1,
                                                       protocol_versions=["pitch.v1"]), note)
            await asyncio.wait_for(again.task, timeout=10)
            assert refusal and refusal[0].reason == bot_pb2.REFUSAL_REASON_VERSION_REJECTED
            assert "connect with a new version" in refusal[0].message

    run(scenario())


def test_operator_bots_and_an_arena_with_the_switch_off_are_not_checked(redis_url: str) -> None:
    """The operator's own bots (registered with the admin token) play at once, and so does an
    author's bot where ``PITCH_VERSION_CHECK`` is off."""
    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            operator_bot, client = await arena.connect(lambda: load_bot("heuristic"))
            assert client.welcome is not None and not client.welcome.checking
            assert VersionChecks(arena.server.arena.versions).get(operator_bot, "0") is None
        async with running_arena(redis_url, version_check=False) as arena:
            bot_id, token = await _author_bot(arena, "unchecked-bot")
            author, _ = await _start(arena, token, lambda: load_bot("heuristic"), "1")
            assert author.welcome is not None and not author.welcome.checking
            assert VersionChecks(arena.server.arena.versions).get(bot_id, "1") is None

    run(scenario())


def test_one_authors_burst_of_new_versions_is_checked_one_at_a_time_beside_another_authors(
        redis_url: str) -> None:
    """Fairness on a shared referee: an author's three new versions are checked one after
    another while another author's new version is checked at once beside them."""
    async def scenario() -> None:
        async with running_arena(redis_url, shutdown_grace_s=0.2) as arena:  # the checks are cut at the end
            accounts = Accounts(arena.server.arena.store)
            busy, other = accounts.create("busy", "busy-password"), accounts.create("other", "other-password")
            burst = [accounts.create_bot(busy, f"busy-{n}") for n in range(3)]
            single = accounts.create_bot(other, "other-0")
            for _, token in burst:
                await _start(arena, token, SteadyBot, "1")
            await _start(arena, single[1], SteadyBot, "1")

            def checked_now() -> set[str]:
                return {p.bot.name for match in arena.server.arena.matches.values() for p in match.spec.seats
                        if p.bot.name != "house"}

            seen: set[str] = set()
            for _ in range(20):
                now = checked_now()
                assert len(now & {f"busy-{n}" for n in range(3)}) <= 1, now  # the burst: one at a time
                seen |= now
                await asyncio.sleep(0.05)
            assert "other-0" in seen and "busy-0" in seen and not seen & {"busy-1", "busy-2"}

    run(scenario())
