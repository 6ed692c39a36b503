"""Ratings from match results: live Elo and the order-independent Bradley–Terry table.

Pure functions, no I/O: ``competitions.ratings.leaderboard`` keeps the live ratings in Redis and calls
these to compute every change, so the rating rules live in one place.

A rated result
    A match becomes a :class:`RatedMatch`: for each game, the bot ids of each party (seat
    ``s`` belongs to party ``s % parties``) and each party's standing (how many parties
    finished ahead of it; equal standings tie).  The winner is first even with fewer
    points (a pitcher going out), the other parties follow by final score, and a game
    without a winner (a tie at the hand limit) ranks every party by score.  A forfeit adds
    one game the forfeiting party lost and the others share; an aborted match
    (``completed`` false) rates nothing: it was not played out; nor does an *unrated* one
    (``unrated`` true: a seat's moves were mostly the referee's fallbacks, decided by the
    referee, see :mod:`referee.fallback_rule`), whose games were not its bots' play.

Pairwise comparisons
    Both ratings see a game as comparisons between every two parties, scored 1, ½ (equal
    standing) or 0, each weighted ``1/(parties-1)``: a game moves ratings as much whatever
    its number of players (a head-to-head game is one full comparison), and the pairs of a
    3+ player game, which share one deal, are not counted as that many independent games.
    A party's strength is the mean of its seats' ratings; every seat of a party receives the
    party's result.

Elo scale
    ``P(a beats b) = 1 / (1 + 10^((R_b - R_a) / 400))``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from google.protobuf import json_format

from pitch_sdk.proto.pitch.v1 import bot_pb2, game_pb2

#: Slope of the Elo logistic in natural units: ``P = sigmoid(ALPHA * difference)``.
ALPHA = math.log(10) / 400
#: Two-sided 95% normal quantile, for rating intervals.
Z95 = 1.959963984540054

MatchResultLike = bot_pb2.MatchResult | Mapping[str, Any]


@dataclass(frozen=True)
class EloConfig:
    """Rating parameters shared by the live Elo and the Bradley–Terry table.

    ``initial``: a new bot's rating, and the anchor of the table (so both columns are on
    the same scale: live Elo is zero-sum, so its mean stays at ``initial`` too).
    ``k``: the live K-factor per game.  16, not chess's 20–40: bots play hundreds of
    games and Pitch deals are luck-heavy, and at K the live rating of a bot of constant
    strength wanders about ``sqrt(K * 400 / (2 ln 10))`` (≈37 Elo at 16) around its true
    value.  All games of a match are rated from the ratings before the match.
    ``provisional_games``: rows of bots with fewer games carry a provisional mark.
    ``prior_draws``: virtual drawn games each bot plays against an opponent at the pool's
    level in the Bradley–Terry fit (BayesElo's device, a weak prior): it keeps the rating
    of an undefeated or winless bot finite, and is negligible after a few dozen games.
    """

    initial: float = 1500.0
    k: float = 16.0
    provisional_games: int = 30
    prior_draws: float = 2.0

    def __post_init__(self) -> None:
        if self.k <= 0 or self.prior_draws <= 0 or self.provisional_games < 0:
            raise ValueError("k and prior_draws must be positive, provisional_games not negative")


#: The documented defaults.
DEFAULT_CONFIG = EloConfig()


@dataclass(frozen=True)
class RatedGame:
    """One game: the bot ids of each party (one entry per seat) and each party's standing."""

    parties: tuple[tuple[str, ...], ...]
    standings: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.parties) < 2 or len(self.standings) != len(self.parties):
            raise ValueError("a rated game needs two or more parties and one standing per party")
        if not self.parties[0] or any(len(p) != len(self.parties[0]) for p in self.parties):
            raise ValueError("parties must have the same, non-zero number of seats (Elo stays zero-sum)")
        owners = {bot: i for i, party in enumerate(self.parties) for bot in party}
        if any(owners[bot] != i for i, party in enumerate(self.parties) for bot in party):
            raise ValueError("a bot may not sit in two parties of a rated game")

    def comparisons(self) -> Iterator[tuple[int, int, float]]:
        """``(party a, party b, score of a)`` for every pair ``a < b``."""
        for a in range(len(self.parties)):
            for b in range(a + 1, len(self.parties)):
                sa, sb = self.standings[a], self.standings[b]
                yield a, b, 1.0 if sa < sb else 0.5 if sa == sb else 0.0


