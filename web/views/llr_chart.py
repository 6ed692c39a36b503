"""An SPRT run's LLR over its pairs, between its bounds, as an SVG chart drawn on the server
(as fishtest's run pages draw it).

The model holds scaled coordinates; the template writes them out and a run's live page
(``static/sprt_run.js``) moves the same points as its server-sent events bring new ones, so
the chart looks the same on a first view and after any number of updates."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 48, 628, 12, 212
#: Points drawn at most: a run at its cap has a thousand pairs or more, and every event
#: carries the whole path.
MAX_POINTS = 400
#: The pairs the x axis spans at least, so the first pairs do not fill the whole width.
MIN_PAIRS = 20


@dataclass(frozen=True)
class LlrChart:
    """The chart in ``viewBox`` units: the path, the bounds' and zero's heights, the axis."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    points: str
    """``x,y`` pairs of the polyline (empty before the first counted pair)."""
    upper_y: float
    lower_y: float
    zero_y: float
    upper: float
    lower: float
    pairs: int
    """The pairs the x axis spans."""


def llr_chart(history: Sequence[float], lower: float, upper: float) -> LlrChart:
    """Place the LLR after each counted pair (``history``) between the bounds, starting at
    zero before the first pair; a long path is thinned to :data:`MAX_POINTS` evenly spaced
    pairs, its last kept."""
    path = [0.0, *history]
    span = max(len(history), MIN_PAIRS)
    low, high = min(lower, *path), max(upper, *path)
    margin = 0.05 * (high - low)
    low, high = low - margin, high + margin

    def x(pair: int) -> float:
        return round(LEFT + (RIGHT - LEFT) * pair / span, 1)

    def y(llr: float) -> float:
        return round(BOTTOM - (BOTTOM - TOP) * (llr - low) / (high - low), 1)

    step = max(1, -(-len(path) // MAX_POINTS))
    kept = [*range(0, len(path), step)]
    if kept[-1] != len(path) - 1:
        kept.append(len(path) - 1)
    points = " ".join(f"{x(i)},{y(path[i])}" for i in kept) if history else ""
    return LlrChart(WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM, points, y(upper), y(lower), y(0.0), upper, lower, span)
