"""Observations whose fields are worked out when a bot first reads them.

Building a whole :class:`~pitch_sdk.rules.observation.Observation` at every decision was
most of the local harness's own cost, yet many bots read a few of its fields and some
(the random bot) none.  :func:`observe_lazily` copies what ``observe`` reads of the state
(a few small tuples: the state moves on after the decision, the observation must not) and
leaves the fields to be derived, each into its own slot, at their first read; a second read
costs what it costs on any ``Observation``.  The derivations are ``observe``'s own helpers
or the same one-line expressions, and the tests compare every field on games of every
preset.

:class:`LazyObservation` is what such observations share, here and in the SDK's remote
runner (:class:`~pitch_sdk.protocol.observation_wire.ReceivedObservation`): to a bot they
are plain observations, equal to, hashed, printed, copied and pickled as the observation
with the same values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from pitch_sdk.rules.actions import Action
from pitch_sdk.rules.cards import CARDS, SUITS, cards_of
from pitch_sdk.rules.events import Event
from pitch_sdk.rules.observation import (
    FULL_VIEW,
    SPECTATOR,
    Observation,
    hand_summary,
    is_hidden,
    known_partner,
)
from pitch_sdk.rules.records import HandResult, Trick
from pitch_sdk.rules.state import GameState, Phase

_SET_FIELD = object.__setattr__
"""Writes a field's slot on a frozen observation (as the dataclass's own ``__init__`` does)."""


class LazyObservation(Observation):
    """An :class:`Observation` whose subclass fills its fields' slots as they are read (a
    field not read yet is an empty slot, and reading it falls back to the subclass's
    ``__getattr__``).

    It is an ``Observation`` in every way a bot can tell: the same fields and values, equal
    to (and hashed as) the plain observation with the same values, copied, pickled and
    ``dataclasses.replace``-d as one."""

    __slots__ = ()

    def decoded(self) -> Observation:
        """The plain :class:`Observation` with the same values, every field worked out."""
        return Observation(*[getattr(self, name) for name in _FIELDS])

    def __eq__(self, other: object) -> bool:
        """Equal to any observation with the same values (the dataclass's own ``==`` only
        compares observations of one class)."""
        if not isinstance(other, Observation):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _FIELDS)

    __hash__ = Observation.__hash__

    def __repr__(self) -> str:
        """The plain observation's ``repr``: a bot's log reads the same either way."""
        return repr(self.decoded())

    def __reduce__(self) -> tuple[type[Observation], tuple[Any, ...]]:
        """Pickled and copied as the plain observation (what it was derived from stays behind)."""
        return Observation, tuple(getattr(self, name) for name in _FIELDS)


_FIELDS = tuple(Observation.__dataclass_fields__)
"""Every field of an observation, in the order of its constructor's arguments."""


class _Moment(NamedTuple):
    """What ``observe`` reads of a state, copied at the decision."""

    viewer: int
    ruleset: str
    players: int
    parties: int
    hand_number: int
    dealer: int
    phase: Phase
    to_move: int
    scores: tuple[int, ...]
    hands: tuple[int, ...]
    bids: tuple[tuple[int, int], ...]
    pitcher: int
    contract: int
    trump: int
    sub_trump: int
    doubled: bool
    called: int
    partner: int
    offered: int
    trick: tuple[tuple[int, int], ...]
    tricks: tuple[Trick, ...]
    stock_size: int
    last_result: HandResult | None
    looked: tuple[bool, ...]
    history: Sequence[Event]
    """The game's event log: it only grows, so its first ``history_length`` events stay
    those of the moment."""
    history_length: int


def _common(m: _Moment) -> tuple[Any, ...]:
    """What most bots read at every decision (whose turn, trump, the hand, the trick, the
    bids), filled together at the first read of any: each first read costs a fall-back of
    its own, more than a few fields cost to work out."""
    return (m.viewer, m.players, m.parties, m.phase, m.to_move,
            None if m.trump < 0 else SUITS[m.trump], None if m.sub_trump < 0 else SUITS[m.sub_trump],
            cards_of(m.hands[m.viewer]) if m.viewer >= 0 and not is_hidden(m.viewer, m.looked, m.phase) else (),
            tuple((seat, CARDS[card]) for seat, card in m.trick), m.tricks,
            tuple((seat, amount or None) for seat, amount in m.bids))