@dataclass(frozen=True)
class RatedMatch:
    """A match as the ratings see it."""

    match_id: str
    preset: str
    games: tuple[RatedGame, ...]

    @property
    def bots(self) -> tuple[str, ...]:
        """Every bot that played, sorted."""
        return tuple(sorted({bot for game in self.games for party in game.parties for bot in party}))


def standings(scores: Sequence[int], winner: int | None) -> tuple[int, ...]:
    """Each party's standing: the winner first, then by final score; equal scores tie."""
    keys = [(p == winner, score) for p, score in enumerate(scores)]
    return tuple(sum(other > key for other in keys) for key in keys)


def rated_match(result: MatchResultLike) -> RatedMatch:
    """The rated view of a referee ``MatchResult`` (the protobuf or its stored JSON dict).

    A stored dict in the store's own form (``result_to_dict``: field names as in the proto,
    numbers as numbers) is read directly, ten times faster than through protobuf's JSON
    parser, which a refit of a large board would otherwise spend most of its time in; any
    other dict (camelCase names, numbers as strings, unknown fields) goes through the parser,
    which accepts or rejects it as protobuf does.  The fields the rating does not read
    (statuses, times) are not validated on the direct path."""
    if isinstance(result, bot_pb2.MatchResult):
        return _rated(_message_fields(result))
    fields = _dict_fields(result)
    if fields is None:
        return _rated(_message_fields(json_format.ParseDict(dict(result), bot_pb2.MatchResult())))
    return _rated(fields)


@dataclass(frozen=True)
class _ResultFields:
    """What the rating reads of a result: seats as (seat, bot id), games as (winner or None, scores)."""

    match_id: str
    preset: str
    parties: int
    party_wins: int
    seats: list[tuple[int, str]]
    completed: bool
    games: list[tuple[int | None, list[int]]]
    forfeited: bool
    forfeiting_party: int
    unrated: bool = False


def _message_fields(result: bot_pb2.MatchResult) -> _ResultFields:
    return _ResultFields(result.match_id, result.ruleset.name, result.ruleset.parties, len(result.party_wins),
                         [(seat.seat, seat.bot_id) for seat in result.seats], result.completed,
                         [(g.winner if g.has_winner else None, list(g.scores)) for g in result.games],
                         result.forfeited, result.forfeiting_party, result.unrated)


_FIELD_NAMES = {message: frozenset(f.name for f in message.DESCRIPTOR.fields)
                for message in (bot_pb2.MatchResult, bot_pb2.GameOutcome, bot_pb2.SeatOutcome)}
_RULESET_NAMES = frozenset(f.name for f in game_pb2.Ruleset.DESCRIPTOR.fields)


