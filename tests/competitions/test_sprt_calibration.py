"""SPRT calibration: two copies of one bot accept H1 in at most about alpha of the runs;
the heuristic bot against the random bot accepts H1.

Where the statistic is what is tested (error rates over hundreds of runs) the pairs are
drawn from a known distribution (:func:`competitions.ratings.sprt.simulate_sprt`); where the bots
are, real games are played on the engine (:func:`pitch_sdk.harness.pairs.play_pair`), no servers.
The slow test draws its equal-bots distribution from real games: two copies of a bot are
interchangeable, so each real pair's mirror image (NEW and OLD swapped) is as likely as the
pair itself, and the mirrored pool is a distribution whose true Elo difference is exactly 0.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable

import numpy as np
import pytest

from competitions.ratings.sprt import NELO_PER_T, Pentanomial, SprtState, simulate_sprt
from pitch_sdk.bot import Bot
from pitch_sdk.bots import HeuristicBot, RandomBot
from pitch_sdk.bots.noisy import NoisyHeuristicBot
from pitch_sdk.harness.pairs import play_pair
from pitch_sdk.rules import preset

ALPHA = BETA = 0.05
#: Pitch pairs between equal bots are mostly split (one game each) and never tied: 60
#: real pairs of two noisy heuristic copies (noise 0.3, partnership) scored 0 in 13, 1 in
#: 37 and 2 in 10; mirrored and rounded, this is that shape.
EQUAL_PAIRS = (0.2, 0.0, 0.6, 0.0, 0.2)


def _pairs_at(nelo: float, split: float = 0.4) -> tuple[float, float, float, float, float]:
    """A pair distribution with ``split`` of its pairs decided (0 or 2) whose normalized
    Elo is ``nelo``: with ``d = P(2) - P(0)``, the pair's t-value ``(d/2)/sqrt(split/4 - d²/4)``
    equals ``√2·nelo/(800/ln 10)`` (fishtest's pentanomial t)."""
    t = math.sqrt(2) * nelo / NELO_PER_T
    d = math.sqrt(split * t * t / (1 + t * t))
    return ((split - d) / 2, 0.0, 1 - split, 0.0, (split + d) / 2)


def _allowed(rate: float, runs: int) -> float:
    """``rate`` plus three binomial standard errors: the seeded runs must not exceed it."""
    return rate + 3 * math.sqrt(rate * (1 - rate) / runs)


def test_equal_bots_accept_h1_in_at_most_about_alpha_of_simulated_runs() -> None:
    runs = 200
    result = simulate_sprt(EQUAL_PAIRS, 0, 40, np.random.default_rng(15), runs=runs, alpha=ALPHA, beta=BETA, batch=4)
    assert result.rate("") == 0.0, "every run reaches a bound"
    assert result.rate("H1") <= _allowed(ALPHA, runs)
    assert result.rate("H0") >= 1 - _allowed(ALPHA, runs)


def test_a_bot_better_by_elo1_accepts_h1_in_at_least_about_1_minus_beta_of_simulated_runs() -> None:
    runs = 200
    at_elo1 = _pairs_at(40)
    assert sum(at_elo1) == pytest.approx(1.0)
    result = simulate_sprt(at_elo1, 0, 40, np.random.default_rng(16), runs=runs, alpha=ALPHA, beta=BETA, batch=4)
    assert result.rate("H0") <= _allowed(BETA, runs)
    assert result.rate("H1") >= 1 - _allowed(BETA, runs)


def _run_on_engine(new: Callable[[], Bot], old: Callable[[], Bot], seed: int, max_pairs: int,
                   elo0: float = 0, elo1: float = 10) -> tuple[str | None, int]:
    """One sequential test played on the engine pair by pair: its verdict and pairs."""
    rules = preset("partnership")
    state = SprtState(elo0, elo1, ALPHA, BETA)
    status = state.status()
    while status.verdict is None and status.pairs < max_pairs:
        status = state.add(play_pair(rules, new, old, seed * 100_003 + status.pairs))
    return status.verdict, status.pairs


def test_heuristic_against_random_accepts_h1_on_the_engine() -> None:
    """Real partnership games at [0, 50] (the slow test runs the issue's [0, 10]): the
    heuristic side wins (nearly) every pair, and H1 is accepted within 17 pairs, what 17
    pairs all won twice take at these bounds."""
    verdict, pairs = _run_on_engine(HeuristicBot, RandomBot, seed=1, max_pairs=100, elo1=50)
    assert verdict == "H1"
    assert pairs <= 17


@pytest.mark.slow
def test_calibration_on_real_games() -> None:
    """Equal bots from real games: 100 pairs of two noisy-heuristic copies, mirrored, drive
    300 simulated tests at [0, 20]: H1 in at most about alpha of them.  Then real
    heuristic-vs-random tests at the issue's [0, 10]: H1; the games needed are printed."""
    rules = preset("partnership")
    pool = Pentanomial()
    for seed in range(100):
        pool.add(play_pair(rules, lambda: NoisyHeuristicBot(0.3), lambda: NoisyHeuristicBot(0.3), 10_000 + seed))
    mirrored = np.array(pool.counts, dtype=np.float64) + np.array(pool.counts[::-1], dtype=np.float64)
    runs = 300
    equal = simulate_sprt(mirrored / mirrored.sum(), 0, 20, np.random.default_rng(17), runs=runs, batch=8)
    print(f"\nequal bots: real pairs {pool.counts}; H1 in {equal.rate('H1'):.3f} of {runs} runs, "
          f"median {int(np.median(equal.pairs)) * 2} games")
    assert equal.rate("H1") <= _allowed(ALPHA, runs)
    games: list[int] = []
    for seed in range(2):
        verdict, pairs = _run_on_engine(HeuristicBot, RandomBot, seed=100 + seed, max_pairs=300)
        assert verdict == "H1"
        games.append(2 * pairs)
    print(f"heuristic vs random: H1 in 2 of 2 runs, games {games}, median {statistics.median(games)}")
