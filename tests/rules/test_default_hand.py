"""RULES.md "The default hand" (4-point auction pitch), items 1-7, one test per statement.

Each docstring quotes the seed sentence the test is written from (000 = iPitch,
001 = four-point partnership Pitch, 004 = Pitch / auction pitch).
"""

from __future__ import annotations

from helpers import (
    CAPTURED_LOW,
    FOLLOW_DEAL_ROWS,
    LONE_JACK,
    LONE_TRUMP,
    ORDER,
    PARTNER_TAKES,
    PASS_ROUND,
    SPLIT,
    TIED_GAME,
    act,
    assert_illegal,
    awards,
    deal,
    deal_by_tricks,
    game,
    legal,
    play_hand,
    play_tricks,
)

from pitch_sdk.rules import Phase, Suit, WinReason, preset
from pitch_sdk.rules.events import Dealt
from pitch_sdk.rules.shuffle import shuffled
from pitch_sdk.rules.tables import deck_cards


# --------------------------------------------------------------------------- 1. the deal
def test_deal_six_cards_each_in_batches_of_three_starting_left_of_dealer():
    """Seed 001: "The dealer shuffles and deals three cards to each player, then three
    more to each player, moving clockwise and beginning with the player on the dealer's
    left. Everyone should have six cards. The remaining cards are set aside"."""
    rules = preset("partnership")
    state = game(rules, dealer=2)  # no explicit deal: shuffled from the seed
    deck = shuffled(deck_cards(rules.deck), state.seed, 1)  # the pack as shuffled for deal 1
    order = [3, 0, 1, 2]  # clockwise from the dealer's left
    for i, seat in enumerate(order):
        first, second = deck[3 * i:3 * i + 3], deck[12 + 3 * i:12 + 3 * i + 3]
        assert sorted(state.hand(seat)) == sorted(first + second)
        assert len(state.hand(seat)) == 6
    assert sorted(state.stock) == sorted(deck[24:])  # set aside: their order is never used
    assert len(state.stock) == 52 - 24


def test_deal_passes_left_after_every_hand():
    """Seed 000: "The player to the left of the dealer becomes the new dealer for the
    next round." """
    state, result = play_hand(preset("ipitch"), PASS_ROUND, *SPLIT, dealer=0)
    assert result.dealer == 0
    assert state.dealer == 1
    assert state.phase is Phase.BIDDING
    assert state.to_move == 2  # the new eldest hand bids first
    assert isinstance(state.history[-1], Dealt) and state.history[-1].dealer == 1


# --------------------------------------------------------------------------- 2. bidding
def test_eldest_hand_bids_first():
    """Seed 000: "Starting with the player to the left of the dealer and moving clockwise,
    each player has one chance to bid"."""
    state = game(preset("ipitch"), deal_by_tricks(*SPLIT), dealer=3)
    assert state.phase is Phase.BIDDING
    assert state.to_move == 0
    act(state, "pass")
    assert state.to_move == 1


def test_each_player_has_exactly_one_chance_to_bid():
    """Seed 000: "each player has one chance to bid on the number of points they expect
    to win"; the auction ends with the dealer, even though the eldest hand was
    outbid."""
    state = game(preset("ipitch"), deal_by_tricks(*SPLIT))
    act(state, "bid 2", "bid 3", "pass", "pass")
    assert [seat for seat, _ in state.bids] == [1, 2, 3, 0]
    assert state.phase is Phase.PLAY
    assert state.pitcher == 2 and state.contract == 3
    assert state.to_move == 2  # seat 1 gets no second chance to raise


def test_only_legal_bids_are_pass_two_three_four():
    """Seed 000: "The only legal bids are pass, 2, 3 or 4." """
    state = game(preset("ipitch"), deal_by_tricks(*SPLIT))
    assert legal(state) == ["pass", "bid 2", "bid 3", "bid 4"]
    assert_illegal(state, "bid 1")
    assert_illegal(state, "bid 5")


def test_a_bid_must_be_higher_than_the_previous_one():
    """Seed 001: "Each new bid must be higher than the previous one." """
    state = game(preset("partnership"), deal_by_tricks(*SPLIT))
    act(state, "bid 3")
    assert legal(state) == ["pass", "bid 4"]
    assert_illegal(state, "bid 3")
    assert_illegal(state, "bid 2")


