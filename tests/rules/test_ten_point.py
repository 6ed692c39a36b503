"""Seed 003: 10-point pitch and its family (point variations, Dirty, Reverse Hierarchy,
Five-Handed), one scenario per rule that differs from the default hand.

Unless noted: seat 0 deals, seat 1 (eldest hand) wins the bid and names hearts; teams are
seats 0+2 (party 0) and seats 1+3 (party 1).  Hands are written as the trumps each seat is
dealt (``padded_deal`` pads them with non-trumps, which are discarded).
"""

from __future__ import annotations

from helpers import (
    MADE_HANDS,
    MADE_PLAY,
    MOON_HANDS,
    MOON_PLAY,
    REFILL_HANDS,
    REFILL_STOCK,
    SCORING_HANDS,
    SCORING_PLAY,
    TEN_BIDS,
    act,
    assert_illegal,
    award_values,
    awards,
    cards,
    game,
    hand_tricks,
    legal,
    names,
    one_trick,
    padded_deal,
    play_cards,
    winner_of_trick,
)

from pitch_sdk.rules import (
    GameState,
    Phase,
    WinReason,
    observe,
    preset,
)
from pitch_sdk.rules.cards import cards_of
from pitch_sdk.rules.events import Burned, Exchanged

# ------------------------------------------------------------------ the ten-point hand flow
REFILL = padded_deal(*REFILL_HANDS, stock=REFILL_STOCK)


def test_ten_point_deals_nine_each_and_holds_the_rest():
    """Seed 003: "Play begins with the dealer dealing nine cards to each player with the
    remainder being held until later. Score is kept for two teams." """
    rules = preset("ten-point")
    state = GameState.new(rules, seed=11)
    assert rules.deck_size == 54 and rules.parties == 2
    assert [len(state.hand(s)) for s in range(4)] == [9, 9, 9, 9]
    assert len(state.stock) == 54 - 36
    assert state.party_of(0) == state.party_of(2) != state.party_of(1) == state.party_of(3)


def test_ten_point_minimum_bid_four_each_bid_higher_no_steal():
    """Seed 003: "The minimum bid is four. Each player has the option to bid or pass. If they
    chose to bid they must bid higher than the standing bid. Each player gets one chance to
    bid concluding with the dealer." (bid 11 is shoot the moon)."""
    state = game(preset("ten-point"), REFILL)
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(4, 12)]
    assert_illegal(state, "bid 3")
    act(state, "bid 6", "pass", "pass")
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(7, 12)]
    assert_illegal(state, "bid 6")  # the dealer may not match


def test_ten_point_dealer_must_take_the_bid_for_four():
    """Seed 003: "If no one bids (ie everyone passes) the dealer MUST take the bid for
    four." """
    state = game(preset("ten-point"), REFILL)
    act(state, "pass", "pass", "pass")
    assert state.to_move == 0 and "bid 4" in legal(state)
    assert_illegal(state, "pass")
    act(state, "bid 4")
    assert state.pitcher == 0 and state.contract == 4
    assert state.phase is Phase.DECLARE_TRUMP and state.to_move == 0


def test_ten_point_high_bidder_names_trump():
    """Seed 003: "After each player has a chance to bid, the high bidder then chooses a suit
    whick is then considered "trump." " """
    state = game(preset("ten-point"), REFILL)
    act(state, "pass", "bid 5", "pass", "pass")
    assert state.phase is Phase.DECLARE_TRUMP and state.to_move == 2
    assert legal(state) == ["trump C", "trump D", "trump H", "trump S"]
    assert_illegal(state, "play QH")


