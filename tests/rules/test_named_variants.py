"""Seed 004's named variants (the 10-point games, the off-ace eleven-point, Contway, Roadhouse,
Kentucky and Missouri seven-point, three teams, reverse and barn pitch) and the options
backdoor and low_trump_wins: one scenario per rule that differs from the default hand.

Unless noted: seat 0 deals, seat 1 (eldest hand) wins the bid and hearts are trump; in
teams of two, party 0 is seats 0+2 and party 1 seats 1+3.
"""

from __future__ import annotations

from helpers import (
    CAPTURED_LOW,
    MADE_HANDS,
    MADE_PLAY,
    MOON_HANDS,
    MOON_PLAY,
    ORDER,
    PASS_ROUND,
    REFILL_HANDS,
    REFILL_STOCK,
    SCORING_HANDS,
    SCORING_PLAY,
    SLAM,
    SLAM_BUT_ONE_TRICK,
    SPLIT,
    act,
    assert_illegal,
    award_values,
    awards,
    cards,
    deal,
    deal_by_tricks,
    first_trick_winner,
    game,
    hand_tricks,
    legal,
    names,
    one_trick,
    padded_deal,
    play_cards,
    play_hand,
    play_tricks,
    winner_of_trick,
)

from pitch_sdk.rules import CARDS, PRESETS, SPECTATOR, GameState, Phase, WinReason, observe, preset
from pitch_sdk.rules.events import Exchanged
from pitch_sdk.rules.observation import visible_event

MOON_BIDS_11 = ("bid 11", "pass", "pass", "pass", "trump H")


# ====================================================== nine-card ten-point (seed 004)
def test_nine_card_ten_point_nine_dealt_minimum_five_and_moon():
    """Seed 004: "Each player is initially dealt nine cards. Minimum bid is 5, and the Shoot
    the Moon rule is in effect." """
    state = GameState.new(preset("nine-card-ten-point"), seed=2)
    assert [len(state.hand(s)) for s in range(4)] == [9] * 4
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(5, 12)]
    assert_illegal(state, "bid 4")


def test_nine_card_ten_point_force_bid():
    """Seed 004: "This variant uses the Force Bid rule." (the dealer must make the minimum
    bid, 5, when the others pass)."""
    state = GameState.new(preset("nine-card-ten-point"), seed=2)
    act(state, "pass", "pass", "pass")
    assert "pass" not in legal(state) and "bid 5" in legal(state)
    assert_illegal(state, "bid 4")


def test_nine_card_ten_point_discard_non_trumps_refill_to_six():
    """Seed 004: "Players discard all non-trumps and the dealer distributes remaining undealt
    cards so all players have six." """
    state = game(preset("nine-card-ten-point"), padded_deal(*REFILL_HANDS, stock=REFILL_STOCK))
    act(state, "bid 5", "pass", "pass", "pass", "trump H")
    assert [len(state.hand(s)) for s in range(4)] == [6, 6, 6, 6]
    assert names(state.hand(3)) == names(cards("BJ LJ JD 2H 4C 5C"))
    act(state, "no")
    assert all(len(state.hand(s)) <= 6 for s in range(4))
    assert state.phase is Phase.PLAY and state.to_move == 1


def test_nine_card_ten_point_points_three_worth_three_two_automatic():
    """Seed 004: "Points available are Ace, Jack, Off-Jack, "High" Joker, "Low" Joker, Ten,
    Three (worth three points), and Two (an automatic point for the player)." """
    assert preset("nine-card-ten-point").points_in_play == 10
    bids = ("bid 5", "pass", "pass", "pass", "trump H")
    state = one_trick("nine-card-ten-point", "- 2H 3H -", bids=bids)
    assert awards(state.results[0]) == [("two", 1, "2H"), ("three", 0, "3H")]
    assert award_values(state.results[0]) == {"two": 1, "three": 3}
    state = one_trick("nine-card-ten-point", "BJ AH LJ 10H", bids=bids)
    assert award_values(state.results[0]) == {"ace": 1, "joker": 2, "ten": 1}


def test_nine_card_ten_point_moon_made_wins_the_game():
    """Seed 004 (Shoot the moon): "A player may shoot the moon, bidding the maximum number.
    If the player or team makes the bid, they win the game" """
    state = game(preset("nine-card-ten-point"), padded_deal(*MOON_HANDS, stock="2S"), scores=(30, -7))
    act(state, *MOON_BIDS_11)
    play_cards(state, MOON_PLAY)
    result = state.results[0]
    assert result.moon is True and result.made is True
    assert result.winner == 1 and result.win_reason is WinReason.SHOT_THE_MOON and state.is_over


