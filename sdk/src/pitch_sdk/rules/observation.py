"""What a seat may know: the one place that decides visibility.

Everything sent to a bot (and shown to a spectator) is built here from the state, so a
leak can only come from this module, and the property tests check it.  A seat sees its
own hand (once it has looked at it, where players may bid blind) and its own exchanged,
drawn or lost cards, everything public (bids, trump, plays, tricks, scores, burned cards,
a coke hand shown, the called card, how many cards each seat holds or exchanged, the
discards themselves where the ruleset lays them face up); a
spectator sees only the public part; the full view (``FULL_VIEW``) sees every hand and
the stock, for logs and referees.  Who holds a called card stays hidden until it is
played, except from its holder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from pitch_sdk.rules.actions import Action
from pitch_sdk.rules.cards import CARDS, SUITS, Card, Suit, cards_of, format_cards
from pitch_sdk.rules.events import BidMade, Burned, Coked, Dealt, Event, Exchanged
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
    legal_actions: Sequence[Action]
    """The viewer's legal actions when it is to move, else empty; for a card-set decision
    too large to list (``GameState.listed_actions``), empty from :func:`observe` and a
    lazy :class:`~pitch_sdk.rules.cardsets.CardSetChoices` where a bot receives it."""
    sub_trump: Suit | None = None
    """The sub-trump suit (two-trump pitch)."""
    doubled: bool = False
    """The contract is a double bid ("6 for 12")."""
    called_card: Card | None = None
    """The card the bidder called to pick a partner (five-handed, call for partner)."""
    partner: int | None = None
    """The called card's holder, when the viewer may know it: the holder itself, everyone
    once the card is played, the full view always."""
    looked: tuple[bool, ...] = ()
    """Per seat, whether it has looked at its hand (public: the table sees it)."""
    hand_hidden: bool = False
    """The viewer has not looked at its hand yet: ``hand`` is empty, ``hand_sizes`` counts."""
    burned: tuple[tuple[int, tuple[Card, ...]], ...] = ()
    """(seat, cards) burned this hand, shown to everyone."""
    cokes: tuple[tuple[int, tuple[Card, ...]], ...] = ()
    """(seat, the six cards shown) for each coke declared this hand (Scranton rule)."""
    offered: Card | None = None
    """The lost card the viewer (the high bidder) is offered now (man-o-war)."""
    bid_doubles: tuple[bool, ...] = ()
    """Parallel to ``bids``: which were double bids ("6 for 12")."""
    face_up_discards: tuple[tuple[Card, ...], ...] = ()
    """Parallel to ``exchanged`` where the ruleset lays discards face up (``discards_face_up``,
    seed 004's Kentucky seven-point: "players discard non-trump cards face up in the center
    of the table"): the cards each exchange laid down, seen by every viewer (an exchange
    not laid face up shows ``()``).  Empty while no card lies face up.  The cards drawn
    stay the drawer's own (``my_draws``)."""

    @property
    def party(self) -> int | None:
        """The viewer's party (``None`` for a spectator or the full view)."""
        return self.viewer % self.parties if self.viewer >= 0 else None


_SUMMARISED = frozenset({Exchanged, Burned, Coked})
"""The event types an observation gathers from the current hand, besides the bids."""
_face_up_cards = lru_cache(maxsize=1024)(cards_of)
"""``cards_of`` for face-up discards: a hand's few discard masks recur in every observation
until the next deal, so each is decoded once rather than at every decision."""


def observe(state: GameState, viewer: int, legal_actions: tuple[Action, ...] | None = None) -> Observation:
    """Build ``viewer``'s observation: a seat number, ``SPECTATOR`` or ``FULL_VIEW``.

    A caller that holds the viewer's pending decision already passes its
    ``legal_actions`` (:meth:`GameState.decision`'s), so that they are not listed twice:
    the referee does at every decision."""
    if viewer not in (SPECTATOR, FULL_VIEW) and not 0 <= viewer < state.players:
        raise ValueError(f"viewer {viewer} is not a seat, SPECTATOR or FULL_VIEW")
    summary = hand_summary(state.history, viewer)
    over = state.is_over
    if legal_actions is None:
        legal_actions = state.listed_actions() if not over and viewer == state.to_move else ()
    hidden = is_hidden(viewer, state.looked, state.phase)
    return Observation(  # positionally, in the fields' order: a third cheaper than by keyword
        viewer,  # viewer
        state.rules.name,  # ruleset
        state.players,  # players
        state.parties,  # parties
        state.hand_number,  # hand_number
        state.dealer,  # dealer
        state.phase,  # phase
        state.to_move,  # to_move
        tuple(state.scores),  # scores
        cards_of(state.hands[viewer]) if viewer >= 0 and not hidden else (),  # hand
        tuple(cards_of(h) for h in state.hands) if viewer == FULL_VIEW else None,  # hands
        tuple(h.bit_count() for h in state.hands),  # hand_sizes
        tuple((seat, amount or None) for seat, amount in state.bids),  # bids
        state.pitcher if state.pitcher >= 0 else None,  # pitcher
        state.contract or None,  # bid
        None if state.trump < 0 else SUITS[state.trump],  # trump
        tuple((seat, CARDS[card]) for seat, card in state.trick),  # current_trick
        tuple(state.tricks),  # tricks
        len(state.stock),  # stock_size
        summary.exchanged,  # exchanged
        summary.my_discards,  # my_discards
        summary.my_draws,  # my_draws
        state.results[-1] if state.results else None,  # last_result
        legal_actions,  # legal_actions
        None if state.sub_trump < 0 else SUITS[state.sub_trump],  # sub_trump
        state.doubled,  # doubled
        CARDS[state.called] if state.called >= 0 else None,  # called_card
        known_partner(state.partner, state.called, state.tricks, state.trick, viewer),  # partner
        tuple(state.looked),  # looked
        hidden,  # hand_hidden
        summary.burned,  # burned
        summary.cokes,  # cokes
        CARDS[state.offered] if state.offered >= 0 and viewer == state.to_move else None,  # offered
        summary.bid_doubles,  # bid_doubles
        summary.face_up_discards,  # face_up_discards
    )


