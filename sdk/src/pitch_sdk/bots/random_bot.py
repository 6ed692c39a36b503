"""The random bot: a uniform choice among the legal actions.

It is the baseline every other bot must beat, and a cheap way to reach odd corners of
the rules (steals, forced bids, set-backs) in tests.
"""

from __future__ import annotations

from collections.abc import Sequence

from pitch_sdk.bot import Bot
from pitch_sdk.rules import Action, Observation


class RandomBot(Bot):
    """Picks any legal action with equal probability, using its seeded ``rng``."""

    name = "random"

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """One legal action, uniformly at random."""
        return self.rng.choice(legal_actions)
