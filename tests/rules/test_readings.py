"""Readings of the seed sentences the engine once read otherwise, or where a seed is silent:
each test quotes the sentence it checks (the off-ace's misdeal, the Campbell game's target,
the revoke in auction pitch's descendants, iPitch's set pitcher, two-trump's jokers).

Unless noted, seat 0 deals and seat 1 (eldest hand) wins the bid.
"""

from __future__ import annotations

from helpers import (
    act,
    assert_illegal,
    deal,
    game,
    legal,
)

from pitch_sdk.rules import preset


# ===================================================== two-trump: a joker on a sub-trump lead
#: Hearts trump, spades sub-trump (seat 1 names both).  Seat 2 holds the 2S and the big
#: joker; seat 0 holds the little joker and no spade.
SUB_LEAD = deal("AC LJ 4D 5D 6D 3C", "KC AH 5S 7C 8C 9C", "QC 2S 2H BJ 2D 3D", "JC 4S 4H 7D 8D 9D")
TWO_TRUMP_BIDS = ("bid 3", "pass", "pass", "pass", "trump H", "trump S")


def test_two_trump_no_joker_on_a_sub_trump_lead_while_holding_the_sub_trump():
    """Seed 004, two-trump pitch: "If a trump suit is lead, jokers may not be cut in if the
    player in possession of the joker has cards of that trump remaining." The sub-trump is
    one of the two trump suits: seat 2 holds the 2S, so its joker stays in hand (it may
    still follow, or trump in: "If a sub-trump is lead, main trump can be 'trumped in'")."""
    state = act(game(preset("two-trump"), SUB_LEAD), *TWO_TRUMP_BIDS, "play 5S")
    assert state.to_move == 2
    assert legal(state) == ["play 2H", "play 2S"]
    assert_illegal(state, "play BJ")


def test_two_trump_a_player_void_in_the_sub_trump_may_cut_a_joker_in():
    """The same sentence's other side: with no card "of that trump remaining" (seat 0 holds
    no spade) the joker may be played to a sub-trump lead, like any card."""
    state = act(game(preset("two-trump"), SUB_LEAD), *TWO_TRUMP_BIDS, "play 5S", "play 2S", "play 4S")
    assert state.to_move == 0
    assert "play LJ" in legal(state) and len(legal(state)) == 6


def test_two_trump_double_down_override_on_a_sub_trump_lead():
    """Seed 004: "allow a joker to be played if the other joker was lead, regardless of the
    second card played in the trick and the rest of the players hand" - the override holds
    on a sub-trump lead as on a trump lead."""
    hands = deal("AC 9D 4D 5D 6D 3C", "BJ AH 5S 7C 8C 9C", "QC 2S 2H KC 2D 3D", "JC 4S 4H 7D 8D LJ")
    plain = act(game(preset("two-trump"), hands), *TWO_TRUMP_BIDS, "play BJ", "play 2S")
    assert plain.to_move == 3 and legal(plain) == ["play 4H", "play 4S"]  # holds the 4S: no joker
    override = act(game(preset("two-trump", double_down_override=True), hands), *TWO_TRUMP_BIDS,
                   "play BJ", "play 2S")
    assert legal(override) == ["play 4H", "play 4S", "play LJ"]
