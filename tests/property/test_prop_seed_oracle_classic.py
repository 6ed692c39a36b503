"""Random games of seed 004's Contway 6-point, Kentucky 7-point, its South-East Missouri
form and the three teams of three, checked at every decision and every hand by
``seed_oracle_classic`` (each paragraph's rules as constants, never the ruleset's
options).  One ``random.Random(seed)`` per game, so a failure names the seed that
replays it."""

from __future__ import annotations

import random
from typing import Any

import pytest
from seed_oracle import OracleStats, play_checked, play_games
from seed_oracle_classic import CLASSIC_GAMES, Classic, ClassicOracle
from seed_oracle_nine_five import NineFiveOracle

from pitch_sdk.rules import PASS, Card, Deal, GameState, Suit, preset

#: Games per preset in the default run, and in the ``slow`` run.
GAMES = 150
SLOW_GAMES = 350


def _classic_games(game: Classic, games: int, first_seed: int, max_hands: int) -> OracleStats:
    return play_games(game.name, games, first_seed, max_hands, lambda rng: ClassicOracle(game))


@pytest.mark.parametrize("game", CLASSIC_GAMES, ids=lambda g: g.name)
def test_classic_games_against_the_seed(game: Classic) -> None:
    stats = _classic_games(game, GAMES, 0, 20)
    assert stats.hands >= GAMES and stats.plays_checked > 10 * GAMES and stats.games_won


@pytest.mark.slow
@pytest.mark.parametrize("game", CLASSIC_GAMES, ids=lambda g: g.name)
def test_classic_games_against_the_seed_long(game: Classic) -> None:
    _classic_games(game, SLOW_GAMES, 10_000, 60)


def _nine_five_games(hotshot: bool, games: int, first_seed: int) -> OracleStats:
    return play_games("hotshot" if hotshot else "nine-five", games, first_seed, 30,
                      lambda rng: NineFiveOracle(hotshot))


@pytest.mark.parametrize("hotshot", [False, True], ids=["nine-five", "hotshot"])
def test_nine_five_against_the_seed(hotshot: bool) -> None:
    stats = _nine_five_games(hotshot, GAMES, 0)
    assert stats.hands >= GAMES and stats.plays_checked > 10 * GAMES and stats.games_won and stats.moons


@pytest.mark.slow
@pytest.mark.parametrize("hotshot", [False, True], ids=["nine-five", "hotshot"])
def test_nine_five_against_the_seed_long(hotshot: bool) -> None:
    _nine_five_games(hotshot, SLOW_GAMES, 10_000)


class _PassFirst(NineFiveOracle):
    """Passes whenever it may until a deal has been passed in, then plays at random."""

    def choose(self, legal: list[Any], rng: random.Random) -> Any:
        if not self.passed_in and PASS in legal:
            return PASS
        return super().choose(legal, rng)


def test_hotshot_all_pass_against_the_seed() -> None:
    """Random games almost never see four unforced hotshot hands; this one starts with a
    deal where no 9 is held (every seat holds a whole suit but its 9), so all four pass and
    the oracle checks the shown hands and the deal passing left, then plays on."""
    suits = [[Card.of(rank, suit) for rank in (2, 3, 4, 5, 6, 7, 8, 10, 11)] for suit in Suit]
    nines_and_rest = [Card.of(rank, suit) for suit in Suit for rank in (9, 12, 13, 14)]
    rules = preset("hotshot").with_options(max_hands=5)
    state = GameState.from_deals(rules, [Deal(hands=tuple(map(tuple, suits)), stock=tuple(nines_and_rest))])
    oracle = _PassFirst(hotshot=True)
    stats = play_checked(state, random.Random(0), oracle)
    assert oracle.passed_in and stats.hands >= 1
