"""Readings of the seed sentences the engine once read otherwise, or where a seed is silent:
each test quotes the sentence it checks (the off-ace's misdeal, the Campbell game's target,
the revoke in auction pitch's descendants, iPitch's set pitcher, two-trump's jokers).

Unless noted, seat 0 deals and seat 1 (eldest hand) wins the bid.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import (
    MADE_HANDS,
    MADE_PLAY,
    ORDER,
    act,
    assert_illegal,
    awards,
    deal,
    game,
    hand_tricks,
    legal,
    padded_deal,
    play_cards,
    play_hand,
)

from pitch_sdk.rules import GameState, InvalidRulesetError, Phase, Suit, WinReason, preset
from pitch_sdk.rules.cards import cards_of
from pitch_sdk.rules.events import Exchanged, MuckShown, TrumpSet
from pitch_sdk.rules.readings import READINGS
from pitch_sdk.rules.ruleset import Muck, WhoMayWin

# ============================================================ the off-ace game's misdeal
#: Nine cards each; seat 1 (eldest) is dealt no point card, every other seat holds honours.
NO_POINT_CARD = deal("AS KS QS JS 10S 9S 8S 7S 6S", "2C 3C 4C 5C 6C 7C 8C 9C 2D",
                     "AC KC QC JC 10C 3D 4D 5D 6D", "AD KD QD JD 10D 7D 8D 9D 2S", stock="3S 4S")


def test_off_ace_misdeal_rule_is_the_complete_re_deal():
    """Seed 004, the off-ace game: "The misdeal rule is in effect".  The Campbell game it is
    played like says "Mucking a Hand and Misdeal are prohibited", naming the two options of
    the card distribution section; the misdeal is "A player who has received no point cards
    may ask for a complete re-deal by the same dealer" (``muck=redeal``)."""
    rules = preset("eleven-point-off-ace")
    assert rules.deal.muck is Muck.REDEAL
    state = game(rules, NO_POINT_CARD)
    assert state.phase is Phase.MUCK and state.to_move == 1
    assert legal(state) == ["keep", "muck"]
    act(state, "muck")
    shown = [e for e in state.history if isinstance(e, MuckShown)]
    assert [(e.seat, e.redeal) for e in shown] == [(1, True)]
    assert (state.dealer, state.hand_number, state.deal_number) == (0, 1, 2)  # the same dealer deals again


def test_off_ace_keeping_the_hand_goes_to_the_auction():
    """The re-deal is the player's option ("may ask"): kept, the hand is bid on as dealt."""
    state = act(game(preset("eleven-point-off-ace"), NO_POINT_CARD), "keep")
    assert state.phase is Phase.BIDDING and state.to_move == 1


def test_campbell_game_prohibits_mucking_and_misdeal():
    """Seed 004, the nine-card (Campbell) game: "This variant uses the Force Bid rule. However,
    Mucking a Hand and Misdeal are prohibited." - the same hand goes straight to bidding,
    as in the off-ace game with ``muck=none``."""
    assert preset("nine-card-ten-point").deal.muck is Muck.NONE
    for rules in (preset("nine-card-ten-point"), preset("eleven-point-off-ace", muck="none")):
        state = game(rules, NO_POINT_CARD)
        assert state.phase is Phase.BIDDING and state.to_move == 1


# ================================================================ the Campbell game's target
def test_campbell_game_is_played_to_32():
    """Seed 004, the off-ace game: "Played much like Campbell ten-point with the addition of
    the off-ace ... Play ends at 51 points rather than 32." - 51 is the off-ace game's own
    exception, so the Campbell (nine-card) game it departs from ends at 32."""
    assert preset("nine-card-ten-point").win.target == 32
    assert preset("eleven-point-off-ace").win.target == 51
    assert preset("ten-point").win.target == 52  # seed 003: "The first team to reach 52 points"
    made = padded_deal(*MADE_HANDS, stock="2S")
    bids = ("bid 5", "pass", "pass", "pass", "trump H")
    state = act(game(preset("nine-card-ten-point"), made, scores=(0, 27)), *bids)
    play_cards(state, MADE_PLAY)
    assert state.results[0].scores == (0, 32)  # the bidder makes its 5
    assert state.winner == 1 and state.win_reason is WinReason.REACHED_TARGET
    short = act(game(preset("nine-card-ten-point"), made, scores=(0, 26)), *bids)
    play_cards(short, MADE_PLAY)
    assert short.results[0].scores == (0, 31) and not short.is_over


