"""Seeded, stateless shuffling of a deal.

Deal ``n`` of a game with seed ``s`` is a Fisher-Yates shuffle driven by one 512-bit
BLAKE2b digest of ``(s, n)``, read as a number in the factorial base.  Deals therefore
depend on the seed and deal number only, never on what was played before: two matches with
the same seed get the same cards (duplicate deals), a cloned state needs no generator
state, and the result is identical on every platform and Python version.
"""

from __future__ import annotations

import hashlib
from functools import cache
from math import factorial


@cache
def _unbiased_limit(count: int) -> int:
    """The largest multiple of ``count!`` below 2**512: digests at or above it are redrawn."""
    orderings = factorial(count)
    return (1 << 512) // orderings * orderings


def shuffled(cards: list[int], seed: int, deal_number: int) -> list[int]:
    """A uniformly random permutation of ``cards`` fixed by ``(seed, deal_number)``."""
    count = len(cards)
    limit = _unbiased_limit(count)
    attempt = 0
    while True:
        digest = hashlib.blake2b(f"{seed}:{deal_number}:{attempt}".encode(), digest_size=64).digest()
        number = int.from_bytes(digest, "big")
        if number < limit:
            break
        attempt += 1
    deck = list(cards)
    for i in range(count - 1, 0, -1):
        number, j = divmod(number, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
