"""Seeded, stateless shuffling of a deal.

Deal ``n`` of a game with seed ``s`` is a Fisher-Yates shuffle driven by one 512-bit
BLAKE2b digest of ``(s, n)``, read as a number in a mixed radix.  Deals therefore depend
on the seed and deal number only, never on what was played before: two matches with the
same seed get the same cards (duplicate deals), a cloned state needs no generator state,
and the result is identical on every platform and Python version.
"""

from __future__ import annotations

import hashlib
from functools import cache
from math import perm


@cache
def _unbiased_limit(count: int, drawn: int) -> int:
    """The largest multiple of the number of orderings below 2**512 (digests at or above
    it are redrawn, so every ordering is exactly equally likely)."""
    orderings = perm(count, drawn)
    return (1 << 512) // orderings * orderings


def shuffled(cards: list[int], seed: int, deal_number: int, drawn: int | None = None) -> list[int]:
    """A permutation of ``cards`` fixed by ``(seed, deal_number)``.

    The first ``drawn`` positions (all, by default) are a uniformly random ordered
    sample; with ``drawn`` set, the cards after them keep an arbitrary order, which is
    cheaper when nobody will draw from the rest.
    """
    count = len(cards)
    drawn = count if drawn is None else min(drawn, count)
    limit = _unbiased_limit(count, drawn)
    attempt = 0
    while True:
        digest = hashlib.blake2b(f"{seed}:{deal_number}:{attempt}".encode(), digest_size=64).digest()
        number = int.from_bytes(digest, "big")
        if number < limit:
            break
        attempt += 1
    deck = list(cards)
    for i in range(drawn):
        number, offset = divmod(number, count - i)
        j = i + offset
        deck[i], deck[j] = deck[j], deck[i]
    return deck