def _rest(m: _Moment) -> tuple[Any, ...]:
    """The other fields of one value each, and the other small copies."""
    return (m.ruleset, m.hand_number, m.dealer, m.scores, m.pitcher if m.pitcher >= 0 else None,
            m.contract or None, m.stock_size, m.last_result, m.doubled,
            CARDS[m.called] if m.called >= 0 else None, m.looked, is_hidden(m.viewer, m.looked, m.phase),
            CARDS[m.offered] if m.offered >= 0 and m.viewer == m.to_move else None,
            tuple(h.bit_count() for h in m.hands),
            known_partner(m.partner, m.called, m.tricks, m.trick, m.viewer))


_Group = tuple[tuple[str, ...], Callable[[_Moment], tuple[Any, ...]]]
_GROUPS: tuple[_Group, ...] = (
    (("viewer", "players", "parties", "phase", "to_move", "trump", "sub_trump", "hand", "current_trick",
      "tricks", "bids"), _common),
    (("ruleset", "hand_number", "dealer", "scores", "pitcher", "bid", "stock_size", "last_result", "doubled",
      "called_card", "looked", "hand_hidden", "offered", "hand_sizes", "partner"), _rest),
    (("exchanged", "face_up_discards", "my_discards", "my_draws", "burned", "cokes", "bid_doubles"),
     lambda m: hand_summary(m.history, m.viewer, m.history_length)),
    (("hands",), lambda m: (tuple(cards_of(h) for h in m.hands) if m.viewer == FULL_VIEW else None,)),
)
"""The fields but ``legal_actions`` (given at once), in groups worked out together."""

_GROUP_OF = {name: (tuple(Observation.__dict__[field].__set__ for field in group[0]), group[1])
             for group in _GROUPS for name in group[0]}
"""For each field, the slot setters of its group's fields (a bound setter is a third
cheaper than ``object.__setattr__`` by name) and the group's derivation."""


class LocalObservation(LazyObservation):
    """A seat's observation of a game in this process (:func:`observe_lazily`)."""

    __slots__ = ("_moment",)

    def __getattr__(self, name: str) -> Any:
        """A field read for the first time: worked out, with its group, into its slot."""
        group = _GROUP_OF.get(name)
        if group is None:  # not a field: no such attribute, as on any Observation
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        setters, derive = group
        for setter, value in zip(setters, derive(self._moment), strict=True):
            setter(self, value)
        return getattr(self, name)


def observe_lazily(state: GameState, viewer: int, legal_actions: Sequence[Action]) -> LocalObservation:
    """What :func:`~pitch_sdk.rules.observation.observe` returns for ``viewer``, its fields
    worked out as they are read; ``legal_actions`` are the viewer's (a caller that asks for
    an observation holds them already)."""
    if viewer not in (SPECTATOR, FULL_VIEW) and not 0 <= viewer < state.players:
        raise ValueError(f"viewer {viewer} is not a seat, SPECTATOR or FULL_VIEW")
    results, history = state.results, state.history
    observation = object.__new__(LocalObservation)
    _SET_FIELD(observation, "legal_actions", legal_actions)
    _SET_FIELD(observation, "_moment", _Moment(
        viewer, state.rules.name, state.players, state.parties, state.hand_number, state.dealer,
        state.phase, state.to_move, tuple(state.scores), tuple(state.hands), tuple(state.bids),
        state.pitcher, state.contract, state.trump, state.sub_trump, state.doubled, state.called,
        state.partner, state.offered, tuple(state.trick), tuple(state.tricks), len(state.stock),
        results[-1] if results else None, tuple(state.looked), history, len(history)))
    return observation
