"""The SPRT statistics (pure): pentanomial counting, Wald's bounds, the generalized LLR of
both Elo models, the Elo estimate, and the verdict.

Published values come from two sources, quoted where used:

* fastchess's own test file, ``app/tests/sprt_test.cpp`` (Disservin/fastchess at commit
  74deac23aadc6718fa0f8e24ac95d16392d79444), which checks its LLR to 1% (doctest's
  ``Approx(...).epsilon(0.01)``).  Its pentanomial constructor is
  ``Stats(ll, ld, wl, dd, wd, ww)``; the trinomial one ``Stats(wins, losses, draws)``.
* fishtest's ``server/fishtest/stats`` (official-stockfish/fishtest at commit
  b8eecff220b562a0dc2c4e68d1fa02521e06d72c), run unchanged with scipy 1.17: ``LLR_normalized``,
  ``LLR_logistic`` and ``stat_util.get_elo`` on the same counts.  Those printed values
  are pinned here to 1e-8 relative (fishtest finds its roots with brentq, we with Newton).
"""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from competitions.ratings.sprt import (
    EloModel,
    PairOutcome,
    Pentanomial,
    SprtState,
    elo_estimate,
    llr_many,
    llr_pentanomial,
    llr_trinomial,
    simulate_sprt,
    sprt_bounds,
    sprt_status,
)


