"""Seed 004's remaining named variants: two-trump pitch, call for partner, Abacos, man-o-war,
nine-five and its "hotshot" variant, and the Scranton rule; one scenario (at least) per
rule that differs from the default hand.

Unless noted: seat 0 deals and seat 1 (eldest hand) wins the bid; hearts are trump (and
spades the sub-trump in two-trump pitch); in teams of two, party 0 is seats 0+2 and party 1
seats 1+3.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from helpers import (
    CAPTURED_LOW,
    act,
    assert_illegal,
    awards,
    cards,
    deal,
    deal_by_tricks,
    game,
    hand_tricks,
    legal,
    names,
    play_out,
    play_tricks,
)

from pitch_sdk.rules import CARDS, Deal, GameState, Phase, WinReason, observe, preset
from pitch_sdk.rules.cards import cards_of
from pitch_sdk.rules.events import AllPassed, Burned, Coked, Dealt, Exchanged, Looked, PartnerCalled, TrumpSet
from pitch_sdk.rules.observation import visible_event
from pitch_sdk.rules.shuffle import shuffled
from pitch_sdk.rules.tables import deck_cards


def trick_seats(state: GameState) -> list[list[int]]:
    """The seats that played each trick of the last hand scored, in order."""
    return [[seat for seat, _ in trick.plays] for trick in hand_tricks(state)]


# ======================================================================= two-trump pitch
TWO_TRUMP_BIDS = ("bid 3", "pass", "pass", "pass", "trump H", "trump S")

#: Seat 1 leads; seat 2 holds clubs, a spade, a heart, the big joker and diamonds; seat 3
#: clubs, a spade, a heart and diamonds; seat 0 the ace of clubs, a spade, the little joker
#: and diamonds, but no heart.
FOLLOW2 = deal("AC 3S LJ 4D 5D 6D", "KC AH 5S 7C 8C 9C", "QC 2S 2H BJ 2D 3D", "JC 4S 4H 7D 8D 9D")

#: Seat 1 holds the big joker; seat 3 the little one; seat 0 only diamonds.
JOKER_LEAD = deal("2D 3D 4D 5D 6D 9D", "BJ KC 5S AH 8C 9C", "QC 2S 2H 10D JD QD", "JC 4S 4H 7D 8D LJ")


def two_trump(hands: Deal, bids: Sequence[str] = TWO_TRUMP_BIDS, **options: object) -> GameState:
    """A two-trump game on ``hands``: seat 1 bids 3, names hearts trump and spades sub-trump."""
    state = game(preset("two-trump", **options), hands)
    return act(state, *bids)


def test_two_trump_54_cards_three_to_nine_players():
    """Seed 004 (Two-trump pitch): "Two-trump pitch is a variation of which incorporates all 54
    cards. It may be played with any combination of 3-9 players." """
    assert preset("two-trump").deck_size == 54
    for players in (3, 9):
        state = GameState.new(preset("two-trump", players=players), seed=1)
        assert [len(state.hand(s)) for s in range(players)] == [6] * players
    assert len(GameState.new(preset("two-trump", players=9), seed=1).stock) == 0


def test_two_trump_bids_three_or_four_to_nine():
    """Seed 004: "Bids 3 (or 4) to 9 are allowed." """
    state = game(preset("two-trump"), FOLLOW2)
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(3, 10)]
    assert_illegal(state, "bid 2")
    assert_illegal(state, "bid 10")
    four = game(preset("two-trump", minimum_bid=4), FOLLOW2)
    assert legal(four) == ["pass"] + [f"bid {n}" for n in range(4, 10)]


def test_two_trump_bidder_declares_trump_and_a_different_sub_trump():
    """Seed 004: "In this variation, the player who wins the bid declares both the trump and
    sub-trump suits." (the sub-trump is named second and is not the trump suit)."""
    state = game(preset("two-trump"), FOLLOW2)
    act(state, "bid 3", "pass", "pass", "pass")
    assert state.phase is Phase.DECLARE_TRUMP and state.to_move == 1
    act(state, "trump H")
    assert state.phase is Phase.DECLARE_SUB_TRUMP and state.to_move == 1
    assert legal(state) == ["trump C", "trump D", "trump S"]
    assert_illegal(state, "trump H")
    act(state, "trump S")
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert str(state.trump_suit) == "H" and state.sub_trump == cards("2S")[0].suit
    declared = [(e.suit.letter, e.sub) for e in state.history if isinstance(e, TrumpSet)]
    assert declared == [("H", False), ("S", True)]
    assert observe(state, 3).sub_trump is not None and observe(state, 3).sub_trump.letter == "S"


def test_two_trump_sub_trump_beats_plain_cards_loses_to_trumps():
    """Seed 004: "sub-trump cards rank above non-trumps, but below trumps." """
    state = two_trump(FOLLOW2)
    play_tricks(state, "AC KC 2S JC")  # the 2S (sub-trump) beats the ace and king of clubs
    assert state.tricks[0].winner == 2
    state = two_trump(FOLLOW2)
    play_tricks(state, "AC KC 2S 4H")  # the 4H (trump) beats the sub-trump
    assert state.tricks[0].winner == 3


def test_two_trump_plain_lead_follow_trump_sub_trump_or_joker():
    """Seed 004: "Players follow suit as in other variations; sub-trumps do not count as
    trumps for this purpose. sub-trumps may be used to "trump in," on non-trump leads,
    however." and "A joker may be cut in at any time if a non-trump suit is lead,
    regardless of the players remaining cards." """
    state = two_trump(FOLLOW2)
    act(state, "play KC")
    assert state.to_move == 2
    assert legal(state) == ["play QC", "play 2H", "play 2S", "play BJ"]
    assert_illegal(state, "play 2D")  # holds a club: no discarding a plain suit
    act(state, "play 2S")
    assert legal(state) == ["play JC", "play 4H", "play 4S"]
    assert_illegal(state, "play 7D")
    act(state, "play 4H")
    assert legal(state) == ["play AC", "play 3S", "play LJ"]  # the joker cuts in although it holds a club
    assert_illegal(state, "play 4D")


