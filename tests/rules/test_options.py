"""The ruleset options RULES.md lists (seed 004's "Common minor variations", "Miscellaneous
options", "Off-jack, jokers and odd trumps", "Card distribution variations"), one test per
option the engine has a field for."""

from __future__ import annotations

import pytest
from helpers import (
    CAPTURED_LOW,
    FIVE,
    FOLLOW_DEAL_ROWS,
    ORDER,
    PASS_ROUND,
    SLAM,
    SLAM_BUT_ONE_TRICK,
    SPLIT,
    THREE_HANDED,
    act,
    assert_illegal,
    award_values,
    awards,
    deal,
    deal_by_tricks,
    first_trick_winner,
    game,
    legal,
    play_hand,
    play_tricks,
)

from pitch_sdk.rules import (
    CARDS,
    GameState,
    InvalidDealError,
    InvalidRulesetError,
    Phase,
    WinReason,
    preset,
)


# ------------------------------------------------------------------- bidding options
def test_minimum_bid_one_option():
    """Seed 004: "The minimum bid may be two, rather than one." (and the forced dealer bid
    is then the minimum)."""
    state = game(preset("partnership", minimum_bid=1), deal_by_tricks(*SPLIT))
    assert legal(state) == ["pass", "bid 1", "bid 2", "bid 3", "bid 4"]
    act(state, "pass", "pass", "pass")
    assert legal(state) == ["bid 1", "bid 2", "bid 3", "bid 4"]
    act(state, "bid 1")
    assert state.contract == 1 and state.pitcher == 0


def test_dealer_steal_option():
    """Seed 004: "The dealer, being the last to bid, may have the privilege of stealing the
    bid by bidding the same as the highest bid." """
    with_steal = game(preset("auction", dealer_steal=True), deal_by_tricks(*SPLIT))
    act(with_steal, "bid 2", "pass", "pass", "bid 2")
    assert with_steal.pitcher == 0
    without = game(preset("auction"), deal_by_tricks(*SPLIT))
    act(without, "bid 2", "pass", "pass")
    assert_illegal(without, "bid 2")


def test_all_pass_force_dealer_vs_redeal_option():
    """Seed 004: "The force bid: Many variations require that the dealer make the minimum
    bid if no other bids have been made. When this rule is not used, the hand is re-dealt
    when all players pass." """
    forced = game(preset("auction", all_pass="force-dealer"), deal_by_tricks(*SPLIT))
    act(forced, "pass", "pass", "pass")
    assert_illegal(forced, "pass")
    assert legal(forced) == ["bid 1", "bid 2", "bid 3", "bid 4"]
    redeal = game(preset("ipitch", all_pass="redeal"),
                  deal_by_tricks(*SPLIT), deal_by_tricks(*ORDER))
    act(redeal, "pass", "pass", "pass", "pass")
    assert redeal.dealer == 0 and redeal.deal_number == 2 and redeal.to_move == 1
    assert "3H" in map(str, redeal.hand(1))  # ORDER's hands


# ------------------------------------------------------------------- scoring options
def test_low_to_holder_option():
    """Seed 004: "In some areas the point for low is awarded to the eventual owner." vs "The
    point for low is often awarded to the player who won the trick containing the lowest
    trump, rather than the original owner of the lowest trump." (RULES.md: option Low to the
    party to whom it was dealt.)  SPLIT's 2H is dealt to seat 2 and won by seat 1."""
    _, by_capturer = play_hand(preset("partnership"), PASS_ROUND, *SPLIT)
    assert ("low", 1, "2H") in awards(by_capturer) and by_capturer.made is True
    _, by_holder = play_hand(preset("partnership", low_goes_to="player"), PASS_ROUND, *SPLIT)
    assert ("low", 0, "2H") in awards(by_holder)
    assert by_holder.points_won == (3, 1)
    assert by_holder.made is False and by_holder.score_changes == (3, -2)


