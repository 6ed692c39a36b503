"""``determinize``: a trick-play state rebuilt from one seat's observation and a guess of
the hands, for search bots.  Rebuilt with the real hands it is the real game;
a guess the tricks contradict is refused by the engine's own following rules."""

from __future__ import annotations

import random

import pytest

from pitch_sdk.rules import CARDS, Deal, GameState, IllegalActionError, Phase, observe, preset
from pitch_sdk.rules.cards import cards_of
from pitch_sdk.rules.determinize import determinize, determinize_auction
from pitch_sdk.rules.events import Dealt


def mid_hand(name: str, seed: int, tricks: int) -> GameState:
    """A random game of ``name`` stopped in trick play after ``tricks`` whole tricks and
    one more card."""
    state = GameState.new(preset(name), seed=seed)
    rng = random.Random(seed)
    while not (state.phase is Phase.PLAY and len(state.tricks) == tricks and len(state.trick) == 1):
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("name", ["partnership", "cutthroat", "ten-point", "five-handed", "two-trump", "barn"])
def test_the_real_hands_rebuild_the_real_game(name: str):
    """Same mover, legal cards, trump, tricks and scores; and the rest of the hand played
    the same way scores the same on both."""
    for seed in range(4):
        real = mid_hand(name, seed, tricks=2)
        observation = observe(real, real.to_move)
        rebuilt = determinize(real.rules, observation, list(real.hands))
        assert rebuilt.to_move == real.to_move
        assert rebuilt.legal_actions() == real.legal_actions()
        assert (rebuilt.trump, rebuilt.sub_trump, rebuilt.tricks, rebuilt.trick, rebuilt.scores) == \
            (real.trump, real.sub_trump, real.tricks, real.trick, real.scores)
        for state in (real, rebuilt):
            scored = len(state.results)
            while len(state.results) == scored:
                state.apply(state.legal_actions()[0])
        assert rebuilt.results[-1].score_changes == real.results[-1].score_changes
        assert rebuilt.results[-1].awards == real.results[-1].awards


def test_a_guess_giving_a_seat_the_suit_it_failed_to_follow_is_refused():
    """Seed 001: "If the lead is not a trump, a player who has a card of the led suit must
    either follow suit or play a trump ... If you have none of that suit, you may play any
    card." A seat that played another plain suit held none of the suit led."""
    rules = preset("partnership")
    for seed in range(40):
        real = mid_hand("partnership", seed, tricks=3)
        table = real._table
        assert table is not None
        for trick in real.tricks:
            led = table.effective_suit[trick.plays[0][1]]
            for seat, card in trick.plays[1:]:
                if seat == real.to_move or table.effective_suit[card] == led or table.trump_mask >> card & 1:
                    continue
                donor = next((s for s in range(4) if s not in (seat, real.to_move)
                              and real.hands[s] & table.suit_masks[led]), None)
                if donor is None:
                    continue
                given = real.hands[donor] & table.suit_masks[led] & -(real.hands[donor] & table.suit_masks[led])
                taken = real.hands[seat] & -real.hands[seat]
                hands = list(real.hands)
                hands[seat] = hands[seat] ^ taken | given  # the revoker now holds the suit led
                hands[donor] = hands[donor] ^ given | taken
                with pytest.raises(IllegalActionError):
                    determinize(rules, observe(real, real.to_move), hands)
                return
    pytest.fail("no game of 40 had a seat fail to follow: the test checked nothing")


def test_outside_trick_play_it_refuses():
    state = GameState.new(preset("partnership"), seed=1)
    with pytest.raises(ValueError, match="trick-play"):
        determinize(state.rules, observe(state, state.to_move), list(state.hands))


@pytest.mark.parametrize("name", ["partnership", "cutthroat", "ten-point", "oklahoma-ten", "abacos"])
def test_the_real_deal_rebuilds_the_auction(name: str):
    """``determinize_auction`` on the deal that was dealt: the same decision, the same
    legal answers, and the same game from there on whatever is played."""
    rules = preset(name)
    rebuilt_any = False
    for seed in range(6):
        real = GameState.new(rules, seed=seed)
        rng = random.Random(seed)
        while not (real.phase in (Phase.BIDDING, Phase.DECLARE_TRUMP) and real.bids and real.looked[real.to_move]):
            if real.phase is Phase.PLAY:
                break
            real.apply(rng.choice(real.legal_actions()))
        if real.phase not in (Phase.BIDDING, Phase.DECLARE_TRUMP):
            continue
        dealt = next(e for e in reversed(real.history) if isinstance(e, Dealt))
        deal = Deal(tuple(cards_of(h) for h in dealt.hands), tuple(CARDS[c] for c in dealt.stock))
        rebuilt = determinize_auction(rules, observe(real, real.to_move), deal)
        assert (rebuilt.phase, rebuilt.to_move, rebuilt.legal_actions()) == \
            (real.phase, real.to_move, real.legal_actions())
        assert (rebuilt.hands, rebuilt.bids, rebuilt.scores) == (real.hands, real.bids, real.scores)
        rebuilt_any = True
    assert rebuilt_any


def test_a_deal_that_does_not_give_the_viewer_its_hand_is_refused():
    real = GameState.new(preset("partnership"), seed=2)
    hands = [cards_of(h) for h in real.hands]
    hands[real.to_move], hands[(real.to_move + 1) % 4] = hands[(real.to_move + 1) % 4], hands[real.to_move]
    with pytest.raises(ValueError, match="does not lead"):
        determinize_auction(real.rules, observe(real, real.to_move), Deal(tuple(hands), tuple(real.stock)))