def test_two_trump_sub_trump_lead_trump_may_be_played():
    """Seed 004: "If a sub-trump is lead, main trump can be "trumped in"." (sub-trumps are
    otherwise followed like any suit; a joker is not cut in while holding the sub-trump, see
    test_readings)."""
    state = two_trump(FOLLOW2)
    act(state, "play 5S")
    assert legal(state) == ["play 2H", "play 2S"]
    assert_illegal(state, "play QC")
    act(state, "play 2H")
    assert legal(state) == ["play 4H", "play 4S"]
    assert_illegal(state, "play JC")
    act(state, "play 4S", "play 3S")
    assert state.tricks[0].winner == 2  # the trump 2H beats the sub-trumps led


def test_two_trump_trump_lead_no_joker_while_holding_trump():
    """Seed 004: "If a trump suit is lead, jokers may not be cut in if the player in possession
    of the joker has cards of that trump remaining." """
    state = two_trump(FOLLOW2)
    act(state, "play AH")
    assert legal(state) == ["play 2H"]  # holds the big joker, and a trump
    assert_illegal(state, "play BJ")
    act(state, "play 2H")
    assert legal(state) == ["play 4H"]
    act(state, "play 4H")
    assert "play LJ" in legal(state) and len(legal(state)) == 6  # no trump left: anything


def test_two_trump_joker_lead_is_suitless_second_card_sets_the_suit():
    """Seed 004: "When leading a joker it is considered to be suit-less, the second play of the
    trick determines the lead suit, and players must follow suit as usual from there." """
    state = two_trump(JOKER_LEAD)
    act(state, "play BJ")
    assert len(legal(state)) == 6  # nothing to follow yet
    act(state, "play QC")
    assert legal(state) == ["play JC", "play 4H", "play 4S", "play LJ"]
    assert_illegal(state, "play 7D")
    trumped = two_trump(JOKER_LEAD)
    act(trumped, "play BJ", "play 2H")  # a trump second: trump is led
    assert legal(trumped) == ["play 4H"]
    assert_illegal(trumped, "play LJ")


def test_two_trump_jokers_never_win_a_trick():
    """Seed 004: "jokers are unranked and cannot be used to capture other cards." """
    state = two_trump(JOKER_LEAD)
    play_tricks(state, "2D BJ QC LJ")  # both jokers and the queen of clubs
    assert state.tricks[0].winner == 2 and state.to_move == 2


def test_two_trump_double_down_override():
    """Seed 004: "A further variant of the two trump game is to allow a joker to be played if
    the other joker was lead, regardless of the second card played in the trick and the rest
    of the players hand. This is known as the double down override" """
    state = two_trump(JOKER_LEAD, double_down_override=True)
    act(state, "play BJ", "play 2H")
    assert legal(state) == ["play 4H", "play LJ"]
    act(state, "play LJ", "play 2D")
    assert state.tricks[0].winner == 2


#: Seat 1 takes High, Low and Jack (trick 1); seat 3 trumps the sub-trump lead and takes
#: sub-high, sub-low and sub-jack (trick 2); seat 0 takes both jokers with the KC (trick 3,
#: a joker lead); seat 2 takes Game with the two tens (20 pips).
TWO_TRUMP_HAND = ("3H AH 2H JH", "AS 2S JS 4H", "KC LJ QC BJ", "5D 3D 10D 4D", "3C 4C 10C 2C", "8D 9D 6D 7D")


def test_two_trump_nine_points():
    """Seed 004: "Nine points are possible: high, low, jack, sub-high, sub-low, sub-jack, both
    jokers, and game." """
    rules = preset("two-trump", **CAPTURED_LOW)
    assert rules.points_in_play == 9
    state = game(rules, deal_by_tricks(*TWO_TRUMP_HAND))
    act(state, *TWO_TRUMP_BIDS)
    play_tricks(state, *TWO_TRUMP_HAND)
    result = state.results[0]
    assert awards(result) == [("high", 1, "AH"), ("low", 1, "2H"), ("jack", 1, "JH"),
                              ("sub-high", 3, "AS"), ("sub-low", 3, "2S"), ("sub-jack", 3, "JS"),
                              ("joker", 0, "BJ"), ("joker", 0, "LJ"), ("game", 2, None)]
    assert [t.winner for t in hand_tricks(state)] == [1, 3, 0, 2, 2, 1]
    assert result.made is True and result.score_changes == (2, 3, 1, 3)


def test_two_trump_played_to_26():
    """Seed 004: "Games are played to 26 points." """
    assert preset("two-trump", **CAPTURED_LOW).win.target == 26
    state = game(preset("two-trump", **CAPTURED_LOW), deal_by_tricks(*TWO_TRUMP_HAND), scores=(0, 23, 0, 0))
    act(state, *TWO_TRUMP_BIDS)
    play_tricks(state, *TWO_TRUMP_HAND)
    assert state.results[0].scores == (2, 26, 1, 3)
    assert state.winner == 1 and state.win_reason is WinReason.REACHED_TARGET
    short = game(preset("two-trump", **CAPTURED_LOW), deal_by_tricks(*TWO_TRUMP_HAND), scores=(0, 22, 0, 0))
    act(short, *TWO_TRUMP_BIDS)
    play_tricks(short, *TWO_TRUMP_HAND)
    assert short.results[0].scores == (2, 25, 1, 3) and not short.is_over


# ===================================================================== call for partner
CALL_BIDS = ("bid 2", "pass", "pass", "pass", "pass")

#: Five seats.  Seat 1 calls the AH, held by seat 3, who leads it; seats 1+3 take High
#: (AH), Low (2H) and Jack (JH) in the first trick; seat 2 takes Game (17 pips).
CALL_HAND = ("5C 2H 6C AH JH", "8C 9C 10C 7C 4C", "4S 5S AS 2S 3S",
             "8S 9S KS 6S 7S", "5D 6D 2D 3D 4D", "QD 7D 8D 9D 10D")


