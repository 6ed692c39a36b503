"""Property 8: text and JSON forms read back to equal values.

Rulesets (every preset, the named variants, random option combos) through ``to_json`` /
``from_json`` and ``to_dict`` / ``json`` / ``from_dict``; every card through its name;
every kind of action through ``parse_action(str(action))`` (legal actions of real games
are also checked at every step of the game properties).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pitch_props import PRESET_NAMES, VARIANTS, build_variant, random_rulesets

from pitch_sdk.rules import (
    CARDS,
    PASS,
    Bid,
    CallCard,
    Card,
    Choose,
    ChooseCards,
    DeclareTrump,
    MuckHand,
    PlayCard,
    Ruleset,
    Suit,
    parse_action,
    parse_cards,
    preset,
)


def check_ruleset_round_trip(rules: Ruleset) -> None:
    text = rules.to_json()
    back = Ruleset.from_json(text)
    assert back == rules and hash(back) == hash(rules)
    assert back.to_json() == text
    via_dict = Ruleset.from_dict(json.loads(json.dumps(rules.to_dict())))
    assert via_dict == rules
    assert via_dict.points_in_play == rules.points_in_play
    assert via_dict.deck_size == rules.deck_size


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_preset_json_round_trip(name):
    rules = preset(name)
    assert rules.name == name
    check_ruleset_round_trip(rules)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v[0] + ":" + ",".join(v[1]))
def test_variant_json_round_trip(variant):
    check_ruleset_round_trip(build_variant(*variant))


@settings(max_examples=300)
@given(rules=random_rulesets())
def test_random_ruleset_json_round_trip(rules):
    check_ruleset_round_trip(rules)


def test_every_card_name_round_trips():
    assert len(CARDS) == 54 and len({c.name for c in CARDS}) == 54
    for card in CARDS:
        assert Card.parse(str(card)) == card
        assert Card.parse(card.name.lower()) == card
        assert Card.parse(f" {card.name} ") == card
        if not card.is_joker:
            assert Card.of(card.rank, card.suit) == card
    assert parse_cards(" ".join(map(str, CARDS))) == list(CARDS)


ACTIONS = st.one_of(
    st.just(PASS),
    st.builds(Bid, st.integers(0, 99)),
    st.builds(DeclareTrump, st.sampled_from(list(Suit))),
    st.builds(PlayCard, st.sampled_from(CARDS)),
    st.builds(CallCard, st.sampled_from(CARDS)),
    st.builds(ChooseCards, st.frozensets(st.sampled_from(CARDS), max_size=12)),
    st.builds(Choose, st.booleans()),
    st.builds(MuckHand, st.booleans()),
)


@settings(max_examples=500)
@given(action=ACTIONS)
def test_every_action_kind_round_trips(action):
    text = str(action)
    assert parse_action(text) == action
    assert parse_action(f"  {text.upper()} ") == action
