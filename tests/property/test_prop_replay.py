"""Property 6: a game's log survives JSON and replays to the identical game; property 7's
companion: a clone taken mid-game equals the replay of the moves made so far.

The log is ``GameLog.of(state)`` -> ``to_json()`` -> ``json.loads`` -> ``from_dict`` ->
``replay``; the replayed state must equal the original in every slot (results, scores,
history, moves, winner ...).  Games from explicit deals (scenarios) round-trip their deals.
"""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from pitch_props import (
    PRESET_NAMES,
    VARIANTS,
    build_variant,
    capped,
    checked_game,
    deck_mask,
    diff_snapshots,
    random_rulesets,
    snapshot,
)

from pitch_sdk.rules import CARDS, Deal, GameLog, GameState, preset, replay

SEEDS = st.integers(0, 2**32 - 1)
PRESET_GAMES = 120
COMBO_GAMES = 80
DEAL_GAMES = 50

RULES = st.one_of(
    st.sampled_from(PRESET_NAMES).map(preset),
    st.sampled_from(VARIANTS).map(lambda v: build_variant(*v)),
)


def check_replay(state: GameState, deals: tuple[Deal, ...], midway: list[GameState]) -> None:
    log = GameLog.of(state, deals)
    text = log.to_json()
    back = GameLog.from_dict(json.loads(text))
    assert back == log, "the log changed through JSON"
    assert back.to_json() == text
    again = replay(back)
    assert again.results == state.results
    assert again.scores == state.scores
    assert again.history == state.history
    assert again.winner == state.winner and again.win_reason == state.win_reason
    changed = diff_snapshots(snapshot(state), snapshot(again))
    assert not changed, f"the replay differs in {changed}"
    json.dumps([event.to_dict() for event in state.history])  # the log is JSON-ready
    for clone in midway:  # replaying a prefix of the moves reaches the same mid-game state
        prefix = GameLog(log.ruleset, log.seed, log.dealer, deals, log.moves[:len(clone.moves)])
        changed = diff_snapshots(snapshot(clone), snapshot(replay(prefix)))
        assert not changed, f"replaying {len(clone.moves)} moves differs in {changed}"


def _game(rules, seed, action_seed, dealer, deals=()):
    rng = random.Random(action_seed ^ 0x5EED)
    midway: list[GameState] = []

    def keep(state: GameState) -> None:
        if rng.random() < 0.02:
            midway.append(state.clone())

    state, _ = checked_game(rules, seed, action_seed, dealer=dealer % rules.players, deals=deals,
                            legality=False, scoring=False, conservation=bool(deals), on_step=keep)
    check_replay(state, deals, midway)


@settings(max_examples=PRESET_GAMES)
@given(rules=RULES, seed=SEEDS, action_seed=SEEDS, dealer=st.integers(0, 7), hands=st.integers(1, 8))
def test_replay_reproduces_preset_games(rules, seed, action_seed, dealer, hands):
    _game(capped(rules, hands), seed, action_seed, dealer)


@settings(max_examples=COMBO_GAMES)
@given(rules=random_rulesets(), seed=SEEDS, action_seed=SEEDS, dealer=st.integers(0, 7))
def test_replay_reproduces_random_option_games(rules, seed, action_seed, dealer):
    _game(rules, seed, action_seed, dealer)


@settings(max_examples=DEAL_GAMES)
@given(rules=RULES, seed=SEEDS, action_seed=SEEDS, deal_seed=SEEDS, count=st.integers(1, 3),
       with_stock=st.booleans(), hands=st.integers(1, 4))
def test_replay_reproduces_games_from_explicit_deals(rules, seed, action_seed, deal_seed, count,
                                                      with_stock, hands):
    rules = capped(rules, hands)
    rng = random.Random(deal_seed)
    size = rules.deal.hand_size
    deals = []
    for _ in range(count):
        deck = [c for c in CARDS if deck_mask(rules) >> c & 1]
        rng.shuffle(deck)
        hands_dealt = tuple(tuple(deck[i * size:(i + 1) * size]) for i in range(rules.players))
        deals.append(Deal(hands_dealt, tuple(deck[rules.players * size:]) if with_stock else ()))
    _game(rules, seed, action_seed, 0, tuple(deals))


@settings(max_examples=PRESET_GAMES)
@given(rules=st.one_of(RULES, random_rulesets()), seed=SEEDS, action_seed=SEEDS, hands=st.integers(1, 6))
def test_random_playouts_replay_through_apply(rules, seed, action_seed, hands):
    """GameState.playout (the rollout fast path, with its inlined trick loop) makes only
    moves that apply() accepts, and reaches the identical game: every move is re-checked
    with the engine's own legality rules during the replay."""
    state = GameState.new(capped(rules, hands), seed=seed)
    state.playout(random.Random(action_seed))
    replayed = replay(GameLog.of(state))
    assert diff_snapshots(snapshot(replayed), snapshot(state)) == []
    assert replayed.is_over and replayed.results == state.results
