"""The PIMC bot's rollout policy: play a guessed hand out fast, greedily and sensibly.

:func:`finish_hand` plays a guessed state to the end of its hand: what comes before the
first lead (the rest of the auction, trump, exchanges, the pitch) by stand-in heuristic
bots, the cards by :func:`play_hand_out`.

Uniformly random playouts make a poor judge of a card: they throw the jack under an
opponent's ace as often as they capture it, so the card that looks best against random
play is not the card that is best against real players.  This policy is what every seat
plays in a rollout: lead the top trump left in play (drawing trumps), else the cheapest
side card; follow by leaving a partner's trick alone (giving it pips), winning an
opponent's trick with the cheapest card that beats it, else throwing the cheapest card.
It looks at every hand of the guessed state, which is the point of a perfect-information
rollout, and costs a few microseconds a card.
"""

from __future__ import annotations

from collections.abc import Sequence

from pitch_sdk.bot import Bot
from pitch_sdk.bots.cardsense import RulesSense, TrumpSense
from pitch_sdk.rules import GameState, HandResult, Phase, PlayCard, observe
from pitch_sdk.rules.actions import PLAYS
from pitch_sdk.rules.tables import PIPS2

#: What a pip is worth against a point card, for choosing which card to give or keep.
PIP_VALUE = 0.02


def finish_hand(state: GameState, stand_ins: Sequence[Bot], rules: RulesSense) -> HandResult | None:
    """Play the hand of ``state`` to its scoring and return its result: the decisions up
    to and including the pitch by ``stand_ins`` (one bot per seat), the cards by
    :func:`play_hand_out`.  ``None`` if the deal is thrown in (everyone passed) or the
    game ends at its hand limit first."""
    deal, scored = state.deal_number, len(state.results)
    while state.phase is not Phase.PLAY or state.trump < 0:
        if state.is_over or state.deal_number != deal:
            return None
        seat = state.to_move
        observation = observe(state, seat)
        legal = observation.legal_actions
        state.apply(stand_ins[seat].act(observation, legal) if legal else state.default_action())
    play_hand_out(state, rules)
    return state.results[-1] if len(state.results) > scored else None


def play_hand_out(state: GameState, rules: RulesSense) -> None:
    """Finish the current hand of ``state`` (in trick play) with the greedy policy; the
    hand is scored (``state.results[-1]``)."""
    hands_before = len(state.results)
    info: TrumpSense | None = None
    while len(state.results) == hands_before and state.phase is Phase.PLAY:
        legal = [action.card for action in state.legal_actions() if isinstance(action, PlayCard)]
        if len(legal) > 1:
            if info is None and state.trump >= 0:
                info = rules.under(state.trump, state.sub_trump)
            card = _choose(state, info, legal) if info is not None else max(legal)
        else:
            card = legal[0]
        state.apply(PLAYS[card])


def _value(info: TrumpSense, card: int) -> float:
    return info.keep_value(card) + PIP_VALUE * PIPS2[card]


def _choose(state: GameState, info: TrumpSense, legal: Sequence[int]) -> int:
    table = info.table
    seat = state.to_move
    trick = state.trick
    if not trick:
        in_play = 0
        for hand in state.hands:
            in_play |= hand
        top = next((c for c in table.order if in_play >> c & 1), -1)
        if top in legal:
            return top
        side = [c for c in legal if not table.trump_mask >> c & 1] or legal
        return min(side, key=lambda c: (_value(info, c), table.power[c]))
    powers = table.lead_power[table.effective_suit[trick[0][1]]]
    winner, best = max(trick, key=lambda play: powers[play[1]])
    best_power = powers[best]
    beating = [c for c in legal if powers[c] > best_power]
    if winner % state.parties == seat % state.parties:
        under = [c for c in legal if c not in beating] or legal
        return max(under, key=lambda c: (_value(info, c) - 0.1 * table.power[c], -c))
    if beating:
        return min(beating, key=lambda c: (table.power[c], c))
    return min(legal, key=lambda c: (_value(info, c), table.power[c]))
