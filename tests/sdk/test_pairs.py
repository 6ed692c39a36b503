"""Duplicate pairs on the local engine, and the noisy heuristic bot that makes fields of
known strength order."""

from __future__ import annotations

import pytest

from pitch_sdk.bots import HeuristicBot, RandomBot
from pitch_sdk.bots.noisy import NoisyHeuristicBot
from pitch_sdk.harness.local import play_game
from pitch_sdk.harness.pairs import play_pair
from pitch_sdk.rules import preset


def test_a_duplicate_pair_swaps_the_seats_on_the_same_deals() -> None:
    """The heuristic bot takes no random decisions, so two copies replaying the same deals
    from the other seats replay the same game with the sides exchanged: whichever party
    wins, NEW wins exactly one of the two games.  Independent deals promise nothing."""
    rules = preset("partnership")
    assert [play_pair(rules, HeuristicBot, HeuristicBot, seed) for seed in range(4)] == [1.0] * 4
    independent = [play_pair(rules, HeuristicBot, HeuristicBot, seed, duplicate=False) for seed in range(8)]
    assert set(independent) != {1.0}
    assert play_pair(rules, HeuristicBot, RandomBot, 3) == 2.0


def test_pairs_need_two_parties() -> None:
    with pytest.raises(ValueError, match="3 parties: duplicate pairs need two"):
        play_pair(preset("cutthroat"), HeuristicBot, RandomBot, 1)


def test_the_noisy_bot_without_noise_is_the_heuristic_bot() -> None:
    rules = preset("partnership")
    plain = play_game(rules, [HeuristicBot() for _ in range(4)], seed=5)
    noiseless = play_game(rules, [NoisyHeuristicBot(0.0) for _ in range(4)], seed=5)
    assert (noiseless.scores, noiseless.winner, len(noiseless.results)) == (
        plain.scores, plain.winner, len(plain.results))
    noisy = play_game(rules, [NoisyHeuristicBot(1.0) if s % 2 else HeuristicBot() for s in range(4)], seed=5)
    assert noisy.is_over  # every random choice was legal (play_game refuses any other)
    assert NoisyHeuristicBot(0.25).name == "heuristic~0.25"
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="noise is a probability"):
            NoisyHeuristicBot(bad)
