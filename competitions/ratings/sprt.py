"""The sequential probability ratio test between two bots, as fishtest and fastchess run it.

Pure functions, no I/O: the ``pitch-arena sprt`` command feeds it duplicate pairs and asks
for a :class:`SprtStatus` after each one.

Duplicate pairs and the pentanomial
    NEW and OLD play a *pair* of games on the same deals with the seats swapped, so the
    luck of the cards cancels.  NEW scores 1, ½ or 0 per game (win, tie, loss), hence 0, ½,
    1, 1½ or 2 per pair: the five counts of the pentanomial (LL, LD, WL+DD, WD, WW).  The
    two games of a pair share their deals, so they are not independent samples: the pair
    is (fishtest's pentanomial model).  How much the shared deals buy in Pitch is measured
    by bench/duplicate_deals.py: little over full games, more in short ones.

The log-likelihood ratio
    The *generalized* LLR of the observed pair-score distribution: the likelihood of the
    counts under the most likely distribution with expectation at H1 over the most likely
    one at H0 (Van den Bergh, "Comparing the approximations for the generalized log
    likelihood ratio of a multinomial distribution" and "Comments on normalized Elo",
    cantate.be/Fishtest).  Zero counts are replaced by 1e-3 first, as fishtest and
    fastchess do.  Two Elo models, as in both tools:

    ``"logistic"``
        H: the expected score per game is ``1 / (1 + 10^(-elo/400))``.
    ``"normalized"`` (fishtest's and fastchess's default)
        H: ``(mu - ½) / sigma_pair · √2 · 800/ln 10 = nelo``, the score's distance from
        even in units of its own per-pair standard deviation.  Unlike logistic Elo it does
        not depend on the draw rate, so one ``[0, 2]`` test means the same thing for every
        preset.

    Code follows fishtest's ``server/fishtest/stats/LLRcalc.py`` (``LLR_logistic``,
    ``LLR_normalized``: the functions fishtest's ``update_SPRT`` uses) and fastchess's
    ``app/src/matchmaking/sprt/sprt.cpp``; the tests reproduce fastchess's published values.
    The root of each secular equation is found by safeguarded Newton steps (fishtest uses
    scipy's brentq; scipy is not a dependency here and the equation is monotone).

Bounds and verdict
    Wald's bounds ``lower = ln(β/(1-α))``, ``upper = ln((1-β)/α)``: H1 is accepted when the
    LLR reaches ``upper``, H0 when it reaches ``lower`` (fastchess's inclusive test).

Elo estimate
    The fixed-sample estimate of fishtest's ``stat_util.get_elo`` from the pair counts:
    the mean score per game, its 95% interval from the per-pair variance, and the
    likelihood of superiority.  It is not corrected for the sequential stopping
    (fishtest's ``sprt.py`` does that with a Brownian-motion model), so after an early stop
    it leans away from zero; the verdict, not the estimate, is what the test guarantees.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Literal

import numpy as np
import numpy.typing as npt

from competitions.ratings.model import Z95

#: fishtest's ``nelo_divided_by_nt``: normalized Elo per unit of t-value (≈347.4).
NELO_PER_T = 800 / math.log(10)
#: What a zero count is replaced by before the LLR (fishtest's and fastchess's ``regularize``).
REGULARIZATION = 1e-3
#: NEW's possible scores over one duplicate pair, in pentanomial order.
PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)

EloModel = Literal["normalized", "logistic"]
Verdict = Literal["H0", "H1"]
FloatArray = npt.NDArray[np.float64]


class PairOutcome(IntEnum):
    """A duplicate pair's result for NEW, as its index in the pentanomial (= twice its score)."""

    LL = 0
    LD = 1
    EVEN = 2
    """A win and a loss, or two ties: fishtest's ``LW+DD+WL``."""
    WD = 3
    WW = 4

    @property
    def score(self) -> float:
        """NEW's points over the pair: 0, 0.5, 1, 1.5 or 2."""
        return self.value / 2

    @classmethod
    def of_score(cls, pair_score: float) -> PairOutcome:
        """The outcome of a pair NEW scored ``pair_score`` in (0, 0.5, 1, 1.5 or 2)."""
        doubled = 2 * pair_score
        if not math.isfinite(doubled) or doubled != round(doubled) or not 0 <= doubled <= 4:
            raise ValueError(f"a duplicate pair scores 0, 0.5, 1, 1.5 or 2, got {pair_score!r}")
        return cls(int(doubled))

    @classmethod
    def of_games(cls, first: float, second: float) -> PairOutcome:
        """The outcome of a pair from NEW's score in each game (1 win, 0.5 tie, 0 loss)."""
        for score in (first, second):
            if score not in (0, 0.5, 1):
                raise ValueError(f"a game scores 0, 0.5 or 1, got {score!r}")
        return cls.of_score(first + second)


