"""Precomputed per-trump lookup tables: which cards are trumps and how cards rank.

Once trump is known, "which suit does this card follow", "does it beat the best card so
far" and "which trump is High" are array and bit-mask lookups.  Tables depend only on the
deck options and the trump suit, so they are built once per combination and cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from pitch_sdk.rules.actions import PLAYS, PlayCard
from pitch_sdk.rules.cards import (
    ACE,
    BIG_JOKER_ID,
    DECK_SIZE,
    FIVE,
    JACK,
    KING,
    LITTLE_JOKER_ID,
    NINE,
    QUEEN,
    TEN,
    THREE,
    TWO,
    Suit,
    card_id,
    suit_mask,
)
from pitch_sdk.rules.ruleset import DeckRules, JokerRank, PointCategory

#: A trump's power is ``TRUMP_BASE + position``; plain cards use their rank (2..14).
TRUMP_BASE = 100
#: A sub-trump's power (two-trump pitch) is ``SUB_TRUMP_BASE`` plus its rank strength:
#: above every plain card, below every trump.
SUB_TRUMP_BASE = 50
#: The effective suit of an unranked joker (two-trump pitch): it follows no suit.
NO_SUIT = 4
JOKER_MASK = (1 << LITTLE_JOKER_ID) | (1 << BIG_JOKER_ID)

#: Pips doubled, so that a joker's half pip stays an integer: 10=10, A=4, K=3, Q=2, J=1.
PIPS2: tuple[int, ...] = tuple(
    {TEN: 20, ACE: 8, KING: 6, QUEEN: 4, JACK: 2}.get(i % 13 + 2, 0) if i < LITTLE_JOKER_ID else 1
    for i in range(DECK_SIZE)
)


#: Doubled pips of every 13-bit pattern of one suit, so a pile's pips are 4 lookups.
_SUIT_PIPS2: tuple[int, ...] = tuple(
    sum(PIPS2[rank] for rank in range(13) if pattern >> rank & 1) for pattern in range(1 << 13)
)


def pips2_of(pile: int) -> int:
    """Doubled pips of a pile given as a bit mask (suits are 13-bit runs, jokers 1 each)."""
    return (_SUIT_PIPS2[pile & 0x1FFF] + _SUIT_PIPS2[pile >> 13 & 0x1FFF]
            + _SUIT_PIPS2[pile >> 26 & 0x1FFF] + _SUIT_PIPS2[pile >> 39 & 0x1FFF]
            + (pile >> LITTLE_JOKER_ID & 1) + (pile >> BIG_JOKER_ID & 1))


@cache
def pip_cards(deck: DeckRules) -> int:
    """The cards of the pack worth pips, as a bit mask: seed 004's "point cards", "cards
    which could contribute toward the Game point"."""
    cards = sum(1 << card for card in deck_cards(deck) if PIPS2[card])
    return cards if deck.joker_half_pip else cards & ~JOKER_MASK


@cache
def deck_cards(deck: DeckRules) -> tuple[int, ...]:
    """The ids of the cards in the pack, in id order (computed once per deck)."""
    cards = [card_id(rank, suit) for suit in range(4) for rank in range(2, 15)
             if rank not in deck.removed_ranks]
    if deck.jokers >= 1:
        cards.append(BIG_JOKER_ID)
    if deck.jokers == 2:
        cards.append(LITTLE_JOKER_ID)
    return tuple(sorted(cards))


