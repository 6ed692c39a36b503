"""The workers' liveness: a file the consumer touches from its event loop, and the check an
orchestrator runs against it (``pitch-arena worker-alive``).

A worker process can be alive and do nothing: its consumer stopped, or it is stuck
reconnecting to a broker that does not come back.  Its process status and a port say nothing
of that, and ``celery inspect ping`` needs the broker and takes seconds.  The consumer's timer
runs in the same event loop that takes the tasks, and only while the consumer is started (on a
live broker connection), so a file it touches every ``interval`` seconds is fresh exactly while
the worker consumes; a check that finds it older than a minute, or missing, reports the worker
dead.  The file lives on the worker's own machine (``PITCH_WORKER_ALIVE_FILE``), so the check
needs neither the broker nor Celery.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from celery import bootsteps


def touch(path: Path) -> None:
    """Mark ``path`` fresh (create it if missing)."""
    path.touch()


def age(path: Path, now: float | None = None) -> float | None:
    """Seconds since ``path`` was last touched, or ``None`` when there is no such file."""
    try:
        modified = path.stat().st_mtime
    except FileNotFoundError:
        return None
    return (time.time() if now is None else now) - modified


def heartbeat_step(path: Path, interval_s: float) -> type[bootsteps.StartStopStep]:
    """A consumer step that touches ``path`` every ``interval_s`` seconds while the consumer
    consumes, and removes it when the worker shuts down."""

    class Heartbeat(bootsteps.StartStopStep):
        """Touches the liveness file from the consumer's event loop (see :mod:`workers.alive`)."""

        requires = ("celery.worker.consumer.tasks:Tasks",)

        def __init__(self, parent: Any, **kwargs: Any) -> None:
            super().__init__(parent, **kwargs)
            self.timer_entry: Any = None

        def start(self, parent: Any) -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            touch(path)
            self.timer_entry = parent.timer.call_repeatedly(interval_s, touch, (path,))

        def stop(self, parent: Any) -> None:
            if self.timer_entry is not None:
                self.timer_entry.cancel()
                self.timer_entry = None

        def shutdown(self, parent: Any) -> None:
            self.stop(parent)
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    return Heartbeat