@dataclass
class Pentanomial:
    """Counts of duplicate pairs by NEW's score: ``counts[i]`` pairs scored ``i/2``."""

    counts: list[int] = field(default_factory=lambda: [0] * 5)

    def __post_init__(self) -> None:
        if len(self.counts) != 5 or any(type(c) is not int or c < 0 for c in self.counts):
            raise ValueError(f"a pentanomial is 5 non-negative integer counts, got {self.counts!r}")

    def add(self, pair_score: float) -> PairOutcome:
        """Count one pair NEW scored ``pair_score`` in; returns its outcome."""
        outcome = PairOutcome.of_score(pair_score)
        self.counts[outcome] += 1
        return outcome

    @property
    def pairs(self) -> int:
        """Duplicate pairs counted."""
        return sum(self.counts)

    @property
    def games(self) -> int:
        """Games counted (two per pair)."""
        return 2 * self.pairs

    @property
    def points(self) -> float:
        """NEW's total score over every game."""
        return sum(i * c for i, c in enumerate(self.counts)) / 2


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds ``(ln(β/(1-α)), ln((1-β)/α))`` for false-positive rate ``alpha``
    and false-negative rate ``beta``: (-2.944, 2.944) at 0.05/0.05."""
    _check_errors(alpha, beta)
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def llr_pentanomial(counts: Sequence[int] | Pentanomial, elo0: float, elo1: float,
                    model: EloModel = "normalized") -> float:
    """The generalized LLR of H1 (``elo1``) against H0 (``elo0``) for pentanomial counts
    (LL, LD, WL+DD, WD, WW), Elo in ``model``'s units.  No pairs, no evidence: 0."""
    values = counts.counts if isinstance(counts, Pentanomial) else list(counts)
    if len(values) != 5:
        raise ValueError(f"pentanomial counts are 5 numbers, got {len(values)}")
    return float(llr_many(np.asarray(values, dtype=np.float64), elo0, elo1, model))


def llr_trinomial(counts: Sequence[int], elo0: float, elo1: float, model: EloModel = "normalized") -> float:
    """The same LLR for independent games counted as (losses, ties, wins): the model of
    games that share no deals.  No games, no evidence: 0."""
    if len(counts) != 3:
        raise ValueError(f"trinomial counts are 3 numbers, got {len(counts)}")
    return float(llr_many(np.asarray(counts, dtype=np.float64), elo0, elo1, model))


