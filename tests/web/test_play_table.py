"""The pure parts of a person's seat (no network): answering a pending decision checks the
decision id, the index and a card set against the request, and a viewer without the game's
secret never sees the hand or the decision."""

from __future__ import annotations

import asyncio

import pytest

from pitch_sdk.proto.pitch.v1 import bot_pb2, game_pb2
from pitch_sdk.protocol import wire
from pitch_sdk.rules import Card, preset
from pitch_sdk.rules.actions import PLAYS, choose_cards
from pitch_sdk.rules.state import CardSetRule
from web.humans.seat import DecisionError, Table


def table() -> Table:
    """A partnership table with the person in seat 0."""
    return Table("web-1", "secret", "partnership", 0, ["person", "a", "b", "c"], preset("partnership"))


def play_request() -> bot_pb2.DecisionRequest:
    """A play decision: two cards in hand, one of them legal."""
    request = bot_pb2.DecisionRequest(match_id="web-1", decision_id="web-1:7", seat=0, kind=game_pb2.DECISION_KIND_PLAY,
                                      time_budget_ms=1000, time_bank_ms=5000)
    request.observation.hand.extend(wire.cards_to_pb([Card.parse("AS"), Card.parse("2H")]))
    request.observation.hand_sizes.extend([2, 2, 2, 2])
    request.legal_actions.append(wire.action_to_pb(PLAYS[Card.parse("AS")]))
    return request


def test_an_answer_checks_the_decision_id_and_the_index() -> None:
    """A stale id is 409, an index out of range 400 (the decision stays), a good index is
    sent once and its card leaves the hand for the trick."""
    async def run() -> None:
        seat = table()
        seat.ask(play_request())
        with pytest.raises(DecisionError) as stale:
            seat.choose("web-1:6", 0, None)
        assert stale.value.status == 409
        with pytest.raises(DecisionError) as out:
            seat.choose("web-1:7", 1, None)
        assert out.value.status == 400 and seat.decision is not None
        answer = seat.choose("web-1:7", 0, None)
        assert answer.legal_action_index == 0 and answer.decision_id == "web-1:7"
        assert seat.view(owner=True)["hand"] == ["2H"]
        assert seat.view(owner=True)["table"]["trick"] == [{"seat": 0, "card": "AS"}]
        with pytest.raises(DecisionError):
            seat.choose("web-1:7", 0, None)  # answered already
    asyncio.run(run())


def test_a_card_set_is_checked_against_the_constraint() -> None:
    """For a decision sent as a constraint, only a set it admits becomes an action."""
    async def run() -> None:
        seat = table()
        request = bot_pb2.DecisionRequest(match_id="web-1", decision_id="web-1:3", seat=0)
        cards = [Card.parse(name) for name in ("AS", "KS", "2H")]
        request.card_set.CopyFrom(wire.card_set_rule_to_pb(CardSetRule(tuple(cards), (cards[0],), 2, 2)))
        seat.ask(request)
        with pytest.raises(DecisionError):
            seat.choose("web-1:3", None, ["KS", "2H"])  # misses the required AS
        answer = seat.choose("web-1:3", None, ["AS", "2H"])
        assert wire.action_from_pb(answer.action) == choose_cards([cards[0], cards[2]])
    asyncio.run(run())


def test_a_viewer_without_the_secret_sees_public_facts_only() -> None:
    """No hand, no decision; the card counts and the table are there."""
    async def run() -> None:
        seat = table()
        seat.ask(play_request())
        public = seat.view(owner=False)
        assert public["hand"] == [] and public["decision"] is None
        assert public["table"]["hand_sizes"] == [2, 2, 2, 2]
        mine = seat.view(owner=True)["decision"]
        assert mine["kind"] == "play" and mine["actions"][0]["card"] == "AS"
    asyncio.run(run())
