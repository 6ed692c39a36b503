"""Ladder matchmaking: which line-up to play next, from ratings and their uncertainty.

Pure, no I/O: the ladder scheduler passes the connected bots' ratings (the Bradley–Terry
table's values and intervals: :func:`ratings_from_rows`) and an ``rng``, and gets one
:class:`LineUp`; the same inputs and rng state always give the same line-up.

The score of a line-up: expected information
    A line-up's parties are compared pairwise, as the ratings see a game
    (:mod:`competitions.ratings.model`: a party's strength is its members' mean rating).  For two
    parties the rating difference ``D`` is uncertain, ``D ~ N(d, v)`` with ``d`` the
    difference of the means and ``v`` the sum of the two party means' variances (a party
    of ``k`` bots: ``Σσ²/k²``).  One game's comparison is a logistic observation of ``D``
    with Fisher information ``I = α²·p·(1-p)``, ``α = ln 10/400`` and ``p`` the expected
    score averaged over the uncertainty (the probit approximation
    ``p = σ(α·d / sqrt(1 + π·α²·v/8))``).  The information the game carries about ``D`` is
    the Gaussian one, ``½·ln(1 + v·I)`` nats: largest when the parties are close (``p``
    near ½) and uncertain (``v`` large), near zero for a foregone result between
    well-known bots.  This is TrueSkill's matchmaking idea (its "match quality" is the draw
    probability, which also peaks at closeness) put in information units.  The line-up's
    score is the mean over its pairs of parties (weight ``1/(parties-1)`` each, as the
    ratings weigh them), so line-ups of every size compare on one scale.

Partner rotation
    For partnership presets the score is divided by ``1 + n`` for each partner pair that
    has partnered ``n`` times already (``partnered``): a bot's rating is the mean over its
    partners, so it is measured best with many different partners, and a fixed pair would
    learn only their sum.

The search
    Enumerating every line-up is the round robin's cost (C(n, 4)·3 for partnerships), so
    the choice is local: an *anchor* bot is drawn with probability proportional to its
    rating variance (the least known bots play most, and every bot keeps some chance),
    the ``candidates`` bots rated nearest to it join the pool, and every split of every
    group of ``players`` pool bots containing the anchor into teams is scored (bots equally
    near are taken in the rng's order).  Ties go to the first line-up in sorted order, so
    the rng is the only source of variation.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from competitions.ratings.model import ALPHA, DEFAULT_CONFIG, Z95, RatingRow

#: Standard deviation (Elo) of a bot with no rated games: wide enough that a newcomer is
#: matched first and placed after a few games, like the Bradley–Terry prior's width.
PRIOR_SD = 350.0
#: Bots rated nearest the anchor that are considered for its line-up.
DEFAULT_CANDIDATES = 8


@dataclass(frozen=True)
class Rating:
    """A bot's rating as a normal belief: ``mean`` and standard deviation ``sd``, in Elo."""

    mean: float
    sd: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mean) and math.isfinite(self.sd) and self.sd > 0):
            raise ValueError(f"a rating needs a finite mean and a positive sd, got {self.mean}, {self.sd}")


