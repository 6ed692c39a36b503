"""The rating rules (pure): how a match result is read, live Elo, the Bradley–Terry table, LOS.

Known values are worked by hand from Elo's formula ``E = 1 / (1 + 10^(-d/400))``.
"""

from __future__ import annotations

import math
import random
from itertools import pairwise

import numpy as np
import pytest
from google.protobuf import json_format
from hypothesis import given
from hypothesis import strategies as st

from competitions.config import WorkerConfig
from competitions.ratings.model import (
    ALPHA,
    DEFAULT_CONFIG,
    Z95,
    EloConfig,
    RatedGame,
    RatedMatch,
    RatingRow,
    Tally,
    bradley_terry,
    elo_update,
    expected_score,
    head_to_head,
    los_from_counts,
    los_from_ratings,
    rated_match,
    standings,
    tallies,
)
from pitch_sdk.proto.pitch.v1 import bot_pb2
from store.results import result_to_dict
from tests.results import duel, match_result

K16 = EloConfig(k=16)


# ----------------------------------------------------------------------------- reading results
def test_standings_put_the_winner_first_even_with_fewer_points() -> None:
    assert standings([5, 8], winner=0) == (0, 1)
    assert standings([3, 9, 6], winner=0) == (0, 1, 2)
    assert standings([9, 3, 6], winner=1) == (1, 0, 2)
    assert standings([4, 6, 6], winner=None) == (2, 0, 0)
    assert standings([6, 6], winner=None) == (0, 0)


def test_partnership_result_groups_seats_by_party_and_reads_dicts_alike() -> None:
    """Seat ``s`` is in party ``s % 2``; the stored JSON dict reads the same as the protobuf."""
    result = match_result("m1", ["a", "b", "c", "d"], [(1, [12, 21]), (0, [21, 0])])
    rated = rated_match(result)
    assert rated == rated_match(result_to_dict(result))
    assert rated.preset == "partnership"
    assert [g.parties for g in rated.games] == [(("a", "c"), ("b", "d"))] * 2
    assert [g.standings for g in rated.games] == [(1, 0), (0, 1)]
    assert rated.bots == ("a", "b", "c", "d")


def test_forfeit_adds_a_lost_game_and_an_aborted_match_rates_nothing() -> None:
    forfeited = rated_match(match_result("m", ["a", "b"], [(0, [7, 2])], forfeiting=0))
    assert [g.standings for g in forfeited.games] == [(0, 1), (1, 0)]
    aborted = rated_match(match_result("m", ["a", "b"], [(0, [7, 2])], completed=False))
    assert aborted.games == ()


def test_a_bot_in_two_parties_or_unequal_parties_are_rejected() -> None:
    with pytest.raises(ValueError, match="two parties"):
        RatedGame((("a",), ("a",)), (0, 1))
    with pytest.raises(ValueError, match="same"):
        RatedGame((("a", "b"), ("c",)), (0, 1))


result_strategy = st.builds(
    lambda parties, size, games, forfeiting, completed, order: match_result(
        "m", [f"bot{(s * 7 + order) % (parties * size)}" for s in range(parties * size)],
        [(w, sc[:parties]) for w, sc in games], parties=parties,
        forfeiting=None if forfeiting is None else forfeiting % parties, completed=completed),
    st.integers(2, 4), st.integers(1, 2),
    st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 1)), st.lists(st.integers(-5, 30), min_size=4, max_size=4)),
             max_size=4),
    st.one_of(st.none(), st.integers(0, 3)), st.booleans(), st.integers(0, 7))


@given(result_strategy)
def test_a_stored_dict_reads_as_its_protobuf(result: bot_pb2.MatchResult) -> None:
    """The direct reading of the store's dicts agrees with the protobuf's; any other form of
    dict goes through protobuf's parser (camelCase names, numbers as strings) or is refused."""
    stored = result_to_dict(result)
    assert rated_match(stored) == rated_match(result)
    camel = json_format.MessageToDict(result)
    assert rated_match(camel) == rated_match(result)
    if stored.get("games"):
        quoted = {**stored, "games": [{**g, "scores": [str(x) for x in g.get("scores", [])]} for g in stored["games"]]}
        assert rated_match(quoted) == rated_match(result)
    with pytest.raises(json_format.ParseError):
        rated_match({**stored, "surprise": 1})


