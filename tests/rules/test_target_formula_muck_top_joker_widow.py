"""Seed 004's options for the target formula, mucking a hand, the ultimate-trump joker and
the widow (RULES.md: "Options from seed 004's 'Common minor variations' and 'Miscellaneous
options', each a ruleset field"), one section per option, each test quoting its text."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import (
    PASS_ROUND,
    SPLIT,
    act,
    assert_illegal,
    awards,
    cards,
    deal,
    first_trick_winner,
    game,
    legal,
    names,
    play_hand,
    play_out,
)

from pitch_sdk.display.variants_doc import options_in, options_table
from pitch_sdk.rules import SPECTATOR, Deal, DecisionKind, InvalidRulesetError, Phase, Ruleset, preset
from pitch_sdk.rules.cards import mask_of
from pitch_sdk.rules.events import AllPassed, Dealt, Exchanged, HandScored, MuckShown
from pitch_sdk.rules.observation import observe, visible_event


# ------------------------------------------------------------------- target formula
def test_target_formula_points_available_times_players_plus_one():
    """Seed 004: "Sometimes the following formula is used to determine the number of points
    required to win: (points available) * (number of players) + 1." """
    assert preset("auction", target_formula=True).win.target == 4 * 4 + 1
    assert preset("cutthroat", target_formula=True).win.target == 4 * 3 + 1
    assert preset("partnership-five", target_formula=True).win.target == 9 * 4 + 1  # seats, not teams
    assert preset("auction", target=50, target_formula=True).win.target == 17  # derived, not given
    follows = preset("auction", target_formula=True).with_options(players=5)
    assert follows.win.target == 21  # follows the number of players
    assert preset("auction").win.target == 11  # off by default


def test_target_formula_decides_the_game_and_round_trips():
    """Seed 004: the formula gives "the number of points required to win": 17 with four
    points and four players (seat 0 wins Game on SPLIT)."""
    rules = preset("auction", target_formula=True)
    _, short = play_hand(rules, PASS_ROUND, *SPLIT, scores=(15, 0, 0, 0))
    assert short.scores[0] == 16 and short.winner is None
    _, reached = play_hand(rules, PASS_ROUND, *SPLIT, scores=(16, 0, 0, 0))
    assert reached.winner == 0
    assert Ruleset.from_dict(rules.to_dict()) == rules
    assert rules.to_dict()["win"]["target_formula"] is True


def test_target_formula_rejects_a_non_boolean():
    with pytest.raises(InvalidRulesetError, match="target_formula must be true or false"):
        preset("auction", target_formula="yes")


# ------------------------------------------------------------------- mucking a hand
#: Seats 0 (the dealer) and 2 hold no card worth a pip; seat 3 holds only a jack (1 pip).
MUCK_HANDS = ("2C 3C 4C 5C 6C 7C", "AH KH 2D 3D 4D 5D", "2S 3S 4S 5S 6S 7S", "8C 9C JC 8D 9D 6D")
MUCK_STOCK = "JH 10H 9H 8H 7H 6H 5H 4H 3H 2H AS KS QS JS 10S 9S 8S"


def test_muck_is_asked_of_each_seat_without_point_cards_from_eldest():
    """Seed 004: "Players who have received no point cards (that is, no cards which could
    contribute toward the Game point) may lay their cards face down and receive a new
    hand." - "may": each such seat is asked, in turn from eldest hand, before the auction
    (a jack is a point card: seat 3 is not asked)."""
    state = game(preset("partnership", muck="new-hand"), deal(*MUCK_HANDS, stock=MUCK_STOCK))
    assert state.phase is Phase.MUCK and state.to_move == 2
    assert legal(state) == ["keep", "muck"]
    assert state.decision().kind is DecisionKind.MUCK
    assert_illegal(state, "yes")
    act(state, "keep")
    assert state.phase is Phase.MUCK and state.to_move == 0
    act(state, "keep")
    assert state.phase is Phase.BIDDING and state.to_move == 1
    kept = game(preset("partnership"), deal(*MUCK_HANDS, stock=MUCK_STOCK))
    assert kept.phase is Phase.BIDDING  # muck=none by default: nobody is asked


def test_a_seat_that_keeps_its_hand_plays_it_and_may_bid():
    """Seed 004: players "may lay their cards face down": one that does not keeps the cards
    it was dealt, and the stock is untouched; the bar on bidding is only for "A player who
    has made use of this option"."""
    state = game(preset("partnership", muck="new-hand"), deal(*MUCK_HANDS, stock=MUCK_STOCK))
    act(state, "keep", "keep")
    assert names(state.hand(2)) == names(MUCK_HANDS[2].split())
    assert names(state.hand(0)) == names(MUCK_HANDS[0].split())
    assert len(state.stock) == len(MUCK_STOCK.split())
    assert not [e for e in state.history if isinstance(e, (Exchanged, MuckShown))]
    act(state, "pass")
    assert "bid 2" in legal(state)  # seat 2 kept its hand: it may bid