# ======================================================= the revoke in auction pitch's descendants
#: The presets whose paragraph says they follow basic or auction pitch: "Reverse pitch
#: follows all of the rules of basic pitch"; the Scranton rule and call for partner are
#: options of it; "Contway 6-point pitch is based on auction pitch"; "Roadhouse pitch is an
#: auction pitch variant".
FOLLOW_AUCTION_PITCH = ("reverse", "scranton", "call-partner", "contway-six", "roadhouse")


def _first_revoke_offered(name: str, seed: int) -> bool:
    """Play a seeded game of ``name`` with and without ``revoke_penalty``, the same actions
    in both (the last legal action of the game without it: the highest bid, so that a
    hand is played), until the preset offers a play the refusing game does not: a revoke."""
    offered = GameState.new(preset(name, max_hands=3), seed=seed)
    refused = GameState.new(preset(name, max_hands=3, revoke_penalty=False), seed=seed)
    while not refused.is_over:
        wider, narrower = legal(offered), legal(refused)
        assert set(narrower) <= set(wider)
        if set(wider) != set(narrower):
            return True
        act(offered, narrower[-1])
        act(refused, narrower[-1])
    return False


@pytest.mark.parametrize("name", FOLLOW_AUCTION_PITCH)
def test_auction_pitch_descendants_punish_revokes_like_auction_pitch(name: str):
    """Seed 004, auction pitch: "A player who can follow suit but discards a card of a
    different non-trump suit is punished for the revoke by being set back by the value of
    the bid." - every preset that says it follows auction (or basic) pitch keeps the rule:
    the revoke is offered, not refused."""
    assert preset(name).play.revoke_penalty is preset("auction").play.revoke_penalty is True
    assert any(_first_revoke_offered(name, seed) for seed in range(4))


def test_the_simple_game_has_no_revoke_penalty():
    """The revoke sentence is in the auction pitch paragraph, not the basic game's: simple
    pitch (no auction, no bid to be set back by) refuses the play."""
    assert preset("simple").play.revoke_penalty is False


#: Reverse pitch, hearts trump: seat 1 bids 2 and leads every trick with the lowest card of
#: the suit ("the low card takes each trick").  On the third trick (the 2S led) seat 2 holds
#: the KS and throws the 6D: a revoke.
REVERSE_REVOKE = ("6C 2H 10C 4C", "7C 3H 9D 5C", "6S 2S 6D 4S", "7S 3S KS 5S", "3D 2D 7D JD", "KD 2C 8D QD")


def test_reverse_pitch_sets_a_revoker_back_by_the_bid():
    """Seed 004: "Reverse pitch follows all of the rules of basic pitch, except the low card
    takes each trick" and auction pitch's "punished for the revoke by being set back by the
    value of the bid": seat 2 won nothing and is set back 2; the pitcher takes High, Low
    and Game."""
    state, result = play_hand(preset("reverse"), ["bid 2", "pass", "pass", "pass"], *REVERSE_REVOKE)
    assert [t.winner for t in hand_tricks(state)] == [1] * 6
    assert ("revoke", 2, "6D") in awards(result)
    assert result.points_won == (0, 3, 0, 0) and result.made is True
    assert result.score_changes == (0, 3, -2, 0)


# ================================================================ iPitch: a set pitcher at 7
def test_ipitch_a_set_pitcher_still_at_the_target_wins():
    """Seed 000: "The first player to reach at least 7 points at the end of a hand in which
    he was the pitcher wins the game." and "If he fails to make his bid, his bid is
    subtracted from his score."  A set-back lowers the score but need not take it below 7:
    seat 1, at 10, bids 3, takes only Jack and Game, and ends the hand at 7 as its pitcher."""
    state, result = play_hand(preset("ipitch"), ["bid 3", "pass", "pass", "pass"], *ORDER, scores=(0, 10, 0, 0))
    assert result.made is False and result.score_changes == (0, -3, 2, 0)
    assert state.scores == [0, 7, 2, 0]
    assert state.winner == 1 and state.win_reason is WinReason.REACHED_TARGET


