"""Properties over random games of every preset, named variants and random option combos.

Each example plays one whole game (capped with ``max_hands``) choosing uniformly among the
legal actions, and checks at every step:

1. card conservation (hands + stock + trick + tricks + discards == the deck, no duplicates);
2. ``legal_actions()`` is non-empty until game over, deterministic, sorted, and every
   listed action verifies, parses back from its text, and applies;
3. illegal actions of the decision's kind (and of other kinds) raise IllegalActionError
   and leave every slot of the state unchanged; after game over everything raises
   GameOverError;
4. every scored hand matches an independent recomputation of the awards, pips, tricks
   and the bid's effect on the scores;
7. play on a clone never changes the original, and every legal action applies to a
   clone (checked every few steps).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pitch_props import (
    PRESET_NAMES,
    VARIANTS,
    build_variant,
    capped,
    checked_game,
    random_rulesets,
)

from pitch_sdk.rules import GameState, Trick, preset

SEEDS = st.integers(0, 2**32 - 1)
GAMES_PER_PRESET = 40
GAMES_PER_VARIANT = 10
RANDOM_COMBO_GAMES = 200


def _play(rules, seed, action_seed, dealer, *, illegal=2, clone_every=30):
    state, stats = checked_game(rules, seed, action_seed, dealer=dealer % rules.players,
                                illegal=illegal, clone_every=clone_every)
    assert state.is_over and stats.hands == len(state.results)
    return stats


@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=GAMES_PER_PRESET)
@given(seed=SEEDS, action_seed=SEEDS, dealer=st.integers(0, 7), hands=st.integers(1, 8))
def test_random_games_of_every_preset(name, seed, action_seed, dealer, hands):
    _play(capped(preset(name), hands), seed, action_seed, dealer)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v[0] + ":" + ",".join(v[1]))
@settings(max_examples=GAMES_PER_VARIANT)
@given(seed=SEEDS, action_seed=SEEDS, dealer=st.integers(0, 7), hands=st.integers(1, 6))
def test_random_games_of_named_variants(variant, seed, action_seed, dealer, hands):
    _play(capped(build_variant(*variant), hands), seed, action_seed, dealer)


@settings(max_examples=RANDOM_COMBO_GAMES)
@given(rules=random_rulesets(), seed=SEEDS, action_seed=SEEDS, dealer=st.integers(0, 7))
def test_random_games_of_random_option_combos(rules, seed, action_seed, dealer):
    _play(rules, seed, action_seed, dealer)


@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=2)
@given(seed=SEEDS, action_seed=SEEDS)
def test_uncapped_games_end(name, seed, action_seed):
    """A few whole games with the preset's own hand limit: they end by a win or the limit."""
    _play(preset(name), seed, action_seed, 0, illegal=0, clone_every=0)


def test_unranked_joker_lead_without_sub_trump():
    """Seed 004 (two-trump pitch): "jokers are unranked and cannot be used to capture other
    cards. When leading a joker it is considered to be suit-less, the second play of the
    trick determines the lead suit" - also without a sub-trump: games end and no trick is
    won by a joker."""
    rules = preset("partnership", jokers=2, joker_rank="unranked", trump_selection="declare",
                   joker_may_lead_first_trick=True, points=["high", "low", "jack", "joker", "game"], max_hands=3)
    state = GameState.new(rules, seed=0)
    rng = random.Random(0)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    tricks = [event for event in state.history if isinstance(event, Trick)]
    assert tricks and all(dict(trick.plays)[trick.winner] < 52 for trick in tricks)