def test_a_seat_that_mucks_receives_a_new_hand():
    """Seed 004: players with no point cards "may lay their cards face down and receive a
    new hand" - the next six cards of the stock; the next seat asked draws after it."""
    state = game(preset("partnership", muck="new-hand"), deal(*MUCK_HANDS, stock=MUCK_STOCK))
    act(state, "muck")
    assert names(state.hand(2)) == names("JH 10H 9H 8H 7H 6H".split())
    act(state, "muck")
    assert names(state.hand(0)) == names("5H 4H 3H 2H AS KS".split())
    assert names(state.hand(3)) == names(MUCK_HANDS[3].split())
    assert len(state.stock) == len(MUCK_STOCK.split()) - 12
    mucked = [e for e in state.history if isinstance(e, Exchanged)]
    assert [(e.seat, e.discarded.bit_count(), e.drawn.bit_count()) for e in mucked] == [(2, 6, 6), (0, 6, 6)]
    mixed = game(preset("partnership", muck="new-hand"), deal(*MUCK_HANDS, stock=MUCK_STOCK))
    act(mixed, "keep", "muck")  # seat 2 keeps, the dealer takes the stock's first six
    assert names(mixed.hand(0)) == names("JH 10H 9H 8H 7H 6H".split())


def test_mucker_may_not_bid_unless_forced_as_dealer():
    """Seed 004: "A player who has made use of this option may not bid unless forced to do
    so (i.e., if the player is the dealer)." """
    rules = preset("partnership", muck="new-hand")
    state = game(rules, deal(*MUCK_HANDS, stock=MUCK_STOCK))
    act(state, "muck", "muck", "pass")
    assert legal(state) == ["pass"]  # seat 2 mucked
    assert_illegal(state, "bid 2")
    act(state, "pass", "pass")
    assert legal(state) == ["bid 2", "bid 3", "bid 4"]  # the dealer, forced
    stolen = game(rules, deal(*MUCK_HANDS, stock=MUCK_STOCK))
    act(stolen, "muck", "muck", "bid 2", "pass", "pass")
    assert legal(stolen) == ["pass"]  # no steal for a mucked dealer


def test_mucked_cards_are_face_down_until_the_hand_is_played():
    """Seed 004: players "lay their cards face down": only the mucker sees what it gave up,
    while the hand is played; then "The cards can be checked by the other players after
    the hand has been played": a public event shows them to every seat and spectator."""
    state = game(preset("partnership", muck="new-hand"), deal(*MUCK_HANDS, stock=MUCK_STOCK))
    act(state, "muck", "keep")
    assert names(observe(state, 2).my_discards) == names(MUCK_HANDS[2].split())
    assert observe(state, 1).my_discards == () and (2, 6) in observe(state, 1).exchanged
    event = next(e for e in state.history if isinstance(e, Exchanged))
    assert visible_event(event, 1) == {"event": "exchanged", "seat": 2, "discarded": 6, "drawn": 6}
    assert not [e for e in state.history if isinstance(e, MuckShown)]
    play_out(state)
    scored = next(i for i, e in enumerate(state.history) if isinstance(e, HandScored))
    shown = state.history[scored + 1]
    assert shown == MuckShown(2, mask_of(cards(MUCK_HANDS[2])))
    expected = {"event": "muck-shown", "seat": 2, "cards": "2S 3S 4S 5S 6S 7S"}
    assert all(visible_event(shown, viewer) == expected for viewer in (0, 1, 3, SPECTATOR))
    assert [e for e in state.history if isinstance(e, MuckShown)] == [shown]  # the keeper's hand stays hidden


def test_mucked_cards_are_shown_when_everyone_passed():
    """The hand is over when all pass and the same dealer deals again (seed 004, auction
    pitch: "If no player bids, the deal is abandoned"): the mucked cards are shown then."""
    state = game(preset("auction", muck="new-hand"), deal(*MUCK_HANDS, stock=MUCK_STOCK))
    act(state, "muck", "keep", "pass", "pass", "pass", "pass")
    passed = next(i for i, e in enumerate(state.history) if isinstance(e, AllPassed))
    assert state.history[passed + 1] == MuckShown(2, mask_of(cards(MUCK_HANDS[2])))
    assert isinstance(state.history[passed + 2], Dealt)


