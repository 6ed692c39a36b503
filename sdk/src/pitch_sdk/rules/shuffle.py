"""Seeded, stateless shuffling of a deal.

Deal ``n`` of a game with seed ``s`` is a Fisher-Yates shuffle driven by one 512-bit
BLAKE2b digest of ``(s, n)``, read as a number in a mixed radix.  Deals therefore depend
on the seed and deal number only, never on what was played before: two matches with the
same seed get the same cards (duplicate deals), a cloned state needs no generator state,
and the result is identical on every platform and Python version.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from math import perm


@cache
def _unbiased_limit(count: int, drawn: int) -> int:
    """The largest multiple of the number of orderings below 2**512 (digests at or above
    it are redrawn, so every ordering is exactly equally likely)."""
    orderings = perm(count, drawn)
    return (1 << 512) // orderings * orderings


def shuffled(cards: Sequence[int], seed: int, deal_number: int, drawn: int | None = None,
             salt: str = "") -> list[int]:
    """A permutation of ``cards`` fixed by ``(seed, deal_number)``.

    The first ``drawn`` positions (all, by default) are a uniformly random ordered
    sample; with ``drawn`` set, the cards after them keep an arbitrary order, which is
    cheaper when nobody will draw from the rest.  A ``salt`` names another random draw of
    the same deal (a card lost at random, seed 004's Abacos), independent of the deal.
    """
    key = f"{seed}:{deal_number}:{salt}:" if salt else f"{seed}:{deal_number}:"
    count = len(cards)
    drawn = count if drawn is None else min(drawn, count)
    limit = _unbiased_limit(count, drawn)
    attempt = 0
    while True:
        digest = hashlib.blake2b(f"{key}{attempt}".encode(), digest_size=64).digest()
        number = int.from_bytes(digest, "big")
        if number < limit:
            break
        attempt += 1
    deck = list(cards)
    i = 0
    for product, radices in _radix_groups(count, drawn):
        number, chunk = divmod(number, product)
        for radix in radices:  # operators, not divmod(): no call per card
            j = i + chunk % radix
            chunk //= radix
            deck[i], deck[j] = deck[j], deck[i]
            i += 1
    return deck


@cache
def _radix_groups(count: int, drawn: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The radices ``count, count-1, ...`` of the ``drawn`` swaps, grouped so that each
    group's product fits one 30-bit digit of a Python int: one big-number division per
    group, then small-number ones that take CPython's single-digit fast path, giving
    exactly the digits of the mixed-radix reading (however they are grouped)."""
    groups: list[tuple[int, tuple[int, ...]]] = []
    position = 0
    while position < drawn:
        product, radices = 1, []
        while position < drawn and product * (count - position) < 1 << 30:
            product *= count - position
            radices.append(count - position)
            position += 1
        groups.append((product, tuple(radices)))
    return tuple(groups)
