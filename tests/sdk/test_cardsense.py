"""The card sense's tables (``TrumpSense.beaters``, the stakes' fixed parts) answer as their
definitions do, card by card, for every preset, trump and sub-trump: they only spare the
bots the loops."""

from __future__ import annotations

import random

import pytest

from pitch_sdk.bots.cardsense import POINTS_PER_PIP, TrumpSense, rules_sense
from pitch_sdk.rules import Suit, preset
from pitch_sdk.rules.cards import mask_of
from pitch_sdk.rules.presets import PRESETS
from pitch_sdk.rules.tables import PIPS2


def senses(name: str) -> list[TrumpSense]:
    """Every trump's sense under preset ``name``, with each sub-trump where it has them."""
    rules = rules_sense(preset(name))
    subs = range(-1, 4) if rules.ruleset.trump.sub_trump else (-1,)
    return [rules.under(trump, sub) for trump in Suit for sub in subs if sub != trump]


def stake_by_definition(info: TrumpSense, card: int, unseen: int) -> float:
    value = float(info.fixed_points.get(card, 0))
    if info.pips_count:
        value += PIPS2[card] / 2 * POINTS_PER_PIP
    if info.low_value and not info.low_to_player and card in info.low_candidates:
        lower = info.low_candidates[:info.low_candidates.index(card)]
        value += info.low_value * 0.5 ** (mask_of(lower) & unseen).bit_count()
    return value


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_stakes_and_beaters_answer_as_their_definitions(name: str) -> None:
    rng = random.Random(name)
    deck = rules_sense(preset(name)).deck
    cards = [card for card in range(54) if deck >> card & 1]
    for info in senses(name):
        for _ in range(3):
            unseen = mask_of(rng.sample(cards, rng.randrange(len(cards))))
            for card in cards:
                assert info.stake(card, unseen) == stake_by_definition(info, card, unseen)
            for lead in rng.sample(cards, 3):
                for power in {-1, *(info.power(card, lead) for card in cards)}:
                    beaten = any(info.power(card, lead) > power for card in cards if unseen >> card & 1)
                    assert bool(unseen & info.beaters(power, lead)) is beaten