def test_ten_point_discard_non_trumps_then_refill_to_six_in_turn():
    """Seed 003: "Each player then discards the cards in his/her hand which are not in
    trump." and "Each player, in turn, then asks for a number of cards to fill their hand to
    six cards." (eldest hand first: 3, 4, 6 and 3 cards drawn in stock order)."""
    state = game(preset("ten-point"), REFILL)
    act(state, "bid 5", "pass", "pass", "pass", "trump H")
    refills = [(e.seat, names(cards_of(e.drawn)), len(cards_of(e.discarded)))
               for e in state.history if isinstance(e, Exchanged)]
    assert refills == [
        (1, names(cards("2S 7H 9D")), 6),
        (2, names(cards("2C 3C 10H JH")), 7),
        (3, names(cards("BJ LJ JD 2H 4C 5C")), 9),
        (0, names(cards("6C 7C 8C")), 6),
    ]
    assert state.phase is Phase.PASS_LEFTOVERS and state.to_move == 1
    assert names(state.hand(2)) == names(cards("QH 5H 2C 3C 10H JH"))
    assert [len(state.hand(s)) for s in range(4)] == [6, 6, 6, 6]
    assert names(cards_of(sum(1 << c for c in state.stock))) == names(cards("8H KD"))


def test_ten_point_leftovers_go_to_the_bidder():
    """Seed 003: "Any cards remaining are given to the bidder." (the non-trump among them is
    thrown away: only trumps are played)."""
    state = game(preset("ten-point"), REFILL)
    act(state, "bid 5", "pass", "pass", "pass", "trump H")
    assert legal(state) == ["no", "yes"]
    act(state, "no")
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert names(state.hand(1)) == names(cards("AH 3H 4H 7H 8H"))
    assert names(state.hand(3)) == names(cards("BJ LJ JD 2H"))
    assert state.stock == []


def test_ten_point_bidder_may_pass_leftovers_unseen_to_partner():
    """Seed 003: "If the bidder so choses he/she can pass those cards to his/her partner
    provided he/she has not looked at them." """
    state = game(preset("ten-point"), REFILL)
    act(state, "bid 5", "pass", "pass", "pass", "trump H")
    seen = observe(state, 1)
    assert seen.stock_size == 2
    assert not set(cards("8H KD")) & set(seen.hand)  # the bidder has not seen them
    act(state, "yes")
    assert names(state.hand(3)) == names(cards("BJ LJ JD 2H 8H"))  # the partner (seat 3) has them
    assert names(state.hand(1)) == names(cards("AH 3H 4H 7H"))  # the bidder does not
    assert "8H" not in {str(c) for c in observe(state, 1).hand}
    assert state.phase is Phase.PLAY and state.to_move == 1


def test_ten_point_only_trumps_are_legal_plays():
    """Seed 003: "Only those cards belonging to the trump suit are allowed as legal plays
    for the remainder of the hand." (the off-jack and the jokers are trumps)."""
    state = game(preset("ten-point"), REFILL)
    act(state, "bid 5", "pass", "pass", "pass", "trump H", "no")
    assert legal(state) == ["play 3H", "play 4H", "play 7H", "play 8H", "play AH"]
    assert_illegal(state, "play 2S")  # drawn by the bidder, a non-trump
    assert_illegal(state, "play KD")  # the leftover non-trump
    act(state, "play 3H", "play 5H")
    assert_illegal(state, "play 4C")
    assert sorted(legal(state)) == ["play 2H", "play BJ", "play JD", "play LJ"]


#: Burn scenario: the bidder (seat 1) ends with 8 trumps once the leftovers 6H 7H are
#: added, and burns two of them; the 3H burned is worth nothing to anybody.
BURN = padded_deal("JH 9H 8H BJ LJ", "AH KH QH 3H 4H", "JD", "10H",
                   stock="5H 2C 3C 4C 5C 6C 7C 8C 9C 10C 2H 2S 6H 7H")


