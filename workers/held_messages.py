"""Messages a worker held when its broker connection was lost go back on the queue once the
worker has reconnected, not a visibility timeout later.

With late acknowledgement a worker holds every message it took until its task has run: the
ones it runs, the ones reserved for a free process, and the ones whose countdown (a retry's
delay) has not come.  On a lost connection Celery drops all but the running ones (their
delivery is tied to the lost channel) and kombu puts the held messages back on the queue as it
closes the channel.  When Redis is down that restore fails, and the messages stay in Redis'
table of unacknowledged messages (which survives a restart in the append-only file) until the
visibility timeout has passed: 40 minutes with the arena's settings, far longer than a
restart.

:class:`RestoreHeld`, a consumer step, remembers the channel its tasks come through; when the
consumer starts again on a new connection it puts back, through the new channel, each message
the old channel still holds that no task of this worker is running (a running task still
acknowledges its message when it ends).  Putting a message back is idempotent (kombu moves it
from the unacknowledged table to the queue in one transaction), and a task run twice by a race
here is harmless: every task of the arena is idempotent on its ids.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import bootsteps
from celery.worker import state

log = logging.getLogger("pitch.workers")


def running_tags() -> set[str]:
    """Delivery tags of the messages whose task a pool process of this worker is running."""
    tags: set[str] = set()
    for request in tuple(state.active_requests):
        tag = getattr(getattr(request, "message", None), "delivery_tag", None)
        if tag is not None:
            tags.add(str(tag))
    return tags


def restore_held(old: Any, new: Any) -> int:
    """Put back on the queue, through channel ``new``, the messages channel ``old`` (of a lost
    connection) still holds and no running task will acknowledge; how many."""
    qos = getattr(old, "_qos", None)
    if qos is None:
        return 0
    qos._flush()  # forget the messages acknowledged since (kombu drops them from _delivered lazily)
    running = running_tags()
    held = [tag for tag in list(qos._delivered) if str(tag) not in running]
    for tag in held:
        new.qos.restore_by_tag(tag)
        qos._delivered.pop(tag, None)
    return len(held)


class RestoreHeld(bootsteps.StartStopStep):
    """Consumer step: after a reconnection, the previous connection's held messages go back
    on the queue (see the module's docstring)."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.lost: list[Any] = []
        self.channel: Any = None

    def start(self, parent: Any) -> None:
        """Remember this connection's task channel; restore what the lost ones held."""
        channel = parent.task_consumer.channel
        if self.channel is not None and self.channel is not channel:
            self.lost.append(self.channel)
        self.channel = channel
        for old in list(self.lost):
            try:
                restored = restore_held(old, channel)
            except channel.connection_errors as error:
                log.warning("could not yet put back the messages held before the broker connection was lost: %r",
                            error)
                return  # the consumer reconnects again, and this step tries again then
            self.lost.remove(old)
            if restored:
                log.info("put back on the queue %d message(s) held when the broker connection was lost", restored)
