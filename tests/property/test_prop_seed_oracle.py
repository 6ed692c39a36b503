"""Random games of seed 003's ten-point family and seed 004's two-trump pitch, checked at
every decision and every hand by ``seed_oracle`` (the seeds' rules as constants, never
the ruleset's options).  Seeded random games, one ``random.Random(seed)`` each for the
hand cap, the moon rate and every action, so a failure names the seed that replays it.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import pytest
from seed_oracle import (
    TEN_POINT_FAMILY,
    HandTracker,
    OracleStats,
    TenPoint,
    TenPointOracle,
    TwoTrumpOracle,
    play_checked,
)

from pitch_sdk.rules import GameState, preset

#: Games per preset in the default run, and in the ``slow`` run.
GAMES = 40
SLOW_GAMES = 150


def _games(name: str, games: int, first_seed: int, max_hands: int,
           oracle: Callable[[random.Random], HandTracker]) -> OracleStats:
    """Play ``games`` seeded games of preset ``name``, each capped at a random number of
    hands, summing what the oracle checked."""
    total = OracleStats()
    for seed in range(first_seed, first_seed + games):
        rng = random.Random(seed)
        rules = preset(name).with_options(max_hands=rng.randint(1, max_hands))
        try:
            stats = play_checked(GameState.new(rules, seed=seed, dealer=seed % 4), rng, oracle(rng))
        except AssertionError as exc:
            raise AssertionError(f"{name}, seed {seed}: {exc}") from exc
        for field in dataclasses.fields(OracleStats):
            setattr(total, field.name, getattr(total, field.name) + getattr(stats, field.name))
    return total


def _ten_point_games(variant: TenPoint, games: int, first_seed: int) -> OracleStats:
    # half the games never shoot the moon (a shot moon ends the game), so that some reach 51 or 52
    return _games(variant.name, games, first_seed, 40,
                  lambda rng: TenPointOracle(variant, moon_rate=rng.choice((0.0, 0.02))))


def _two_trump_games(games: int, first_seed: int) -> OracleStats:
    return _games("two-trump", games, first_seed, 30, lambda rng: TwoTrumpOracle())


@pytest.mark.parametrize("variant", TEN_POINT_FAMILY, ids=lambda v: v.name)
def test_ten_point_family_against_the_seed(variant: TenPoint) -> None:
    stats = _ten_point_games(variant, GAMES, 0)
    assert stats.hands >= GAMES and stats.plays_checked > 10 * GAMES


def test_two_trump_against_the_seed() -> None:
    stats = _two_trump_games(4 * GAMES, 0)
    assert stats.hands >= 4 * GAMES and stats.games_won  # some games are won within the hand cap


@pytest.mark.slow
@pytest.mark.parametrize("variant", TEN_POINT_FAMILY, ids=lambda v: v.name)
def test_ten_point_family_against_the_seed_long(variant: TenPoint) -> None:
    _ten_point_games(variant, SLOW_GAMES, 10_000)


@pytest.mark.slow
def test_two_trump_against_the_seed_long() -> None:
    _two_trump_games(4 * SLOW_GAMES, 10_000)
