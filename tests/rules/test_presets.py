"""One group of tests per preset in presets.py, written from the seed text each cites."""

from __future__ import annotations

import pytest
from helpers import (
    CAPTURED_LOW,
    FIVE,
    LONE_JACK,
    ORDER,
    PASS_ROUND,
    SLAM,
    SPLIT,
    THREE_HANDED,
    act,
    assert_illegal,
    award_values,
    awards,
    cards,
    deal,
    deal_by_tricks,
    game,
    legal,
    play_hand,
    play_out,
    play_tricks,
)

from pitch_sdk.rules import (
    CARDS,
    PRESETS,
    GameOverError,
    GameState,
    Phase,
    Suit,
    UnknownPresetError,
    WinReason,
    parse_action,
    preset,
)


def test_every_preset_is_registered_with_its_seed():
    """RULES.md: "Presets the engine must ship (each with tests from its seed)"."""
    assert {name: p.seed for name, p in PRESETS.items()} == {
        "ipitch": "000", "partnership": "001", "cutthroat": "002", "partnership-five": "002",
        "high-low-jack": "002", "simple": "004", "auction": "004",
        # the ten-point family (seed 003) and seed 004's named variants
        "ten-point": "003", "five-point": "003", "seven-point": "003", "eight-point": "003",
        "thirteen-point": "003", "eleven-point": "003", "sixteen-point": "003", "fifteen-point": "003",
        "fourteen-point": "003", "dirty": "003", "reverse-hierarchy": "003", "five-handed": "003",
        "nine-card-ten-point": "004", "oklahoma-ten": "004", "eleven-point-off-ace": "004",
        "contway-six": "004", "roadhouse": "004", "kentucky-seven": "004", "missouri-seven": "004",
        "three-teams": "004", "reverse": "004", "two-trump": "004", "call-partner": "004", "abacos": "004",
        "man-o-war": "004", "nine-five": "004", "hotshot": "004", "scranton": "004", "barn": "004",
    }
    with pytest.raises(UnknownPresetError, match="ipitch"):
        preset("no-such-pitch")


# =========================================================================== ipitch (000)
@pytest.mark.parametrize("players", [3, 4, 5, 7])
def test_ipitch_three_to_seven_players_each_alone(players):
    """Seed 000: "Shuffle the deck and deal six cards to each player." (iPitch is played
    by 3 to 7 players, each for himself)."""
    state = GameState.new(preset("ipitch", players=players), seed=3)
    assert state.parties == players
    assert all(len(state.hand(s)) == 6 for s in range(players))
    assert len(state.stock) == 52 - 6 * players
    play_out(state)
    assert len(state.results[0].scores) == players


def test_ipitch_target_seven_pitcher_goes_out():
    """Seed 000: "The first player to reach at least 7 points at the end of a hand in which
    he was the pitcher wins the game." """
    _, result = play_hand(preset("ipitch"), PASS_ROUND, *SPLIT, scores=(0, 5, 0, 0))
    assert result.scores[1] == 7 and result.winner == 1
    _, short = play_hand(preset("ipitch"), PASS_ROUND, *SPLIT, scores=(0, 4, 0, 0))
    assert short.scores[1] == 6 and short.winner is None


def test_ipitch_defender_reaching_seven_does_not_win():
    """Seed 000: "... at the end of a hand in which he was the pitcher wins the game." (seat
    0 reaches 7 with the Game point while defending)."""
    state, result = play_hand(preset("ipitch"), PASS_ROUND, *SPLIT, scores=(6, 0, 0, 0))
    assert result.scores[0] == 7
    assert result.winner is None and not state.is_over


@pytest.mark.parametrize("target", [11, 15, 21])
def test_ipitch_longer_game_options(target):
    """Seed 000: "Some prefer to play to 11 or 15 or, for an even longer game, 21." """
    state, result = play_hand(preset("ipitch", target=target), PASS_ROUND, *SPLIT,
                              scores=(0, 5, 0, 0))
    assert result.scores[1] == 7 and result.winner is None and not state.is_over
    _, last = play_hand(preset("ipitch", target=target), PASS_ROUND, *SPLIT,
                        scores=(0, target - 2, 0, 0))
    assert last.winner == 1


