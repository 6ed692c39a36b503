"""The Celery app: Redis broker and result backend, settings that keep a match from being lost.

Run a worker with ``celery -A workers.celery.app worker`` and beat with
``celery -A workers.celery.app beat``; both read :class:`workers.config.WorkerConfig` from
the environment.

* ``acks_late`` + ``task_reject_on_worker_lost``: a task is acknowledged only after it
  ran, so the match of a worker that dies is handed out again (a lost pool process at once,
  a lost worker after the visibility timeout); the match id makes the retry harmless.
* ``worker_prefetch_multiplier=1``: a worker holds only the tasks it runs, so the others
  are free for other workers and no message waits in a dead worker's buffer.
* the visibility timeout exceeds a match plus the longest retry delay, so Redis does not
  hand a running match to a second worker (if it did, the second would join the same
  referee match and find the outcome recorded: wasteful, never wrong).
* JSON only: task arguments are ids, results are small dicts; no pickle from the network.
* task events on (sent, started, succeeded, ...): monitors such as Flower see every match
  task.  Every key lives under ``{PITCH_STORE_PREFIX}celery:`` (the transport's
  ``global_keyprefix``), so a monitor must be given that prefix, or run with this app:
  ``celery -A workers.celery.app flower`` (see the README).
* beat: one entry per preset of ``PITCH_AUTO_PRESETS``, every ``PITCH_AUTO_INTERVAL_S``,
  one per preset of ``PITCH_AUTO_LADDER_PRESETS`` (an endless ladder, stepped every
  ``PITCH_REQUEUE_INTERVAL_S``: a step does nothing while its rounds run), and the sweep
  that sends again matches whose task the broker lost (and takes up ladder steps lost
  with their worker), every ``PITCH_REQUEUE_INTERVAL_S``; a tick nobody ran before the next one expires (workers
  down do not pile them up).
"""

from __future__ import annotations

import click
from celery import Celery

from workers.config import WorkerConfig

AUTO_ROUND_ROBIN = "pitch.auto_round_robin"
AUTO_LADDER = "pitch.auto_ladder"
REQUEUE_LOST = "pitch.requeue_lost"


def make_app(config: WorkerConfig) -> Celery:
    """A Celery app for ``config`` (workers use :data:`app`; tests and launchers may build
    their own for another Redis or prefix)."""
    celery = Celery("pitch", broker=config.celery_url, backend=config.celery_url, include=["workers.celery.tasks"])
    celery.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        worker_send_task_events=True,
        task_send_sent_event=True,
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            "global_keyprefix": config.celery_prefix,
            "visibility_timeout": config.visibility_timeout_s,
            "unacked_restore_interval": config.restore_interval_s,
            "unacked_restore_throttle": 1,
        },
        result_backend_transport_options={"global_keyprefix": config.celery_prefix},
        result_expires=24 * 3600,
        beat_schedule={
            "requeue-lost": {"task": REQUEUE_LOST, "schedule": config.requeue_interval_s,
                             "options": {"expires": config.requeue_interval_s}},
            **{f"round-robin-{preset}": {"task": AUTO_ROUND_ROBIN, "schedule": config.auto_interval_s,
                                         "args": (preset,), "options": {"expires": config.auto_interval_s}}
               for preset in config.presets},
            **{f"ladder-{preset}": {"task": AUTO_LADDER, "schedule": config.requeue_interval_s, "args": (preset,),
                                    "options": {"expires": config.requeue_interval_s}}
               for preset in config.ladder_presets},
        },
    )
    return celery


config = WorkerConfig.from_env()
app = make_app(config)


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
