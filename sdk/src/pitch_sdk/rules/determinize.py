"""A game state from one seat's observation, the hidden cards filled in: for search bots.

A seat does not see the other hands, so a bot that searches ahead (perfect-information
Monte Carlo, :mod:`pitch_sdk.bots.pimc`) guesses them, many times over, and plays each
guess out on a real :class:`GameState`.  :func:`determinize` builds that state: the hand's
public facts (dealer, scores, contract, trump, called card, burns, cokes) from the
observation, the hands from the guess, then every card played this hand replayed through
:meth:`GameState.apply`.  The replay is the consistency check: a guess that gives a seat a
card it could not have held when it failed to follow raises
:class:`~pitch_sdk.rules.errors.IllegalActionError`, so the engine, not the bot, decides
what the tricks prove.  :func:`determinize_auction` does the same during the auction, from
a guessed deal: nothing but the bids has happened, so the bids are replayed.
"""

from __future__ import annotations

from collections.abc import Sequence

from pitch_sdk.rules.actions import NO, PASS, PLAYS, YES, bid
from pitch_sdk.rules.deal import Deal
from pitch_sdk.rules.observation import Observation
from pitch_sdk.rules.ruleset import Ruleset, TrumpSelection
from pitch_sdk.rules.state import GameState, Phase


def determinize(rules: Ruleset, observation: Observation, hands: Sequence[int]) -> GameState:
    """The state ``observation`` was taken in, if each seat now held ``hands[seat]`` (bit
    masks; the viewer's own must be its real hand).

    Raises ``ValueError`` outside trick play and
    :class:`~pitch_sdk.rules.errors.IllegalActionError` when ``hands`` contradict the
    tricks played.  The state knows the current game's scores but not its earlier hands,
    so a hand limit (``max_hands``) counts from this hand."""
    obs = observation
    if obs.phase is not Phase.PLAY:
        raise ValueError(f"determinize needs a trick-play observation, got phase {obs.phase}")
    if len(hands) != rules.players:
        raise ValueError(f"{len(hands)} hands for {rules.players} players")
    plays = [play for trick in obs.tricks for play in trick.plays] + list(obs.current_trick)
    start = list(hands)
    for seat, card in plays:
        start[seat] |= 1 << card
    state = GameState(rules, dealer=obs.dealer)
    state.scores = list(obs.scores)
    state.hand_number = state.deal_number = obs.hand_number
    state.hands, state.stock = start, []
    state.bids = [(seat, amount or 0) for seat, amount in obs.bids]
    state.looked = list(obs.looked) or state.looked
    state.pitcher = obs.pitcher if obs.pitcher is not None else state.pitcher
    state.high_bidder = state.pitcher
    state.high_bid = state.contract = obs.bid or 0
    state.doubled = state.high_double = obs.doubled
    for seat, cards in obs.burned:
        for card in cards:
            state._burned[seat] |= 1 << card
    for seat, _ in obs.cokes:
        state._coke_mask |= 1 << seat
    if obs.trump is not None and rules.trump.trump_selection is TrumpSelection.DECLARE:
        state._set_trump(state.pitcher, obs.trump, pitched=False)  # a pitched trump is set by the replayed lead
    if obs.sub_trump is not None and state.trump >= 0:
        state._set_sub_trump(state.pitcher, obs.sub_trump)
    if obs.called_card is not None:
        state._seat_partner(state.pitcher, int(obs.called_card))
    state._legal_list = state._choices = None
    state._start_play()
    for seat, card in plays:
        if state.to_move != seat:
            raise ValueError(f"the replay has seat {state.to_move} to play where seat {seat} played")
        state.apply(PLAYS[card])
    if state.to_move != obs.to_move:  # e.g. the called card's holder, who leads, is not the seat that led
        raise ValueError(f"these hands put seat {state.to_move} to move, not seat {obs.to_move}")
    return state


def determinize_auction(rules: Ruleset, observation: Observation, deal: Deal) -> GameState:
    """The state of ``observation`` (a bid, or naming trump straight after the auction) had
    ``deal`` been dealt: the game's scores, then the looks and bids so far replayed.

    Raises ``ValueError`` when the deal does not lead there: it was thrown in or mucked
    (seed 004's muck), a coke drew a fresh hand, the viewer's hand is not its own, or the
    decision comes after more than the auction (a widow, lost cards)."""
    obs = observation
    if obs.cokes or obs.hand_hidden or obs.phase not in (Phase.BIDDING, Phase.DECLARE_TRUMP):
        raise ValueError(f"determinize_auction cannot rebuild a {obs.phase} decision from its deal")
    state = GameState.from_deals(rules, [deal], dealer=obs.dealer)
    state.scores = list(obs.scores)
    doubles = obs.bid_doubles or (False,) * len(obs.bids)
    for (seat, amount), double in zip(obs.bids, doubles, strict=True):
        if state.phase is Phase.LOOK:
            state.apply(YES if obs.looked[seat] else NO)
        if state.to_move != seat or state.phase is not Phase.BIDDING:
            raise ValueError(f"the replayed auction has seat {state.to_move} to bid where seat {seat} bid")
        state.apply(bid(amount, double) if amount else PASS)
    if state.phase is Phase.LOOK:
        state.apply(YES if obs.looked[state.to_move] else NO)
    if (state.phase, state.to_move) != (obs.phase, obs.viewer) or \
            state.hands[obs.viewer] != sum(1 << card for card in obs.hand):
        raise ValueError("this deal does not lead to the observed decision")
    return state
