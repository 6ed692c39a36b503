"""What a seat may know: the one place that decides visibility.

Everything sent to a bot (and shown to a spectator) is built here from the state, so a
leak can only come from this module, and the property tests check it.  A seat sees its
own hand and its own exchanged cards, everything public (bids, trump, plays, tricks,
scores, how many cards each seat holds or exchanged); a spectator sees only the public
part; the full view (``FULL_VIEW``) sees every hand and the stock, for logs and referees.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pitch_sdk.rules.actions import Action
from pitch_sdk.rules.cards import CARDS, Card, Suit, cards_of
from pitch_sdk.rules.events import Dealt, Event, Exchanged
from pitch_sdk.rules.records import HandResult, Trick
from pitch_sdk.rules.state import GameState, Phase

SPECTATOR = -1
"""Viewer id of someone at no seat: public information only."""
FULL_VIEW = -2
"""Viewer id that sees everything (logs, the referee, tests)."""


@dataclass(frozen=True, slots=True)
class Observation:
    """One viewer's picture of the game at a moment."""

    viewer: int
    ruleset: str
    players: int
    parties: int
    hand_number: int
    dealer: int
    phase: Phase
    to_move: int
    scores: tuple[int, ...]
    hand: tuple[Card, ...]
    """The viewer's own cards (empty for a spectator)."""
    hands: tuple[tuple[Card, ...], ...] | None
    """Every seat's cards: only in the full view."""
    hand_sizes: tuple[int, ...]
    bids: tuple[tuple[int, int | None], ...]
    """(seat, amount) in bidding order; ``None`` is a pass."""
    pitcher: int | None
    bid: int | None
    trump: Suit | None
    current_trick: tuple[tuple[int, Card], ...]
    tricks: tuple[Trick, ...]
    """Completed tricks of this hand."""
    stock_size: int
    exchanged: tuple[tuple[int, int], ...]
    """(seat, number of cards discarded and drawn), public."""
    my_discards: tuple[Card, ...]
    my_draws: tuple[Card, ...]
    last_result: HandResult | None
    legal_actions: tuple[Action, ...]
    """The viewer's legal actions when it is to move, else empty."""

    @property
    def party(self) -> int | None:
        """The viewer's party (``None`` for a spectator or the full view)."""
        return self.viewer % self.parties if self.viewer >= 0 else None


def observe(state: GameState, viewer: int) -> Observation:
    """Build ``viewer``'s observation: a seat number, ``SPECTATOR`` or ``FULL_VIEW``."""
    if viewer not in (SPECTATOR, FULL_VIEW) and not 0 <= viewer < state.players:
        raise ValueError(f"viewer {viewer} is not a seat, SPECTATOR or FULL_VIEW")
    exchanged: list[tuple[int, int]] = []
    my_discards: tuple[Card, ...] = ()
    my_draws: tuple[Card, ...] = ()
    for event in _current_hand_events(state):
        if isinstance(event, Exchanged):
            exchanged.append((event.seat, event.discarded.bit_count()))
            if event.seat == viewer:
                my_discards, my_draws = cards_of(event.discarded), cards_of(event.drawn)
    over = state.is_over
    legal = tuple(state.legal_actions()) if not over and viewer == state.to_move else ()
    return Observation(
        viewer=viewer,
        ruleset=state.rules.name,
        players=state.players,
        parties=state.parties,
        hand_number=state.hand_number,
        dealer=state.dealer,
        phase=state.phase,
        to_move=state.to_move,
        scores=tuple(state.scores),
        hand=cards_of(state.hands[viewer]) if viewer >= 0 else (),
        hands=tuple(cards_of(h) for h in state.hands) if viewer == FULL_VIEW else None,
        hand_sizes=tuple(h.bit_count() for h in state.hands),
        bids=tuple((seat, amount or None) for seat, amount in state.bids),
        pitcher=state.pitcher if state.pitcher >= 0 else None,
        bid=state.contract or None,
        trump=state.trump_suit,
        current_trick=tuple((seat, CARDS[card]) for seat, card in state.trick),
        tricks=tuple(state.tricks),
        stock_size=len(state.stock),
        exchanged=tuple(exchanged),
        my_discards=my_discards,
        my_draws=my_draws,
        last_result=state.results[-1] if state.results else None,
        legal_actions=legal,
    )


def visible_event(event: Event, viewer: int) -> dict[str, Any] | None:
    """The part of a log event ``viewer`` may see, as JSON-ready data (``None``: nothing)."""
    if viewer == FULL_VIEW:
        return event.to_dict()
    if isinstance(event, Dealt):
        data = {"event": "dealt", "hand_number": event.hand_number, "dealer": event.dealer}
        if viewer >= 0:
            data["hand"] = " ".join(c.name for c in cards_of(event.hands[viewer]))
        return data
    if isinstance(event, Exchanged) and event.seat != viewer:
        return {"event": "exchanged", "seat": event.seat, "count": event.discarded.bit_count()}
    return event.to_dict()


def _current_hand_events(state: GameState) -> list[Event]:
    """The events since the current hand's deal."""
    for index in range(len(state.history) - 1, -1, -1):
        if isinstance(state.history[index], Dealt):
            return state.history[index:]
    return []
