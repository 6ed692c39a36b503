"""Trick rules as pure functions: which cards may follow, which card is winning.

``GameState`` applies them one card at a time; the rollout loop in ``GameState.playout``
uses the same rules on whole tricks.  Cards and hands are ids and bit masks (see
:mod:`pitch_sdk.rules.cards`), trump facts come from a :class:`TrumpTable`.
"""

from __future__ import annotations

from collections.abc import Callable

from pitch_sdk.rules.tables import JOKER_MASK, NO_SUIT, TrumpTable


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


def revoke_mask(hand: int, lead_suit: int, trump: int, table: TrumpTable, must_follow: bool) -> int:
    """:func:`follow_mask` widened by ``revoke_penalty`` (seed 004, auction pitch): a player
    holding the suit led may also "discard a card of a different non-trump suit", a revoke
    the hand's scoring punishes (:func:`~pitch_sdk.rules.scoring.find_revokes`)."""
    return follow_mask(hand, lead_suit, trump, table, must_follow) | hand & ~(
        table.trump_mask | table.suit_masks[lead_suit])


def card_power(table: TrumpTable, card: int, lead_suit: int) -> int:
    """How strongly ``card`` competes for a trick led in ``lead_suit``: any trump beats
    every plain card, a card of the suit led beats off-suit cards, which cannot win."""
    return table.lead_power[lead_suit][card]


def two_trump_follow_mask(hand: int, lead_suit: int, table: TrumpTable, joker_led: bool,
                          double_down: bool, must_follow: bool = False) -> int:
    """Seed 004, two-trump pitch: "Players follow suit as in other variations; sub-trumps do
    not count as trumps for this purpose. sub-trumps may be used to 'trump in,' on non-trump
    leads ... If a sub-trump is lead, main trump can be 'trumped in'. ... When leading a
    joker it is considered to be suit-less, the second play of the trick determines the
    lead suit ... If a trump suit is lead, jokers may not be cut in if the player in
    possession of the joker has cards of that trump remaining. A joker may be cut in at any
    time if a non-trump suit is lead"; with the double-down override, "a joker [may] be
    played if the other joker was led, regardless of the second card ... and the rest of
    the player's hand".  Both trump suits are "a trump suit": on a sub-trump lead a player
    holding a sub-trump may not cut a joker in either (it may still trump in)."""
    if lead_suit == NO_SUIT:  # only a joker so far: the next card sets the suit
        return hand
    jokers = hand & JOKER_MASK
    doubled_down = jokers if joker_led and double_down else 0
    if lead_suit == table.trump:
        trumps = hand & table.trump_mask
        if not trumps:
            return hand
        return trumps | doubled_down
    follow = hand & table.suit_masks[lead_suit]
    if not follow:
        return hand
    if lead_suit == table.sub_trump:  # "a trump suit is lead": no joker while holding it
        return (follow if must_follow else follow | hand & table.trump_mask) | doubled_down
    if must_follow:  # follow suit, trump only when void; a joker still "at any time"
        return follow | jokers
    return follow | hand & table.trump_mask | jokers | hand & table.sub_mask


def random_card(mask: int, uniform: Callable[[], float]) -> int:
    """A uniformly random card of a non-empty bit mask."""
    skip = int(uniform() * mask.bit_count())
    while skip:  # drop the lowest cards until the chosen one is the lowest
        mask &= mask - 1
        skip -= 1
    return (mask & -mask).bit_length() - 1
