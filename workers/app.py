"""The workers' Celery app: :func:`competitions.queue.make_app` from the environment, with the
tasks of :mod:`workers.tasks`.

Run a worker with ``celery -A workers.app worker`` and beat with ``celery -A workers.app beat``
(or ``pitch-arena worker`` / ``pitch-arena beat``); both read
:class:`competitions.config.WorkerConfig` from the environment when this module is imported.
"""

from __future__ import annotations

from pathlib import Path

import click
from celery import Celery

from competitions.config import WorkerConfig
from competitions.queue import make_app
from workers import redis_close
from workers.alive import heartbeat_step
from workers.held_messages import RestoreHeld
from workers.supervisor import supervisor_step

config = WorkerConfig.from_env()
app = make_app(config, include=["workers.tasks"])
# Celery's prefork pool, whose start check waits for its processes: a worker whose processes die
# as they start exits 1 instead of replacing them for ever (see workers.prefork).  ``--pool=prefork``
# on the command line also selects it.
app.conf.worker_pool = "workers.prefork:TaskPool"
# A Redis restart under a worker that holds messages: the consumer closes its channels
# completely and reconnects instead of exiting (workers.redis_close), and puts the messages it
# held back on the queue once reconnected (workers.held_messages).
redis_close.install()
app.steps["consumer"].add(RestoreHeld)
# Liveness: a file touched from the consumer's event loop while it consumes (workers.alive).
if config.alive_file:
    app.steps["consumer"].add(heartbeat_step(Path(config.alive_file), config.alive_interval_s))

# every worker's main process sweeps for lost matches, outside the queue (see workers.supervisor)
app.steps["worker"].add(supervisor_step(config))


def run(celery: Celery, argv: list[str]) -> int:
    """Run ``celery ARGV`` for ``celery`` and return its exit status.

    ``Celery.start`` runs the same command but drops its status: a worker that stopped on
    "Unrecoverable error" (its pool processes could not start, say) exited 0, and an
    orchestrator took the failure for a clean stop."""
    from celery.bin.celery import celery as command

    command.params[0].default = celery
    try:
        status = command.main(args=argv, standalone_mode=False)
    except click.exceptions.Exit as stop:
        status = stop.exit_code
    except click.ClickException as error:
        error.show()
        status = error.exit_code
    finally:
        command.params[0].default = None
    return status if isinstance(status, int) else 0
