"""A Redis restart under a worker that holds messages: the worker reconnects and goes on
consuming, and the messages it held (late acknowledgement) are not lost.

Real parts: a private redis-server with an append-only file, killed with SIGKILL and started
again on the same socket from that file, and a real Celery worker process (the workers' app,
with a task of this test's own that holds its message as long as it is told)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from competitions.config import WorkerConfig
from competitions.queue import make_app
from store.redis_server import RedisServer
from tests.workers.celery_harness import WorkerProcess, wait_until

HOLD = "pitch.test.hold"


@pytest.fixture()
def persistent_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis of this test's own that keeps its data in an append-only file, so a restart
    finds what it held (the broker's queues and its unacknowledged messages)."""
    data = tmp_path / "redis-data"
    data.mkdir()
    with RedisServer(persist_dir=str(data)) as server:
        yield server


def crash_and_restart(server: RedisServer) -> None:
    """SIGKILL the server (no shutdown, no final save) and start it again on the same socket
    from its append-only file: what the workers see of a Redis that crashed and came back."""
    server.process.kill()
    server.process.wait(timeout=10)
    server.resume()


def runs(log: Path) -> list[str]:
    """What the task with that log did: one "start" per run, one "done" per finished run."""
    return log.read_text().split() if log.exists() else []


@pytest.mark.slow
def test_worker_holding_messages_survives_a_redis_restart(persistent_server: RedisServer, tmp_path: Path) -> None:
    config = WorkerConfig(redis_url=persistent_server.url, store_prefix=f"restart-{uuid.uuid4().hex[:8]}:")
    app = make_app(config)
    worker = WorkerProcess(config, "restart", tmp_path, concurrency=2, include=["tests.workers.held_task"])
    try:
        # Two messages held through the restart: one whose task runs, one scheduled for later
        # (a retry's countdown): the worker keeps both unacknowledged, and has a free process, so
        # it is also waiting on the queue when Redis goes.
        running, scheduled, after = tmp_path / "running.log", tmp_path / "scheduled.log", tmp_path / "after.log"
        app.send_task(HOLD, args=(str(running), 4.0))
        wait_until(lambda: runs(running) == ["start"], 30, "the running task to start")
        later = app.send_task(HOLD, args=(str(scheduled), 0.1), countdown=3).id  # no result object kept
        wait_until(lambda: f"{later}] received" in worker.log(), 10, "the worker to hold the scheduled task")

        crash_and_restart(persistent_server)

        app.send_task(HOLD, args=(str(after), 0.1))
        wait_until(lambda: "done" in runs(after) or worker.process.poll() is not None, 20,
                   "a task sent after the restart to run")
        assert worker.process.poll() is None, "the worker exited:\n" + worker.log()[-3000:]
        # the scheduled task waits for its countdown, and the worker reconnects with kombu's backoff: on a
        # loaded machine (the whole suite on two cores) that took more than 20 s
        wait_until(lambda: "done" in runs(running) and "done" in runs(scheduled), 45,
                   "the held tasks to run to completion")
        assert worker.process.poll() is None, "the worker exited:\n" + worker.log()[-3000:]
        assert "Unrecoverable error" not in worker.log()
        # the running task acknowledged its own message; the scheduled one was put back once
        assert runs(running) == ["start", "done"] and runs(scheduled) == ["start", "done"]
    finally:
        worker.stop()
        app.close()