def test_no_junk_points_option():
    """Seed 004: ""No junk points" - only the bidding player/team can score points in each
    round. If he fails to make his bid he is setback, but no points are awarded to the
    other players/team." """
    rules = preset("partnership", no_junk_points=True)
    _, made = play_hand(rules, PASS_ROUND, *SPLIT)
    assert made.points_won == (2, 2) and made.score_changes == (0, 2)
    _, set_back = play_hand(rules, ["bid 3", "pass", "pass", "pass"], *SPLIT)
    assert set_back.score_changes == (0, -3)


# ------------------------------------------------------------------- winning options
def test_target_option():
    """Seed 004: "The game is often played for a number of points other than 11, for
    example 7, 9, 15 or 21." """
    assert preset("auction").win.target == 11
    _, at_nine = play_hand(preset("auction", target=9), PASS_ROUND, *SPLIT, scores=(8, 0, 0, 0))
    assert at_nine.winner == 0
    _, at_eleven = play_hand(preset("auction"), PASS_ROUND, *SPLIT, scores=(8, 0, 0, 0))
    assert at_eleven.winner is None


def test_win_by_two_option():
    """Seed 000: "you must win by at least two points"; Roadhouse (seed 004): "Games are
    played to 15, with a win by two requirement." """
    rules = preset("auction", **CAPTURED_LOW, target=15, win_by=2)
    _, close = play_hand(rules, PASS_ROUND, *ORDER, scores=(0, 13, 12, 0))
    assert close.scores == (0, 15, 14, 0) and close.winner is None
    _, clear = play_hand(rules, PASS_ROUND, *ORDER, scores=(0, 13, 11, 0))
    assert clear.scores == (0, 15, 13, 0) and clear.winner == 1


def test_who_may_win_any_defender_can_go_out_by_setting():
    """Seed 004: "In some variants, a team can win if they reach the goal during a hand in
    which they set the bidder." """
    _, result = play_hand(preset("partnership", who_may_win="any"),
                          ["bid 3", "pass", "pass", "pass"],
                          *SPLIT, scores=(19, 0))
    assert result.made is False and result.scores == (21, -3)
    assert result.winner == 0


def test_who_may_win_only_pitching_party():
    """Seed 004: "Another variation common in partnership pitch is that only the pitching
    party can win the game." (the pitching team wins even when set, if still at 21; the
    defence never goes out)."""
    rules = preset("partnership", who_may_win="pitching-party")
    _, set_but_over = play_hand(rules, ["bid 3", "pass", "pass", "pass"], *SPLIT, scores=(0, 24))
    assert set_but_over.made is False and set_but_over.scores == (2, 21)
    assert set_but_over.winner == 1
    _, defender = play_hand(rules, ["bid 3", "pass", "pass", "pass"], *SPLIT, scores=(19, 0))
    assert defender.scores == (21, -3) and defender.winner is None
    # bid to go out (partnership's default): the same set pitching team does not go out
    _, bid_made = play_hand(preset("partnership"), ["bid 3", "pass", "pass", "pass"], *SPLIT,
                            scores=(0, 24))
    assert bid_made.winner is None


#: Cutthroat (seed 002): seat 1 bids 2, names hearts, nobody exchanges; on THREE_HANDED it
#: takes High and Low (seat 0 Game, seat 2 Jack).
CUTTHROAT_BIDS = ["bid 2", "pass", "pass", "trump H", "cards -", "cards -", "cards -"]


def test_who_may_win_honoured_by_seed_002_winning():
    """Seed 004: "Another variation common in partnership pitch is that only the pitching
    party can win the game", and "Bid to go out: ... a player can only win the game if they
    reach the goal on a hand for which they made the winning bid" - options of every
    ruleset, seed 002's making-player rule (cutthroat) included."""
    bids = ["bid 3", *CUTTHROAT_BIDS[1:]]  # seat 1 bids 3 and takes 2 points: set
    _, default = play_hand(preset("cutthroat"), bids, *THREE_HANDED, scores=(10, 0, 11))
    assert default.scores == (11, -3, 12) and default.winner == 2  # seed 002: most at 11 wins
    for who in ("pitching-party", "bid-made"):
        _, defender = play_hand(preset("cutthroat", who_may_win=who), bids, *THREE_HANDED,
                                scores=(10, 0, 11))
        assert defender.scores == (11, -3, 12) and defender.winner is None
    _, set_maker = play_hand(preset("cutthroat", who_may_win="bid-made"), bids, *THREE_HANDED,
                             scores=(0, 14, 0))
    assert set_maker.made is False and set_maker.scores == (1, 11, 1)
    assert set_maker.winner is None  # at 11, but set: no bid made
    _, made = play_hand(preset("cutthroat", who_may_win="bid-made"), CUTTHROAT_BIDS, *THREE_HANDED,
                        scores=(0, 9, 0))
    assert made.made is True and made.winner == 1


