"""Rate-limited logging of what clients cause, per client, so that no client can flood the
log nor hide another client's lines.

One global window once let a client that sent garbage in a loop use up every line of the
minute, so every other client's faults went unlogged.  Each client (a bot token's bot id, or
a peer's address) now has its own window; at most ``max_clients`` windows are kept, the
least recently used forgotten first."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass

#: Clients whose windows a limiter keeps.
MAX_CLIENTS = 1000
#: The window of lines not attributed to a client (the fleet's own calls, for instance).
UNATTRIBUTED = ""


@dataclass
class _Window:
    start: float
    logged: int = 0
    left_out: int = 0
    report: asyncio.TimerHandle | None = None
    """The call that logs how many lines were left out, at the window's end."""


class LogLimiter:
    """Log lines caused by clients, at most ``burst`` per ``period_s`` per client (a string
    that names it: ``bot <id>``, ``peer <address>``).  The lines of a client's window past
    its burst are counted, and the count is logged when the window ends (or, without an
    event loop to time it, with the client's next line)."""

    def __init__(self, logger: logging.Logger, burst: int = 10, period_s: float = 60.0,
                 max_clients: int = MAX_CLIENTS, what: str = "line(s) like the above") -> None:
        self.logger, self.burst, self.period_s, self.max_clients = logger, burst, period_s, max_clients
        self.what = what
        """What the count of left-out lines counts, in the line that reports it."""
        self._windows: OrderedDict[str, _Window] = OrderedDict()

    def log(self, level: int, message: str, *args: object, exc_info: BaseException | None = None,
            client: str = UNATTRIBUTED) -> None:
        """Log ``message % args`` at ``level`` unless ``client``'s lines of this period are used up."""
        now = time.monotonic()
        window = self._windows.pop(client, None)
        if window is None or now - window.start >= self.period_s:
            if window is not None and window.left_out:  # its report was not timed
                self._report(client, window)
            window = _Window(now)
        self._windows[client] = window
        while len(self._windows) > self.max_clients:
            _, evicted = self._windows.popitem(last=False)
            if evicted.report is not None:
                evicted.report.cancel()
        if window.logged >= self.burst:
            window.left_out += 1
            if window.report is None:
                self._time_report(client, window)
            return
        window.logged += 1
        self.logger.log(level, message, *args, exc_info=exc_info)

    def _time_report(self, client: str, window: _Window) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        window.report = loop.call_later(max(0.0, window.start + self.period_s - time.monotonic()),
                                        self._report, client, window)

    def _report(self, client: str, window: _Window) -> None:
        """Log how many of ``client``'s lines ``window`` left out."""
        if window.report is not None:
            window.report.cancel()
            window.report = None
        if window.left_out:
            self.logger.warning("%s: %d more %s in %g s, not logged one by one", client or "unattributed",
                                window.left_out, self.what, self.period_s)
            window.left_out = 0

    def __len__(self) -> int:
        """Clients with a window now."""
        return len(self._windows)
