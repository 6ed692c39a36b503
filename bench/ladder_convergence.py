"""Ladder convergence: matches until a 32-bot field's Bradley–Terry ranking matches the true
order (Spearman rank correlation >= 0.95): ladder vs round robin vs random pairing.

The field is 32 noisy heuristic bots (:class:`pitch_sdk.bots.noisy.NoisyHeuristicBot`,
noise 0 to ``--max-noise`` in even steps: more noise is weaker).  32 bots playing real
partnership games for every method and seed would take hours on two shared cores, so the
bench is in two steps:

1. *Strength from real games* (the engine, no servers): each noise level of a grid plays
   ``--calibration-pairs`` duplicate pairs (:func:`pitch_sdk.harness.pairs.play_pair`) against the
   reference noise level; its mean score gives its Elo against the reference.  A field
   bot's true Elo is interpolated from this curve.
2. *Simulated matches*: a match is one game whose winner is drawn from the rating model
   itself, ``P(team A wins) = 1 / (1 + 10^(-(mean_A - mean_B)/400))`` with the teams' mean
   true Elo.  (So the simulation assumes what the Bradley–Terry table assumes: a team's
   strength is its partners' mean.  Real duplicate games are also less noisy than
   independent ones; the simulated matches are independent for every method alike.)

Every method plays line-ups twice, the teams swapped (the round robin's two rotations):

* ``ladder``: :func:`competitions.ratings.matchmaking.next_lineup` on the current table, refitted
  every ``--refit`` line-ups, with partner-rotation counts;
* ``round-robin``: :func:`competitions.tournaments.schedule.round_robin`'s matches in launch order;
* ``random``: four random bots, a random split into teams.

After every check the table is refitted (:func:`competitions.ratings.model.bradley_terry`) and
its order compared with the true one; checks come every 32 matches and at least every 2%
more matches, the same rule for every method.  Seeds are run interleaved (ladder, round
robin, random, next seed); the output gives, per method, the matches needed for each seed,
their median and range, and the ratio of each method's median to the ladder's.

``--even-spread 800`` replaces the measured curve by evenly spaced true Elo (no engine): the
control for how much of the ladder's gain comes from the field's uneven spacing.

Run: ``.venv/bin/python bench/ladder_convergence.py [--seeds 5] [--calibration-pairs 40]
[--even-spread ELO]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator

import numpy as np

from competitions.ratings.matchmaking import next_lineup, ratings_from_rows
from competitions.ratings.model import RatedGame, RatedMatch, bradley_terry, expected_score
from competitions.tournaments.schedule import round_robin
from pitch_sdk.bots.noisy import NoisyHeuristicBot
from pitch_sdk.harness.pairs import play_pair
from pitch_sdk.rules import preset

PRESET = "partnership"
BOTS = 32
TARGET = 0.95
GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
REFERENCE = 0.3

Teams = tuple[tuple[str, ...], ...]


def noisy(noise: float) -> Callable[[], NoisyHeuristicBot]:
    """A maker of noisy heuristic bots (one per seat)."""
    return lambda: NoisyHeuristicBot(noise)


def strength_curve(pairs: int, seed: int) -> dict[float, float]:
    """Elo of each grid noise level against the reference level, from real duplicate pairs."""
    rules = preset(PRESET)
    curve = {REFERENCE: 0.0}
    for noise in GRID:
        if noise == REFERENCE:
            continue
        points = sum(play_pair(rules, noisy(noise), noisy(REFERENCE), seed * 1_000_003 + p) for p in range(pairs))
        score = min(max(points / (2 * pairs), 0.5 / (2 * pairs)), 1 - 0.5 / (2 * pairs))
        curve[noise] = -400.0 * float(np.log10(1.0 / score - 1.0))
    return dict(sorted(curve.items()))


def spearman(ratings: dict[str, float], truth: dict[str, float]) -> float:
    """Spearman's rank correlation of two scores over the same bots (no ties in ``truth``)."""
    bots = sorted(truth)
    a = np.argsort(np.argsort([ratings.get(b, 0.0) for b in bots])).astype(float)
    b = np.argsort(np.argsort([truth[b] for b in bots])).astype(float)
    return float(np.corrcoef(a, b)[0, 1])


def play(teams: Teams, truth: dict[str, float], rng: random.Random) -> tuple[int, int]:
    """One simulated game: the standings of the two teams."""
    means = [sum(truth[b] for b in team) / len(team) for team in teams]
    return (0, 1) if rng.random() < expected_score(means[0] - means[1]) else (1, 0)