def test_nine_card_ten_point_moon_set_loses_the_game():
    """Seed 004 (Shoot the moon): "if they are set, they lose the game." """
    deal9 = padded_deal("8H", "AH KH QH JH 3H", "2H 9H", "JD BJ LJ 10H", stock="2S")
    state = game(preset("nine-card-ten-point"), deal9, scores=(0, 27))
    act(state, *MOON_BIDS_11)
    play_cards(state, "AH 2H JD 8H  KH 9H BJ  QH LJ  JH 10H  3H")
    result = state.results[0]
    assert result.made is False
    assert result.winner == 0 and result.win_reason is WinReason.FAILED_MOON and state.is_over


# ============================================================ Oklahoma ten-point (seed 004)
def test_oklahoma_ten_six_dealt_bids_one_to_nine_moon_ten():
    """Seed 004 (Pitch games based on 10 points): "Each player is dealt six cards. Bids are
    usually from 1–9, and the Shoot the Moon rule is in effect." """
    state = GameState.new(preset("oklahoma-ten"), seed=4)
    assert [len(state.hand(s)) for s in range(4)] == [6] * 4
    straight = [a for a in legal(state) if "for" not in a]
    assert straight == ["pass"] + [f"bid {n}" for n in range(1, 11)]


def test_oklahoma_ten_straight_or_double_bid():
    """Seed 004: "This variant allows players to bid a "straight" hand (like normal) or to
    double bid. For example, a player may bid a "straight 6", or "6 for 12." " """
    state = GameState.new(preset("oklahoma-ten"), seed=4)
    assert "bid 6" in legal(state) and "bid 6 for 12" in legal(state)
    act(state, "bid 6")
    assert "bid 6 for 12" in legal(state)
    assert_illegal(state, "bid 6")
    act(state, "bid 6 for 12")
    assert_illegal(state, "bid 6 for 12")
    assert "bid 7" in legal(state)


def test_oklahoma_ten_six_for_twelve_made_scores_twelve():
    """Seed 004: "In the latter example, the player would score 12 points by earning six" """
    state = game(preset("oklahoma-ten"), padded_deal(*MADE_HANDS, stock="2S", size=6))
    act(state, "bid 6 for 12", "pass", "pass", "pass", "trump H")
    play_cards(state, MADE_PLAY)
    result = state.results[0]
    assert result.points_won == (0, 8) and result.made is True and result.doubled is True
    assert result.score_changes == (0, 12)


def test_oklahoma_ten_six_for_twelve_set_twelve():
    """Seed 004: "or, failing to earn points equal to their bid, would be set 12 points." """
    state = game(preset("oklahoma-ten"), padded_deal(*SCORING_HANDS, stock="2S", size=6))
    act(state, "bid 6 for 12", "pass", "pass", "pass", "trump H")
    play_cards(state, SCORING_PLAY)
    result = state.results[0]
    assert result.points_won == (6, 3) and result.made is False
    assert result.score_changes == (6, -12)
    straight = game(preset("oklahoma-ten"), padded_deal(*SCORING_HANDS, stock="2S", size=6))
    act(straight, "bid 6", "pass", "pass", "pass", "trump H")
    play_cards(straight, SCORING_PLAY)
    assert straight.results[0].score_changes == (6, -6)


def test_oklahoma_ten_moon_wins_the_game():
    """Seed 004: "Bids are usually from 1–9, and the Shoot the Moon rule is in effect." and
    (Shoot the moon) "If the player or team makes the bid, they win the game" """
    state = game(preset("oklahoma-ten"), padded_deal(*MOON_HANDS, stock="2S", size=6))
    act(state, "bid 10", "pass", "pass", "pass", "trump H")
    play_cards(state, MOON_PLAY)
    result = state.results[0]
    assert result.moon is True and result.made is True
    assert result.winner == 1 and result.win_reason is WinReason.SHOT_THE_MOON


# ====================================================== off-ace eleven-point (seed 004)
def test_eleven_point_off_ace_ranks_below_the_ace_worth_one():
    """Seed 004: "The off-ace, like the off-jack, is not in the trump suit but is of the same
    color. It is worth one point and ranks just below the ace." """
    bids = ("bid 1", "pass", "pass", "pass", "trump H")
    state = one_trick("eleven-point-off-ace", "QH KH AD -", bids=bids)
    assert winner_of_trick(state) == 2  # AD > KH
    assert awards(state.results[0]) == [("off-ace", 0, "AD")]
    assert winner_of_trick(one_trick("eleven-point-off-ace", "- AD AH QH", bids=bids)) == 2  # AH > AD


def test_eleven_point_off_ace_minimum_bid_one_perfect_bid_and_moon():
    """Seed 004: "The minimum bid is 1. The misdeal rule is in effect, as is shoot the moon,
    which is differentiated from and superior to a perfect bid (11)" """
    state = GameState.new(preset("eleven-point-off-ace"), seed=3)
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(1, 13)]
    assert preset("eleven-point-off-ace").points_in_play == 11


