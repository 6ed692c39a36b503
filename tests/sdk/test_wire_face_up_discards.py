"""Kentucky seven-point's face-up discards on the wire (seed 004: "players discard non-trump
cards face up in the center of the table"): ``ExchangeRecord.discarded`` carries them in
every seat's observation and in the event every seat and spectator receives, and converts
back to ``Observation.face_up_discards``; the cards drawn never travel but to their seat,
and rulesets without the option send counts only, as before."""

from __future__ import annotations

from pitch_sdk.protocol import wire
from pitch_sdk.protocol.observation_wire import observation_from_pb
from pitch_sdk.rules import SPECTATOR, Deal, GameState, Ruleset, observe, parse_cards, preset
from pitch_sdk.rules.events import Exchanged

#: Seat 1 bids and names hearts; seats 1, 2 and 0 lay down their non-trumps (the JD is the
#: off-jack), seat 3 holds only trumps.
HANDS = ("JD 2D 3D 4D 5D 6D", "AH KH 2C 3C 4C 5C", "QH 2S 3S 4S 5S 6S", "BJ LJ 10H 9H 8H 7H")
STOCK = "6C 7C 8C 9C 10C JC QC KC AC 7S 8S 9S 10S JS"
LAID_DOWN = [["2C", "3C", "4C", "5C"], ["2S", "3S", "4S", "5S", "6S"], ["2D", "3D", "4D", "5D", "6D"]]


def kentucky(rules: Ruleset) -> GameState:
    """The hand after the exchange, at the first lead."""
    deal = Deal(tuple(tuple(parse_cards(hand)) for hand in HANDS), tuple(parse_cards(STOCK)))
    state = GameState.from_deals(rules, [deal])
    for action in ("bid 3", "pass", "pass", "pass", "trump H"):
        state.apply(next(a for a in state.legal_actions() if str(a) == action))
    return state


def test_face_up_discards_round_trip_in_every_seats_observation() -> None:
    state = kentucky(preset("kentucky-seven"))
    for viewer in (3, 1, 0):  # an onlooker, and two seats that laid cards down
        observation = observe(state, viewer)
        message = wire.observation_to_pb(observation)
        assert [[c.name for c in e.discarded] for e in message.exchanged] == LAID_DOWN
        assert [(e.seat, e.count) for e in message.exchanged] == [(1, 4), (2, 5), (0, 5)]
        back = observation_from_pb(message, state.rules)
        assert back.face_up_discards == observation.face_up_discards != ()
        assert back.exchanged == observation.exchanged and back.my_draws == observation.my_draws
    assert observation_from_pb(wire.observation_to_pb(observe(state, 3)), state.rules).my_draws == ()


def test_the_exchange_event_shows_the_discards_to_everyone_but_not_the_draws() -> None:
    state = kentucky(preset("kentucky-seven"))
    exchanges = [e for e in state.history if isinstance(e, Exchanged)]
    for viewer in (0, 1, 2, 3, SPECTATOR):
        for event, laid in zip(exchanges, LAID_DOWN, strict=True):
            record = wire.event_to_pb(event, viewer, game=0).exchange
            assert [c.name for c in record.discarded] == laid
            assert record.count == record.drawn == len(laid)


def test_without_the_option_only_counts_travel() -> None:
    state = kentucky(preset("kentucky-seven", discards_face_up=False))
    message = wire.observation_to_pb(observe(state, 3))
    assert [(e.seat, e.count, list(e.discarded)) for e in message.exchanged] == [(1, 4, []), (2, 5, []), (0, 5, [])]
    assert observation_from_pb(message, state.rules).face_up_discards == ()
    first = next(e for e in state.history if isinstance(e, Exchanged))
    assert not wire.event_to_pb(first, SPECTATOR, game=0).exchange.discarded


def test_the_option_travels_in_the_ruleset_json() -> None:
    for face_up in (True, False):
        rules = preset("kentucky-seven", discards_face_up=face_up)
        assert wire.ruleset_from_pb(wire.ruleset_to_pb(rules)).trump.discards_face_up is face_up