def test_ipitch_bid_made_option_keeps_the_old_reading():
    """``who_may_win=bid-made``: the pitcher goes out only in a hand where it made its bid
    (the reading RULES.md gives the default hand); the same set pitcher plays on."""
    rules = preset("ipitch", who_may_win="bid-made")
    assert preset("ipitch").win.who_may_win is WhoMayWin.PITCHING_PARTY
    state, _ = play_hand(rules, ["bid 3", "pass", "pass", "pass"], *ORDER, scores=(0, 10, 0, 0))
    assert state.scores == [0, 7, 2, 0] and not state.is_over


def test_ipitch_only_the_pitcher_goes_out():
    """"... in which he was the pitcher": seat 2 reaches 7 by taking High and Low from seat
    1's bid, but did not pitch; the game goes on."""
    state, _ = play_hand(preset("ipitch"), ["bid 3", "pass", "pass", "pass"], *ORDER, scores=(0, 0, 5, 0))
    assert state.scores == [0, -3, 7, 0] and not state.is_over


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


# ====================================================== what the engine cannot say, and its readings
VARIANTS_DOC = Path(__file__).parents[2] / "docs" / "variants.md"


def variants_doc() -> str:
    """docs/variants.md with its line breaks and runs of spaces made single spaces."""
    return " ".join(VARIANTS_DOC.read_text().split())


SAME_COLOUR = {Suit.CLUBS: Suit.SPADES, Suit.SPADES: Suit.CLUBS, Suit.HEARTS: Suit.DIAMONDS,
               Suit.DIAMONDS: Suit.HEARTS}


def test_three_teams_count_81_pips_not_82():
    """Seed 004, three teams: "trick/card points (82 points possible, each joker worth 1/2
    point)" - the stated values give 81 (4 x (10 + 4 + 3 + 2 + 1) + 2 x 1/2), and all 54
    cards are dealt and played, so every hand's piles hold exactly 81."""
    state = GameState.new(preset("three-teams", max_hands=3), seed=2)
    state.playout(random.Random(2))
    assert state.results and all(sum(result.pips) == 81 for result in state.results)
    assert "(82 points possible, each joker worth 1/2 point)\". The pack's pips give 81" in variants_doc()


def test_ten_point_never_throws_a_trump_out():
    """Seed 003: "Each player then discards the cards in his/her hand which are not in trump.
    Any cards which are part of the trump suit that are thrown out are considered 'fair
    game.'" - the discard is automatic, only non-trumps go, so "fair game" has nothing to
    apply to (listed as not supported)."""
    state = GameState.new(preset("ten-point", max_hands=4), seed=5)
    state.playout(random.Random(5))
    trump, discards = None, 0
    for event in state.history:
        if isinstance(event, TrumpSet):
            trump = event.suit
        elif isinstance(event, Exchanged) and event.discarded:
            assert trump is not None
            discards += 1
            for card in cards_of(event.discarded):
                assert not card.is_joker and card.suit != trump
                assert not (card.rank == 11 and card.suit == SAME_COLOUR[trump])  # the off-jack is a trump
    assert discards
    fair_game = "Any cards which are part of the trump suit that are thrown out are considered 'fair game.'"
    assert fair_game in variants_doc()


def test_searching_the_stock_is_listed_as_not_supported():
    """Seed 004: "In some variations the highest bidder has the privilege of completing their
    hand by searching the remaining stock after all other players have received their
    cards." - only the dealer may choose from the stock (``dealer_picks``), and only with
    seed 003's discard, not with this paragraph's own exchanges."""
    with pytest.raises(InvalidRulesetError, match="dealer_picks needs exchange=discard-non-trumps"):
        preset("partnership", trump_selection="declare", exchange="non-trumps-or-all", hand_size=9, refill_to=6,
               dealer_picks=True)
    assert ("the highest bidder has the privilege of completing their hand by searching the remaining stock after "
            "all other players have received their cards.") in variants_doc()


@pytest.mark.parametrize(("name", "words"), [
    ("nine-five", "says nothing of Low"),
    ("two-trump", "Silent on a passed-out deal"),
    ("oklahoma-ten", "Silent on a passed-out deal and the target"),
    ("kentucky-seven", "who may go out it does not say"),
    ("contway-six", "No target and no winning rule"),
])
def test_presets_where_the_seed_is_silent_state_their_reading(name: str, words: str):
    """The readings of docs/variants.md (generated from ``pitch_sdk.rules.readings``) name
    each preset whose paragraph leaves a rule unsaid."""
    assert any(words in reading for reading in READINGS[name])
    assert f"- `{name}` (seed 004): " in variants_doc()
