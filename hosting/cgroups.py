"""Control groups: finding a writable hierarchy (cgroup v1, a hierarchy per controller, or v2,
one tree), and one sandbox's group: memory without swap, a process limit and a CPU quota;
whether the kernel's OOM killer or the process limit struck; removal that kills what is left.

Making groups needs root or a delegated subtree.  Where this process's own group can be
written, groups are made beneath it (its own limits still bound them), else at the root of
the hierarchy.  A host with no writable group runs sandboxes with rlimits only:
:func:`sandbox_hierarchies` says so once in the log.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hosting.limits import Limits

log = logging.getLogger(__name__)

PERIOD_US = 100_000
"""A CPU quota's default period: the kernel's.  A shorter one would make the pauses of a
throttled process shorter (at 100 ms, a process with half a core may run 50 ms and then
stand still for 50 ms, which shows in the p99 latency), but the kernel hands a group's
quota to one CPU at a time in slices of ``sched_cfs_bandwidth_slice_us`` (5 ms): at a
10 ms period a referee of 0.25 cores (a 2.5 ms quota, under one slice) measured 30-77% of
its budget used while throttled in 76% of the periods, so a short period gives a process
less than its budget."""

SANDBOX_PREFIX = "pitch-sandbox-"
SANDBOX_CONTROLLERS = ("memory", "pids", "cpu")

#: In a v1 hierarchy, the file that shows a directory carries the controller's knobs.
_V1_MARKERS = {"cpu": "cpu.cfs_quota_us", "memory": "memory.limit_in_bytes", "pids": "cgroup.procs"}


class CgroupError(RuntimeError):
    """No writable hierarchy with the wanted controller (or a bad CPU budget)."""


@dataclass(frozen=True)
class Hierarchy:
    """Where groups with one controller are made: a directory of a cgroup hierarchy, and the
    hierarchy's version (1 or 2)."""

    version: int
    parent: Path

    @classmethod
    def find(cls, mounts: str | None = None, own: str | None = None, controller: str = "cpu") -> Hierarchy:
        """The first usable place for ``controller``, from the mount table
        (``/proc/self/mounts``) and this process's groups (``/proc/self/cgroup``): under this
        process's own group if it can be written, else at the root of the hierarchy."""
        mounts = Path("/proc/self/mounts").read_text() if mounts is None else mounts
        own = Path("/proc/self/cgroup").read_text() if own is None else own
        tried: list[str] = []
        for line in mounts.splitlines():
            fields = line.split()
            if len(fields) < 4 or fields[2] not in ("cgroup", "cgroup2"):
                continue
            root, version = Path(fields[1]), 1 if fields[2] == "cgroup" else 2
            if version == 1 and controller not in fields[3].split(","):
                continue
            for parent in _candidates(root, _own_path(own, version, controller)):
                problem = _unusable(parent, version, controller)
                if problem is None:
                    return cls(version, parent)
                tried.append(f"v{version} {parent}: {problem}")
        found = "; ".join(tried) or f"no cgroup hierarchy with the {controller} controller is mounted"
        raise CgroupError(f"cannot place processes in a {controller} cgroup: {found} (run as root, on a machine "
                          f"with a writable cgroup v1 {controller} hierarchy or cgroup v2 with that controller)")


def _own_path(own: str, version: int, controller: str) -> str:
    """This process's group in the hierarchy of ``version`` (``/proc/self/cgroup`` lines:
    ``id:controllers:path``; v2's has no controllers)."""
    for line in own.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if (version == 2 and parts[0] == "0" and parts[1] == "") or \
                (version == 1 and controller in parts[1].split(",")):
            return parts[2]
    return "/"


def _candidates(root: Path, own_path: str) -> list[Path]:
    """This process's own group under ``root`` (when the mount shows it), then ``root``."""
    own = root / own_path.lstrip("/")
    return [own, root] if own != root and own.is_dir() else [root]


def _unusable(parent: Path, version: int, controller: str) -> str | None:
    """Why groups with ``controller`` cannot be made under ``parent``, or ``None``."""
    if not os.access(parent, os.W_OK):
        return "not writable"
    if version == 1:
        marker = _V1_MARKERS.get(controller, "cgroup.procs")
        return None if (parent / marker).exists() else f"no {marker}"
    controllers = parent / "cgroup.controllers"
    if not controllers.exists() or controller not in controllers.read_text().split():
        return f"the {controller} controller is not available here"
    enabled = parent / "cgroup.subtree_control"
    if controller not in enabled.read_text().split():
        try:
            enabled.write_text(f"+{controller}")
        except OSError as error:  # EBUSY: a non-root group with processes of its own
            return f"cannot enable {controller} for its children ({error.strerror})"
    return None


def quota_us(cpus: float, period_us: int = PERIOD_US) -> int:
    """The quota per ``period_us`` for a budget of ``cpus`` cores."""
    if not cpus > 0:
        raise CgroupError(f"a CPU budget must be a positive number of cores, got {cpus}")
    if not 1000 <= period_us <= 1_000_000:
        raise CgroupError(f"a quota period must be 1-1000 ms, got {period_us} us")
    return max(1000, round(cpus * period_us))  # the kernel's minimum quota is 1 ms


def set_cpu_quota(hierarchy: Hierarchy, group: Path, cpus: float | None, period_us: int = PERIOD_US) -> None:
    """At most ``cpus`` cores' worth of CPU time per ``period_us`` for ``group``, or no limit."""
    if hierarchy.version == 1:
        (group / "cpu.cfs_quota_us").write_text("-1")  # a period below the quota is refused
        (group / "cpu.cfs_period_us").write_text(str(period_us))
        if cpus is not None:
            (group / "cpu.cfs_quota_us").write_text(str(quota_us(cpus, period_us)))
    else:
        quota = quota_us(cpus, period_us) if cpus is not None else "max"
        (group / "cpu.max").write_text(f"{quota} {period_us}")


