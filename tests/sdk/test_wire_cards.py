"""Reading a ``Card`` from the wire (pitch_sdk.protocol.wire, which the referee uses on every answer):
the id, the name, or both when they agree; a card whose id and name disagree is refused,
never silently read as one of them."""

from __future__ import annotations

import pytest

from pitch_sdk.proto.pitch.v1 import game_pb2 as pb
from pitch_sdk.protocol import wire
from pitch_sdk.rules import CARDS, ActionParseError, Card, RulesError
from pitch_sdk.rules.actions import PLAYS, choose_cards

AS, TEN_H, TWO_C = Card.parse("AS"), Card.parse("10H"), Card.parse("2C")


@pytest.mark.parametrize(("message", "card"), [
    (pb.Card(id=AS, name="AS"), AS),
    (pb.Card(id=AS), AS),  # id only
    (pb.Card(name="10H"), TEN_H),  # name only
    (pb.Card(id=TEN_H, name="10h"), TEN_H),  # names are read case-insensitively, as in text actions
    (pb.Card(), TWO_C),  # id 0 is the two of clubs
    (pb.Card(id=0, name="AS"), AS),  # proto3 cannot tell id 0 from no id: the name decides
])
def test_a_card_is_read_from_its_id_its_name_or_both(message: pb.Card, card: Card) -> None:
    assert wire.card_from_pb(message) == card


def test_every_card_the_referee_sends_reads_back() -> None:
    for card in CARDS:
        assert wire.card_from_pb(wire.card_to_pb(card)) == card


def test_an_id_and_a_name_that_disagree_are_refused_naming_both() -> None:
    """Before, the id silently won: a bot whose numbering is off by one played other cards
    than the ones it named, and nobody told it."""
    with pytest.raises(ActionParseError, match=r"card id 51 is AS but its name says '10H'"):
        wire.card_from_pb(pb.Card(id=AS, name="10H"))
    with pytest.raises(ActionParseError, match="but its name says"):
        wire.action_from_pb(pb.Action(kind=pb.DECISION_KIND_PLAY, play=pb.Card(id=TEN_H + 1, name="10H")))
    with pytest.raises(ActionParseError, match="but its name says"):
        wire.action_from_pb(pb.Action(cards=pb.CardSet(cards=[pb.Card(id=AS, name="AS"), pb.Card(id=5, name="2C")])))


def test_bad_ids_and_names_are_refused() -> None:
    with pytest.raises(ActionParseError, match="out of range"):
        wire.card_from_pb(pb.Card(id=54, name="AS"))
    with pytest.raises(RulesError, match="unknown card"):
        wire.card_from_pb(pb.Card(name="ZZ"))


def test_an_actions_kind_is_not_read_and_its_cards_may_come_in_any_order() -> None:
    """What the .proto says of an answer: `choice` (else `text`) decides, `kind` is ignored;
    a card set is a set, its cards in any order."""
    assert wire.action_from_pb(pb.Action(kind=pb.DECISION_KIND_BID, play=wire.card_to_pb(AS))) == PLAYS[AS]
    unsorted = pb.CardSet(cards=[wire.card_to_pb(AS), wire.card_to_pb(TWO_C)])
    assert wire.action_from_pb(pb.Action(cards=unsorted)) == choose_cards([TWO_C, AS])
