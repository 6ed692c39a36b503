"""What the chaos benchmark reads from the processes' logs (their lines are the only record
of which process ran a match when: Redis keeps the last claim, not the history).

Referee lines (``referee/arena.py``, ``referee/match.py``, ``referee/fleet.py``), each with a
time stamp in the process's local time::

    2026-12-05 14:00:07,123 INFO pitch.referee: match M started: partnership, 1 game(s), seats [...]
    ... match M seat 2: <why>; fallback <action>
    ... match M aborted
    ... referee R in the fleet at ADDRESS (...)

A service's logs are ``NAME.1.log``, ``NAME.2.log``, ... (its killed or stopped
incarnations, oldest first: :meth:`cli.local_arena.LocalArena.restart` keeps them) and
``NAME.log`` (the last one)."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

STAMP = r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) \S+ \S+: "
STARTED = re.compile(STAMP + r"match (\S+) started: .* seats \[(.*)\]$")
ABORTED = re.compile(STAMP + r"match (\S+) aborted")
IN_FLEET = re.compile(STAMP + r"referee (\S+) in the fleet at ")
UNRECOVERABLE = "Unrecoverable error"


def stamp(text: str) -> float:
    """A log time stamp as ``time.time()`` (the logs use local time, as ``datetime`` does)."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S,%f").timestamp()


def incarnations(log_dir: Path, name: str) -> list[Path]:
    """Every log of service ``name``, oldest incarnation first."""
    kept = sorted(log_dir.glob(f"{name}.*.log"), key=lambda p: int(p.name.split(".")[-2]))
    current = log_dir / f"{name}.log"
    return [*kept, *([current] if current.exists() else [])]


@dataclass
class RefereeRun:
    """One referee process's life as its log tells it."""

    name: str
    """``referee-N#I``: the service and its incarnation (1 = first)."""
    referee_id: str = ""
    starts: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    seated: dict[str, list[str]] = field(default_factory=dict)
    """Match id -> the names of the bots in its seats."""
    aborted: dict[str, float] = field(default_factory=dict)
    ended: float | None = None
    """When the process died or exited (set by the benchmark, which killed or stopped it)."""


def read_referee_runs(log_dir: Path, names: list[str], ends: dict[str, list[float | None]]) -> list[RefereeRun]:
    """Every referee incarnation's starts and aborts; ``ends[name][i]`` is
    when incarnation ``i`` stopped (``None``: it still ran at the end)."""
    runs = []
    for name in names:
        for number, path in enumerate(incarnations(log_dir, name)):
            run = RefereeRun(f"{name}#{number + 1}")
            known = ends.get(name, [])
            run.ended = known[number] if number < len(known) else None
            for line in path.read_text(errors="replace").splitlines():
                if (found := STARTED.match(line)) is not None:
                    run.starts[found.group(2)].append(stamp(found.group(1)))
                    run.seated[found.group(2)] = [n.strip(" '\"") for n in found.group(3).split(",")]
                elif (found := ABORTED.match(line)) is not None:
                    run.aborted[found.group(2)] = stamp(found.group(1))
                elif (found := IN_FLEET.match(line)) is not None:
                    run.referee_id = found.group(2)
            runs.append(run)
    return runs


def unrecoverable(log_dir: Path, names: list[str]) -> list[str]:
    """The worker logs (every incarnation) in which Celery wrote "Unrecoverable error"."""
    return [str(path) for name in names for path in incarnations(log_dir, name)
            if UNRECOVERABLE in path.read_text(errors="replace")]


def relayed_starts(runs: list[RefereeRun], homes: dict[str, str]) -> int:
    """Match starts seating a single-stream bot on a referee other than its ``homes`` one
    (bot name -> referee service name): each such seat was played through the relay."""
    return sum(1 for run in runs for seats in run.seated.values()
               if any(homes.get(name, run.name.split("#")[0]) != run.name.split("#")[0] for name in seats))
