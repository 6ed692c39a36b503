"""The local harness: seeded games, bot errors named precisely, match tables, the strength bar."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from pitch_sdk.bot import Bot
from pitch_sdk.bots import HeuristicBot, RandomBot
from pitch_sdk.harness.local import BotError, play_game, play_match
from pitch_sdk.harness.stats import wilson_interval
from pitch_sdk.rules import PASS, Action, Card, HandResult, Observation, PlayCard, Ruleset, preset, replay
from pitch_sdk.rules.cards import cards_of
from pitch_sdk.rules.events import MuckShown
from pitch_sdk.rules.replay import GameLog

PARTNERSHIP = preset("partnership")


class Recorder(RandomBot):
    """A random bot that notes the seats it was given and the hooks it received."""

    name = "recorder"

    def __init__(self) -> None:
        super().__init__()
        self.seats: list[int] = []
        self.hand_results: list[HandResult] = []
        self.game_ends: list[HandResult] = []

    def start_game(self, ruleset: Ruleset, seat: int, rng: random.Random) -> None:
        super().start_game(ruleset, seat, rng)
        self.seats.append(seat)

    def on_hand_result(self, result: HandResult) -> None:
        self.hand_results.append(result)

    def on_game_end(self, result: HandResult) -> None:
        self.game_ends.append(result)


class Reneger(Bot):
    """Plays the first card of its hand whatever was led: illegal sooner or later."""

    name = "reneger"

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        if observation.phase == "play":
            return PlayCard(observation.hand[0])
        return legal_actions[0]


class Crasher(Bot):
    """Bids like anyone, then crashes when asked to play."""

    name = "crasher"

    def bid(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return legal_actions[0]

    def play(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        raise KeyError("no idea")


# --------------------------------------------------------------------------- play_game
def test_a_game_is_played_to_the_end_and_replays_from_its_log():
    state = play_game(PARTNERSHIP, [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()], seed=11)
    assert state.is_over and state.winner in (0, 1)
    assert max(state.scores) >= PARTNERSHIP.win.target
    replayed = replay(GameLog.of(state))
    assert replayed.results == state.results


def test_games_are_deterministic_in_the_seed_and_bot_luck_follows_the_seat():
    def moves(seed: int) -> list[tuple[int, Action]]:
        short = preset("partnership", max_hands=20)  # random bots rarely make bids: cap the game
        return play_game(short, [RandomBot() for _ in range(4)], seed=seed).moves

    assert moves(4) == moves(4)
    assert moves(4) != moves(5)


def test_bots_get_their_seat_and_every_hand_result_and_the_game_end():
    bots = [Recorder() for _ in range(4)]
    state = play_game(preset("partnership", max_hands=6), bots, seed=2)
    for seat, bot in enumerate(bots):
        assert bot.seats == [seat]
        assert bot.hand_results == state.results
        assert bot.game_ends == [state.results[-1]]


def test_an_illegal_action_names_the_bot_seat_action_and_legal_list():
    bots = [RandomBot(), RandomBot(), Reneger(), RandomBot()]
    with pytest.raises(BotError) as caught:
        for seed in range(50):  # it reneges as soon as it holds the suit led but plays another
            play_game(PARTNERSHIP, bots, seed=seed)
    error = caught.value
    assert (error.bot, error.seat) == ("reneger", 2)
    assert error.action not in error.legal and error.legal
    message = str(error)
    assert message.startswith(f"bot 'reneger' at seat 2 chose {error.action}, which is not legal in play")
    assert "legal: " + ", ".join(map(str, error.legal)) in message


def test_a_bot_that_raises_is_named_with_its_seat_and_the_cause_kept():
    with pytest.raises(BotError, match=r"bot 'crasher' at seat 3 raised in act\(\): KeyError: 'no idea'") as caught:
        play_game(PARTNERSHIP, [RandomBot(), RandomBot(), RandomBot(), Crasher()], seed=1)
    assert isinstance(caught.value.__cause__, KeyError)


def test_seats_must_match_the_ruleset_and_bots_cannot_share_a_seat_object():
    with pytest.raises(ValueError, match="partnership needs 4 bots, got 3"):
        play_game(PARTNERSHIP, [RandomBot(), RandomBot(), RandomBot()], seed=1)
    same = RandomBot()
    with pytest.raises(ValueError, match="the same bot object sits at two seats"):
        play_game(PARTNERSHIP, [same, RandomBot(), same, RandomBot()], seed=1)


# --------------------------------------------------------------------------- play_match
def test_match_table_adds_up_and_seats_rotate():
    bots = [Recorder() for _ in range(3)]
    result = play_match(preset("cutthroat", max_hands=30), bots, games=9, seed=3)
    assert [bot.seats for bot in bots] == [[0, 1, 2] * 3, [1, 2, 0] * 3, [2, 0, 1] * 3]
    assert sum(row.wins for row in result.bots) + result.draws == 9
    assert result.hands == len(bots[0].hand_results)  # every bot hears of every hand
    assert [row.label for row in result.bots] == ["recorder (seat 0)", "recorder (seat 1)", "recorder (seat 2)"]
    assert result.sides == result.bots  # playing alone, each bot is its own side


def test_match_sides_sum_their_bots_and_replay_exactly():
    def run() -> object:
        return play_match(PARTNERSHIP, [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()], games=8, seed=5)

    result = run()
    assert result == run()
    heuristic, random_side = result.sides
    assert heuristic.label == "heuristic + heuristic" and heuristic.members == (0, 2)
    assert heuristic.wins + random_side.wins + result.draws == 8
    for side in result.sides:
        members = [result.bots[i] for i in side.members]
        assert side.bids_made == sum(b.bids_made for b in members)
        assert side.bids_set == sum(b.bids_set for b in members)
        assert all(b.wins == side.wins for b in members)
    assert heuristic.points_per_hand > 0 > random_side.points_per_hand


def test_wilson_interval_matches_known_values():
    low, high = wilson_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    low, high = wilson_interval(0, 10)
    assert low == 0 and round(high, 4) == 0.2775
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


# --------------------------------------------------------------------------- the bar
@pytest.mark.slow
def test_heuristic_partners_beat_random_partners_clearly_over_2000_games():
    """Issue: "Over 2,000 seeded games of partnership, heuristic partners must beat random
    partners by a clear margin".  Full games of the real preset, seats rotating so each
    side plays both sides of every deal; ~25 s on one core.  The same measurement with
    its timing: ``.venv/bin/python bench/bot_strength.py --games 2000 --seed 1``."""
    bots = [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()]
    result = play_match(PARTNERSHIP, bots, games=2000, seed=1)
    side = result.sides[0]
    low, _ = side.interval
    assert side.label == "heuristic + heuristic" and side.games == 2000
    assert low > 0.6, f"win rate {side.win_rate:.3f}, 95% interval from {low:.3f}"


class _Passer(Bot):
    """Passes whenever it may, else plays the first legal action."""

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return PASS if PASS in legal_actions else legal_actions[0]


def test_a_game_capped_before_any_scored_hand_ends_without_a_result() -> None:
    """Auction pitch re-deals when everyone passes ("If no player bids, the deal is abandoned
    and the same dealer deals again"); bots that always pass reach the hand cap with no hand
    scored, and the local harness ends the game instead of failing on a missing last result."""
    state = play_game(preset("auction", max_hands=3), [_Passer() for _ in range(4)], seed=1)
    assert state.is_over and state.results == []


class NotesMucks(RandomBot):
    """A random bot that notes every mucked hand shown to it."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[tuple[int, tuple[Card, ...], bool]] = []

    def on_muck_shown(self, seat: int, cards: tuple[Card, ...], redeal: bool) -> None:
        self.shown.append((seat, cards, redeal))


@pytest.mark.parametrize("option", ["new-hand", "redeal"])
def test_every_bot_is_shown_each_mucked_hand(option: str) -> None:
    """Seed 004: "The cards can be checked by the other players after the hand has been
    played": every seat's bot hears of each mucked hand the engine showed, in order."""
    bots = [NotesMucks() for _ in range(4)]
    state = play_game(preset("partnership", muck=option, max_hands=30), bots, seed=1)
    shown = [(e.seat, cards_of(e.cards), e.redeal) for e in state.history if isinstance(e, MuckShown)]
    assert shown and all(bot.shown == shown for bot in bots)
