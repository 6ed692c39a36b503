"""Decision-time histograms: buckets, sums across matches, and percentiles."""

from __future__ import annotations

import pytest

from pitch_sdk.protocol.decision_times import DECISION_TIME_BUCKETS_MS, add_time, bucket_of, merged, percentile_ms


def test_bucket_bounds_are_inclusive_and_slow_answers_overflow() -> None:
    assert bucket_of(0) == 0 and bucket_of(1) == 0 and bucket_of(1.01) == 1
    assert bucket_of(20) == DECISION_TIME_BUCKETS_MS.index(20)
    assert bucket_of(120_000) == len(DECISION_TIME_BUCKETS_MS)


def test_histograms_grow_without_trailing_zeros_and_add_up() -> None:
    first: list[int] = []
    for ms in (0.5, 4, 4, 250):
        add_time(first, ms)
    assert first[-1] == 1 and len(first) == bucket_of(250) + 1 and sum(first) == 4
    second: list[int] = []
    add_time(second, 4)
    total = merged([first, second])
    assert total[bucket_of(4)] == 3 and sum(total) == 5


def test_percentiles_are_bucket_upper_bounds() -> None:
    histogram: list[int] = []
    for ms in [3] * 90 + [400] * 10:
        add_time(histogram, ms)
    assert percentile_ms(histogram, 0.5) == 3
    assert percentile_ms(histogram, 0.90) == 3
    assert percentile_ms(histogram, 0.95) == 500
    assert percentile_ms([], 0.5) is None
    over: list[int] = []
    add_time(over, 90_000)
    assert percentile_ms(over, 0.5) == -1
    with pytest.raises(ValueError, match="fraction"):
        percentile_ms(histogram, 1.5)
