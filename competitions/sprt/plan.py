"""An SPRT run's matches and how far its evidence goes: pure (no I/O, no clock).

A run plays NEW against OLD in *duplicate pairs*: pair ``p`` is two one-game matches on the
same deals (one seed), NEW's side at party 0 in the first and at party 1 in the second,
so each side holds each party's cards once and the luck of the deal cancels.  In a
partnership preset each side's partner is a fixed ``partner`` bot on both sides, or the
side's own bot (NEW with NEW against OLD with OLD).  Match ``2p`` and ``2p + 1`` form pair
``p``; every match up to the game cap is planned up front (same inputs, same matches and
ids), and the workers play them a few pairs at a time.

The test reads the pairs in order: the evidence is the longest run of pairs from the first
that are all played (a pair finished early does not count before the pairs ahead of it), and
the test stops at the first of those pairs where the LLR reaches a bound.  So the verdict
is the same whatever order the workers finished in, and a resumed run reaches the verdict
the uninterrupted one would have.  The statistics are :mod:`competitions.ratings.sprt`'s.

A pair with an *unrated* match (played out, but a seat's moves were mostly the referee's
fallbacks: :mod:`referee.fallback_rule`) is read past but not counted: its pair score would
measure the fallbacks, not NEW against OLD, and the duplicate pair only cancels the deal's
luck with both matches, so the whole pair is left out of the LLR.  Playing it again is not
possible (its match ids are recorded), so the run goes on with the next pairs; the cap then
leaves the test that many pairs short, and :attr:`Standing.excluded` says how many.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from competitions.ratings.sprt import SprtStatus, llr_many, sprt_bounds, sprt_status
from competitions.tournaments.schedule import (
    TOURNAMENT_ID,
    Schedule,
    ScheduledMatch,
    ScheduleError,
    match_id,
    pairing_seed,
)
from competitions.tournaments.table import PLAYED
from pitch_sdk.rules import RulesError, preset

#: The most games one run may plan (its plan is read by every match task).
MAX_GAMES = 20_000
#: The widest hypotheses accepted, in normalized Elo: past about ±240 the LLR's secular
#: equation has no root even before the first pair (an Elo difference no score
#: distribution of five outcomes can show), and the statistics refuse it.
MAX_ELO = 200.0


@dataclass(frozen=True)
class SprtSpec:
    """What a run tests and how."""

    run_id: str
    preset: str
    new: str
    old: str
    partner: str | None
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    seed: int
    options: dict[str, Any]
    parallel: int = 1
    """Pairs the workers may play beyond the counted evidence at once.  A pair is two
    matches at once, each taking two seats of a bot that partners itself (or of the fixed
    partner): 4 seats, the SDK's default capacity; more pairs wait for seats (the referee
    answers RESOURCE_EXHAUSTED and the match is retried) unless the bots declare more."""

    @property
    def pairs(self) -> int:
        """Duplicate pairs up to the game cap."""
        return self.max_games // 2

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (how the spec is stored)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SprtSpec:
        """The inverse of :meth:`to_dict`."""
        return cls(**data)


def check(spec: SprtSpec) -> None:
    """Refuse a spec that cannot run, naming what is wrong (raises :class:`ScheduleError`)."""
    if not TOURNAMENT_ID.fullmatch(spec.run_id):
        raise ScheduleError(f"bad run id {spec.run_id!r}: use 1-64 letters, digits, '-' or '_'")
    if spec.new == spec.old:
        raise ScheduleError("NEW and OLD must be two different bots")
    if spec.partner in (spec.new, spec.old):
        raise ScheduleError("the partner must be a third bot (omit --partner for each bot to partner itself)")
    if not 2 <= spec.max_games <= MAX_GAMES:
        raise ScheduleError(f"the game cap must be 2 to {MAX_GAMES}, got {spec.max_games}")
    if spec.parallel < 1:
        raise ScheduleError(f"parallel pairs must be at least 1, got {spec.parallel}")
    if spec.seed < 0:
        raise ScheduleError(f"seed must not be negative, got {spec.seed}")
    if not (math.isfinite(spec.elo0) and math.isfinite(spec.elo1) and spec.elo0 < spec.elo1):
        raise ScheduleError(f"elo0 must be below elo1, got {spec.elo0} and {spec.elo1}")
    if max(abs(spec.elo0), abs(spec.elo1)) > MAX_ELO:
        raise ScheduleError(f"elo0 and elo1 must lie within ±{MAX_ELO:.0f} (normalized Elo)")
    try:
        sprt_bounds(spec.alpha, spec.beta)
        rules = preset(spec.preset, spec.options)
    except (ValueError, RulesError) as exc:
        raise ScheduleError(str(exc)) from None
    if rules.parties != 2:
        raise ScheduleError(f"an SPRT compares two sides: {spec.preset} has {rules.parties} parties "
                            "(use a partnership preset)")
    if spec.partner is not None and rules.seating.team_size == 1:
        raise ScheduleError(f"{spec.preset} has no partners: omit --partner")


def two_sided(preset_name: str) -> bool:
    """Whether a run can play ``preset_name`` as the rules have it (no options): a preset the
    rules know with two parties, so a duplicate pair gives each side each party's cards
    once (:func:`check` refuses any other)."""
    try:
        return preset(preset_name).parties == 2
    except RulesError:
        return False


def schedule(spec: SprtSpec) -> Schedule:
    """Every match of the run up to its cap, pair by pair (see the module docstring)."""
    check(spec)
    rules = preset(spec.preset, spec.options)
    size = rules.seating.team_size
    sides = tuple((bot, *([spec.partner or bot] * (size - 1))) for bot in (spec.new, spec.old))
    matches: list[ScheduledMatch] = []
    for pair in range(spec.pairs):
        deal = pairing_seed(spec.seed, pair)
        for rotation in range(2):
            order = sides[rotation:] + sides[:rotation]
            seats = tuple(order[s % 2][s // 2] for s in range(rules.players))
            index = len(matches)
            matches.append(ScheduledMatch(index, match_id(spec.run_id, index), seats, deal, pair, rotation))
    entrants = tuple(sorted({spec.new, spec.old, *([spec.partner] if spec.partner else [])}))
    return Schedule(spec.run_id, spec.preset, dict(spec.options), 1, spec.seed, 2, entrants, sides, tuple(matches))


def new_score(outcome: Mapping[str, Any], new_party: int) -> float | None:
    """NEW's score in a played one-game match (1 won, ½ tied, 0 lost; a forfeit is lost by
    the forfeiting side), or ``None`` for a match that was not played."""
    if outcome.get("status") != PLAYED:
        return None
    result = outcome["result"]
    if result.get("forfeited"):
        return 0.0 if int(result.get("forfeiting_party", 0)) == new_party else 1.0
    games = result.get("games", [])
    if not games:
        return None
    game = games[0]
    if not game.get("has_winner"):
        return 0.5
    return 1.0 if int(game.get("winner", 0)) == new_party else 0.0


@dataclass(frozen=True)
class Standing:
    """Where a run's evidence stands."""

    status: SprtStatus
    """The test over the counted pairs."""
    counted: int
    """Pairs counted: the first ones, all played, up to the stop if there was one."""
    stopped: bool
    """The LLR reached a bound, or every pair up to the cap is counted."""
    void_pair: int | None
    """The first pair (after the counted ones) with a match recorded as not played: the run
    cannot go on past it until that match is played (``--resume``)."""
    finished_pairs: int
    """Pairs with both matches recorded, in any order (for progress)."""
    read: int = 0
    """Pairs read from the first: the counted ones and the excluded ones among them (the
    workers are sent pairs beyond these)."""
    excluded: int = 0
    """Pairs read but left out of the LLR: one of their matches was unrated."""
    llr_history: tuple[float, ...] = ()
    """The LLR after each counted pair, first to last: the run's path between its bounds."""
    wdl: tuple[int, int, int] = (0, 0, 0)
    """NEW's games won, drawn and lost in the counted pairs."""
    counted_pairs: tuple[int, ...] = ()
    """The index of each counted pair (its matches are ``2p`` and ``2p + 1``)."""


