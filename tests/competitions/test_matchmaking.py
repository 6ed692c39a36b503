"""Ladder matchmaking (pure): the expected-information score and the line-up choice."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from competitions.ratings.matchmaking import (
    PRIOR_SD,
    LineUp,
    Rating,
    lineup_score,
    next_lineup,
    pair_information,
    ratings_from_rows,
)
from competitions.ratings.model import Z95, RatedGame, RatedMatch, bradley_terry


def test_pair_information_has_the_documented_value() -> None:
    """Two single bots rated alike with sd 100: v = 2·100², p = ½, I = α²/4 with
    α = ln 10/400, so the information is ½·ln(1 + 20000·α²/4) = 0.07665 nats."""
    alpha = math.log(10) / 400
    expected = 0.5 * math.log(1 + 20000 * alpha**2 / 4)
    assert expected == pytest.approx(0.07665, abs=1e-5)
    assert pair_information([Rating(1500, 100)], [Rating(1500, 100)]) == pytest.approx(expected, rel=1e-12)
    # A team of two: its mean's variance is (100² + 100²)/4.
    team = [Rating(1400, 100), Rating(1600, 100)]
    assert pair_information(team, team) == pytest.approx(0.5 * math.log(1 + 10000 * alpha**2 / 4), rel=1e-12)


def test_information_peaks_at_closeness_and_grows_with_uncertainty() -> None:
    def info(gap: float, sd: float) -> float:
        return pair_information([Rating(1500 + gap, sd)], [Rating(1500, sd)])

    gaps = [info(gap, 60) for gap in (0, 50, 100, 200, 400, 800)]
    assert gaps == sorted(gaps, reverse=True) and gaps[-1] < gaps[0] / 10
    assert info(100, 60) == pytest.approx(info(-100, 60), rel=1e-12)
    sds = [info(0, sd) for sd in (10, 50, 100, 300)]
    assert sds == sorted(sds) and sds[0] < sds[-1] / 10


def test_line_up_seats_partners_alternately() -> None:
    assert LineUp((("a", "c"), ("b", "d")), 0.1).seats == ("a", "b", "c", "d")
    assert LineUp((("x",), ("y",), ("z",)), 0.1).seats == ("x", "y", "z")


def _field(n: int, sd: float = 40.0, step: float = 50.0) -> dict[str, Rating]:
    return {f"b{i:02d}": Rating(1500 + step * i, sd) for i in range(n)}


@pytest.mark.parametrize(("players", "team_size"), [(4, 2), (4, 1), (3, 1), (5, 1)])
def test_line_ups_fill_the_preset_seats_with_distinct_bots_deterministically(players: int, team_size: int) -> None:
    ratings = _field(12)
    first = [next_lineup(ratings, players, team_size, random.Random(seed)) for seed in range(20)]
    again = [next_lineup(ratings, players, team_size, random.Random(seed)) for seed in range(20)]
    assert first == again
    for lineup in first:
        assert len(lineup.seats) == players and len(set(lineup.seats)) == players
        assert all(len(team) == team_size for team in lineup.teams)
        assert len(lineup.teams) == players // team_size


def test_line_ups_are_close_in_rating() -> None:
    """In a spread field of equally well-known bots a head-to-head line-up pairs
    neighbours: the gap is one step (50 Elo), never across the field."""
    ratings = _field(16)
    for seed in range(30):
        (a,), (b,) = next_lineup(ratings, 2, 1, random.Random(seed)).teams
        assert abs(ratings[a].mean - ratings[b].mean) == 50


def test_newcomers_are_matched_first() -> None:
    """A bot with no games (prior sd 350) among bots known to ±20 Elo is the anchor almost
    every time (weight 350² against 20² each) and so plays in almost every line-up."""
    ratings = _field(9, sd=20.0)
    ratings["newcomer"] = Rating(1500, PRIOR_SD)
    chosen = sum("newcomer" in next_lineup(ratings, 4, 2, random.Random(seed)).seats for seed in range(100))
    assert chosen >= 90


def test_partners_rotate() -> None:
    """Four equal bots: every split scores alike, so the first (a with b) wins; once a and
    b have partnered, and then a and c, the choice moves to the split not yet played."""
    ratings = {bot: Rating(1500, 50) for bot in "abcd"}
    first = next_lineup(ratings, 4, 2, random.Random(1))
    assert first.teams == (("a", "b"), ("c", "d"))
    partnered: Counter[frozenset[str]] = Counter({frozenset("ab"): 1, frozenset("cd"): 1})
    second = next_lineup(ratings, 4, 2, random.Random(1), partnered=partnered)
    assert second.teams == (("a", "c"), ("b", "d"))
    partnered.update({frozenset("ac"): 1, frozenset("bd"): 1})
    assert next_lineup(ratings, 4, 2, random.Random(1), partnered=partnered).teams == (("a", "d"), ("b", "c"))
    assert lineup_score((("a", "b"), ("c", "d")), ratings, partnered) == pytest.approx(
        lineup_score((("a", "b"), ("c", "d")), ratings) / 4)


def test_impossible_requests_are_refused() -> None:
    with pytest.raises(ValueError, match="4 different bots, only 3"):
        next_lineup(_field(3), 4, 2, random.Random(0))
    with pytest.raises(ValueError, match="cannot seat 4 players"):
        next_lineup(_field(6), 4, 3, random.Random(0))
    with pytest.raises(ValueError, match="cannot seat 4 players"):
        next_lineup(_field(6), 4, 4, random.Random(0))
    with pytest.raises(ValueError, match="candidates"):
        next_lineup(_field(6), 4, 2, random.Random(0), candidates=2)
    with pytest.raises(ValueError, match="positive sd"):
        Rating(1500, 0)


def test_ratings_come_from_the_bradley_terry_table() -> None:
    """A row's sd is its 95% half-width over 1.96; a bot without a row gets the prior."""
    games = tuple(RatedGame((("a",), ("b",)), (0, 1) if i % 3 else (1, 0)) for i in range(30))
    rows = bradley_terry([RatedMatch("m", "heads-up", games)])
    beliefs = ratings_from_rows(rows, ["a", "b", "new"])
    row_a = next(row for row in rows if row.bot_id == "a")
    assert row_a.lower is not None and row_a.upper is not None
    assert beliefs["a"] == Rating(row_a.rating, (row_a.upper - row_a.lower) / (2 * Z95))
    assert beliefs["a"].mean > beliefs["b"].mean
    assert beliefs["new"] == Rating(1500.0, PRIOR_SD)
