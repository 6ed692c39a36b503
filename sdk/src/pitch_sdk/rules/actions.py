"""Actions: the decisions a player makes, as small immutable values.

Every action has a short text form (``"bid 3"``, ``"pass"``, ``"trump H"``,
``"play 10H"``, ``"cards 2C 7D"``, ``"call AS"``, ``"yes"``, ``"muck"``) used in scenarios, logs and
bug reports; :func:`parse_action` reads it back.  The frequent ones (plays, passes, bids)
are shared instances so that listing legal actions allocates nothing in the hot loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pitch_sdk.rules.cards import CARDS, Card, Suit, format_cards, iter_mask, parse_cards
from pitch_sdk.rules.errors import ActionParseError, RulesError


class DecisionKind(StrEnum):
    """What the player to move is asked to decide."""

    BID = "bid"
    """Pass or bid (numbers, and special bids such as shoot the moon)."""
    DECLARE_TRUMP = "declare-trump"
    """Name the trump suit."""
    CALL_CARD = "call-card"
    """Name a card (e.g. the card whose holder becomes partner)."""
    CHOOSE_CARDS = "choose-cards"
    """Choose a set of cards: discard, burn, keep."""
    PLAY = "play"
    """Play a card to the trick."""
    CHOICE = "choice"
    """Answer yes or no (look at the hand, take an offered card, pass the leftovers)."""
    MUCK = "muck"
    """Lay a hand dealt no point cards face down, or keep it (seed 004: players "may lay
    their cards face down"); a kind of its own, not a ``CHOICE``, so a bot that answers
    every yes/no question with yes does not throw its hand in unawares."""


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline to bid."""

    kind = DecisionKind.BID

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid ``amount`` points (the ruleset says which amounts are special bids, such as
    shoot the moon); a ``double`` bid ("6 for 12", seed 004's Oklahoma ten-point) wins or
    loses twice the amount."""

    amount: int
    double: bool = False
    kind = DecisionKind.BID

    @property
    def stakes(self) -> int:
        """What the bid scores when made, or costs when set."""
        return self.amount * 2 if self.double else self.amount

    def __str__(self) -> str:
        return f"bid {self.amount} for {self.stakes}" if self.double else f"bid {self.amount}"


@dataclass(frozen=True, slots=True)
class Coke:
    """Seed 004's Scranton rule: with every card below ten, show the hand, take five fresh
    cards and stay out of the auction."""

    kind = DecisionKind.BID

    def __str__(self) -> str:
        return "coke"


@dataclass(frozen=True, slots=True)
class DeclareTrump:
    """Name the trump suit."""

    suit: Suit
    kind = DecisionKind.DECLARE_TRUMP

    def __str__(self) -> str:
        return f"trump {self.suit.letter}"


@dataclass(frozen=True, slots=True)
class CallCard:
    """Name one card."""

    card: Card
    kind = DecisionKind.CALL_CARD

    def __str__(self) -> str:
        return f"call {self.card}"


@dataclass(frozen=True, slots=True)
class ChooseCards:
    """Choose a set of cards (what the set means depends on the decision asked)."""

    cards: frozenset[Card]
    kind = DecisionKind.CHOOSE_CARDS

    def __str__(self) -> str:
        return "cards " + (format_cards(sorted(self.cards)) or "-")


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play a card to the current trick."""

    card: Card
    kind = DecisionKind.PLAY

    def __str__(self) -> str:
        return f"play {self.card}"


@dataclass(frozen=True, slots=True)
class Choose:
    """Answer a yes/no question."""

    yes: bool
    kind = DecisionKind.CHOICE

    def __str__(self) -> str:
        return "yes" if self.yes else "no"


@dataclass(frozen=True, slots=True)
class MuckHand:
    """Lay the hand face down (``muck``), or keep it: asked of a seat dealt no point cards
    where the ruleset's ``muck`` option lets it (seed 004)."""

    muck: bool
    kind = DecisionKind.MUCK

    def __str__(self) -> str:
        return "muck" if self.muck else "keep"


Action = Pass | Bid | Coke | DeclareTrump | CallCard | ChooseCards | PlayCard | Choose | MuckHand

PASS = Pass()
COKE = Coke()
YES = Choose(True)
NO = Choose(False)
KEEP_HAND = MuckHand(False)
MUCK_HAND = MuckHand(True)
#: ``PLAYS[card_id]`` is the shared ``PlayCard`` for that card.
PLAYS: tuple[PlayCard, ...] = tuple(PlayCard(card) for card in CARDS)
#: ``CALLS[card_id]`` is the shared ``CallCard`` for that card.
CALLS: tuple[CallCard, ...] = tuple(CallCard(card) for card in CARDS)
#: ``BIDS[n]`` is the shared ``Bid(n)``.
BIDS: tuple[Bid, ...] = tuple(Bid(n) for n in range(64))
TRUMPS: tuple[DeclareTrump, ...] = tuple(DeclareTrump(suit) for suit in Suit)


def bid(amount: int, double: bool = False) -> Bid:
    """The shared ``Bid`` instance for small straight amounts, a new one otherwise."""
    return BIDS[amount] if 0 <= amount < len(BIDS) and not double else Bid(amount, double)


_ALL_CARDS = (1 << len(CARDS)) - 1


def choose_cards(cards: int | Any) -> ChooseCards:
    """A ``ChooseCards`` from a bit mask or an iterable of cards."""
    if isinstance(cards, int):
        members = frozenset(iter_mask(cards & _ALL_CARDS))  # set bits only: once per listed card set
    else:
        members = frozenset(CARDS[int(c)] for c in cards)
    return ChooseCards(members)


def parse_action(text: str | Action) -> Action:
    """Read an action's text form; rejects anything else with the accepted forms listed."""
    if isinstance(text, (Pass, Bid, Coke, DeclareTrump, CallCard, ChooseCards, PlayCard, Choose, MuckHand)):
        return text
    if not isinstance(text, str):
        raise ActionParseError(f"an action must be text like 'bid 3' or 'play 10H', got {text!r}")
    words = text.strip().split()
    if not words:
        raise ActionParseError("empty action")
    verb, args = words[0].lower(), words[1:]
    try:
        if verb == "pass" and not args:
            return PASS
        if verb == "coke" and not args:
            return COKE
        if verb in ("yes", "no") and not args:
            return YES if verb == "yes" else NO
        if verb in ("muck", "keep") and not args:
            return MUCK_HAND if verb == "muck" else KEEP_HAND
        if verb == "bid" and len(args) == 1:
            return bid(int(args[0]))
        if verb == "bid" and len(args) == 3 and args[1].lower() == "for":
            amount, stakes = int(args[0]), int(args[2])
            if stakes != 2 * amount:
                raise ActionParseError(f"bad action {text!r}: a double bid of {amount} is 'bid {amount} "
                                       f"for {2 * amount}'")
            return bid(amount, double=True)
        if verb == "trump" and len(args) == 1:
            return TRUMPS[Suit.parse(args[0])]
        if verb == "play" and len(args) == 1:
            return PLAYS[Card.parse(args[0])]
        if verb == "call" and len(args) == 1:
            return CALLS[Card.parse(args[0])]
        if verb in ("cards", "discard", "burn", "keep"):
            return choose_cards(parse_cards([] if args == ["-"] else args))
    except (ValueError, RulesError) as exc:
        raise ActionParseError(f"bad action {text!r}: {exc}") from None
    raise ActionParseError(
        f"unknown action {text!r}: expected 'pass', 'bid N', 'bid N for 2N', 'coke', 'trump S', 'play CARD', "
        "'call CARD', 'cards CARD...' (or 'cards -' for none), 'yes', 'no', 'muck' or 'keep'"
    )
