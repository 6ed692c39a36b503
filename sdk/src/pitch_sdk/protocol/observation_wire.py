"""An ``Observation`` message back to the :class:`~pitch_sdk.rules.Observation` a bot reads.

A bot connected to a referee is sent its seat's whole observation at every decision, yet
most bots read a few of its fields (the hand, the trick, the trump), and decoding every
field of every observation was a third of the SDK's own cost per decision.  So the SDK
hands its bots a :class:`ReceivedObservation`: an ``Observation`` whose fields are decoded
from the message the first time they are read, and stored in the field's own slot, so that
a second read costs what it costs on any ``Observation``.  Every field decodes to the value
the eager :func:`observation_from_pb` gives, which is what the engine's ``observe`` built on
the referee (the tests check both on real games of every preset).

The decoders are one table (:data:`FIELDS`) that the eager and the lazy decode share, so
the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from pitch_sdk.proto.pitch.v1 import game_pb2 as pb
from pitch_sdk.protocol import wire
from pitch_sdk.rules import Action, Card, HandResult, Observation, Ruleset, Trick
from pitch_sdk.rules.cardsets import CardSetChoices
from pitch_sdk.rules.lazy_observation import LazyObservation


@lru_cache(maxsize=4096)
def _trick_from_pb(encoded: bytes) -> Trick:
    """A finished trick from its encoding (cached: every later decision of the hand
    carries it again, and encoding it back in protobuf's C code costs a fraction of
    decoding it)."""
    trick = pb.Trick.FromString(encoded)
    return Trick(trick.leader, tuple((seat, int(card)) for seat, card in _plays_from_pb(trick.plays)), trick.winner)


def _plays_from_pb(plays: Sequence[pb.PlayRecord]) -> tuple[tuple[int, Card], ...]:
    """Card plays back to (seat, card) pairs."""
    return tuple(zip([play.seat for play in plays], wire.cards_from_pb([play.card for play in plays]), strict=True))


def _face_up_discards(exchanged: Sequence[pb.ExchangeRecord]) -> tuple[tuple[Card, ...], ...]:
    """``Observation.face_up_discards`` from the exchange records: empty while none shows a
    card, as :func:`~pitch_sdk.rules.observation.observe` builds it."""
    if not any(record.discarded for record in exchanged):
        return ()
    return tuple(wire.cards_from_pb(record.discarded) for record in exchanged)


_last_result_seen: list[tuple[pb.HandResult, bool, HandResult]] = []
"""The last hand result :func:`_last_result` decoded: one entry, enough for every seat of a
process (they all carry the same last result until the next hand is scored)."""


def _last_result(message: pb.Observation, rules: Ruleset) -> HandResult | None:
    """An observation's last hand result, decoded once for all the decisions that carry it
    (every decision of a hand); the comparison of messages runs in protobuf's C code."""
    if not message.HasField("last_result"):
        return None
    encoded, auction = message.last_result, rules.bidding.auction
    if _last_result_seen:
        seen, seen_auction, result = _last_result_seen[0]
        if seen_auction == auction and seen == encoded:
            return result
    result = wire.hand_result_from_pb(encoded, auction)
    _last_result_seen[:] = [(encoded, auction, result)]
    return result


_Decoder = Callable[[pb.Observation, Ruleset], Any]

_SCALARS: dict[str, _Decoder] = {
    "viewer": lambda m, r: m.seat,
    "players": lambda m, r: m.players,
    "parties": lambda m, r: m.parties,
    "hand_number": lambda m, r: m.hand_number,
    "dealer": lambda m, r: m.dealer,
    "phase": lambda m, r: wire.phase_from_pb(m.phase),
    "to_move": lambda m, r: m.to_move,
    "pitcher": lambda m, r: m.pitcher if m.has_pitcher else None,
    "bid": lambda m, r: m.bid if m.has_pitcher and r.bidding.auction and m.bid else None,
    "trump": lambda m, r: wire.suit_from_pb(m.trump),
    "stock_size": lambda m, r: m.stock_size,
    "sub_trump": lambda m, r: wire.suit_from_pb(m.sub_trump),
    "doubled": lambda m, r: m.doubled,
    "called_card": lambda m, r: wire.card_from_pb(m.called_card) if m.HasField("called_card") else None,
    "partner": lambda m, r: m.partner if m.has_partner else None,
    "hand_hidden": lambda m, r: m.hand_hidden,
    "offered": lambda m, r: wire.card_from_pb(m.offered) if m.HasField("offered") else None,
}
"""The fields of one value each: a :class:`ReceivedObservation` decodes them all at the first
read of any (a bot reads several, and each first read costs a fall-back of its own)."""

