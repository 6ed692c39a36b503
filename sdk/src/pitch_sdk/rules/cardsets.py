"""Card-set decisions (exchange, burn, discard, dealer pick) without listing every set.

A card-set rule can admit millions of sets: a bidder given the whole stock as leftovers
(seed 003) and burning down to six may choose among C(47, 41) = 10.7 million.  Listing them would
hang a referee, so the engine counts, ranks and checks sets arithmetically instead, and
:class:`CardSetChoices` offers them as a lazy sequence of actions: ``len``, indexing (a
random choice needs no list), ``in`` and iteration, in ``legal_actions()``' order.

``legal_actions()`` orders sets by size, then by their cards in id order.  For two sets
of one size, that order is decided by the lowest card in only one of them, which is the
same whether or not the required cards are counted: so the order of the sets is the
lexicographic order of their optional parts, which :func:`_unrank` unranks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import overload

from pitch_sdk.rules.actions import Action, ChooseCards, choose_cards
from pitch_sdk.rules.cards import Card, format_cards, mask_of

#: A card-set decision is listed in full (``GameState.listed_actions``) up to this many sets.
MAX_LISTED_CARD_SETS = 5_000


@dataclass(frozen=True, slots=True)
class CardSetRule:
    """The constraint on a card-set decision, for when listing every set would explode:
    choose between ``min_count`` and ``max_count`` cards from ``allowed``, including all
    of ``required``."""

    allowed: tuple[Card, ...]
    required: tuple[Card, ...]
    min_count: int
    max_count: int

    def __str__(self) -> str:
        count = str(self.min_count) if self.min_count == self.max_count else f"{self.min_count}-{self.max_count}"
        text = f"{count} cards of {format_cards(self.allowed)}"
        return f"{text}, including {format_cards(self.required)}" if self.required else text


def _unrank(items: list[int], size: int, index: int) -> int:
    """The ``index``-th ``size``-combination of ``items`` in lexicographic order."""
    mask, start = 0, 0
    for slot in range(size):
        for position in range(start, len(items)):
            starting_here = comb(len(items) - position - 1, size - slot - 1)
            if index < starting_here:
                mask |= 1 << items[position]
                start = position + 1
                break
            index -= starting_here
    return mask


class CardSetChoices(Sequence[Action]):
    """Every ``ChooseCards`` a rule admits, in ``legal_actions()`` order, computed on
    demand: what a bot is offered when a card-set decision is too large to list."""

    def __init__(self, rule: CardSetRule) -> None:
        self.rule = rule
        self._required = mask_of(rule.required)
        self._allowed = mask_of(rule.allowed)
        self._optional = sorted(int(card) for card in rule.allowed if not self._required >> card & 1)
        # How many optional cards a legal set adds to the required ones, and how many
        # sets there are of each such size.
        sizes = range(max(rule.min_count - len(rule.required), 0), rule.max_count - len(rule.required) + 1)
        self._per_size = [(size, comb(len(self._optional), size)) for size in sizes]
        self._count = sum(count for _, count in self._per_size)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | Sequence[Action]:
        """The set at ``index``, found without listing the ones before it."""
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(f"card-set choice {index} of {self._count}")
        for size, count in self._per_size:
            if index < count:
                return choose_cards(self._required | _unrank(self._optional, size, index))
            index -= count
        raise AssertionError("the per-size counts add up to the length")

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, ChooseCards):
            return False
        picked = mask_of(action.cards)
        return (self.rule.min_count <= len(action.cards) <= self.rule.max_count
                and not picked & ~self._allowed and not self._required & ~picked)

    def __iter__(self) -> Iterator[Action]:
        for size, _ in self._per_size:
            for combo in combinations(self._optional, size):
                yield choose_cards(self._required | mask_of(combo))

    def __repr__(self) -> str:
        return f"CardSetChoices({self._count} sets of {self.rule})"