#: Every point card of the off-ace deck to party 1 (seat 1 plays the two).
PERFECT = padded_deal("8H", "AH KH QH JH 3H 2H", "9H", "JD BJ LJ 10H AD", stock="2S", off_cards=True)
PERFECT_PLAY = "AH 9H AD 8H  KH BJ  QH LJ  JH 10H  3H JD  2H"


#: ``PERFECT`` pads seat 0 with no point card, which the misdeal rule would let it throw in
#: (``muck=redeal``, tested in test_readings): these hands are played as dealt.
AS_DEALT = {"muck": "none"}


def test_eleven_point_off_ace_perfect_bid_scores_eleven():
    """Seed 004: "shoot the moon, which is differentiated from and superior to a perfect bid
    (11)" (a made perfect bid scores its 11 and does not end the game)."""
    state = game(preset("eleven-point-off-ace", AS_DEALT), PERFECT)
    act(state, "bid 11", "pass", "pass", "pass", "trump H")
    play_cards(state, PERFECT_PLAY)
    result = state.results[0]
    assert result.points_won == (0, 11) and result.moon is False and result.made is True
    assert result.score_changes == (0, 11) and not state.is_over


def test_eleven_point_off_ace_moon_automatically_wins():
    """Seed 004: "shoot the moon automatically wins or loses the game." """
    state = game(preset("eleven-point-off-ace", AS_DEALT), PERFECT)
    act(state, "bid 12", "pass", "pass", "pass", "trump H")
    play_cards(state, PERFECT_PLAY)
    result = state.results[0]
    assert result.moon is True and result.made is True
    assert result.winner == 1 and result.win_reason is WinReason.SHOT_THE_MOON


def test_eleven_point_off_ace_play_ends_at_51():
    """Seed 004: "Play ends at 51 points rather than 32." """
    made = padded_deal(*MADE_HANDS, stock="2S", off_cards=True)
    bids = ("bid 5", "pass", "pass", "pass", "trump H")
    state = game(preset("eleven-point-off-ace"), made, scores=(0, 46))
    act(state, *bids)
    play_cards(state, MADE_PLAY)
    assert state.results[0].scores == (0, 51)
    assert state.winner == 1 and state.win_reason is WinReason.REACHED_TARGET
    short = game(preset("eleven-point-off-ace"), made, scores=(0, 45))
    act(short, *bids)
    play_cards(short, MADE_PLAY)
    assert short.results[0].scores == (0, 50) and not short.is_over


#: Seat 1 is dealt nine trumps, seat 2 the other eight: all 17, which must burn to six.
ALL_TRUMPS = padded_deal("", "AH AD KH QH JH JD BJ LJ 10H", "9H 8H 7H 6H 5H 4H 3H 2H", "",
                         stock="2S", off_cards=True)


def test_eleven_point_off_ace_only_the_17_trumps_are_played():
    """Seed 004: "Only the 17 trump cards are legal for play." """
    state = game(preset("eleven-point-off-ace"), ALL_TRUMPS)
    act(state, "bid 1", "pass", "pass", "pass", "trump H")
    assert state.phase is Phase.BURN and state.to_move == 1
    act(state, "cards KH QH 10H")
    assert state.phase is Phase.BURN and state.to_move == 2
    act(state, "cards 9H 3H")
    kept = [*state.hand(1), *state.hand(2), *state.burned(1), *state.burned(2)]
    assert len(kept) == 17 and len(set(kept)) == 17
    assert state.hand(0) == () and state.hand(3) == ()  # nothing else survives
    assert state.phase is Phase.PLAY and state.to_move == 1


def test_eleven_point_off_ace_burned_points_go_to_the_opponents():
    """Seed 004: "If a player is forced to burn a card worth points, those points are awarded
    to the opposing team." (seat 1 burns the 10H, seat 2 the 3H)."""
    state = game(preset("eleven-point-off-ace"), ALL_TRUMPS)
    act(state, "bid 1", "pass", "pass", "pass", "trump H", "cards KH QH 10H", "cards 9H 3H")
    play_cards(state, "AH 8H  AD 7H  JH 6H  JD 5H  BJ 4H  LJ 2H")
    result = state.results[0]
    got = {(a.category.value, a.party) for a in result.awards}
    assert ("ten", 0) in got  # party 1 burned it: party 0 scores it
    assert ("three", 1) in got  # party 0 burned it: party 1 scores it
    assert ("two", 0) in got  # played by seat 2
    assert result.points_won == (2, 9)


def test_ten_point_burned_points_score_for_nobody():
    """Seed 003: "Burned cards are removed from play for that hand." (unlike the off-ace
    eleven-point, nobody scores a burned point card)."""
    deal10 = padded_deal("", "AH KH QH JH JD BJ LJ 10H 9H", "8H 7H 6H 5H 4H 3H 2H", "", stock="2S")
    state = game(preset("ten-point"), deal10)
    act(state, "bid 4", "pass", "pass", "pass", "trump H", "cards KH QH 10H", "cards 8H")
    assert names(state.hand(1)) == names(cards("AH JH JD BJ LJ 9H"))
    play_cards(state, "AH 7H  JH 6H  JD 5H  BJ 4H  LJ 3H  9H 2H")
    values = award_values(state.results[0])
    assert "ten" not in values and values["three"] == 3