_LISTS: dict[str, _Decoder] = {
    "scores": lambda m, r: tuple(m.scores),
    "hand": lambda m, r: wire.cards_from_pb(m.hand),
    "hand_sizes": lambda m, r: tuple(m.hand_sizes),
    "bids": lambda m, r: tuple((b.seat, b.amount or None) for b in m.bids),
    "current_trick": lambda m, r: _plays_from_pb(m.current_trick),
    "tricks": lambda m, r: tuple(_trick_from_pb(trick.SerializeToString()) for trick in m.tricks),
    "exchanged": lambda m, r: tuple((e.seat, e.count) for e in m.exchanged),
    "my_discards": lambda m, r: wire.cards_from_pb(m.my_discards),
    "my_draws": lambda m, r: wire.cards_from_pb(m.my_draws),
    "last_result": _last_result,
    "looked": lambda m, r: tuple(m.looked),
    "burned": lambda m, r: tuple((s.seat, wire.cards_from_pb(s.cards)) for s in m.burned),
    "cokes": lambda m, r: tuple((s.seat, wire.cards_from_pb(s.cards)) for s in m.cokes),
    "bid_doubles": lambda m, r: tuple(m.bid_doubles),
    "face_up_discards": lambda m, r: _face_up_discards(m.exchanged),
}
"""The other fields, each decoded at its own first read."""

FIELDS: dict[str, _Decoder] = {**_SCALARS, **_LISTS}
"""How each field of ``Observation`` is read from the message, but the three that do not
come from it: ``ruleset`` (the ruleset's name), ``hands`` (only the full view has them,
and no bot is sent it) and ``legal_actions`` (decoded from the request, beside it)."""


def _legal(legal_actions: Sequence[Action]) -> Sequence[Action]:
    """``Observation.legal_actions`` as the engine gives it: a tuple, or the lazy choices of
    a card set too large to list."""
    return legal_actions if isinstance(legal_actions, CardSetChoices) else tuple(legal_actions)


def observation_from_pb(message: pb.Observation, ruleset: Ruleset,
                        legal_actions: Sequence[Action] = ()) -> Observation:
    """A message back to the :class:`Observation` a ``Bot`` receives, every field decoded
    now (the SDK itself hands bots a :class:`ReceivedObservation` instead)."""
    return Observation(ruleset=ruleset.name, hands=None, legal_actions=_legal(legal_actions),
                       **{name: decode(message, ruleset) for name, decode in FIELDS.items()})


_SET_FIELD = object.__setattr__
"""Writes a field's slot on a frozen observation (as the dataclass's own ``__init__`` does)."""


class ReceivedObservation(LazyObservation):
    """An :class:`Observation` decoded from its message field by field, as the bot reads
    them (see the module's docstring).

    It is an ``Observation`` in every way a bot can tell (:class:`LazyObservation`).  A
    field not read yet is an empty slot; reading it fails over to :meth:`__getattr__`,
    which decodes it into the slot."""

    __slots__ = ("_message", "_rules")

    @classmethod
    def of(cls, message: pb.Observation, rules: Ruleset, legal_actions: Sequence[Action]) -> ReceivedObservation:
        """The observation ``message`` holds, nothing decoded yet.  (Not ``__init__``: the
        dataclass's own, inherited, is what ``dataclasses.replace`` calls with every field.)"""
        observation = object.__new__(cls)
        _SET_FIELD(observation, "_message", message)
        _SET_FIELD(observation, "_rules", rules)
        _SET_FIELD(observation, "ruleset", rules.name)
        _SET_FIELD(observation, "hands", None)
        _SET_FIELD(observation, "legal_actions", _legal(legal_actions))
        return observation

    def __getattr__(self, name: str) -> Any:
        """A field read for the first time: decoded from the message into its slot (with
        every other scalar, for a scalar)."""
        decode = _LISTS.get(name)
        if decode is not None:
            value = decode(self._message, self._rules)
            _SET_FIELD(self, name, value)
            return value
        if name not in _SCALARS:  # not a field: no such attribute, as on any Observation
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        message, rules = self._message, self._rules
        for scalar, decode in _SCALARS.items():
            _SET_FIELD(self, scalar, decode(message, rules))
        return getattr(self, name)
