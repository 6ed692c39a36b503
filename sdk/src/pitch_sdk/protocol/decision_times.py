"""How long a bot takes to decide, as a histogram that adds up across matches.

The referee times every answered decision on its own clock and records, per seat and
match, a count per bucket of milliseconds (``SeatOutcome.decision_time_histogram``).
Buckets rather than raw times keep a match record small whatever its length, and unlike
per-match medians, histograms of many matches add up exactly, so a bot's median and
95th percentile over its recent matches are honest (to the resolution of a bucket).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence

#: Upper bound (inclusive, in ms) of each bucket; one more bucket holds everything slower.
DECISION_TIME_BUCKETS_MS: tuple[int, ...] = (
    1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000, 1500, 2000, 3000, 5000, 7000,
    10000, 15000, 20000, 30000, 60000)


def bucket_of(milliseconds: float) -> int:
    """The bucket a decision of ``milliseconds`` falls in."""
    return bisect.bisect_left(DECISION_TIME_BUCKETS_MS, milliseconds)


def add_time(histogram: list[int], milliseconds: float) -> None:
    """Count one decision in ``histogram`` (grown as needed, never with trailing zeros)."""
    index = bucket_of(milliseconds)
    if index >= len(histogram):
        histogram.extend([0] * (index + 1 - len(histogram)))
    histogram[index] += 1


def merged(histograms: Iterable[Sequence[int]]) -> list[int]:
    """The bucket-by-bucket sum of several histograms."""
    total: list[int] = []
    for histogram in histograms:
        if len(histogram) > len(total):
            total.extend([0] * (len(histogram) - len(total)))
        for index, count in enumerate(histogram):
            total[index] += count
    return total


def percentile_ms(histogram: Sequence[int], fraction: float) -> int | None:
    """The upper bound of the bucket holding the ``fraction`` quantile (0.5: the median),
    ``None`` for an empty histogram; past the last bound, the last bound is a lower bound
    and is returned as ``-1`` so a caller can say "over 60 s" instead of a false number."""
    if not 0 <= fraction <= 1:
        raise ValueError(f"fraction must be within [0, 1], got {fraction}")
    count = sum(histogram)
    if count == 0:
        return None
    rank = max(1, math.ceil(fraction * count - 1e-9))  # the answer at that rank, slowest last
    seen = 0
    for index, in_bucket in enumerate(histogram):
        seen += in_bucket
        if seen >= rank:
            return DECISION_TIME_BUCKETS_MS[index] if index < len(DECISION_TIME_BUCKETS_MS) else -1
    raise AssertionError("unreachable: the ranks add up to the count")
