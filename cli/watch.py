"""Following a tournament until its final table is written.

Progress is read from Redis (:func:`competitions.tournaments.control.progress`), never from the tasks,
so any process can follow any tournament, and stopping the follower changes nothing for
the workers.  On a terminal it is a live bar; otherwise (logs, CI) one line per change.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import redis
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from competitions.tournaments import control as tournament
from competitions.tournaments.store import TournamentStore

T = TypeVar("T")
Show = Callable[[tournament.Progress, str | None], None]
"""Shows a progress, with a note that replaces its status (an outage) when not ``None``."""


#: Longest wait between two looks at an unreachable store.
OUTAGE_POLL_MAX_S = 2.0


def follow(console: Console, tournaments: TournamentStore, tournament_id: str, *,
           check: Callable[[], None] = lambda: None, poll_s: float = 0.25) -> tournament.Progress:
    """Show the tournament's progress until it is finished; returns the final progress.

    ``check`` is called at every poll and may raise to stop following (a local process
    that died).  A store outage after the first look (a Redis restart) does not end the
    following: the progress line says the store is unreachable and for how long, and the
    counts carry on when it is back (the workers keep their own state meanwhile)."""
    now = tournament.progress(tournaments, tournament_id)
    with progress_display(console, f"{now.preset} {tournament_id}", now.total) as show:
        return poll_until(lambda: tournament.progress(tournaments, tournament_id), show,
                          lambda progress: progress.finished, now, check=check, poll_s=poll_s)


def poll_until(read: Callable[[], T], show: Callable[[T, str | None], None], done: Callable[[T], bool], first: T, *,
               check: Callable[[], None] = lambda: None, poll_s: float = 0.25) -> T:
    """Show what ``read`` returns (``first`` to begin with) until ``done`` says so; returns
    the last reading.  A store outage (a Redis restart) does not end the following: ``show``
    gets a note saying the store is unreachable and for how long, until it is back."""
    now = first
    outage: float | None = None
    while True:
        show(now, None if outage is None else _outage(outage))
        if done(now) and outage is None:
            return now
        check()
        time.sleep(poll_s if outage is None else min(OUTAGE_POLL_MAX_S, max(poll_s, time.monotonic() - outage)))
        try:
            now = read()
            outage = None
        except redis.RedisError:
            outage = time.monotonic() if outage is None else outage


def _outage(since: float) -> str:
    return f"store unreachable for {time.monotonic() - since:.0f}s, waiting for Redis"


def _status(now: tournament.Progress, note: str | None = None) -> str:
    if note is not None:
        return note
    words = [f"{now.in_progress} running"]
    if now.not_played:
        words.append(f"{now.not_played} not played")
    return ", ".join(words)


@contextmanager
def progress_display(console: Console, label: str, total: int) -> Iterator[Show]:
    """A live bar on a terminal, else a printed line whenever the counts change."""
    if console.is_terminal:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[status]}"), TimeElapsedColumn())
        with Progress(*columns, console=console) as bar:
            task = bar.add_task(label, total=total, status="")
            yield lambda now, note: bar.update(task, completed=now.played + now.not_played, status=_status(now, note))
        return
    shown: list[tuple[int, int, bool]] = []

    def show(now: tournament.Progress, note: str | None) -> None:
        counts = (now.played + now.not_played, now.in_progress, note is not None)
        if not shown or shown[-1] != counts:
            shown.append(counts)
            console.print(f"{label}: {counts[0]}/{total} matches recorded ({_status(now, note)})")

    yield show
