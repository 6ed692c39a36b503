"""The observation the local harness hands a bot (``observe_lazily``: each field worked out
at its first read) holds exactly what ``observe`` builds, for every preset and viewer,
whatever order the fields are read in and however far the game has moved on since, and
behaves as a plain ``Observation`` (equality, hashing, ``repr``, ``replace``, copies,
pickling)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
from collections.abc import Iterator

import pytest

from pitch_sdk.rules import FULL_VIEW, SPECTATOR, GameState, Observation, Ruleset, observe, preset
from pitch_sdk.rules.lazy_observation import LocalObservation, observe_lazily
from pitch_sdk.rules.presets import PRESETS

FIELD_NAMES = tuple(field.name for field in dataclasses.fields(Observation))
DECISIONS_PER_PRESET = 40


def observations(rules: Ruleset, seed: int) -> Iterator[tuple[Observation, LocalObservation]]:
    """Every viewer's eager and lazy observation at each of ``DECISIONS_PER_PRESET``
    decisions of seeded random games (from game ``seed`` on)."""
    rng = random.Random(seed)
    decisions = 0
    while decisions < DECISIONS_PER_PRESET:
        state = GameState.new(rules, seed=seed)
        while not state.is_over and decisions < DECISIONS_PER_PRESET:
            for viewer in (*range(state.players), SPECTATOR, FULL_VIEW):
                observation = observe(state, viewer)
                yield observation, observe_lazily(state, viewer, observation.legal_actions)
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
        seed += 1


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_field_reads_as_observe_built_it(name: str) -> None:
    rules = preset(name)
    rng = random.Random(name)
    pending: list[tuple[Observation, LocalObservation]] = []
    for observation, lazy in observations(rules, seed=len(name)):
        order = list(FIELD_NAMES)
        rng.shuffle(order)
        for field in order[: rng.randrange(len(order))]:  # some fields read before the comparisons
            assert getattr(lazy, field) == getattr(observation, field), field
        assert repr(lazy) == repr(observation)  # repr tells a Card from an int, a Suit from a str
        assert lazy == observation and observation == lazy
        assert [lazy != observation, observation != lazy] == [False, False]
        assert hash(lazy) == hash(observation)
        if rng.random() < 0.2:  # read only after the game has moved on
            pending.append((observation, observe_lazily_again(observation, lazy)))
    for observation, lazy in pending:
        assert repr(lazy) == repr(observation)


def observe_lazily_again(observation: Observation, lazy: LocalObservation) -> LocalObservation:
    """A fresh lazy observation of the same moment, no field read yet."""
    fresh = object.__new__(LocalObservation)
    object.__setattr__(fresh, "legal_actions", observation.legal_actions)
    object.__setattr__(fresh, "_moment", lazy._moment)
    return fresh


def test_it_is_a_copy_of_its_moment_not_a_view_of_the_state() -> None:
    state = GameState.new(preset("partnership"), seed=2)
    rng = random.Random(2)
    while not state.tricks:
        state.apply(rng.choice(state.legal_actions()))
    seat = state.to_move
    observation = observe(state, seat)
    lazy = observe_lazily(state, seat, observation.legal_actions)
    for _ in range(40):  # into the next hand: new hands, tricks, bids, scores
        state.apply(rng.choice(state.legal_actions()))
    assert lazy == observation and repr(lazy) == repr(observation)


def test_it_copies_pickles_and_replaces_as_a_plain_observation() -> None:
    rules = preset("cutthroat")
    for observation, lazy in list(observations(rules, seed=5))[::29]:
        for copied in (pickle.loads(pickle.dumps(lazy)), copy.copy(lazy), copy.deepcopy(lazy)):
            assert type(copied) is Observation and copied == observation
        replaced = dataclasses.replace(lazy, legal_actions=())
        assert replaced == dataclasses.replace(observation, legal_actions=())
        assert replaced.party == observation.party


def test_an_unknown_attribute_is_missing_as_on_any_observation() -> None:
    observation, lazy = next(observations(preset("partnership"), seed=1))
    assert not hasattr(lazy, "no_such_field")
    with pytest.raises(AttributeError, match="no_such_field"):
        lazy.no_such_field  # noqa: B018 (the read is the test)
    with pytest.raises(dataclasses.FrozenInstanceError):
        lazy.hand = ()  # type: ignore[misc]
    assert lazy.hand is lazy.hand == observation.hand  # worked out once, then read from its slot


def test_a_viewer_that_is_no_seat_is_refused_as_by_observe() -> None:
    state = GameState.new(preset("partnership"))
    with pytest.raises(ValueError, match="viewer 4"):
        observe_lazily(state, 4, ())
