"""Bot strength: one built-in bot's partners against another's, full games of a preset.

The built-in bots' requirement: "Over 2,000 seeded games of partnership, heuristic partners must
beat random partners by a clear margin" - read as: the heuristic side's win rate has the
lower end of its 95% Wilson interval clearly above 0.5.  The search bot's: ``pimc`` partners win
at least 60% of partnership games against ``heuristic`` partners, the interval above 55%,
answering within the referee's default time per decision (2000 ms).

The match is duplicate: seats rotate every game and each block of as many games as there
are sides replays one deal, so each side plays every side of every deal.  Full games with
the preset's own target.  The bot under test sits at the even seats of game 0 (in
cutthroat, seat 0 against two opponents), and its every decision is timed (wall clock).

Run: ``.venv/bin/python bench/bot_strength.py [--bot heuristic] [--opponent random]
[--games 2000] [--seed 1] [--preset partnership] [--budget-ms MS] [--samples N] [--jobs 1]``,
e.g. ``--bot pimc --opponent heuristic --games 160 --seed 11 --jobs 4 --budget-ms 200
--samples 10`` (four processes of 40 games, seeds 11 to 14).
Prints one JSON object: games, wins, win rate, 95% interval, points per hand, mean and
slowest milliseconds per decision of the bot under test, seconds.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from pitch_sdk.bot import Bot
from pitch_sdk.bots import load_bot
from pitch_sdk.bots.pimc import PimcBot
from pitch_sdk.harness.local import MatchResult, play_match
from pitch_sdk.harness.stats import wilson_interval
from pitch_sdk.rules import Action, Observation, preset


class Timed:
    """Times every decision of the bots it wraps (their ``act``, wrapped in place)."""

    def __init__(self) -> None:
        self.times_ms: list[float] = []

    def wrap(self, bot: Bot) -> Bot:
        act = bot.act

        def timed(observation: Observation, legal_actions: Sequence[Action]) -> Action:
            start = time.perf_counter()
            action = act(observation, legal_actions)
            self.times_ms.append((time.perf_counter() - start) * 1000)
            return action

        bot.act = timed  # type: ignore[method-assign]
        return bot


def new_bot(spec: str, budget_ms: float | None, samples: int | None) -> Bot:
    """A built-in bot; a PIMC bot with the given budget and sample cap."""
    bot = load_bot(spec, budget_ms)
    if samples is not None and isinstance(bot, PimcBot):
        bot.max_samples = samples
    return bot


def strength(spec: str, opponent: str, games: int, seed: int, preset_name: str = "partnership",
             budget_ms: float | None = None, samples: int | None = None) -> tuple[MatchResult, Timed]:
    """A match of ``spec`` bots (even seats in game 0; seat 0 alone when every player is
    its own party) against ``opponent`` bots, with the tested bots' decision times."""
    rules = preset(preset_name)
    timer = Timed()
    tested = range(0, rules.players, 2) if rules.parties < rules.players else (0,)
    bots = [timer.wrap(new_bot(spec, budget_ms, samples)) if seat in tested else new_bot(opponent, None, None)
            for seat in range(rules.players)]
    return play_match(rules, bots, games, seed), timer


def chunk(job: tuple[str, str, int, int, str, float | None, int | None]) -> tuple[MatchResult, list[float]]:
    """One process's share of the games (``--jobs``): its match and decision times."""
    spec, opponent, games, seed, preset_name, budget_ms, samples = job
    result, timer = strength(spec, opponent, games, seed, preset_name, budget_ms, samples)
    return result, timer.times_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bot", default="heuristic", help="the built-in bot under test")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="partnership")
    parser.add_argument("--budget-ms", type=float, default=None, help="per-decision time of a searching bot")
    parser.add_argument("--samples", type=int, default=None, help="most guesses per decision (pimc)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes; job i plays games/jobs games with seed+i, and the tables are added up")
    args = parser.parse_args()
    start = time.perf_counter()
    jobs = [(args.bot, args.opponent, args.games // args.jobs, args.seed + i, args.preset, args.budget_ms,
             args.samples) for i in range(args.jobs)]
    if args.jobs == 1:
        chunks = [chunk(jobs[0])]
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            chunks = list(pool.map(chunk, jobs))
    seconds = time.perf_counter() - start
    results = [result for result, _ in chunks]
    times = [ms for _, chunk_times in chunks for ms in chunk_times]
    games = sum(r.games for r in results)
    wins = sum(r.sides[0].wins for r in results)
    hands = sum(r.sides[0].hands for r in results)

    def per_hand(side: int) -> float:
        return round(sum(r.sides[side].points for r in results) / max(1, hands), 3)

    low, high = wilson_interval(wins, games)
    print(json.dumps({
        "preset": args.preset, "games": games, "seed": args.seed, "jobs": args.jobs,
        "side": results[0].sides[0].label, "budget_ms": args.budget_ms, "samples": args.samples,
        "wins": wins, "draws": sum(r.draws for r in results), "win_rate": round(wins / games, 4),
        "ci95": [round(low, 4), round(high, 4)], "hands": hands, "points_per_hand": per_hand(0),
        "opponents_points_per_hand": [per_hand(side) for side in range(1, len(results[0].sides))],
        "decisions": len(times), "ms_per_decision_mean": round(sum(times) / max(1, len(times)), 2),
        "ms_per_decision_max": round(max(times, default=0.0), 1), "seconds": round(seconds, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