def group_pids(group: Path) -> list[int]:
    """The processes in ``group`` now (none when it is gone)."""
    try:
        return [int(pid) for pid in (group / "cgroup.procs").read_text().split()]
    except FileNotFoundError:
        return []


def remove_group(group: Path, kill: bool = False) -> None:
    """Delete ``group``: its processes are first killed (``kill``) or moved to the parent
    group; an exiting process is still counted for a moment, so EBUSY is retried."""
    for _ in range(250):
        for pid in group_pids(group):
            with contextlib.suppress(ProcessLookupError, OSError):
                if kill:
                    os.kill(pid, signal.SIGKILL)
                else:
                    (group.parent / "cgroup.procs").write_text(str(pid))
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as error:
            if error.errno != errno.EBUSY:
                raise
            time.sleep(0.02)
    group.rmdir()


@functools.cache
def sandbox_hierarchies() -> Mapping[str, Hierarchy]:
    """Where this host makes sandboxes' groups, per controller (memory, pids, cpu): those it
    cannot make are logged once, and their limits fall back to rlimits."""
    found: dict[str, Hierarchy] = {}
    for controller in SANDBOX_CONTROLLERS:
        try:
            found[controller] = Hierarchy.find(controller=controller)
        except CgroupError as error:
            log.warning("sandboxes run without a %s cgroup (rlimits only): %s", controller, error)
    return found


class SandboxCgroup:
    """One sandbox's groups (a directory per v1 hierarchy, one for v2), holding every process
    of the sandbox: the child joins before it runs bubblewrap, so every descendant is inside."""

    def __init__(self, groups: Mapping[str, tuple[Hierarchy, Path]]) -> None:
        self.groups = dict(groups)

    @classmethod
    def create(cls, name: str, limits: Limits,
               hierarchies: Mapping[str, Hierarchy] | None = None) -> SandboxCgroup | None:
        """The groups of sandbox ``name`` with ``limits`` set, or ``None`` when this host can
        make none (a group left by a host that died is killed and made anew)."""
        hierarchies = sandbox_hierarchies() if hierarchies is None else hierarchies
        groups: dict[str, tuple[Hierarchy, Path]] = {}
        made: set[Path] = set()
        for controller, hierarchy in hierarchies.items():
            path = hierarchy.parent / f"{SANDBOX_PREFIX}{name}"
            if path not in made:
                if path.exists():
                    remove_group(path, kill=True)
                path.mkdir()
                made.add(path)
            groups[controller] = (hierarchy, path)
        if not groups:
            return None
        cgroup = cls(groups)
        try:
            cgroup._limit(limits)
        except BaseException:
            cgroup.remove()
            raise
        return cgroup

    def _limit(self, limits: Limits) -> None:
        if "memory" in self.groups:
            hierarchy, path = self.groups["memory"]
            limit = str(limits.memory_mb << 20)
            if hierarchy.version == 1:
                (path / "memory.limit_in_bytes").write_text(limit)
                if (path / "memory.memsw.limit_in_bytes").exists():  # memory plus swap: no swap at all
                    (path / "memory.memsw.limit_in_bytes").write_text(limit)
                with contextlib.suppress(OSError):
                    (path / "memory.swappiness").write_text("0")
            else:
                (path / "memory.max").write_text(limit)
                if (path / "memory.swap.max").exists():
                    (path / "memory.swap.max").write_text("0")
        if "pids" in self.groups:
            (self.groups["pids"][1] / "pids.max").write_text(str(limits.pids))
        if "cpu" in self.groups:
            hierarchy, path = self.groups["cpu"]
            set_cpu_quota(hierarchy, path, limits.cpu_cores)

    @property
    def controllers(self) -> frozenset[str]:
        """The controllers that bound this sandbox (the others are left to rlimits)."""
        return frozenset(self.groups)

    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a process writes its pid to, to join every group."""
        return sorted({str(path / "cgroup.procs") for _, path in self.groups.values()})

    def pids(self) -> set[int]:
        """Every process in the sandbox's groups now."""
        return {pid for _, path in self.groups.values() for pid in group_pids(path)}

    def oom_kills(self) -> int:
        """How many processes the OOM killer took for the memory limit (v1 kernels without the
        ``oom_kill`` count: how often the limit was hit)."""
        if "memory" not in self.groups:
            return 0
        hierarchy, path = self.groups["memory"]
        if hierarchy.version == 1:
            counts = _counters(path / "memory.oom_control")
            return counts["oom_kill"] if "oom_kill" in counts else _counters(path / "memory.failcnt").get("", 0)
        return _counters(path / "memory.events").get("oom_kill", 0)

    def pids_refused(self) -> int:
        """How many forks the process limit refused."""
        return _counters(self.groups["pids"][1] / "pids.events").get("max", 0) if "pids" in self.groups else 0

    def remove(self) -> None:
        """Kill whatever is left inside, then delete the groups."""
        for path in sorted({path for _, path in self.groups.values()}):
            remove_group(path, kill=True)


def _counters(path: Path) -> dict[str, int]:
    """A counters file: ``name value`` lines, or a lone number (under the name ``""``)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return {}
    counts: dict[str, int] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 1 and words[0].isdigit():
            counts[""] = int(words[0])
        elif len(words) == 2 and words[1].isdigit():
            counts[words[0]] = int(words[1])
    return counts

