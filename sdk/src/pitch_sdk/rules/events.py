"""The event log: one record per thing that happened in a game, in order.

The log is the match record (replays, disputes, golden files).  Card plays are recorded
by the completed :class:`~pitch_sdk.rules.records.Trick` (and in ``GameState.moves``), not
one event per card, to keep the trick loop cheap.  Some events hold hidden
information (the deal, exchanged cards); :mod:`pitch_sdk.rules.observation` decides what
each seat may see of them.  Cards are stored as ids; ``to_dict`` names them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pitch_sdk.rules.cards import CARDS, Suit, cards_of, format_cards
from pitch_sdk.rules.records import HandResult, Trick, shared_builder, tuple_builder


class Dealt(NamedTuple):
    """A deal: each seat's hand (bit masks) and the stock in draw order."""

    hand_number: int
    dealer: int
    hands: tuple[int, ...]
    stock: tuple[int, ...]
    blind: bool = False
    """Players may bid before looking (``look_option``): nobody is shown a hand yet."""

    def to_dict(self) -> dict[str, Any]:
        return {"event": "dealt", "hand_number": self.hand_number, "dealer": self.dealer,
                "hands": [format_cards(cards_of(h)) for h in self.hands],
                "stock": format_cards(self.stock)}


class BidMade(NamedTuple):
    """A seat bid ``amount`` (``0`` means it passed); ``double``: "6 for 12"."""

    seat: int
    amount: int
    double: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"event": "bid", "seat": self.seat, "amount": self.amount or None}
        if self.double:
            data["double"] = True
        return data


class AllPassed(NamedTuple):
    """Everybody passed: the same dealer deals again, or the deal passes left with every
    hand ``shown`` face up (seed 004, nine-five's variant: "to prove the lack of a forced
    bid")."""

    hand_number: int
    dealer: int
    shown: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"event": "all-passed", "hand_number": self.hand_number, "dealer": self.dealer}
        if self.shown:
            data["shown"] = [format_cards(cards_of(hand)) for hand in self.shown]
        return data


class TrumpSet(NamedTuple):
    """Trump became ``suit``: declared, or pitched by the first lead; ``sub``: the suit is
    the sub-trump (two-trump pitch)."""

    seat: int
    suit: Suit
    pitched: bool
    sub: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"event": "sub-trump" if self.sub else "trump", "seat": self.seat,
                                "suit": self.suit.letter}
        if not self.sub:
            data["pitched"] = self.pitched
        return data


class Exchanged(NamedTuple):
    """A seat discarded ``discarded`` and drew ``drawn`` (bit masks, hidden from others,
    except the discards where ``face_up``: the ruleset's ``discards_face_up``, seed 004's
    Kentucky seven-point).  The flag rides on the event so that everything that shows an
    event (:func:`~pitch_sdk.rules.observation.visible_event`, the wire's event stream and
    its per-event caches) decides from the event alone."""

    seat: int
    discarded: int
    drawn: int
    face_up: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"event": "exchanged", "seat": self.seat,
                "discarded": format_cards(cards_of(self.discarded)),
                "drawn": format_cards(cards_of(self.drawn))}


class Looked(NamedTuple):
    """Before acting in the auction a seat chose to look at its hand, or to bid blind."""

    seat: int
    looked: bool

    def to_dict(self) -> dict[str, Any]:
        return {"event": "looked" if self.looked else "blind", "seat": self.seat}


class Coked(NamedTuple):
    """A seat declared coke (Scranton rule), showing its hand: ``cards`` (a bit mask)."""

    seat: int
    cards: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": "coke", "seat": self.seat, "cards": format_cards(cards_of(self.cards))}


class PartnerCalled(NamedTuple):
    """The bidder called ``card``: its holder is the bidder's partner for this hand (who
    that is stays hidden until the card is played)."""

    seat: int
    card: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": "partner-called", "seat": self.seat, "card": CARDS[self.card].name}


class Burned(NamedTuple):
    """A seat burned ``cards`` (a bit mask) down to its playing hand; burned cards are
    shown, since some variants score them."""

    seat: int
    cards: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": "burned", "seat": self.seat, "cards": format_cards(cards_of(self.cards))}


class MuckShown(NamedTuple):
    """A mucked hand shown to the table (seed 004: "The cards can be checked by the other
    players after the hand has been played"): logged after the hand for a seat that took a
    new hand; at once, as the deal is thrown in, for one that asked for a ``redeal``."""

    seat: int
    cards: int
    redeal: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"event": "muck-shown", "seat": self.seat,
                                "cards": format_cards(cards_of(self.cards))}
        if self.redeal:
            data["redeal"] = True
        return data


class HandScored(NamedTuple):
    """A hand was scored."""

    result: HandResult

    def to_dict(self) -> dict[str, Any]:
        return {"event": "hand-scored", **self.result.to_dict()}


Event = (Dealt | Looked | BidMade | Coked | AllPassed | TrumpSet | PartnerCalled | Exchanged | Burned | Trick
         | HandScored | MuckShown)


# Built in C (see records.tuple_builder): one deal, one trump, several bids, one hand
# scored a hand; bids and trumps repeat, so they are shared.
new_dealt = tuple_builder(Dealt)
new_bid_made = shared_builder(BidMade)
new_trump_set = shared_builder(TrumpSet)
new_hand_scored = tuple_builder(HandScored)
