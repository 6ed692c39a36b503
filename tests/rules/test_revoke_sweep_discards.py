"""Seed 004's revoke penalty, all fours' side payments and the
nine-card discard rules, each an option of the ruleset."""

from __future__ import annotations

import random

import pytest
from helpers import act, awards, deal, deal_by_tricks, game, play_hand, play_tricks

from pitch_sdk.bots import HeuristicBot, RandomBot
from pitch_sdk.harness.local import play_game
from pitch_sdk.protocol.wire import hand_result_from_pb, hand_result_to_pb
from pitch_sdk.rules import GameState, IllegalActionError, InvalidRulesetError, Phase, Trick, parse_action, preset

PASS_TO_SEAT_1 = ["bid 2", "pass", "pass", "pass"]

#: Seat 1 bids 2 and leads every trick (hearts are trump); in the second trick seat 2
#: plays the 4D to the KS although it holds the 7S (played in the third trick): a revoke.
REVOKE_HAND = (
    "2H AH 4C 5C",
    "3S KS 4D 6S",
    "4S QS 7S 8S",
    "5D KH 9C 9D",
    "6D JH 10C 10D",
    "7D 10H QC QD",
)


def _revoke_rules(**options: object):  # type: ignore[no-untyped-def]
    return preset("auction", revoke_penalty=True, **options)


# ----------------------------------------------------------------------- the revoke
def test_a_revoke_is_refused_by_default():
    """Seed 004: "A player who can follow suit but discards a card of a different non-trump
    suit is punished for the revoke" - without the option the play stays refused."""
    state = game(preset("auction", revoke_penalty=False), deal_by_tricks(*REVOKE_HAND))
    act(state, *PASS_TO_SEAT_1)
    play_tricks(state, REVOKE_HAND[0])
    act(state, "play KS")
    assert [str(a) for a in state.legal_actions()] == ["play 7S"]
    with pytest.raises(IllegalActionError):
        state.apply(parse_action("play 4D"))


def test_a_revoke_is_legal_under_the_option():
    """Seed 004: "A player who can follow suit but discards a card of a different non-trump
    suit" - under ``revoke_penalty`` the discard is among the legal actions."""
    state = game(_revoke_rules(), deal_by_tricks(*REVOKE_HAND))
    act(state, *PASS_TO_SEAT_1)
    play_tricks(state, REVOKE_HAND[0])
    act(state, "play KS")
    assert {str(a) for a in state.legal_actions()} == {"play 4D", "play 7S", "play 9C", "play 10C", "play QC"}


def test_a_revoke_sets_the_revoking_player_back_by_the_bid():
    """Seed 004: "is punished for the revoke by being set back by the value of the bid" -
    seat 2 won nothing and is set back 2; the revoke is recorded with its card."""
    state, result = play_hand(_revoke_rules(), PASS_TO_SEAT_1, *REVOKE_HAND)
    assert result.bid == 2
    assert ("revoke", 2, "4D") in awards(result)
    assert next(a.value for a in result.awards if a.category.value == "revoke") == -2
    # Seat 1 made its bid (High, Jack, Game); seat 0 played the Low (to its holder).
    assert result.points_won == (1, 3, 0, 0)
    assert result.score_changes == (1, 3, -2, 0)
    assert result.made is True
    assert result.to_dict()["awards"][-1] == {"category": "revoke", "value": -2, "party": 2, "card": "4D"}
    assert state.scores == [1, 3, -2, 0]


def test_a_void_player_discarding_is_no_revoke():
    """Seed 004: "A player who *can* follow suit" - seats 2 and 3 hold no heart when the AH
    is led, so their clubs are no revoke."""
    _, result = play_hand(_revoke_rules(), PASS_TO_SEAT_1, *REVOKE_HAND)
    assert [a for a in awards(result) if a[0] == "revoke"] == [("revoke", 2, "4D")]


