"""``pitch-arena match-log`` rendering: a line per hand (the default) against the full story.

One stored game log of random bots at ``partnership`` (random bots bid and play badly, so
their games run to the hand limit: the long logs an operator meets), rendered the way the
command renders it to an 80-column terminal, both ways:

* ``full``    - ``--full``: every deal, bid, trick and point (``pitch_sdk.display.story``), which
                is what ``match-log`` printed before;
* ``summary`` - the default: one line per hand (``cli.views.hand_lines``).

Both include the replay of the log by the rules engine, as the command does.  The two are
interleaved over ``--rounds`` rounds and timed in process CPU time; it prints each one's
median and range of seconds and lines, and the ratio of the medians (full / summary).

Run: ``.venv/bin/python bench/match_log.py [--rounds 5] [--seed 5]``.
"""

from __future__ import annotations

import argparse
import io
import statistics
import time

from rich.console import Console

from cli.views import hand_lines, replayed_games
from pitch_sdk.bots import load_bot
from pitch_sdk.display.story import game_story
from pitch_sdk.harness.local import play_game
from pitch_sdk.rules import GameLog, preset

SEATS = ["random-1", "random-2", "random-3", "random-4"]


def render(raw: str, full: bool) -> tuple[float, int]:
    """CPU seconds to replay and render one game log, and the lines printed."""
    out = io.StringIO()
    console = Console(file=out, width=80, highlight=False)
    start = time.process_time()
    for _, state in replayed_games([raw]):
        if full:
            for part in game_story(state, SEATS):
                console.print(part)
        else:
            console.print(hand_lines(state))
    return time.process_time() - start, out.getvalue().count("\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    state = play_game(preset("partnership"), [load_bot("random") for _ in SEATS], args.seed)
    raw = GameLog.of(state).to_json()
    times: dict[str, list[float]] = {"full": [], "summary": []}
    lines: dict[str, int] = {}
    for _ in range(args.rounds):
        for name in ("full", "summary"):
            seconds, lines[name] = render(raw, name == "full")
            times[name].append(seconds)
    print(f"one game of {len(state.results)} hands, {args.rounds} interleaved rounds, CPU seconds")
    for name, values in times.items():
        print(f"  {name:8} median {statistics.median(values):.3f} s (range {min(values):.3f}-{max(values):.3f}), "
              f"{lines[name]} lines")
    print(f"  full / summary: {statistics.median(times['full']) / statistics.median(times['summary']):.1f}x")


if __name__ == "__main__":
    main()