def test_win_by_two_honoured_by_seed_002_winning():
    """Seed 000: "Optionally, some people play that ... you must win by at least two
    points" (``win_by=2``, also under seed 002's making-player rule)."""
    rules = preset("cutthroat", win_by=2)
    _, close = play_hand(rules, CUTTHROAT_BIDS, *THREE_HANDED, scores=(10, 9, 0))
    assert close.scores == (11, 11, 1) and close.winner is None
    _, clear = play_hand(rules, CUTTHROAT_BIDS, *THREE_HANDED, scores=(8, 9, 0))
    assert clear.scores == (9, 11, 1) and clear.winner == 1
    bids = ["bid 3", *CUTTHROAT_BIDS[1:]]
    _, most = play_hand(rules, bids, *THREE_HANDED, scores=(10, 0, 11))
    assert most.scores == (11, -3, 12) and most.winner is None  # 12 to 11: not by two


# ------------------------------------------------------------------- moon / smudge
def test_moon_set_loses_the_game_option():
    """Seed 004: "Shoot the moon: A player may shoot the moon, bidding the maximum number.
    If the player or team makes the bid, they win the game; if they are set, they lose the
    game." """
    state, result = play_hand(preset("auction", moon_set="lose-game"),
                              ["bid 4", "pass", "pass", "pass"], *ORDER)
    assert result.made is False and result.game_over
    assert result.win_reason is WinReason.FAILED_MOON
    assert result.winner == 2  # the best of the others (2 points)
    assert state.is_over


PARTNERSHIP_SMUDGE = dict(moon_bid=5, moon_all_tricks=True, moon_made="score", moon_score=5)


def test_partnership_smudge_is_a_five_point_bid_needing_all_tricks():
    """Seed 004: "one common variation is that shooting the moon is a separate bid worth 5
    points and involves winning all six tricks in addition to winning all four points. The
    fifth point for winning all six tricks is only awarded if the pitching team undertook
    to shoot the moon." """
    rules = preset("partnership", **PARTNERSHIP_SMUDGE)
    state = game(rules, deal_by_tricks(*SLAM))
    assert legal(state) == ["pass", "bid 2", "bid 3", "bid 4", "bid 5"]
    assert "bid 5" not in legal(game(preset("partnership"), deal_by_tricks(*SLAM)))
    _, result = play_hand(rules, ["bid 5", "pass", "pass", "pass"], *SLAM)
    assert result.tricks_won == (0, 6) and result.points_won == (0, 4)
    assert result.moon is True and result.made is True
    assert result.score_changes == (0, 5)
    _, plain = play_hand(rules, ["bid 4", "pass", "pass", "pass"], *SLAM)
    assert plain.moon is False and plain.score_changes == (0, 4)  # no fifth point unbid


def test_partnership_smudge_set_without_every_trick():
    """Seed 004: "involves winning all six tricks in addition to winning all four points"
    (all four points but only five tricks: set back by the 5 bid)."""
    rules = preset("partnership", **PARTNERSHIP_SMUDGE)
    _, result = play_hand(rules, ["bid 5", "pass", "pass", "pass"], *SLAM_BUT_ONE_TRICK)
    assert result.points_won == (0, 4) and result.tricks_won == (1, 5)
    assert result.made is False and result.score_changes == (0, -5)


# ------------------------------------------------------------------- jokers
JOKERS = dict(jokers=2, points=("high", "low", "jack", "joker", "game"))

