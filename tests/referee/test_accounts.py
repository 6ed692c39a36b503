"""Accounts at the referee (a real referee over loopback, real Redis): an author's personal
API token registers bots the account owns, but opens nothing else of the admin API; a bot the
operator disabled (or whose account is disabled) is refused at Connect, and one already
connected has its stream ended within a heartbeat."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2
from store.accounts import Accounts
from tests.referee.harness import RawBot, answer_first, run, running_arena

HELLO = bot_pb2.Hello(bot_name="alice-bot", capacity=1, protocol_versions=["pitch.v1"])


def _metadata(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def test_an_api_token_registers_owned_bots_and_nothing_else(redis_url: str) -> None:
    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            accounts = Accounts(arena.server.arena.store)
            alice = accounts.create("alice", "alice-password")
            _, token = accounts.mint_token(alice, "grpc")
            registered = await arena.admin.RegisterBot(
                arena_pb2.RegisterBotRequest(name="alice-grpc-bot", owner="someone else"), metadata=_metadata(token))
            record = arena.server.arena.store.bot(registered.bot_id)
            assert record is not None and record.owner == "alice"
            assert [b.name for b in accounts.bots(alice)] == ["alice-grpc-bot"]
            for call in (arena.admin.ListBots(arena_pb2.ListBotsRequest(), metadata=_metadata(token)),
                         arena.admin.ListMatches(arena_pb2.ListMatchesRequest(), metadata=_metadata(token))):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await call
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.aio.AioRpcError) as forged:
                await arena.admin.RegisterBot(arena_pb2.RegisterBotRequest(name="x-bot"),
                                              metadata=_metadata("pat_" + "0" * 64))
            assert forged.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert "unknown or revoked" in forged.value.details()

    run(scenario())


def test_disabled_bots_are_refused_and_their_streams_end(redis_url: str) -> None:
    async def scenario() -> None:  # the check of new versions off: this bot leaves after its first match
        async with running_arena(redis_url, fleet_ttl_s=1.5, version_check=False) as arena:
            accounts = Accounts(arena.server.arena.store)
            alice = accounts.create("alice", "alice-password")
            record, token = accounts.create_bot(alice, "alice-bot")
            bot = await RawBot(arena, token, HELLO, answer_first).started()
            accounts.set_bot_disabled("alice-bot", True)
            with pytest.raises(grpc.aio.AioRpcError) as ended:
                await asyncio.wait_for(bot.task, timeout=5)
            assert ended.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert "disabled by the arena's operator" in ended.value.details()
            refused = RawBot(arena, token, HELLO, answer_first)
            with pytest.raises(grpc.aio.AioRpcError) as again:
                await asyncio.wait_for(refused.task, timeout=5)
            assert again.value.code() == grpc.StatusCode.PERMISSION_DENIED
            accounts.set_bot_disabled("alice-bot", False)
            accounts.set_disabled("alice", True)  # the account, not the bot: the same refusal
            whole = RawBot(arena, token, HELLO, answer_first)
            with pytest.raises(grpc.aio.AioRpcError) as account_off:
                await asyncio.wait_for(whole.task, timeout=5)
            assert account_off.value.code() == grpc.StatusCode.PERMISSION_DENIED
            accounts.set_disabled("alice", False)
            back = await RawBot(arena, token, HELLO, answer_first).started()
            assert back.welcomed.is_set() and record.bot_id in {
                p.bot.bot_id for p in arena.server.arena.registry.connected()}
            back.close()

    run(scenario())
