"""Engine speed: random-vs-random full hands of ``partnership`` per second, on one core.

Three loops over the same seeded games, measured in the same run:

* ``api``     - what a harness does: ``state.apply(rng.choice(state.legal_actions()))``;
* ``playout`` - ``GameState.playout(rng)``, the engine's random-rollout fast path for
                simulation bots (same rules and move log, no action lists in trick play);
* ``baseline``- the floor: a bare shuffle and deal plus 24 random card picks with no rules
                at all, so the ratios say how much the rules cost on this machine.

Each loop runs ``--rounds`` times, interleaved (baseline, api, playout, baseline, ...), and
is timed in CPU time of this process (``time.process_time``): on a shared machine the
best round is the figure least disturbed by other work, and the median shows the spread.
Ratios are taken between best rounds.  Pin it to one core for the issue's "one core":

Run: ``taskset -c 1 .venv/bin/python bench/engine_speed.py [--hands 20000] [--rounds 5]
[--preset partnership]``.  The target is 20,000 hands/s for the engine.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable

from pitch_sdk.rules import GameState, preset
from pitch_sdk.rules.shuffle import shuffled


def hands_per_second(rules_name: str, hands: int, finish: Callable[[GameState, random.Random], None]) -> float:
    """Play seeded games with ``finish`` until ``hands`` hands are done; hands per second."""
    rules = preset(rules_name)
    rng = random.Random(1)
    played = seed = 0
    start = time.process_time()
    while played < hands:
        state = GameState.new(rules, seed=seed)
        seed += 1
        finish(state, rng)
        played += len(state.results)
    return played / (time.process_time() - start)


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
    start = time.process_time()
    for number in range(hands):
        cards = shuffled(deck, 1, number)
        held = [cards[i * hand_size:(i + 1) * hand_size] for i in range(players)]
        for _ in range(hand_size):
            for hand in held:
                hand.pop(int(rng.random() * len(hand)))
    return hands / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=20_000, help="hands per round of each loop")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--preset", default="partnership")
    args = parser.parse_args()
    rounds: dict[str, list[float]] = {"baseline": [], "api": [], "playout": []}
    for _ in range(args.rounds):
        rounds["baseline"].append(baseline_loop(args.hands))
        rounds["api"].append(hands_per_second(args.preset, args.hands, through_the_api))
        rounds["playout"].append(hands_per_second(args.preset, args.hands, through_playout))
    best = {name: max(rates) for name, rates in rounds.items()}
    report: dict[str, object] = {"preset": args.preset, "hands_per_round": args.hands, "rounds": args.rounds}
    for name, rates in rounds.items():
        report[f"{name}_hands_per_s_best"] = round(best[name])
        report[f"{name}_hands_per_s_median"] = round(statistics.median(rates))
    report["api_vs_baseline"] = round(best["api"] / best["baseline"], 3)
    report["playout_vs_baseline"] = round(best["playout"] / best["baseline"], 3)
    report["target_hands_per_s"] = 20_000
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