# ----------------------------------------------------------------------------- live Elo
def one_game(parties: tuple[tuple[str, ...], ...], ranks: tuple[int, ...]) -> RatedMatch:
    return RatedMatch("m", "p", (RatedGame(parties, ranks),))


def test_elo_known_values_for_two_players() -> None:
    """Equal ratings: ±K/2.  A 200-point favourite expects 0.7597 and wins 3.84 by winning."""
    even = elo_update(one_game((("a",), ("b",)), (0, 1)), {}, K16).changes
    assert even == pytest.approx({"a": 8.0, "b": -8.0})
    assert expected_score(200) == pytest.approx(0.75975, abs=1e-5)
    favourite = elo_update(one_game((("a",), ("b",)), (0, 1)), {"a": 1600, "b": 1400}, K16).changes
    assert favourite["a"] == pytest.approx(16 * (1 - 0.75975), abs=1e-3)
    draw = elo_update(one_game((("a",), ("b",)), (0, 0)), {"a": 1600, "b": 1400}, K16).changes
    assert draw["a"] == pytest.approx(16 * (0.5 - 0.75975), abs=1e-3)
    assert sum(draw.values()) == pytest.approx(0, abs=1e-12)


def test_partners_share_the_team_result_against_the_opposing_mean() -> None:
    """1800+1400 (mean 1600) beat 1500+1500: E = 0.6401, every partner ±16·0.3599."""
    ratings = {"a": 1800, "c": 1400, "b": 1500, "d": 1500}
    changes = elo_update(one_game((("a", "c"), ("b", "d")), (0, 1)), ratings, K16).changes
    step = 16 * (1 - expected_score(100))
    assert step == pytest.approx(5.758, abs=1e-3)
    assert changes == pytest.approx({"a": step, "c": step, "b": -step, "d": -step})


def test_three_players_compare_pairwise_with_k_over_n_minus_1() -> None:
    """Equal 1500s finishing 1st, 2nd, 3rd: +8, 0, -8; two sharing first: +4, +4, -8."""
    parties = (("a",), ("b",), ("c",))
    assert elo_update(one_game(parties, (0, 1, 2)), {}, K16).changes == pytest.approx({"a": 8, "b": 0, "c": -8})
    assert elo_update(one_game(parties, (0, 0, 1)), {}, K16).changes == pytest.approx({"a": 4, "b": 4, "c": -8})


def test_all_games_of_a_match_use_the_pre_match_ratings() -> None:
    """A win and a loss between equals cancel exactly (rated sequentially they would not)."""
    changes = elo_update(rated_match(duel("m", "a", "b", "wl")), {}, K16).changes
    assert changes == {"a": 0.0, "b": 0.0}


games_strategy = st.integers(2, 4).flatmap(lambda parties: st.integers(1, 2).flatmap(lambda size: st.lists(
    st.tuples(st.permutations(list("abcdefgh")), st.lists(st.integers(0, 3), min_size=parties, max_size=parties)),
    min_size=1, max_size=4).map(lambda games: tuple(
        RatedGame(tuple(tuple(bots[p * size:(p + 1) * size]) for p in range(parties)), tuple(ranks))
        for bots, ranks in games))))


@given(games_strategy, st.dictionaries(st.sampled_from(list("abcdefgh")), st.floats(800, 2400)))
def test_elo_is_zero_sum_per_match(games: tuple[RatedGame, ...], ratings: dict[str, float]) -> None:
    update = elo_update(RatedMatch("m", "p", games), ratings, DEFAULT_CONFIG)
    assert sum(update.changes.values()) == pytest.approx(0, abs=1e-9)
    assert all(v > 0 for v in update.information.values())