def standing(spec: SprtSpec, outcomes: Mapping[int, Mapping[str, Any]]) -> Standing:
    """The test after the recorded outcomes (by match index), read pair by pair from the
    first; stopped at the first pair whose LLR reaches a bound."""
    scores: list[float] = []
    games: list[tuple[float, float]] = []  # per counted pair: NEW's score in each of its two matches
    through: list[int] = []  # per counted pair: the pairs read up to and including it
    skipped: list[int] = []
    void_pair = None
    read = 0
    for pair in range(spec.pairs):
        first, second = outcomes.get(2 * pair), outcomes.get(2 * pair + 1)
        if first is None or second is None:
            break
        a, b = new_score(first, 0), new_score(second, 1)
        if a is None or b is None:
            void_pair = pair
            break
        read = pair + 1
        if _unrated(first) or _unrated(second):
            skipped.append(pair)
            continue
        scores.append(a + b)
        games.append((a, b))
        through.append(read)
    counted = len(scores)
    stopped = False
    llrs = np.zeros(0)
    if scores:
        rows = np.zeros((counted, 5))
        rows[np.arange(counted), np.rint(np.asarray(scores) * 2).astype(int)] = 1
        llrs = llr_many(np.cumsum(rows, axis=0), spec.elo0, spec.elo1)
        lower, upper = sprt_bounds(spec.alpha, spec.beta)
        crossed = np.flatnonzero((llrs >= upper) | (llrs <= lower))
        if crossed.size:
            counted, stopped, void_pair = int(crossed[0]) + 1, True, None
            read = through[counted - 1]
    counts = [0] * 5
    for score in scores[:counted]:
        counts[round(score * 2)] += 1
    finished = sum(1 for pair in range(spec.pairs) if 2 * pair in outcomes and 2 * pair + 1 in outcomes)
    played = [score for pair in games[:counted] for score in pair]
    wdl = (played.count(1.0), played.count(0.5), played.count(0.0))
    left_out = set(skipped)
    counted_pairs = tuple(pair for pair in range(read) if pair not in left_out)[:counted]
    return Standing(sprt_status(counts, spec.elo0, spec.elo1, spec.alpha, spec.beta), counted,
                    stopped or read == spec.pairs, void_pair, finished, read,
                    sum(1 for pair in skipped if pair < read), tuple(float(x) for x in llrs[:counted]), wdl,
                    counted_pairs)


def _unrated(outcome: Mapping[str, Any]) -> bool:
    """Whether a played match was kept off the ratings (see the module docstring)."""
    return bool(outcome["result"].get("unrated"))