def test_ipitch_win_by_two_option():
    """Seed 000: "Optionally, some people play that you must bid to win the game and / or
    you must win by at least two points." """
    rules = preset("ipitch", win_by=2)
    state, tied = play_hand(rules, PASS_ROUND, *SPLIT, scores=(0, 5, 6, 0))
    assert tied.scores == (1, 7, 7, 0)
    assert tied.winner is None and not state.is_over
    _, clear = play_hand(rules, PASS_ROUND, *SPLIT, scores=(0, 5, 4, 0))
    assert clear.scores == (1, 7, 5, 0) and clear.winner == 1
    # without the option the same tie is a win: reaching the target is enough
    _, default = play_hand(preset("ipitch"), PASS_ROUND, *SPLIT, scores=(0, 5, 6, 0))
    assert default.winner == 1


# ====================================================================== partnership (001)
def test_partnership_teams_are_opposite_partners():
    """Seed 001: "Choose seats so teammates sit opposite each other, not next to each
    other." and "The winner collects the four cards, keeps them face down as a team
    pile"."""
    _, result = play_hand(preset("partnership"), PASS_ROUND, *SPLIT)
    assert result.tricks_won == (4, 2)  # seats 0 and 2 pool their tricks
    assert result.pips == (30, 4)
    assert len(result.scores) == 2


def test_partnership_team_reaching_21_after_making_bid_wins():
    """Seed 001: "A team wins when it has at least 21 points at the end of a hand in which
    it made its bid." """
    state, result = play_hand(preset("partnership"), PASS_ROUND, *SPLIT, scores=(0, 19))
    assert result.scores == (2, 21) and result.made
    assert result.winner == 1 and state.winner == 1 and state.is_over
    assert state.phase is Phase.GAME_OVER
    with pytest.raises(GameOverError):
        state.apply(parse_action("pass"))


def test_partnership_defence_passing_21_waits_for_its_own_bid():
    """Seed 001: "a team can pass 21 because of points earned against the pitcher, but it
    must wait until it makes a bid successfully at the end of a later hand." """
    state, result = play_hand(preset("partnership"), ["bid 3", "pass", "pass", "pass"], *SPLIT,
                              scores=(20, 0))
    assert result.scores == (22, -3) and result.winner is None
    assert state.phase is Phase.BIDDING and state.dealer == 1


def test_partnership_dealer_steal_and_forced_bid():
    """Seed 001: "The dealer, who bids last, may match the highest bid and take the
    contract. If the first three players pass, the dealer must bid at least 2"."""
    state = game(preset("partnership"), deal_by_tricks(*SPLIT))
    act(state, "pass", "bid 4", "pass")
    assert legal(state) == ["pass", "bid 4"]
    forced = game(preset("partnership"), deal_by_tricks(*SPLIT))
    act(forced, "pass", "pass", "pass")
    assert "pass" not in legal(forced)


@pytest.mark.parametrize("team_size, teams",
                         [(2, [[0, 3], [1, 4], [2, 5]]), (3, [[0, 2, 4], [1, 3, 5]])])
def test_partnership_six_players_teams_spaced_evenly(team_size, teams):
    """Seed 004 (Partnership pitch): "(Three teams of two players or two teams of three
    players can play by the same principle.)"; RULES.md: "members spaced evenly"."""
    state = GameState.new(preset("partnership", players=6, team_size=team_size), seed=4)
    assert [[s for s in range(6) if state.party_of(s) == p] for p in range(state.parties)] == teams
    play_out(state)
    result = state.results[0]
    assert len(result.scores) == len(teams) and sum(result.tricks_won) == 6


# ======================================================================== cutthroat (002)
CUTTHROAT_BIDS = ["bid 2", "pass", "pass", "trump H", "cards -", "cards -", "cards -"]


def test_cutthroat_three_players_no_teams():
    """Seed 002 (three-player): "each player is independent of the other two players.
    There are no teams are formed. The dealer deals six cards to every player"."""
    rules = preset("cutthroat")
    assert rules.players == 3 and rules.parties == 3
    state = GameState.new(rules, seed=1)
    assert [len(state.hand(s)) for s in range(3)] == [6, 6, 6]
    assert len(state.stock) == 34


