"""Rating-history charts drawn on the server as SVG: no chart library, no JavaScript, and the
chart is in the page's HTML (a link to a leaderboard shows it as it is).

The model holds the scaled coordinates; the template only writes them out."""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Line colours, distinguishable and colour-blind friendly (Okabe–Ito).
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")


@dataclass(frozen=True)
class Series:
    """One bot's line: its label and ``(unix time, rating)`` points, oldest first."""

    label: str
    href: str
    points: Sequence[tuple[float, float]]


@dataclass(frozen=True)
class Line:
    """A series placed on the chart."""

    label: str
    href: str
    colour: str
    path: str
    last: tuple[float, float]
    rating: float


@dataclass(frozen=True)
class Tick:
    """An axis tick: its position on the axis and its label."""

    at: float
    label: str


@dataclass(frozen=True)
class Chart:
    """A chart ready for the template (``viewBox`` units)."""

    width: int
    height: int
    left: int
    top: int
    right: int
    bottom: int
    lines: tuple[Line, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]


def _nice_step(span: float, wanted: int) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving about ``wanted`` ticks."""
    raw = span / max(wanted, 1)
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    return next((m * power for m in (1, 2, 5, 10) if m * power >= raw), 10 * power)


def history_chart(series: Sequence[Series], width: int = 900, height: int = 320) -> Chart | None:
    """The chart of ``series`` on a shared time axis, or ``None`` when no series has points."""
    drawn = [s for s in series if s.points]
    if not drawn:
        return None
    left, right, top, bottom = 56, width - 16, 16, height - 36
    times = [t for s in drawn for t, _ in s.points]
    ratings = [r for s in drawn for _, r in s.points]
    t0, t1 = min(times), max(times)
    if t1 - t0 < 1:
        t0, t1 = t0 - 30, t1 + 30
    step = _nice_step(max(ratings) - min(ratings) or 20, 5)
    r0 = math.floor(min(ratings) / step) * step
    r1 = math.ceil(max(ratings) / step) * step
    if r1 == r0:
        r0, r1 = r0 - step, r1 + step

    def x(t: float) -> float:
        return round(left + (t - t0) / (t1 - t0) * (right - left), 1)

    def y(r: float) -> float:
        return round(bottom - (r - r0) / (r1 - r0) * (bottom - top), 1)

    lines = []
    for index, s in enumerate(drawn):
        coordinates = [(x(t), y(r)) for t, r in s.points]
        path = "M" + " L".join(f"{cx},{cy}" for cx, cy in coordinates)
        lines.append(Line(s.label, s.href, COLOURS[index % len(COLOURS)], path, coordinates[-1], s.points[-1][1]))
    y_ticks = tuple(Tick(y(r0 + i * step), f"{r0 + i * step:.0f}") for i in range(round((r1 - r0) / step) + 1))
    span = t1 - t0
    fmt = "%H:%M:%S" if span < 600 else "%H:%M" if span < 2 * 86400 else "%Y-%m-%d"
    x_ticks = tuple(Tick(x(t0 + span * i / 4),
                         datetime.datetime.fromtimestamp(t0 + span * i / 4, datetime.UTC).strftime(fmt))
                    for i in range(5))
    return Chart(width, height, left, top, right, bottom, tuple(lines), x_ticks, y_ticks)