def test_dealer_may_steal_by_matching_the_high_bid():
    """Seed 001: "The dealer, who bids last, may match the highest bid and take the
    contract." """
    state = game(preset("partnership"), deal_by_tricks(*SPLIT))
    act(state, "bid 3", "pass", "pass")
    assert state.to_move == 0
    assert "bid 3" in legal(state)
    act(state, "bid 3")
    assert state.pitcher == 0 and state.contract == 3
    assert state.to_move == 0  # the dealer now pitches


def test_only_the_dealer_may_match_the_high_bid():
    """Seed 001: "The dealer, who bids last, may match the highest bid" (the others must
    bid higher)."""
    state = game(preset("partnership"), deal_by_tricks(*SPLIT))
    act(state, "bid 3")
    assert_illegal(state, "bid 3")


def test_ipitch_dealer_may_not_steal_by_default():
    """Seed 000: "Optionally, some people play that the dealer may 'steal the bid' by
    bidding the same as the current high bid." (off unless ``dealer_steal``)."""
    state = game(preset("ipitch"), deal_by_tricks(*SPLIT))
    act(state, "bid 3", "pass", "pass")
    assert legal(state) == ["pass", "bid 4"]
    assert_illegal(state, "bid 3")
    stealing = game(preset("ipitch", dealer_steal=True), deal_by_tricks(*SPLIT))
    act(stealing, "bid 3", "pass", "pass", "bid 3")
    assert stealing.pitcher == 0 and stealing.contract == 3


def test_forced_dealer_bid_when_everyone_else_passes():
    """Seed 001: "If the first three players pass, the dealer must bid at least 2; this is
    called a forced bid." """
    state = game(preset("partnership"), deal_by_tricks(*SPLIT))
    act(state, "pass", "pass", "pass")
    assert legal(state) == ["bid 2", "bid 3", "bid 4"]
    error = assert_illegal(state, "pass")
    assert "bid 2" in [str(a) for a in error.legal]
    act(state, "bid 2")
    assert state.pitcher == 0 and state.contract == 2 and state.phase is Phase.PLAY


def test_forced_bid_ipitch():
    """Seed 000: "If no other player bids, the dealer must bid at least 2." """
    state = game(preset("ipitch"), deal_by_tricks(*SPLIT))
    act(state, "pass", "pass", "pass")
    assert_illegal(state, "pass")
    assert legal(state) == ["bid 2", "bid 3", "bid 4"]


def test_all_pass_redeal_option_same_dealer_deals_again():
    """Seed 004: "The force bid: Many variations require that the dealer make the minimum
    bid if no other bids have been made. When this rule is not used, the hand is re-dealt
    when all players pass." (``all_pass=redeal``)."""
    second = deal_by_tricks(*LONE_TRUMP)
    state = game(preset("partnership", all_pass="redeal"), deal_by_tricks(*SPLIT), second)
    act(state, "pass", "pass", "pass")
    assert "pass" in legal(state)
    act(state, "pass")
    assert state.dealer == 0 and state.hand_number == 1 and state.deal_number == 2
    assert state.phase is Phase.BIDDING and state.to_move == 1
    assert [state.hand(s) for s in range(4)] == [tuple(sorted(h)) for h in second.hands]
    assert not state.results


# --------------------------------------------------------------------------- 3. pitching
def test_pitcher_leads_the_first_trick():
    """Seed 000: "The high bidder (known as the "pitcher") makes the first lead"."""
    state = game(preset("ipitch"), deal_by_tricks(*SPLIT))
    act(state, "pass", "bid 2", "pass", "pass")  # seat 2 is the pitcher
    assert state.phase is Phase.PLAY and state.to_move == 2
    assert state.trump_suit is None
    assert_illegal(state, "play 3C")  # seat 0's card: not seat 0's turn
    assert_illegal(state, "play AH")  # seat 1's card


def test_first_card_played_sets_trump():
    """Seed 000: "the first card played sets the trump suit for the entire round of six
    tricks." """
    state = game(preset("ipitch"), deal_by_tricks(*SPLIT))
    act(state, *PASS_ROUND, "play 5D")  # seat 1 pitches a diamond, not its ace of hearts
    assert state.trump_suit is Suit.DIAMONDS
    # seat 2 has no diamond and plays its JH (no longer a trump); seats 3 and 0 follow
    act(state, "play JH", "play 6D", "play KD")
    assert state.tricks[0].winner == 0  # KD, highest trump
    assert state.trump_suit is Suit.DIAMONDS  # trump does not change with later leads