def test_tallies_and_head_to_head_count_each_game_once_per_bot() -> None:
    match = RatedMatch("m", "p", (RatedGame((("a", "a"), ("b", "c")), (0, 1)),
                                  RatedGame((("a", "a"), ("b", "c")), (0, 0))))
    counts = tallies(match)
    assert counts["a"].games == 2 and counts["a"].wins == 1 and counts["a"].draws == 1
    assert counts["b"].losses == 1
    versus = head_to_head(match)
    assert set(versus) == {("a", "b"), ("a", "c"), ("b", "a"), ("c", "a")}
    assert (versus["b", "a"].wins, versus["b", "a"].draws, versus["b", "a"].losses) == (0, 1, 1)


# ----------------------------------------------------------------------------- LOS
def test_los_sanity() -> None:
    assert los_from_counts(0, 0) == 0.5
    assert los_from_counts(10, 10) == 0.5
    assert los_from_counts(60, 40) == pytest.approx(0.9772, abs=1e-4)  # (60-40)/sqrt(100) = 2 sigma
    assert los_from_counts(40, 60) == pytest.approx(1 - los_from_counts(60, 40))
    assert los_from_counts(600, 400) > los_from_counts(60, 40)
    assert los_from_ratings(0, 100) == 0.5
    assert los_from_ratings(1.96 * 10, 100) == pytest.approx(0.975, abs=1e-4)
    assert los_from_ratings(5, 0) == 1.0


# ----------------------------------------------------------------------------- Bradley–Terry
TRUE = {"w": 1200.0, "x": 1350.0, "y": 1500.0, "z": 1650.0, "v": 1800.0}


def simulate(rounds: int, seed: int = 1) -> list[RatedMatch]:
    """Duels, rotating partnerships and 3-player games between bots of known strength:
    each party's performance is its mean strength plus Gumbel noise (scale 400/ln 10), so
    every two parties compare exactly as Elo's logistic says (a difference of two Gumbels
    is logistic)."""
    rng = random.Random(seed)
    bots = sorted(TRUE)
    matches = []

    def game(parties: tuple[tuple[str, ...], ...]) -> RatedGame:
        perf = [sum(TRUE[b] for b in p) / len(p) + 400 / math.log(10) * -math.log(-math.log(rng.random()))
                for p in parties]
        return RatedGame(parties, tuple(sum(o > q for o in perf) for q in perf))

    for r in range(rounds):
        rng.shuffle(bots)
        games = (game(((bots[0],), (bots[1],))), game(((bots[2],), (bots[3],))),
                 game(((bots[0], bots[2]), (bots[1], bots[4]))), game(((bots[1],), (bots[3],), (bots[4],))))
        matches.append(RatedMatch(f"m{r}", "mixed", games))
    return matches


def test_bradley_terry_recovers_the_order_of_known_strengths() -> None:
    table = bradley_terry(simulate(300))
    assert [row.bot_id for row in table] == sorted(TRUE, key=lambda b: -TRUE[b])
    assert [row.rank for row in table] == [1, 2, 3, 4, 5]
    spread = table[0].rating - table[-1].rating
    assert 450 < spread < 750  # the truth is 600
    assert all(row.lower < TRUE[row.bot_id] < row.upper for row in table)  # type: ignore[operator]
    assert all(row.los_next is not None and row.los_next > 0.9 for row in table[:-1])
    assert table[-1].los_next is None
    assert not any(row.provisional for row in table)


def test_intervals_shrink_with_more_games() -> None:
    def widths(rounds: int) -> dict[str, float]:
        return {r.bot_id: r.upper - r.lower for r in bradley_terry(simulate(rounds))}  # type: ignore[operator]

    few, many = widths(25), widths(400)
    assert all(many[b] < few[b] / 3 for b in TRUE)  # about sqrt(16) = 4 times narrower


def test_undefeated_bot_stays_finite_and_new_bots_are_provisional() -> None:
    table = bradley_terry([rated_match(duel("m", "champ", "chump", "wwwww"))], EloConfig(provisional_games=30))
    assert [row.bot_id for row in table] == ["champ", "chump"]
    assert table[0].rating < 1900 and table[1].rating > 1100
    assert table[0].rating - 1500 == pytest.approx(1500 - table[1].rating)
    assert all(row.provisional for row in table)
    assert table[0].games == 5 and table[0].win_rate == 1.0