def test_cutthroat_bids_two_to_four_dealer_may_match_dealer_forced():
    """Seed 002: "Valid bids are Pass, Two, Three, & Four ... Whenever at least one bid has
    been made, the dealer may always match the high bid ... In case no bid has been made,
    the dealer must make a minimum bid ... The dealer may not pass whenever two other
    players have passed." """
    state = game(preset("cutthroat"), deal_by_tricks(*THREE_HANDED))
    assert legal(state) == ["pass", "bid 2", "bid 3", "bid 4"]
    act(state, "bid 3", "pass")
    assert legal(state) == ["pass", "bid 3", "bid 4"]  # the dealer may match
    forced = game(preset("cutthroat"), deal_by_tricks(*THREE_HANDED))
    act(forced, "pass", "pass")
    assert legal(forced) == ["bid 2", "bid 3", "bid 4"]
    assert_illegal(forced, "pass")


def test_cutthroat_option_bids_three_to_four():
    """Seed 002: "(some variants: Pass, Three, Four)"."""
    state = game(preset("cutthroat", minimum_bid=3), deal_by_tricks(*THREE_HANDED))
    assert legal(state) == ["pass", "bid 3", "bid 4"]
    assert_illegal(state, "bid 2")
    act(state, "pass", "pass")
    assert legal(state) == ["bid 3", "bid 4"]  # the forced bid is the minimum, 3


def test_cutthroat_maker_declares_trump_then_everyone_discards_and_draws():
    """Seed 002: "The player who made the high bid (a "making player") declares a trump
    suit. Beginning with the player to the dealer's left and proceeding clockwise, players
    will discard any number of cards from their hands and receive that many new cards
    from the dealer." ... "Beginning with the making player ... players play"."""
    rules = preset("cutthroat")
    state = game(rules, deal("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D AH",
                             "AS KH QH 2S 3S 4S", stock="JH 10H 9H 8H 7H 6H 5H"))
    act(state, "pass", "bid 2", "pass")  # seat 2 wins the bid, the dealer does not match
    assert state.phase is Phase.DECLARE_TRUMP and state.to_move == 2
    assert legal(state) == ["trump C", "trump D", "trump H", "trump S"]
    act(state, "trump H")
    assert state.trump_suit is Suit.HEARTS
    assert state.phase is Phase.EXCHANGE and state.to_move == 1  # eldest hand first
    act(state, "cards 2D 3D AH")  # any cards, trumps included
    assert sorted(map(str, state.hand(1))) == sorted("4D 5D 6D JH 10H 9H".split())
    assert state.to_move == 2
    act(state, "cards 2S 3S")
    assert sorted(map(str, state.hand(2))) == sorted("AS KH QH 4S 8H 7H".split())
    act(state, "cards -")
    assert state.hand(0) == cards("2C 3C 4C 5C 6C 7C")
    assert state.phase is Phase.PLAY and state.to_move == 2  # the maker leads
    assert [CARDS[c] for c in state.stock] == list(cards("6H 5H"))


def test_cutthroat_option_trump_by_first_card_without_draw():
    """Seed 002: "In a few variants, players play with the hands they were dealt without
    discarding and getting new cards; in that case, trump is determined by the first card
    played by the making player." """
    state = game(preset("cutthroat", trump_selection="pitch", exchange="none"),
                 deal_by_tricks(*THREE_HANDED))
    act(state, "bid 2", "pass", "pass")
    assert state.phase is Phase.PLAY and state.trump_suit is None and state.to_move == 1
    act(state, "play 5D")
    assert state.trump_suit is Suit.DIAMONDS


def test_cutthroat_scoring_each_player_alone():
    """Seed 002: "Three-player Pitch uses the High, Low, Jack, and Game scoring
    categories. ... Every other player adds to their score the number of points earned
    that hand." """
    _, result = play_hand(preset("cutthroat"), CUTTHROAT_BIDS, *THREE_HANDED)
    assert awards(result) == [("high", 1, "AH"), ("low", 1, "2H"), ("jack", 2, "JH"),
                              ("game", 0, None)]
    assert result.pips == (16, 4, 4)
    assert result.score_changes == (1, 2, 1)


def test_cutthroat_maker_at_eleven_wins_regardless_of_others():
    """Seed 002: "If a making player has 11 points at the end of a hand, that player wins
    the game, regardless of the other players' scores." """
    state, result = play_hand(preset("cutthroat"), CUTTHROAT_BIDS, *THREE_HANDED,
                              scores=(11, 9, 11))
    assert result.scores == (12, 11, 12)
    assert result.winner == 1 and result.win_reason is WinReason.MAKER_AT_TARGET
    assert state.is_over