def _dict_fields(data: Mapping[str, Any]) -> _ResultFields | None:
    """The fields of a dict in the store's form, or ``None`` if it is in any other form."""

    def number(value: Any) -> bool:
        return type(value) is int and value >= 0

    ruleset, seats, games = data.get("ruleset", {}), data.get("seats", []), data.get("games", [])
    wins = data.get("party_wins", [])
    flags = [data.get(name, False) for name in ("completed", "forfeited", "unrated")]
    if (not _FIELD_NAMES[bot_pb2.MatchResult].issuperset(data) or not isinstance(ruleset, dict)
            or not _RULESET_NAMES.issuperset(ruleset) or not isinstance(seats, list) or not isinstance(games, list)
            or not isinstance(wins, list) or not all(type(flag) is bool for flag in flags)
            or not isinstance(data.get("match_id", ""), str) or not isinstance(ruleset.get("name", ""), str)
            or not number(ruleset.get("parties", 0)) or not number(data.get("forfeiting_party", 0))):
        return None
    seated: list[tuple[int, str]] = []
    for seat in seats:
        if (not isinstance(seat, dict) or not _FIELD_NAMES[bot_pb2.SeatOutcome].issuperset(seat)
                or not number(seat.get("seat", 0)) or not isinstance(seat.get("bot_id", ""), str)):
            return None
        seated.append((seat.get("seat", 0), seat.get("bot_id", "")))
    played: list[tuple[int | None, list[int]]] = []
    for game in games:
        if not isinstance(game, dict) or not _FIELD_NAMES[bot_pb2.GameOutcome].issuperset(game):
            return None
        winner, has_winner, scores = game.get("winner", 0), game.get("has_winner", False), game.get("scores", [])
        if (not number(winner) or type(has_winner) is not bool or not isinstance(scores, list)
                or not all(type(score) is int for score in scores)):
            return None
        played.append((winner if has_winner else None, scores))
    return _ResultFields(data.get("match_id", ""), ruleset.get("name", ""), ruleset.get("parties", 0), len(wins),
                         seated, flags[0], played, flags[1], data.get("forfeiting_party", 0), flags[2])


def _rated(result: _ResultFields) -> RatedMatch:
    count = result.parties or result.party_wins
    if count < 2:
        raise ValueError(f"match {result.match_id}: cannot tell its parties (ruleset.parties unset)")
    members: list[list[str]] = [[] for _ in range(count)]
    for seat, bot_id in sorted(result.seats, key=lambda s: s[0]):
        members[seat % count].append(bot_id)
    parties = tuple(tuple(m) for m in members)
    games: list[RatedGame] = []
    if result.completed and not result.unrated:
        for winner, scores in result.games:
            games.append(RatedGame(parties, standings(scores or [0] * count, winner)))
        if result.forfeited:
            games.append(RatedGame(parties, tuple(int(p == result.forfeiting_party) for p in range(count))))
    return RatedMatch(result.match_id, result.preset, tuple(games))


def expected_score(difference: float) -> float:
    """Elo's expected score of a party rated ``difference`` above its opponent."""
    return 1.0 / (1.0 + math.pow(10.0, -difference / 400.0))


@dataclass(frozen=True)
class EloUpdate:
    """A match's live-Elo effect: rating change and Fisher information gained, per bot.

    ``information`` (in 1/Elo²) is what the games told about the bot's rating with its
    partners' and opponents' ratings taken as known: ``α²·E(1-E)·w·c²`` per comparison,
    ``c`` the bot's share of its party's mean.  Summed over a bot's games it gives the live
    row's interval, ``rating ± 1.96/sqrt(information)``.
    """

    changes: dict[str, float]
    information: dict[str, float]


def elo_update(match: RatedMatch, ratings: Mapping[str, float], config: EloConfig) -> EloUpdate:
    """Live Elo for one match, every game rated from the pre-match ``ratings``.

    Partnerships: each partner gets ``K·w·(S - E)`` with ``E`` from its team's mean
    against the opposing team's mean.  (Taking the partner's own rating against the
    opponents' mean instead would not be zero-sum: 1800+1400 against 1500+1500 would
    create rating from nothing.)  Equal party sizes make the changes sum to zero.
    """
    changes: dict[str, float] = {}
    information: dict[str, float] = {}
    for game in match.games:
        means = [sum(ratings.get(b, config.initial) for b in party) / len(party) for party in game.parties]
        weight = 1.0 / (len(game.parties) - 1)
        party_change = [0.0] * len(game.parties)
        party_information = [0.0] * len(game.parties)
        for a, b, score in game.comparisons():
            expected = expected_score(means[a] - means[b])
            party_change[a] += config.k * weight * (score - expected)
            party_change[b] -= config.k * weight * (score - expected)
            gained = ALPHA**2 * expected * (1 - expected) * weight
            party_information[a] += gained
            party_information[b] += gained
        for p, party in enumerate(game.parties):
            for bot, seats in Counter(party).items():
                changes[bot] = changes.get(bot, 0.0) + seats * party_change[p]
                information[bot] = information.get(bot, 0.0) + party_information[p] * (seats / len(party)) ** 2
    return EloUpdate(changes, information)