def test_ten_point_burn_down_to_six_and_burned_cards_leave_play():
    """Seed 003: "In the event someone has more than six cards in the trump suit they must
    "burn" cards until they have only six. Burned cards are removed from play for that
    hand." """
    state = game(preset("ten-point"), BURN)
    act(state, "bid 5", "pass", "pass", "pass", "trump H", "no")
    assert state.phase is Phase.BURN and state.to_move == 1
    assert len(state.hand(1)) == 8
    assert len(legal(state)) == 28  # any two of the eight
    assert_illegal(state, "cards 3H")  # one is not enough
    assert_illegal(state, "cards 3H 4H 5H")  # nor are three
    act(state, "cards 3H 4H")
    assert names(state.burned(1)) == names(cards("3H 4H"))
    assert [e.seat for e in state.history if isinstance(e, Burned)] == [1]
    assert names(state.hand(1)) == names(cards("AH KH QH 5H 6H 7H"))
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert_illegal(state, "play 3H")
    play_cards(state, "AH JD 2H 8H  KH 10H 9H  QH JH  5H BJ  LJ 6H  7H")
    result = state.results[0]
    assert all(str(c) not in ("3H", "4H") for t in hand_tricks(state) for _, c in t.plays)
    assert "three" not in award_values(result)  # the burned three scores for nobody
    assert result.points_won == (2, 5) and result.made is True


def test_ten_point_burning_goes_in_turn_from_eldest_hand():
    """Seed 003: "In the event someone has more than six cards in the trump suit they must
    "burn" cards until they have only six." (seats 2 and 0 were dealt seven trumps each)."""
    deal = padded_deal("AH KH QH JH 10H 9H BJ", "LJ", "2H 3H 4H 5H 6H 7H 8H", "JD",
                       stock="2C 3C 4C 5C 6C 7C 8C 9C 10C JC")
    state = game(preset("ten-point"), deal)
    act(state, *TEN_BIDS)
    assert state.phase is Phase.BURN and state.to_move == 2
    act(state, "cards 8H")
    assert state.phase is Phase.BURN and state.to_move == 0
    assert_illegal(state, "cards 2H")  # not its card
    act(state, "cards 9H")
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert [len(state.hand(s)) for s in range(4)] == [6, 1, 6, 1]


# ------------------------------------------------------------------ trick play and scoring
#: Scoring scenario.  Trick 1: seat 1 leads AH, seat 2 plays 2H, seat 3 10H, seat 0 BJ.
#: Trick 2: 3H KH 4H JH, won by seat 2's KH; seats 2 and 3 are then out, so seat 0 (next to
#: the left still holding a trump) leads the JD and takes the 9H.
SCORING = padded_deal(*SCORING_HANDS, stock="2S")


def test_ten_point_bidder_leads_then_the_trick_winner():
    """Seed 003: "The bidder then leads a card followed by the others in a clockwise order.
    Highest card takes the trick and the person taking the trick leads the following
    trick" """
    state = game(preset("ten-point"), SCORING)
    act(state, *TEN_BIDS)
    assert state.phase is Phase.PLAY and state.to_move == 1
    play_cards(state, "AH")
    assert state.to_move == 2
    play_cards(state, "2H 10H BJ")
    assert state.tricks[0].winner == 1 and state.to_move == 1


def test_ten_point_bidder_may_lead_any_trump_joker_included():
    """Seed 003: "The bidder then leads a card followed by the others in a clockwise order."
    and "Only those cards belonging to the trump suit are allowed as legal plays" (the
    jokers are trumps; seed 003 forbids no trump to the first lead)."""
    state = game(preset("ten-point"), padded_deal("", "BJ AH", "", "", stock="2S"))
    act(state, *TEN_BIDS)
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert sorted(legal(state)) == ["play AH", "play BJ"]


def test_ten_point_player_out_and_lead_passes_left():
    """Seed 003: "the person taking the trick leads the following trick unless they have no
    more cards in trump. In this case the person to his/her left leads. A person having no
    cards in trump is "out" and watches the remainder of the hand." """
    state = game(preset("ten-point"), SCORING)
    act(state, *TEN_BIDS)
    play_cards(state, "AH 2H 10H BJ  3H KH 4H JH")
    assert state.tricks[1].winner == 2 and state.hand(2) == () and state.hand(3) == ()
    assert state.to_move == 0  # seat 2 is out, seat 3 too: seat 0 leads
    play_cards(state, "JD")
    assert state.to_move == 1  # seats 2 and 3 are skipped
    play_cards(state, "9H")
    tricks = hand_tricks(state)
    assert [t.leader for t in tricks] == [1, 1, 0]
    assert [len(t.plays) for t in tricks] == [4, 4, 2]
    assert state.results[0].tricks_won == (2, 1)


