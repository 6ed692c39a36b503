"""What the Celery broker (Redis) still holds of a task: waiting in a queue, or taken by a
worker and not acknowledged yet, and since when.

Kombu's Redis transport takes a message with ``BRPOP`` and only then writes it to its
``unacked`` hash, so a worker killed between the two loses that message: no visibility
timeout brings it back.  A worker killed after that point but before its task started
leaves the message in ``unacked`` for the whole visibility timeout (40 minutes by
default).  :func:`held_tasks` lets the sweep (see :mod:`competitions.recovery`) tell such
matches from ones that are merely queued or starting.  It reads the transport's documented
layout: one list per queue (and per priority step), the ``unacked`` hash of ``[message,
exchange, routing_key]`` by delivery tag, and the ``unacked_index`` sorted set of delivery
tags scored by the time the worker took each one; messages are Celery's protocol 2 (task
name in the headers, base64 JSON ``[args, kwargs, embed]`` body).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import redis
from celery import Celery

#: Priority of a match's first task: behind every other task (the lowest step kombu's Redis
#: transport takes last), so a match sent again after a loss, and the short bookkeeping
#: tasks, never wait behind a backlog of new matches.
NEW_MATCH_PRIORITY = 9
#: Priority of a match sent again by the sweep: the queue's front.
RESENT_MATCH_PRIORITY = 0
#: Priority of a match's retry after the referee turned it away (a bot absent, the fleet
#: busy): ahead of the new matches, so its countdown, not the backlog, decides when it runs
#: (behind a backlog of 500 the retry of a 5 s deferral waited minutes and held up its
#: tournament), and behind the matches the sweep sends again.
RETRIED_MATCH_PRIORITY = 3
#: Priority of an SPRT's matches: a run queues only its few pairs in flight at a time, and
#: plays its pairs one window after another, so behind a round robin's backlog it would
#: wait for the whole backlog at every window (a test of hundreds of pairs, for days);
#: ahead of the new matches, it holds up a backlog by those few matches only.
PACED_MATCH_PRIORITY = 6


@dataclass
class HeldTasks:
    """The argument tuples of one task's messages in the broker."""

    queued: set[tuple[Any, ...]] = field(default_factory=set)
    """Waiting in a queue."""
    taken: dict[tuple[Any, ...], float] = field(default_factory=dict)
    """Taken by a worker and not acknowledged: when the latest copy was taken (the worker's
    clock, seconds since the epoch)."""

    def merge(self, other: HeldTasks) -> HeldTasks:
        """What either of two looks saw (the later delivery time of a message both saw taken)."""
        taken = dict(self.taken)
        for args, at in other.taken.items():
            taken[args] = max(at, taken.get(args, at))
        return HeldTasks(self.queued | other.queued, taken)


def held_tasks(app: Celery, task_name: str) -> HeldTasks:
    """Every ``task_name`` message in the default queue or in the unacknowledged set, read
    in one Redis transaction (a message moving from one to the other, as a retry or a
    restore does, is seen in exactly one of them)."""
    queue = app.conf.task_default_queue
    with app.connection_for_write() as connection:
        channel: Any = connection.default_channel
        prefix = channel.global_keyprefix
        keys = [queue, *(f"{queue}{channel.sep}{step}" for step in channel.priority_steps if step)]
        # kombu's own client prefixes the keys of some commands only (which ones varies by
        # version): a plain client on its connections, given whole key names, reads the same keys
        plain = redis.Redis(connection_pool=channel.client.connection_pool)
        pipe = plain.pipeline(transaction=True)
        for key in keys:
            pipe.lrange(prefix + key, 0, -1)
        pipe.hgetall(prefix + channel.unacked_key)
        pipe.zrange(prefix + channel.unacked_index_key, 0, -1, withscores=True)
        *lists, unacked, index = pipe.execute()
    held = HeldTasks()
    for raw in (raw for items in lists for raw in items):
        args = _task_args(json.loads(raw), task_name)
        if args is not None:
            held.queued.add(args)
    taken_at = {_text(tag): float(score) for tag, score in index}
    for tag, raw in unacked.items():
        args = _task_args(json.loads(raw)[0], task_name)
        if args is not None:
            # kombu writes both in one transaction; a message without an index entry counts as
            # taken long ago: sending its match again is harmless, leaving it stranded is not
            at = taken_at.get(_text(tag), 0.0)
            held.taken[args] = max(at, held.taken.get(args, at))
    return held


#: Moves each given message from the list ``KEYS[1]`` to the consumer's end of ``KEYS[2]``
#: (workers take from the right), skipping one a worker took meanwhile; the count moved.
_MOVE_TO_FRONT = """
local moved = 0
for i = 1, #ARGV do
  if redis.call('LREM', KEYS[1], -1, ARGV[i]) == 1 then
    redis.call('RPUSH', KEYS[2], ARGV[i])
    moved = moved + 1
  end
end
return moved
"""


def promote_redelivered(app: Celery, task_names: Sequence[str]) -> int:
    """Move the ``task_names`` messages that were put back on the queue (a pool process died
    running them: Celery rejects the message and kombu pushes it at the back of its
    priority's list, behind every new match) to the front of the queue; the number moved.

    The move is one Lua script per list, so a message a worker takes meanwhile is not
    copied, and a restored message keeps its body and delivery tag."""
    queue = app.conf.task_default_queue
    moved = 0
    with app.connection_for_write() as connection:
        channel: Any = connection.default_channel
        prefix = channel.global_keyprefix
        plain = redis.Redis(connection_pool=channel.client.connection_pool)
        front = prefix + queue
        for key in (prefix + f"{queue}{channel.sep}{step}" for step in channel.priority_steps if step):
            back = [raw for raw in plain.lrange(key, 0, -1) if _redelivered(json.loads(raw), task_names)]
            if back:
                moved += int(plain.eval(_MOVE_TO_FRONT, 2, key, front, *back))
    return moved


def _redelivered(message: dict[str, Any], task_names: Sequence[str]) -> bool:
    headers = message.get("headers", {})
    return bool(headers.get("redelivered")) and headers.get("task") in task_names


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _task_args(message: dict[str, Any], task_name: str) -> tuple[Any, ...] | None:
    """A protocol 2 message's positional arguments if it runs ``task_name``, else ``None``."""
    if message.get("headers", {}).get("task") != task_name:
        return None
    body = message["body"]
    if message.get("properties", {}).get("body_encoding") == "base64":
        body = base64.b64decode(body)
    args, _kwargs, _embed = json.loads(body)
    return tuple(args)
