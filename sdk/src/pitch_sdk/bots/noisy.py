"""The heuristic bot with a given share of random decisions: a field of bots of known order.

Rating tests and benchmarks need bots whose true strength order is known in advance:
``NoisyHeuristicBot(noise)`` takes each decision at random (uniformly among the legal
actions, from its seeded ``rng``) with probability ``noise`` and as the heuristic bot
otherwise, so more noise is weaker: noise 0 is the heuristic bot, noise 1 the random bot.
"""

from __future__ import annotations

from collections.abc import Sequence

from pitch_sdk.bots.heuristic import HeuristicBot
from pitch_sdk.rules import Action, Observation


class NoisyHeuristicBot(HeuristicBot):
    """The heuristic bot, except that a ``noise`` share of its decisions are random."""

    def __init__(self, noise: float) -> None:
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise is a probability between 0 and 1, got {noise!r}")
        super().__init__()
        self.noise = noise
        self.name = f"heuristic~{noise:g}"

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """A random legal action with probability ``noise``, else the heuristic's choice."""
        if self.rng.random() < self.noise:
            return self.rng.choice(legal_actions)
        return super().act(observation, legal_actions)
