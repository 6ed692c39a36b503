"""The seeded shuffle: deals depend on (seed, deal number) alone, identically everywhere."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from pitch_sdk.rules.shuffle import shuffled


def test_deals_are_frozen_across_versions() -> None:
    """A seed names the same deal on every platform and in every release (the values were
    produced by the first released shuffle): stored match seeds must replay identically,
    so an optimisation of the shuffle may never change its output."""
    assert shuffled(list(range(52)), 7, 3) == [
        0, 9, 28, 41, 2, 3, 34, 5, 24, 36, 31, 20, 21, 6, 29, 43, 16, 13, 32, 47, 50, 30, 12, 18, 11, 26,
        49, 39, 25, 8, 42, 45, 23, 10, 22, 40, 46, 19, 38, 33, 1, 44, 17, 37, 51, 14, 4, 48, 35, 27, 15, 7]
    assert shuffled(list(range(54)), 12345, 1, 27)[:27] == [
        6, 15, 45, 27, 8, 10, 19, 31, 25, 34, 24, 7, 28, 26, 13, 14, 2, 21, 46, 16, 49, 40, 50, 32, 30, 47, 17]


@given(st.integers(0, 2**64), st.integers(1, 500), st.integers(1, 54), st.integers(0, 54))
def test_a_partial_shuffle_deals_what_the_full_one_deals(seed: int, deal: int, count: int, drawn: int) -> None:
    """Shuffling only the cards that will be dealt is a shortcut, not another deal: the
    drawn positions equal the full shuffle's, and no card is lost or duplicated."""
    cards = list(range(count))
    partial = shuffled(cards, seed, deal, drawn)
    assert sorted(partial) == cards
    assert partial[:drawn] == shuffled(cards, seed, deal)[:drawn]


def test_every_card_is_equally_likely_at_every_position() -> None:
    """Fisher-Yates from an unbiased number: over 5,200 deals each card lands in the
    first position about 100 times (a chi-square test at a generous threshold)."""
    counts = Counter(shuffled(list(range(52)), 1, deal, 1)[0] for deal in range(5_200))
    chi_square = sum((counts[card] - 100) ** 2 / 100 for card in range(52))
    assert len(counts) == 52
    assert chi_square < 100  # 51 degrees of freedom: p < 1e-4 above ~95
