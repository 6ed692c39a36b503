"""The random bot: a uniform choice among the legal actions.

It is the baseline every other bot must beat, and a cheap way to reach odd corners of
the rules (steals, forced bids, set-backs) in tests.  One choice is left out unless asked
for: a revoke the ruleset punishes (``revoke_penalty``), which a uniform player would make
several times a hand, setting every party back until its games ran to the hand limit.
"""

from __future__ import annotations

from collections.abc import Sequence

from pitch_sdk.bot import Bot
from pitch_sdk.bots.revokes import without_revokes
from pitch_sdk.rules import Action, Observation


class RandomBot(Bot):
    """Picks any legal action with equal probability, using its seeded ``rng``; a penalised
    revoke only with ``revokes=True``."""

    name = "random"

    def __init__(self, revokes: bool = False) -> None:
        super().__init__()
        self.revokes = revokes
        """Whether a revoke punished by the ruleset (``revoke_penalty``) is among the choices."""

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """One legal action, uniformly at random (penalised revokes left out unless ``revokes``)."""
        if not self.revokes and self.ruleset is not None:
            legal_actions = without_revokes(self.ruleset, observation, legal_actions)
        return self.rng.choice(legal_actions)