# ================================================================ Contway 6-point (seed 004)
def test_contway_deck_of_53_six_dealt_in_threes():
    """Seed 004 (Contway 6-point pitch): "The deck is played with a regular 52-card deck plus
    one joker." and "Each player is dealt six cards in two rounds of three cards starting
    left of the dealer." """
    rules = preset("contway-six")
    assert rules.deck_size == 53 and (rules.deal.hand_size, rules.deal.deal_batch) == (6, 3)
    state = GameState.new(rules, seed=6)
    assert [len(state.hand(s)) for s in range(4)] == [6] * 4 and len(state.stock) == 53 - 24
    assert rules.parties == 2


def test_contway_trump_order_with_off_jack_and_joker():
    """Seed 004: "Trump suit includes the off-jack and joker and is ordered ace, king, queen,
    jack, off-jack, joker, 10,9,8,...2." """
    rules = preset("contway-six")
    assert first_trick_winner(rules, "JD 2H BJ 10H") == 0  # off-jack > joker > 10
    assert first_trick_winner(rules, "BJ 2H 10H 9H") == 0  # joker > 10
    assert first_trick_winner(rules, "JD 2H JH 3H") == 2  # jack > off-jack
    assert first_trick_winner(rules, "QH 2H JH JD") == 0  # queen > jack


#: Contway hand: seat 1 pitches the AH; party 1 takes High, Low (2H), Jack, off-jack (JD
#: played by seat 2) and the joker; party 0 takes Game (19 pips to 6: seed 004 gives Contway's
#: joker no pip value, and RULES.md counts jokers "1/2 where a variant says so").
CONTWAY = ("BJ AH 2H 4C", "5C JH JD 6C", "AD 7D 8D 9D", "KS 2S 3S 4S", "QS 5S 6S 10S", "3C 3H 7C 8C")


def test_contway_six_points():
    """Seed 004: "The six points consist of high, low, jack, off-jack, joker, and game." """
    assert preset("contway-six", **CAPTURED_LOW).points_in_play == 6
    _, result = play_hand(preset("contway-six", **CAPTURED_LOW), ["bid 4", "pass", "pass", "pass"], *CONTWAY)
    assert awards(result) == [("high", 1, "AH"), ("low", 1, "2H"), ("jack", 1, "JH"),
                              ("off-jack", 1, "JD"), ("joker", 1, "BJ"), ("game", 0, None)]
    assert result.pips == (19, 6)
    assert result.made is True and result.score_changes == (1, 5)


def test_contway_minimum_two_all_pass_dealer_takes_the_minimum():
    """Seed 004: "Each player has the option to either pass or outbid the previous bid. The
    minimum bid is 2, and if all players pass, the dealer is given the minimum bid and
    becomes the winning bidder." """
    state = game(preset("contway-six"), deal_by_tricks(*CONTWAY))
    assert legal(state) == ["pass", "bid 2", "bid 3", "bid 4", "bid 5", "bid 6"]
    act(state, "bid 3", "pass")
    assert legal(state) == ["pass", "bid 4", "bid 5", "bid 6"]
    forced = game(preset("contway-six"), deal_by_tricks(*CONTWAY))
    act(forced, "pass", "pass", "pass")
    assert "pass" not in legal(forced) and "bid 2" in legal(forced)
    act(forced, "bid 2")
    assert forced.pitcher == 0 and forced.contract == 2


# ================================================================== Roadhouse (seed 004)
def test_roadhouse_bids_two_to_four_or_the_moon():
    """Seed 004 (Roadhouse pitch): "Players wishing to bid must bid a minimum of two. In
    addition to bidding two, three, or four; players may also "shoot the moon"" (bid 5)."""
    state = game(preset("roadhouse"), deal_by_tricks(*SLAM))
    assert legal(state) == ["pass", "bid 2", "bid 3", "bid 4", "bid 5"]
    assert_illegal(state, "bid 1")
    act(state, "bid 3", "pass")
    assert legal(state) == ["pass", "bid 4", "bid 5"]
    act(state, "pass")
    assert legal(state) == ["pass", "bid 4", "bid 5"]  # the dealer may not match


def test_roadhouse_dealer_passed_to_assumes_the_minimum_or_shoots_the_moon():
    """Seed 004 (Roadhouse pitch): "In the event the bid is passed to the dealer, the dealer
    must assume the minimum bid (or "shoot the moon")." """
    state = game(preset("roadhouse"), deal_by_tricks(*SLAM))
    act(state, "pass", "pass", "pass")
    assert legal(state) == ["bid 2", "bid 5"]


