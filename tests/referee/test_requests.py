"""Decision requests as the referee assembles them from cached encodings: the same lists as
converting each one directly, and every event delivered once, in order, on the requests
that follow it.  The presets are the compliance coverage ones, with its options: between
them they ask every kind of decision."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from pitch_sdk.checks.compliance import COVERAGE, COVERAGE_OPTIONS
from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.proto.pitch.v1 import game_pb2 as pb
from pitch_sdk.protocol import wire
from pitch_sdk.rules import GameLog, GameState, MuckHand, observe, preset
from referee.match import Match, MatchSpec
from referee.sessions import Presence, Session
from store.redis_store import BotRecord


@pytest.mark.parametrize("name", [*COVERAGE, "kentucky-seven"])  # with its face-up discards
def test_observation_lists_merged_from_cached_parts_are_the_direct_encoding(name: str) -> None:
    """Every list field of every seat's observation, at every step of random games (short
    ones: to 5 points), is what converting and setting that list directly gives, and the
    last hand's result is its message: the cached parts (whole lists, or items) merge into
    the same message."""
    repeated = {f.name for f in pb.Observation.DESCRIPTOR.fields if f.is_repeated}
    sent = {*wire._OBSERVATION_LISTS, *wire._OBSERVATION_ITEMS, "exchanged"}
    assert repeated == sent, "a list the referee never sends"
    rules = preset(name, {**COVERAGE_OPTIONS.get(name, {}), "target": 5})
    for seed in range(2):
        rng = random.Random(seed)
        state = GameState.new(rules, seed=seed)
        for _ in range(400):
            if state.is_over:
                break
            for seat in range(state.players):
                observation = observe(state, seat)
                message = wire.observation_to_pb(observation, with_tensor=False)
                for field, convert in wire._OBSERVATION_LISTS.items():
                    direct = pb.Observation()
                    getattr(direct, field).extend(convert(getattr(observation, field)))
                    assert getattr(message, field) == getattr(direct, field), field
                for field, convert_item in wire._OBSERVATION_ITEMS.items():
                    direct = pb.Observation()
                    getattr(direct, field).extend(convert_item(item) for item in getattr(observation, field))
                    assert getattr(message, field) == getattr(direct, field), field
                assert list(message.exchanged) == wire.exchange_records_to_pb(
                    observation.exchanged, observation.face_up_discards)
                if observation.last_result is None:
                    assert not message.HasField("last_result")
                else:
                    assert message.last_result == wire.hand_result_to_pb(observation.last_result)
            state.apply(rng.choice(state.legal_actions()))


class RecordingPresence(Presence):
    """A connected seat that records what it is sent and answers with a listed action."""

    def __init__(self, skip_events: bool) -> None:
        super().__init__(BotRecord("bot", "bot", "owner", "", 0.0))
        self.session = Session(bot_pb2.Hello(capacity=1, skip_events=skip_events))
        self.received: list[bot_pb2.RefereeMessage] = []

    @property
    def connected(self) -> bool:
        return True

    def send_encoded(self, encoded: bytes) -> bool:
        message = bot_pb2.RefereeMessage.FromString(encoded)
        self.received.append(message)
        if message.HasField("decision_request"):
            request = message.decision_request
            index = len(self.received) % len(request.legal_actions)
            self.resolve(bot_pb2.Decision(match_id=request.match_id, decision_id=request.decision_id,
                                          legal_action_index=index))
        return True


@pytest.mark.parametrize("name", COVERAGE)
def test_each_event_reaches_a_listening_seat_once_in_order(name: str) -> None:
    """A seat that takes events gets each one once, as that seat may see it, in match order;
    a seat that skips them gets none; every request lists its legal actions."""
    rules = preset(name, {**COVERAGE_OPTIONS.get(name, {}), "target": 5})
    seats = [RecordingPresence(skip_events=seat == 1) for seat in range(rules.players)]
    match = Match(MatchSpec(match_id="m", ruleset=rules, seats=tuple(seats), seed=5, games=2, per_decision_ms=1000,
                            bank_ms=1000, max_strikes=3, reconnect_grace_s=5.0))
    result = asyncio.run(match.run())
    assert result.completed
    for seat, presence in enumerate(seats):
        requests = [m.decision_request for m in presence.received if m.HasField("decision_request")]
        assert requests and all(request.legal_actions for request in requests)
        delivered = [event for request in requests for event in request.events]
        delivered += [event for m in presence.received if m.HasField("events") for event in m.events.events]
        expected = [] if seat == 1 else [wire.event_to_pb(item, seat, game) for game, item in match.spectator_log]
        assert delivered == expected


class YesToMucks(RecordingPresence):
    """Answers a muck with "yes" (a CHOICE's answer: illegal there), anything else with
    the first legal action."""

    def send_encoded(self, encoded: bytes) -> bool:
        message = bot_pb2.RefereeMessage.FromString(encoded)
        self.received.append(message)
        if message.HasField("decision_request"):
            request = message.decision_request
            answer = (bot_pb2.Decision(action=pb.Action(yes=True)) if request.kind == pb.DECISION_KIND_MUCK
                      else bot_pb2.Decision(legal_action_index=0))
            answer.match_id, answer.decision_id = request.match_id, request.decision_id
            self.resolve(answer)
        return True


def test_a_muck_answered_illegally_is_struck_and_the_hand_kept() -> None:
    """The referee treats the muck like any decision: an answer that is not one of its
    legal actions is a strike, and the fallback is the first legal action, which keeps the
    hand (seed 004: players "may lay their cards face down" - a seat that does not, keeps it)."""
    rules = preset("partnership", {"muck": "new-hand", "max_hands": 8})
    seats = [YesToMucks(skip_events=True) for _ in range(rules.players)]
    match = Match(MatchSpec(match_id="m", ruleset=rules, seats=tuple(seats), seed=0, games=1, per_decision_ms=1000,
                            bank_ms=1000, max_strikes=0, reconnect_grace_s=5.0))
    assert asyncio.run(match.run()).completed
    strikes = [m.strike for presence in seats for m in presence.received if m.HasField("strike")]
    assert strikes and all(s.reason == bot_pb2.STRIKE_REASON_ILLEGAL_ACTION for s in strikes)
    assert all(s.fallback.kind == pb.DECISION_KIND_MUCK and s.fallback.text == "keep" for s in strikes)
    log = GameLog.from_dict(json.loads(match.game_logs[0]))
    mucks = [action for _, action in log.moves if isinstance(action, MuckHand)]
    assert len(mucks) == len(strikes) and all(not action.muck for action in mucks)
