"""Immutable records of what happened: tricks, point awards, hand and game results.

These are the engine's outputs: the referee stores them, bots read them, and scenario
runs print them as JSON (``to_dict``), so every field is plain data.  They are
``NamedTuple``s because one is made per trick and per hand in the engine's hot loop and a
frozen dataclass costs several times more to build.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from functools import cache, partial
from typing import Any, NamedTuple, TypeVar

from pitch_sdk.rules.cards import CARDS, Card, Suit
from pitch_sdk.rules.ruleset import PointCategory

T = TypeVar("T", bound=tuple[Any, ...])


class Trick(NamedTuple):
    """A completed trick: who led, the (seat, card id) plays in order, who won it."""

    leader: int
    plays: tuple[tuple[int, int], ...]
    winner: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form with card names (a trick is also a log event)."""
        return {"event": "trick", "leader": self.leader, "winner": self.winner,
                "plays": [{"seat": s, "card": CARDS[c].name} for s, c in self.plays]}


def tuple_builder(cls: type[T]) -> Callable[[tuple[Any, ...]], T]:
    """``cls``'s constructor taking every field, in order, as one tuple, and built in C: a
    named tuple's own constructor is a Python function, too slow for the records the
    engine makes every trick and every hand."""
    return partial(tuple.__new__, cls)


#: ``new_trick((leader, plays, winner))`` is ``Trick(leader, plays, winner)``.
new_trick = tuple_builder(Trick)


class WinReason(StrEnum):
    """Why the game ended the way it did."""

    REACHED_TARGET = "reached-target"
    """The first eligible party, counting points in order, reached the target."""
    MAKER_AT_TARGET = "maker-at-target"
    """Seed 002: the making party reached the target, whatever the others have."""
    MOST_AT_TARGET = "most-at-target"
    """Seed 002: no maker at the target; the non-maker with the most points at it wins."""
    SHOT_THE_MOON = "shot-the-moon"
    """The pitching party made a shoot-the-moon bid that wins the game."""
    FAILED_MOON = "failed-moon"
    """The pitching party failed a shoot-the-moon bid that loses the game."""
    BACKDOOR = "backdoor"
    """A party reached the backdoor score (minus the target): it wins, loses, or the game
    is drawn, as the ruleset says."""
    HAND_LIMIT = "hand-limit"
    """The ruleset's ``max_hands`` was reached; the highest score wins, a tie is a draw."""


class PointAward(NamedTuple):
    """One point category awarded in a hand: what, to whom, for which card."""

    category: PointCategory
    value: int
    party: int
    card: Card | None
    """The card that earned it; ``None`` for Game."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"category": self.category.value, "value": self.value, "party": self.party,
                "card": None if self.card is None else self.card.name}


def shared_builder(cls: type[T]) -> Callable[[tuple[Any, ...]], T]:
    """Like :func:`tuple_builder`, but one shared instance per distinct field values: for
    the small records a game makes over and over (a bid, a trump, a point award), so a long
    log holds references to a few objects instead of new ones, which spares allocations and
    the garbage collector's traversals of the log.  The records are immutable, so sharing
    them is invisible."""
    return cache(tuple_builder(cls))


#: ``new_award((category, value, party, card))`` is ``PointAward(category, value, party, card)``.
new_award = shared_builder(PointAward)


class HandResult(NamedTuple):
    """Everything scored in one hand, and whether it ended the game."""

    hand_number: int
    dealer: int
    pitcher: int | None
    bid: int | None
    trump: Suit | None
    awards: tuple[PointAward, ...]
    pips: tuple[float, ...]
    """Game pips in each party's pile (a joker counts half a pip where the ruleset's
    ``joker_half_pip`` says so)."""
    tricks_won: tuple[int, ...]
    points_won: tuple[int, ...]
    """Points each party took in play, before the bid is applied."""
    made: bool | None
    """Whether the pitching party made its bid; ``None`` with no auction."""
    moon: bool
    """Whether the bid was a shoot-the-moon bid."""
    score_changes: tuple[int, ...]
    scores: tuple[int, ...]
    """Scores per party after this hand."""
    winner: int | None
    """The party that won the game at the end of this hand, if the game ended."""
    win_reason: WinReason | None
    game_over: bool
    doubled: bool = False
    """The bid was a double bid ("6 for 12"): it scored or cost twice."""
    sides: tuple[int, ...] | None = None
    """Per party, its side in this hand when the bidder called a partner (``0``: the
    bidder's side); ``None`` when the parties themselves are the sides."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the scenario runner prints this)."""
        return {
            "hand_number": self.hand_number, "dealer": self.dealer, "pitcher": self.pitcher,
            "bid": self.bid, "trump": None if self.trump is None else self.trump.letter,
            "awards": [a.to_dict() for a in self.awards], "pips": list(self.pips),
            "tricks_won": list(self.tricks_won), "points_won": list(self.points_won),
            "made": self.made, "moon": self.moon, "score_changes": list(self.score_changes),
            "scores": list(self.scores), "game_over": self.game_over, "winner": self.winner,
            "win_reason": None if self.win_reason is None else self.win_reason.value,
            "doubled": self.doubled, "sides": None if self.sides is None else list(self.sides),
        }


#: ``new_hand_result((hand_number, dealer, ..., sides))``: every field of :class:`HandResult`, in order.
new_hand_result = tuple_builder(HandResult)
