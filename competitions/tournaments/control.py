"""Tournaments: create one, launch (or resume) it on Celery, play one of its matches, finish it.

The schedule is stored in Redis before anything runs and every match's outcome is written
once, so Redis alone says what is left: launching again after any restart (worker,
referee, beat, the launching CLI, or a broker that lost its queue) sends a task for every
match without an outcome and for no other.  Duplicate deliveries are harmless: the referee
runs a match id once, and the first outcome recorded wins.

The final step is not a Celery chord: the Redis chord counter counts task executions, so a
re-delivered duplicate would fire it early, and a resumed launch would need a second chord.
Instead each match task, once every match has an outcome, sends the final task, which is
idempotent (the table is written once).

A match's task can still be lost with its worker (see
:mod:`competitions.tournaments.recovery`), so the workers' supervisor
(:mod:`workers.supervisor`) runs :func:`requeue_lost` every ``requeue_interval_s``: it sends
again exactly the matches that have no outcome and no live task, ahead of the queued ones,
and finishes a tournament whose final task went the same way.  New matches are queued
behind every other task (:data:`competitions.broker.NEW_MATCH_PRIORITY`).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import redis
from celery import Celery, group

from competitions.broker import NEW_MATCH_PRIORITY, RESENT_MATCH_PRIORITY
from competitions.referee_client import RefereeClient, Refusal, refusal_of
from competitions.tournaments.recovery import held_twice, lost_matches
from competitions.tournaments.retries import RetryBudget, RetryLimits
from competitions.tournaments.schedule import Schedule, ScheduleError, round_robin
from competitions.tournaments.store import TournamentStore
from competitions.tournaments.table import NOT_PLAYED, PLAYED, compute_table, unrated_matches
from store.accounts import Accounts
from store.redis_store import Store

log = logging.getLogger("pitch.workers")
PLAY_MATCH = "pitch.play_match"
FINISH_TOURNAMENT = "pitch.finish_tournament"

#: Called with the store and a played match's result (as stored) after the match is
#: recorded and before its tournament outcome is: at least once per played match, and
#: again if a worker dies in between, so it must be idempotent on ``result["match_id"]``.
RatingsHook = Callable[[Store, dict[str, Any]], None]


class MatchDeferred(Exception):
    """A match that cannot be played now but may be soon (bot offline, fleet busy, referee
    down), with its retry budget after this refusal is charged."""

    def __init__(self, reason: str, refusal: Refusal, budget: RetryBudget) -> None:
        super().__init__(reason)
        self.refusal = refusal
        self.budget = budget


@dataclass(frozen=True)
class Progress:
    """Where a tournament stands."""

    tournament_id: str
    preset: str
    total: int
    played: int
    not_played: int
    in_progress: int
    """Matches with an attempt begun and no outcome yet (running, or waiting to retry)."""
    finished: bool
    """The final table is written."""

    @property
    def pending(self) -> int:
        """Matches without an outcome."""
        return self.total - self.played - self.not_played


def default_entrants(store: Store, connected: Sequence[str], preset: str | None = None) -> list[str]:
    """Who "every connected bot" means: the connected bots less the arena's own house bots
    (the web arena's seat for people would play first legal moves in a round robin, and
    house bots are there to play people, not to be rated), and at a round robin's
    ``preset`` less the bots whose owners chose other presets (a ladder passes none: its
    step leaves them out of each round's free bots)."""
    house = store.house_bots()
    entrants = [bot for bot in connected if bot not in house]
    return entrants if preset is None else Accounts(store).playing(preset, entrants)


def create(tournaments: TournamentStore, preset: str, entrants: Sequence[str], *, games: int = 1, seed: int = 0,
           options: dict[str, Any] | None = None, teams: Sequence[Sequence[str]] | None = None,
           tournament_id: str | None = None) -> Schedule:
    """Schedule a round robin and store its plan (see :func:`competitions.tournaments.schedule.round_robin`)."""
    schedule = round_robin(tournament_id or uuid.uuid4().hex[:12], entrants, preset, games=games, seed=seed,
                           options=options, teams=teams)
    tournaments.save_plan(schedule)
    log.info("tournament %s created: %s, %d entrants, %d matches", schedule.tournament_id, preset,
             len(schedule.entrants), len(schedule.matches))
    return schedule


def launch(app: Celery, tournaments: TournamentStore, tournament_id: str, *, retry_not_played: bool = False) -> int:
    """Start or resume a tournament: one task per match without an outcome (a match that was
    played is never sent again); returns how many were sent.  With ``retry_not_played``,
    matches recorded as not played (a bot was offline) are sent again too."""
    schedule = tournaments.plan(tournament_id)
    if retry_not_played:
        tournaments.forget_not_played(tournament_id)
    recorded = tournaments.outcomes(tournament_id)
    pending = [m.index for m in schedule.matches if m.index not in recorded]
    if pending:
        _send_matches(app, tournament_id, pending, NEW_MATCH_PRIORITY)
    elif tournaments.table(tournament_id) is None:
        app.signature(FINISH_TOURNAMENT, (tournament_id,), immutable=True).apply_async()
    log.info("tournament %s launched: %d of %d matches pending", tournament_id, len(pending), len(schedule.matches))
    return len(pending)


def _send_matches(app: Celery, tournament_id: str, indices: Sequence[int], priority: int) -> None:
    group(app.signature(PLAY_MATCH, (tournament_id, index), immutable=True, priority=priority)
          for index in indices).apply_async()


def requeue_lost(app: Celery, tournaments: TournamentStore, *, start_grace_s: float,
                 confirm_after_s: float = 1.0) -> dict[str, list[int]]:
    """Send again, ahead of every queued match, each match of an unfinished tournament that
    has no outcome and no live task (see :mod:`competitions.tournaments.recovery`: not
    queued, not leased, not taken within ``start_grace_s``); write the table of a
    tournament whose every match has an outcome.  Returns the matches sent, by tournament.

    Outcomes are read after the broker's second look, so a match that finished meanwhile
    is not sent again.  A needless resend would be harmless anyway (the first outcome wins,
    the referee runs a match id once); the two looks only keep it rare."""
    open_ids = [tid for tid in tournaments.tournament_ids() if tournaments.table(tid) is None]
    if not open_ids:
        return {}
    held = held_twice(app, PLAY_MATCH, confirm_after_s)
    resent: dict[str, list[int]] = {}
    for tournament_id in open_ids:
        schedule = tournaments.plan(tournament_id)
        outcomes = tournaments.outcomes(tournament_id)
        lost = lost_matches(tournaments, tournament_id, [m.index for m in schedule.matches if m.index not in outcomes],
                            held, start_grace_s=start_grace_s)
        if lost:
            log.warning("tournament %s: matches %s have no live task (lost by the broker, or their worker was "
                        "killed); sending them again", tournament_id, lost)
            _send_matches(app, tournament_id, lost, RESENT_MATCH_PRIORITY)
            resent[tournament_id] = lost
        elif len(outcomes) == len(schedule.matches):
            finish(tournaments, tournament_id)
    return resent


def progress(tournaments: TournamentStore, tournament_id: str) -> Progress:
    """A tournament's progress, readable at any time from Redis."""
    return progress_of(tournaments.plan(tournament_id), tournaments.outcomes(tournament_id),
                       tournaments.started(tournament_id), tournaments.table(tournament_id) is not None)


def progress_of(schedule: Schedule, outcomes: Mapping[int, dict[str, Any]], started: Mapping[int, float],
                finished: bool) -> Progress:
    """The progress of a tournament whose records a caller has already read."""
    played = sum(1 for o in outcomes.values() if o["status"] == PLAYED)
    running = set(started) - set(outcomes)
    return Progress(schedule.tournament_id, schedule.preset, len(schedule.matches), played, len(outcomes) - played,
                    len(running), finished)


@contextmanager
def _renewing(tournaments: TournamentStore, tournament_id: str, index: int, holder: str,
              lease_s: float) -> Iterator[None]:
    """Hold match ``index``'s lease while the body runs, renewed every third of ``lease_s``
    from a thread (the body blocks on the referee), so the lease lapses only when this
    process stops running: the sweep then sends the match again."""
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(lease_s / 3):
            try:
                tournaments.hold(tournament_id, index, holder, lease_s)
            except redis.RedisError as error:  # the next renewal may succeed; the match goes on
                log.warning("tournament %s match %d: lease not renewed: %s", tournament_id, index, error)

    tournaments.hold(tournament_id, index, holder, lease_s)
    renewer = threading.Thread(target=renew, name=f"lease-{tournament_id}-{index}", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        renewer.join()


def play(tournaments: TournamentStore, referee: RefereeClient, tournament_id: str, index: int, *,
         worker: str, attempt: int, budget: RetryBudget, limits: RetryLimits, on_played: RatingsHook,
         lease_s: float = 15.0) -> str:
    """Play match ``index`` unless it has an outcome; returns the outcome's status.

    The referee's stored result is used when there is one (the match ran but its outcome
    was not written: a worker died), so a recorded match is never played again, and the
    outcome always carries the first recorded result of the match id.  A transient refusal
    raises :class:`MatchDeferred` while ``budget`` allows another retry for its cause
    (:mod:`competitions.tournaments.retries`), and is otherwise recorded as not played with
    the reason; other refusals are recorded as not played at once.  While it plays, the
    match is leased to ``worker`` (see :func:`requeue_lost`); the lease ends with the
    outcome.
    """
    existing = tournaments.outcome(tournament_id, index)
    if existing is not None:
        return str(existing["status"])
    with _renewing(tournaments, tournament_id, index, f"{worker}#{attempt}", lease_s):
        status = _play(tournaments, referee, tournament_id, index, worker=worker, attempt=attempt, budget=budget,
                       limits=limits, on_played=on_played)
    tournaments.release(tournament_id, index)
    return status


def _play(tournaments: TournamentStore, referee: RefereeClient, tournament_id: str, index: int, *,
          worker: str, attempt: int, budget: RetryBudget, limits: RetryLimits, on_played: RatingsHook) -> str:
    """:func:`play` under its lease."""
    began = time.perf_counter()
    schedule = tournaments.plan(tournament_id)
    match = schedule.matches[index]
    store = tournaments.store
    tournaments.mark_started(tournament_id, index)
    facts = {"match_id": match.match_id, "attempts": attempt, "worker": worker}
    called = time.perf_counter()
    try:
        result = store.match_result(match.match_id) or referee.run_match(schedule, match)
    except grpc.RpcError as error:
        reason = f"{error.code().name}: {error.details()}"
        refusal = refusal_of(error)
        spent = None if refusal is None else budget.exhausted(refusal, limits)
        if refusal is not None and spent is None:
            raise MatchDeferred(reason, refusal, budget.charged(refusal)) from error
        log.warning("tournament %s match %s not played after %d attempt(s): %s%s", tournament_id, match.match_id,
                    attempt, reason, f" ({spent})" if spent else "")
        gave_up = {"gave_up": spent} if spent else {}
        tournaments.record_outcome(tournament_id, index, {**facts, "status": NOT_PLAYED, "reason": reason, **gave_up})
        return NOT_PLAYED
    referee_s = time.perf_counter() - called
    if not store.record_match(match.match_id, result, []):
        result = store.match_result(match.match_id) or result  # the first record is the result
    on_played(store, result)
    timing = {"referee_s": round(referee_s, 4), "task_s": round(time.perf_counter() - began, 4)}
    tournaments.record_outcome(tournament_id, index, {**facts, "status": PLAYED, "result": result, "timing": timing})
    return PLAYED


def ready_to_finish(tournaments: TournamentStore, tournament_id: str) -> bool:
    """Every match has an outcome and the table is not written yet."""
    total = len(tournaments.plan(tournament_id).matches)
    return tournaments.count_outcomes(tournament_id) == total and tournaments.table(tournament_id) is None


def finish(tournaments: TournamentStore, tournament_id: str) -> bool:
    """Write the final table once every match has an outcome; ``False`` if it is too early
    or another worker wrote it first."""
    schedule = tournaments.plan(tournament_id)
    outcomes = tournaments.outcomes(tournament_id)
    if len(outcomes) < len(schedule.matches):
        return False
    played = sum(1 for o in outcomes.values() if o["status"] == PLAYED)
    written = tournaments.save_table(tournament_id, {
        "tournament_id": tournament_id, "preset": schedule.preset, "games": schedule.games,
        "matches": len(schedule.matches), "played": played, "not_played": len(outcomes) - played,
        "unrated": len(unrated_matches(outcomes)),
        "finished": time.time(), "rows": compute_table(schedule, outcomes)})
    if written:
        log.info("tournament %s finished: %d played, %d not played", tournament_id, played, len(outcomes) - played)
    return written


def start_automatic(app: Celery, tournaments: TournamentStore, preset: str, bots: Sequence[str], *,
                    games: int) -> Schedule | None:
    """An automated round robin of ``bots`` at ``preset``, unless the previous one still runs
    or there are too few bots; returns the new schedule, or ``None`` when skipped."""
    latest = tournaments.latest_automatic(preset)
    if latest is not None and tournaments.table(latest) is None:
        log.info("automated %s round robin skipped: %s still runs", preset, latest)
        return None
    try:
        schedule = create(tournaments, preset, bots, games=games, seed=int(time.time()),
                          tournament_id=f"auto-{preset}-{uuid.uuid4().hex[:8]}")
    except ScheduleError as exc:
        log.info("automated %s round robin skipped: %s", preset, exc)
        return None
    tournaments.set_latest_automatic(preset, schedule.tournament_id)
    launch(app, tournaments, schedule.tournament_id)
    return schedule
