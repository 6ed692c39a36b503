"""CPU limits for a benchmark's processes: a fixed CPU budget per process (its own cgroup
with a CPU quota), or a pin to chosen cores.

Why: on a small shared machine every process of a benchmark shares every core, so a
second referee process has no core of its own and the referee tier is never the
bottleneck.  A quota per referee process emulates referee hosts of a fixed size (0.5: a
host with half a core), so that the tier is the bottleneck and its scaling shows, as when
referees run on hosts of their own.

Both cgroup versions are handled: v1 (a writable ``cpu`` hierarchy: ``cpu.cfs_period_us``
and ``cpu.cfs_quota_us``) and v2 (a ``cgroup2`` mount whose ``cpu`` controller can be
enabled: ``cpu.max``).  Making groups needs root or a delegated subtree; when neither is
writable, :class:`CpuBudgets` fails with :class:`CpuLimitError` saying what it found.
Groups are named ``pitch-bench-<pid of the benchmark>-<slot>`` and removed on exit (also
on an exception, Ctrl-C or SIGTERM); groups left by a benchmark that was SIGKILLed are
removed by the next one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType

PERIOD_US = 100_000
"""The quota's default period: the kernel's.  A shorter one would make the pauses of a
throttled process shorter (at 100 ms, a process with half a core may run 50 ms and then
stand still for 50 ms, which shows in the p99 latency), but the kernel hands a group's
quota to one CPU at a time in slices of ``sched_cfs_bandwidth_slice_us`` (5 ms): at a
10 ms period a referee of 0.25 cores (a 2.5 ms quota, under one slice) measured 30-77% of
its budget used while throttled in 76% of the periods, so a short period gives a process
less than its budget."""

GROUP_PREFIX = "pitch-bench-"


class CpuLimitError(RuntimeError):
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


@dataclass(frozen=True)
class Hierarchy:
    """Where the benchmark's groups are made: a directory of a cgroup hierarchy with the
    CPU controller, and the hierarchy's version (1 or 2)."""

    version: int
    parent: Path

    @classmethod
    def find(cls, mounts: str | None = None, own: str | None = None) -> Hierarchy:
        """The first usable place, from the mount table (``/proc/self/mounts``) and this
        process's groups (``/proc/self/cgroup``): under this process's own group if it can
        be written, else at the root of the hierarchy."""
        mounts = Path("/proc/self/mounts").read_text() if mounts is None else mounts
        own = Path("/proc/self/cgroup").read_text() if own is None else own
        tried: list[str] = []
        for line in mounts.splitlines():
            fields = line.split()
            if len(fields) < 4 or fields[2] not in ("cgroup", "cgroup2"):
                continue
            root, version = Path(fields[1]), 1 if fields[2] == "cgroup" else 2
            if version == 1 and "cpu" not in fields[3].split(","):
                continue
            for parent in _candidates(root, _own_path(own, version)):
                problem = _unusable(parent, version)
                if problem is None:
                    return cls(version, parent)
                tried.append(f"v{version} {parent}: {problem}")
        found = "; ".join(tried) or "no cgroup hierarchy with the cpu controller is mounted"
        raise CpuLimitError(f"cannot give processes a CPU budget: {found} (run as root, on a machine with a "
                            "writable cgroup v1 cpu hierarchy or cgroup v2 with the cpu controller)")


def _own_path(own: str, version: int) -> str:
    """This process's group in the hierarchy of ``version`` (``/proc/self/cgroup`` lines:
    ``id:controllers:path``; v2's has no controllers)."""
    for line in own.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if (version == 2 and parts[0] == "0" and parts[1] == "") or (version == 1 and "cpu" in parts[1].split(",")):
            return parts[2]
    return "/"


def _candidates(root: Path, own_path: str) -> list[Path]:
    """This process's own group under ``root`` (when the mount shows it), then ``root``."""
    own = root / own_path.lstrip("/")
    return [own, root] if own != root and own.is_dir() else [root]


def _unusable(parent: Path, version: int) -> str | None:
    """Why groups with a CPU quota cannot be made under ``parent``, or ``None``."""
    if not os.access(parent, os.W_OK):
        return "not writable"
    if version == 1:
        return None if (parent / "cpu.cfs_quota_us").exists() else "no cpu.cfs_quota_us"
    controllers = parent / "cgroup.controllers"
    if not controllers.exists() or "cpu" not in controllers.read_text().split():
        return "the cpu controller is not available here"
    enabled = parent / "cgroup.subtree_control"
    if "cpu" not in enabled.read_text().split():
        try:
            enabled.write_text("+cpu")
        except OSError as error:  # EBUSY: a non-root group with processes of its own
            return f"cannot enable cpu for its children ({error.strerror})"
    return None


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
        if self.hierarchy.version == 1:
            (self.path / "cpu.cfs_quota_us").write_text("-1")  # a period below the quota is refused
            (self.path / "cpu.cfs_period_us").write_text(str(period_us))
            if cpus is not None:
                (self.path / "cpu.cfs_quota_us").write_text(str(quota_us(cpus, period_us)))
        else:
            quota = quota_us(cpus, period_us) if cpus is not None else "max"
            (self.path / "cpu.max").write_text(f"{quota} {period_us}")

    def throttling(self) -> Throttling:
        """The group's bandwidth counters now."""
        stat = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines() if line.strip())
        return Throttling(int(stat.get("nr_periods", 0)), int(stat.get("nr_throttled", 0)))

    def remove(self) -> None:
        """Move any process still inside to the parent group, then delete the group."""
        _remove_group(self.path)


def quota_us(cpus: float, period_us: int = PERIOD_US) -> int:
    """The quota per ``period_us`` for a budget of ``cpus`` cores."""
    if not cpus > 0:
        raise CpuLimitError(f"a CPU budget must be a positive number of cores, got {cpus}")
    if not 1000 <= period_us <= 1_000_000:
        raise CpuLimitError(f"a quota period must be 1-1000 ms, got {period_us} us")
    return max(1000, round(cpus * period_us))  # the kernel's minimum quota is 1 ms


def _remove_group(path: Path) -> None:
    procs = path / "cgroup.procs"
    for _ in range(50):
        for pid in procs.read_text().split():
            with contextlib.suppress(ProcessLookupError, OSError):
                (path.parent / "cgroup.procs").write_text(pid)
        try:
            path.rmdir()
            return
        except OSError as error:  # EBUSY while a moved or exiting process is still counted
            if error.errno != errno.EBUSY:
                raise
            time.sleep(0.02)
    path.rmdir()


def _sweep_stale(parent: Path) -> None:
    """Remove groups left by benchmarks that are gone (SIGKILLed before their cleanup)."""
    for path in parent.glob(f"{GROUP_PREFIX}*"):
        match = re.fullmatch(rf"{GROUP_PREFIX}(\d+)-.*", path.name)
        if match and not Path(f"/proc/{match.group(1)}").exists():
            with contextlib.suppress(OSError):
                _remove_group(path)


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