def test_cutthroat_non_maker_with_most_points_at_eleven_wins():
    """Seed 002: "If one or more non-making players have 11 points at the end of a hand,
    the player with the most points wins the game"."""
    bids = ["bid 3", *CUTTHROAT_BIDS[1:]]
    _, result = play_hand(preset("cutthroat"), bids, *THREE_HANDED, scores=(10, 0, 11))
    assert result.made is False
    assert result.scores == (11, -3, 12)
    assert result.winner == 2 and result.win_reason is WinReason.MOST_AT_TARGET


def test_cutthroat_tie_at_eleven_plays_on():
    """Seed 002: "in case of a tie, play continues until a clear winner is established." """
    bids = ["bid 3", *CUTTHROAT_BIDS[1:]]
    state, result = play_hand(preset("cutthroat"), bids, *THREE_HANDED, scores=(10, 0, 10))
    assert result.scores == (11, -3, 11)
    assert result.winner is None and not result.game_over
    assert state.phase is Phase.BIDDING


# ================================================================= partnership-five (002)
FIVE_BIDS = ["trump H", "cards -", "cards -", "cards -", "cards -"]


def test_partnership_five_the_five_of_trump_is_worth_five_to_its_pile():
    """Seed 002: "Five -- The Five of the trump suit is worth 5 points to the player or
    partnership holding that card in their scoring pile." (played by seat 2, won by seat
    1)."""
    _, result = play_hand(preset("partnership-five"), ["bid 7", "pass", "pass", "pass", *FIVE_BIDS],
                          *FIVE)
    assert awards(result) == [("high", 1, "AH"), ("low", 1, "2H"), ("jack", 0, "JH"),
                              ("game", 0, None), ("five", 1, "5H")]
    assert award_values(result)["five"] == 5
    assert result.points_won == (2, 7)
    assert result.made is True and result.score_changes == (2, 7)


def test_partnership_five_bids_two_to_nine():
    """Seed 002: "valid bids are now Pass, Two, Three, Four, Five, Six, Seven, Eight, &
    Nine"."""
    state = game(preset("partnership-five"), deal_by_tricks(*FIVE))
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(2, 10)]
    assert_illegal(state, "bid 10")
    option = game(preset("partnership-five", minimum_bid=3), deal_by_tricks(*FIVE))
    assert legal(option) == ["pass"] + [f"bid {n}" for n in range(3, 10)]


def test_partnership_five_player_may_outbid_partner():
    """Seed 002: "A player is permitted to outbid his or her partner." """
    state = game(preset("partnership-five"), deal_by_tricks(*FIVE))
    act(state, "bid 3", "pass", "bid 4", "pass")  # seat 3 outbids its partner seat 1
    assert state.pitcher == 3 and state.contract == 4


def test_partnership_five_set_back_by_the_bid():
    """Seed 002: "If a making player failed to earn at least as many points as he or she
    bid, then the value of that player's bid is subtracted from his or her score." """
    _, result = play_hand(preset("partnership-five"), ["bid 8", "pass", "pass", "pass", *FIVE_BIDS],
                          *FIVE)
    assert result.points_won == (2, 7) and result.made is False
    assert result.score_changes == (2, -8)


def test_partnership_five_making_team_at_21_wins_regardless():
    """Seed 002: "If a making team has 21 points at the end of a hand, that team wins the
    game, regardless of the other team's score." """
    _, result = play_hand(preset("partnership-five"), ["bid 7", "pass", "pass", "pass", *FIVE_BIDS],
                          *FIVE, scores=(20, 14))
    assert result.scores == (22, 21)
    assert result.winner == 1 and result.win_reason is WinReason.MAKER_AT_TARGET


def test_partnership_five_non_making_team_at_21_wins_when_makers_do_not():
    """Seed 002: "If a non-making team has 21 points at the end of a hand and a making
    team doesn't, the non-making team wins the game." """
    _, result = play_hand(preset("partnership-five"), ["bid 8", "pass", "pass", "pass", *FIVE_BIDS],
                          *FIVE, scores=(19, 0))
    assert result.scores == (21, -8)
    assert result.winner == 0 and result.win_reason is WinReason.MOST_AT_TARGET


