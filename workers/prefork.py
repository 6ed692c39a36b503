"""The workers' process pool: Celery's prefork pool, with a start check that waits for the
pool's processes (the workers' app selects it with ``worker_pool``).

A worker whose pool processes cannot start must stop, and say so: Celery's consumer asks the
pool once, just before its event loop runs, whether its processes started (``did_start_ok``),
and if not stops the worker with "Unrecoverable error: WorkerLostError('Could not start worker
processes')", which :func:`workers.app.run` turns into exit status 1.  Celery's answer only
counts the processes that have *already* exited.  The processes are forked when the pool step
starts and run their initializer (``worker_process_init``) on their own; the consumer reaches
the check as soon as it has connected to the broker, usually before a process that fails in
its initializer has died.  Such a pool passes the check, and billiard then replaces the dying
processes for ever: it gives up only after 100 restarts within one second, a pace a fork and an
initializer never reach.  The worker neither works nor exits.

The check here first waits until every process has either said it is up (its first message,
``WORKER_UP``, is sent after the initializer) or exited, for at most Celery's own limit on a
process coming up (``worker_proc_alive_timeout``), so it answers for processes that had the
time to start.  A healthy pool is up by then: the wait costs it nothing.
"""

from __future__ import annotations

import selectors
import time
from typing import Any

from celery.concurrency import prefork


class TaskPool(prefork.TaskPool):
    """Celery's prefork pool whose start check waits for its processes to come up or die
    (see the module's docstring)."""

    def did_start_ok(self) -> bool:
        """Whether no pool process failed to start, asked once the processes have had their
        chance to run their initializer."""
        pool = self._pool
        processes = getattr(pool, "_pool", None)
        timeout = getattr(pool, "_proc_alive_timeout", None)
        if processes and timeout:
            _wait_up_or_exited(processes, timeout)
        return bool(super().did_start_ok())


def _wait_up_or_exited(processes: list[Any], timeout: float) -> None:
    """Wait until each of the pool's ``processes`` has a message for the worker (its first is
    ``WORKER_UP``) or has exited, for at most ``timeout`` seconds.

    Only readiness is polled; nothing is read, so the event loop still receives ``WORKER_UP``.
    A process whose sentinel is readable is joined: the kernel closes a dying process's files
    before its exit status can be collected, and the pool counts a process as exited only once
    it has an exit status."""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        fds: dict[Any, tuple[int, int]] = {}
        for proc in processes:
            fd_out, sentinel = getattr(proc, "outqR_fd", None), getattr(proc, "sentinel", None)
            if isinstance(fd_out, int) and isinstance(sentinel, int):
                fds[proc] = (fd_out, sentinel)
                selector.register(fd_out, selectors.EVENT_READ, proc)
                selector.register(sentinel, selectors.EVENT_READ, proc)
        while fds and (left := deadline - time.monotonic()) > 0:
            for key, _ in selector.select(left):
                proc = key.data
                if proc not in fds:
                    continue  # both of its descriptors were ready
                if key.fd == fds[proc][1]:
                    proc.join(max(deadline - time.monotonic(), 0.0))
                for fd in fds.pop(proc):
                    selector.unregister(fd)