def is_hidden(viewer: int, looked: Sequence[bool], phase: Phase) -> bool:
    """Whether ``viewer`` is a seat that has not looked at its hand yet (bidding blind)."""
    return viewer >= 0 and not looked[viewer] and phase in (Phase.LOOK, Phase.BIDDING)


def known_partner(partner: int, card: int, tricks: Sequence[Trick], trick: Sequence[tuple[int, int]],
                  viewer: int) -> int | None:
    """The called card's holder if ``viewer`` may know it: seed 003's bidder learns its
    partner only when the called card is played.  ``partner`` and ``card`` are the state's
    (-1: none), ``tricks`` the hand's completed tricks and ``trick`` the one in play."""
    if partner < 0:
        return None
    if viewer in (FULL_VIEW, partner):
        return partner
    played = any(c == card for done in tricks for _, c in done.plays) or any(
        c == card for _, c in trick)
    return partner if played else None


class HandSummary(NamedTuple):
    """The observation's fields gathered from the current hand's events."""

    exchanged: tuple[tuple[int, int], ...]
    face_up_discards: tuple[tuple[Card, ...], ...]
    my_discards: tuple[Card, ...]
    my_draws: tuple[Card, ...]
    burned: tuple[tuple[int, tuple[Card, ...]], ...]
    cokes: tuple[tuple[int, tuple[Card, ...]], ...]
    bid_doubles: tuple[bool, ...]


_NO_HAND = HandSummary((), (), (), (), (), (), ())
"""The summary before the first deal."""


def hand_summary(history: Sequence[Event], viewer: int, end: int | None = None) -> HandSummary:
    """What ``viewer`` sees of the current hand's bids, exchanges, burns and cokes: the events
    of a game's ``history`` (up to ``end``, default all) since the hand's deal."""
    doubles: list[bool] = []
    events: list[Event] = []  # the others, latest first
    for index in range((len(history) if end is None else end) - 1, -1, -1):  # back to the deal
        event = history[index]
        kind = type(event)  # the event types are final: cheaper than isinstance
        if kind is Dealt:
            break
        if kind is BidMade:
            doubles.append(event.double)  # type: ignore[union-attr]
        elif kind in _SUMMARISED:  # most of a hand's events (tricks...): one look-up
            events.append(event)
    else:
        return _NO_HAND  # no deal yet
    doubles.reverse()
    if not events:  # most hands: bids and tricks only
        return HandSummary((), (), (), (), (), (), tuple(doubles))
    events.reverse()
    exchanged: list[tuple[int, int]] = []
    face_up: list[tuple[Card, ...]] = []
    my_discards = my_draws = 0
    burned: list[tuple[int, tuple[Card, ...]]] = []
    cokes: list[tuple[int, tuple[Card, ...]]] = []
    for event in events:
        if isinstance(event, Exchanged):
            exchanged.append((event.seat, event.discarded.bit_count()))
            face_up.append(_face_up_cards(event.discarded) if event.face_up else ())
            if event.seat == viewer:
                my_discards |= event.discarded
                my_draws |= event.drawn
        elif isinstance(event, Burned):
            burned.append((event.seat, cards_of(event.cards)))
        elif isinstance(event, Coked):
            cokes.append((event.seat, cards_of(event.cards)))
    return HandSummary(tuple(exchanged), tuple(face_up) if any(face_up) else (),
                       cards_of(my_discards) if my_discards else (), cards_of(my_draws) if my_draws else (),
                       tuple(burned), tuple(cokes), tuple(doubles))


def visible_event(event: Event, viewer: int) -> dict[str, Any] | None:
    """The part of a log event ``viewer`` may see, as JSON-ready data (``None``: nothing)."""
    if viewer == FULL_VIEW:
        return event.to_dict()
    if isinstance(event, Dealt):
        data = {"event": "dealt", "hand_number": event.hand_number, "dealer": event.dealer}
        if viewer >= 0 and not event.blind:  # a blind deal is seen in the observation, after looking
            data["hand"] = " ".join(c.name for c in cards_of(event.hands[viewer]))
        return data
    if isinstance(event, Exchanged) and event.seat != viewer:
        # the discards are named where laid face up (seed 004's Kentucky), else counted
        discarded = format_cards(cards_of(event.discarded)) if event.face_up else event.discarded.bit_count()
        return {"event": "exchanged", "seat": event.seat, "discarded": discarded, "drawn": event.drawn.bit_count()}
    return event.to_dict()
