"""Game logs: the seed, the ruleset, any explicit deals and every action, in order.

A log is enough to rebuild the whole game, so it is what matches store and what disputes
are settled with: :func:`replay` re-applies the actions and must reach identical results.

A log also carries ``dealt``: every deal as the engine dealt it (each seat's hand and the
stock in draw order).  The seed and ``deals`` (explicit deals, written only for a game
that had them) already determine them, so it adds nothing
to the replay; it is there for readers without this engine (a bot author's own tools in
another language, reading ``GetMatchLog``), who could not otherwise see the hands.  It
is checked, not used: :func:`replay` raises if the game it rebuilds was dealt differently,
so a log cannot show one set of hands while the moves were played with another.  Logs
written before it existed have none and replay as before.

A log the referee writes also carries ``decision_ms``: how long each move took its bot, on
the referee's clock, so a bot author can see where the time went.  It plays no part in
the replay.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pitch_sdk.rules.actions import Action, parse_action
from pitch_sdk.rules.cards import cards_of, format_cards, mask_of, parse_cards
from pitch_sdk.rules.deal import Deal
from pitch_sdk.rules.errors import IllegalActionError, RulesError
from pitch_sdk.rules.events import Dealt
from pitch_sdk.rules.ruleset import Ruleset
from pitch_sdk.rules.state import GameState


@dataclass(frozen=True)
class GameLog:
    """Everything needed to reproduce a game."""

    ruleset: Ruleset
    seed: int
    dealer: int
    deals: tuple[Deal, ...]
    moves: tuple[tuple[int, Action], ...]
    dealt: tuple[Dealt, ...] = ()
    """Every deal of the game so far as dealt (redeals included), for readers; empty in old logs."""
    decision_ms: tuple[int | None, ...] = ()
    """Milliseconds each move took its bot, by move (``None``: the bot gave no answer, after
    a timeout or while disconnected, and the move is the referee's fallback); empty when
    nobody timed the game (local games, logs written before it existed)."""

    @classmethod
    def of(cls, state: GameState, deals: tuple[Deal, ...] = (),
           decision_ms: tuple[int | None, ...] = ()) -> GameLog:
        """The log of ``state`` so far (``deals``: the explicit deals it was created with;
        ``decision_ms``: the time each move took, if it was timed)."""
        return cls(state.rules, state.seed, state.first_dealer, deals, tuple(state.moves), _dealt(state),
                   decision_ms)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; actions in their text form with the seat that made them.
        ``deals`` is written only for a game given explicit deals (a scenario): a seeded
        game's would always be empty beside the filled ``dealt``, two lists of deals of
        which a reader could take the wrong one."""
        return {
            "ruleset": self.ruleset.to_dict(), "seed": self.seed, "dealer": self.dealer,
            **({"deals": [{"hands": [" ".join(c.name for c in h) for h in d.hands],
                           "stock": " ".join(c.name for c in d.stock)} for d in self.deals]}
               if self.deals else {}),
            "moves": [[seat, str(action)] for seat, action in self.moves],
            "dealt": [{"hand_number": d.hand_number, "dealer": d.dealer,
                       "hands": [format_cards(cards_of(h)) for h in d.hands], "stock": format_cards(d.stock)}
                      for d in self.dealt],
            **({"decision_ms": list(self.decision_ms)} if self.decision_ms else {}),
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
            rules = Ruleset.from_dict(data["ruleset"])
            blind = rules.bidding.look_option
            dealt = tuple(Dealt(int(d["hand_number"]), int(d["dealer"]),
                                tuple(mask_of(parse_cards(h)) for h in d["hands"]), tuple(parse_cards(d["stock"])),
                                blind) for d in data.get("dealt", []))
            decision_ms = tuple(None if ms is None else int(ms) for ms in data.get("decision_ms", []))
            return cls(rules, int(data.get("seed", 0)), int(data.get("dealer", 0)), deals, moves, dealt, decision_ms)
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
    if log.dealt:
        _check_dealt(log.dealt, _dealt(state))
    return state


def _dealt(state: GameState) -> tuple[Dealt, ...]:
    """Every deal of ``state`` so far, from its event history."""
    return tuple(event for event in state.history if type(event) is Dealt)


def _check_dealt(logged: tuple[Dealt, ...], replayed: tuple[Dealt, ...]) -> None:
    """Raise unless the log's ``dealt`` is what the replay dealt, naming the first difference."""
    for number, (mine, theirs) in enumerate(zip(logged, replayed, strict=False), 1):
        if mine != theirs:
            raise RulesError(f"the log's dealt[{number - 1}] (hand {mine.hand_number}) is not what the replay "
                             f"dealt: logged {_shown(mine)}, replayed {_shown(theirs)}")
    if len(logged) != len(replayed):
        raise RulesError(f"the log's dealt lists {len(logged)} deals but the replay dealt {len(replayed)}")


def _shown(deal: Dealt) -> str:
    hands = " / ".join(format_cards(cards_of(h)) for h in deal.hands)
    return f"dealer {deal.dealer}, hands {hands}, stock {format_cards(deal.stock) or '-'}"
