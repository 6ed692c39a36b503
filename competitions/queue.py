"""The arena's task queue: the Celery app every launcher sends matches through and every
worker runs (Redis broker and result backend, settings that keep a match from being lost).

The workers' own app (:mod:`workers.app`) is this one with the tasks included; a launcher
(the web arena, the command line) builds it from the same :class:`~competitions.config.WorkerConfig`
to send tasks by name, without importing the workers.

* ``acks_late`` + ``task_reject_on_worker_lost``: a task is acknowledged only after it
  ran, so the match of a worker that dies is handed out again (a lost pool process's at
  once, though at the queue's end, until the sweep moves it to the front; a lost worker's
  by the sweep, see :mod:`workers.supervisor`); the match id makes the retry harmless.
* ``worker_prefetch_multiplier=1``: a worker holds only the tasks it runs, so the others
  are free for other workers and no message waits in a dead worker's buffer.
* the visibility timeout exceeds a match plus the longest retry delay, so Redis does not
  hand a running match to a second worker (if it did, the second would join the same
  referee match and find the outcome recorded: wasteful, never wrong).
* JSON only: task arguments are ids, results are small dicts; no pickle from the network.
* task events on (sent, started, succeeded, ...): monitors such as Flower see every match
  task.  Every key lives under ``{PITCH_STORE_PREFIX}celery:`` (the transport's
  ``global_keyprefix``), so a monitor must be given that prefix, or run with this app:
  ``celery -A workers.app flower`` (see the README), where the workers run.
* priorities: a new match is queued behind every other task, a match sent again after a
  loss ahead of every queued one, and a retry after a deferral between the two
  (:mod:`competitions.broker`); the sweep that finds lost
  matches is not a task at all but runs in the workers' main processes
  (:mod:`workers.supervisor`), so no backlog delays it.
* beat: one entry per preset of ``PITCH_AUTO_PRESETS``, every ``PITCH_AUTO_INTERVAL_S``,
  and one per preset of ``PITCH_AUTO_LADDER_PRESETS`` (an endless ladder, stepped every
  ``PITCH_REQUEUE_INTERVAL_S``: a step does nothing while its rounds run); a tick nobody
  ran before the next one expires (workers down do not pile them up).
"""

from __future__ import annotations

from collections.abc import Sequence

from celery import Celery

from competitions.config import WorkerConfig

AUTO_ROUND_ROBIN = "pitch.auto_round_robin"
AUTO_LADDER = "pitch.auto_ladder"


def make_app(config: WorkerConfig, include: Sequence[str] = ()) -> Celery:
    """A Celery app for ``config``; ``include`` names the modules that define its tasks
    (the workers' app includes them; a launcher only sends tasks by name)."""
    celery = Celery("pitch", broker=config.celery_url, backend=config.celery_url, include=list(include))
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
            **{f"round-robin-{preset}": {"task": AUTO_ROUND_ROBIN, "schedule": config.auto_interval_s,
                                         "args": (preset,), "options": {"expires": config.auto_interval_s}}
               for preset in config.presets},
            **{f"ladder-{preset}": {"task": AUTO_LADDER, "schedule": config.requeue_interval_s, "args": (preset,),
                                    "options": {"expires": config.requeue_interval_s}}
               for preset in config.ladder_presets},
        },
    )
    return celery