def test_ten_point_point_cards_two_to_its_player_three_worth_three():
    """Seed 003: "The point cards: each of the following is worth one point - ace, jack,
    off-jack, joker, joker, ten, and two. The three is worth three points. The two goes to
    the person who plays it. It cannot be taken away by a higher card." """
    state = game(preset("ten-point"), SCORING)
    act(state, *TEN_BIDS)
    play_cards(state, SCORING_PLAY)
    result = state.results[0]
    assert awards(result) == [("ace", 1, "AH"), ("jack", 0, "JH"), ("off-jack", 0, "JD"),
                              ("joker", 1, "BJ"), ("ten", 1, "10H"), ("two", 0, "2H"),
                              ("three", 0, "3H")]  # the LJ was not in play
    assert award_values(result)["three"] == 3
    assert result.points_won == (6, 3)


def test_ten_point_bidder_set_back_defenders_score_what_they_take():
    """Seed 003: "If not, the bidder is "set" and the amount of the bid is subtracted from
    their team's score." """
    state = game(preset("ten-point"), SCORING, scores=(10, 10))
    act(state, *TEN_BIDS)
    play_cards(state, SCORING_PLAY)
    result = state.results[0]
    assert result.made is False
    assert result.score_changes == (6, -4) and result.scores == (16, 6)


#: The bidder (seat 1) takes A, J, off-jack, 10, two and three (8 points) in four tricks; the
#: others are out after the second, so it leads its last two trumps alone.
MADE = padded_deal(*MADE_HANDS, stock="2S")


def test_ten_point_bidder_making_its_bid_scores_the_bid():
    """Seed 003: "If the bidder takes the number of points, or more, stated in thier bid,
    they receive that number of points." """
    state = game(preset("ten-point"), MADE)
    act(state, "bid 5", "pass", "pass", "pass", "trump H")
    play_cards(state, MADE_PLAY)
    result = state.results[0]
    assert result.points_won == (0, 8) and result.made is True
    assert result.score_changes == (0, 5)
    assert [len(t.plays) for t in hand_tricks(state)] == [4, 4, 1, 1]


def test_ten_point_first_team_to_52_wins():
    """Seed 003: "The first team to reach 52 points is declared the winner." """
    state = game(preset("ten-point"), MADE, scores=(0, 47))
    act(state, "bid 5", "pass", "pass", "pass", "trump H")
    play_cards(state, MADE_PLAY)
    result = state.results[0]
    assert result.scores == (0, 52)
    assert result.winner == 1 and result.win_reason is WinReason.REACHED_TARGET and state.is_over
    short = game(preset("ten-point"), MADE, scores=(0, 46))
    act(short, "bid 5", "pass", "pass", "pass", "trump H")
    play_cards(short, MADE_PLAY)
    assert short.results[0].scores == (0, 51) and not short.is_over


#: Shoot the moon: seat 1 and its partner seat 3 hold every point card (the two is played by
#: seat 1); all ten points go to party 1.
MOON = padded_deal(*MOON_HANDS, stock="2S")
MOON_BIDS = ("bid 11", "pass", "pass", "pass", "trump H")


def test_ten_point_moon_made_advances_to_52():
    """Seed 003: "Shooting the moon means takin all 10 points. If the bid is shoot the moon
    the bidding team advances their score to 52 if their score was above zero" """
    state = game(preset("ten-point"), MOON, scores=(30, 7))
    act(state, *MOON_BIDS)
    play_cards(state, MOON_PLAY)
    result = state.results[0]
    assert result.moon is True and result.made is True and result.points_won == (0, 10)
    assert result.score_changes == (0, 45) and result.scores == (30, 52)
    assert result.winner == 1 and state.is_over


