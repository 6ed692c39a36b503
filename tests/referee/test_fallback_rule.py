"""The rule that keeps a match off the ratings when a seat's moves were mostly fallbacks."""

from __future__ import annotations

import pytest

from referee.fallback_rule import FREE_FALLBACKS, MAX_FALLBACK_PERCENT, SeatFallbacks, fallback_heavy, unrated_reason


@pytest.mark.parametrize(("answered", "fallbacks", "heavy"), [
    (50, 0, False),
    (5, 2, False),    # two timeouts are always normal play, even in a short match
    (0, 2, False),
    (4, 3, True),     # three of seven: past both bounds
    (45, 5, False),   # 10% of 50 exactly: still rated
    (44, 5, True),    # 5 of 49: 10.2%
    (63, 7, False),   # 7 of 70: 10% exactly
    (62, 7, True),    # 7 of 69
    (270, 30, False),  # 10% of 300
    (269, 31, True),
    (0, 40, True),    # gone for the whole match
])
def test_a_seat_is_fallback_heavy_past_the_share_and_the_free_fallbacks(answered: int, fallbacks: int,
                                                                      heavy: bool) -> None:
    assert (FREE_FALLBACKS, MAX_FALLBACK_PERCENT) == (2, 10)
    assert fallback_heavy(answered, fallbacks) is heavy


def test_the_reason_names_each_heavy_seat_and_a_forfeit_stays_rated() -> None:
    seats = [SeatFallbacks(0, 30, 1), SeatFallbacks(1, 4, 26), SeatFallbacks(2, 30, 0), SeatFallbacks(3, 0, 30)]
    reason = unrated_reason(seats, forfeited=False)
    assert reason.startswith("fallback-heavy") and "seat 2 26 of 30" in reason and "seat 4 30 of 30" in reason
    assert "seat 1" not in reason
    assert unrated_reason(seats, forfeited=True) == ""
    assert unrated_reason(seats[:1], forfeited=False) == ""
