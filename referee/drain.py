"""Waiting for a stopping referee's work in flight to end, within its grace.

A referee that is told to stop (SIGTERM) drains rather than cuts: the matches it runs, and
the seats it relays for matches that other referees run, go on until they end or the
shutdown grace expires.  What counts as in flight is the caller's (the arena's matches, the
relay service's hosted relays); this waits for all of it to reach zero by one deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

POLL_S = 0.05
"""How often the work in flight is counted again: the stop path is rare, and a poll keeps
the counters free of any signalling on the decision path."""


async def drained(in_flight: Callable[[], int], deadline: float) -> bool:
    """Wait until ``in_flight()`` is zero or the event loop's clock reaches ``deadline``;
    whether it reached zero."""
    loop = asyncio.get_running_loop()
    while in_flight() > 0:
        left = deadline - loop.time()
        if left <= 0:
            return False
        await asyncio.sleep(min(POLL_S, left))
    return True
