"""Issue 13, rules fidelity: readings of seeds 003 and 004 that the engine once got wrong.

Each test quotes the sentence it checks.  Unless noted, seat 0 deals and seat 1 (eldest
hand) bids first.
"""

from __future__ import annotations

import pytest
from helpers import act, assert_illegal, legal

from pitch_sdk.rules import PRESETS, GameState, preset

#: The presets whose stuck dealer must take exactly the minimum bid.
FORCED_MINIMUM = sorted(name for name in PRESETS if preset(name).bidding.forced_minimum_only)


@pytest.mark.parametrize("name", [n for n in FORCED_MINIMUM if n != "roadhouse"])
def test_the_stuck_dealer_takes_exactly_the_minimum_not_the_moon(name: str) -> None:
    """Seed 003: "If no one bids (ie everyone passes) the dealer MUST take the bid for
    four." - exactly the minimum; only Roadhouse's text adds "(or "shoot the moon")"."""
    rules = preset(name)
    state = GameState.new(rules, seed=3)
    act(state, *["pass"] * (rules.players - 1))
    assert state.to_move == state.dealer
    assert legal(state) == [f"bid {rules.bidding.minimum_bid}"]
    if rules.moon is not None:
        assert_illegal(state, f"bid {rules.moon.moon_bid}")


def test_forced_minimum_presets_are_the_ten_point_family_contway_and_roadhouse() -> None:
    """The list the test above covers, so that a new forced-minimum preset is seen."""
    assert "ten-point" in FORCED_MINIMUM and "roadhouse" in FORCED_MINIMUM
    assert [n for n in FORCED_MINIMUM if preset(n).bidding.forced_moon] == ["roadhouse"]


def test_roadhouse_stuck_dealer_may_shoot_the_moon() -> None:
    """Seed 004 (Roadhouse pitch): "the dealer must assume the minimum bid (or "shoot the
    moon")." """
    state = GameState.new(preset("roadhouse"), seed=3)
    act(state, "pass", "pass", "pass")
    assert legal(state) == ["bid 2", "bid 5"]
