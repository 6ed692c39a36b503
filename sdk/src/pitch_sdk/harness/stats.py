"""Small statistics for match results: win rates with honest error bars."""

from __future__ import annotations

from math import sqrt

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default).

    Chosen over the textbook ``p ± z·sqrt(p(1-p)/n)`` because it stays inside [0, 1] and
    keeps its coverage at the extreme win rates bot matches often produce.
    """
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= trials:
        raise ValueError(f"successes {successes} must be within 0..{trials}")
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)
