"""How long a match keeps trying before it is recorded as not played: one budget per cause
of refusal (:class:`competitions.referee_client.Refusal`).

A single count of retries for every cause let a busy fleet or a referee restart use up the
tries meant for an absent bot, and matches between connected bots ended "not played".  So:

* a seat's bot absent: ``match_retries`` retries with backoff (only the bot's author can
  end that);
* the fleet busy or a referee stopping, restarting or unreachable: the match waits, retried
  with backoff, until ``fleet_wait_s`` have passed since its first such refusal;
* a referee fault: ``match_retries`` retries of its own.

The budget travels with the task (its keyword arguments), so whichever worker runs the
retry continues the same count; a match the sweep sends again after a loss starts afresh.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace
from typing import Any

from competitions.referee_client import Refusal


@dataclass(frozen=True)
class RetryLimits:
    """The arena's bounds (from :class:`competitions.config.WorkerConfig`)."""

    retries: int
    """Retries for an absent bot, and apart for referee faults."""
    fleet_wait_s: float
    """How long a match waits for a busy or restarting fleet."""


@dataclass(frozen=True)
class RetryBudget:
    """What one match has spent so far."""

    absent: int = 0
    busy: int = 0
    faults: int = 0
    waiting_since: float | None = None
    """When the fleet first turned the match away as busy (seconds since the epoch)."""

    def tries(self, cause: Refusal) -> int:
        """Retries spent on ``cause``."""
        return {Refusal.ABSENT: self.absent, Refusal.BUSY: self.busy, Refusal.FAULT: self.faults}[cause]

    def exhausted(self, cause: Refusal, limits: RetryLimits, now: float | None = None) -> str | None:
        """Why the match must not be retried for ``cause`` again, or ``None`` if it may."""
        if cause is Refusal.BUSY:
            waited = 0.0 if self.waiting_since is None else (time.time() if now is None else now) - self.waiting_since
            return f"the fleet stayed busy or down for {waited:.0f}s" if waited >= limits.fleet_wait_s else None
        tries = self.tries(cause)
        what = "a bot stayed offline" if cause is Refusal.ABSENT else "the referee kept failing"
        return f"{what} through {tries} retries" if tries >= limits.retries else None

    def charged(self, cause: Refusal, now: float | None = None) -> RetryBudget:
        """This budget after one more retry for ``cause``."""
        if cause is Refusal.ABSENT:
            return replace(self, absent=self.absent + 1)
        if cause is Refusal.FAULT:
            return replace(self, faults=self.faults + 1)
        since = self.waiting_since if self.waiting_since is not None else (time.time() if now is None else now)
        return replace(self, busy=self.busy + 1, waiting_since=since)

    def to_dict(self) -> dict[str, Any]:
        """The budget as a task's keyword argument (JSON)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None) -> RetryBudget:
        """A budget sent with a task; a task without one (a first try) has spent nothing."""
        if not raw:
            return cls()
        since = raw.get("waiting_since")
        return cls(absent=int(raw.get("absent", 0)), busy=int(raw.get("busy", 0)), faults=int(raw.get("faults", 0)),
                   waiting_since=None if since is None else float(since))
