"""A bot whose code fails, playing over the referee: answered at once, struck with a clear
message, never reported as a timeout.

The bots run as real ``pitch-bot`` processes against a referee on loopback; the referee's
own bounds on a reported failure are checked with a client on the raw generated stubs."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2, game_pb2
from tests.referee.bots import FirstLegalBot
from tests.referee.harness import RawBot, running_arena

BIN = Path(sys.executable).parent

SILENT_BOT = """\
from pitch_sdk.bot import Bot


class Silent(Bot):
    name = "silent"

    def act(self, observation, legal_actions):
        return None
"""

RAISING_BOT = """\
from pitch_sdk.bot import Bot


class Raising(Bot):
    '''Fails its first decision of every game, then plays the first legal action.'''

    name = "raising"

    def start_game(self, ruleset, seat, rng):
        super().start_game(ruleset, seat, rng)
        self.failed = False

    def act(self, observation, legal_actions):
        if not self.failed:
            self.failed = True
            return {}["no such key"]
        return legal_actions[0]
"""


async def pitch_bot(*args: str, token: str) -> asyncio.subprocess.Process:
    """Start a ``pitch-bot`` process with its token in the environment."""
    return await asyncio.create_subprocess_exec(
        str(BIN / "pitch-bot"), *args, env={**os.environ, "PITCH_BOT_TOKEN": token},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


def test_a_bot_answering_none_is_struck_at_once_as_malformed(redis_url: str, tmp_path: Path) -> None:
    """A bot returning None for every decision, over the referee, produced an SDK
    traceback ("Task exception was never retrieved") and was struck for timeouts.  Its
    answer now goes out at once and the referee strikes it as malformed, naming None."""
    (tmp_path / "silent.py").write_text(SILENT_BOT)

    async def scenario() -> tuple[int, str, str]:
        async with running_arena(redis_url) as arena:
            token = (await arena.register()).token
            check = await pitch_bot("check", f"{tmp_path / 'silent.py'}:Silent", "--referee", arena.address,
                                    "-r", "cutthroat", "--games", "1", token=token)
            out, err = await asyncio.wait_for(check.communicate(), 120)
            return check.returncode or 0, out.decode(), err.decode()

    code, out, err = asyncio.run(scenario())
    assert code == 1, (out, err)
    assert "strike for malformed" in out and "unknown action 'None'" in out, out
    assert "timeout" not in out, out
    assert "Task exception was never retrieved" not in err and "Traceback" not in err, err
    assert "the bot returned None, not an action" in err  # the author is told on their side too


def test_a_bot_that_raises_gets_a_bot_error_strike_and_keeps_its_bank(redis_url: str, tmp_path: Path) -> None:
    """A bot that raised was reported as a timeout after its whole time and bank
    (32 s at the defaults).  Now the seat answers at once that its code failed: the referee
    strikes it for a bot error naming the exception, no timeout is counted (a timeout
    empties the bank), and the bot plays the rest of the match."""
    (tmp_path / "raising.py").write_text(RAISING_BOT)

    async def scenario() -> tuple[bot_pb2.MatchResult, str]:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            process = await pitch_bot("run", f"{tmp_path / 'raising.py'}:Raising", "--referee", arena.address,
                                      token=registered.token)
            try:
                while not any(bot.connected for bot in (await arena.admin.ListBots(
                        arena_pb2.ListBotsRequest(), metadata=(("authorization", "Bearer test-admin"),))).bots
                        if bot.bot_id == registered.bot_id):
                    await asyncio.sleep(0.05)
                others = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
                response = await arena.run_match(
                    "partnership", [registered.bot_id, *others], seed=2, options_json='{"target": 3}',
                    time_control=bot_pb2.TimeControl(per_decision_ms=1000, bank_ms=2000),
                    fault_policy=arena_pb2.FaultPolicy(max_strikes=0))
            finally:
                process.terminate()
                _, err = await process.communicate()
            return response.result, err.decode()

    result, err = asyncio.run(scenario())
    seat = result.seats[0]
    assert result.completed and not result.forfeited
    assert seat.strikes == len(result.games) and seat.timeouts == 0, seat
    assert seat.status == game_pb2.SEAT_STATUS_ILLEGAL
    assert seat.decisions > 0  # it played the rest itself
    assert "the bot raised KeyError" in err  # logged on the bot's side
    assert "the bot failed: KeyError: 'no such key'" in err  # the referee's strike, as the bot heard it


def test_a_raw_stub_bot_reporting_a_failure_gets_a_bounded_strike_message(redis_url: str) -> None:
    """A bot on the raw stubs may send `bot_error` too: its strike names the type and
    message, cut to 64 and 120 characters, control characters escaped (the text is
    logged), whatever length was sent."""

    async def scenario() -> list[bot_pb2.Strike]:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            strikes: list[bot_pb2.Strike] = []

            def handle(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                if message.HasField("decision_request"):
                    request = message.decision_request
                    bot.send(bot_pb2.BotMessage(decision=bot_pb2.Decision(
                        match_id=request.match_id, decision_id=request.decision_id,
                        bot_error=bot_pb2.BotError(type="E\x1b" * 1000, message="line\n" * 10_000))))
                if message.HasField("strike"):
                    strikes.append(message.strike)
                if message.HasField("match_ended"):
                    bot.close()
                return None

            raw = await RawBot(arena, registered.token, bot_pb2.Hello(
                bot_name="raw", protocol_versions=["pitch.v1"], capacity=1), handle).started()
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            await arena.run_match("partnership", [registered.bot_id, *others], seed=1,
                                  fault_policy=arena_pb2.FaultPolicy(max_strikes=2))
            await asyncio.wait_for(raw.task, 10)
            return strikes

    strikes = asyncio.run(scenario())
    assert [s.reason for s in strikes] == [bot_pb2.STRIKE_REASON_BOT_ERROR] * 2
    message = strikes[0].message
    assert message.startswith("the bot failed: E\\x1bE\\x1b") and "\n" not in message and "\x1b" not in message
    assert len(message) <= 201  # the strike message's own bound (an ellipsis marks the cut)


class GrudgingBot(FirstLegalBot):
    """Plays legally, but its hand-result hook raises every time."""

    def on_hand_result(self, result: object) -> None:
        raise RuntimeError("cannot keep notes")


def test_a_bot_whose_hook_raises_plays_on_without_dropping_its_stream(redis_url: str) -> None:
    """An exception in a hook (on_hand_result here) has no answer to carry it: the SDK logs
    it and plays on; the stream stays up (the seat's decisions are asked on the stream's
    own thread once the bot is quick, where an escaping exception would end the stream
    for every seat of the process) and no strike or disconnection follows."""

    async def scenario() -> tuple[bot_pb2.MatchResult, int]:
        async with running_arena(redis_url) as arena:
            grudging, client = await arena.connect(GrudgingBot)
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            result = (await arena.run_match("partnership", [grudging, *others], seed=6,
                                            options_json='{"target": 5}')).result
            return result, client.decisions

    result, decisions = asyncio.run(scenario())
    seat = result.seats[0]
    assert result.completed and not result.forfeited
    assert seat.status == game_pb2.SEAT_STATUS_OK and seat.strikes == 0
    assert result.games[0].hands > 1 and seat.decisions == decisions > 0