def llr_many(counts: npt.ArrayLike, elo0: float, elo1: float, model: EloModel = "normalized") -> FloatArray:
    """The LLR of each row of ``counts`` (shape ``(..., 5)`` pentanomial or ``(..., 3)``
    trinomial), vectorised so that a calibration can follow thousands of simulated tests
    at once; :func:`llr_pentanomial` is its one-row case."""
    if elo0 >= elo1:
        raise ValueError(f"elo0 must be below elo1, got {elo0} and {elo1}")
    if model not in ("normalized", "logistic"):
        raise ValueError(f"the Elo model is 'normalized' or 'logistic', got {model!r}")
    raw = np.asarray(counts, dtype=np.float64)
    if raw.ndim == 0 or raw.shape[-1] not in (3, 5):
        raise ValueError("counts need a last axis of 5 (pentanomial) or 3 (trinomial)")
    if not np.all(np.isfinite(raw)) or np.any(raw < 0):
        raise ValueError("counts must be finite and not negative")
    empty = raw.sum(axis=-1) == 0
    regularized = np.where(raw == 0, REGULARIZATION, raw)
    total = regularized.sum(axis=-1)
    observed = regularized / total[..., None]
    width = raw.shape[-1]
    values = np.linspace(0.0, 1.0, width)
    if model == "logistic":
        p0, p1 = (_mle_expectation(observed, values, _logistic_score(elo)) for elo in (elo0, elo1))
    else:
        # A pair's t-value is √2 times a game's: two games' worth of evidence per sample.
        scale = math.sqrt(2.0) if width == 5 else 1.0
        p0, p1 = (_mle_t_value(observed, values, scale * elo / NELO_PER_T) for elo in (elo0, elo1))
    llr = total * np.sum(observed * (np.log(p1) - np.log(p0)), axis=-1)
    return np.asarray(np.where(empty, 0.0, llr), dtype=np.float64)


@dataclass(frozen=True)
class EloEstimate:
    """A fixed-sample Elo estimate from pair counts (fishtest's ``get_elo``).

    ``elo``, ``lower``, ``upper``: logistic Elo and its 95% interval.  ``normalized``,
    ``normalized_lower``, ``normalized_upper``: the same in normalized Elo.  ``los``: the
    likelihood that NEW is the stronger, ``Φ((mu - ½)/se)``.
    """

    elo: float
    lower: float
    upper: float
    normalized: float
    normalized_lower: float
    normalized_upper: float
    los: float


def elo_estimate(counts: Sequence[int] | Pentanomial) -> EloEstimate:
    """NEW's Elo over OLD from pentanomial counts, with 95% intervals (see the module doc)."""
    values = counts.counts if isinstance(counts, Pentanomial) else list(counts)
    if len(values) != 5 or any(c < 0 for c in values):
        raise ValueError(f"pentanomial counts are 5 non-negative numbers, got {values!r}")
    regularized = [c if c > 0 else REGULARIZATION for c in values]
    pairs = sum(regularized)
    pair_scores = [i / 4 for i in range(5)]  # a pair's score per game, in [0, 1]
    mu = sum(c * s for c, s in zip(regularized, pair_scores, strict=True)) / pairs
    pair_variance = sum(c * (s - mu) ** 2 for c, s in zip(regularized, pair_scores, strict=True)) / pairs
    standard_error = math.sqrt(pair_variance / pairs)
    low, high = mu - Z95 * standard_error, mu + Z95 * standard_error
    sigma_per_game = math.sqrt(2 * pair_variance)

    def normalized(score: float) -> float:
        return (score - 0.5) / sigma_per_game * NELO_PER_T if sigma_per_game > 0 else 0.0

    los = 0.5 * (1.0 + math.erf((mu - 0.5) / (standard_error * math.sqrt(2.0)))) if standard_error > 0 else 0.5
    return EloEstimate(_logistic_elo(mu), _logistic_elo(low), _logistic_elo(high), normalized(mu),
                       normalized(low), normalized(high), los)


@dataclass(frozen=True)
class SprtStatus:
    """Where a test stands: the LLR against its bounds, the verdict once a bound is
    reached (``None`` while it runs), and the Elo estimate so far."""

    llr: float
    lower: float
    upper: float
    verdict: Verdict | None
    pairs: int
    games: int
    counts: tuple[int, int, int, int, int]
    elo: EloEstimate

    @property
    def progress(self) -> float:
        """How far the LLR is towards the bound it is heading for, 0 to 1 (fastchess's
        ``getFraction``): what a progress bar shows."""
        fraction = self.llr / self.upper if self.llr >= 0 else self.llr / self.lower
        return min(1.0, max(0.0, fraction))