def test_roadhouse_must_follow_suit_regardless_of_trump():
    """Seed 004: "Players must follow suit regardless of trump, resulting in the primary
    variation from auction pitch. A player may not trump in unless they are unable to follow
    suit." """
    hands = deal("AS 2S 3S 4S 5S 6S", "AH KC 7D 8D 9D 10D", "3H 4H 2C 3C 4D 5D", "5H QC 6D 7S 8S JS")
    state = game(preset("roadhouse"), hands)
    act(state, *PASS_ROUND, "play AH", "play 3H", "play 5H", "play 2S", "play KC")
    assert state.to_move == 2
    # Holds the 4H, but must follow clubs; the diamonds are auction pitch's penalised revoke
    # (test_readings), the trump is not.
    assert legal(state) == ["play 2C", "play 3C", "play 4D", "play 5D"]
    assert_illegal(state, "play 4H")
    act(state, "play 2C", "play QC")
    assert len(legal(state)) == 5  # seat 0 is void in clubs: anything


def test_roadhouse_moon_every_trick_and_all_four_points_is_worth_15():
    """Seed 004: "players may also "shoot the moon", requiring them to win every trick and
    all four points. Shooting the moon is valued at 15 points" """
    state, result = play_hand(preset("roadhouse"), ["bid 5", "pass", "pass", "pass"], *SLAM)
    assert result.moon is True and result.made is True
    assert result.points_won == (0, 4, 0, 0) and result.tricks_won == (0, 6, 0, 0)
    assert result.score_changes == (0, 15, 0, 0)
    assert result.winner == 1 and state.is_over  # 15, two clear of everyone


def test_roadhouse_moon_without_every_trick_is_set_back():
    """Seed 004: "failure to win every trick and all four points results in a setback.
    Negative scoring is allowed." """
    _, result = play_hand(preset("roadhouse"), ["bid 5", "pass", "pass", "pass"], *SLAM_BUT_ONE_TRICK)
    assert result.points_won == (0, 4, 0, 0) and result.tricks_won == (0, 5, 1, 0)
    assert result.made is False
    assert result.score_changes == (0, -15, 0, 0) and result.scores == (0, -15, 0, 0)


def test_roadhouse_played_to_15_win_by_two():
    """Seed 004: "Games are played to 15, with a win by two requirement." """
    state, tied = play_hand(preset("roadhouse"), ["bid 4", "pass", "pass", "pass"], *SLAM,
                            scores=(0, 11, 14, 0))
    assert tied.scores == (0, 15, 14, 0) and tied.winner is None and not state.is_over
    _, clear = play_hand(preset("roadhouse"), ["bid 4", "pass", "pass", "pass"], *SLAM,
                         scores=(0, 11, 13, 0))
    assert clear.scores == (0, 15, 13, 0) and clear.winner == 1


# ======================================================= Kentucky seven-point (seed 004)
def test_kentucky_seven_points_bids_three_to_seven_to_21():
    """Seed 004 (Kentucky seven-point): "There are seven possible points: high, low, jack,
    off-jack, big joker, little joker, and game. The game is played to 21 points. Bids
    between 3 and 7 are allowed." """
    rules = preset("kentucky-seven")
    assert rules.points_in_play == 7 and rules.win.target == 21 and rules.deck_size == 54
    state = GameState.new(rules, seed=8)
    assert legal(state) == ["pass", "bid 3", "bid 4", "bid 5", "bid 6", "bid 7"]
    assert_illegal(state, "bid 2")


def test_kentucky_seven_discard_non_trumps_then_dealt_back_to_six():
    """Seed 004: "The highest bidder calls trumps, and players discard non-trump cards face up
    in the center of the table. The dealer then distributes 6 cards to each player" (read as
    refilling every hand to six; the cards drawn are played whatever their suit)."""
    state = game(preset("kentucky-seven"),
                 deal("JD 2D 3D 4D 5D 6D", "AH KH 2C 3C 4C 5C", "QH 2S 3S 4S 5S 6S", "BJ LJ 10H 9H 8H 7H",
                      stock="6C 7C 8C 9C 10C JC QC KC AC 7S 8S 9S 10S JS"))
    act(state, "bid 3", "pass", "pass", "pass")
    assert state.phase is Phase.DECLARE_TRUMP and state.to_move == 1
    act(state, "trump H")
    assert names(state.hand(1)) == names(cards("AH KH 6C 7C 8C 9C"))
    assert names(state.hand(2)) == names(cards("QH 10C JC QC KC AC"))
    assert names(state.hand(3)) == names(cards("BJ LJ 10H 9H 8H 7H"))
    assert names(state.hand(0)) == names(cards("JD 7S 8S 9S 10S JS"))
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert "play 6C" in legal(state)  # a drawn non-trump may be played


KENTUCKY_DEAL = deal("JD 2D 3D 4D 5D 6D", "AH KH 2C 3C 4C 5C", "QH 2S 3S 4S 5S 6S", "BJ LJ 10H 9H 8H 7H",
                     stock="6C 7C 8C 9C 10C JC QC KC AC 7S 8S 9S 10S JS")