def test_ten_point_moon_made_from_below_zero_advances_to_zero():
    """Seed 003: "the bidding team advances their score to 52 if their score was above zero
    or to zero if their score was below zero." """
    state = game(preset("ten-point"), MOON, scores=(30, -7))
    act(state, *MOON_BIDS)
    play_cards(state, MOON_PLAY)
    result = state.results[0]
    assert result.made is True and result.scores == (30, 0)
    assert result.winner is None and not state.is_over


def test_ten_point_failed_moon_loses_the_game():
    """Seed 003: "Failure to score all ten points constitutes loss of game." (the defence
    plays the two, which cannot be captured)."""
    deal = padded_deal("8H", "AH KH QH JH 3H", "2H 9H", "JD BJ LJ 10H", stock="2S")
    state = game(preset("ten-point"), deal, scores=(0, 40))
    act(state, *MOON_BIDS)
    play_cards(state, "AH 2H JD 8H  KH 9H BJ  QH LJ  JH 10H  3H")
    result = state.results[0]
    assert result.moon is True and result.made is False and result.points_won == (1, 9)
    assert result.winner == 0 and result.win_reason is WinReason.FAILED_MOON
    assert state.is_over and state.winner == 0


def test_ten_point_trump_ranking_off_jack_and_jokers():
    """Seed 003 (Ranking of Cards): "Ace • King • Queen • Jack • Off-jack (left bauer, jack of
    same color as trump suit) • Joker • Joker • 10 • 9" """
    assert winner_of_trick(one_trick("ten-point", "JD JH BJ QH")) == 3  # Q > J
    assert winner_of_trick(one_trick("ten-point", "BJ JD 10H LJ")) == 1  # off-jack > jokers
    assert winner_of_trick(one_trick("ten-point", "9H LJ 10H 8H")) == 1  # joker > 10
    assert winner_of_trick(one_trick("ten-point", "JD JH 2H 3H")) == 1  # jack > off-jack


# ------------------------------------------------------------------ point variations
#: One trick won by the bidder (seat 1, AH) holding both jokers and the three.
JOKERS_AND_THREE = "BJ AH LJ 3H"


def test_five_point_jokers_and_three_not_counted():
    """Seed 003 (5 Point): "Same as 10 point pitch with the exception that the jokers and
    the three are not counted as points." """
    rules = preset("five-point")
    assert rules.points_in_play == 5 and rules.deck_size == 54
    state = one_trick("five-point", JOKERS_AND_THREE)
    assert award_values(state.results[0]) == {"ace": 1}
    assert legal(game(rules, padded_deal("", "", "", "", stock="2S"))) == ["pass", "bid 4", "bid 5", "bid 6"]
    assert winner_of_trick(one_trick("five-point", "9H LJ 10H 8H")) == 1  # the jokers are still trumps


def test_seven_point_three_not_counted():
    """Seed 003 (7 Point): "Same as 10 point pitch with the exception that the three is not
    counted as a point." """
    assert preset("seven-point").points_in_play == 7
    state = one_trick("seven-point", JOKERS_AND_THREE)
    assert award_values(state.results[0]) == {"ace": 1, "joker": 2}


def test_eight_point_jokers_not_counted():
    """Seed 003 (8 Point): "Same as 10 point pitch with the exception that the jokers are not
    counted as points." """
    assert preset("eight-point").points_in_play == 8
    state = one_trick("eight-point", JOKERS_AND_THREE)
    assert award_values(state.results[0]) == {"ace": 1, "three": 3}


def test_ten_point_counts_jokers_and_three():
    """Seed 003: "each of the following is worth one point - ace, jack, off-jack, joker,
    joker, ten, and two. The three is worth three points." """
    assert preset("ten-point").points_in_play == 10
    state = one_trick("ten-point", JOKERS_AND_THREE)
    assert award_values(state.results[0]) == {"ace": 1, "joker": 2, "three": 3}
    assert state.results[0].points_won == (0, 6)