def converge(lineups: Callable[[list[RatedMatch], Counter[frozenset[str]]], Iterator[Teams]],
             truth: dict[str, float], rng: random.Random, cap: int) -> int | None:
    """Matches played until the fitted order reaches the target correlation (None: cap)."""
    matches: list[RatedMatch] = []
    partnered: Counter[frozenset[str]] = Counter()
    next_check = 32
    for teams in lineups(matches, partnered):
        matches.append(RatedMatch(f"m{len(matches)}", PRESET, (RatedGame(teams, play(teams, truth, rng)),)))
        for team in teams:
            partnered.update(frozenset(pair) for pair in itertools.combinations(team, 2))
        if len(matches) >= next_check:
            fitted = {row.bot_id: row.rating for row in bradley_terry(matches)}
            if spearman(fitted, truth) >= TARGET:
                return len(matches)
            next_check = len(matches) + max(32, len(matches) // 50)
        if len(matches) >= cap:
            return None
    return None


def both_ways(teams: Teams) -> Iterator[Teams]:
    """A line-up and its rotation (the teams swap party), as the round robin plays them."""
    yield teams
    yield teams[1:] + teams[:1]


def ladder(bots: list[str], rng: random.Random, refit: int) -> Callable[..., Iterator[Teams]]:
    def lineups(matches: list[RatedMatch], partnered: Counter[frozenset[str]]) -> Iterator[Teams]:
        beliefs = ratings_from_rows([], bots)
        for count in itertools.count():
            if count and count % refit == 0:
                beliefs = ratings_from_rows(bradley_terry(matches), bots)
            yield from both_ways(next_lineup(beliefs, 4, 2, rng, partnered=partnered).teams)
    return lineups


def round_robin_order(bots: list[str]) -> Callable[..., Iterator[Teams]]:
    schedule = round_robin("bench", bots, PRESET)

    def lineups(matches: list[RatedMatch], partnered: Counter[frozenset[str]]) -> Iterator[Teams]:
        for match in schedule.matches:
            yield ((match.seats[0], match.seats[2]), (match.seats[1], match.seats[3]))
    return lineups


def random_pairing(bots: list[str], rng: random.Random) -> Callable[..., Iterator[Teams]]:
    def lineups(matches: list[RatedMatch], partnered: Counter[frozenset[str]]) -> Iterator[Teams]:
        while True:
            a, b, c, d = rng.sample(bots, 4)
            yield from both_ways(((a, b), (c, d)))
    return lineups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--calibration-pairs", type=int, default=40)
    parser.add_argument("--max-noise", type=float, default=0.6)
    parser.add_argument("--refit", type=int, default=8, help="ladder line-ups between refits of its table")
    parser.add_argument("--cap", type=int, default=40_000, help="matches after which a method gives up")
    parser.add_argument("--even-spread", type=float, default=None,
                        help="instead of the measured curve, true Elo evenly spaced over this spread (a control)")
    args = parser.parse_args()
    started = time.perf_counter()
    noises = [args.max_noise * i / (BOTS - 1) for i in range(BOTS)]
    bots = [f"n{i:02d}" for i in range(BOTS)]
    if args.even_spread is None:
        curve = strength_curve(args.calibration_pairs, seed=1)
        elo = np.interp(noises, list(curve), list(curve.values()))
    else:  # the control: no engine, strengths evenly spaced
        curve = {}
        elo = np.linspace(args.even_spread / 2, -args.even_spread / 2, BOTS)
    calibrated = time.perf_counter() - started
    # A micro-Elo per step keeps the true order strict (by noise) where the curve is flat.
    truth = {bot: float(e) - i * 1e-6 for i, (bot, e) in enumerate(zip(bots, elo, strict=True))}
    needed: dict[str, list[int | None]] = {"ladder": [], "round-robin": [], "random": []}
    for seed in range(args.seeds):
        methods = {
            "ladder": ladder(bots, random.Random(f"ladder:{seed}"), args.refit),
            "round-robin": round_robin_order(bots),
            "random": random_pairing(bots, random.Random(f"random:{seed}")),
        }
        for name, lineups in methods.items():
            needed[name].append(converge(lineups, truth, random.Random(f"games:{name}:{seed}"), args.cap))

    medians = {name: statistics.median(v for v in values if v is not None) if None not in values else None
               for name, values in needed.items()}
    report = {name: {"matches": values, "median": medians[name],
                     "range": [min(values), max(values)] if None not in values else None,  # type: ignore[type-var]
                     "ratio_to_ladder": round(medians[name] / medians["ladder"], 2)  # type: ignore[operator]
                     if medians[name] is not None and medians["ladder"] else None}
              for name, values in needed.items()}
    print(json.dumps({
        "preset": PRESET, "bots": BOTS, "target_spearman": TARGET, "seeds": args.seeds,
        "noise": [0.0, args.max_noise],
        "strength_curve_elo_vs_noise_0.3": {str(k): round(v, 1) for k, v in curve.items()},
        "calibration_pairs_per_level": args.calibration_pairs, "calibration_seconds": round(calibrated, 1),
        "true_elo_spread": round(float(elo.max() - elo.min()), 1), **report,
        "seconds": round(time.perf_counter() - started, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