#: ipitch with two jokers: seat 1 pitches the QH (it may not lead its big joker yet), seat 0
#: captures the little joker played by seat 2; seat 1 later leads the big joker and keeps
#: it.  Pips: seat 0 AH QH + LJ = 6.5, seat 3 KD QD JD = 6, seat 1 BJ = 0.5.
JOKER_HAND = ("AH QH LJ 2C", "2D JD QD KD", "4S 2H 5S 3S",
              "8S BJ 6S 7S", "6D 3D 4D 5D", "7C 8C 9C 5C")


def test_jokers_not_led_to_the_first_trick():
    """Seed 004: "Jokers are considered trump, ranking just below the jack, and are not
    allowed to be led in the first trick of a round." """
    state = game(preset("ipitch", **JOKERS), deal_by_tricks(*JOKER_HAND))
    act(state, *PASS_ROUND)
    assert "play BJ" not in legal(state)
    assert_illegal(state, "play BJ")
    play_tricks(state, *JOKER_HAND[:3])
    assert state.to_move == 1 and "play BJ" in legal(state)  # later it may be led


def test_jokers_are_trumps_that_must_follow_a_trump_lead():
    """Seed 004: "Jokers are considered trump" (seat 2's only trump is the little joker)."""
    state = game(preset("ipitch", **JOKERS), deal_by_tricks(*JOKER_HAND))
    act(state, *PASS_ROUND, "play QH")
    assert legal(state) == ["play LJ"]
    assert_illegal(state, "play 5S")


def test_jokers_rank_just_below_the_jack():
    """Seed 004: "Jokers are considered trump, ranking just below the jack"."""
    rules = preset("ipitch", **JOKERS)
    assert first_trick_winner(rules, "JH 10H BJ LJ") == 0  # the jack beats both jokers
    assert first_trick_winner(rules, "9C 10H LJ 2C") == 2  # a joker beats the ten
    assert first_trick_winner(rules, "9C 10H LJ BJ") == 3  # big joker over little joker


def test_jokers_worth_a_point_to_eventual_owner_and_half_a_pip():
    """Seed 004: "Two jokers are included in the deck, raising the possible take in a round
    to 6 points. ... The eventual owner of the joker is the one to earn the point for it,
    not the original owner. Jokers are worth half a pip." """
    _, result = play_hand(preset("ipitch", **JOKERS), PASS_ROUND, *JOKER_HAND)
    assert awards(result) == [("high", 0, "AH"), ("low", 1, "2H"), ("joker", 1, "BJ"),
                              ("joker", 0, "LJ"), ("game", 0, None)]
    assert result.pips == (6.5, 0.5, 0, 6)  # the half pip decides Game: 6.5 to 6
    assert result.made is True and result.score_changes == (3, 2, 0, 0)
    assert preset("ipitch", **JOKERS).points_in_play == 6


def test_jokers_worth_no_pip_where_the_variant_is_silent():
    """RULES.md: "Pips ("game points"): 10 = 10, A = 4, K = 3, Q = 2, J = 1, others 0 (jokers
    1/2 where a variant says so)" - ``joker_half_pip=false``, as the presets whose seeds say
    nothing of joker pips (Contway, Kentucky and Missouri seven-point, two-trump) set it.
    Without the little joker's half pip, seat 0's 6 ties seat 3's 6: "a tie for most awards
    none"."""
    _, result = play_hand(preset("ipitch", **JOKERS, joker_half_pip=False), PASS_ROUND, *JOKER_HAND)
    assert result.pips == (6, 0, 0, 6)
    assert awards(result) == [("high", 0, "AH"), ("low", 1, "2H"), ("joker", 1, "BJ"), ("joker", 0, "LJ")]
    assert result.score_changes == (2, 2, 0, 0)
    assert [preset(name).deck.joker_half_pip for name in ("contway-six", "kentucky-seven", "missouri-seven",
                                                          "two-trump", "three-teams")] == [False] * 4 + [True]


#: ipitch with one joker below the two: seat 0 must play it to the pitcher's 2H lead and
#: loses it to the two; seat 1 takes everything.
LOW_JOKER_HAND = ("BJ 2H 3C 4C", "5C AH 6C 7C", "2D KD 3D 4D",
                  "2S KS 3S 4S", "8C KC 9C 10C", "5D QD 6D 7D")