def sprt_status(counts: Sequence[int] | Pentanomial, elo0: float, elo1: float, alpha: float = 0.05,
                beta: float = 0.05, model: EloModel = "normalized") -> SprtStatus:
    """The status of an SPRT of H0 ``elo = elo0`` against H1 ``elo = elo1`` after the
    pairs in ``counts``: H1 when the LLR reaches the upper bound, H0 at the lower one."""
    lower, upper = sprt_bounds(alpha, beta)
    values = tuple(counts.counts if isinstance(counts, Pentanomial) else counts)
    llr = llr_pentanomial(values, elo0, elo1, model)
    verdict: Verdict | None = "H1" if llr >= upper else "H0" if llr <= lower else None
    pairs = int(sum(values))
    five = (int(values[0]), int(values[1]), int(values[2]), int(values[3]), int(values[4]))
    return SprtStatus(llr, lower, upper, verdict, pairs, 2 * pairs, five, elo_estimate(values))


@dataclass
class SprtState:
    """One running test: its parameters and the pairs so far.  Checked on construction
    (``elo0 < elo1``, error rates in (0, 1) summing below 1), so a bad command line fails
    before the first game."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: EloModel = "normalized"
    pentanomial: Pentanomial = field(default_factory=Pentanomial)

    def __post_init__(self) -> None:
        _check_errors(self.alpha, self.beta)
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got {self.elo0} and {self.elo1}")
        if self.model not in ("normalized", "logistic"):
            raise ValueError(f"the Elo model is 'normalized' or 'logistic', got {self.model!r}")

    def add(self, pair_score: float) -> SprtStatus:
        """Count one pair and return the new status."""
        self.pentanomial.add(pair_score)
        return self.status()

    def status(self) -> SprtStatus:
        """The test's status now."""
        return sprt_status(self.pentanomial, self.elo0, self.elo1, self.alpha, self.beta, self.model)


@dataclass(frozen=True)
class SimulatedTests:
    """The outcome of simulated SPRTs: each run's verdict (``"H0"``, ``"H1"`` or ``""`` when
    the pair cap came first) and the pairs it took."""

    verdicts: npt.NDArray[np.str_]
    pairs: npt.NDArray[np.int64]

    def rate(self, verdict: Verdict | Literal[""]) -> float:
        """The share of runs that ended with ``verdict`` (``""``: stopped by the cap)."""
        return float(np.mean(self.verdicts == verdict))


def simulate_sprt(probabilities: Sequence[float], elo0: float, elo1: float, rng: np.random.Generator, *,
                  runs: int, alpha: float = 0.05, beta: float = 0.05, model: EloModel = "normalized",
                  batch: int = 1, max_pairs: int = 100_000) -> SimulatedTests:
    """Run ``runs`` independent SPRTs on samples drawn from ``probabilities`` (5 pair
    outcomes, or 3 game outcomes L/D/W for independent games), checking the bounds every
    ``batch`` samples as fishtest checks them after each batch a worker reports.  What a
    calibration needs: the error rates and the sample counts of the test itself, for a
    known true distribution (e.g. the pairs of two copies of one bot, mirrored)."""
    chances = np.asarray(probabilities, dtype=np.float64)
    if chances.ndim != 1 or chances.size not in (3, 5) or np.any(chances < 0) or not math.isclose(chances.sum(), 1):
        raise ValueError("probabilities are 5 (pairs) or 3 (games) non-negative numbers summing to 1")
    if runs < 1 or batch < 1 or max_pairs < 1:
        raise ValueError("runs, batch and max_pairs must be positive")
    lower, upper = sprt_bounds(alpha, beta)
    counts = np.zeros((runs, chances.size))
    verdicts = np.full(runs, "", dtype="<U2")
    pairs = np.zeros(runs, dtype=np.int64)
    alive = np.arange(runs)
    while alive.size and pairs[alive[0]] < max_pairs:
        step = min(batch, max_pairs - int(pairs[alive[0]]))
        counts[alive] += rng.multinomial(step, chances, size=alive.size)
        pairs[alive] += step
        llr = llr_many(counts[alive], elo0, elo1, model)
        verdicts[alive[llr >= upper]] = "H1"
        verdicts[alive[llr <= lower]] = "H0"
        alive = alive[(llr > lower) & (llr < upper)]
    return SimulatedTests(verdicts, pairs)