@dataclass(frozen=True, slots=True)
class TrumpTable:
    """Ranking facts for one trump suit under one deck configuration."""

    trump: Suit
    trump_mask: int
    suit_masks: tuple[int, int, int, int]
    """Effective members of each suit: the trump entry holds every trump (off-cards and
    jokers included), the others lose their off-cards."""
    effective_suit: tuple[int, ...]
    """Per card id: the suit it follows as (jokers and off-cards follow trump)."""
    power: tuple[int, ...]
    """Per card id, how strongly it competes for a trick (the highest power wins): a trump
    ``TRUMP_BASE`` plus its strength among the trumps, a plain card its rank strength, an
    unranked joker -1.  Normally strength follows rank; with ``lowest_wins`` it is
    reversed, and with ``low_trump_wins`` the lowest trump beats everything."""
    order: tuple[int, ...]
    """Trumps in the pack, highest first."""
    jack: int
    off_jack: int
    five: int
    three: int
    off_three: int
    point_cards: dict[PointCategory, int]
    """The card each single-card point category is earned with (-1: not in this pack)."""
    natural: bool
    """Trumps rank in card-id order (no jokers or off-cards), so the highest and lowest
    trump of a mask are its top and bottom bits."""
    sub_trump: int
    """The sub-trump suit (two-trump pitch), -1 if none."""
    sub_mask: int
    """The sub-trump suit's cards; they beat plain cards, and lose to trumps."""
    cut_power: int
    """The lowest power that competes whatever suit was led: ``TRUMP_BASE``, or
    ``SUB_TRUMP_BASE`` when there is a sub-trump."""
    lead_power: tuple[tuple[int, ...], ...]
    """Per suit led (``NO_SUIT`` last), each card's power in that trick: its ``power`` if
    it can win (it follows the suit led, or it cuts), else -1.  One lookup per card
    played instead of a rule evaluated per card."""

    def highest(self, cards: int) -> int:
        """The highest trump among ``cards`` (a bit mask); -1 if there is none."""
        trumps = cards & self.trump_mask
        if self.natural:
            return trumps.bit_length() - 1
        return next((card for card in self.order if trumps >> card & 1), -1)

    def sub_extremes(self, cards: int) -> tuple[int, int]:
        """The highest and lowest sub-trump among ``cards`` by rank (-1, -1 if none)."""
        subs = cards & self.sub_mask
        return subs.bit_length() - 1, (subs & -subs).bit_length() - 1

    def lowest(self, cards: int) -> int:
        """The lowest trump among ``cards`` (a bit mask); -1 if there is none."""
        trumps = cards & self.trump_mask
        if self.natural:
            return (trumps & -trumps).bit_length() - 1
        return next((card for card in reversed(self.order) if trumps >> card & 1), -1)


