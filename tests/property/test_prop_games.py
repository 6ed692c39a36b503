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
from hypothesis import example, given, settings
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


# Combos that random seeds found (the derandomized CI profile did not): with one card each
# and no refill, the bidder takes the whole stock as leftovers, unranked joker included.
_LONE_BIDDER = {"players": 3, "hand_size": 1, "deal_batch": 1, "jokers": 1, "joker_rank": "unranked",
                "trump_selection": "declare", "exchange": "discard-non-trumps", "refill_to": 0,
                "leftovers_to_bidder": True, "minimum_bid": 1, "maximum_bid": 1, "lowest_wins": True,
                "low_trump_wins": True, "trump_must_be_broken": True, "target": 1, "max_hands": 1}
#: the bidder burns the joker and every trump point card: nothing is awarded
BURNED_SUITLESS_JOKER = preset("ipitch").without_moon().with_options(
    {**_LONE_BIDDER, "off_ace": True, "off_ten": True, "off_two": True, "burn_to": 1,
     "points": ["jack", "off-ace", "joker", "ace", "ten"]})
#: the bidder plays alone: one trick is the suitless joker by itself
LONE_SUITLESS_JOKER_TRICK = preset("ipitch").without_moon().with_options(
    {**_LONE_BIDDER, "points": ["jack", "ace", "ten", "two"]})


@settings(max_examples=RANDOM_COMBO_GAMES)
@given(rules=random_rulesets(), seed=SEEDS, action_seed=SEEDS, dealer=st.integers(0, 7))
@example(rules=BURNED_SUITLESS_JOKER, seed=0, action_seed=0, dealer=0)
@example(rules=LONE_SUITLESS_JOKER_TRICK, seed=0, action_seed=0, dealer=0)
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
