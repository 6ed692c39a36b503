"""Following a tournament until its final table is written.

Progress is read from Redis (:func:`workers.tournaments.control.progress`), never from the tasks,
so any process can follow any tournament, and stopping the follower changes nothing for
the workers.  On a terminal it is a live bar; otherwise (logs, CI) one line per change.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from workers.tournaments import control as tournament
from workers.tournaments.store import TournamentStore

Show = Callable[[tournament.Progress], None]


def follow(console: Console, tournaments: TournamentStore, tournament_id: str, *,
           check: Callable[[], None] = lambda: None, poll_s: float = 0.25) -> tournament.Progress:
    """Show the tournament's progress until it is finished; returns the final progress.

    ``check`` is called at every poll and may raise to stop following (a local process
    that died)."""
    now = tournament.progress(tournaments, tournament_id)
    with _display(console, f"{now.preset} {tournament_id}", now.total) as show:
        while True:
            show(now)
            if now.finished:
                return now
            check()
            time.sleep(poll_s)
            now = tournament.progress(tournaments, tournament_id)


def _status(now: tournament.Progress) -> str:
    words = [f"{now.in_progress} running"]
    if now.not_played:
        words.append(f"{now.not_played} not played")
    return ", ".join(words)


@contextmanager
def _display(console: Console, label: str, total: int) -> Iterator[Show]:
    """A live bar on a terminal, else a printed line whenever the counts change."""
    if console.is_terminal:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[status]}"), TimeElapsedColumn())
        with Progress(*columns, console=console) as bar:
            task = bar.add_task(label, total=total, status="")
            yield lambda now: bar.update(task, completed=now.played + now.not_played, status=_status(now))
        return
    shown: list[tuple[int, int]] = []

    def show(now: tournament.Progress) -> None:
        counts = (now.played + now.not_played, now.in_progress)
        if not shown or shown[-1] != counts:
            shown.append(counts)
            console.print(f"{label}: {counts[0]}/{total} matches recorded ({_status(now)})")

    yield show
