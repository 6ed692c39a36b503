"""Engine speed: random-vs-random full hands of ``partnership`` per second, on one core.

Three loops over the same seeded games, measured in the same run:

* ``api``     - what a harness does: ``state.apply(rng.choice(state.legal_actions()))``;
* ``playout`` - ``GameState.playout(rng)``, the engine's random-rollout fast path for
                simulation bots (same rules and move log, no action lists in trick play);
* ``baseline``- the floor: a bare shuffle and deal plus 24 random card picks with no rules
                at all, so the ratios say how much the rules cost on this machine.

Run: ``.venv/bin/python bench/engine_speed.py [--hands 20000] [--preset partnership]``.
The target (issue 2) is 20,000 hands/s for the engine on one core.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

from pitch_sdk.rules import GameState, preset
from pitch_sdk.rules.shuffle import shuffled


def hands_per_second(rules_name: str, hands: int, finish: Callable[[GameState, random.Random], None]) -> float:
    """Play seeded games with ``finish`` until ``hands`` hands are done; hands per second."""
    rules = preset(rules_name)
    rng = random.Random(1)
    played = seed = 0
    start = time.perf_counter()
    while played < hands:
        state = GameState.new(rules, seed=seed)
        seed += 1
        finish(state, rng)
        played += len(state.results)
    return played / (time.perf_counter() - start)


def through_the_api(state: GameState, rng: random.Random) -> None:
    """What a harness does: list the legal actions, pick one, apply it."""
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))


def through_playout(state: GameState, rng: random.Random) -> None:
    """The engine's random-rollout path."""
    state.playout(rng)


def baseline_loop(hands: int, players: int = 4, hand_size: int = 6) -> float:
    """Hands per second of a rules-free shuffle, deal and random discard loop."""
    rng = random.Random(1)
    deck = list(range(52))
    start = time.perf_counter()
    for number in range(hands):
        cards = shuffled(deck, 1, number)
        held = [cards[i * hand_size:(i + 1) * hand_size] for i in range(players)]
        for _ in range(hand_size):
            for hand in held:
                hand.pop(int(rng.random() * len(hand)))
    return hands / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--preset", default="partnership")
    args = parser.parse_args()
    baseline = baseline_loop(args.hands)
    api = hands_per_second(args.preset, args.hands, through_the_api)
    playout = hands_per_second(args.preset, args.hands, through_playout)
    report = {
        "preset": args.preset, "hands": args.hands,
        "baseline_hands_per_s": round(baseline), "api_hands_per_s": round(api),
        "playout_hands_per_s": round(playout),
        "api_vs_baseline": round(api / baseline, 3), "playout_vs_baseline": round(playout / baseline, 3),
        "target_hands_per_s": 20_000,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