#: Two players: seat 1 bids 1; seat 0 wins the second trick with the KH and leads the KS,
#: to which the pitcher plays the 4D although it holds the 5S: the pitcher revokes.
PITCHER_REVOKES = ("2H AH", "KH 3C", "KS 4D", "QS 5S", "JS 6C", "10S JH")


def test_a_revoking_pitcher_is_set_back_whatever_it_won():
    """Seed 004: "set back by the value of the bid", read as a failed pitcher's set-back:
    "does not receive any of the points, and is instead set back by the amount of the bid"
    - the pitcher took 3 points for a bid of 1 and still loses 1, and has not made it."""
    _, result = play_hand(_revoke_rules(players=2), ["bid 1", "pass"], *PITCHER_REVOKES)
    assert result.points_won == (1, 3)
    assert ("revoke", 1, "4D") in awards(result)
    assert result.score_changes == (1, -1)
    assert result.made is False


def test_every_revoking_player_is_set_back():
    """Seed 004: "A player who can follow suit but discards a card of a different non-trump
    suit" - a trump lead too: seat 0 plays the 3S to the AH holding the 2H, and seat 2 the
    4D to the KS holding the 7S; each is set back by the bid, seat 0's Low forfeited."""
    hand = ("3S AH 4C 5C", "2H KS 4D 6S", *REVOKE_HAND[2:])
    _, result = play_hand(_revoke_rules(), PASS_TO_SEAT_1, *hand)
    revokes = [a for a in awards(result) if a[0] == "revoke"]
    assert revokes == [("revoke", 0, "3S"), ("revoke", 2, "4D")]
    assert result.score_changes[0] == -2 and result.score_changes[2] == -2


def test_revoke_penalty_needs_an_auction():
    """Seed 004: "set back by the value of the bid" - simple pitch has no bid."""
    with pytest.raises(InvalidRulesetError, match="revoke_penalty needs an auction"):
        preset("simple", revoke_penalty=True)


def test_the_auction_preset_punishes_revokes():
    """Seed 004, auction pitch: "A player who can follow suit but discards a card of a
    different non-trump suit is punished for the revoke" - the preset sets the option."""
    assert preset("auction").play.revoke_penalty is True
    assert preset("partnership").play.revoke_penalty is False


@pytest.mark.parametrize("follow", ["may-trump", "must-follow"])
def test_random_games_score_every_revoke(follow: str):
    """Random play under the option revokes often: every revoking party's change is minus
    the bid per revoke, and the game still ends."""
    rules = _revoke_rules(follow=follow, max_hands=40)  # random revokes keep scores low: games are long
    for seed in range(20):
        state = GameState.new(rules, seed=seed)
        state.playout(random.Random(seed))
        assert state.is_over
        for result in state.results:
            count = [0] * rules.parties
            for award in result.awards:
                if award.category.value == "revoke":
                    assert award.value == -(result.bid or 0)
                    count[award.party] += 1
            for party, revokes in enumerate(count):
                if revokes:
                    assert result.score_changes[party] == -(result.bid or 0) * revokes


def test_the_heuristic_bot_never_revokes():
    """The built-in heuristic bot keeps to the plays that follow suit or trump (a revoke
    costs the bid); a random bot asked to (``revokes=True``) revokes, and both finish the game."""
    rules = _revoke_rules()
    state = play_game(rules, [HeuristicBot(), RandomBot(revokes=True), HeuristicBot(), RandomBot(revokes=True)],
                      seed=3)
    assert state.is_over
    revokers = [a.party for r in state.results for a in r.awards if a.category.value == "revoke"]
    assert revokers and set(revokers) <= {1, 3}


# ----------------------------------------------------------------------- the sweep
#: Seat 1 takes every trick and holds every trump in play: High, Low (the 10H), Jack, Game.
SWEEP_HAND = (
    "3C AH 4C 5C",
    "3S KS 7S 6S",
    "4S QS 4D 8S",
    "5D KH 9C 9D",
    "6D JH 10C 10D",
    "7D 10H QC QD",
)


