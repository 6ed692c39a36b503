"""Relay calls to a host that is down: back off, and log a summary, not every failure.

A host referee that died stays in the fleet directory until its entry expires (the TTL),
and every seat relayed from it tries to open its relay again every few hundred
milliseconds meanwhile: with a dozen seats, fifty failed calls and as many warnings a
second.  Here each host's failures set a time before which no call is tried (exponential,
capped), the opens refused meanwhile are counted, and at most one warning per host per
``every_s`` says how many calls failed since the last one; the first failure is logged at
once, and the first success after failures says how many there were."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

FIRST_BACKOFF_S = 0.25
"""The pause after a host's first failed call; each further failure doubles it..."""
MAX_BACKOFF_S = 5.0
"""... up to this."""
SUMMARY_EVERY_S = 10.0
"""At most one warning per host this often."""


@dataclass
class _Host:
    failures: int = 0
    """Failed calls in a row (sets the backoff)."""
    unlogged: int = 0
    """Failed calls since the last line."""
    refused: int = 0
    """Opens refused while backing off since the last line."""
    total: int = 0
    """Failed calls since the host last worked."""
    retry_at: float = 0.0
    logged_at: float = -math.inf
    latest: str = ""


class HostFailures:
    """Per host address: when the next relay call may be tried, and the summarised log."""

    def __init__(self, logger: logging.Logger, every_s: float = SUMMARY_EVERY_S,
                 first_s: float = FIRST_BACKOFF_S, max_s: float = MAX_BACKOFF_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger, self.every_s, self.first_s, self.max_s, self.clock = logger, every_s, first_s, max_s, clock
        self._hosts: dict[str, _Host] = {}

    def failed(self, address: str, why: str) -> None:
        """A call to ``address`` failed with relays on it: back off, and maybe log."""
        host = self._hosts.setdefault(address, _Host())
        now = self.clock()
        host.failures += 1
        host.unlogged += 1
        host.total += 1
        host.latest = why
        host.retry_at = now + min(self.first_s * 2 ** (host.failures - 1), self.max_s)
        self._summarise(address, host, now)

    def backing_off(self, address: str) -> float:
        """Seconds before a call to ``address`` may be tried (0: now); a refused open is
        counted for the next summary."""
        host = self._hosts.get(address)
        if host is None:
            return 0.0
        now = self.clock()
        if now >= host.retry_at:
            return 0.0
        host.refused += 1
        self._summarise(address, host, now)
        return host.retry_at - now

    def succeeded(self, address: str) -> None:
        """A call to ``address`` works: forget its failures (saying how many there were)."""
        host = self._hosts.pop(address, None)
        if host is not None and host.total:
            self.logger.info("relay calls to %s work again, after %d failed call(s)", address, host.total)

    def _summarise(self, address: str, host: _Host, now: float) -> None:
        if now - host.logged_at < self.every_s or not (host.unlogged or host.refused):
            return
        first = host.logged_at == -math.inf
        self.logger.warning("relay calls to %s failed %d time(s)%s, %d open(s) refused while backing off; "
                            "next try in %.1f s (latest: %s)", address, host.unlogged,
                            "" if first else f" in the last {now - host.logged_at:.0f} s", host.refused,
                            max(0.0, host.retry_at - now), host.latest)
        host.logged_at, host.unlogged, host.refused = now, 0, 0