def test_joker_below_the_two_is_ignored_for_low_and_scores_a_point():
    """Seed 004: "In some variants a joker is added to the pack as an additional trump
    ranked below the two of trumps. For the determination of the low point it is ignored,
    but its owner or winner is awarded an additional joker point." """
    rules = preset("ipitch", jokers=1, joker_rank="below-two",
                   points=("high", "low", "jack", "joker", "game"))
    state = game(rules, deal_by_tricks(*LOW_JOKER_HAND))
    act(state, *PASS_ROUND, "play 2H", "play 3C", "play 4C")
    assert legal(state) == ["play BJ"]  # a trump: must follow the trump lead
    act(state, "play BJ")
    assert state.tricks[0].winner == 1  # the two beats the joker
    play_tricks(state, *LOW_JOKER_HAND[1:])
    result = state.results[0]
    assert awards(result) == [("high", 1, "AH"), ("low", 1, "2H"), ("joker", 1, "BJ"),
                              ("game", 1, None)]


def test_joker_may_not_pitch_trump():
    """Seed 004: jokers "are not allowed to be led in the first trick of a round"; a ruleset
    letting a joker pitch trump has no trump suit to set and is rejected."""
    with pytest.raises(InvalidRulesetError, match="joker"):
        preset("ipitch", jokers=2, joker_may_lead_first_trick=True)
    allowed = preset("cutthroat", jokers=2, joker_may_lead_first_trick=True)
    assert allowed.play.joker_may_lead_first_trick  # trump is declared first: fine


# ------------------------------------------------------------------- off-jack
OFF_JACK = dict(off_jack=True, points=("high", "low", "jack", "off-jack", "game"))

#: Hearts trump; the JD is a trump.  Seat 2 trumps seat 1's diamond lead with it.
OFF_JACK_HAND = ("3C 10H 9H 2C", "4D 2D JD 3D", "3S 4S 2S 5S",
                 "7S 8S 9S 6S", "JS QS 10S KS", "6C 7C 8C 5C")


def test_off_jack_belongs_to_trump_and_scores_a_point():
    """Seed 004: "the left bower is referred to as the off-jack or jick. If this feature is
    used, an additional point for off-jack can be scored in analogy to the point for
    jack." and "It belongs logically to the trump suit" (so it is High over the 10H)."""
    _, result = play_hand(preset("ipitch", **OFF_JACK), PASS_ROUND, *OFF_JACK_HAND)
    assert awards(result) == [("high", 2, "JD"), ("low", 1, "9H"), ("off-jack", 2, "JD"),
                              ("game", 3, None)]


def test_off_jack_is_not_a_card_of_its_printed_suit():
    """Seed 004: "It belongs logically to the trump suit" (seat 2 holds the JD but no other
    diamond: it is void in diamonds and may play anything)."""
    state = game(preset("ipitch", **OFF_JACK), deal_by_tricks(*OFF_JACK_HAND))
    act(state, *PASS_ROUND)
    play_tricks(state, OFF_JACK_HAND[0])
    act(state, "play 2D")
    assert state.to_move == 2
    assert len(legal(state)) == 5  # JD, 2S, 4S... any card
    act(state, "play JD", "play 3D", "play 4D")
    assert state.tricks[1].winner == 2  # the off-jack trumps the diamond lead


def test_off_jack_ranks_just_below_the_jack_of_trumps():
    """Seed 004: "ranks immediately below the jack of trumps (right bower)"."""
    rules = preset("ipitch", **OFF_JACK)
    assert first_trick_winner(rules, "9C 10H JD JH") == 3
    assert first_trick_winner(rules, "9C 10H JD 2C") == 2


# ------------------------------------------------------------------- odd trumps
def test_five_of_trumps_worth_five_chicago():
    """Seed 004: "Some variants have odd trumps. For example, the five of trumps might be
    worth 5 points ("Chicago pitch")" (the 5H is played by seat 2 and won by seat 1)."""
    _, result = play_hand(preset("ipitch", points=("high", "low", "jack", "game", "five:5")),
                          PASS_ROUND, *FIVE)
    assert awards(result)[-1] == ("five", 1, "5H")
    assert award_values(result)["five"] == 5
    assert result.points_won == (1, 7, 1, 0)


