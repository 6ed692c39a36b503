"""Time control, as the referee counts it and as a bot may read it.

A decision may take ``per_decision_ms``; time over that comes out of the seat's bank for
the match, and a decision that takes more than both is a timeout (after which the seat
has no bank left).  The referee applies this to every answer (:func:`bank_after`), the
local compliance check applies the same rule so that both checks give the same verdict,
and every driver of a bot hands it a :class:`Clock` before each decision (``bot.clock``)
so a bot can spend its time knowingly instead of guessing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

#: The referee's default time per decision (its setting PITCH_PER_DECISION_MS).
DEFAULT_PER_DECISION_MS = 2000
#: The referee's default bank per seat and match (its setting PITCH_BANK_MS).
DEFAULT_BANK_MS = 30000


def timed_out(spent_ms: float, per_decision_ms: float, bank_ms: float) -> bool:
    """Whether a decision that took ``spent_ms`` is over its time and the bank."""
    return spent_ms > per_decision_ms + bank_ms


def bank_after(spent_ms: float, per_decision_ms: float, bank_ms: float) -> float:
    """The bank left after a decision that took ``spent_ms``: the time over
    ``per_decision_ms`` is taken from it; a timeout empties it."""
    if timed_out(spent_ms, per_decision_ms, bank_ms):
        return 0.0
    return max(0.0, bank_ms - max(0.0, spent_ms - per_decision_ms))


@dataclass(frozen=True)
class Clock:
    """The time one decision may take, read by a bot as ``self.clock`` inside ``act``.

    Counted from when the decision reached the SDK (the referee's own clock started a
    little earlier, by the time the request took to arrive: keep a margin)."""

    per_decision_ms: int = DEFAULT_PER_DECISION_MS
    """Time this decision may take before the bank is used."""
    bank_ms: float = DEFAULT_BANK_MS
    """Time left in the seat's bank for the rest of the match."""
    started: float = field(default_factory=time.monotonic)
    """When the decision arrived (``time.monotonic()``)."""

    def elapsed_ms(self) -> float:
        """Time spent on this decision so far."""
        return (time.monotonic() - self.started) * 1000

    def budget_left_ms(self) -> float:
        """Time left before this decision starts to use the bank (negative once it does)."""
        return self.per_decision_ms - self.elapsed_ms()

    def remaining_ms(self) -> float:
        """Time left before this decision times out: its own time plus the whole bank."""
        return self.per_decision_ms + self.bank_ms - self.elapsed_ms()