@dataclass(frozen=True)
class LineUp:
    """The chosen line-up: ``teams[p]`` plays as party ``p``; ``score`` its expected
    information in nats (see the module doc)."""

    teams: tuple[tuple[str, ...], ...]
    score: float

    @property
    def seats(self) -> tuple[str, ...]:
        """The bot in each seat: member ``k`` of team ``p`` sits in seat ``p + k·parties``
        (the rules engine's alternate seating, as :mod:`competitions.tournaments.schedule` does)."""
        parties, size = len(self.teams), len(self.teams[0])
        return tuple(self.teams[s % parties][s // parties] for s in range(parties * size))


def ratings_from_rows(rows: Iterable[RatingRow], bots: Iterable[str], *, prior_sd: float = PRIOR_SD,
                      initial: float = DEFAULT_CONFIG.initial) -> dict[str, Rating]:
    """Beliefs for ``bots`` from a rating table: a row's 95% interval gives its sd
    (``(upper - lower) / (2·1.96)``); a bot without a row (or without an interval) gets
    ``initial`` and ``prior_sd``."""
    by_bot = {row.bot_id: row for row in rows}
    beliefs: dict[str, Rating] = {}
    for bot in bots:
        row = by_bot.get(bot)
        if row is None or row.lower is None or row.upper is None or row.upper <= row.lower:
            beliefs[bot] = Rating(initial, prior_sd)
        else:
            beliefs[bot] = Rating(row.rating, (row.upper - row.lower) / (2 * Z95))
    return beliefs


def pair_information(first: Sequence[Rating], second: Sequence[Rating]) -> float:
    """Expected information (nats) of one comparison between two parties of these ratings."""
    difference = _mean(first) - _mean(second)
    variance = _variance(first) + _variance(second)
    p = 1.0 / (1.0 + math.exp(-ALPHA * difference / math.sqrt(1.0 + math.pi * ALPHA**2 * variance / 8.0)))
    return 0.5 * math.log1p(variance * ALPHA**2 * p * (1.0 - p))


def lineup_score(teams: Sequence[Sequence[str]], ratings: Mapping[str, Rating],
                 partnered: Mapping[frozenset[str], int] | None = None) -> float:
    """The score of a line-up: the mean expected information over its pairs of parties,
    divided by ``1 + n`` for each partner pair that partnered ``n`` times before."""
    parties = [[ratings[bot] for bot in team] for team in teams]
    pairs = list(itertools.combinations(range(len(parties)), 2))
    score = sum(pair_information(parties[a], parties[b]) for a, b in pairs) / len(pairs)
    for team in teams:
        for x, y in itertools.combinations(team, 2):
            score /= 1 + (partnered or {}).get(frozenset((x, y)), 0)
    return score


def next_lineup(ratings: Mapping[str, Rating], players: int, team_size: int, rng: random.Random, *,
                partnered: Mapping[frozenset[str], int] | None = None,
                candidates: int = DEFAULT_CANDIDATES) -> LineUp:
    """The next line-up for a ladder over the bots in ``ratings`` (the ones free to play):
    ``players`` seats in teams of ``team_size`` (a preset's ``seating``), chosen as the
    module doc describes.  ``partnered`` counts past games of each partner pair."""
    if team_size < 1 or players < 2 or players % team_size or players // team_size < 2:
        raise ValueError(f"cannot seat {players} players in two or more teams of {team_size}")
    if len(ratings) < players:
        raise ValueError(f"a line-up needs {players} different bots, only {len(ratings)} available")
    if candidates < players - 1:
        raise ValueError(f"candidates must be at least {players - 1}, got {candidates}")
    bots = sorted(ratings)
    anchor = rng.choices(bots, weights=[ratings[bot].sd ** 2 for bot in bots])[0]
    centre = ratings[anchor].mean
    # Shuffled first, so that bots equally near (a new field, all at the prior) are taken
    # in random order rather than by name: the sort keeps the shuffled order among ties.
    shuffled = [bot for bot in bots if bot != anchor]
    rng.shuffle(shuffled)
    others = sorted(shuffled, key=lambda bot: abs(ratings[bot].mean - centre))
    pool = sorted(others[:candidates])
    best: LineUp | None = None
    for group in itertools.combinations(pool, players - 1):
        for teams in _splits((anchor, *group), team_size):
            score = lineup_score(teams, ratings, partnered)
            if best is None or score > best.score:
                best = LineUp(teams, score)
    assert best is not None  # the pool holds at least players - 1 bots
    return best


def _splits(bots: tuple[str, ...], size: int) -> Iterator[tuple[tuple[str, ...], ...]]:
    """Every way to split ``bots`` into unordered teams of ``size`` (teams sorted, and
    the teams in sorted order): 3 ways for four bots in pairs, 1 for singles."""
    if not bots:
        yield ()
        return
    first, rest = min(bots), sorted(set(bots) - {min(bots)})
    for mates in itertools.combinations(rest, size - 1):
        team = (first, *mates)
        remaining = tuple(bot for bot in rest if bot not in mates)
        for tail in _splits(remaining, size):
            yield tuple(sorted((team, *tail)))


def _mean(party: Sequence[Rating]) -> float:
    return sum(r.mean for r in party) / len(party)


def _variance(party: Sequence[Rating]) -> float:
    return sum(r.sd**2 for r in party) / len(party) ** 2
