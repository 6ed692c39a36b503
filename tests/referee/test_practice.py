"""Practice matches and `pitch-bot check` against a live referee."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import ClassVar

from typer.testing import CliRunner

from pitch_sdk.bots import HeuristicBot
from pitch_sdk.bots.loader import load_bot
from pitch_sdk.checks.compliance import COVERAGE, check_locally, check_options, check_remote
from pitch_sdk.cli import app
from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.remote.client import BotClient
from pitch_sdk.rules import Action, Card, DecisionKind, GameLog, Observation, Phase, preset, replay
from pitch_sdk.rules.actions import MUCK_HAND
from pitch_sdk.rules.events import Exchanged
from referee.match import Match, MatchSpec
from referee.sessions import HousePresence
from store.redis_store import BotRecord
from tests.referee.bots import IllegalBot
from tests.referee.harness import RawBot, answer_first, running_arena


def test_local_check_passes_the_heuristic_bot_on_every_asked_kind() -> None:
    """The built-in heuristic bot answers every decision kind legally: the coverage presets
    ask them all (calls in five-handed, yes/no choices in ten-point and man-o-war)."""
    report = check_locally(lambda: load_bot("heuristic"), games=1)
    assert report.passed, report.problems
    asked = {kind for kind, entry in report.kinds.items() if entry.asked}
    assert asked == set(DecisionKind)


def test_local_check_reports_illegal_plays_with_an_example() -> None:
    """A bot playing cards it does not hold fails, with the count and a first example."""
    report = check_locally(IllegalBot, games=1)
    assert not report.passed
    assert report.counts["play: illegal action"] == report.kinds[DecisionKind.PLAY].asked
    assert "legal:" in report.examples["play: illegal action"]


def test_remote_check_plays_practice_matches_through_the_referee(redis_url: str) -> None:
    """check_remote plays one practice match per coverage preset over the protocol: the
    heuristic bot passes; the wrong-card bot's strikes come back as problems."""

    async def tokens() -> tuple[str, list[str]]:
        async with running_arena(redis_url) as arena:
            good = (await arena.register()).token
            bad = (await arena.register()).token
            loop = asyncio.get_running_loop()
            passing = await loop.run_in_executor(None, lambda: check_remote(
                lambda: load_bot("heuristic"), arena.address, good, games=1))
            failing = await loop.run_in_executor(None, lambda: check_remote(
                IllegalBot, arena.address, bad, games=1))
            assert passing.passed and passing.matches == len(COVERAGE), passing.problems
            assert not failing.passed and failing.matches == len(COVERAGE)
            return good, failing.problems

    _, problems = asyncio.run(tokens())
    assert any(p.startswith("play: strike for illegal action") for p in problems)