def test_thirteen_point_off_three_is_a_trump_worth_three():
    """Seed 003 (13 Point): "Same as 10 point pitch with the exception that the off-three is
    also included in the game and is worth three points." (the off-three of hearts is the 3D,
    ranked just below the three)."""
    assert preset("thirteen-point").points_in_play == 13
    state = one_trick("thirteen-point", "2H 3D - 4H")
    assert winner_of_trick(state) == 3  # 4H > 3D
    assert awards(state.results[0]) == [("two", 0, "2H"), ("off-three", 1, "3D")]
    assert award_values(state.results[0])["off-three"] == 3
    assert winner_of_trick(one_trick("thirteen-point", "2H 3D 3H -")) == 2  # 3H > 3D
    low = game(preset("thirteen-point"), padded_deal("2H 5H", "AH 3D", "", "", stock="2S", off_cards=True))
    act(low, *TEN_BIDS)
    play_cards(low, "AH 5H  3D 2H")
    assert hand_tricks(low)[1].winner == 1  # 3D > 2H
    assert award_values(one_trick("thirteen-point", JOKERS_AND_THREE).results[0]) == {
        "ace": 1, "joker": 2, "three": 3}


def test_ten_point_off_three_is_not_a_trump():
    """Seed 003 (13 Point): "the off-three is also included in the game" - so in 10 point
    pitch it is not: the 3D is thrown away with the other non-trumps."""
    state = game(preset("ten-point"), padded_deal("", "3D AH", "", "", stock="2S"))
    act(state, *TEN_BIDS)
    assert names(state.hand(1)) == ["AH"]


def test_eleven_point_off_three_without_joker_points():
    """Seed 003 (11 Point): "Same as 13 point pitch with the exception that the jokers do not
    count as points." """
    assert preset("eleven-point").points_in_play == 11
    state = one_trick("eleven-point", "BJ 3D LJ AH")
    assert winner_of_trick(state) == 3
    assert award_values(state.results[0]) == {"ace": 1, "off-three": 3}


def test_sixteen_point_off_cards_rank_below_their_counterparts():
    """Seed 003 (16 Point): "ALL off-points are used and count as a point each except for the
    off-three which is three points. All off cards rank below their counterparts." """
    assert winner_of_trick(one_trick("sixteen-point", "QH KH AD 9H")) == 2  # AD > KH
    assert winner_of_trick(one_trick("sixteen-point", "9H AD AH 8H")) == 2  # AH > AD
    assert winner_of_trick(one_trick("sixteen-point", "8H 10D 9H 7H")) == 1  # 10D > 9H
    assert winner_of_trick(one_trick("sixteen-point", "8H 10D 10H 7H")) == 2  # 10H > 10D
    assert winner_of_trick(one_trick("sixteen-point", "2D 3D 2H -")) == 1  # 3D > 2H > 2D
    state = game(preset("sixteen-point"), padded_deal("2D 4H", "AH 2H", "", "", stock="2S", off_cards=True))
    act(state, *TEN_BIDS)
    play_cards(state, "AH 4H  2H 2D")
    assert hand_tricks(state)[1].winner == 1  # 2H > 2D


def test_sixteen_point_every_off_point_counts():
    """Seed 003 (16 Point): "ALL off-points are used and count as a point each except for the
    off-three which is three points." """
    assert preset("sixteen-point").points_in_play == 16
    state = one_trick("sixteen-point", "3D AD 10D AH")
    assert award_values(state.results[0]) == {"ace": 1, "off-ace": 1, "off-ten": 1, "off-three": 3}
    assert state.results[0].points_won == (0, 6)  # seat 3's AH takes the trick for seats 1+3
    two = one_trick("sixteen-point", "2D AH 5H 4H")
    assert award_values(two.results[0]) == {"ace": 1, "off-two": 1}