# --------------------------------------------------------------------------- 4. trick play
# Hands used below (seat 0 deals, seat 1 bids 2 and pitches AH):
FOLLOW_DEAL = deal(*FOLLOW_DEAL_ROWS)


def _follow_state():
    state = game(preset("ipitch"), FOLLOW_DEAL)
    act(state, *PASS_ROUND, "play AH")
    return state


def test_trump_lead_must_be_followed_with_trump():
    """Seed 001: "If the lead card is a trump, a player who has a trump must play one." """
    state = _follow_state()
    assert state.to_move == 2
    assert legal(state) == ["play 3H", "play 4H"]
    assert_illegal(state, "play 2C")
    assert_illegal(state, "play 4D")


def test_player_void_in_trump_may_play_any_card_to_a_trump_lead():
    """Seed 000: "If a player cannot follow suit, he may play any card in his hand." """
    state = _follow_state()
    act(state, "play 3H", "play 5H")
    assert state.to_move == 0
    assert sorted(legal(state)) == sorted(f"play {c}" for c in ("AS", "2S", "3S", "4S", "5S", "6S"))


def test_plain_lead_follow_suit_or_trump():
    """Seed 000: "If a player can follow suit, he may either do so or play a trump. (Said
    another way, a player may play a trump card even if he is able to follow suit.)" """
    state = _follow_state()
    act(state, "play 3H", "play 5H", "play 2S", "play KC")  # seat 1 won, leads a club
    assert state.to_move == 2
    assert legal(state) == ["play 2C", "play 3C", "play 4H"]  # clubs or trump, no diamond
    assert_illegal(state, "play 4D")
    act(state, "play 4H")  # trumping while able to follow is legal
    assert state.to_move == 3
    assert legal(state) == ["play QC"]  # seat 3 has a club and no trump left
    assert_illegal(state, "play 6D")


def test_void_in_led_suit_may_play_any_card():
    """Seed 001: "If you have none of that suit, you may play any card." """
    state = _follow_state()
    act(state, "play 3H", "play 5H", "play 2S", "play KC", "play 4H", "play QC")
    assert state.to_move == 0  # seat 0: no clubs, no trumps
    assert len(legal(state)) == 5
    act(state, "play AS")
    assert state.tricks[-1].winner == 2


def test_highest_trump_wins_the_trick():
    """Seed 000: "The winner of the trick is the player who played the highest trump"."""
    state = _follow_state()
    act(state, "play 3H", "play 5H", "play 2S")
    assert state.tricks[0].winner == 1  # AH beats 5H and 3H
    act(state, "play KC", "play 4H", "play QC", "play 3S")
    assert state.tricks[1].winner == 2  # the lowly 4H beats the king of the suit led
    assert state.to_move == 2  # "The winner of the trick leads the next trick."


def test_without_trump_highest_card_of_the_suit_led_wins():
    """Seed 000: "or, if no trump was played, the player who played the highest card of
    the lead suit." """
    state = _follow_state()
    act(state, "play 3H", "play 5H", "play 2S", "play KC", "play 4H", "play QC", "play 3S")
    act(state, "play 4D", "play 6D", "play AS", "play 9D")  # the ace is of another suit
    assert state.tricks[2].winner == 1  # 9D, highest diamond


# --------------------------------------------------------------------------- 5. scoring
def test_high_low_jack_game_go_to_the_party_whose_pile_holds_them():
    """Seed 001: "The team with the highest trump earns High. The team that won the trick
    containing the lowest trump earns Low. The team that won the trick containing the jack
    of trump earns Jack. ... The team with the higher total earns Game." """
    _, result = play_hand(preset("partnership"), PASS_ROUND, *SPLIT)
    assert awards(result) == [("high", 1, "AH"), ("low", 1, "2H"),
                              ("jack", 0, "JH"), ("game", 0, None)]
    assert result.pips == (30, 4)
    assert result.points_won == (2, 2)
    assert all(a.value == 1 for a in result.awards)