#: Hearts trump.  Seat 1 leads the 3H, seat 2 plays the 3D, seat 3 the 2H: seat 1 wins
#: them, and Game (18 pips to seat 0's 7).
THREES_HAND = ("2C 3H 3D 2H", "3C KD 4D 5D", "AS KS 2S 3S",
               "4C KC 6C 7C", "5C QS 4S 5S", "8C 6D 9C 10C")


def test_three_of_trumps_worth_three():
    """Seed 004: "or the three of trumps 3 points." """
    _, result = play_hand(preset("ipitch", points=("high", "low", "jack", "game", "three:3")),
                          PASS_ROUND, *THREES_HAND)
    assert awards(result) == [("high", 1, "3H"), ("low", 1, "2H"), ("game", 1, None),
                              ("three", 1, "3H")]
    assert award_values(result)["three"] == 3
    assert result.points_won == (0, 6, 0, 0)


def test_off_three_is_a_trump_worth_three_while_the_three_scores_nothing():
    """Seed 004: "In analogy to the off-jack there may also be other off-trumps which are
    logically trumps and rank immediately below their trump counterparts. For example, the
    off-three might be worth 3 points while the three of trumps retains its usual worth of
    0 points." """
    rules = preset("ipitch", off_three=True, points=("high", "low", "jack", "game", "off-three:3"))
    state = game(rules, deal_by_tricks(*THREES_HAND))
    act(state, *PASS_ROUND, "play 3H")
    assert legal(state) == ["play 3D"]  # seat 2's off-three is its only trump
    _, result = play_hand(rules, PASS_ROUND, *THREES_HAND)
    assert awards(result) == [("high", 1, "3H"), ("low", 1, "2H"), ("game", 1, None),
                              ("off-three", 1, "3D")]
    assert result.points_won == (0, 6, 0, 0)  # the 3H itself is worth nothing
    assert award_values(result)["off-three"] == 3
    assert first_trick_winner(rules, "9C 2H 3D 2C") == 2  # above the two
    assert first_trick_winner(rules, "9C 3H 3D 2C") == 1  # below the three


# ------------------------------------------------------------------- removed ranks
def test_low_cards_removed_for_two_players():
    """Seed 004: "Some of the lower cards may be removed from the deck. The two-player game
    is more interesting if the Threes, Fours and Fives are removed." """
    rules = preset("simple", players=2, removed_ranks=(3, 4, 5))
    assert rules.deck_size == 40
    state = GameState.new(rules, seed=5)
    dealt = [c for s in range(2) for c in state.hand(s)] + [CARDS[c] for c in state.stock]
    assert len(dealt) == 40 and all(c.rank not in (3, 4, 5) for c in dealt)
    with pytest.raises(InvalidDealError):
        game(rules, deal("3C 2C 6C 7C 8C 9C", "2D 6D 7D 8D 9D 10D"))


def test_threes_removed_eight_players_deal_every_card():
    """Seed 004: "Removing the Threes ensures that in the eight-player game all cards are
    dealt." """
    state = GameState.new(preset("simple", players=8, removed_ranks=(3,)), seed=2)
    assert len(state.stock) == 0
    assert sum(len(state.hand(s)) for s in range(8)) == 48


# ------------------------------------------------------------------- declare + exchange
EXCHANGE_DEAL = deal("2C 3C 4C 5C 6C 7C", "AH KH 2D 3D 4D 5D", "QH 2S 3S 4S 5S 6S",
                     "8C 9C 10C JC QC KC", stock="JH 10H 9H 8H 7H 6H 5H 4H 3H 2H AS KS QS "
                     "JS 10S 9S 8S 7S AD KD QD JD 10D 9D 8D 7D")


def _declared(exchange: str) -> GameState:
    state = game(preset("partnership", trump_selection="declare", exchange=exchange), EXCHANGE_DEAL)
    act(state, "bid 2", "pass", "pass", "pass", "trump H")
    assert state.phase is Phase.EXCHANGE and state.to_move == 1
    return state


