"""Card-set decisions too large to list.

Seed 003: "Any cards remaining are given to the bidder" and "Burned cards are removed from
play for that hand": with small hands and no refill the bidder may hold most of the pack
and burn all but six of it, a choice among millions of sets.  The engine counts, ranks and
checks sets by their rule (``CardSetChoices``) instead of listing them, so such a decision
is as quick as any other and a referee never hangs on it.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from pitch_sdk.bots.loader import load_bot
from pitch_sdk.harness.local import play_game
from pitch_sdk.rules import CardSetChoices, CardSetRule, ChooseCards, GameState, IllegalActionError, Ruleset, preset
from pitch_sdk.rules.actions import choose_cards
from pitch_sdk.rules.cards import CARDS
from pitch_sdk.rules.cardsets import MAX_LISTED_CARD_SETS
from pitch_sdk.rules.state_fields import Phase

#: Three players of two cards, no refill, the leftovers to the bidder, who burns to six.
LONE_BIDDER_BURNS = preset("ipitch").without_moon().with_options(
    {"players": 3, "hand_size": 2, "deal_batch": 1, "exchange": "discard-non-trumps", "refill_to": 0,
     "leftovers_to_bidder": True, "burn_to": 6, "trump_selection": "declare"})


def _reference_sets(rule: CardSetRule) -> list[frozenset[int]]:
    """Every admitted set, from the rule's definition, in legal_actions() order (by size,
    then by the cards in id order)."""
    allowed = sorted(int(c) for c in rule.allowed)
    sets = [frozenset(combo) for size in range(len(allowed) + 1) for combo in combinations(allowed, size)
            if rule.min_count <= size <= rule.max_count and set(map(int, rule.required)) <= set(combo)]
    return sorted(sets, key=lambda cards: (len(cards), sorted(cards)))


def _random_rule(rng: random.Random) -> CardSetRule:
    allowed = sorted(rng.sample(range(54), rng.randint(0, 9)))
    required = sorted(rng.sample(allowed, rng.randint(0, min(3, len(allowed)))))
    low = rng.randint(len(required), len(allowed))
    return CardSetRule(tuple(CARDS[c] for c in allowed), tuple(CARDS[c] for c in required),
                       low, rng.randint(low, len(allowed)))


@pytest.mark.parametrize("seed", range(60))
def test_choices_match_the_rule_definition(seed: int) -> None:
    """Length, order, indexing and membership agree with listing every subset."""
    rule = _random_rule(random.Random(seed))
    expected = [choose_cards(cards) for cards in _reference_sets(rule)]
    choices = CardSetChoices(rule)
    assert len(choices) == len(expected)
    assert list(choices) == expected
    assert [choices[i] for i in range(len(choices))] == expected
    if expected:
        assert choices[-1] == expected[-1] and list(choices[1:3]) == expected[1:3]
    with pytest.raises(IndexError):
        choices[len(expected)]
    allowed = [int(c) for c in rule.allowed]
    for size in range(len(allowed) + 1):
        for combo in combinations(allowed, size):
            assert (ChooseCards(frozenset(CARDS[c] for c in combo)) in choices) == (choose_cards(combo) in expected)


def _at_the_big_burn() -> GameState:
    state = GameState.new(LONE_BIDDER_BURNS, seed=1)
    while state.phase is not Phase.BURN:
        state.apply(state.default_action())
    return state


def test_a_burn_of_millions_of_sets_is_decided_without_listing_them() -> None:
    state = _at_the_big_burn()
    decision = state.decision()
    assert decision.card_set is not None and decision.legal_actions == ()
    choices = CardSetChoices(decision.card_set)
    assert len(choices) > 1_000_000 > MAX_LISTED_CARD_SETS
    hand = state.hand(state.to_move)
    burn = hand[:len(hand) - 6]
    assert state.is_legal(ChooseCards(frozenset(burn)))
    assert not state.is_legal(ChooseCards(frozenset(burn[:-1])))  # one card too few
    assert state.default_action() == choices[0]
    with pytest.raises(IllegalActionError, match="legal: any 41 cards of"):
        state.apply(ChooseCards(frozenset(burn[:-1])))
    state.apply(ChooseCards(frozenset(burn)))
    assert len(state.hand(decision.seat)) == 6


def test_random_playout_through_a_huge_burn() -> None:
    state = _at_the_big_burn()
    state.playout(random.Random(3))
    assert state.is_over and state.results


@pytest.mark.parametrize("bot", ["random", "heuristic"])
@pytest.mark.parametrize("rules", [
    LONE_BIDDER_BURNS.with_options({"target": 3}),
    # Any cards may be exchanged from twenty: about a million sets.
    preset("ipitch", {"players": 2, "hand_size": 20, "exchange": "any", "trump_selection": "declare", "target": 3}),
], ids=["burn-from-the-stock", "exchange-any-of-twenty"])
def test_built_in_bots_choose_from_unlisted_sets(rules: Ruleset, bot: str) -> None:
    """Local play offers such decisions as lazy ``CardSetChoices``; the built-in bots pick
    a set without scoring every one (a list of them would not fit in memory)."""
    state = play_game(rules, [load_bot(bot) for _ in range(rules.players)], seed=1)
    assert state.is_over and state.results
