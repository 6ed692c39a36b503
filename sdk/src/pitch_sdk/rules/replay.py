"""Game logs: the seed, the ruleset, any explicit deals and every action, in order.

A log is enough to rebuild the whole game, so it is what matches store and what disputes
are settled with: :func:`replay` re-applies the actions and must reach identical results.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pitch_sdk.rules.actions import Action, parse_action
from pitch_sdk.rules.cards import parse_cards
from pitch_sdk.rules.errors import IllegalActionError, RulesError
from pitch_sdk.rules.ruleset import Ruleset
from pitch_sdk.rules.state import Deal, GameState


@dataclass(frozen=True)
class GameLog:
    """Everything needed to reproduce a game."""

    ruleset: Ruleset
    seed: int
    dealer: int
    deals: tuple[Deal, ...]
    moves: tuple[tuple[int, Action], ...]

    @classmethod
    def of(cls, state: GameState, deals: tuple[Deal, ...] = ()) -> GameLog:
        """The log of ``state`` so far (``deals``: the explicit deals it was created with)."""
        return cls(state.rules, state.seed, state.first_dealer, deals, tuple(state.moves))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; actions in their text form with the seat that made them."""
        return {
            "ruleset": self.ruleset.to_dict(), "seed": self.seed, "dealer": self.dealer,
            "deals": [{"hands": [" ".join(c.name for c in h) for h in d.hands],
                       "stock": " ".join(c.name for c in d.stock)} for d in self.deals],
            "moves": [[seat, str(action)] for seat, action in self.moves],
        }

    def to_json(self) -> str:
        """Compact JSON of :meth:`to_dict`."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameLog:
        """Rebuild from :meth:`to_dict` output."""
        try:
            deals = tuple(Deal(tuple(tuple(parse_cards(h)) for h in d["hands"]),
                               tuple(parse_cards(d.get("stock", ""))))
                          for d in data.get("deals", []))
            moves = tuple((int(seat), parse_action(text)) for seat, text in data["moves"])
            return cls(Ruleset.from_dict(data["ruleset"]), int(data.get("seed", 0)),
                       int(data.get("dealer", 0)), deals, moves)
        except (KeyError, TypeError) as exc:
            raise RulesError(f"malformed game log: {exc!r}") from None


def replay(log: GameLog) -> GameState:
    """Re-run a log; raises if any move is illegal or made by the wrong seat."""
    state = GameState(log.ruleset, seed=log.seed, dealer=log.dealer, deals=log.deals)
    for index, (seat, action) in enumerate(log.moves):
        if seat != state.to_move:
            raise IllegalActionError(
                f"move {index} ({action}) is logged for seat {seat} but seat {state.to_move} is to move",
                action, list(state.listed_actions()))
        state.apply(action)
    return state
