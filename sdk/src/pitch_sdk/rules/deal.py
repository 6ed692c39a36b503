"""An explicit deal, the one value the game state and its fields both name.

:class:`Deal` lives apart from :mod:`~pitch_sdk.rules.state` so that
:mod:`~pitch_sdk.rules.state_fields`, which declares the queue of scripted deals, and
the stage mixins built on it can name it without importing the state they are mixed
into: the engine's modules then import one way only, down towards the cards.
"""

from __future__ import annotations

from dataclasses import dataclass

from pitch_sdk.rules.cards import Card

__all__ = ["Deal"]


@dataclass(frozen=True, slots=True)
class Deal:
    """An explicit deal: each seat's hand and the stock in the order it is drawn."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...] = ()
