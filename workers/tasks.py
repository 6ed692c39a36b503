"""The Celery tasks: thin wrappers over :mod:`competitions.tournaments.control`.

Each task re-reads what it needs from Redis (the arguments are only ids), so any worker
can run any task, and a re-delivered task after a crash does exactly what the first try
would have done.
"""

from __future__ import annotations

import contextlib
import logging
from functools import cache
from typing import Any

from celery import Task

from competitions.broker import RETRIED_MATCH_PRIORITY
from competitions.ladder import control as ladder
from competitions.ladder.store import LadderStore
from competitions.queue import AUTO_LADDER, AUTO_ROUND_ROBIN
from competitions.ratings.leaderboard import record_match
from competitions.referee_client import FleetReferees
from competitions.sprt import control as sprt
from competitions.sprt.store import SprtStore
from competitions.tournaments import control as tournament
from competitions.tournaments.retries import RetryBudget
from competitions.tournaments.store import TournamentError, TournamentStore
from store.fleet import FleetDirectory
from store.redis_store import Store
from workers.app import app, config

log = logging.getLogger("pitch.workers")


def record_ratings(store: Store, match_result: dict[str, Any]) -> None:
    """Apply a played match to its preset's live Elo leaderboard.

    Called at least once per played match, and again for the same match if a worker dies
    between rating it and recording its outcome: ``record_match`` is idempotent on the
    match id (a Lua script applies each match once)."""
    record_match(store, match_result, config.elo)


@cache
def tournaments() -> TournamentStore:
    """This process's store (opened after the pool forked: one Redis client per process)."""
    return TournamentStore(Store.from_url(config.redis_url, config.store_prefix))


@cache
def referee() -> FleetReferees:
    """This process's client of the referee fleet (matches placed through the directory)."""
    # the live list is read at most twice per heartbeat period, not once per match
    directory = FleetDirectory(tournaments().store, config.fleet_ttl_s, live_cache_s=config.fleet_ttl_s / 6)
    return FleetReferees(config.referee, config.admin_token, config.match_timeout_s, directory)


@cache
def sprts() -> SprtStore:
    """This process's SPRT runs (on the same store)."""
    return SprtStore(tournaments().store)


def _play(task: Task, runs: TournamentStore, run_id: str, index: int, budget: dict[str, Any] | None,
          on_played: tournament.RatingsHook) -> str:
    """Play match ``index`` of a round robin or SPRT run; retried with backoff while it
    cannot be played and its budget for the cause allows (see
    :mod:`competitions.tournaments.retries`), then recorded as not played."""
    try:
        return tournament.play(runs, referee(), run_id, index, worker=task.request.hostname or "",
                               attempt=task.request.retries + 1, budget=RetryBudget.from_dict(budget),
                               limits=config.retry_limits, on_played=on_played, lease_s=config.lease_s)
    except tournament.MatchDeferred as deferred:
        delay = config.retry_delay(deferred.budget.tries(deferred.refusal) - 1)
        log.info("%s %s match %d deferred %.1fs (%s): %s", runs.kind, run_id, index, delay,
                 deferred.refusal.value, deferred)
        # the match stays this worker's until its retry is due (else the sweep would send it again)
        runs.hold(run_id, index, f"{task.request.hostname}#retry", delay + config.lease_s)
        raise task.retry(countdown=delay, kwargs={"budget": deferred.budget.to_dict()},
                         priority=RETRIED_MATCH_PRIORITY) from deferred


@app.task(bind=True, name=tournament.PLAY_MATCH, max_retries=None)
def play_match(self: Task, tournament_id: str, index: int, budget: dict[str, Any] | None = None) -> str:
    """Play one scheduled match; the task that records the last outcome sends the final step."""
    status = _play(self, tournaments(), tournament_id, index, budget, record_ratings)
    if tournament.ready_to_finish(tournaments(), tournament_id):
        finish_tournament.delay(tournament_id)
    return status


@app.task(bind=True, name=sprt.PLAY_SPRT_MATCH, max_retries=None)
def play_sprt_match(self: Task, run_id: str, index: int, budget: dict[str, Any] | None = None) -> str:
    """Play one match of an SPRT run, then advance the run: its verdict, or its next pairs."""
    status = _play(self, sprts().runs, run_id, index, budget, sprt.not_rated)
    sprt.advance(app, sprts(), run_id)
    return status


@app.task(name=tournament.FINISH_TOURNAMENT)
def finish_tournament(tournament_id: str) -> bool:
    """The final step: write the tournament's table (once); a ladder's round then sends
    the ladder's next step."""
    written = tournament.finish(tournaments(), tournament_id)
    ladder_id = ladders().ladder_of(tournament_id)
    if written and ladder_id is not None:
        ladder.start(app, ladder_id)
    return written


@cache
def ladders() -> LadderStore:
    """This process's ladders (on the same store)."""
    return LadderStore(tournaments().store)


def _connected() -> list[str]:
    """The connected bots a ladder may choose from (not the arena's house bots)."""
    return tournament.default_entrants(tournaments().store, referee().connected_bots())


@app.task(name=ladder.LADDER_STEP)
def ladder_step(ladder_id: str) -> list[str]:
    """Plan and launch a ladder's next rounds (see :func:`competitions.ladder.control.step`)."""
    return ladder.step(app, ladders(), tournaments(), _connected, ladder_id, config.elo)


@app.task(name=AUTO_LADDER)
def auto_ladder(preset: str) -> list[str]:
    """Beat's entry: the endless ladder of ``preset`` (created on first use), stepped."""
    ladder_id = f"auto-ladder-{preset}"
    if not ladders().exists(ladder_id):
        with contextlib.suppress(TournamentError):  # another beat tick created it meanwhile
            ladder.create(ladders(), preset, matches=0, games=config.auto_games, seed=0, ladder_id=ladder_id)
    return ladder.step(app, ladders(), tournaments(), _connected, ladder_id, config.elo)


@app.task(name=AUTO_ROUND_ROBIN)
def auto_round_robin(preset: str) -> str | None:
    """Beat's entry: a round robin of every connected bot that plays ``preset``; the new id or None."""
    entrants = tournament.default_entrants(tournaments().store, referee().connected_bots(), preset)
    schedule = tournament.start_automatic(app, tournaments(), preset, entrants, games=config.auto_games)
    return None if schedule is None else schedule.tournament_id