def test_call_partner_bidder_calls_a_card_whose_holder_leads_it_and_sets_trump():
    """Seed 004 (Call for partner): "the player who wins the bid calls for a specific card,
    and the player who has it becomes their partner until the next bid. The "called" card
    is the first played, and sets the trump." """
    rules = preset("call-partner")
    assert rules.players == 5 and rules.parties == 5  # "There are no set teams"
    state = game(rules, deal_by_tricks(*CALL_HAND))
    act(state, *CALL_BIDS)
    assert state.phase is Phase.CALL_CARD and state.to_move == 1
    assert_illegal(state, "call 2H")  # its own card
    act(state, "call AH")
    assert state.called == CARDS.index(cards("AH")[0]) and state.partner == 3
    assert [type(e) for e in state.history[-1:]] == [PartnerCalled]
    assert state.phase is Phase.PLAY and state.to_move == 3 and state.trump_suit is None
    assert legal(state) == ["play AH"]
    assert_illegal(state, "play 7C")
    act(state, "play AH")
    assert str(state.trump_suit) == "H"


def test_call_partner_points_kept_individually_earned_as_a_team():
    """Seed 004: "Points are kept individually, though they are earned as a team." (each
    member of a side scores the side's points)."""
    state = game(preset("call-partner", **CAPTURED_LOW), deal_by_tricks(*CALL_HAND))
    act(state, *CALL_BIDS, "call AH")
    play_tricks(state, *CALL_HAND)
    result = state.results[0]
    assert awards(result) == [("high", 3, "AH"), ("low", 3, "2H"), ("jack", 3, "JH"), ("game", 2, None)]
    assert result.points_won == (0, 0, 1, 3, 0)
    assert result.sides == (1, 0, 1, 0, 1)
    assert result.made is True
    assert result.score_changes == (1, 3, 1, 3, 1) and result.scores == (1, 3, 1, 3, 1)
    assert state.partner == -1 and state.called == -1  # "until the next bid"


def test_call_partner_undealt_card_leaves_the_bidder_alone():
    """Seed 004: "the player who has it becomes their partner" (a called card nobody was dealt
    gives no partner: the bidder plays alone and pitches as usual)."""
    state = game(preset("call-partner", **CAPTURED_LOW), deal_by_tricks(*CALL_HAND))
    act(state, *CALL_BIDS, "call KH")  # in the stock
    assert state.partner == -1
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert len(legal(state)) == 6
    play_tricks(state, *CALL_HAND)
    result = state.results[0]
    assert result.sides == (1, 0, 1, 1, 1)
    assert result.points_won == (0, 0, 1, 3, 0)
    # Alone, seat 1 took nothing: set back; the others (one side) each score the side's 4.
    assert result.made is False and result.score_changes == (4, -2, 4, 4, 4)


def test_call_partner_holder_known_only_to_itself_until_the_card_is_played():
    """Seed 004: "the player who wins the bid calls for a specific card, and the player who has
    it becomes their partner" (the call is public; who holds the card shows when it is
    played)."""
    state = game(preset("call-partner"), deal_by_tricks(*CALL_HAND))
    act(state, *CALL_BIDS, "call AH")
    assert observe(state, 0).called_card is not None and observe(state, 0).called_card.name == "AH"
    assert observe(state, 1).partner is None and observe(state, 0).partner is None
    assert observe(state, 3).partner == 3
    act(state, "play AH")
    assert observe(state, 1).partner == 3 and observe(state, 0).partner == 3


# ================================================================================ Abacos
#: Seat 1 and the dealer look; seats 2 and 3 bid blind; seat 1 bids 2, the others pass.
ABACOS_AUCTION = ("yes", "bid 2", "no", "pass", "no", "pass", "yes", "pass")


def test_abacos_each_player_may_look_or_not_before_acting():
    """Seed 004 (Abacos pitch): "In the bidding round, each player may choose to look or not
    look at his/her hand before making a decision." """
    state = GameState.new(preset("abacos"), seed=3)
    assert state.phase is Phase.LOOK and state.to_move == 1
    assert legal(state) == ["no", "yes"]
    act(state, "yes")
    assert state.phase is Phase.BIDDING and state.to_move == 1 and state.looked[1]
    act(state, "bid 2")
    assert state.phase is Phase.LOOK and state.to_move == 2
    act(state, "no")
    assert state.phase is Phase.BIDDING and not state.looked[2]
    assert [(e.seat, e.looked) for e in state.history if isinstance(e, Looked)] == [(1, True), (2, False)]


def test_abacos_blind_seat_does_not_see_its_hand_during_the_auction():
    """Seed 004: "each player may choose to look or not look at his/her hand before making a
    decision." (a seat bidding blind is not shown its cards during the auction)."""
    state = GameState.new(preset("abacos"), seed=3)
    for seat in range(4):
        assert observe(state, seat).hand == () and observe(state, seat).hand_hidden
    act(state, "yes")
    assert observe(state, 1).hand == state.hand(1)
    act(state, "bid 2", "no")
    seen = observe(state, 2)
    assert seen.hand == () and seen.hand_hidden and seen.hand_sizes[2] == 6
    act(state, "pass", "no", "pass", "yes", "pass")
    assert state.phase is Phase.PLAY
    assert observe(state, 2).hand == state.hand(2) and len(state.hand(2)) == 6