def test_fifteen_point_off_two_is_a_trump_but_no_point():
    """Seed 003 (15 Point): "Same as 16 point pitch with the exception that the off-two is not
    counted as a point." """
    assert preset("fifteen-point").points_in_play == 15
    state = one_trick("fifteen-point", "2D AH 5H 4H")
    assert award_values(state.results[0]) == {"ace": 1}
    assert hand_tricks(state)[0].plays[-1] == (0, cards("2D")[0])  # the 2D was played: a trump
    assert award_values(one_trick("fifteen-point", "3D AD 10D AH").results[0]) == {
        "ace": 1, "off-ace": 1, "off-ten": 1, "off-three": 3}


def test_fourteen_point_jokers_not_counted():
    """Seed 003 (14 Point): "Same as 16 point pitch with the exception that the jokers are not
    counted as points." """
    assert preset("fourteen-point").points_in_play == 14
    state = one_trick("fourteen-point", "BJ AD LJ 2D")
    assert winner_of_trick(state) == 1
    assert award_values(state.results[0]) == {"off-ace": 1, "off-two": 1}


# ------------------------------------------------------------------ Dirty, Reverse Hierarchy
def test_ten_point_two_cannot_be_taken_away():
    """Seed 003: "The two goes to the person who plays it. It cannot be taken away by a
    higher card." (seat 1 leads the 2H, seat 2 takes it with the AH)."""
    state = one_trick("ten-point", "- 2H AH -")
    assert awards(state.results[0]) == [("ace", 0, "AH"), ("two", 1, "2H")]


def test_dirty_two_must_be_carried():
    """Seed 003 (Dirty): "In dirty pitch the two is not an automatic point. It must be
    "carried" as any other card would be." """
    state = one_trick("dirty", "- 2H AH -")
    assert awards(state.results[0]) == [("ace", 0, "AH"), ("two", 0, "2H")]
    kept = one_trick("dirty", "- 2H 3H -")  # carried by the side that wins the trick
    assert awards(kept.results[0]) == [("two", 0, "2H"), ("three", 0, "3H")]


def test_reverse_hierarchy_two_highest_ace_lowest():
    """Seed 003 (Reverse Hierarchy): "In reverse hierarchy pitch the cards rank in the same
    order but from top to bottom. The two is the most powerful card with the ace being the
    lowest." """
    assert winner_of_trick(one_trick("reverse-hierarchy", "KH AH 2H 3H")) == 2
    assert winner_of_trick(one_trick("reverse-hierarchy", "KH AH QH -")) == 2  # Q beats K and A
    assert winner_of_trick(one_trick("reverse-hierarchy", "10H BJ JD JH")) == 0  # the 10 beats jokers
    state = one_trick("reverse-hierarchy", "- AH 3H -")
    assert winner_of_trick(state) == 2
    assert awards(state.results[0]) == [("ace", 0, "AH"), ("three", 0, "3H")]  # the same point cards


# ------------------------------------------------------------------ Five-Handed
#: Five players, ten cards each; seat 1 (eldest) bids 5 and names hearts.  The blind holds
#: the 4H.  Every trump of the pack is named so the deal uses all 54 cards.
FIVE_HANDED = padded_deal("3H 6H 5H", "AH KH QH", "JH 10H 9H", "JD 2H 8H", "BJ LJ 7H",
                          stock="4H 2C 3C 4C", size=10)
FIVE_BIDS = ("bid 5", "pass", "pass", "pass", "pass", "trump H")


def test_five_handed_ten_cards_each_and_a_four_card_blind():
    """Seed 003 (Five-Handed): "Game played as above with ten cards dealt to each player. The
    remaining four cards are kept as a blind." """
    rules = preset("five-handed")
    state = GameState.new(rules, seed=5)
    assert rules.players == 5 and rules.parties == 5
    assert [len(state.hand(s)) for s in range(5)] == [10] * 5
    assert len(state.stock) == 4


