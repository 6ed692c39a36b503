"""Trick rules as pure functions: which cards may follow, which card is winning.

``GameState`` applies them one card at a time; the rollout loop in ``GameState.playout``
uses the same rules on whole tricks.  Cards and hands are ids and bit masks (see
:mod:`pitch_sdk.rules.cards`), trump facts come from a :class:`TrumpTable`.
"""

from __future__ import annotations

from collections.abc import Callable

from pitch_sdk.rules.tables import TRUMP_BASE, TrumpTable


def follow_mask(hand: int, lead_suit: int, trump: int, table: TrumpTable, must_follow: bool) -> int:
    """The cards of ``hand`` that may be played to a trick led in ``lead_suit``: follow
    suit or trump (or, with ``must_follow``, follow suit), anything when void; a trump lead
    must be followed with a trump."""
    follow = hand & table.suit_masks[lead_suit]
    if not follow:
        return hand
    if lead_suit == trump or must_follow:
        return follow
    return follow | hand & table.trump_mask


def card_power(table: TrumpTable, card: int, lead_suit: int) -> int:
    """How strongly ``card`` competes for a trick led in ``lead_suit``: any trump beats
    every plain card, a card of the suit led beats off-suit cards, which cannot win."""
    power = table.power[card]
    if power < TRUMP_BASE and table.effective_suit[card] != lead_suit:
        return -1
    return power


def random_card(mask: int, uniform: Callable[[], float]) -> int:
    """A uniformly random card of a non-empty bit mask."""
    skip = int(uniform() * mask.bit_count())
    while skip:  # drop the lowest cards until the chosen one is the lowest
        mask &= mask - 1
        skip -= 1
    return (mask & -mask).bit_length() - 1
