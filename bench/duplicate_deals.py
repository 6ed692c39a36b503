"""Duplicate deals measured: games needed to separate two bots at 95% when each pair of
games replays the same deals with the seats swapped, against pairs of independent deals.

Real games on the engine (no servers, :func:`pitch_sdk.harness.pairs.play_pair`), each side one bot
and its own copies as partners.  For every comparison the two modes are played in
interleaved pairs (seed ``s`` duplicate, seed ``s`` independent, next seed), and from each
mode's pairs:

* the variance per game of NEW's mean score: ``Var(pair score)/2`` (fishtest's ``get_elo``
  on pentanomial counts; for independent deals this is the plain per-game variance);
* the games needed for the 95% interval of the mean score to exclude ½,
  ``n = 1.96²·variance/(mean - ½)²``, with the mean pooled over both modes (both modes play
  the same bots, so their expected score is the same);
* the ratio independent/duplicate of those games (= of the variances), with a 95% range
  from 2,000 bootstrap resamples of the pairs;
* the median games of ``--sprt-runs`` (300) simulated SPRTs at ``[0, 10]`` (normalized Elo), drawn from each
  mode's measured outcomes: pentanomial for duplicate pairs, trinomial (games as
  independent samples) for independent deals, as ``pitch-arena sprt`` would count them.

Comparisons: heuristic against random (the issue's), and heuristic against a noisy
heuristic (noise 0.3, a closer match), in ``partnership`` at its own target and in short
games to 5 points, where the cards decide more.

Run: ``.venv/bin/python bench/duplicate_deals.py [--pairs 60] [--sprt-runs 300]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import numpy as np

from competitions.ratings.model import Z95
from competitions.ratings.sprt import Pentanomial, simulate_sprt
from pitch_sdk.bot import Bot
from pitch_sdk.bots import HeuristicBot, RandomBot
from pitch_sdk.bots.noisy import NoisyHeuristicBot
from pitch_sdk.harness.pairs import play_pair
from pitch_sdk.rules import Ruleset, preset


def games_needed(scores: np.ndarray, mean: float) -> float | None:
    """Games for the 95% interval of the mean score to exclude ½, from pair scores
    (``None`` when every pair scored alike: no variance, the formula says nothing)."""
    variance = float(np.var(scores / 2)) * 2  # Var(per-game mean of a pair) x 2 games
    if variance == 0 or mean == 0.5:
        return None
    return Z95**2 * variance / (mean - 0.5) ** 2


def sprt_games(pairs: np.ndarray, duplicate: bool, seed: int, runs: int) -> float:
    """Median games of ``runs`` simulated SPRTs at [0, 10] drawn from these measured pairs."""
    counts = Pentanomial()
    for score in pairs:
        counts.add(float(score))
    if duplicate:
        chances = np.array(counts.counts, dtype=np.float64)
    else:  # the games of independent pairs are independent samples: L/D/W frequencies
        games = np.array(counts.counts, dtype=np.float64)
        chances = np.array([2 * games[0] + games[1], games[1] + 2 * games[2] + games[3], games[3] + 2 * games[4]])
    result = simulate_sprt(chances / chances.sum(), 0, 10, np.random.default_rng(seed), runs=runs, batch=4,
                           max_pairs=20_000)
    per_sample = 2 if duplicate else 1
    return float(np.median(result.pairs)) * per_sample


def compare(rules: Ruleset, new: Callable[[], Bot], old: Callable[[], Bot], pairs: int,
            sprt_runs: int = 300) -> dict[str, object]:
    duplicate, independent = [], []
    for seed in range(pairs):
        duplicate.append(play_pair(rules, new, old, seed))
        independent.append(play_pair(rules, new, old, seed, duplicate=False))
    dup, ind = np.array(duplicate), np.array(independent)
    mean = float(np.concatenate([dup, ind]).mean()) / 2
    needed = {"duplicate": games_needed(dup, mean), "independent": games_needed(ind, mean)}
    rng = np.random.default_rng(1)
    ratios = []
    for _ in range(2000):
        d, i = rng.choice(dup, dup.size), rng.choice(ind, ind.size)
        vd, vi = float(np.var(d)), float(np.var(i))
        if vd > 0:
            ratios.append(vi / vd)
    ratio = needed["independent"] / needed["duplicate"] if needed["independent"] and needed["duplicate"] else None
    return {
        "pairs_per_mode": pairs, "mean_score": round(mean, 4),
        "pair_scores_duplicate": {str(s): int((dup == s).sum()) for s in (0, 0.5, 1, 1.5, 2)},
        "pair_scores_independent": {str(s): int((ind == s).sum()) for s in (0, 0.5, 1, 1.5, 2)},
        "games_needed_95": {k: None if v is None else round(v, 1) for k, v in needed.items()},
        "ratio_independent_to_duplicate": round(ratio, 2) if ratio is not None else None,
        "ratio_range_95": ([round(float(np.percentile(ratios, 2.5)), 2), round(float(np.percentile(ratios, 97.5)), 2)]
                           if len(ratios) > 100 else None),
        "sprt_median_games": {"duplicate": sprt_games(dup, True, 2, sprt_runs),
                              "independent": sprt_games(ind, False, 3, sprt_runs)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=60, help="pairs per mode and comparison")
    parser.add_argument("--sprt-runs", type=int, default=300,
                        help="simulated SPRTs per mode and comparison (a smoke run needs only a few)")
    args = parser.parse_args()
    started = time.perf_counter()
    report: dict[str, object] = {}
    for target in (None, 5):
        rules = preset("partnership") if target is None else preset("partnership", target=target)
        label = "partnership" if target is None else f"partnership, target {target}"
        report[f"{label}: heuristic vs random"] = compare(rules, HeuristicBot, RandomBot, args.pairs, args.sprt_runs)
        report[f"{label}: heuristic vs noisy 0.3"] = compare(rules, HeuristicBot, lambda: NoisyHeuristicBot(0.3),
                                                            args.pairs, args.sprt_runs)
    report["seconds"] = round(time.perf_counter() - started, 1)
    ratios = [v["ratio_independent_to_duplicate"] for v in report.values() if isinstance(v, dict)]
    report["median_ratio"] = statistics.median(r for r in ratios if r is not None) if any(ratios) else None
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