def test_five_handed_bidder_calls_a_card_its_holder_is_partner():
    """Seed 003 (Five-Handed): "The high bidder not only choses the suit but calls for the
    card he/she wants to see played. Whoever has that card in their hand is the bidder's
    partner against the other three." """
    state = game(preset("five-handed"), FIVE_HANDED)
    act(state, *FIVE_BIDS)
    assert state.phase is Phase.CALL_CARD and state.to_move == 1
    assert "call JH" in legal(state) and "call 4H" in legal(state)
    assert_illegal(state, "call AH")  # its own card
    assert_illegal(state, "call 2C")  # not a trump
    act(state, "call JH")
    assert state.partner == 2
    play_cards(state, "AH 9H 8H 7H 6H  KH 10H JD BJ 3H  QH JH 2H LJ 5H  4H")
    result = state.results[0]
    assert result.sides == (1, 0, 0, 1, 1)
    assert result.points_won == (0, 9, 0, 1, 0)  # the 2H goes to seat 3, who played it
    assert result.made is True
    assert result.score_changes == (1, 5, 5, 1, 1)


def test_five_handed_call_any_card_option():
    """Seed 003 (Five-Handed): the bidder "calls for the card he/she wants to see played";
    the preset reads it as a trump (only trumps are played) and ``call_any_card`` lets the
    bidder call any card it does not hold."""
    state = game(preset("five-handed", call_any_card=True), FIVE_HANDED)
    act(state, *FIVE_BIDS)
    assert "call 2C" in legal(state) and "call JH" in legal(state)
    assert_illegal(state, "call AH")  # still not its own card
    act(state, "call 2C")  # in the blind: the bidder plays alone
    assert state.partner == -1


def test_five_handed_blind_goes_to_the_bidder():
    """Seed 003 (Five-Handed): "The blind then goes to the bidder." (nobody is refilled)."""
    state = game(preset("five-handed"), FIVE_HANDED)
    act(state, *FIVE_BIDS, "call JH")
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert names(state.hand(1)) == names(cards("AH KH QH 4H"))
    assert names(state.hand(0)) == names(cards("3H 6H 5H"))
    assert state.stock == []
    play_cards(state, "AH 9H 8H 7H 6H  KH 10H JD BJ 3H  QH JH 2H LJ 5H  4H")
    assert hand_tricks(state)[-1].plays == ((1, cards("4H")[0]),)  # the bidder plays the blind's 4H


def test_five_handed_called_card_in_blind_bidder_alone_must_lead_it():
    """Seed 003 (Five-Handed): "In the event the card is in the blind, the bidder has no
    partner agains the other four AND is required to lead the card that was called." """
    state = game(preset("five-handed"), FIVE_HANDED)
    act(state, *FIVE_BIDS, "call 4H")
    assert state.partner == -1
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert legal(state) == ["play 4H"]
    assert_illegal(state, "play AH")
    play_cards(state, "4H 9H 8H 7H 6H  JH JD BJ 3H AH  KH 10H 2H LJ 5H  QH")
    assert [t.winner for t in hand_tricks(state)] == [2, 1, 1, 1]
    result = state.results[0]
    assert result.sides == (1, 0, 1, 1, 1)
    # the bidder took the tricks: A, J, off-jack, jokers, ten, three = 9; the 2H is seat 3's
    assert result.points_won == (0, 9, 0, 1, 0)
    assert result.score_changes == (1, 5, 1, 1, 1)


def test_five_handed_called_card_from_the_blind_must_still_be_led_after_burning():
    """Seed 003 (Five-Handed): "In the event the card is in the blind, the bidder has no
    partner agains the other four AND is required to lead the card that was called." (the
    blind's 4H takes the bidder to seven trumps: it burns one, but not the called card)."""
    deal5 = padded_deal("3H 6H", "AH KH QH JH 10H 9H", "5H 8H", "JD 2H 7H", "BJ LJ",
                        stock="4H 2C 3C 4C", size=10)
    state = game(preset("five-handed"), deal5)
    act(state, *FIVE_BIDS, "call 4H")
    assert state.phase is Phase.BURN and state.to_move == 1
    assert_illegal(state, "cards 4H")
    act(state, "cards 9H")
    assert legal(state) == ["play 4H"]
