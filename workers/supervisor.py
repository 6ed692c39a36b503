"""The workers' supervisor: the sweep that sends lost matches again, run from every worker's
main process, outside the match queue.

A sweep sent as a task would wait in the queue it supervises: behind a backlog of matches
it expires unrun, and every worker's processes may be busy for the length of a match.  So
each worker's main process (which only receives messages and hands them to its pool) runs
the sweep in a thread of its own instead, every ``requeue_interval_s``; a lock in Redis lets
one worker sweep per interval, whichever is alive, so the arena keeps recovering while any
worker runs (beat may be down).  The sweep (:func:`sweep`) reads Redis and the broker and
sends tasks; it never calls a referee, so the process that forks the pool holds no gRPC
channel.
"""

from __future__ import annotations

import logging
import socket
import threading
from typing import Any, ClassVar

import redis
from celery import Celery, bootsteps

from competitions.broker import promote_redelivered
from competitions.config import WorkerConfig
from competitions.ladder.control import LADDER_STEP
from competitions.ladder.store import LadderStore
from competitions.sprt import control as sprt
from competitions.sprt.store import SprtStore
from competitions.tournaments import control as tournament
from competitions.tournaments.store import TournamentStore
from competitions.version_tests import control as version_tests
from store.redis_store import Store
from store.version_tests import VersionTestStore

log = logging.getLogger("pitch.workers")


def sweep(app: Celery, tournaments: TournamentStore, config: WorkerConfig) -> dict[str, list[int]]:
    """One sweep: move the matches a lost pool process put back at the queue's end to its
    front; send again the matches of round robins and SPRT runs that have no live task
    (ahead of the queued ones), finish what is complete, send a step to every unfinished
    ladder (a step does nothing while its rounds run; it takes up a step lost with its
    worker), and start the automatic SPRTs of new versions that are due
    (:mod:`competitions.version_tests`).  Returns the matches sent again, by tournament or
    run."""
    store = tournaments.store
    promoted = promote_redelivered(app, (tournament.PLAY_MATCH, sprt.PLAY_SPRT_MATCH))
    if promoted:
        log.warning("supervisor: %d match(es) put back on the queue by a lost pool process moved to its front",
                    promoted)
    resent = {**tournament.requeue_lost(app, tournaments, start_grace_s=config.lease_s),
              **sprt.requeue_lost(app, SprtStore(store), start_grace_s=config.lease_s)}
    ladders = LadderStore(store)
    for ladder_id in ladders.ladder_ids():
        if not ladders.finished(ladder_id):
            app.signature(LADDER_STEP, (ladder_id,), immutable=True).apply_async(expires=config.requeue_interval_s)
    if config.auto_sprt:
        version_tests.sweep(app, VersionTestStore(store), config)
    return resent


class SweepTurn:
    """Whose turn it is to sweep: a Redis key set with ``NX`` for one interval, so the
    workers together sweep about once per interval."""

    def __init__(self, store: Store, interval_s: float, holder: str) -> None:
        self.client = store.client
        self.key = f"{store.prefix}supervisor:sweep"
        self.interval_ms = max(1, round(interval_s * 1000))
        self.holder = holder

    def take(self) -> bool:
        """Whether this worker sweeps now (no other worker swept within the interval)."""
        return bool(self.client.set(self.key, self.holder, nx=True, px=self.interval_ms))


class SupervisorThread(threading.Thread):
    """Sweeps while the worker runs; a failed sweep (Redis restarting, say) is logged and the
    next interval tries again."""

    def __init__(self, app: Celery, config: WorkerConfig, holder: str) -> None:
        super().__init__(name="pitch-supervisor", daemon=True)
        self.app = app
        self.config = config
        self.tournaments = TournamentStore(Store.from_url(config.redis_url, config.store_prefix))
        self.turn = SweepTurn(self.tournaments.store, config.requeue_interval_s, holder)
        self.stopping = threading.Event()

    def run(self) -> None:
        # asked four times per interval, so the sweeps stay about one interval apart whichever
        # worker's clock comes first after the key lapses
        while not self.stopping.wait(self.config.requeue_interval_s / 4):
            try:
                if self.turn.take():
                    sweep(self.app, self.tournaments, self.config)
            except (redis.RedisError, OSError) as error:
                log.warning("supervisor: sweep failed, trying again in %.0fs: %s", self.config.requeue_interval_s,
                            error)
            except Exception:
                log.exception("supervisor: sweep failed")

    def stop(self) -> None:
        """End the thread after the sweep in progress, if any."""
        self.stopping.set()
        self.join(timeout=30)


def supervisor_step(config: WorkerConfig) -> type[bootsteps.StartStopStep]:
    """The worker bootstep that runs a :class:`SupervisorThread` for ``config`` (added to the
    workers' app by :mod:`workers.app`); it starts once the pool has forked its processes."""

    class Supervisor(bootsteps.StartStopStep):  # type: ignore[misc]
        """Runs the sweep from the worker's main process (see :mod:`workers.supervisor`)."""

        requires: ClassVar[set[str]] = {"celery.worker.components:Pool"}

        def __init__(self, worker: Any, **kwargs: Any) -> None:
            super().__init__(worker, **kwargs)
            self.thread: SupervisorThread | None = None

        def start(self, worker: Any) -> None:
            self.thread = SupervisorThread(worker.app, config, worker.hostname or socket.gethostname())
            self.thread.start()

        def stop(self, worker: Any) -> None:
            if self.thread is not None:
                self.thread.stop()

    return Supervisor
