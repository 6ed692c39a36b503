"""Duplicate pairs on the local engine: two bots play the same deals with the seats swapped.

A *pair* is what a sequential test between two bot versions counts (the pentanomial model
of fishtest): in the first game NEW's side holds party 0's cards, in the second the same
deals are dealt again and NEW's side holds party 1's, so each side plays every hand from
both sides and the luck of the cards cancels.  Each side is one bot and copies of itself
(its partners are itself), the fixed-partner form an SPRT between two versions needs.

``duplicate=False`` gives the second game its own deals: the independent-deals baseline
the duplicate pair is measured against (bench/duplicate_deals.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from pitch_sdk.bot import Bot
from pitch_sdk.harness.local import play_game
from pitch_sdk.rules import Ruleset


def play_pair(ruleset: Ruleset, new: Callable[[], Bot], old: Callable[[], Bot], seed: int, *,
              duplicate: bool = True) -> float:
    """NEW's score over a pair of games (1 a win, ½ a game without a winner, 0 a loss):
    0, 0.5, 1, 1.5 or 2.  ``new``/``old`` make a fresh bot for each seat.  Two-party
    presets only: with three or more parties a pair of games cannot swap every seat."""
    if ruleset.parties != 2:
        raise ValueError(f"{ruleset.name} has {ruleset.parties} parties: duplicate pairs need two")
    score = 0.0
    for game in range(2):
        deals = seed if duplicate or game == 0 else _derive(seed, "deals")
        new_party = game  # NEW holds party 0's cards, then party 1's
        bots = [new() if seat % 2 == new_party else old() for seat in range(ruleset.players)]
        state = play_game(ruleset, bots, deals, bot_seed=_derive(seed, f"bots:{game}"))
        score += 0.5 if state.winner is None else float(state.winner == new_party)
    return score


def _derive(seed: int, purpose: str) -> int:
    """A seed for one purpose, spread out so neighbouring pair seeds share nothing."""
    return random.Random(f"{seed}:pair:{purpose}").getrandbits(48)