def test_muck_redeal_by_the_same_dealer():
    """Seed 004: "A player who has received no point cards may ask for a complete re-deal by
    the same dealer." - the first seat asked that mucks; its hand is shown at once, the
    deal being void."""
    normal = deal("2C 3C 4C 5C 6C AC", "AH KH 2D 3D 4D 5D", "2S 3S 4S 5S 6S AS", "8C 9C JC 8D 9D 6D")
    state = game(preset("partnership", muck="redeal"), deal(*MUCK_HANDS), normal)
    assert state.phase is Phase.MUCK and state.to_move == 2 and legal(state) == ["keep", "muck"]
    act(state, "muck")
    assert state.dealer == 0 and state.hand_number == 1 and state.deal_number == 2
    assert names(state.hand(0)) == names("2C 3C 4C 5C 6C AC".split())
    shown = [e for e in state.history if isinstance(e, MuckShown)]
    assert shown == [MuckShown(2, mask_of(cards(MUCK_HANDS[2])), redeal=True)]
    assert visible_event(shown[0], 1) == {"event": "muck-shown", "seat": 2, "cards": "2S 3S 4S 5S 6S 7S",
                                          "redeal": True}
    assert sum(isinstance(e, Dealt) for e in state.history) == 2
    assert state.phase is Phase.BIDDING and state.to_move == 1
    capped = game(preset("partnership", muck="redeal", max_hands=1), deal(*MUCK_HANDS), normal)
    assert capped.phase is Phase.BIDDING  # re-deals count toward the deal limit: nobody is asked


def test_muck_redeal_declined_plays_the_deal():
    """Seed 004: a player "may ask for a complete re-deal": when every seat asked keeps its
    hand, the deal stands."""
    state = game(preset("partnership", muck="redeal"), deal(*MUCK_HANDS))
    act(state, "keep")
    assert state.to_move == 0 and state.phase is Phase.MUCK
    act(state, "keep")
    assert state.phase is Phase.BIDDING and state.deal_number == 1
    assert names(state.hand(2)) == names(MUCK_HANDS[2].split())


def test_muck_options_are_validated():
    with pytest.raises(InvalidRulesetError, match="bad value 'sometimes' for muck"):
        preset("partnership", muck="sometimes")
    with pytest.raises(InvalidRulesetError, match="muck=new-hand needs a new hand of 6 cards"):
        preset("simple", players=8, removed_ranks=(3,), muck="new-hand")
    with pytest.raises(InvalidRulesetError, match="muck=redeal needs look_option=false"):
        preset("abacos", muck="redeal")
    assert Ruleset.from_json(preset("auction", muck="redeal").to_json()).deal.muck == "redeal"


# ------------------------------------------------------------------- the ultimate-trump joker
TOP_JOKER = dict(jokers=1, joker_rank="top", points=("high", "low", "jack", "joker", "game"))

#: Hearts trump: seat 1 pitches the AH, seat 2 takes it with the joker while seat 3 must
#: follow with the 2H (the lowest trump in play); seat 2 then wins every trick.
TOP_JOKER_HAND = ("3C AH BJ 2H", "4C 5C KC 6C", "2D 3D KD 4D",
                  "2S 3S KS 4S", "5D 6D QD 7D", "5S 6S QS 7S")


def test_top_joker_captures_everything():
    """Seed 004: "A joker may also be added to the pack as the ultimate trump, capturing
    everything but the low trump." """
    rules = preset("ipitch", **TOP_JOKER)
    assert first_trick_winner(rules, "9C AH BJ 2C") == 2  # above the ace
    assert first_trick_winner(rules, "BJ 3H 9C 2C") == 0


def test_top_joker_does_not_capture_the_low_trump_and_is_a_point():
    """Seed 004: "capturing everything but the low trump. It also represents a point." (the
    2H played to the joker's trick stays with seat 3, which scores Low; the joker is the
    highest trump in play, so seat 2 scores High and the joker point)."""
    _, result = play_hand(preset("ipitch", **TOP_JOKER), PASS_ROUND, *TOP_JOKER_HAND)
    assert awards(result) == [("high", 2, "BJ"), ("low", 3, "2H"), ("joker", 2, "BJ"), ("game", 2, None)]
    assert result.tricks_won == (0, 0, 6, 0)
    _, below_jack = play_hand(preset("ipitch", **{**TOP_JOKER, "joker_rank": "below-jack"}), PASS_ROUND,
                              *TOP_JOKER_HAND)
    assert awards(below_jack)[:2] == [("high", 1, "AH"), ("low", 1, "2H")]


def test_top_joker_with_low_trump_wins_is_the_other_reading():
    """Seed 004: "capturing everything but the low trump", read as the low trump beating
    the joker: the top joker with "the low trump wins the trick in which it is played"."""
    rules = preset("ipitch", **TOP_JOKER, low_trump_wins=True)
    _, result = play_hand(rules, PASS_ROUND, *TOP_JOKER_HAND)
    assert awards(result)[:3] == [("high", 3, "BJ"), ("low", 3, "2H"), ("joker", 3, "BJ")]