@dataclass(frozen=True)
class Tally:
    """Games, wins and draws.  For a bot: a win is its party alone in first place, a draw
    a shared first place.  Head to head: a win is finishing above the other bot's party."""

    games: int = 0
    wins: int = 0
    draws: int = 0

    @property
    def losses(self) -> int:
        """Games neither won nor drawn."""
        return self.games - self.wins - self.draws

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.games + other.games, self.wins + other.wins, self.draws + other.draws)


def tallies(match: RatedMatch) -> dict[str, Tally]:
    """Per bot: the games it played in this match (once per game, whatever its seats)."""
    counts: dict[str, list[int]] = {}
    _add_tallies(counts, match)
    return {bot: Tally(*c) for bot, c in counts.items()}


def _add_tallies(counts: dict[str, list[int]], match: RatedMatch) -> None:
    """Add the match's games, wins and draws per bot to ``counts`` (plain lists: the
    Bradley–Terry table sums them over a whole board, where a Tally per game would dominate)."""
    for game in match.games:
        firsts = game.standings.count(0)
        for p, party in enumerate(game.parties):
            first = game.standings[p] == 0
            for bot in set(party):
                c = counts.setdefault(bot, [0, 0, 0])
                c[0] += 1
                c[1] += first and firsts == 1
                c[2] += first and firsts > 1


def head_to_head(match: RatedMatch) -> dict[tuple[str, str], Tally]:
    """Per ordered pair of opponents ``(a, b)``: a's results against b in this match."""
    out: dict[tuple[str, str], Tally] = {}
    for game in match.games:
        for a, b, score in game.comparisons():
            for bot_a in set(game.parties[a]):
                for bot_b in set(game.parties[b]):
                    for key, s in (((bot_a, bot_b), score), ((bot_b, bot_a), 1.0 - score)):
                        out[key] = out.get(key, Tally()) + Tally(1, int(s == 1.0), int(s == 0.5))
    return out