def test_a_sweep_earns_the_sweep_bonus():
    """Seed 004 (all fours): "Side payments are made for winning all four points in a
    single hand." - ``sweep_bonus=2``: seat 1 takes all four and scores 4 + 2."""
    _, result = play_hand(preset("auction", sweep_bonus=2), PASS_TO_SEAT_1, *SWEEP_HAND)
    assert result.points_won == (0, 4, 0, 0)
    assert result.score_changes == (0, 6, 0, 0)
    assert awards(result)[-1] == ("sweep", 1, None)
    assert result.awards[-1].value == 2


def test_no_sweep_bonus_by_default_or_without_all_four():
    """Seed 004: "winning all four points" - by default nothing extra; and three of the
    four (seat 0 played the Low) earn no bonus."""
    _, plain = play_hand(preset("auction"), PASS_TO_SEAT_1, *SWEEP_HAND)
    assert plain.score_changes == (0, 4, 0, 0)
    assert "sweep" not in [a[0] for a in awards(plain)]
    three = ("2H AH 4C 5C", "3S KS 7S 6S", *SWEEP_HAND[2:])
    _, result = play_hand(preset("auction", sweep_bonus=2), PASS_TO_SEAT_1, *three)
    assert result.points_won == (1, 3, 0, 0)
    assert "sweep" not in [a[0] for a in awards(result)]


def test_a_sweep_bonus_counts_towards_the_target():
    """Seed 004: "Any points won by the pitcher are counted first" - the bonus is part of
    the sweeper's score for the hand: 6 + 6 reaches 11."""
    state, result = play_hand(preset("auction", sweep_bonus=2), PASS_TO_SEAT_1, *SWEEP_HAND,
                              scores=[0, 6, 0, 0])
    assert result.game_over and result.winner == 1
    assert state.scores == [0, 12, 0, 0]


def test_sweep_bonus_is_validated_and_recorded_only():
    """A negative bonus, or a ruleset listing the recorded awards as points, is refused."""
    with pytest.raises(InvalidRulesetError, match="sweep_bonus"):
        preset("auction", sweep_bonus=-1)
    with pytest.raises(InvalidRulesetError, match="recorded by the engine"):
        preset("auction", points=["high", "low", "jack", "game", "sweep"])


# ----------------------------------------------------------------------- nine cards
#: Hearts will be trump.  Seat 1 holds two non-trumps, seat 2 five, seats 0 and 3 seven and nine.
NINE_CARDS = deal(
    "AH KH 2C 3C 4C 5C 6C 7C 8C",
    "AS KS JH 10H 9H 8H 7H 6H 5H",
    "QH 4H 3H 2H 9C 10C JC QC KC",
    "2D 3D 4D 5D 6D 7D 8D 9D 10D",
    stock="JD QD KD AD AC 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS",
)
NINE_BIDS = ("bid 2", "pass", "pass", "pass", "trump H")


def _nine(exchange: str) -> GameState:
    rules = preset("auction", trump_selection="declare", exchange=exchange, hand_size=9, refill_to=6)
    return act(game(rules, NINE_CARDS), *NINE_BIDS)


@pytest.mark.parametrize("exchange", ["non-trumps-or-all", "down-to-size"])
def test_few_non_trumps_discard_exactly_three_including_all(exchange: str):
    """Seed 004: "exactly three cards including all non-trumps" (and "include all of the
    player's non-trumps") - seat 1 holds two non-trumps: both, and one trump of its choice."""
    state = _nine(exchange)
    assert state.phase is Phase.EXCHANGE and state.to_move == 1
    rule = state.decision().card_set
    assert rule is not None and (rule.min_count, rule.max_count) == (3, 3)
    assert {str(c) for c in rule.required} == {"AS", "KS"}
    assert len(state.legal_actions()) == 7
    with pytest.raises(IllegalActionError):
        state.apply(parse_action("discard AS 5H 6H"))
    act(state, "discard AS KS 5H")
    assert len(state.hand(1)) == 6