def test_low_goes_to_the_trick_winner_not_the_player_who_held_it():
    """Seed 000: "1 point for winning the lowest trump in play" (the 2H, played by seat 2,
    is won by seat 1)."""
    _, result = play_hand(preset("ipitch"), PASS_ROUND, *SPLIT)
    assert ("low", 1, "2H") in awards(result)
    assert result.tricks_won == (2, 1, 2, 1)


def test_high_is_highest_trump_actually_dealt():
    """Seed 001: "If a particular card was not dealt, that point may be unavailable; for
    example, if the two of trump was not dealt, the lowest trump actually dealt determines
    Low." (and likewise High: ORDER deals no 2H, LONE_TRUMP no ace)."""
    _, result = play_hand(preset("ipitch"), PASS_ROUND, *ORDER)
    assert ("low", 2, "3H") in awards(result)
    _, lone = play_hand(preset("ipitch"), PASS_ROUND, *LONE_TRUMP)
    assert ("high", 1, "7H") in awards(lone)


def test_jack_not_dealt_scores_no_jack_point():
    """Seed 000: "If the Jack of trumps is not in play, that point is not awarded." """
    _, result = play_hand(preset("partnership"), PASS_ROUND, *LONE_TRUMP)
    assert "JH" not in " ".join(LONE_TRUMP)  # the jack of trumps is in the stock
    assert "jack" not in [a[0] for a in awards(result)]
    assert sum(result.points_won) == 3


def test_tied_game_scores_no_point():
    """Seed 000: "If there's a tie for the game score, that point is not awarded." """
    _, result = play_hand(preset("partnership"), PASS_ROUND, *TIED_GAME)
    assert result.pips == (10, 10)
    assert "game" not in [a[0] for a in awards(result)]
    _, individual = play_hand(preset("ipitch"), PASS_ROUND, *TIED_GAME)
    assert individual.pips == (10, 0, 0, 10)  # a tie for *most* between two of four
    assert "game" not in [a[0] for a in awards(individual)]


def test_single_trump_in_play_is_high_and_low_two_points():
    """Seed 000: "If there's only one trump card in play, it scores 2 points as both the
    high trump and the low trump." """
    _, result = play_hand(preset("partnership"), PASS_ROUND, *LONE_TRUMP)
    assert awards(result) == [("high", 1, "7H"), ("low", 1, "7H"), ("game", 0, None)]
    assert result.points_won == (1, 2)
    assert result.made is True


def test_jack_as_only_trump_scores_three():
    """Seed 000: "If the only trump card in play is the Jack, it scores 3 points." """
    _, result = play_hand(preset("partnership"), ["bid 3", "pass", "pass", "pass"], *LONE_JACK)
    assert awards(result)[:3] == [("high", 1, "JH"), ("low", 1, "JH"), ("jack", 1, "JH")]
    assert result.points_won == (1, 3)
    assert result.made is True and result.score_changes == (1, 3)


def test_game_counts_every_card_in_the_pile_by_pips():
    """Seed 001: "Each ace is worth 4, each king 3, each queen 2, each jack 1, and each 10
    is worth 10. Cards from both teams' tricks count, not only trump cards." """
    _, result = play_hand(preset("ipitch"), PASS_ROUND, *SPLIT)
    # seat 0: QC 10C (T3) + AS (T4) = 16; seat 2: KD JH (T2) + 10D (T6) = 14
    assert result.pips == (16, 4, 14, 0)
    assert ("game", 0, None) in awards(result)


# --------------------------------------------------------------------------- 6. made / set
def test_pitcher_who_makes_the_bid_scores_what_it_won():
    """Seed 000: "If the pitcher wins at least as many points as he bid, he scores as many
    points as he won." """
    state, result = play_hand(preset("ipitch"), ["bid 3", "pass", "pass", "pass"], *LONE_JACK)
    assert result.pitcher == 1 and result.bid == 3
    assert result.made is True
    assert result.score_changes[1] == 3 and state.scores[1] == 3


def test_pitcher_who_falls_short_is_set_back_into_negative_score():
    """Seed 000: "If he fails to make his bid, his bid is subtracted from his score. NOTE:
    It's possible for a player to have a negative score." """
    state, result = play_hand(preset("partnership"), ["bid 3", "pass", "pass", "pass"], *SPLIT)
    assert result.points_won == (2, 2)
    assert result.made is False
    assert result.score_changes == (2, -3)
    assert result.scores == (2, -3) and state.scores == [2, -3]


