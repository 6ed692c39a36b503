"""Bot strength: heuristic partners against random partners in full games of a preset.

Issue requirement: "Over 2,000 seeded games of partnership, heuristic partners must beat
random partners by a clear margin" - read as: the heuristic side's win rate has the lower
end of its 95% Wilson interval clearly above 0.5.  Seats rotate every game (each side
plays both sides of every deal), full games with the preset's own target.

Run: ``.venv/bin/python bench/bot_strength.py [--games 2000] [--seed 1] [--preset partnership]``.
Prints one JSON object: games, heuristic wins, win rate, 95% interval, seconds.
"""

from __future__ import annotations

import argparse
import json
import time

from pitch_sdk.bots import HeuristicBot, RandomBot
from pitch_sdk.local import MatchResult, play_match
from pitch_sdk.rules import preset


def heuristic_vs_random(games: int, seed: int, preset_name: str = "partnership") -> MatchResult:
    """A match of heuristic bots (even seats in game 0) against random bots (odd seats)."""
    rules = preset(preset_name)
    bots = [HeuristicBot() if seat % 2 == 0 else RandomBot() for seat in range(rules.players)]
    return play_match(rules, bots, games, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="partnership")
    args = parser.parse_args()
    start = time.perf_counter()
    result = heuristic_vs_random(args.games, args.seed, args.preset)
    seconds = time.perf_counter() - start
    side = result.sides[0]
    low, high = side.interval
    print(json.dumps({
        "preset": args.preset, "games": result.games, "seed": args.seed, "side": side.label,
        "wins": side.wins, "draws": result.draws, "win_rate": round(side.win_rate, 4),
        "ci95": [round(low, 4), round(high, 4)], "hands": result.hands,
        "points_per_hand": round(side.points_per_hand, 3), "seconds": round(seconds, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