def _penta(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> list[int]:
    """fastchess's six-way pair counts as the five pentanomial ones (WL and DD both score 1)."""
    return [ll, ld, wl + dd, wd, ww]


# fastchess, app/tests/sprt_test.cpp:
#   TEST_CASE("normalized pentanomial 1") { Stats stats(365, 16618, 36029, 200, 16974, 390);
#       SPRT sprt(0.05, 0.05, 0, 2, "normalized", true); ... Approx(2.25) ...
FASTCHESS_PENTANOMIAL = [
    ("normalized pentanomial 1", _penta(365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
    ("normalized pentanomial 2", _penta(127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    ("normalized pentanomial 3", _penta(0, 0, 0, 0, 0, 5550), 0, 5, "normalized", 111.82),
    ("logistic pentanomial 1", _penta(223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    ("logistic pentanomial 2", _penta(871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
]

# fastchess, app/tests/sprt_test.cpp: TEST_CASE("normalized trinomial 1") { Stats stats(36433, 36027, 68692);
#   SPRT sprt(0.05, 0.05, 0, 2, "normalized", true); ... Approx(0.92) ...   Stats(wins, losses, draws).
FASTCHESS_TRINOMIAL = [
    ("normalized trinomial 1", (36433, 36027, 68692), 0, 2, "normalized", 0.92),
    ("normalized trinomial 2", (10871, 10650, 20431), -1.75, 0.25, "normalized", 2.30),
    ("normalized trinomial 3", (4250, 0, 0), 0, 10, "normalized", 120.56),
    ("logistic trinomial 1", (21404, 21184, 40708), 0.5, 2.5, "logistic", -1.57),
    ("logistic trinomial 2", (57433, 57030, 106593), 0, 2, "logistic", -2.59),
]

# fishtest's LLRcalc.LLR_normalized(elo0, elo1, counts) and LLR_logistic(elo0, elo1, counts), printed
# by fishtest's own code; the sixth row is the pentanomial of stat_util.py's __main__ "SPRT tests".
FISHTEST_LLR = [
    ([365, 16618, 36229, 16974, 390], 0, 2, 2.250367703548933, -0.005919932562367311),
    ([127, 4883, 10712, 5150, 104], -1.75, 0.25, 3.010154196606051, 6.862003436310354),
    ([0, 0, 0, 0, 5550], 0, 5, 111.79755508671465, 79.29625114711668),
    ([223, 9863, 21279, 10037, 246], 0.5, 2.5, 0.40679895895907797, -3.0741264395890813),
    ([871, 26175, 55983, 26678, 821], 0, 2, 0.8044514731123966, -4.978672863444156),
    ([10789, 19328, 33806, 19402, 10543], -3, 1, 0.30086978548354076, 2.1310678117940807),
    ([3, 10, 20, 12, 5], 0, 10, 0.19412021646562794, 0.244589077112594),
    ([0, 4, 7, 9, 0], -5, 5, 0.2522764436199555, 0.4422394413260031),
]

# fishtest's stat_util.get_elo(counts) -> (elo, half width of the 95% interval, LOS).
FISHTEST_GET_ELO = [
    ([3, 10, 20, 12, 5], 20.87120466602867, 50.23605715757104, 0.7944601106383424),
    ([871, 26175, 55983, 26678, 821], 0.6333992114414927, 0.7521708182856797, 0.9505777953625363),
    ([0, 4, 7, 9, 0], 43.65337633772135, 59.91071993613261, 0.9275998280493325),
]


# ----------------------------------------------------------------------------- published values
@pytest.mark.parametrize(("name", "counts", "elo0", "elo1", "model", "published"), FASTCHESS_PENTANOMIAL)
def test_pentanomial_llr_matches_fastchess(name: str, counts: list[int], elo0: float, elo1: float,
                                           model: str, published: float) -> None:
    assert llr_pentanomial(counts, elo0, elo1, model) == pytest.approx(published, rel=0.01), name  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "stats", "elo0", "elo1", "model", "published"), FASTCHESS_TRINOMIAL)
def test_trinomial_llr_matches_fastchess(name: str, stats: tuple[int, int, int], elo0: float, elo1: float,
                                         model: str, published: float) -> None:
    wins, losses, draws = stats
    assert llr_trinomial([losses, draws, wins], elo0, elo1, model) == pytest.approx(published, rel=0.01), name  # type: ignore[arg-type]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "normalized", "logistic"), FISHTEST_LLR)
def test_pentanomial_llr_matches_fishtest_to_many_digits(counts: list[int], elo0: float, elo1: float,
                                                         normalized: float, logistic: float) -> None:
    assert llr_pentanomial(counts, elo0, elo1, "normalized") == pytest.approx(normalized, rel=1e-8, abs=1e-10)
    assert llr_pentanomial(counts, elo0, elo1, "logistic") == pytest.approx(logistic, rel=1e-8, abs=1e-10)


@pytest.mark.parametrize(("counts", "elo", "half_width", "los"), FISHTEST_GET_ELO)
def test_elo_estimate_matches_fishtest_get_elo(counts: list[int], elo: float, half_width: float, los: float) -> None:
    estimate = elo_estimate(counts)
    assert estimate.elo == pytest.approx(elo, rel=1e-9)
    assert (estimate.upper - estimate.lower) / 2 == pytest.approx(half_width, rel=1e-9)
    assert estimate.los == pytest.approx(los, rel=1e-9)
    assert estimate.lower < estimate.elo < estimate.upper
    assert estimate.normalized_lower < estimate.normalized < estimate.normalized_upper


def test_bounds_are_walds_and_fishtests() -> None:
    """fishtest's ``stat_util.SPRT(alpha=0.05, beta=0.05, ...)`` prints
    ``'lower_bound': -2.9444389791664403, 'upper_bound': 2.9444389791664403``."""
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.9444389791664403, rel=1e-15)
    assert upper == pytest.approx(2.9444389791664403, rel=1e-15)
    lower, upper = sprt_bounds(0.01, 0.1)
    assert lower == pytest.approx(math.log(0.1 / 0.99)) and upper == pytest.approx(math.log(0.9 / 0.01))
    for alpha, beta in ((0, 0.05), (0.05, 1), (0.6, 0.5), (-0.1, 0.1)):
        with pytest.raises(ValueError, match="alpha and beta"):
            sprt_bounds(alpha, beta)


# ----------------------------------------------------------------------------- properties
counts_strategy = st.lists(st.integers(0, 400), min_size=5, max_size=5).filter(lambda c: sum(c) > 0)
hypotheses = st.tuples(st.floats(-30, 30), st.floats(0.5, 30)).map(lambda t: (t[0], t[0] + t[1]))


@given(counts_strategy, hypotheses, st.sampled_from(["normalized", "logistic"]))
def test_swapping_new_and_old_negates_the_llr(counts: list[int], elos: tuple[float, float], model: str) -> None:
    """NEW's pairs read backwards are OLD's: testing ``-elo1`` against ``-elo0`` on them
    gives the opposite evidence."""
    elo0, elo1 = elos
    forward = llr_pentanomial(counts, elo0, elo1, model)  # type: ignore[arg-type]
    backward = llr_pentanomial(counts[::-1], -elo1, -elo0, model)  # type: ignore[arg-type]
    assert backward == pytest.approx(-forward, rel=1e-7, abs=1e-7)


@given(st.lists(st.integers(1, 200), min_size=5, max_size=5), st.integers(2, 5),
       st.sampled_from(["normalized", "logistic"]))
def test_llr_grows_in_proportion_to_the_evidence(counts: list[int], factor: int, model: str) -> None:
    """The same distribution observed ``k`` times as often carries ``k`` times the LLR."""
    once = llr_pentanomial(counts, 0, 5, model)  # type: ignore[arg-type]
    assert llr_pentanomial([factor * c for c in counts], 0, 5, model) == pytest.approx(  # type: ignore[arg-type]
        factor * once, rel=1e-7, abs=1e-7)


@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_llr_sign_follows_the_score(model: str) -> None:
    """Pairs clearly better than H1 favour H1, clearly worse than H0 favour H0, and evidence
    exactly between symmetric hypotheses favours neither."""
    better = [5, 20, 40, 60, 25]
    worse = better[::-1]
    even = [10, 20, 40, 20, 10]
    assert llr_pentanomial(better, 0, 5, model) > 0  # type: ignore[arg-type]
    assert llr_pentanomial(worse, 0, 5, model) < 0  # type: ignore[arg-type]
    assert llr_pentanomial(even, -5, 5, model) == pytest.approx(0.0, abs=1e-9)  # type: ignore[arg-type]
    assert llr_pentanomial(even, 0, 5, model) < 0 < llr_pentanomial(even, -5, 0, model)  # type: ignore[arg-type]


def test_no_pairs_no_evidence_and_the_vectorised_form_agrees_row_by_row() -> None:
    assert llr_pentanomial([0] * 5, 0, 5) == 0.0
    rows = np.array([[0, 0, 0, 0, 0], [3, 10, 20, 12, 5], [0, 4, 7, 9, 0], [871, 26175, 55983, 26678, 821]])
    models: tuple[EloModel, ...] = ("normalized", "logistic")
    for model in models:
        many = llr_many(rows, -1, 4, model)
        assert many.shape == (4,)
        assert list(many) == pytest.approx([llr_pentanomial(list(r), -1, 4, model) for r in rows],
                                           rel=1e-9, abs=1e-12)


def test_bad_llr_input_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="elo0 must be below elo1"):
        llr_pentanomial([1, 2, 3, 2, 1], 5, 5)
    with pytest.raises(ValueError, match="5 numbers"):
        llr_pentanomial([1, 2, 3], 0, 5)
    with pytest.raises(ValueError, match="not negative"):
        llr_pentanomial([1, -2, 3, 2, 1], 0, 5)
    with pytest.raises(ValueError, match="Elo model"):
        llr_pentanomial([1, 2, 3, 2, 1], 0, 5, "bayesian")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- counting pairs
def test_pair_outcomes_count_into_the_pentanomial() -> None:
    assert [PairOutcome.of_games(a, b) for a, b in ((0, 0), (0, 0.5), (1, 0), (0.5, 0.5), (1, 0.5), (1, 1))] == [
        PairOutcome.LL, PairOutcome.LD, PairOutcome.EVEN, PairOutcome.EVEN, PairOutcome.WD, PairOutcome.WW]
    penta = Pentanomial()
    for score in (2, 1.5, 1, 1, 0.5, 0, 2):
        penta.add(score)
    assert penta.counts == [1, 1, 2, 1, 2]
    assert (penta.pairs, penta.games, penta.points) == (7, 14, 8.0)
    assert PairOutcome.WD.score == 1.5


@pytest.mark.parametrize("bad", [2.5, -0.5, 0.25, float("nan"), float("inf")])
def test_impossible_pair_scores_are_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="a duplicate pair scores"):
        Pentanomial().add(bad)


def test_impossible_game_scores_and_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="a game scores"):
        PairOutcome.of_games(0.75, 0.25)
    with pytest.raises(ValueError, match="5 non-negative integer counts"):
        Pentanomial([1, 2, 3])
    with pytest.raises(ValueError, match="5 non-negative integer counts"):
        Pentanomial([1, 2, 3, -1, 0])


# ----------------------------------------------------------------------------- the verdict
def test_status_reports_the_verdict_at_each_bound() -> None:
    """The last fastchess pentanomial case (LLR -4.98 at [0, 2]) is past the lower bound:
    H0; the third (LLR 111.8 at [0, 5]) is past the upper one: H1."""
    rejected = sprt_status(_penta(871, 26175, 55003, 980, 26678, 821), 0, 2, 0.05, 0.05, "logistic")
    assert rejected.verdict == "H0" and rejected.llr < rejected.lower
    assert rejected.pairs == 110528 and rejected.games == 221056
    assert rejected.progress == 1.0
    accepted = sprt_status([0, 0, 0, 0, 5550], 0, 5)
    assert accepted.verdict == "H1" and accepted.counts == (0, 0, 0, 0, 5550)
    running = sprt_status([3, 10, 20, 12, 5], 0, 10)
    assert running.verdict is None
    assert running.progress == pytest.approx(0.19412021646562794 / running.upper)


def test_state_counts_pairs_until_a_bound_and_checks_its_parameters() -> None:
    state = SprtState(elo0=0, elo1=10)
    status = state.status()
    assert (status.llr, status.verdict, status.games) == (0.0, None, 0)
    llrs: list[float] = []
    while status.verdict is None and len(llrs) < 1000:
        status = state.add(2)  # NEW wins every game
        llrs.append(status.llr)
    assert status.verdict == "H1"
    assert state.pentanomial.counts == [0, 0, 0, 0, status.pairs]
    assert all(a < b for a, b in pairwise(llrs)), "every won pair is more evidence"
    assert llrs[-2] < status.upper <= llrs[-1]
    assert status.pairs == 74  # what simulate_sprt's all-won runs take too
    with pytest.raises(ValueError, match="elo0 must be below elo1"):
        SprtState(elo0=5, elo1=0)
    with pytest.raises(ValueError, match="alpha and beta"):
        SprtState(elo0=0, elo1=5, alpha=0.5, beta=0.5)


def test_simulated_tests_stop_at_a_bound_or_the_cap() -> None:
    """A coin-flip distribution between [0, 10] needs thousands of pairs: capped at 50,
    every run ends undecided after exactly 50; a bot that always wins twice ends at H1."""
    rng = np.random.default_rng(3)
    capped = simulate_sprt([0.25, 0, 0.5, 0, 0.25], 0, 10, rng, runs=20, max_pairs=50, batch=7)
    assert capped.rate("") == 1.0 and list(capped.pairs) == [50] * 20
    winning = simulate_sprt([0, 0, 0, 0, 1], 0, 10, rng, runs=3)
    assert winning.rate("H1") == 1.0 and list(winning.pairs) == [74] * 3  # as SprtState's all-won run
    with pytest.raises(ValueError, match="summing to 1"):
        simulate_sprt([0.5, 0.5, 0.5, 0, 0], 0, 10, rng, runs=1)
    with pytest.raises(ValueError, match="must be positive"):
        simulate_sprt([0, 0, 1], 0, 10, rng, runs=0)