def test_non_pitchers_score_what_they_won():
    """Seed 000: "Players who were not the pitcher win as many points as they earned." """
    _, result = play_hand(preset("ipitch"), PASS_ROUND, *SPLIT)
    assert result.score_changes == (1, 2, 1, 0)
    _, set_hand = play_hand(preset("ipitch"), ["bid 4", "pass", "pass", "pass"], *SPLIT)
    assert set_hand.score_changes == (1, -4, 1, 0)  # defenders score even when they set


def test_partnership_pitching_team_makes_bid_with_partners_points():
    """Seed 004: "It is sufficient for the pitcher's team to score the number of points
    indicated by the bid." (seat 1 pitches 2H; its partner seat 3 takes it with the AH)."""
    _, result = play_hand(preset("partnership"), ["bid 3", "pass", "pass", "pass"], *PARTNER_TAKES)
    assert awards(result) == [("high", 1, "AH"), ("low", 1, "2H"), ("game", 1, None)]
    assert result.pips == (7, 15)
    assert result.made is True and result.score_changes == (0, 3)


# --------------------------------------------------------------------------- 7. winning
def test_bid_to_go_out_defender_reaching_target_does_not_win():
    """Seed 001: "A team wins when it has at least 21 points at the end of a hand in which
    it made its bid. Simply reaching 21 while defending does not finish the game." """
    rules = preset("partnership")
    # The second hand is SPLIT moved one seat to the left, so that seat 2 pitches it.
    moved = tuple(" ".join(t.split()[-1:] + t.split()[:-1]) for t in SPLIT)
    state = game(rules, deal_by_tricks(*SPLIT), deal_by_tricks(*moved), scores=(19, 0))
    act(state, "bid 3", "pass", "pass", "pass")
    play_tricks(state, *SPLIT)
    first = state.results[0]
    assert first.scores == (21, -3)
    assert first.winner is None and not first.game_over
    assert not state.is_over and state.phase is Phase.BIDDING
    # Next hand (seat 1 deals): seat 2 of the same team bids and makes it -> they win.
    act(state, "bid 2", "pass", "pass", "pass")
    assert state.pitcher == 2
    play_tricks(state, *moved)
    last = state.results[-1]
    assert last.made is True and last.winner == 0
    assert last.win_reason is WinReason.REACHED_TARGET and state.is_over


def test_pitcher_goes_out_even_with_fewer_points_than_a_defender():
    """Seed 000: "The first player to reach at least 7 points at the end of a hand in which
    he was the pitcher wins the game." and "it's possible for the winning player to have
    fewer points than a losing player." """
    state, result = play_hand(preset("ipitch"), PASS_ROUND, *SPLIT, scores=(0, 5, 8, 0))
    assert result.made is True
    assert result.scores == (1, 7, 9, 0)
    assert result.winner == 1 and result.win_reason is WinReason.REACHED_TARGET
    assert state.is_over and state.winner == 1


def test_pitcher_set_back_does_not_go_out():
    """Seed 001: a team wins "at the end of a hand in which it made its bid" (a set team
    that is still above the target does not go out)."""
    state, result = play_hand(preset("partnership"), ["bid 3", "pass", "pass", "pass"], *SPLIT,
                              scores=(0, 24))
    assert result.made is False and result.scores == (2, 21)
    assert result.winner is None and not state.is_over


def test_counting_order_pitcher_first_decides_when_two_cross_the_target():
    """Seed 004: "It may happen that at the end of a deal more than one player reaches the
    number of points necessary to win the game. In this case the order in which the points
    are rewarded becomes crucial: Any points won by the pitcher are counted first.
    Thereafter ... first High, then Low, then Jack, then Game." (seat 2 wins High and Low,
    which come first in the table, but the pitcher's Jack and Game are counted first)."""
    _, result = play_hand(preset("auction", **CAPTURED_LOW), PASS_ROUND, *ORDER, scores=(0, 9, 9, 0))
    assert awards(result)[:2] == [("high", 2, "AH"), ("low", 2, "3H")]
    assert result.scores == (0, 11, 11, 0)
    assert result.winner == 1 and result.win_reason is WinReason.REACHED_TARGET