def test_abacos_lookers_lose_one_card_at_the_end_of_the_bidding():
    """Seed 004: "At the end of the bidding round, each player who looked at his/her cards
    before acting loses one card, chosen at random." """
    state = GameState.new(preset("abacos"), seed=3)
    dealt = [state.hand(s) for s in range(4)]
    act(state, *ABACOS_AUCTION[:-1])
    assert [len(state.hand(s)) for s in range(4)] == [6] * 4  # nothing lost before the auction ends
    act(state, ABACOS_AUCTION[-1])
    assert [len(state.hand(s)) for s in range(4)] == [5, 5, 6, 6]
    assert state.hand(2) == dealt[2] and state.hand(3) == dealt[3]  # non-lookers keep six
    lost = {e.seat: cards_of(e.discarded) for e in state.history if isinstance(e, Exchanged)}
    assert sorted(lost) == [0, 1]
    for seat in (0, 1):
        assert len(lost[seat]) == 1 and lost[seat][0] in dealt[seat]
        assert names(state.hand(seat) + lost[seat]) == names(dealt[seat])


def test_abacos_lookers_have_nothing_to_play_in_the_sixth_trick():
    """Seed 004: "Players who lose a card have nothing to play in the sixth and final round of
    play. Play and scoring after the bidding round proceed exactly as in classic Pitch." """
    state = GameState.new(preset("abacos"), seed=3)
    act(state, *ABACOS_AUCTION)
    play_out(state)
    seats = trick_seats(state)
    assert len(seats) == 6
    assert all(sorted(t) == [0, 1, 2, 3] for t in seats[:5])
    assert sorted(seats[5]) == [2, 3]
    everyone = GameState.new(preset("abacos"), seed=3)
    act(everyone, "yes", "bid 2", "yes", "pass", "yes", "pass", "yes", "pass")
    play_out(everyone)
    assert [len(t) for t in trick_seats(everyone)] == [4] * 5  # all looked: five tricks


def test_abacos_lost_card_is_the_same_for_the_same_seed():
    """Seed 004: "each player who looked at his/her cards before acting loses one card, chosen
    at random." (the chance comes from the game's seed: a replay loses the same cards)."""
    def lost_cards(seed: int) -> list[tuple[int, int]]:
        state = GameState.new(preset("abacos"), seed=seed)
        act(state, *ABACOS_AUCTION)
        return [(e.seat, e.discarded) for e in state.history if isinstance(e, Exchanged)]

    assert lost_cards(3) == lost_cards(3)
    assert lost_cards(4) == lost_cards(4)
    explicit = deal("2C 3C 4C 5C 6C 7C", "AH KH QH JH 10H 9H", "2D 3D 4D 5D 6D 7D", "2S 3S 4S 5S 6S 7S")
    runs = []
    for _ in range(2):
        state = GameState.from_deals(preset("abacos"), [explicit], seed=9)
        act(state, *ABACOS_AUCTION)
        runs.append([state.hand(s) for s in range(4)])
    assert runs[0] == runs[1]


# ============================================================================ man-o-war
#: Everyone looks; seat 1 bids 2, the others pass.
MAN_O_WAR_AUCTION = ("yes", "bid 2", "yes", "pass", "yes", "pass", "yes", "pass")


def _lost(state: GameState) -> dict[int, object]:
    return {e.seat: cards_of(e.discarded)[0] for e in state.history
            if isinstance(e, Exchanged) and e.drawn == 0}


def test_man_o_war_bidder_looks_at_the_lost_cards_one_at_a_time():
    """Seed 004 (Man-o-war pitch): "after the bidding round, the player who made the highest bid
    looks at the cards given up by players who looked at their hand prior to bidding, one
    at a time." (the bidder's own lost card is not offered back)."""
    state = GameState.new(preset("man-o-war"), seed=5)
    act(state, *MAN_O_WAR_AUCTION)
    lost = _lost(state)
    assert sorted(lost) == [0, 1, 2, 3]
    offered = []
    while state.phase is Phase.OFFER:
        assert state.to_move == 1 and legal(state) == ["no", "yes"]
        card = CARDS[state.offered]
        assert observe(state, 1).offered == card
        assert all(observe(state, s).offered is None for s in (0, 2, 3))
        offered.append(card)
        act(state, "no")
    assert offered == [lost[2], lost[3], lost[0]]
    assert state.phase is Phase.PLAY


def test_man_o_war_offer_own_lost_option():
    """Seed 004 (Man-o-war pitch): the bidder "looks at the cards given up by players who
    looked at their hand prior to bidding, one at a time"; by default its own lost card is
    not among them, and ``offer_own_lost`` offers it back too (in turn from eldest hand,
    who is the bidder here)."""
    state = GameState.new(preset("man-o-war", offer_own_lost=True), seed=5)
    act(state, *MAN_O_WAR_AUCTION)
    lost = _lost(state)
    offered = []
    while state.phase is Phase.OFFER:
        offered.append(CARDS[state.offered])
        act(state, "no")
    assert offered == [lost[1], lost[2], lost[3], lost[0]]


def test_man_o_war_only_lookers_cards_are_offered():
    """Seed 004: "looks at the cards given up by players who looked at their hand prior to
    bidding" """
    state = GameState.new(preset("man-o-war"), seed=5)
    act(state, "yes", "bid 2", "no", "pass", "yes", "pass", "no", "pass")
    assert state.phase is Phase.OFFER and CARDS[state.offered] == _lost(state)[3]
    act(state, "no")
    assert state.phase is Phase.PLAY


def test_man_o_war_take_a_card_then_discard_one_of_choice():
    """Seed 004: "The player with the highest bid may choose to take or not take each card he
    looks at. If he chooses to take a card, he discards a card of his choice." """
    state = GameState.new(preset("man-o-war"), seed=5)
    act(state, *MAN_O_WAR_AUCTION)
    before = state.hand(1)
    taken = CARDS[state.offered]
    act(state, "yes")
    assert state.phase is Phase.DISCARD and state.to_move == 1
    assert names(state.hand(1)) == names((*before, taken))
    rule = state.decision().card_set
    assert rule is not None and (rule.min_count, rule.max_count) == (1, 1)
    assert names(rule.allowed) == names(state.hand(1))
    thrown = before[0]
    act(state, f"cards {thrown}")
    assert names(state.hand(1)) == names((*before[1:], taken)) and len(state.hand(1)) == 5
    assert state.phase is Phase.OFFER  # the next lost card
    exchanged = [e for e in state.history if isinstance(e, Exchanged) and e.drawn]
    assert [(e.seat, cards_of(e.discarded), cards_of(e.drawn)) for e in exchanged] == [(1, (thrown,), (taken,))]