def test_top_joker_is_validated():
    """Seed 004 speaks of "A joker" as the ultimate trump."""
    with pytest.raises(InvalidRulesetError, match="joker_rank=top needs jokers=1"):
        preset("ipitch", **{**TOP_JOKER, "jokers": 2})
    with pytest.raises(InvalidRulesetError, match="joker_rank=top cannot be combined with lowest_wins"):
        preset("ipitch", **TOP_JOKER, lowest_wins=True)
    assert Ruleset.from_dict(preset("ipitch", **TOP_JOKER).to_dict()).deck.joker_rank == "top"


# ------------------------------------------------------------------- the widow
WIDOW = "JH 10H 9H 8H 7H 6H"
WIDOW_DEAL = deal("2C 3C 4C 5C 6C 7C", "AH KH 2D 3D 4D 5D", "QH 2S 3S 4S 5S 6S", "8C 9C 10C JC QC KC",
                  stock=WIDOW + " 5H 4H 3H 2H AS KS QS JS 10S 9S 8S 7S AD KD QD JD 10D 9D 8D 7D 6D")


def test_widow_is_dealt_unseen_beside_the_hands():
    """Seed 004: "In some variations a widow (extra hand) is dealt along with the players'
    hands." (the first six cards of the stock; nobody sees them)."""
    state = game(preset("partnership", widow=True), WIDOW_DEAL)
    assert names(state.widow) == names(WIDOW.split())
    assert len(state.stock) == observe(state, 1).stock_size == len(WIDOW_DEAL.stock) - 6
    for seat in range(4):
        assert not set(names(observe(state, seat).hand)) & set(WIDOW.split())


def test_maker_takes_the_widow_and_discards_back_to_six():
    """Seed 004: "Before deciding the trump suit, the maker adds the widow to their hand and
    brings the number of cards back down to six by discarding." """
    state = game(preset("partnership", widow=True), WIDOW_DEAL)
    act(state, *PASS_ROUND)
    assert state.phase is Phase.DISCARD and state.to_move == 1 and state.widow == ()
    assert len(state.hand(1)) == 12 and len(state.legal_actions()) == 924  # any six of twelve
    assert_illegal(state, "cards 2D 3D 4D 5D 6H")
    act(state, "cards 2D 3D 4D 5D 7H 6H")
    assert names(state.hand(1)) == names("AH KH JH 10H 9H 8H".split())
    assert state.phase is Phase.PLAY and state.to_move == 1 and state.trump < 0  # then pitches
    declared = game(preset("cutthroat", widow=True), Deal(WIDOW_DEAL.hands[:3], WIDOW_DEAL.stock))
    act(declared, "bid 2", "pass", "pass", "cards 2D 3D 4D 5D 7H 6H")
    assert declared.phase is Phase.DECLARE_TRUMP  # the widow comes before trump is named


def test_only_the_maker_sees_the_widow():
    """Seed 004: the maker "adds the widow to their hand"; the others see only that it did,
    and how many cards it discarded."""
    state = game(preset("partnership", widow=True), WIDOW_DEAL)
    act(state, *PASS_ROUND, "cards 2D 3D 4D 5D 7H 6H")
    assert names(observe(state, 1).my_draws) == names(WIDOW.split())
    other = observe(state, 2)
    assert other.my_draws == () and other.exchanged == ((1, 0), (1, 6))
    taken = next(e for e in state.history if isinstance(e, Exchanged))
    assert visible_event(taken, 2) == {"event": "exchanged", "seat": 1, "discarded": 0, "drawn": 6}


def test_widow_is_validated():
    with pytest.raises(InvalidRulesetError, match="widow needs an auction"):
        preset("simple", widow=True)
    with pytest.raises(InvalidRulesetError, match="widow needs 6 cards beyond the hands"):
        preset("simple", players=8, removed_ranks=(3,)).with_options(auction=True, widow=True)
    with pytest.raises(InvalidRulesetError, match="widow must be true or false"):
        preset("partnership", widow=6)
    assert Ruleset.from_json(preset("partnership", widow=True).to_json()).deal.widow is True


# ------------------------------------------------------------------- documentation
def test_every_option_is_in_the_generated_options_table():
    """RULES.md: the options are "each a ruleset field"; docs/variants.md lists them all,
    generated (`.venv/bin/python scripts/gen_variants_doc.py`), so it must be fresh."""
    document = (Path(__file__).parents[2] / "docs" / "variants.md").read_text()
    assert options_in(document) == options_table(), "docs/variants.md is stale: run scripts/gen_variants_doc.py"
    for option in ("target_formula", "muck", "joker_rank", "widow"):
        assert f"| `{option}` |" in options_table()
    assert "| `muck` | deal | none | none, new-hand, redeal |" in options_table()
