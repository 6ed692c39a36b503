"""Rate-limited logging of what clients cause, so that no client can flood the log."""

from __future__ import annotations

import logging
import time


class LogLimiter:
    """Log lines caused by clients, at most ``burst`` per ``period_s``: a client that sends
    garbage in a loop must not be able to fill the log.  The first line after a quiet spell
    says how many were left out."""

    def __init__(self, logger: logging.Logger, burst: int = 10, period_s: float = 60.0) -> None:
        self.logger, self.burst, self.period_s = logger, burst, period_s
        self._window = 0.0
        self._logged = 0
        self._suppressed = 0

    def log(self, level: int, message: str, *args: object, exc_info: BaseException | None = None) -> None:
        """Log ``message % args`` at ``level`` unless this period's lines are used up."""
        now = time.monotonic()
        if now - self._window >= self.period_s:
            self._window, self._logged = now, 0
        if self._logged >= self.burst:
            self._suppressed += 1
            return
        self._logged += 1
        if self._suppressed:
            message += f" ({self._suppressed} similar line(s) left out)"
            self._suppressed = 0
        self.logger.log(level, message, *args, exc_info=exc_info)