def test_man_o_war_a_card_left_stays_out_of_play():
    """Seed 004: "The player with the highest bid may choose to take or not take each card he
    looks at." (a card not taken stays out of the hand, like Abacos' lost cards)."""
    state = GameState.new(preset("man-o-war"), seed=5)
    act(state, *MAN_O_WAR_AUCTION)
    left = CARDS[state.offered]
    act(state, "no", "no", "no")
    assert all(left not in state.hand(s) for s in range(4))
    play_out(state)
    played = [CARDS[c] for trick in hand_tricks(state) for _, c in trick.plays]
    assert left not in played and len(played) == 20


# ============================================================================= nine-five
#: Nine cards each.  Seat 1 holds the six top hearts (and the 9H); with hearts trump the
#: others keep their few hearts and are refilled to six from the stock (seat 2: 9D 10D JD
#: QD, seat 3: 9S 10S JS QS); the dealer then picks four of the rest.
NF_ALL = Deal(hands=(cards("8H 4H 5C 6C 7C 8C 10C JC QC"), cards("AH KH QH JH 10H 9H 2C 3C 4C"),
                     cards("5H 7H 2D 3D 4D 5D 6D 7D 8D"), cards("2H 3H 2S 3S 4S 5S 6S 7S 8S")),
              stock=cards("9D 10D JD QD 9S 10S JS QS 6H KC AC 9C KD AD KS AS"))
NF_DEALER_PICK = "cards 6H KC AC 9C"
#: Seat 1 leads its trumps from the top and takes every trick: all 18 points.
NF_ALL_PLAY = ("4H AH 5H 2H", "6H KH 7H 3H", "8H QH 9D 9S", "KC JH 10D 10S", "AC 10H JD JS", "9C 9H QD QS")

#: Seat 1 holds five top hearts (no 9) and is refilled with the 7C; seat 2 holds the 9H
#: and 5H; the dealer picks the KD and AD.
NF_SET = Deal(hands=(cards("8H 4H 6H 7H 5C 8C 10C JC QC"), cards("AH KH QH JH 10H 2C 3C 4C 6C"),
                     cards("5H 9H 2D 3D 4D 5D 6D 7D 8D"), cards("2H 3H 2S 3S 4S 5S 6S 7S 8S")),
              stock=cards("7C 9D 10D JD QD 9S 10S JS QS 9C KC AC KD AD KS AS"))


def nine_five_auction(first: str, look: str = "yes") -> tuple[str, ...]:
    """Seat 1 (looking or not) makes ``first``; the others look and pass."""
    return (look, first, "yes", "pass", "yes", "pass", "yes", "pass")


def nine_five_set(state: GameState) -> GameState:
    """Play the NF_SET hand: seat 1 must lead a trump, then leads the 7C, which seat 2 trumps
    with the 5H; the rest with the first legal card."""
    play_tricks(state, "4H AH 9H 2H", "KD 7C 5H 9S")
    return play_out(state)


def test_nine_five_nine_and_five_of_trumps_18_points():
    """Seed 004 (Nine-five): "In all variants of nine-five the five of trumps and the nine of
    trumps score many game points when captured in tricks: 5 and 9, respectively." and "The
    maximum number of points that can be won is 18." """
    rules = preset("nine-five")
    assert rules.points_in_play == 18 and rules.parties == 2 and rules.deck_size == 52
    state = game(rules, NF_ALL)
    act(state, *nine_five_auction("bid 9"), "trump H", NF_DEALER_PICK)
    play_tricks(state, *NF_ALL_PLAY)
    result = state.results[0]
    assert awards(result) == [("high", 1, "AH"), ("low", 1, "2H"), ("jack", 1, "JH"), ("game", 1, None),
                              ("nine", 1, "9H"), ("five", 1, "5H")]
    assert result.points_won == (0, 18) and result.score_changes == (0, 18)


def test_nine_five_nine_dealt_minimum_bid_four():
    """Seed 004: "The minimum bid is 4 or 9." and "Nine cards are dealt to each player." """
    state = game(preset("nine-five"), NF_SET)
    assert [len(state.hand(s)) for s in range(4)] == [9] * 4
    act(state, "yes")
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(4, 20)]
    assert_illegal(state, "bid 3")


def test_nine_five_nine_and_another_card_of_its_suit_forces_nine():
    """Seed 004: "A minimum bid of 9 is forced if a player holds the 9 and another card of the
    same suit" """
    state = game(preset("nine-five"), NF_ALL)
    act(state, "yes")
    assert legal(state) == [f"bid {n}" for n in range(9, 20)]
    assert_illegal(state, "pass")
    assert_illegal(state, "bid 8")
    act(state, "bid 9", "yes")  # seat 2: no nine
    act(state, "pass")
    later = game(preset("nine-five"), NF_SET)
    act(later, "yes", "bid 10", "yes")  # seat 2 holds the 9H and 5H, but 10 is bid already
    assert "pass" in legal(later)
    early = game(preset("nine-five"), NF_SET)
    act(early, "yes", "bid 4", "yes")  # the high bid is below 9: seat 2 is forced
    assert legal(early) == [f"bid {n}" for n in range(9, 20)]


def test_nine_five_forced_bidder_may_name_another_trump():
    """Seed 004: "however the high bidder may choose a trump suit other than the suit that
    forced their bid." """
    state = game(preset("nine-five"), NF_ALL)
    act(state, *nine_five_auction("bid 9"))
    assert state.phase is Phase.DECLARE_TRUMP and state.to_move == 1
    assert legal(state) == ["trump C", "trump D", "trump H", "trump S"]
    act(state, "trump C")
    assert str(state.trump_suit) == "C"


