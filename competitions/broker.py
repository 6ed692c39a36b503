"""What the Celery broker (Redis) still holds of a task: waiting in a queue, or taken by a
worker and not acknowledged yet.

Kombu's Redis transport takes a message with ``BRPOP`` and only then writes it to its
``unacked`` hash, so a worker killed between the two loses that message: no visibility
timeout brings it back.  :func:`held_task_args` lets the beat's sweep (see
:func:`competitions.tournaments.control.requeue_lost`) tell such a lost match from one that is merely
queued or running.  It reads the transport's documented layout: one list per queue (and
per priority step), and the ``unacked`` hash of ``[message, exchange, routing_key]``;
messages are Celery's protocol 2 (task name in the headers, base64 JSON
``[args, kwargs, embed]`` body).
"""

from __future__ import annotations

import base64
import json
from itertools import chain
from typing import Any

from celery import Celery


def held_task_args(app: Celery, task_name: str) -> set[tuple[Any, ...]]:
    """The argument tuples of every ``task_name`` message in the default queue or in the
    unacknowledged set, read in one Redis transaction (a message moving from one to the
    other, as a retry or a restore does, is seen in exactly one of them)."""
    queue = app.conf.task_default_queue
    with app.connection_for_write() as connection:
        channel: Any = connection.default_channel
        prefix = channel.global_keyprefix  # kombu's client adds it to the commands kombu uses only
        keys = [queue, *(f"{queue}{channel.sep}{step}" for step in channel.priority_steps if step)]
        pipe = channel.client.pipeline(transaction=True)
        for key in keys:
            pipe.lrange(prefix + key, 0, -1)
        pipe.hvals(prefix + channel.unacked_key)
        *lists, unacked = pipe.execute()
    queued = (json.loads(raw) for items in lists for raw in items)
    taken = (json.loads(raw)[0] for raw in unacked)
    found = (_task_args(message, task_name) for message in chain(queued, taken))
    return {args for args in found if args is not None}


def _task_args(message: dict[str, Any], task_name: str) -> tuple[Any, ...] | None:
    """A protocol 2 message's positional arguments if it runs ``task_name``, else ``None``."""
    if message.get("headers", {}).get("task") != task_name:
        return None
    body = message["body"]
    if message.get("properties", {}).get("body_encoding") == "base64":
        body = base64.b64decode(body)
    args, _kwargs, _embed = json.loads(body)
    return tuple(args)
