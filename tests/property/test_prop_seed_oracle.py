"""Random games of seed 003's ten-point family (five-handed included) and seed 004's
two-trump pitch, checked at every decision and every hand by ``seed_oracle`` (the seeds'
rules as constants, never the ruleset's options).  Seeded random games, one ``random.Random(seed)`` each for the
hand cap, the moon rate and every action, so a failure names the seed that replays it.
"""

from __future__ import annotations

import pytest
from seed_oracle import TEN_POINT_FAMILY, OracleStats, TenPoint, TenPointOracle, TwoTrumpOracle, play_games
from seed_oracle_five_handed import FiveHandedOracle

#: Games per preset in the default run, and in the ``slow`` run.
GAMES = 40
SLOW_GAMES = 150


def _ten_point_games(variant: TenPoint, games: int, first_seed: int) -> OracleStats:
    # half the games never shoot the moon (a shot moon ends the game), so that some reach 51 or 52
    return play_games(variant.name, games, first_seed, 40,
                  lambda rng: TenPointOracle(variant, moon_rate=rng.choice((0.0, 0.02))))


def _five_handed_games(games: int, first_seed: int) -> OracleStats:
    return play_games("five-handed", games, first_seed, 40,
                      lambda rng: FiveHandedOracle(moon_rate=rng.choice((0.0, 0.02))))


def _two_trump_games(games: int, first_seed: int) -> OracleStats:
    return play_games("two-trump", games, first_seed, 30, lambda rng: TwoTrumpOracle())


@pytest.mark.parametrize("variant", TEN_POINT_FAMILY, ids=lambda v: v.name)
def test_ten_point_family_against_the_seed(variant: TenPoint) -> None:
    stats = _ten_point_games(variant, GAMES, 0)
    assert stats.hands >= GAMES and stats.plays_checked > 10 * GAMES


def test_five_handed_against_the_seed() -> None:
    stats = _five_handed_games(4 * GAMES, 0)
    assert stats.hands >= 4 * GAMES and stats.plays_checked > 10 * GAMES and stats.games_won


def test_two_trump_against_the_seed() -> None:
    stats = _two_trump_games(4 * GAMES, 0)
    assert stats.hands >= 4 * GAMES and stats.games_won  # some games are won within the hand cap


@pytest.mark.slow
@pytest.mark.parametrize("variant", TEN_POINT_FAMILY, ids=lambda v: v.name)
def test_ten_point_family_against_the_seed_long(variant: TenPoint) -> None:
    _ten_point_games(variant, SLOW_GAMES, 10_000)


@pytest.mark.slow
def test_five_handed_against_the_seed_long() -> None:
    _five_handed_games(2 * SLOW_GAMES, 10_000)


@pytest.mark.slow
def test_two_trump_against_the_seed_long() -> None:
    _two_trump_games(4 * SLOW_GAMES, 10_000)
