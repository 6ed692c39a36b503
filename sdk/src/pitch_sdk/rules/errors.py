"""The rules engine's exceptions, one class per cause.

Every message names the offending value and, where it helps, what would have been
accepted, so a bot author or a scenario writer can fix the input without reading code.
All of them are ``ValueError``s: they always mean "this input is wrong", never a bug.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class RulesError(ValueError):
    """Base class of everything the rules engine rejects."""


class CardParseError(RulesError):
    """A card or suit name that does not exist."""


class ActionParseError(RulesError):
    """Text or JSON that does not describe an action (``"bid 3"``, ``"play 10H"``, ...)."""


class InvalidRulesetError(RulesError):
    """A ruleset whose options contradict each other or name unknown settings."""


class UnknownPresetError(InvalidRulesetError):
    """A preset name that is not registered; the message lists the registered ones."""


class InvalidDealError(RulesError):
    """An explicit deal that is impossible (duplicate cards, wrong hand sizes, ...)."""


class IllegalActionError(RulesError):
    """An action that is well formed but not allowed in the current state.

    ``legal`` holds the actions that were allowed, so callers (the referee, the scenario
    runner) can report the alternatives.
    """

    def __init__(self, message: str, action: Any = None, legal: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.action = action
        self.legal = tuple(legal)


class GameOverError(IllegalActionError):
    """An action sent after the game has ended."""