"""Seat 1 bids and names hearts: seats 1, 2 and 0 discard their non-trumps (the JD is the
off-jack), seat 3 holds only trumps and discards nothing."""


def test_kentucky_seven_discards_lie_face_up_for_every_seat_draws_stay_secret():
    """Seed 004: "players discard non-trump cards face up in the center of the table. The
    dealer then distributes 6 cards to each player": every seat (and a spectator) sees which
    cards each seat laid down; the cards dealt back stay their receiver's."""
    state = game(preset("kentucky-seven"), KENTUCKY_DEAL)
    act(state, "bid 3", "pass", "pass", "pass", "trump H")
    laid_down = [(1, "2C 3C 4C 5C"), (2, "2S 3S 4S 5S 6S"), (0, "2D 3D 4D 5D 6D")]
    drawn = set(cards("6C 7C 8C 9C 10C JC QC KC AC 7S 8S 9S 10S JS"))
    exchanges = [e for e in state.history if isinstance(e, Exchanged)]
    for viewer in (3, 1, SPECTATOR):
        seen = observe(state, viewer)
        assert seen.exchanged == ((1, 4), (2, 5), (0, 5))
        assert [names(shown) for shown in seen.face_up_discards] == [names(cards(c)) for _, c in laid_down]
        assert not drawn & {c for shown in seen.face_up_discards for c in shown}
        for event, (seat, text) in zip(exchanges, laid_down, strict=True):
            if event.seat != viewer:  # the seat's own exchange shows it everything, as before
                assert visible_event(event, viewer) == {"event": "exchanged", "seat": seat,
                                                        "discarded": text, "drawn": len(cards(text))}
    assert observe(state, 3).my_draws == () and observe(state, 3).hand == cards("7H 8H 9H 10H LJ BJ")
    assert names(observe(state, 1).my_draws) == names(cards("6C 7C 8C 9C"))


def test_discards_stay_face_down_without_the_option():
    """Every other exchange discards face down (seeds 002, 003 and the other seed 004
    variants say nothing of showing them): other seats learn only how many cards went."""
    assert [name for name in PRESETS if preset(name).trump.discards_face_up] == ["kentucky-seven"]
    state = game(preset("kentucky-seven", discards_face_up=False), KENTUCKY_DEAL)
    act(state, "bid 3", "pass", "pass", "pass", "trump H")
    seen = observe(state, 3)
    assert seen.exchanged == ((1, 4), (2, 5), (0, 5)) and seen.face_up_discards == ()
    first = next(e for e in state.history if isinstance(e, Exchanged))
    assert visible_event(first, 3) == {"event": "exchanged", "seat": 1, "discarded": 4, "drawn": 4}
    assert visible_event(first, 1) == first.to_dict()


# ======================================================= Missouri seven-point (seed 004)
def test_missouri_seven_34_cards_ten_card_blind_no_discarding():
    """Seed 004: "In Southeast Missouri this version, called 7-point pitch, is played with a
    34 card deck (2s–6s removed with a 10 card blind, no discarding)." """
    rules = preset("missouri-seven")
    assert rules.deck_size == 34
    state = GameState.new(rules, seed=9)
    dealt = [state.hand(s) for s in range(4)]
    assert [len(h) for h in dealt] == [6] * 4 and len(state.stock) == 10
    everything = [c for h in dealt for c in h] + [CARDS[c] for c in state.stock]
    assert all(c.is_joker or c.rank >= 7 for c in everything) and len(set(everything)) == 34
    act(state, "bid 3", "pass", "pass", "pass", "trump H")
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert [state.hand(s) for s in range(4)] == dealt and len(state.stock) == 10
    assert preset("missouri-seven").points_in_play == 7


# ================================================================ three teams (seed 004)
def test_three_teams_nine_seats_partners_two_seats_apart_all_54_cards_dealt():
    """Seed 004 (Further variations): "pitch is played with 3 teams with 3 partners each.
    Partners are seated an equal 2 seat between each other. All 54 cards (including high
    joker and low joker)." (9 x 6 = 54)."""
    rules = preset("three-teams")
    assert rules.players == 9 and rules.parties == 3 and rules.deck_size == 54
    state = GameState.new(rules, seed=10)
    teams = [[s for s in range(9) if state.party_of(s) == p] for p in range(3)]
    assert teams == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    assert [len(state.hand(s)) for s in range(9)] == [6] * 9 and state.stock == []
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(1, 7)]