def test_nine_five_smudge_19_takes_all_18_points():
    """Seed 004: "A "smudge" bid is worth 19 points in this variant." (it needs all the 18
    points)."""
    state = game(preset("nine-five"), NF_ALL)
    act(state, *nine_five_auction("bid 19"), "trump H", NF_DEALER_PICK)
    play_tricks(state, *NF_ALL_PLAY)
    result = state.results[0]
    assert result.moon is True and result.made is True
    assert result.points_won == (0, 18) and result.score_changes == (0, 19)
    assert not state.is_over


def test_nine_five_smudge_set_loses_19():
    """Seed 004: "A "smudge" bid is worth 19 points in this variant." (short of all 18 points,
    the bidding team is set 19)."""
    state = game(preset("nine-five"), NF_SET)
    act(state, *nine_five_auction("bid 19"), "trump H", "cards KD AD")
    nine_five_set(state)
    result = state.results[0]
    assert result.moon is True and result.made is False
    assert result.points_won[0] >= 5 and result.score_changes[1] == -19


def test_nine_five_blind_smudge_20_only_before_looking():
    """Seed 004: "A "blind smudge" bid must be made before the player looks at their hand. It
    is worth 20 points." """
    blind = game(preset("nine-five"), NF_ALL)
    act(blind, "no")
    assert legal(blind)[-2:] == ["bid 19", "bid 20"]
    looked = game(preset("nine-five"), NF_ALL)
    act(looked, "yes")
    assert "bid 20" not in legal(looked)
    assert_illegal(looked, "bid 20")
    act(blind, "bid 20", "yes", "pass", "yes", "pass", "yes", "pass", "trump H", NF_DEALER_PICK)
    play_tricks(blind, *NF_ALL_PLAY)
    result = blind.results[0]
    assert result.moon is True and result.made is True and result.score_changes == (0, 20)


def test_nine_five_discard_non_trumps_refill_to_six_dealer_picks_from_the_rest():
    """Seed 004: "The winning bidder declares the trump suit, and each player discards any
    non-trump cards. ... Next, the dealer will deal each player back up to six total cards.
    Finally, the dealer brings their own hand to six cards, and is allowed to look at
    remaining cards when doing so." """
    state = game(preset("nine-five"), NF_ALL)
    act(state, *nine_five_auction("bid 9"), "trump H")
    assert names(state.hand(1)) == names(cards("AH KH QH JH 10H 9H"))
    assert names(state.hand(2)) == names(cards("5H 7H 9D 10D JD QD"))
    assert names(state.hand(3)) == names(cards("2H 3H 9S 10S JS QS"))
    assert names(state.hand(0)) == names(cards("8H 4H"))
    assert state.phase is Phase.DEALER_PICK and state.to_move == 0
    rule = state.decision().card_set
    assert rule is not None and (rule.min_count, rule.max_count) == (4, 4)
    assert names(rule.allowed) == names(cards("6H KC AC 9C KD AD KS AS"))
    act(state, "cards KS AS 6H KD")  # any four it chooses
    assert names(state.hand(0)) == names(cards("8H 4H 6H KD KS AS"))
    assert state.phase is Phase.PLAY and state.to_move == 1


def test_nine_five_dealer_takes_the_remaining_trumps():
    """Seed 004: "If too few trump cards remain, the dealer may take any card he or she
    chooses. This discard process ensures that all trump cards are in play." (while trumps
    remain in the stock, the dealer completes the hand with them)."""
    state = game(preset("nine-five"), NF_ALL)
    act(state, *nine_five_auction("bid 9"), "trump H")
    assert state.phase is Phase.DEALER_PICK
    assert_illegal(state, "cards KC AC 9C KD")  # would leave the 6H out of play
    rule = state.decision().card_set
    assert rule is not None and cards("6H")[0] in rule.required


def test_nine_five_more_than_six_trumps_discards_down_to_six():
    """Seed 004: "If a player has more than six trumps, he or she must discard down to six
    cards." """
    seven = Deal(hands=(cards("3H 4C 5C 6C 7C 8C 10C JC QC"), cards("AH KH QH JH 10H 9H 8H 2C 3C"),
                        cards("5H 2D 3D 4D 5D 6D 7D 8D 9D"), cards("2H 2S 3S 4S 5S 6S 7S 8S 9S")),
                 stock=cards("10D JD QD KD AD 10S JS QS KS AS 4H 6H 7H 9C KC AC"))
    state = game(preset("nine-five"), seven)
    act(state, *nine_five_auction("bid 9"), "trump H")
    assert state.phase is Phase.DEALER_PICK
    act(state, "cards 4H 6H 7H 9C KC")
    assert state.phase is Phase.BURN and state.to_move == 1 and len(state.hand(1)) == 7
    rule = state.decision().card_set
    assert rule is not None and (rule.min_count, rule.max_count) == (1, 1)
    act(state, "cards 8H")
    assert [(e.seat, cards_of(e.cards)) for e in state.history if isinstance(e, Burned)] == [(1, cards("8H"))]
    assert [len(state.hand(s)) for s in range(4)] == [6] * 4
    assert state.phase is Phase.PLAY


def test_nine_five_pitcher_leads_a_trump_to_the_first_trick():
    """Seed 004 (the nine-five variant): "The pitcher need not lead a trump." (so in nine-five
    itself the pitcher leads a trump to the first trick; later leads are free)."""
    state = game(preset("nine-five"), NF_SET)
    act(state, *nine_five_auction("bid 9"), "trump H", "cards KD AD")
    assert state.to_move == 1 and "7C" in [str(c) for c in state.hand(1)]
    assert legal(state) == ["play 10H", "play JH", "play QH", "play KH", "play AH"]
    assert_illegal(state, "play 7C")
    play_tricks(state, "4H AH 9H 2H")
    assert state.to_move == 1 and "play 7C" in legal(state)


