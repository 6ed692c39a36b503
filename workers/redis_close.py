"""A Redis broker channel that closes completely when its connection is already dead.

Closing a channel of kombu's Redis transport first reads the reply of a BRPOP it still has
pending (so that a message Redis popped for it is not lost).  When Redis itself is gone that
read raises a connection error, and the close stops there: the channel stays open, holding its
unacknowledged messages.  Celery (5.7) handles a lost broker by collecting the connection
(closing its channels, then detaching the transport from the connection) and then closing it
again; the second close of that half-closed channel goes on to put its messages back on the
queue, needs a new Redis pool for it, finds the transport detached and raises
``AttributeError: 'NoneType' object has no attribute 'hostname'``.  That is not a connection
error, so the worker stops on "Unrecoverable error" and exits 1 while it held messages and
was waiting on the queue (a free pool process, or a retry's countdown).

:func:`install` makes the close go on when that read fails: the reply died with the
connection, and the rest of the close (putting the held messages back, or leaving them to
:mod:`workers.held_messages` when Redis is down) must still run while the transport is
attached.  Installed by the workers' app (:mod:`workers.app`) only.
"""

from __future__ import annotations

from queue import Empty
from typing import Any

from kombu.transport import redis as redis_transport

_PATCHED = "_pitch_closes_on_dead_connection"


def install() -> None:
    """Make :class:`kombu.transport.redis.Channel` close completely on a dead connection
    (idempotent)."""
    channel_class: Any = redis_transport.Channel
    if getattr(channel_class, _PATCHED, False):
        return
    close = channel_class.close

    def close_on_dead_connection(self: Any) -> None:
        if self._in_poll:
            try:
                self._brpop_read()  # the pending reply, as kombu's close reads it
            except Empty:
                pass
            except self.connection_errors:
                pass  # the connection is dead and its reply with it; _brpop_read cleared _in_poll
        close(self)

    close_on_dead_connection.__doc__ = close.__doc__
    channel_class.close = close_on_dead_connection
    setattr(channel_class, _PATCHED, True)