def _three_teams_tricks() -> tuple[str, ...]:
    """Nine seats, all 54 cards: seat 1 pitches the 2H and every seat follows with a heart;
    seat 2 takes it with the AH, then leads KH QH JH 10H BJ and wins every trick (seat 0
    must play the LJ to the KH; nobody else holds a trump)."""
    first = "3H 2H AH 4H 5H 6H 7H 8H 9H"
    leads = ["KH", "QH", "JH", "10H", "BJ"]
    rest = ["LJ", *(f"{rank}{suit}" for suit in "CSD" for rank in
                    ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))]
    others = [0, 1, 3, 4, 5, 6, 7, 8]
    tricks = [first]
    for t, lead in enumerate(leads):
        row = {seat: rest[t * 8 + k] for k, seat in enumerate(others)} | {2: lead}
        tricks.append(" ".join(row[s] for s in range(9)))
    return tuple(tricks)


#: See :func:`_three_teams_tricks`.
THREE_TEAMS = _three_teams_tricks()
THREE_BIDS = ["bid 3"] + ["pass"] * 8


def test_three_teams_set_team_gives_back_its_points_pookie():
    """Seed 004: "If a team does not make their bid they must give back any points (chips)
    they have accumulated and receive 1 negative point (pookie)." """
    _, result = play_hand(preset("three-teams"), THREE_BIDS, *THREE_TEAMS, scores=(4, 7, 2))
    assert awards(result) == [("high", 2, "AH"), ("low", 1, "2H"), ("jack", 2, "JH"), ("joker", 2, "BJ"),
                              ("joker", 2, "LJ"), ("game", 2, None)]  # Low to its holder, seat 1
    assert result.made is False
    assert result.score_changes == (0, -8, 5) and result.scores == (4, -1, 7)


def test_three_teams_pookie_when_already_negative():
    """Seed 004: "they must give back any points (chips) they have accumulated and receive 1
    negative point (pookie)." (with nothing to give back, one more negative point)."""
    _, result = play_hand(preset("three-teams"), THREE_BIDS, *THREE_TEAMS, scores=(0, -2, 0))
    assert result.scores == (0, -3, 5)


def test_three_teams_winning_bidder_leads_its_trump():
    """Seed 004: "Each player left of the dealer has a chance to bid 1-6 points with the
    winning bidder leading their trump." """
    state = game(preset("three-teams"), deal_by_tricks(*THREE_TEAMS))
    act(state, *THREE_BIDS)
    assert state.phase is Phase.PLAY and state.to_move == 1 and state.trump_suit is None
    act(state, "play 2H")
    assert str(state.trump_suit) == "H"


# ================================================================= reverse pitch (seed 004)
#: Seat 1 pitches the AH; seat 2's 3H (the lowest trump) wins; then the lowest card of the
#: suit led wins (2C, 4S, 3C, 2S) unless trumped (seat 1's QH on a diamond lead).
REVERSE = ("4H AH 3H KH", "9C QC KC 2C", "2D 9S 5S 4S", "8D QH 9D 7D", "10C JC 3C 6C", "5D 7S 2S 8S")


def test_reverse_pitch_low_card_takes_each_trick():
    """Seed 004: "Reverse pitch follows all of the rules of basic pitch, except the low card
    takes each trick (the lowest card of the suit lead or lowest card of the trump
    suit)." """
    state = game(preset("reverse"), deal_by_tricks(*REVERSE))
    act(state, "bid 1", "pass", "pass", "pass")
    play_tricks(state, *REVERSE)
    assert [t.winner for t in hand_tricks(state)] == [2, 3, 3, 1, 2, 2]


def test_reverse_pitch_points_scored_normally():
    """Seed 004: "High, low, jack, and game points are scored in the normal fashion." (High is
    still the ace, Low the lowest trump in play, each to the pile holding it)."""
    _, result = play_hand(preset("reverse"), ["bid 1", "pass", "pass", "pass"], *REVERSE)
    assert awards(result) == [("high", 2, "AH"), ("low", 2, "3H"), ("game", 2, None)]
    assert result.made is False and result.score_changes == (0, -1, 3, 0)


# ================================================================== barn pitch (seed 004)
BARN = deal("2H 3H 9S 10S JS QS", "KC AH KH 2D 3D 4D", "3C 5H 7D 8D 9D 10D", "4C 6H 2S 3S 4S 5S")
BARN_BIDS = ("bid 2", "pass", "pass", "pass", "trump H")


def test_barn_pitcher_must_lead_a_non_trump():
    """Seed 004 (Barn pitch): "Instead of leading with trump, the highest bidder must instead
    lead with a different suit." """
    state = game(preset("barn"), BARN)
    act(state, "bid 2", "pass", "pass", "pass")
    assert state.phase is Phase.DECLARE_TRUMP
    act(state, "trump H")
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert legal(state) == ["play KC", "play 2D", "play 3D", "play 4D"]
    assert_illegal(state, "play AH")