def test_nine_five_above_100_after_making_the_bid_wins():
    """Seed 004: "Game play is normal with the 2 winning conditions: the first team to win a bid
    that brings them above 100 points" """
    assert preset("nine-five").win.target == 101
    for before, over in ((83, True), (82, False)):
        state = game(preset("nine-five"), NF_ALL, scores=(0, before))
        act(state, *nine_five_auction("bid 9"), "trump H", NF_DEALER_PICK)
        play_tricks(state, *NF_ALL_PLAY)
        assert state.results[0].scores == (0, before + 18)
        assert state.is_over is over
        if over:
            assert state.winner == 1 and state.win_reason is WinReason.REACHED_TARGET


def test_nine_five_defenders_above_100_do_not_win():
    """Seed 004: "the first team to win a bid that brings them above 100 points" (a team that
    did not win the bid does not go out)."""
    state = game(preset("nine-five"), NF_SET, scores=(100, 0))
    act(state, *nine_five_auction("bid 19"), "trump H", "cards KD AD")
    nine_five_set(state)
    result = state.results[0]
    assert result.scores[0] > 100 and result.scores[1] == -19
    assert result.winner is None and not state.is_over


def test_nine_five_minus_100_the_other_team_wins():
    """Seed 004: "or if a team reaches -100 points the other team is declared winner." """
    state = game(preset("nine-five"), NF_SET, scores=(0, -81))
    act(state, *nine_five_auction("bid 19"), "trump H", "cards KD AD")
    nine_five_set(state)
    result = state.results[0]
    assert result.scores[1] == -100
    assert result.winner == 0 and result.win_reason is WinReason.BACKDOOR and state.is_over


def test_nine_five_backdoor_minus_200_draw_option():
    """Seed 004: "(A variant to the scoring is that if a team reaches -200 points it is
    considered a "backdoor" and the game is a draw.)" """
    rules = preset("nine-five", backdoor="draw", backdoor_score=-200)
    state = game(rules, NF_SET, scores=(0, -181))
    act(state, *nine_five_auction("bid 19"), "trump H", "cards KD AD")
    nine_five_set(state)
    result = state.results[0]
    assert result.scores[1] == -200
    assert result.game_over is True and result.winner is None and result.win_reason is WinReason.BACKDOOR


# =============================================================== hotshot (nine-five variant)
HOTSHOT_BID = ("bid 18", "pass", "pass", "pass")
#: NF_ALL_PLAY, but seat 2 (left of the pitcher) leads the 9D to the first trick.
HOTSHOT_PLAY = ("KC AH 9D 9S", "4H KH 5H 2H", "6H QH 7H 3H", "8H JH 10D 10S", "AC 10H JD JS", "9C 9H QD QS")
#: Nobody holds a nine: every nine is in the stock.
NO_NINES = deal("2C 3C 4C 5C 6C 7C 8C 10C JC", "2D 3D 4D 5D 6D 7D 8D 10D JD",
                "2S 3S 4S 5S 6S 7S 8S 10S JS", "2H 3H 4H 5H 6H 7H 8H 10H JH")


def test_hotshot_legal_bids_nine_to_eighteen():
    """Seed 004 (Nine-five, Variant): "Legal bids are 9–18. 18 is called "hotshot"." """
    state = game(preset("hotshot"), NO_NINES)
    assert state.phase is Phase.BIDDING  # no looking: hands are seen
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(9, 19)]
    assert_illegal(state, "bid 8")
    assert_illegal(state, "bid 19")


def test_hotshot_nine_and_another_card_of_its_suit_forces_nine():
    """Seed 004 (Variant): "Holding a "9" and another card of the same suit is a forced minimum
    bid of 9." """
    state = game(preset("hotshot"), NF_ALL)
    assert legal(state) == [f"bid {n}" for n in range(9, 19)]
    assert_illegal(state, "pass")


def test_hotshot_left_of_pitcher_leads_and_need_not_lead_trump():
    """Seed 004 (Variant): "The pitcher need not lead a trump." and "The player to the left of
    the pitcher leads the first card, and is not required to lead trump." """
    state = game(preset("hotshot"), NF_ALL)
    act(state, "bid 9", "pass", "pass", "pass", "trump H", NF_DEALER_PICK)
    assert state.phase is Phase.PLAY and state.pitcher == 1 and state.to_move == 2
    assert "play 9D" in legal(state) and "play 5H" in legal(state)
    act(state, "play 9D")
    assert state.trick[0] == (2, CARDS.index(cards("9D")[0]))


def test_hotshot_made_wins_the_game():
    """Seed 004 (Variant): "Bidding "hotshot" makes the game sudden death; if the bidder
    succeeds and collects all 18 points in the round, he wins the entire game" """
    state = game(preset("hotshot"), NF_ALL)
    act(state, *HOTSHOT_BID, "trump H", NF_DEALER_PICK)
    play_tricks(state, *HOTSHOT_PLAY)
    result = state.results[0]
    assert result.moon is True and result.made is True and result.points_won == (0, 18)
    assert state.is_over and state.winner == 1 and state.win_reason is WinReason.SHOT_THE_MOON


def test_hotshot_failed_ends_the_game():
    """Seed 004 (Variant): "but if he fails, the game is over." (the other team wins)."""
    state = game(preset("hotshot", **CAPTURED_LOW), NF_SET, scores=(0, 60))
    act(state, *HOTSHOT_BID, "trump H", "cards KD AD")
    play_tricks(state, "4H 7C 10D 2H")  # seat 0 over-trumps seat 3's 2H: Low to party 0
    play_out(state)
    result = state.results[0]
    assert ("low", 0, "2H") in awards(result)
    assert result.moon is True and result.made is False
    assert state.is_over and state.winner == 0 and state.win_reason is WinReason.FAILED_MOON


