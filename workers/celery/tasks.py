"""The Celery tasks: thin wrappers over :mod:`workers.tournaments.control`.

Each task re-reads what it needs from Redis (the arguments are only ids), so any worker
can run any task, and a re-delivered task after a crash does exactly what the first try
would have done.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from celery import Task

from workers.celery.app import AUTO_ROUND_ROBIN, REQUEUE_LOST, app, config
from workers.ratings.leaderboard import record_match
from workers.referee_client import FleetReferees
from workers.storage.fleet import FleetDirectory
from workers.storage.store import Store
from workers.tournaments import control as tournament
from workers.tournaments.store import TournamentStore

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
    directory = FleetDirectory(tournaments().store, config.fleet_ttl_s)
    return FleetReferees(config.referee, config.admin_token, config.match_timeout_s, directory)


@app.task(bind=True, name=tournament.PLAY_MATCH, max_retries=None)
def play_match(self: Task, tournament_id: str, index: int) -> str:
    """Play one scheduled match; retried with backoff while it cannot be played, then
    recorded as not played; the task that records the last outcome sends the final step."""
    retries = self.request.retries
    try:
        status = tournament.play(tournaments(), referee(), tournament_id, index, worker=self.request.hostname or "",
                                 attempt=retries + 1, final=retries >= config.match_retries,
                                 on_played=record_ratings, lease_s=config.lease_s)
    except tournament.MatchDeferred as deferred:
        delay = config.retry_delay(retries)
        log.info("tournament %s match %d deferred %.1fs: %s", tournament_id, index, delay, deferred)
        # the match stays this worker's until its retry is due (else the sweep would send it again)
        tournaments().hold(tournament_id, index, f"{self.request.hostname}#retry", delay + config.lease_s)
        raise self.retry(countdown=delay) from deferred
    if tournament.ready_to_finish(tournaments(), tournament_id):
        finish_tournament.delay(tournament_id)
    return status


@app.task(name=tournament.FINISH_TOURNAMENT)
def finish_tournament(tournament_id: str) -> bool:
    """The final step: write the tournament's table (once)."""
    return tournament.finish(tournaments(), tournament_id)


@app.task(name=AUTO_ROUND_ROBIN)
def auto_round_robin(preset: str) -> str | None:
    """Beat's entry: a round robin of every connected bot at ``preset``; the new id or None."""
    entrants = tournament.default_entrants(tournaments().store, referee().connected_bots())
    schedule = tournament.start_automatic(app, tournaments(), preset, entrants, games=config.auto_games)
    return None if schedule is None else schedule.tournament_id


@app.task(name=REQUEUE_LOST)
def requeue_lost() -> dict[str, list[int]]:
    """Beat's sweep: send again the matches whose task the broker lost (by tournament)."""
    return tournament.requeue_lost(app, tournaments())