def test_at_least_three_non_trumps_then_refilled_to_six():
    """Seed 004: "discards at least three non-trumps ... after which the dealer completes
    each hand to six cards" - seat 2 may discard three to five of its five non-trumps, no
    trump and not fewer than three; discarding all five it draws two."""
    state = _nine("non-trumps-or-all")
    act(state, "discard AS KS 5H")
    rule = state.decision().card_set
    assert rule is not None and (rule.min_count, rule.max_count) == (3, 5) and not rule.required
    assert {str(c) for c in rule.allowed} == {"9C", "10C", "JC", "QC", "KC"}
    assert len(state.legal_actions()) == 10 + 5 + 1
    for illegal in ("discard 9C 10C", "discard QH 9C 10C"):
        with pytest.raises(IllegalActionError):
            state.apply(parse_action(illegal))
    act(state, "discard 9C 10C JC QC KC")
    assert {str(c) for c in state.hand(2)} == {"QH", "4H", "3H", "2H", "JD", "QD"}
    act(state, "discard 2D 3D 4D 5D 6D 7D 8D 9D 10D", "discard 2C 3C 4C 5C 6C")
    assert [len(state.hand(s)) for s in range(4)] == [6, 6, 6, 6]
    assert state.phase is Phase.PLAY


def test_down_to_six_discards_exactly_three_non_trumps_and_draws_none():
    """Seed 004: "each player brings their hand down to six by discarding the appropriate
    number of cards. The discarded cards must all be non-trumps or include all of the
    player's non-trumps." - seat 2 discards exactly three of its five non-trumps."""
    state = _nine("down-to-size")
    act(state, "discard AS KS 5H")
    rule = state.decision().card_set
    assert rule is not None and (rule.min_count, rule.max_count) == (3, 3) and not rule.required
    assert len(state.legal_actions()) == 10
    with pytest.raises(IllegalActionError):
        state.apply(parse_action("discard 9C 10C JC QC"))
    act(state, "discard 9C 10C JC", "discard 2D 3D 4D", "discard 2C 3C 4C")
    assert [len(state.hand(s)) for s in range(4)] == [6, 6, 6, 6]
    assert len(state.stock) == 16


@pytest.mark.parametrize("exchange", ["non-trumps-or-all", "down-to-size"])
def test_nine_card_exchanges_need_refill_to(exchange: str):
    """The "six" of seed 004's nine-card exchanges is ``refill_to``: it must be given."""
    with pytest.raises(InvalidRulesetError, match="needs refill_to"):
        preset("auction", trump_selection="declare", exchange=exchange, hand_size=9)


@pytest.mark.parametrize("exchange", ["non-trumps-or-all", "down-to-size"])
def test_nine_card_exchanges_play_out_with_the_built_in_bots(exchange: str):
    """Random rollouts and the built-in bots finish games under either exchange, every
    playing hand six cards."""
    rules = preset("auction", trump_selection="declare", exchange=exchange, hand_size=9, refill_to=6,
                   max_hands=40)
    for seed in range(10):
        state = GameState.new(rules, seed=seed)
        state.playout(random.Random(seed))
        assert state.is_over
    finished = play_game(rules, [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()], seed=5)
    assert finished.is_over
    for event in finished.history:
        if isinstance(event, Trick):
            assert len(event.plays) == 4


def test_revoke_and_sweep_awards_cross_the_wire():
    """Bots see the revoke and the sweep in the hand result: both are awards, whose category
    the protocol carries as an opaque label, so no new message field is needed."""
    _, revoked = play_hand(_revoke_rules(), PASS_TO_SEAT_1, *REVOKE_HAND)
    _, swept = play_hand(preset("auction", sweep_bonus=2), PASS_TO_SEAT_1, *SWEEP_HAND)
    for result in (revoked, swept):
        assert hand_result_from_pb(hand_result_to_pb(result)) == result
