"""The muck decision on the wire (seed 004: players "may lay their cards face down"): its
phase, decision kind and answers convert both ways, and the mucked hand shown after the
hand ("The cards can be checked by the other players after the hand has been played")
reaches every seat and spectators as a ``MatchEvent.muck_shown``."""

from __future__ import annotations

from pitch_sdk.proto.pitch.v1 import game_pb2 as pb
from pitch_sdk.protocol import wire
from pitch_sdk.protocol.observation_wire import observation_from_pb
from pitch_sdk.rules import SPECTATOR, Deal, DecisionKind, GameState, MuckHand, Phase, observe, parse_cards, preset
from pitch_sdk.rules.actions import KEEP_HAND, MUCK_HAND
from pitch_sdk.rules.events import MuckShown

#: Seat 2 (asked first, from eldest) and seat 0, the dealer, hold no card worth a pip.
HANDS = ("2C 3C 4C 5C 6C 7C", "AH KH 2D 3D 4D 5D", "2S 3S 4S 5S 6S 7S", "8C 9C JC 8D 9D 6D")


def muck_game(option: str) -> GameState:
    deal = Deal(tuple(tuple(parse_cards(hand)) for hand in HANDS))
    return GameState.from_deals(preset("partnership", muck=option), [deal])


def test_keep_and_muck_round_trip_as_actions() -> None:
    for action in (KEEP_HAND, MUCK_HAND):
        message = wire.action_to_pb(action)
        assert message.kind == pb.DECISION_KIND_MUCK and message.WhichOneof("choice") == "muck"
        assert message.muck is action.muck and message.text == str(action)
        assert wire.action_from_pb(message) == action
        assert wire.action_from_pb(pb.Action(text=str(action))) == action  # the text form alone
    assert wire.action_from_pb(pb.Action(muck=False)) == MuckHand(False)  # false is an answer too
    assert wire.kind_from_pb(wire.kind_to_pb(DecisionKind.MUCK)) is DecisionKind.MUCK


def test_the_muck_phase_round_trips_in_an_observation() -> None:
    state = muck_game("new-hand")
    assert state.phase is Phase.MUCK and state.to_move == 2
    observation = observe(state, 2)
    message = wire.observation_to_pb(observation)
    assert message.phase == pb.PHASE_MUCK
    back = observation_from_pb(message, state.rules, observation.legal_actions)
    assert back.phase is Phase.MUCK and list(back.legal_actions) == [KEEP_HAND, MUCK_HAND]


def test_a_mucked_hand_is_shown_to_every_seat_after_the_hand() -> None:
    state = muck_game("new-hand")
    state.apply(MUCK_HAND)
    state.apply(KEEP_HAND)
    results = len(state.results)
    while len(state.results) == results:
        state.apply(state.legal_actions()[0])
    shown = next(e for e in state.history if isinstance(e, MuckShown))
    for viewer in (0, 1, 3, SPECTATOR):
        event = wire.event_to_pb(shown, viewer, game=0)
        assert event.game == 1 and event.WhichOneof("event") == "muck_shown"
        assert event.muck_shown.seat == 2 and not event.muck_shown.redeal
        assert [c.name for c in event.muck_shown.cards] == HANDS[2].split()


def test_a_redeal_shows_the_asking_hand_at_once() -> None:
    state = muck_game("redeal")
    state.apply(MUCK_HAND)
    shown = next(e for e in state.history if isinstance(e, MuckShown))
    event = wire.event_to_pb(shown, 1, game=0)
    assert event.muck_shown.redeal and event.muck_shown.seat == 2
    assert [c.name for c in event.muck_shown.cards] == HANDS[2].split()
