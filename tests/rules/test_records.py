"""The engine builds its records (tricks, awards, results, log events) from plain field
tuples in C (``records.tuple_builder``), bypassing the named tuples' own constructors for
speed.  These tests hold every record so built to its class's fields, so a field added to
a record without updating the builder's call fails here, not in a consumer."""

from __future__ import annotations

import random

import pytest

from pitch_sdk.rules import GameState, preset
from pitch_sdk.rules.cards import Suit
from pitch_sdk.rules.events import BidMade, Dealt, HandScored, TrumpSet
from pitch_sdk.rules.records import HandResult, PointAward, Trick


def _played(name: str, through_api: bool) -> GameState:
    state = GameState.new(preset(name), seed=7)
    rng = random.Random(7)
    if through_api:
        while not state.is_over and len(state.results) < 6:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    else:
        state.playout(rng, hands=6)
    return state


@pytest.mark.parametrize("through_api", [False, True], ids=["playout", "api"])
@pytest.mark.parametrize("name", ["partnership", "cutthroat", "ten-point", "two-trump"])
def test_every_record_has_every_field(name: str, through_api: bool) -> None:
    state = _played(name, through_api)
    assert state.results, "no hand was scored"
    for record in [*state.history, *state.results]:
        assert len(record) == len(type(record)._fields), f"{type(record).__name__} has {len(record)} fields"
    for result in state.results:
        assert isinstance(result, HandResult)
        assert isinstance(result.trump, Suit)
        assert isinstance(result.game_over, bool) and isinstance(result.doubled, bool)
        assert all(isinstance(score, int) for score in result.scores)
        assert len(result.scores) == len(result.score_changes) == state.parties
        assert all(isinstance(award, PointAward) and award.value > 0 for award in result.awards)
        assert result.to_dict()["hand_number"] == result.hand_number  # every field readable
    tricks = [event for event in state.history if isinstance(event, Trick)]
    assert tricks and all(type(card) is int for trick in tricks for _, card in trick.plays)


def test_shared_records_equal_fresh_ones() -> None:
    """Bids, trumps and awards are shared instances: equal to ones built field by field."""
    state = _played("partnership", through_api=False)
    kinds = {BidMade: 0, TrumpSet: 0, Dealt: 0, HandScored: 0}
    for event in state.history:
        if type(event) in kinds:
            kinds[type(event)] += 1
            assert event == type(event)(*event)
    assert all(kinds.values()), kinds
    for result in state.results:
        for award in result.awards:
            assert award == PointAward(award.category, award.value, award.party, award.card)
