"""SPRT runs on Celery: create one, launch (or resume) it, advance it after each match, sweep.

Like a round robin (:mod:`competitions.tournaments.control`, whose match task code plays these
matches too), everything is in Redis before anything runs, and each match's outcome is
written once, so a run survives the loss of any process and ``--resume`` sends exactly what
is missing.  Unlike a round robin it is sequential: only ``parallel`` pairs beyond the
counted evidence are released to the workers at a time, and after every outcome
:func:`advance` either records the verdict (a bound reached, or the cap) or releases the
next pairs.  The released count only ever rises (a Redis script), so two workers advancing
at once send each pair once.

A pair with a match recorded as not played (a bot stayed offline) stops the run short of a
verdict: it is *stalled* until ``--resume`` plays that match again.

SPRT matches are recorded like every match (results, logs, conduct) but not rated on the
leaderboards: the line-up is chosen, and a fixed partner plays on both sides.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from celery import Celery, group

from competitions.broker import PACED_MATCH_PRIORITY, RESENT_MATCH_PRIORITY
from competitions.sprt.plan import SprtSpec, Standing, schedule, standing
from competitions.sprt.store import SprtStore
from competitions.tournaments.recovery import held_twice, lost_matches
from store.redis_store import Store

log = logging.getLogger("pitch.workers")
PLAY_SPRT_MATCH = "pitch.play_sprt_match"


def not_rated(store: Store, result: dict[str, Any]) -> None:
    """The ratings hook of SPRT matches: they are not rated (see the module docstring)."""


@dataclass(frozen=True)
class SprtProgress:
    """Where a run stands, for the follower and the web page."""

    spec: SprtSpec
    standing: Standing
    released: int
    """Pairs sent to the workers."""
    running: int
    """Matches begun without an outcome."""
    verdict: dict[str, Any] | None
    """The final record once the run ended."""
    stalled_reason: str | None
    """Why the run cannot go on (a match not played), until it is resumed."""

    @property
    def finished(self) -> bool:
        """The verdict (or the cap's end) is recorded."""
        return self.verdict is not None


def create(sprts: SprtStore, spec: SprtSpec) -> None:
    """Plan a run and store it (refuses a bad spec with :class:`ScheduleError`)."""
    plan = schedule(spec)
    sprts.runs.save_plan(plan)
    sprts.save_spec(spec)
    log.info("SPRT %s created: %s vs %s at %s, [%s, %s], cap %d games", spec.run_id, spec.new, spec.old,
             spec.preset, spec.elo0, spec.elo1, spec.max_games)


def launch(app: Celery, sprts: SprtStore, run_id: str) -> int:
    """Start or resume a run: matches recorded as not played are forgotten (they play
    again), every released match without an outcome is sent, and the run advances.
    Returns how many matches were sent."""
    sprts.spec(run_id)  # an unknown run is refused before anything changes
    if sprts.verdict(run_id) is not None:
        return 0
    sprts.runs.forget_not_played(run_id)
    outcomes = sprts.runs.outcomes(run_id)
    pending = [i for i in range(2 * sprts.released(run_id)) if i not in outcomes]
    _send(app, run_id, pending)
    return len(pending) + advance(app, sprts, run_id)


def advance(app: Celery, sprts: SprtStore, run_id: str) -> int:
    """After an outcome: record the verdict if the test stopped, else release pairs up to
    ``parallel`` beyond the counted ones; returns how many matches were sent."""
    if sprts.verdict(run_id) is not None:
        return 0
    spec = sprts.spec(run_id)
    now = standing(spec, sprts.runs.outcomes(run_id))
    if now.stopped:
        if sprts.save_verdict(run_id, now):
            log.info("SPRT %s finished: %s after %d games (LLR %.3f)", run_id, now.status.verdict or "cap",
                     now.status.games, now.status.llr)
        return 0
    if now.void_pair is not None:
        log.info("SPRT %s stalled: pair %d has a match not played (resume it to play it again)", run_id,
                    now.void_pair)
        return 0
    target = min(spec.pairs, now.read + spec.parallel)
    before = sprts.release(run_id, target)
    matches = list(range(2 * before, 2 * target))
    _send(app, run_id, matches)
    return len(matches)


def _send(app: Celery, run_id: str, indices: Sequence[int], priority: int = PACED_MATCH_PRIORITY) -> None:
    if indices:
        group(app.signature(PLAY_SPRT_MATCH, (run_id, index), immutable=True, priority=priority)
              for index in indices).apply_async()


def progress(sprts: SprtStore, run_id: str) -> SprtProgress:
    """A run's progress, readable at any time from Redis."""
    spec = sprts.spec(run_id)
    outcomes = sprts.runs.outcomes(run_id)
    now = standing(spec, outcomes)
    reason = None
    if now.void_pair is not None:
        missed = [outcomes[i] for i in (2 * now.void_pair, 2 * now.void_pair + 1) if i in outcomes]
        reason = next((str(o.get("reason", "")) for o in missed if o.get("reason")), "a match was not played")
    running = len(set(sprts.runs.started(run_id)) - set(outcomes))
    return SprtProgress(spec, now, sprts.released(run_id), running, sprts.verdict(run_id), reason)


def requeue_lost(app: Celery, sprts: SprtStore, *, start_grace_s: float,
                 confirm_after_s: float = 1.0) -> dict[str, list[int]]:
    """The sweep for runs (see :func:`competitions.tournaments.control.requeue_lost`): send
    again, ahead of the queue, every released match of an unfinished run that has no live
    task; advance a run whose last advance was lost with its worker."""
    open_ids = [run for run in sprts.run_ids() if sprts.verdict(run) is None]
    if not open_ids:
        return {}
    held = held_twice(app, PLAY_SPRT_MATCH, confirm_after_s)
    resent: dict[str, list[int]] = {}
    for run_id in open_ids:
        outcomes = sprts.runs.outcomes(run_id)
        due = [i for i in range(2 * sprts.released(run_id)) if i not in outcomes]
        lost = lost_matches(sprts.runs, run_id, due, held, start_grace_s=start_grace_s)
        if lost:
            log.warning("SPRT %s: matches %s have no live task (lost by the broker, or their worker was killed); "
                        "sending them again", run_id, lost)
            _send(app, run_id, lost, RESENT_MATCH_PRIORITY)
            resent[run_id] = lost
        elif not due:
            advance(app, sprts, run_id)
    return resent