def test_hotshot_all_pass_deal_passes_to_the_left():
    """Seed 004 (Variant): "If all players pass, the cards are shown face up to prove the lack
    of a forced bid, and the deal is passed to the left." """
    state = game(preset("hotshot"), NO_NINES)
    act(state, "pass", "pass", "pass", "pass")
    assert any(isinstance(e, AllPassed) for e in state.history)
    assert state.dealer == 1 and state.to_move == 2 and state.phase is Phase.BIDDING
    assert state.hand_number == 1 and not state.results


def test_hotshot_all_pass_cards_are_shown_face_up():
    """Seed 004 (Variant): "If all players pass, the cards are shown face up to prove the lack
    of a forced bid" (every seat can see the others' passed hands)."""
    state = game(preset("hotshot"), NO_NINES)
    act(state, "pass", "pass", "pass", "pass")
    deals = [i for i, e in enumerate(state.history) if isinstance(e, Dealt)]
    passed = state.history[deals[0]:deals[1]]
    seen = " ".join(str(visible_event(e, 2)) for e in passed)
    assert all(str(card) in seen for card in NO_NINES.hands[1])


# ========================================================================= Scranton rule
#: Seat 1's cards are all below ten; the others hold tens or better.  Seat 1 cokes and
#: draws the first five cards of the stock; seat 2 bids 2.
SCRANTON = Deal(hands=(cards("AC KC QC JC 10C 9C"), cards("2D 3D 4D 5D 6S 7S"),
                       cards("AH KH QH JH 10H 9H"), cards("AD KD QD JD 10D 9D")),
                stock=cards("2C 3C 4C 5C 8H 2H 3H"))
SCRANTON_AUCTION = ("coke", "bid 2", "pass", "pass")


def test_scranton_coke_only_with_every_card_below_ten():
    """Seed 004 (The Scranton rule): "when a player's hand contains exclusively cards below
    ten, the player may choose to enter a bid of "coke."" """
    state = game(preset("scranton"), SCRANTON)
    assert "coke" in legal(state)
    act(state, "pass")
    assert state.to_move == 2 and "coke" not in legal(state)  # holds tens and better
    assert_illegal(state, "coke")
    assert "coke" not in legal(game(preset("auction"), SCRANTON))  # only under the Scranton rule


def test_scranton_no_coke_for_a_forced_dealer():
    """Seed 004: "The force bid: Many variations require that the dealer make the minimum bid if
    no other bids have been made." (a dealer forced to bid cannot coke, which is a pass)."""
    low_dealer = Deal(hands=(cards("2D 3D 4D 5D 6S 7S"), cards("AC KC QC JC 10C 9C"),
                             cards("AH KH QH JH 10H 9H"), cards("AD KD QD JD 10D 9D")),
                      stock=cards("2C 3C 4C 5C 8H"))
    forced = game(preset("scranton", all_pass="force-dealer"), low_dealer)
    act(forced, "pass", "pass", "pass")
    assert forced.to_move == 0 and "pass" not in legal(forced) and "coke" not in legal(forced)
    assert_illegal(forced, "coke")
    free = game(preset("scranton"), low_dealer)
    act(free, "pass", "pass", "pass")
    assert "pass" in legal(free) and "coke" in legal(free)


def test_scranton_coke_shows_six_cards_draws_five_and_is_a_pass():
    """Seed 004: "the player who declares coke is then dealt a fresh five card hand, must show
    his six cards to all players, cannot bid further" """
    state = game(preset("scranton"), SCRANTON)
    shown = state.hand(1)
    act(state, "coke")
    assert names(state.hand(1)) == names(cards("2C 3C 4C 5C 8H"))
    assert list(state.stock) == [CARDS.index(c) for c in cards("2H 3H")]
    assert [(e.seat, cards_of(e.cards)) for e in state.history if isinstance(e, Coked)] == [(1, shown)]
    for viewer in (0, 2, 3):
        assert observe(state, viewer).cokes == ((1, shown),)
    assert state.bids == [(1, 0)] and state.high_bidder == -1 and state.to_move == 2
    act(state, "bid 2", "pass", "pass")
    assert state.pitcher == 2 and state.phase is Phase.PLAY


def test_scranton_coke_player_sits_out_the_final_trick():
    """Seed 004: "and refrains from playing the final trick of the round." """
    state = game(preset("scranton"), SCRANTON)
    act(state, *SCRANTON_AUCTION)
    play_out(state)
    seats = trick_seats(state)
    assert len(seats) == 6
    assert all(sorted(t) == [0, 1, 2, 3] for t in seats[:5])
    assert 1 not in seats[5] and len(seats[5]) == 3


def test_scranton_new_york_coke_player_sits_out_the_first_trick():
    """Seed 004: "In a New York variation, the player refrains from playing the first trick of
    the round rather than refraining from playing the final trick." """
    state = game(preset("scranton", coke_sits_out="first"), SCRANTON)
    act(state, *SCRANTON_AUCTION)
    assert state.to_move == 2
    play_out(state)
    seats = trick_seats(state)
    assert len(seats) == 6
    assert 1 not in seats[0] and len(seats[0]) == 3
    assert all(sorted(t) == [0, 1, 2, 3] for t in seats[1:])


def test_scranton_coke_hand_is_dealt_from_the_shuffled_pack():
    """Seed 004: "the player who declares coke is then dealt a fresh five card hand": the
    five come from the rest of the shuffled pack, not from an unshuffled remainder (which
    handed out the KD AD 2H 3H 4H over half the time)."""
    rules = preset("scranton")
    pack = deck_cards(rules.deck)
    dealt = rules.players * rules.deal.hand_size
    drawn: Counter[str] = Counter()
    for seed in range(200):
        state = GameState.new(rules, seed=seed)
        assert state.stock == shuffled(pack, seed, 1)[dealt:]
        drawn.update(str(CARDS[card]) for card in state.stock[:5])
    assert max(drawn.values()) < 80  # each of the 28 undealt cards: about 36 times in 200
