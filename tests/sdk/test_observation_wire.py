"""The observation a bot receives from a referee (``ReceivedObservation``, decoded field by
field as the bot reads them) holds exactly what the engine's ``observe`` built on the
referee's side, for every preset, whatever order the fields are read in, and behaves as a
plain ``Observation`` (equality, hashing, ``replace``, copies, pickling)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
from collections.abc import Iterator

import pytest

from pitch_sdk.proto.pitch.v1 import game_pb2 as pb
from pitch_sdk.protocol import wire
from pitch_sdk.protocol.observation_wire import FIELDS, ReceivedObservation, observation_from_pb
from pitch_sdk.rules import GameState, Observation, Ruleset, observe, preset
from pitch_sdk.rules.presets import PRESETS

FIELD_NAMES = tuple(field.name for field in dataclasses.fields(Observation))
DECISIONS_PER_PRESET = 50


def observations(rules: Ruleset, seed: int) -> Iterator[tuple[Observation, pb.Observation]]:
    """Every seat's observation at each of ``DECISIONS_PER_PRESET`` decisions of seeded
    random games (from game ``seed`` on), with the message the referee sends for it."""
    rng = random.Random(seed)
    decisions = 0
    while decisions < DECISIONS_PER_PRESET:
        state = GameState.new(rules, seed=seed)
        while not state.is_over and decisions < DECISIONS_PER_PRESET:
            for seat in range(state.players):
                observation = observe(state, seat)
                yield observation, pb.Observation.FromString(
                    wire.observation_bytes(observation, with_tensor=seat == 0))
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
        seed += 1


def test_the_decoders_cover_every_field_sent() -> None:
    assert set(FIELDS) == set(FIELD_NAMES) - {"ruleset", "hands", "legal_actions"}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_field_reads_as_the_engine_observed_it(name: str) -> None:
    rules = preset(name)
    rng = random.Random(name)
    seen = 0
    for observation, message in observations(rules, seed=len(name)):
        received = ReceivedObservation.of(message, rules, observation.legal_actions)
        order = list(FIELD_NAMES)
        rng.shuffle(order)
        for field in order[: rng.randrange(len(order))]:  # some fields read before the comparisons
            assert getattr(received, field) == getattr(observation, field), field
        assert received == observation and observation == received
        assert [received != observation, observation != received] == [False, False]
        assert hash(received) == hash(observation)
        eager = observation_from_pb(message, rules, observation.legal_actions)
        assert eager == observation and repr(received) == repr(eager)
        seen += 1
    assert seen >= DECISIONS_PER_PRESET * rules.players


def test_a_field_is_decoded_once_then_read_from_its_slot() -> None:
    rules = preset("partnership")
    observation, message = next(o for o in observations(rules, seed=3) if o[0].tricks)
    received = ReceivedObservation.of(message, rules, observation.legal_actions)
    assert received.tricks is received.tricks and received.hand is received.hand
    assert received.viewer == observation.viewer  # and with it every other one-value field
    message.Clear()  # decoded values stay; the fields not read yet would now read as empty
    assert received.tricks == observation.tricks and received.hand == observation.hand
    assert received.dealer == observation.dealer and received.trump == observation.trump is not None
    assert received.scores == () != observation.scores


def test_it_copies_pickles_and_replaces_as_a_plain_observation() -> None:
    rules = preset("cutthroat")
    for observation, message in list(observations(rules, seed=5))[::97]:
        received = ReceivedObservation.of(message, rules, observation.legal_actions)
        for copied in (pickle.loads(pickle.dumps(received)), copy.copy(received), copy.deepcopy(received)):
            assert type(copied) is Observation and copied == observation
        replaced = dataclasses.replace(received, legal_actions=())
        assert replaced == dataclasses.replace(observation, legal_actions=())
        assert replaced.party == observation.party


def test_an_unknown_attribute_is_missing_as_on_any_observation() -> None:
    rules = preset("partnership")
    observation, message = next(observations(rules, seed=1))
    received = ReceivedObservation.of(message, rules, observation.legal_actions)
    assert not hasattr(received, "no_such_field")
    with pytest.raises(AttributeError, match="no_such_field"):
        received.no_such_field  # noqa: B018 (the read is the test)
    with pytest.raises(dataclasses.FrozenInstanceError):
        received.hand = ()  # type: ignore[misc]