# ==================================================================== high-low-jack (002)
def test_high_low_jack_trump_by_first_card_and_no_exchange():
    """Seed 002 (Variations): "cards are never exchanged once trump has been declared ...
    Trump is not announced; the highest bidder simply plays a card. The suit of that card
    becomes trump." """
    state = game(preset("high-low-jack"), deal_by_tricks(*FIVE))
    act(state, *PASS_ROUND)
    assert state.phase is Phase.PLAY and state.trump_suit is None and state.to_move == 1
    assert_illegal(state, "trump H")
    act(state, "play AH")
    assert state.trump_suit is Suit.HEARTS


def test_high_low_jack_five_is_worth_nothing():
    """Seed 002: "The Five of trump plays no special role and is worth no game points." """
    _, result = play_hand(preset("high-low-jack"), PASS_ROUND, *FIVE)
    assert awards(result) == [("high", 1, "AH"), ("low", 1, "2H"), ("jack", 0, "JH"),
                              ("game", 0, None)]
    assert result.points_won == (2, 2)


def test_high_low_jack_dealt_in_threes_to_teams():
    """Seed 002: "cards are dealt in threes when playing High-Low Jack. So, the dealer gives
    three to the player to the left of the dealer, three to the next, and so on until
    each player has six cards." """
    rules = preset("high-low-jack")
    assert (rules.deal.hand_size, rules.deal.deal_batch) == (6, 3)
    assert rules.parties == 2


def test_high_low_jack_defending_team_at_21_wins():
    """Seed 002 (four-player winning, which High-Low Jack follows): "If a non-making team
    has 21 points at the end of a hand and a making team doesn't, the non-making team
    wins the game." """
    _, result = play_hand(preset("high-low-jack"), ["bid 3", "pass", "pass", "pass"], *SPLIT,
                          scores=(19, 0))
    assert result.scores == (21, -3)
    assert result.winner == 0 and result.win_reason is WinReason.MOST_AT_TARGET


# =========================================================================== simple (004)
def test_simple_no_auction_eldest_hand_pitches():
    """Seed 004 (Pitch or blind all fours): "Trump is determined by the suit of the first
    card played in trick-play. Eldest hand leads to the first trick"."""
    state = game(preset("simple"), deal_by_tricks(*SPLIT))
    assert state.phase is Phase.PLAY and state.to_move == 1
    assert_illegal(state, "bid 2")
    assert_illegal(state, "pass")
    play_tricks(state, *SPLIT)
    result = state.results[0]
    assert result.pitcher == 1 and result.bid is None and result.made is None
    assert result.trump is Suit.HEARTS


def test_simple_every_party_scores_what_it_won():
    """Seed 004: "In each deal up to 4 scoring points are distributed among the parties." (no
    bid, so nobody is set back)."""
    state = game(preset("simple", **CAPTURED_LOW), deal_by_tricks(*SPLIT))
    play_tricks(state, *SPLIT)
    result = state.results[0]
    assert result.score_changes == result.points_won == (1, 2, 1, 0)


def test_simple_points_accrue_strictly_in_table_order():
    """Seed 004: "The scoring points accrue strictly in the order given in the table,
    preventing ties in case more than one team reaches the target score at the end of the
    deal." (seat 2's High and Low come before the eldest hand's Jack and Game)."""
    state = game(preset("simple", **CAPTURED_LOW), deal_by_tricks(*ORDER), scores=(0, 5, 5, 0))
    play_tricks(state, *ORDER)
    result = state.results[0]
    assert result.scores == (0, 7, 7, 0)
    assert result.winner == 2 and result.win_reason is WinReason.REACHED_TARGET


def test_simple_first_to_reach_wins_with_fewer_final_points():
    """Seed 004: "The scoring points accrue strictly in the order given in the table" (seat 2
    reaches 7 with High; seat 1 passes it later with Jack and Game but is too late)."""
    state = game(preset("simple", **CAPTURED_LOW), deal_by_tricks(*ORDER), scores=(0, 6, 6, 0))
    play_tricks(state, *ORDER)
    result = state.results[0]
    assert result.scores == (0, 8, 8, 0)
    assert result.winner == 2
    state = game(preset("simple", **CAPTURED_LOW, target=1), deal_by_tricks(*ORDER))
    play_tricks(state, *ORDER)
    assert state.results[0].scores == (0, 2, 2, 0) and state.winner == 2


