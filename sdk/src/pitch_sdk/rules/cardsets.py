"""Card-set decisions (exchange, burn, discard, dealer pick) without listing every set.

A card-set rule can admit millions of sets: a bidder given the whole stock as leftovers
(seed 003) and burning down to six may choose among C(47, 41) = 10.7 million.  Listing them would
hang a referee, so the engine counts, ranks and checks sets arithmetically instead, and
:class:`CardSetChoices` offers them as a lazy sequence of actions: ``len``, indexing (a
random choice needs no list), ``in`` and iteration, in ``legal_actions()``' order.

``legal_actions()`` orders sets by size, then by their cards in id order.  For two sets
of one size, that order is decided by the lowest card in only one of them, which is the
same whether or not the required cards are counted: so the order of the sets is the
lexicographic order of their optional parts, which :func:`nth_set` unranks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
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


def _optional(rule: CardSetRule) -> list[int]:
    required = set(rule.required)
    return sorted(int(card) for card in rule.allowed if card not in required)


def _sizes(rule: CardSetRule) -> range:
    """How many optional cards a legal set may add to the required ones."""
    return range(max(rule.min_count - len(rule.required), 0), rule.max_count - len(rule.required) + 1)


def count_sets(rule: CardSetRule) -> int:
    """How many sets ``rule`` admits."""
    optional = len(_optional(rule))
    return sum(comb(optional, size) for size in _sizes(rule))


def all_sets(rule: CardSetRule) -> Iterator[int]:
    """Every set ``rule`` admits, as bit masks, in ``legal_actions()`` order."""
    required, optional = mask_of(rule.required), _optional(rule)
    for size in _sizes(rule):
        for combo in combinations(optional, size):
            yield required | mask_of(combo)


def nth_set(rule: CardSetRule, index: int) -> int:
    """The set at ``index`` (0-based) of :func:`all_sets`, as a bit mask, found without
    listing the ones before it."""
    optional = _optional(rule)
    for size in _sizes(rule):
        here = comb(len(optional), size)
        if index < here:
            return mask_of(rule.required) | _unrank(optional, size, index)
        index -= here
    raise IndexError(f"card-set index {index} is beyond the last set")


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


def allows(rule: CardSetRule, cards: Iterable[int]) -> bool:
    """Whether ``cards`` (no card twice) is a set ``rule`` admits."""
    chosen = list(cards)
    picked = mask_of(chosen)
    return (len(chosen) == picked.bit_count() and rule.min_count <= len(chosen) <= rule.max_count
            and not picked & ~mask_of(rule.allowed) and not mask_of(rule.required) & ~picked)


class CardSetChoices(Sequence[Action]):
    """Every ``ChooseCards`` a rule admits, in ``legal_actions()`` order, computed on
    demand: what a bot is offered when a card-set decision is too large to list."""

    def __init__(self, rule: CardSetRule) -> None:
        self.rule = rule
        self._count = count_sets(rule)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | Sequence[Action]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(f"card-set choice {index} of {self._count}")
        return choose_cards(nth_set(self.rule, index))

    def __contains__(self, action: object) -> bool:
        return isinstance(action, ChooseCards) and allows(self.rule, action.cards)

    def __iter__(self) -> Iterator[Action]:
        return (choose_cards(mask) for mask in all_sets(self.rule))

    def __repr__(self) -> str:
        return f"CardSetChoices({self._count} sets of {self.rule})"
