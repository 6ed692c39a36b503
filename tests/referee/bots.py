"""Test bots with one deliberate behaviour each (slow, illegal, ...)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from pitch_sdk.bot import Bot
from pitch_sdk.rules import Action, Observation, PlayCard


class FirstLegalBot(Bot):
    """Always the first legal action: deterministic, for replay checks."""

    name = "first"

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return legal_actions[0]


class SlowBot(FirstLegalBot):
    """Sleeps past the time control on every card it plays."""

    name = "slow"

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        if isinstance(legal_actions[0], PlayCard):
            time.sleep(0.25)
        return legal_actions[0]


class IllegalBot(FirstLegalBot):
    """Plays a card it does not hold whenever it must play."""

    name = "illegal"

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        if isinstance(legal_actions[0], PlayCard):
            held = set(observation.hand)
            return next(PlayCard(c) for c in map(type(observation.hand[0]), range(52)) if c not in held)
        return legal_actions[0]


class SteadyBot(FirstLegalBot):
    """Takes 20 ms per decision, so a long match is still running when we stop."""

    name = "steady"

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        time.sleep(0.02)
        return legal_actions[0]


class GatedBot(FirstLegalBot):
    """Answers only once its gate is open (at most 20 s later): keeps a match running for
    as long as a test needs it to."""

    name = "gated"

    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self.gate = gate

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        self.gate.wait(20)
        return legal_actions[0]


class OnceSlowBot(FirstLegalBot):
    """Sleeps 0.45 s on its first card only: past a 300 ms time control once a match (and back
    in time for the next decision, re-sent at the timeout), the normal play of a slow bot."""

    name = "once-slow"

    def __init__(self) -> None:
        super().__init__()
        self.slept = False

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        if isinstance(legal_actions[0], PlayCard) and not self.slept:
            self.slept = True
            time.sleep(0.45)
        return legal_actions[0]