def test_duplicate_and_conflicting_results() -> None:
    same = rated_match(duel("m", "a", "b", "wwl"))
    assert bradley_terry([same, same]) == bradley_terry([same])
    with pytest.raises(ValueError, match="two different results"):
        bradley_terry([same, rated_match(duel("m", "a", "b", "w"))])
    assert bradley_terry([]) == []


match_strategy = st.lists(games_strategy, min_size=1, max_size=8).map(
    lambda all_games: [RatedMatch(f"m{i}", "p", games) for i, games in enumerate(all_games)])


@given(match_strategy, st.randoms(use_true_random=False))
def test_same_results_in_any_order_give_the_same_table(matches: list[RatedMatch], rng: random.Random) -> None:
    shuffled = matches[:]
    rng.shuffle(shuffled)
    reordered = [RatedMatch(m.match_id, m.preset, tuple(rng.sample(m.games, len(m.games)))) for m in shuffled]
    assert bradley_terry(reordered) == bradley_terry(matches)


def dense_bradley_terry(matches: list[RatedMatch], config: EloConfig = DEFAULT_CONFIG) -> list[RatingRow]:
    """The reference: the table as first written, with a dense rows × bots design matrix and a
    dense Newton fit (fine on a handful of bots; the model's sparse fit must agree with it)."""
    groups: dict[tuple[tuple[str, ...], tuple[str, ...], int], list[int]] = {}
    for match in {m.match_id: m for m in matches}.values():
        for game in match.games:
            for a, b, score in game.comparisons():
                first, second = tuple(sorted(game.parties[a])), tuple(sorted(game.parties[b]))
                half_points = round(2 * score)
                if first > second:
                    first, second, half_points = second, first, 2 - half_points
                counts = groups.setdefault((first, second, len(game.parties) - 1), [0, 0])
                counts[0] += half_points
                counts[1] += 1
    totals = {bot: sum((tallies(m).get(bot, Tally()) for m in {m.match_id: m for m in matches}.values()), Tally())
              for bot in {b for m in matches for b in m.bots}}
    bots = sorted(totals)
    index = {bot: i for i, bot in enumerate(bots)}
    keys = sorted(groups)
    design = np.zeros((len(keys) + len(bots), len(bots)))
    trials, points = np.empty(len(keys) + len(bots)), np.empty(len(keys) + len(bots))
    for row, (first, second, pairs) in enumerate(keys):
        for bot in first:
            design[row, index[bot]] += 1.0 / len(first)
        for bot in second:
            design[row, index[bot]] -= 1.0 / len(second)
        half_points, count = groups[(first, second, pairs)]
        trials[row], points[row] = count / pairs, half_points / (2 * pairs)
    design[len(keys):] = np.eye(len(bots))
    trials[len(keys):], points[len(keys):] = config.prior_draws, config.prior_draws / 2

    def log_likelihood(r: np.ndarray) -> float:
        z = ALPHA * (design @ r)
        return float(-(points @ np.logaddexp(0.0, -z)) - (trials - points) @ np.logaddexp(0.0, z))

    r = np.zeros(len(bots))
    current = log_likelihood(r)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-ALPHA * (design @ r)))
        gradient = ALPHA * design.T @ (points - trials * p)
        step = np.linalg.solve(ALPHA**2 * (design.T * (trials * p * (1 - p))) @ design, gradient)
        t = 1.0
        while (candidate := log_likelihood(r + t * step)) < current + 1e-4 * t * float(gradient @ step) and t > 1e-8:
            t /= 2
        r, current = r + t * step, candidate
        if float(np.max(np.abs(t * step))) < 1e-9:
            break
    p = 1.0 / (1.0 + np.exp(-ALPHA * (design @ r)))
    covariance = np.linalg.inv(ALPHA**2 * (design.T * (trials * p * (1 - p))) @ design)
    r -= r.mean()
    centring = np.eye(len(bots)) - 1.0 / len(bots)
    covariance = centring @ covariance @ centring
    order = sorted(range(len(bots)), key=lambda i: (-float(r[i]), bots[i]))
    rows = []
    for rank, i in enumerate(order, start=1):
        j = order[rank] if rank < len(order) else None
        los = None if j is None else los_from_ratings(
            float(r[i] - r[j]), float(covariance[i, i] + covariance[j, j] - 2 * covariance[i, j]))
        half_width, tally = Z95 * math.sqrt(float(covariance[i, i])), totals[bots[i]]
        rating = config.initial + float(r[i])
        rows.append(RatingRow(rank, bots[i], rating, rating - half_width, rating + half_width, tally.games,
                              tally.wins, tally.draws, tally.games < config.provisional_games, los))
    return rows


