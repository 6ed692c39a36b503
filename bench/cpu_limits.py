"""CPU limits for a benchmark's processes: a fixed CPU budget per process (its own cgroup
with a CPU quota), or a pin to chosen cores.

Why: on a small shared machine every process of a benchmark shares every core, so a
second referee process has no core of its own and the referee tier is never the
bottleneck.  A quota per referee process emulates referee hosts of a fixed size (0.5: a
host with half a core), so that the tier is the bottleneck and its scaling shows, as when
referees run on hosts of their own.

Finding a writable hierarchy is :mod:`hosting.cgroups`' (the bot host's sandboxes use it
too).  Both cgroup versions are handled: v1 (a writable ``cpu`` hierarchy: ``cpu.cfs_period_us``
and ``cpu.cfs_quota_us``) and v2 (a ``cgroup2`` mount whose ``cpu`` controller can be
enabled: ``cpu.max``).  Making groups needs root or a delegated subtree; when neither is
writable, :class:`CpuBudgets` fails with :class:`CpuLimitError` saying what it found.
Groups are named ``pitch-bench-<pid of the benchmark>-<slot>`` and removed on exit (also
on an exception, Ctrl-C or SIGTERM); groups left by a benchmark that was SIGKILLed are
removed by the next one.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType

from hosting.cgroups import PERIOD_US, CgroupError, Hierarchy, quota_us, remove_group, set_cpu_quota

__all__ = ["GROUP_PREFIX", "PERIOD_US", "CpuBudgets", "CpuLimitError", "Hierarchy", "pin", "quota_us"]

GROUP_PREFIX = "pitch-bench-"

CpuLimitError = CgroupError
"""No writable cgroup CPU controller (or a bad budget)."""


@dataclass(frozen=True)
class Throttling:
    """A group's CFS bandwidth counters (``cpu.stat``) at one moment."""

    periods: int
    """Enforcement periods in which the group ran."""
    throttled: int
    """Periods in which it used up its quota and was stopped."""

    def since(self, before: Throttling) -> float:
        """The share of periods throttled between ``before`` and now (0 when it never ran)."""
        periods = self.periods - before.periods
        return (self.throttled - before.throttled) / periods if periods else 0.0


class CpuGroup:
    """One cgroup with a CPU quota, holding the processes placed in it."""

    def __init__(self, hierarchy: Hierarchy, name: str) -> None:
        self.hierarchy = hierarchy
        self.path = hierarchy.parent / name
        self.path.mkdir()

    def add(self, pid: int) -> None:
        """Move process ``pid`` (all its threads) into the group."""
        (self.path / "cgroup.procs").write_text(str(pid))

    def limit(self, cpus: float | None, period_us: int = PERIOD_US) -> None:
        """At most ``cpus`` cores' worth of CPU time per ``period_us``, or no limit."""
        set_cpu_quota(self.hierarchy, self.path, cpus, period_us)

    def throttling(self) -> Throttling:
        """The group's bandwidth counters now."""
        stat = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines() if line.strip())
        return Throttling(int(stat.get("nr_periods", 0)), int(stat.get("nr_throttled", 0)))

    def remove(self) -> None:
        """Move any process still inside to the parent group, then delete the group."""
        remove_group(self.path)


def _sweep_stale(parent: Path) -> None:
    """Remove groups left by benchmarks that are gone (SIGKILLed before their cleanup)."""
    for path in parent.glob(f"{GROUP_PREFIX}*"):
        match = re.fullmatch(rf"{GROUP_PREFIX}(\d+)-.*", path.name)
        if match and not Path(f"/proc/{match.group(1)}").exists():
            with contextlib.suppress(OSError):
                remove_group(path)


class CpuBudgets:
    """A context of CPU groups, one per slot (a referee process; a slot's process may be
    replaced, e.g. a referee restarted), all with the same budget switched on and off
    between phases; every group is removed on exit.  SIGTERM is turned into
    :class:`SystemExit` meanwhile, so a terminated benchmark removes its groups too."""

    def __init__(self, cpus: float, period_us: int = PERIOD_US) -> None:
        quota_us(cpus, period_us)  # a bad budget fails before anything is made
        self.cpus = cpus
        self.period_us = period_us
        self.groups: dict[str, CpuGroup] = {}
        self.hierarchy: Hierarchy | None = None
        self._sigterm: signal._HANDLER = None

    def __enter__(self) -> CpuBudgets:
        self.hierarchy = Hierarchy.find()
        _sweep_stale(self.hierarchy.parent)
        self._sigterm = signal.signal(signal.SIGTERM, _exit_on_sigterm)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        try:
            for group in self.groups.values():
                group.remove()
            self.groups.clear()
        finally:
            signal.signal(signal.SIGTERM, self._sigterm)

    def place(self, slot: str, pid: int) -> None:
        """Put ``pid`` in the group of ``slot`` (made, unlimited, at its first process)."""
        group = self.groups.get(slot)
        if group is None:
            assert self.hierarchy is not None, "use CpuBudgets as a context manager"
            group = self.groups[slot] = CpuGroup(self.hierarchy, f"{GROUP_PREFIX}{os.getpid()}-{slot}")
            group.limit(None, self.period_us)
        group.add(pid)

    def budget(self, on: bool) -> None:
        """Every group at the budget (``on``) or unlimited."""
        for group in self.groups.values():
            group.limit(self.cpus if on else None, self.period_us)

    def throttling(self) -> dict[str, Throttling]:
        """Each slot's bandwidth counters now."""
        return {slot: group.throttling() for slot, group in self.groups.items()}


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def pin(pid: int, cores: Iterable[int] | None) -> None:
    """Pin every thread of process ``pid`` to ``cores`` (``None``: every core this process
    may use).  ``os.sched_setaffinity`` sets one thread; threads started later inherit it,
    but a server's gRPC threads exist already, so each one in ``/proc/<pid>/task`` is set."""
    allowed = set(os.sched_getaffinity(0)) if cores is None else set(cores)
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(ProcessLookupError):  # a thread that just ended
            os.sched_setaffinity(int(task.name), allowed)
