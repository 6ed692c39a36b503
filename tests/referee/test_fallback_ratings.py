"""Matches whose seats were mostly played by the referee's fallbacks are kept off the ratings.

A real referee over loopback gRPC plays real bots; the stored result then goes through the
same rating and table code a match task runs (:func:`record_match`, :func:`compute_table`).
"""

from __future__ import annotations

import asyncio

from competitions.ratings.leaderboard import Leaderboard, record_match
from competitions.tournaments.schedule import round_robin
from competitions.tournaments.table import PLAYED, compute_table, unrated_matches
from pitch_sdk.proto.pitch.v1 import bot_pb2
from tests.referee.bots import FirstLegalBot, OnceSlowBot
from tests.referee.harness import RawBot, running_arena

#: A quick clock: a seat whose bot is gone costs 50 ms a decision.
QUICK = bot_pb2.TimeControl(per_decision_ms=50, bank_ms=0)


def test_a_seat_finished_by_fallbacks_keeps_the_match_off_the_ratings(redis_url: str) -> None:
    """A bot that leaves after three decisions, within a grace window longer than the match:
    the referee plays the rest of its seat by fallbacks, the match completes without a
    forfeit, and its result says it is unrated.  The Elo board does not move, recording it
    again changes nothing, and the tournament table counts it apart, with the reason."""

    async def scenario() -> None:
        async with running_arena(redis_url, reconnect_grace_s=60.0) as arena:
            registered = await arena.register()
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            answered = 0

            def leave_after_three(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool:
                nonlocal answered
                if message.HasField("decision_request"):
                    if answered == 3:
                        bot.call.cancel()  # the bot process "crashes" mid-match
                        return False
                    answered += 1
                    request = message.decision_request
                    bot.send(bot_pb2.BotMessage(decision=bot_pb2.Decision(
                        match_id=request.match_id, decision_id=request.decision_id, legal_action_index=0)))
                return True

            raw = await RawBot(arena, registered.token, bot_pb2.Hello(
                bot_name="leaver", protocol_versions=["pitch.v1"]), leave_after_three).started()
            schedule = round_robin("fallbacks", [registered.bot_id, *others], "partnership",
                                   options={"target": 5})
            match = schedule.matches[0]
            response = await arena.run_match("partnership", list(match.seats), match_id=match.match_id,
                                             options_json='{"target": 5}', time_control=QUICK)
            await raw.task
            store = arena.server.arena.store
            stored = store.match_result(match.match_id)
            assert stored is not None
            board = Leaderboard(store, "partnership")
            assert record_match(store, stored) == {} and board.top() == [] and board.fitted() == []
            assert record_match(store, stored) is None and board.top() == []  # idempotent

            result = response.result
            assert result.completed and not result.forfeited and result.unrated
            leaver = result.seats[list(match.seats).index(registered.bot_id)]
            assert (leaver.decisions, leaver.strikes) == (3, 0)  # away: fallbacks without strikes
            assert leaver.fallbacks > 10 and leaver.fallback_heavy
            assert f"{leaver.fallbacks} of {leaver.fallbacks + 3}" in result.unrated_reason
            assert all(s.fallbacks == 0 and not s.fallback_heavy for s in result.seats if s.seat != leaver.seat)

            outcomes = {0: {"status": PLAYED, "result": stored}}
            rows = compute_table(schedule, outcomes)
            assert all(row["unrated"] == 1 and row["games"] == 0 for row in rows if row["bot_id"] in match.seats)
            assert unrated_matches(outcomes) == {0: result.unrated_reason}
            assert store.bot_conduct(registered.bot_id).matches == 1  # its conduct still counts it

    asyncio.run(scenario())


def test_a_match_with_one_timeout_stays_rated(redis_url: str) -> None:
    """A slow bot's single timeout is normal play: one fallback, the match rated."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            slow, _ = await arena.connect(OnceSlowBot)
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            result = (await arena.run_match(
                "partnership", [slow, *others], seed=3, options_json='{"target": 5}',
                time_control=bot_pb2.TimeControl(per_decision_ms=300, bank_ms=0))).result
            seat = result.seats[0]
            assert (seat.timeouts, seat.fallbacks, seat.fallback_heavy) == (1, 1, False)
            assert result.completed and not result.unrated and result.unrated_reason == ""
            store = arena.server.arena.store
            stored = store.match_result(result.match_id)
            assert stored is not None
            changes = record_match(store, stored)
            assert changes and set(changes) == {slow, *others}
            assert len(Leaderboard(store, "partnership").top()) == 4

    asyncio.run(scenario())