def test_declare_trump_then_discard_any_number_of_non_trumps():
    """Seed 004: "the highest bidder does not pitch immediately, but first announces the
    trump suit, after which all players get a chance to discard a number of cards. Their
    hands are afterwards completed to six cards by the dealer. Each player ... discards as
    many non-trumps as desired." """
    state = _declared("non-trumps")
    assert len(legal(state)) == 16  # any subset of 2D 3D 4D 5D
    assert_illegal(state, "cards AH")
    act(state, "cards 2D 3D")
    assert sorted(map(str, state.hand(1))) == sorted("AH KH 4D 5D JH 10H".split())
    act(state, "cards -", "cards 8C 9C", "cards 2C")
    assert [len(state.hand(s)) for s in range(4)] == [6, 6, 6, 6]
    assert state.phase is Phase.PLAY and state.to_move == 1


def test_declare_trump_then_discard_all_non_trumps():
    """Seed 004: "Each player discards all non-trumps" (and is completed to six)."""
    state = _declared("all-non-trumps")
    assert legal(state) == ["cards 2D 3D 4D 5D"]
    assert_illegal(state, "cards 2D")
    act(state, "cards 2D 3D 4D 5D")
    assert sorted(map(str, state.hand(1))) == sorted("AH KH JH 10H 9H 8H".split())
    act(state, "cards 2S 3S 4S 5S 6S")
    assert sorted(map(str, state.hand(2))) == sorted("QH 7H 6H 5H 4H 3H".split())
    assert state.to_move == 3
    act(state, "cards 8C 9C 10C JC QC KC", "cards 2C 3C 4C 5C 6C 7C")
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert [len(state.hand(s)) for s in range(4)] == [6, 6, 6, 6]


def test_discarded_trump_is_out_of_play():
    """RULES.md: "In play: the cards dealt to the players' hands for this hand (not the
    undealt stock, not burned cards)"; seed 002's exchange lets a player discard "any
    number of cards" (here seat 1 throws away its ace of trumps: the KH becomes High)."""
    state = game(preset("cutthroat"), deal("2C 3C 4C 5C 6C 7C", "AH KH 2D 3D 4D 5D",
                                           "2S 3S 4S 5S 6S 7S", stock="8S 9S 10S JS"))
    act(state, "bid 2", "pass", "pass", "trump H", "cards AH", "cards -", "cards -")
    assert "AH" not in map(str, state.hand(1))
    rows = ["2C KH 2S", "3C 2D 3S", "4C 3D 4S", "5C 4D 5S", "6C 5D 6S", "7C 8S 7S"]
    play_tricks(state, *rows)
    assert awards(state.results[0])[:2] == [("high", 1, "KH"), ("low", 1, "KH")]


# ------------------------------------------------------------------- must follow
def test_must_follow_suit_option_roadhouse():
    """Seed 004 (Roadhouse pitch): "Players must follow suit regardless of trump, resulting
    in the primary variation from auction pitch. A player may not trump in unless they are
    unable to follow suit." """
    rules = preset("partnership", follow="must-follow")
    state = game(rules, deal(*FOLLOW_DEAL_ROWS))
    act(state, *PASS_ROUND, "play AH", "play 3H", "play 5H", "play 2S", "play KC")
    assert state.to_move == 2
    assert legal(state) == ["play 2C", "play 3C"]  # no trumping in while holding clubs
    assert_illegal(state, "play 4H")
    act(state, "play 2C", "play QC")
    assert state.to_move == 0  # void in clubs and trumps: anything
    assert len(legal(state)) == 5


def test_all_pass_redeals_count_toward_the_hand_limit() -> None:
    """Seed 004 (auction): "If no player bids, the deal is abandoned and the same dealer
    deals again." Re-deals count as deals for ``max_hands``, so bots that always pass
    end in a draw at the limit instead of dealing forever."""
    state = GameState.new(preset("auction", max_hands=3), seed=1)
    for _ in range(3):
        assert state.phase is Phase.BIDDING and state.dealer == 0
        act(state, "pass", "pass", "pass", "pass")
    assert state.is_over and state.win_reason is WinReason.HAND_LIMIT
    assert state.winner is None and state.results == [] and state.deal_number == 3
