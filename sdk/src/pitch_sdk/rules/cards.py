"""Cards, suits and card sets.

A card is a small ``int`` (0..53) so that hands and piles can be bit masks: the engine's
hot loops (legal plays, trick winners) are then a few integer operations.  ``Card`` keeps
that compact value but prints and parses as the names players use: ``AS``, ``10H``,
``JC``, and ``BJ`` / ``LJ`` for the big and little joker.

Numbering: ``suit * 13 + (rank - 2)`` for the 52 suited cards (ranks 2..14, ace = 14),
then 52 = little joker, 53 = big joker.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum

from pitch_sdk.rules.errors import CardParseError


class Suit(IntEnum):
    """The four suits; the value is the suit's index in the card numbering."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """The one-letter name used in card names (``C``, ``D``, ``H``, ``S``)."""
        return "CDHS"[self]

    @property
    def is_red(self) -> bool:
        """Whether the suit is red; the off-jack is the jack of the other suit of a colour."""
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @property
    def partner(self) -> Suit:
        """The other suit of the same colour (clubs <-> spades, diamonds <-> hearts)."""
        return _SAME_COLOUR[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse ``C``/``D``/``H``/``S`` or a full suit name, case-insensitively."""
        key = text.strip().upper()
        for suit in cls:
            if key in (suit.letter, suit.name, suit.name.rstrip("S")):
                return suit
        raise CardParseError(f"unknown suit {text!r}: expected one of C, D, H, S")

    def __str__(self) -> str:
        return self.letter


#: The suits by index: ``SUITS[card // 13]`` is a card's printed suit without an enum call.
SUITS: tuple[Suit, ...] = tuple(Suit)

_SAME_COLOUR = {
    Suit.CLUBS: Suit.SPADES,
    Suit.SPADES: Suit.CLUBS,
    Suit.DIAMONDS: Suit.HEARTS,
    Suit.HEARTS: Suit.DIAMONDS,
}

#: Rank values of the suited cards, 2 (lowest) .. 14 (ace).
TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(2, 15)
RANK_NAMES = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
              11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_BY_NAME = {name: rank for rank, name in RANK_NAMES.items()} | {"T": 10, "1": 14}

LITTLE_JOKER_ID = 52
BIG_JOKER_ID = 53
DECK_SIZE = 54


class Card(int):
    """One card: an ``int`` id that reads as its name (``Card.parse("10H")``)."""

    __slots__ = ()

    @property
    def is_joker(self) -> bool:
        """Jokers have no natural suit or rank; rulesets decide where they rank."""
        return self >= LITTLE_JOKER_ID

    @property
    def suit(self) -> Suit | None:
        """The printed suit, or ``None`` for a joker (its suit in play is the trump's)."""
        return None if self >= LITTLE_JOKER_ID else Suit(self // 13)

    @property
    def rank(self) -> int | None:
        """The printed rank 2..14 (ace high), or ``None`` for a joker."""
        return None if self >= LITTLE_JOKER_ID else self % 13 + 2

    @property
    def name(self) -> str:
        """The card's short name: ``AS``, ``10H``, ``JC``, ``BJ``, ``LJ``."""
        return _NAMES[self]

    @classmethod
    def of(cls, rank: int, suit: Suit) -> Card:
        """The suited card with this rank (2..14) and suit."""
        if not 2 <= rank <= 14:
            raise CardParseError(f"rank {rank} is out of range 2..14")
        return CARDS[suit * 13 + rank - 2]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a card name; rejects anything else with the accepted forms in the message."""
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise CardParseError(f"card name must be a string, got {text!r}")
        key = text.strip().upper()
        if key in _BY_NAME:
            return _BY_NAME[key]
        rank = _RANK_BY_NAME.get(key[:-1]) if len(key) >= 2 else None
        suit = "CDHS".find(key[-1:]) if key else -1
        if rank is None or suit < 0:
            raise CardParseError(
                f"unknown card {text!r}: expected a rank (2-10, J, Q, K, A) followed by a "
                "suit (C, D, H, S), like 10H or AS, or BJ / LJ for the big / little joker"
            )
        return CARDS[suit * 13 + rank - 2]

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return _NAMES[self]


def _name(card_id: int) -> str:
    if card_id == LITTLE_JOKER_ID:
        return "LJ"
    if card_id == BIG_JOKER_ID:
        return "BJ"
    return RANK_NAMES[card_id % 13 + 2] + "CDHS"[card_id // 13]


_NAMES = tuple(_name(i) for i in range(DECK_SIZE))
#: Every card, indexed by id: ``CARDS[i]`` turns an engine id back into a ``Card``.
CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(DECK_SIZE))
_BY_NAME = {name: CARDS[i] for i, name in enumerate(_NAMES)}
LITTLE_JOKER = CARDS[LITTLE_JOKER_ID]
BIG_JOKER = CARDS[BIG_JOKER_ID]


def card_id(rank: int, suit: int) -> int:
    """The id of a suited card, for table-building code that works on plain ints."""
    return suit * 13 + rank - 2


def parse_cards(text: str | Iterable[str | int]) -> list[Card]:
    """Parse ``"AS 10H JC"`` (spaces or commas) or a list of names into cards."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [CARDS[item] if isinstance(item, int) and not isinstance(item, bool)
            and 0 <= item < DECK_SIZE else Card.parse(item)  # type: ignore[arg-type]
            for item in items]


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask of a collection of card ids."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def iter_mask(mask: int) -> Iterator[Card]:
    """The cards of a bit mask, lowest id first."""
    while mask:
        low = mask & -mask
        yield CARDS[low.bit_length() - 1]
        mask ^= low


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a bit mask as a tuple, lowest id first."""
    return tuple(iter_mask(mask))


def format_cards(cards: Iterable[int]) -> str:
    """Space-separated card names, in the order given."""
    return " ".join(_NAMES[c] for c in cards)


def suit_mask(suit: int) -> int:
    """The 13 suited cards of one suit."""
    return 0x1FFF << (13 * suit)