def los_from_counts(wins: int, losses: int) -> float:
    """Likelihood of superiority from decisive games (draws carry no information here):
    ``Φ((W - L) / sqrt(W + L))``, the normal approximation to the posterior probability
    that the first bot scores above 50% against the second (flat prior)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def los_from_ratings(difference: float, variance: float) -> float:
    """Likelihood of superiority from two ratings' normal posteriors: ``Φ(d / σ_d)``, with
    ``variance`` that of the difference (``σ_a² + σ_b² - 2·cov``)."""
    if variance <= 0:
        return 0.5 if difference == 0 else float(difference > 0)
    return 0.5 * (1.0 + math.erf(difference / math.sqrt(2.0 * variance)))


@dataclass(frozen=True)
class RatingRow:
    """One row of a rating table (live Elo or Bradley–Terry).

    ``lower``/``upper``: the 95% interval, ``None`` while nothing is known.  ``los_next``:
    the likelihood that this bot is stronger than the next row's, ``None`` on the last row.
    """

    rank: int
    bot_id: str
    rating: float
    lower: float | None
    upper: float | None
    games: int
    wins: int
    draws: int
    provisional: bool
    los_next: float | None = None

    @property
    def win_rate(self) -> float:
        """Games won outright, over games played."""
        return self.wins / self.games if self.games else 0.0


def bradley_terry(matches: Iterable[RatedMatch], config: EloConfig = DEFAULT_CONFIG) -> list[RatingRow]:
    """The maximum a posteriori Bradley–Terry table (Elo scale) of a set of matches.

    The same comparisons as the live Elo (party means, weight ``1/(parties-1)``, draws
    half a win), fitted jointly by Newton's method, plus ``config.prior_draws`` virtual
    draws per bot against a fixed opponent.  The design is sparse (a comparison row touches
    only its parties' bots): a board of 100,000 matches between 1,000 bots fits in seconds,
    where a dense rows × bots matrix would not fit in memory.  The table is then centred on
    ``config.initial``.  Intervals come from the observed Fisher information (the inverse
    Hessian at the optimum), taken for each rating relative to the pool's mean: games
    measure differences, never the pool's level.  LOS between neighbours uses the same
    covariance (the difference's variance).  Matches are deduplicated by id and the
    comparisons counted as integers in sorted order, so any order of the same results
    gives exactly the same table.
    """
    unique: dict[str, RatedMatch] = {}
    for match in matches:
        if unique.setdefault(match.match_id, match) != match:
            raise ValueError(f"two different results for match {match.match_id}")
    groups: dict[tuple[tuple[str, ...], tuple[str, ...], int], list[int]] = {}
    played: dict[str, list[int]] = {}
    for match in unique.values():
        for game in match.games:
            for a, b, score in game.comparisons():
                first, second = tuple(sorted(game.parties[a])), tuple(sorted(game.parties[b]))
                half_points = round(2 * score)
                if first > second:
                    first, second, half_points = second, first, 2 - half_points
                counts = groups.setdefault((first, second, len(game.parties) - 1), [0, 0])
                counts[0] += half_points
                counts[1] += 1
        _add_tallies(played, match)
    totals = {bot: Tally(*c) for bot, c in played.items()}
    bots = sorted(totals)
    if not bots:
        return []
    index = {bot: i for i, bot in enumerate(bots)}
    keys = sorted(groups)
    entry_rows: list[int] = []
    entry_columns: list[int] = []
    entry_values: list[float] = []
    trials = np.empty(len(keys) + len(bots))
    points = np.empty(len(keys) + len(bots))
    for row, key in enumerate(keys):
        first, second, pairs = key
        for party, sign in ((first, 1.0), (second, -1.0)):
            for bot in party:
                entry_rows.append(row)
                entry_columns.append(index[bot])
                entry_values.append(sign / len(party))
        half_points, count = groups[key]
        trials[row] = count / pairs
        points[row] = half_points / (2 * pairs)
    entry_rows.extend(range(len(keys), len(keys) + len(bots)))
    entry_columns.extend(range(len(bots)))
    entry_values.extend([1.0] * len(bots))
    trials[len(keys):] = config.prior_draws
    points[len(keys):] = config.prior_draws / 2
    design = _SparseDesign(np.array(entry_rows), np.array(entry_columns), np.array(entry_values),
                           len(keys) + len(bots), len(bots))
    ratings, covariance = _fit(design, trials, points)
    ratings -= ratings.mean()
    # The covariance of the centred ratings, (I - 1/n) C (I - 1/n), without two n³ products.
    means = covariance.mean(axis=0)
    covariance = covariance - means[:, None] - means[None, :] + means.mean()
    order = sorted(range(len(bots)), key=lambda i: (-float(ratings[i]), bots[i]))
    rows: list[RatingRow] = []
    for rank, i in enumerate(order, start=1):
        half_width = Z95 * math.sqrt(float(covariance[i, i]))
        los = None
        if rank < len(order):
            j = order[rank]
            los = los_from_ratings(float(ratings[i] - ratings[j]),
                                   float(covariance[i, i] + covariance[j, j] - 2 * covariance[i, j]))
        tally = totals[bots[i]]
        rating = config.initial + float(ratings[i])
        rows.append(RatingRow(rank, bots[i], rating, rating - half_width, rating + half_width, tally.games,
                              tally.wins, tally.draws, tally.games < config.provisional_games, los))
    return rows


class _SparseDesign:
    """The comparison design matrix as coordinates: entry ``k`` is ``values[k]`` at
    ``(rows[k], columns[k])``.  A row touches only its two parties' bots (and a prior row one
    bot), so products cost the number of entries, never rows × bots; duplicate coordinates
    add up, as in a dense matrix."""

    def __init__(self, rows: np.ndarray, columns: np.ndarray, values: np.ndarray, shape_rows: int,
                 shape_columns: int) -> None:
        order = np.argsort(rows, kind="stable")
        self.rows, self.columns, self.values = rows[order], columns[order], values[order]
        self.shape = (shape_rows, shape_columns)
        # Every ordered pair of entries sharing a row: what the Hessian ``Dᵀ W D`` sums over.
        starts = np.searchsorted(self.rows, np.arange(shape_rows))
        counts = np.bincount(self.rows, minlength=shape_rows)
        firsts: list[np.ndarray] = []
        seconds: list[np.ndarray] = []
        widest = int(counts.max()) if shape_rows else 0
        for d in range(widest):
            for e in range(widest):
                having = np.flatnonzero(counts > max(d, e))
                firsts.append(starts[having] + d)
                seconds.append(starts[having] + e)
        first, second = np.concatenate(firsts), np.concatenate(seconds)
        self._pair_rows = self.rows[first]
        self._pair_cells = self.columns[first] * shape_columns + self.columns[second]
        self._pair_values = self.values[first] * self.values[second]

    def times(self, vector: np.ndarray) -> np.ndarray:
        """``D @ vector`` (one value per row)."""
        return np.bincount(self.rows, weights=self.values * vector[self.columns], minlength=self.shape[0])

    def transposed_times(self, vector: np.ndarray) -> np.ndarray:
        """``Dᵀ @ vector`` (one value per column)."""
        return np.bincount(self.columns, weights=self.values * vector[self.rows], minlength=self.shape[1])

    def gram(self, weights: np.ndarray) -> np.ndarray:
        """``Dᵀ diag(weights) D``, dense (columns × columns: bots × bots is small)."""
        n = self.shape[1]
        return np.bincount(self._pair_cells, weights=self._pair_values * weights[self._pair_rows],
                           minlength=n * n).reshape(n, n)


def _fit(design: _SparseDesign, trials: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximise ``Σ points·log p + (trials - points)·log(1 - p)``, ``p = σ(α·design·r)``:
    damped Newton (the log-likelihood is strictly concave thanks to the prior rows).
    Returns the ratings (Elo, relative to the anchor) and their covariance."""

    def log_likelihood(r: np.ndarray) -> float:
        z = ALPHA * design.times(r)
        return float(-(points @ np.logaddexp(0.0, -z)) - (trials - points) @ np.logaddexp(0.0, z))

    r = np.zeros(design.shape[1])
    current = log_likelihood(r)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-ALPHA * design.times(r)))
        gradient = ALPHA * design.transposed_times(points - trials * p)
        hessian = ALPHA**2 * design.gram(trials * p * (1 - p))
        step = np.linalg.solve(hessian, gradient)
        t = 1.0
        while (candidate := log_likelihood(r + t * step)) < current + 1e-4 * t * float(gradient @ step) and t > 1e-8:
            t /= 2
        r, current = r + t * step, candidate
        if float(np.max(np.abs(t * step))) < 1e-9:
            break
    p = 1.0 / (1.0 + np.exp(-ALPHA * design.times(r)))
    hessian = ALPHA**2 * design.gram(trials * p * (1 - p))
    return r, np.linalg.inv(hessian)
