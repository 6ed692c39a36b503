"""A sandbox's first step, run as ``python -I -m hosting.launch PLAN BWRAP-ARGV...``: join the
sandbox's cgroups (so bubblewrap and every descendant are inside), set its rlimits, bind the
directories bubblewrap will show into a staging directory in a mount namespace of its own
(an unprivileged uid could not reach them where they are, e.g. a runtime under ``/root``),
drop to the sandbox's unprivileged uid and gid, and exec bubblewrap.

A program of its own rather than a ``preexec_fn``: a host with threads (gRPC's) cannot run
Python safely between ``fork`` and ``exec``.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

CLONE_NEWNS = 0x00020000
PR_SET_PDEATHSIG = 1
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18


@dataclass(frozen=True)
class Plan:
    """What the launcher does before it execs bubblewrap."""

    rlimits: tuple[tuple[str, int], ...]
    """``(resource name, value)``: soft and hard limit alike (``RLIMIT_NOFILE``, ...)."""
    cgroup_procs: tuple[str, ...]
    """The ``cgroup.procs`` files to write the launcher's pid to."""
    mounts: tuple[tuple[str, str], ...]
    """``(source, staging directory)``: bind mounts made in a private mount namespace."""
    uid: int | None
    """The uid and gid to run bubblewrap as (``None``: stay as the host's user)."""
    host: int
    """The host's pid: the launcher (then bubblewrap) dies with it."""
    report_fd: int
    """Where a failure is written (closed unwritten by the exec of bubblewrap)."""

    def to_json(self) -> str:
        return json.dumps({"rlimits": self.rlimits, "cgroup_procs": self.cgroup_procs, "mounts": self.mounts,
                           "uid": self.uid, "host": self.host, "report_fd": self.report_fd})

    @classmethod
    def from_json(cls, text: str) -> Plan:
        data = json.loads(text)
        return cls(tuple((str(name), int(value)) for name, value in data["rlimits"]),
                   tuple(str(path) for path in data["cgroup_procs"]),
                   tuple((str(source), str(target)) for source, target in data["mounts"]),
                   None if data["uid"] is None else int(data["uid"]), int(data["host"]), int(data["report_fd"]))


def launcher_argv(plan: Plan, bwrap_argv: Sequence[str]) -> list[str]:
    """The command that carries out ``plan`` and then runs ``bwrap_argv``."""
    return [sys.executable, "-I", "-m", "hosting.launch", plan.to_json(), *bwrap_argv]


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def carry_out(plan: Plan) -> None:
    """Everything but the exec, in order: cgroups first (as root), the mounts, rlimits, the
    signals a program expects by default, the uid (after it, nothing privileged can be done),
    and death with the host."""
    for procs in plan.cgroup_procs:
        with open(procs, "w") as file:
            file.write(str(os.getpid()))
    if plan.mounts:
        libc = ctypes.CDLL(None, use_errno=True)
        _check(libc.unshare(CLONE_NEWNS), "unshare a mount namespace")
        _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make the mounts private")
        for source, target in plan.mounts:
            _check(libc.mount(source.encode(), target.encode(), None, MS_BIND | MS_REC, None), f"bind {source}")
    for name, value in plan.rlimits:
        resource.setrlimit(getattr(resource, name), (value, value))
    for number in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores them, and an exec keeps that
        signal.signal(number, signal.SIG_DFL)
    if plan.uid is not None:
        os.setgroups([])
        os.setresgid(plan.uid, plan.uid, plan.uid)
        os.setresuid(plan.uid, plan.uid, plan.uid)
    # Die with the host from here on: a change of uid clears the parent-death signal, an exec
    # keeps it, and bubblewrap's own --die-with-parent is set only once its sandbox runs.
    _check(ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl")
    if os.getppid() != plan.host:
        raise OSError(f"the host (pid {plan.host}) is gone")


def main(argv: Sequence[str]) -> NoReturn:
    """Carry out the plan in ``argv[0]``, then exec ``argv[1:]``; a failure is reported to
    the host (and on stderr, the sandbox's output), with status 125."""
    report: int | None = None
    try:
        plan = Plan.from_json(argv[0])
        report = plan.report_fd
        os.set_inheritable(report, False)  # bubblewrap's exec closes it: the host's sign of success
        carry_out(plan)
        os.execv(argv[1], list(argv[1:]))
    except (OSError, ValueError, KeyError, IndexError) as error:
        print(f"pitch sandbox: cannot start: {error}", file=sys.stderr)
        if report is not None:
            os.write(report, str(error).encode()[:1000])
        sys.exit(125)


if __name__ == "__main__":
    main(sys.argv[1:])