@cache
def trump_table(deck: DeckRules, trump: Suit, lowest_wins: bool = False,
                low_trump_wins: bool = False, sub_trump: int = -1) -> TrumpTable:
    """Build (once) the table for ``trump`` with this deck's jokers and off-cards, the
    trick ranking of the play rules (``PlayRules.lowest_wins``, ``low_trump_wins``) and
    the sub-trump suit of two-trump pitch, if any."""
    removed = set(deck.removed_ranks)
    other = trump.partner
    off_ranks = {rank for rank, used in ((ACE, deck.off_ace), (JACK, deck.off_jack), (TEN, deck.off_ten),
                                         (THREE, deck.off_three), (TWO, deck.off_two))
                 if used and rank not in removed}

    def off(rank: int) -> int:
        return card_id(rank, other) if rank in off_ranks else -1

    jokers = [BIG_JOKER_ID, LITTLE_JOKER_ID][:deck.jokers]  # a lone joker is the big one
    unranked = jokers if deck.joker_rank is JokerRank.UNRANKED else []
    high_to_low: list[int] = list(jokers) if deck.joker_rank is JokerRank.TOP else []
    for rank in range(ACE, 1, -1):
        if rank not in removed:
            high_to_low.append(card_id(rank, trump))
        if rank in off_ranks:
            high_to_low.append(off(rank))
        if rank == JACK and deck.joker_rank is JokerRank.BELOW_JACK:
            high_to_low += jokers
    if deck.joker_rank is JokerRank.BELOW_TWO:
        high_to_low += jokers

    trump_mask = 0
    for card in high_to_low:
        trump_mask |= 1 << card
    masks = [suit_mask(s) & ~trump_mask for s in range(4)]
    masks[trump] = trump_mask
    effective = [card // 13 if card < LITTLE_JOKER_ID else int(trump) for card in range(DECK_SIZE)]
    # Plain cards compete by rank (2..14), reversed when the lowest card wins.
    power = [(16 - (card % 13 + 2) if lowest_wins else card % 13 + 2) if card < LITTLE_JOKER_ID else -1
             for card in range(DECK_SIZE)]
    for position, card in enumerate(reversed(high_to_low)):
        effective[card] = int(trump)
        power[card] = TRUMP_BASE + (len(high_to_low) - 1 - position if lowest_wins else position)
    if low_trump_wins and high_to_low:
        power[high_to_low[-1]] = TRUMP_BASE + len(high_to_low)
    sub_mask = 0
    if sub_trump >= 0:
        sub_mask = masks[sub_trump]
        for card in range(DECK_SIZE):
            if sub_mask >> card & 1:
                power[card] += SUB_TRUMP_BASE
    for joker in unranked:
        effective[joker] = NO_SUIT
        power[joker] = -1
    cut_power = SUB_TRUMP_BASE if sub_trump >= 0 else TRUMP_BASE
    lead_power = tuple(tuple(p if p >= cut_power or effective[card] == led else -1 for card, p in enumerate(power))
                       for led in range(NO_SUIT + 1))

    def natural(rank: int) -> int:
        return -1 if rank in removed else card_id(rank, trump)

    jack, five, three = natural(JACK), natural(FIVE), natural(THREE)
    sub_jack = card_id(JACK, Suit(sub_trump)) if sub_trump >= 0 and JACK not in removed else -1
    if sub_jack >= 0 and not sub_mask >> sub_jack & 1:
        sub_jack = -1
    return TrumpTable(
        trump=trump,
        trump_mask=trump_mask,
        suit_masks=(masks[0], masks[1], masks[2], masks[3]),
        effective_suit=tuple(effective),
        power=tuple(power),
        order=tuple(high_to_low),
        jack=jack,
        off_jack=off(JACK),
        five=five,
        three=three,
        off_three=off(THREE),
        point_cards={PointCategory.JACK: jack, PointCategory.OFF_JACK: off(JACK), PointCategory.FIVE: five,
                     PointCategory.THREE: three, PointCategory.OFF_THREE: off(THREE),
                     PointCategory.ACE: natural(ACE), PointCategory.TEN: natural(TEN),
                     PointCategory.TWO: natural(TWO), PointCategory.NINE: natural(NINE),
                     PointCategory.OFF_ACE: off(ACE), PointCategory.OFF_TEN: off(TEN),
                     PointCategory.OFF_TWO: off(TWO), PointCategory.SUB_JACK: sub_jack},
        natural=list(high_to_low) == sorted(high_to_low, reverse=True),
        sub_trump=sub_trump,
        sub_mask=sub_mask,
        cut_power=cut_power,
        lead_power=lead_power,
    )


PlayRecords = tuple[
    tuple[tuple[tuple[int, PlayCard], ...], ...],
    tuple[tuple[tuple[int, int], ...], ...],
    tuple[tuple[int, ...], ...],
]


@cache
def play_records(players: int) -> PlayRecords:
    """For each seat and card, the move-log entry ``(seat, PlayCard)`` and the trick entry
    ``(seat, card)``, shared instead of built per card (the rollout records every card
    twice, and each tuple spared is also less work for the garbage collector); and for
    each leader, the seats that follow in order."""
    moves = tuple(tuple((seat, play) for play in PLAYS) for seat in range(players))
    plays = tuple(tuple((seat, card) for card in range(len(PLAYS))) for seat in range(players))
    followers = tuple(tuple((leader + k) % players for k in range(1, players)) for leader in range(players))
    return moves, plays, followers
