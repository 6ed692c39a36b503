"""Disagreements the seed-text oracle (tests/property/seed_oracle.py) found with the
engine, each pinned by the smallest game that shows it, and settled."""

from __future__ import annotations

from pitch_sdk.rules import PASS, Bid, GameState, preset
from pitch_sdk.rules.events import AllPassed, Dealt


def test_two_trump_dealer_may_pass_and_the_same_dealer_deals_again() -> None:
    """Two-trump's paragraph is silent on a passed-out deal ("Bids 3 (or 4) to 9 are
    allowed"), so it follows seed 004's auction pitch, as it does for who may win: "If no
    player bids, the deal is abandoned and the same dealer deals again."  The forced bid
    comes only with the dealer-steal variation ("Under this variation the dealer is obliged
    to make at least the minimum bid if all other players have passed"), which two-trump
    does not use.  The engine forced the stuck dealer before."""
    state = GameState.new(preset("two-trump"), seed=0, dealer=0)
    for _ in range(3):  # eldest, then the next two seats pass
        state.apply(PASS)
    assert state.to_move == 0 and Bid(3) in state.legal_actions()
    assert PASS in state.legal_actions()
    state.apply(PASS)
    abandoned, again = state.history[-2:]
    assert isinstance(abandoned, AllPassed) and isinstance(again, Dealt)
    assert (again.dealer, again.hand_number) == (0, 1) and state.deal_number == 2
    assert not state.results and state.to_move == 1  # nothing scored; eldest bids on the new deal