def random_field(bots: int, matches: int, seats: int, parties: int, seed: int) -> list[RatedMatch]:
    """Random matches of ``parties`` parties of ``seats`` seats from ``bots`` bots, 1-3 games each
    (ties included; a bot may hold two seats of its party)."""
    rng = random.Random(seed)
    names = [f"b{i:02d}" for i in range(bots)]
    field = []
    for m in range(matches):
        chosen = rng.sample(names, seats * parties)
        if seats > 1 and rng.random() < 0.1:
            chosen[parties] = chosen[0]  # seat `parties` is party 0's second seat
        teams = tuple(tuple(chosen[s] for s in range(len(chosen)) if s % parties == p) for p in range(parties))
        games = tuple(RatedGame(teams, tuple(rng.randrange(parties) for _ in range(parties)))
                      for _ in range(rng.randint(1, 3)))
        field.append(RatedMatch(f"m{m}", "p", games))
    return field


def assert_same_table(got: list[RatingRow], want: list[RatingRow], tolerance: float = 1e-6) -> None:
    """Every bot's rating, interval and counts agree to ``tolerance``; so do the order and
    the LOS column, except among bots tied to within rounding (partners who only ever played
    together), whose order rounding decides."""
    by_bot = {row.bot_id: row for row in want}
    assert sorted(by_bot) == sorted(row.bot_id for row in got)
    for a in got:
        b = by_bot[a.bot_id]
        assert (a.games, a.wins, a.draws, a.provisional) == (b.games, b.wins, b.draws, b.provisional)
        assert (a.rating, a.lower, a.upper) == pytest.approx((b.rating, b.lower, b.upper), abs=tolerance)
    assert [a.rating for a in got] == pytest.approx([b.rating for b in want], abs=tolerance)
    ratings = [row.rating for row in want]
    if all(abs(x - y) > tolerance for x, y in pairwise(ratings)):
        assert [row.bot_id for row in got] == [row.bot_id for row in want]
        assert [a.los_next for a in got] == pytest.approx([b.los_next for b in want], abs=tolerance)


@pytest.mark.parametrize(("bots", "matches", "seats", "parties"),
                         [(6, 40, 1, 2), (10, 80, 2, 2), (9, 60, 1, 3), (12, 50, 2, 3), (4, 3, 1, 2)])
def test_sparse_fit_equals_the_dense_reference(bots: int, matches: int, seats: int, parties: int) -> None:
    for seed in range(3):
        field = random_field(bots, matches, seats, parties, seed)
        assert_same_table(bradley_terry(field), dense_bradley_terry(field))
    assert_same_table(bradley_terry(simulate(40)), dense_bradley_terry(simulate(40)))


@given(match_strategy)
def test_sparse_fit_equals_the_dense_reference_on_any_results(matches: list[RatedMatch]) -> None:
    """Degenerate fields too (a handful of games, 4-party draws): there both fits stop where
    the log-likelihood is flat to rounding (their line searches can no longer tell a
    better point), which leaves them a few 1e-6 apart on ±300 Elo intervals."""
    assert_same_table(bradley_terry(matches), dense_bradley_terry(matches), tolerance=1e-4)


def test_elo_parameters_come_from_the_workers_environment() -> None:
    """Initial rating, K-factor and the provisional threshold are configurable (and a bad
    value is refused with the variable's name)."""
    config = WorkerConfig.from_env({"PITCH_ELO_INITIAL": "1200", "PITCH_ELO_K": "24",
                                    "PITCH_ELO_PROVISIONAL_GAMES": "10"})
    assert (config.elo.initial, config.elo.k, config.elo.provisional_games) == (1200.0, 24.0, 10)
    with pytest.raises(ValueError, match="PITCH_ELO_K"):
        WorkerConfig.from_env({"PITCH_ELO_K": "fast"})