def _check_errors(alpha: float, beta: float) -> None:
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError(f"alpha and beta must lie in (0, 1) with alpha + beta < 1, got {alpha} and {beta}")


def _logistic_score(elo: float) -> float:
    """Expected score per game at a logistic Elo difference."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def _logistic_elo(score: float) -> float:
    """The inverse of :func:`_logistic_score`, clamped to [0.001, 0.999] as fishtest does."""
    clamped = min(max(score, 1e-3), 1 - 1e-3)
    return -400.0 * math.log10(1.0 / clamped - 1.0)


def _secular_root(a: FloatArray, p: FloatArray) -> FloatArray:
    """Per row, the ``x`` in ``(-1/max a, -1/min a)`` where ``Σ p·a/(1 + x·a) = 0``.

    The sum falls strictly from +∞ to -∞ on that interval, so Newton steps from 0 that stay
    inside the shrinking bracket (bisection otherwise) find the root to machine precision
    (the last step taken is below 1e-10, so its error is near 1e-20)."""
    high_a, low_a = a.max(axis=-1), a.min(axis=-1)
    if np.any(high_a <= 0) or np.any(low_a >= 0):
        raise ValueError("the hypothesis lies outside the range of possible scores")
    low, high = -1.0 / high_a, -1.0 / low_a
    x = np.zeros_like(low)
    for _ in range(200):
        terms = a / (1.0 + x[..., None] * a)
        value = np.sum(p * terms, axis=-1)
        slope = -np.sum(p * terms * terms, axis=-1)
        low = np.where(value > 0, x, low)
        high = np.where(value > 0, high, x)
        newton = x - value / slope
        following = np.where((newton > low) & (newton < high), newton, (low + high) / 2)
        # Quadratic convergence: a step this small leaves an error near its square.
        done = np.abs(following - x) <= 1e-10 * (1.0 + np.abs(x))
        x = following
        if np.all(done):
            break
    return np.asarray(x, dtype=np.float64)


def _mle_expectation(observed: FloatArray, values: FloatArray, score: float) -> FloatArray:
    """The most likely distribution on ``values`` with mean ``score`` given the observed
    one (fishtest's ``MLE_expected``: Proposition 1.1 of Van den Bergh's note)."""
    shifted = np.broadcast_to(values - score, observed.shape)
    x = _secular_root(shifted, observed)
    return np.asarray(observed / (1.0 + x[..., None] * shifted), dtype=np.float64)


def _mle_t_value(observed: FloatArray, values: FloatArray, t: float) -> FloatArray:
    """The most likely distribution on ``values`` with ``(mu - ½)/sigma = t`` given the
    observed one (fishtest's ``MLE_t_value``: a fixed point from the uniform distribution,
    at most 10 rounds, Section 4.1 of "Comments on normalized Elo")."""
    p = np.full(observed.shape, 1.0 / observed.shape[-1])
    for _ in range(10):
        mu = np.sum(p * values, axis=-1, keepdims=True)
        sigma = np.sqrt(np.sum(p * (values - mu) ** 2, axis=-1, keepdims=True))
        phi = values - 0.5 - t * sigma * (1.0 + ((mu - values) / sigma) ** 2) / 2
        x = _secular_root(phi, observed)
        updated = observed / (1.0 + x[..., None] * phi)
        converged = float(np.max(np.abs(updated - p))) < 1e-9
        p = updated
        if converged:
            break
    return np.asarray(p, dtype=np.float64)