def test_barn_trump_only_when_void_then_broken_and_may_be_led():
    """Seed 004: "Trump is then only allowed to be played if a player cannot follow the led
    suit, once the first trump of the round is played then trump is broken. Once trump has
    been broken ... it can be led." """
    state = game(preset("barn"), BARN)
    act(state, *BARN_BIDS, "play KC")
    assert legal(state) == ["play 3C"]  # seat 2 holds the 5H but must follow clubs
    act(state, "play 3C", "play 4C")
    assert "play 2H" in legal(state)  # seat 0 is void in clubs: it may trump
    act(state, "play 2H")
    assert state.to_move == 0  # the 2H won and broke trump
    assert "play 3H" in legal(state)


def test_barn_trump_not_led_until_broken():
    """Seed 004: "requires trump to be "broken" before any trump can be played." (a trick
    without a trump leaves the next leader unable to lead one)."""
    state = game(preset("barn"), BARN)
    act(state, *BARN_BIDS, "play 2D")
    assert legal(state) == ["play 7D", "play 8D", "play 9D", "play 10D"]
    act(state, "play 10D", "play 2S", "play 9S")
    assert state.to_move == 2
    assert legal(state) == ["play 3C", "play 7D", "play 8D", "play 9D"]
    assert_illegal(state, "play 5H")


def test_barn_trump_may_be_led_when_it_is_the_only_suit_left():
    """Seed 004: "Once trump has been broken, or it is the only suit remaining in a players
    hand, it can be led." """
    state = game(preset("barn"), deal("2C 3C 4C 5C 6C 7C", "AH KH QH JH 10H 9H",
                                      "2D 3D 4D 5D 6D 7D", "2S 3S 4S 5S 6S 7S"))
    act(state, *BARN_BIDS)
    assert legal(state) == ["play 9H", "play 10H", "play JH", "play QH", "play KH", "play AH"]


# ==================================================================== backdoor (option)
def test_backdoor_wins_at_minus_the_target():
    """Seed 004 (Further variations): "Reaching the negative equivalent of the goal wins in
    some versions of pitch. For example, when the goal is 11 points, a score of -11 or lower
    would win the game." """
    rules = preset("auction", **CAPTURED_LOW, backdoor="wins")
    state, result = play_hand(rules, ["bid 3", "pass", "pass", "pass"], *ORDER, scores=(0, -8, 0, 0))
    assert result.scores == (0, -11, 2, 0)
    assert result.winner == 1 and result.win_reason is WinReason.BACKDOOR and state.is_over
    state, short = play_hand(rules, ["bid 3", "pass", "pass", "pass"], *ORDER, scores=(0, -7, 0, 0))
    assert short.scores == (0, -10, 2, 0) and short.winner is None and not state.is_over


def test_backdoor_score_option():
    """Seed 004: "Some variants instead allow a backdoor win for a team with extremely low
    points: with a goal of 100 points, -200 might win." """
    rules = preset("auction", **CAPTURED_LOW, backdoor="wins", backdoor_score=-20)
    state, result = play_hand(rules, ["bid 3", "pass", "pass", "pass"], *ORDER, scores=(0, -8, 0, 0))
    assert result.scores == (0, -11, 2, 0) and not state.is_over
    state, deep = play_hand(rules, ["bid 3", "pass", "pass", "pass"], *ORDER, scores=(0, -17, 0, 0))
    assert deep.scores == (0, -20, 2, 0)
    assert deep.winner == 1 and deep.win_reason is WinReason.BACKDOOR


def test_backdoor_loses():
    """Seed 004 (Nine-five): "if a team reaches -100 points the other team is declared
    winner." """
    rules = preset("partnership", backdoor="loses")
    state, result = play_hand(rules, ["bid 3", "pass", "pass", "pass"], *SPLIT, scores=(0, -18))
    assert result.scores == (2, -21)
    assert result.winner == 0 and result.win_reason is WinReason.BACKDOOR and state.is_over


def test_backdoor_draw():
    """Seed 004 (Nine-five): "(A variant to the scoring is that if a team reaches -200 points it
    is considered a "backdoor" and the game is a draw.)" """
    rules = preset("partnership", backdoor="draw", backdoor_score=-30)
    state, result = play_hand(rules, ["bid 3", "pass", "pass", "pass"], *SPLIT, scores=(0, -27))
    assert result.scores == (2, -30)
    assert result.game_over is True and result.winner is None
    assert result.win_reason is WinReason.BACKDOOR and state.is_over and state.winner is None


# ================================================================ low trump wins (option)
def test_low_trump_wins_the_trick_it_is_played_to():
    """Seed 004: "In some variants, the low trump wins the trick in which it is played. This
    is used only in variants where the 2 of trumps is certain to be played." """
    rules = preset("partnership", low_trump_wins=True)
    assert first_trick_winner(rules, "2C AH 2H 4C") == 2  # the 2H beats the ace
    assert first_trick_winner(rules, "KH 2H AH QH") == 1  # even when it is led
    assert first_trick_winner(rules, "2C AH 3H 4C") == 1  # the 3H is not the low trump
    assert first_trick_winner(preset("partnership"), "2C AH 2H 4C") == 1