class MuckingBot(HeuristicBot):
    """Lays down every hand it may (seed 004: players "may lay their cards face down") and
    notes the mucked hands shown to it."""

    asked: ClassVar[list[Phase]] = []
    shown: ClassVar[list[tuple[int, tuple[Card, ...], bool]]] = []

    def muck(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        self.asked.append(observation.phase)
        return MUCK_HAND

    def on_muck_shown(self, seat: int, cards: tuple[Card, ...], redeal: bool) -> None:
        self.shown.append((seat, cards, redeal))


def test_a_bot_over_the_referee_is_asked_whether_to_muck(redis_url: str) -> None:
    """Seed 004: players with no point cards "may lay their cards face down and receive a
    new hand. The cards can be checked by the other players after the hand has been
    played": over real gRPC the referee asks the bot's seat (a practice match, seat 0,
    which is dealt such a hand at seed 0), takes its muck without a strike, and shows it the
    mucked hand after the hand (``MatchEvent.muck_shown``)."""

    async def scenario() -> BotClient:
        async with running_arena(redis_url) as arena:
            token = (await arena.register()).token
            client = BotClient(MuckingBot, arena.address, token, practice=[bot_pb2.PracticeRequest(
                preset="partnership", seat=0, games=1, options_json=json.dumps(check_options("partnership")))])
            stop = asyncio.Event()
            task = asyncio.create_task(client.run(stop))
            while not client.results and not client.errors:
                await asyncio.sleep(0.05)
            stop.set()
            await task
            return client

    client = asyncio.run(scenario())
    assert not client.errors and not client.strikes and len(client.results) == 1
    assert MuckingBot.asked and set(MuckingBot.asked) == {Phase.MUCK}
    assert MuckingBot.shown and all(seat == 0 and len(cards) == 6 and not redeal
                                    for seat, cards, redeal in MuckingBot.shown)
    assert all(not any(card.rank and card.rank >= 10 for card in cards) for _, cards, _ in MuckingBot.shown)


def test_bad_practice_request_gets_an_error_message(redis_url: str) -> None:
    """A practice request for an unknown preset or seat is refused with a RequestError
    naming the problem; the stream stays open."""

    async def scenario() -> list[str]:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()

            client = BotClient(lambda: load_bot("random"), arena.address, registered.token, practice=[
                bot_pb2.PracticeRequest(preset="no-such-preset"), bot_pb2.PracticeRequest(preset="cutthroat", seat=7)])
            stop = asyncio.Event()
            task = asyncio.create_task(client.run(stop))
            while len(client.errors) < 2:
                await asyncio.sleep(0.02)
            assert client.connected.is_set()
            stop.set()
            await task
            return client.errors

    errors = asyncio.run(scenario())
    assert "no-such-preset" in errors[0] and "seat 7" in errors[1]


def test_check_command_exit_codes() -> None:
    """`pitch-bot check` exits 0 with PASS for a good bot and 1 with the problems listed."""
    runner = CliRunner()
    good = runner.invoke(app, ["check", "heuristic", "--games", "1"])
    assert good.exit_code == 0 and "PASS" in good.output
    bad = runner.invoke(app, ["check", "tests.referee.bots:IllegalBot", "--games", "1"])
    assert bad.exit_code == 1 and "illegal action" in bad.output and "FAIL" in bad.output


def test_house_seats_answer_unlisted_card_sets_without_strikes() -> None:
    """Seed 004's widow: "the maker adds the widow to their hand and brings the number of
    cards back down to six by discarding" - 924 sets of 12 cards, more than a request lists,
    so the request carries only the constraint.  A house seat (the practice opponent, which
    plays the first legal action) answers it with an explicit set, not a listed index that
    does not exist: a practice match costs it no strikes."""
    rules = preset("ipitch", widow=True, max_hands=8)  # ipitch's dealer must bid: the widow is taken
    seats = tuple(HousePresence(BotRecord("house", "house", "referee", "", 0.0)) for _ in range(rules.players))
    spec = MatchSpec("widow-practice", rules, seats, seed=5, games=1, per_decision_ms=1000, bank_ms=1000,
                     max_strikes=3, reconnect_grace_s=1.0)
    match = Match(spec)
    result = asyncio.run(match.run())
    assert result.completed and not result.forfeited
    assert [seat.strikes for seat in result.seats] == [0] * rules.players
    history = replay(GameLog.from_dict(json.loads(match.game_logs[0]))).history
    taken = [e.drawn.bit_count() for e in history if isinstance(e, Exchanged) and e.drawn]
    discarded = [e.discarded.bit_count() for e in history if isinstance(e, Exchanged) and e.discarded]
    assert taken and taken == discarded == [6] * len(taken)  # each widow's six taken, six discarded


def test_a_bot_asking_again_at_each_match_end_is_never_refused_for_its_bound(redis_url: str) -> None:
    """A bot keeps the "practice matches at once" its welcome states (2) and asks for the next
    one when a match ends (as `pitch-bot check --command` does): each request is taken, since
    the slot is free before the match's end reaches the bot (it was freed only after the
    match's clean-up, and the next request came first)."""

    async def scenario() -> tuple[list[str], int]:
        async with running_arena(redis_url) as arena:
            token = (await arena.register()).token
            errors: list[str] = []
            ended = [0]
            request = bot_pb2.BotMessage(practice=bot_pb2.PracticeRequest(preset="cutthroat", options_json=json.dumps(
                {"target": 1})))

            def play(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                for inner in message.batch.messages if message.HasField("batch") else [message]:
                    if inner.HasField("welcome"):
                        for _ in range(inner.welcome.practice_matches_at_once):
                            bot.send(request)
                    elif inner.HasField("error"):
                        errors.append(inner.error.message)
                        bot.close()
                    elif inner.HasField("match_ended"):
                        ended[0] += 1
                        if ended[0] >= 8:
                            bot.close()
                        elif ended[0] <= 6:
                            bot.send(request)
                    elif inner.HasField("decision_request"):
                        answer_first(bot, inner)
                return None

            raw = RawBot(arena, token, bot_pb2.Hello(bot_name="again", protocol_versions=["pitch.v1"], capacity=4,
                                                     batching=True), play)
            await asyncio.wait_for(raw.task, 30)
            return errors, ended[0]

    errors, ended = asyncio.run(scenario())
    assert not errors and ended == 8, errors