def test_simple_equal_teams():
    """Seed 004: "Two or more players play individually or in equal-sized teams, seated
    alternatingly." """
    state = game(preset("simple", **CAPTURED_LOW, team_size=2), deal_by_tricks(*ORDER))
    play_tricks(state, *ORDER)
    result = state.results[0]
    assert awards(result) == [("high", 0, "AH"), ("low", 0, "3H"), ("jack", 1, "JH"),
                              ("game", 1, None)]
    assert preset("simple", **CAPTURED_LOW).win.target == 7


# ========================================================================== auction (004)
def test_auction_minimum_bid_is_one():
    """Seed 004 (Auction pitch): "A bid is the number of points that the bidder undertakes
    to win in the deal, the minimum bid being 1." """
    state = game(preset("auction"), deal_by_tricks(*SPLIT))
    assert legal(state) == ["pass", "bid 1", "bid 2", "bid 3", "bid 4"]
    act(state, "bid 1", "pass", "pass")
    assert legal(state) == ["pass", "bid 2", "bid 3", "bid 4"]  # no dealer steal


def test_auction_all_pass_same_dealer_deals_again():
    """Seed 004: "If no player bids, the deal is abandoned and the same dealer deals
    again." """
    state = game(preset("auction"), deal_by_tricks(*SPLIT), deal_by_tricks(*LONE_JACK), dealer=2)
    act(state, "pass", "pass", "pass", "pass")
    assert state.dealer == 2 and state.phase is Phase.BIDDING and state.to_move == 3
    assert "JH" in map(str, state.hand(1)) and "AH" not in map(str, state.hand(1))
    assert not state.results and state.scores == [0, 0, 0, 0]


def test_auction_pitcher_set_back_negative():
    """Seed 004: "A pitcher who did not win at least the number of points undertaken with
    the bid does not receive any of the points, and is instead set back by the amount of
    the bid. Negative scores are possible." """
    _, result = play_hand(preset("auction", **CAPTURED_LOW), ["bid 3", "pass", "pass", "pass"], *ORDER)
    assert result.points_won == (0, 2, 2, 0)
    assert result.score_changes == (0, -3, 2, 0)
    assert result.scores == (0, -3, 2, 0)


def test_auction_shoot_the_moon_made_wins_the_game():
    """Seed 004: "A bid of four (the highest possible) is known as shoot the moon, slam or
    smudge." and "A pitcher who made and wins the maximum bid is said to smudge ... Such a
    player, if not "in the hole" ..., automatically wins the entire game." """
    state, result = play_hand(preset("auction", **CAPTURED_LOW), ["bid 4", "pass", "pass", "pass"], *SLAM)
    assert result.moon is True and result.made is True
    assert result.scores == (0, 4, 0, 0)
    assert result.winner == 1 and result.win_reason is WinReason.SHOT_THE_MOON
    assert state.is_over


def test_auction_shoot_the_moon_in_the_hole_does_not_win():
    """Seed 004: "Such a player, if not "in the hole" (i.e. if the player does not have a
    negative score), automatically wins the entire game." """
    state, result = play_hand(preset("auction", **CAPTURED_LOW), ["bid 4", "pass", "pass", "pass"], *SLAM,
                              scores=(0, -2, 0, 0))
    assert result.made is True
    assert result.scores == (0, 2, 0, 0)
    assert result.winner is None and not state.is_over


def test_auction_failed_moon_is_set_back_four():
    """Seed 004: "the highest bidder must reach the number of scoring points bid or is set
    back." (a failed moon bid of 4 costs 4)."""
    state, result = play_hand(preset("auction", **CAPTURED_LOW), ["bid 4", "pass", "pass", "pass"], *ORDER)
    assert result.moon is True and result.made is False
    assert result.score_changes == (0, -4, 2, 0)
    assert not state.is_over


def test_auction_played_to_eleven_any_party_may_go_out():
    """Seed 004 (Common minor variations): "The game is often played for a number of points
    other than 11" (auction pitch's target is 11; any player reaching it wins)."""
    _, result = play_hand(preset("auction", **CAPTURED_LOW), PASS_ROUND, *SPLIT, scores=(10, 0, 0, 0))
    assert result.scores == (11, 2, 1, 0)
    assert result.winner == 0 and result.win_reason is WinReason.REACHED_TARGET
    _, short = play_hand(preset("auction", **CAPTURED_LOW), PASS_ROUND, *SPLIT, scores=(9, 0, 0, 0))
    assert short.winner is None
