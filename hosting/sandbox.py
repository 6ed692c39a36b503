"""A bot's process in a bubblewrap sandbox, started, watched and stopped from asyncio.

The sandbox has every namespace of its own (no network at all: its one way out is the Unix
socket directory at ``/run/pitch``), sees the system and the SDK's runtime read-only, its
package read-only at ``/bot`` and a bounded private ``/tmp``.  Its memory, processes and CPU
are bounded by cgroups where the host can make them and by rlimits always.  When the host
runs as root, the sandbox runs as an unprivileged uid of its own (:mod:`hosting.identity`),
so that nothing inside maps to the host's root.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hosting.bwrap import BWRAP, PACKAGE_MOUNT, SOCKET_MOUNT, Bind, bwrap_argv, system_view
from hosting.cgroups import SandboxCgroup
from hosting.identity import Identities
from hosting.launch import Plan, launcher_argv
from hosting.limits import Limits
from hosting.output import OutputTail
from hosting.spawn import Child, spawn
from hosting.spec import ExitStatus, SandboxSpec, SpecError

__all__ = ["ExitStatus", "Limits", "Sandbox", "SandboxError", "SandboxSpec", "SpecError", "python_bot_argv"]

log = logging.getLogger(__name__)

WATCH_INTERVAL_S = 0.25
"""How often a running sandbox's process limit is checked: a fork bomb is ended within a
quarter of a second (held at the limit meanwhile), for one small read per sandbox."""
START_TIMEOUT_S = 10.0
"""How long bubblewrap may take to make a sandbox (tens of milliseconds here)."""
DRAIN_TIMEOUT_S = 2.0
"""How long the output is read after the sandbox ended (every writer is gone by then)."""
BACKSTOP = 2
"""With a memory or pids cgroup, the matching rlimit is this many times the limit: the
cgroup acts first (with a clear status), the rlimit only catches what it cannot see."""

STAGE_PREFIX = "pitch-sandbox-"
#: Where staging directories go: ``/tmp`` (world-searchable, sticky) whatever ``TMPDIR`` says,
#: since a private ``TMPDIR`` (mode 0700, as ``tempfile.TemporaryDirectory`` makes) would hide
#: them from the sandbox's uid and bubblewrap could not find its sources.
STAGE_ROOT = Path("/tmp")

IDENTITIES = Identities()
_LIVE: set[str] = set()
"""The names of this host's sandboxes that have not ended (a name is its cgroups' name)."""


class SandboxError(RuntimeError):
    """The host cannot make sandboxes (the message says what to install or allow)."""


def python_bot_argv(bot: str) -> tuple[str, ...]:
    """How a manifest's ``{"bot": ...}`` runs in the sandbox: ``pitch-bot run`` on this host's
    interpreter (it reads ``PITCH_REFEREE`` and ``PITCH_BOT_TOKEN`` from the environment).
    The SDK's command line is called by hand: ``pitch_sdk.cli`` is a module without a
    ``__main__`` block, and the ``pitch-bot`` script may live outside what the sandbox shows."""
    return (sys.executable, "-c", "from pitch_sdk.cli import app; app(prog_name='pitch-bot')", "run", bot)


def rlimits(limits: Limits, cgroup: frozenset[str], own_uid: bool) -> tuple[tuple[str, int], ...]:
    """The rlimits of a sandbox: always files, file size and no core dumps; memory per
    process and processes (when the sandbox has a uid of its own: the rlimit counts every
    process of the uid), each the limit itself without its cgroup and a backstop with one (the
    cgroup acts first, and its counters give the clear status; the kernel checks the process
    rlimit before the cgroup, so an equal rlimit would hide a fork bomb from the counters)."""
    memory = limits.memory_mb << 20
    found = [("RLIMIT_CORE", 0), ("RLIMIT_NOFILE", limits.open_files), ("RLIMIT_FSIZE", limits.file_size_mb << 20),
             ("RLIMIT_DATA", memory * BACKSTOP if "memory" in cgroup else memory)]
    if own_uid:
        found.append(("RLIMIT_NPROC", limits.pids * BACKSTOP if "pids" in cgroup else limits.pids))
    return tuple(found)


@dataclass
class _Resources:
    """What a sandbox holds on the host until it has ended."""

    name: str
    cgroup: SandboxCgroup | None = None
    uid: int | None = None
    stage: Path | None = None
    ended: bool = False

    def release(self) -> None:
        """Give everything back; a group that cannot be removed is logged, not raised (its
        processes were killed; the next sandbox of the name removes it)."""
        if self.ended:
            return
        self.ended = True
        if self.cgroup is not None:
            try:
                self.cgroup.remove()
            except OSError:
                log.exception("cannot remove a sandbox's cgroup")
        if self.stage is not None:
            _remove_stage(self.stage)
        if self.uid is not None:
            IDENTITIES.give_back(self.uid)
        _LIVE.discard(self.name)


def _let_others_search(directory: Path) -> None:
    """Let the sandbox's uid reach the sockets in ``directory`` (it may not list it)."""
    mode = directory.stat().st_mode
    if not mode & 0o001:
        directory.chmod(mode & 0o7777 | 0o001)


def _stage(sources: list[Bind], resources: _Resources) -> list[Bind]:
    """Staging directories for ``sources`` (``/tmp/pitch-sandbox-<host pid>-*/<i>``,
    reachable by any uid), where the launcher binds each source in its own mount namespace;
    bubblewrap reads them there.  Those of hosts that died are removed first."""
    for stale in STAGE_ROOT.glob(f"{STAGE_PREFIX}*-*"):
        host = stale.name.removeprefix(STAGE_PREFIX).partition("-")[0]
        if host.isdigit() and not Path(f"/proc/{host}").exists():
            _remove_stage(stale)
    resources.stage = Path(tempfile.mkdtemp(prefix=f"{STAGE_PREFIX}{os.getpid()}-", dir=STAGE_ROOT))
    resources.stage.chmod(0o755)
    staged = []
    for index, bind in enumerate(sources):
        target = resources.stage / str(index)
        if Path(bind.source).is_dir():
            target.mkdir()
        else:  # a file is bound onto a file
            target.touch()
        staged.append(Bind(str(target), bind.dest, bind.writable))
    return staged


def _remove_stage(stage: Path) -> None:
    """Remove a staging directory by ``rmdir`` and ``unlink`` of its empty placeholders only:
    never anything beneath them, were a bind mount ever visible there."""
    with contextlib.suppress(OSError):
        for entry in stage.iterdir():
            with contextlib.suppress(OSError):
                if entry.is_dir():
                    entry.rmdir()
                else:
                    entry.unlink()
        stage.rmdir()


async def _launch(spec: SandboxSpec, resources: _Resources, report: int) -> Child:
    """Make the sandbox's cgroups, uid and staging, and start its launcher (which reports a
    failure to ``report``)."""
    resources.cgroup = SandboxCgroup.create(spec.name, spec.limits)
    privileged = os.geteuid() == 0
    resources.uid = IDENTITIES.take() if privileged else None
    _let_others_search(spec.socket_dir)
    binds, links = system_view()
    binds += [Bind(str(spec.package_dir.resolve()), PACKAGE_MOUNT),
              Bind(str(spec.socket_dir.resolve()), SOCKET_MOUNT, writable=True)]
    mounts: tuple[tuple[str, str], ...] = ()
    if privileged:
        staged = _stage(binds, resources)
        mounts = tuple((bind.source, stage.source) for bind, stage in zip(binds, staged, strict=True))
        binds = staged
    controllers = resources.cgroup.controllers if resources.cgroup else frozenset[str]()
    plan = Plan(rlimits(spec.limits, controllers, privileged),
                tuple(resources.cgroup.procs_files()) if resources.cgroup else (), mounts, resources.uid,
                os.getpid(), report)
    return await spawn(launcher_argv(plan, bwrap_argv(spec, binds, links)), env={}, pass_fds=(report,))


async def _until_running(process: Child) -> None:
    """Wait until bubblewrap runs the command (or has ended): before that, its init has not
    yet bound its life to bubblewrap's (``--die-with-parent`` is set once the sandbox is
    made), and a host that died then would leave it running."""
    deadline = asyncio.get_running_loop().time() + START_TIMEOUT_S
    while process.returncode is None and not _bot_processes(process.pid):
        if asyncio.get_running_loop().time() > deadline:
            raise SandboxError(f"the sandbox did not start within {START_TIMEOUT_S:g} s")
        await asyncio.sleep(0.005)


def _read_report(fd: int) -> str:
    """What the launcher wrote before its end or its exec (bounded)."""
    found = b""
    while len(found) < 1000 and (chunk := os.read(fd, 1000)):
        found += chunk
    return found.decode(errors="replace").strip()


class Sandbox:
    """One running sandbox (use :meth:`start`)."""

    def __init__(self, spec: SandboxSpec, process: Child, resources: _Resources) -> None:
        self.spec = spec
        self.pid = process.pid
        """The outer bubblewrap process's pid on the host."""
        self._process = process
        self._resources = resources
        self._output = OutputTail(spec.limits.output_kb << 10)
        self._stopped = False
        self._process_limit_hit = False
        self._reader = asyncio.create_task(self._read(), name=f"sandbox {spec.name} output")
        self._watcher = asyncio.create_task(self._watch(), name=f"sandbox {spec.name} watch")
        self._ended = asyncio.create_task(self._end(), name=f"sandbox {spec.name} end")

    @classmethod
    async def start(cls, spec: SandboxSpec) -> Sandbox:
        """Run ``spec`` in a new sandbox (its cgroups made and joined before bubblewrap runs)."""
        if not os.access(BWRAP, os.X_OK):
            raise SandboxError(f"bubblewrap is not installed ({BWRAP}): run scripts/ensure-sandbox.sh")
        if spec.name in _LIVE:  # its cgroups would be taken for a dead host's and emptied
            raise SandboxError(f"a sandbox named {spec.name} is running on this host already")
        _LIVE.add(spec.name)
        resources = _Resources(spec.name)
        process: Child | None = None
        report, report_end = os.pipe()  # the launcher's failure, or nothing once it has run bubblewrap
        try:
            try:
                process = await _launch(spec, resources, report_end)
            finally:
                os.close(report_end)
            failure = await asyncio.to_thread(_read_report, report)
            if failure:
                await process.wait()
                raise SandboxError(f"cannot start the sandbox: {failure[:200]}")
            await _until_running(process)
        except BaseException:
            if process is not None and process.returncode is None:
                process.kill()
                await process.wait()
            resources.release()
            raise
        finally:
            os.close(report)
        return cls(spec, process, resources)

    def output_tail(self) -> bytes:
        """The last ``limits.output_kb`` KiB of the sandbox's stdout and stderr together."""
        return self._output.tail()

    async def wait(self) -> ExitStatus:
        """How the sandbox ended (waits for its end; every process of it is gone by then)."""
        return await asyncio.shield(self._ended)

    async def stop(self, grace_s: float = 2.0) -> ExitStatus:
        """SIGTERM to the bot's processes, SIGKILL to all after ``grace_s``."""
        if not self._ended.done():
            self._stopped = True
            for pid in _bot_processes(self.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(asyncio.shield(self._ended), grace_s)
            except TimeoutError:
                self._kill()
        return await self.wait()

    def _kill(self) -> None:
        """SIGKILL the outer bubblewrap: its child, the sandbox's init, dies with it
        (``--die-with-parent``), and with the init the whole PID namespace; the cgroup's
        removal kills anything left."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    async def _read(self) -> None:
        stream = self._process.stdout
        assert stream is not None
        while chunk := await stream.read(1 << 16):
            self._output.append(chunk)

    async def _watch(self) -> None:
        """End a sandbox whose forks the process limit refused: a bot that hits it is a fork
        bomb, or would fail at random."""
        cgroup = self._resources.cgroup
        if cgroup is None or "pids" not in cgroup.controllers:
            return
        while True:
            await asyncio.sleep(WATCH_INTERVAL_S)
            if cgroup.pids_refused():
                self._process_limit_hit = True
                self._kill()
                return

    async def _end(self) -> ExitStatus:
        returncode = await self._process.wait()
        self._watcher.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(self._reader), DRAIN_TIMEOUT_S)
        except TimeoutError:
            self._reader.cancel()
        cgroup = self._resources.cgroup
        oom_killed = cgroup is not None and cgroup.oom_kills() > 0
        await asyncio.to_thread(self._resources.release)
        return self._status(returncode, oom_killed)

    def _status(self, returncode: int, oom_killed: bool) -> ExitStatus:
        """bubblewrap exits with its command's status, or 128 + the signal that killed it;
        a negative return code is bubblewrap itself killed (by :meth:`_kill`)."""
        code: int | None = None
        killed_by: int | None = None
        if returncode < 0:
            killed_by = -returncode
        elif returncode > 128:
            killed_by = returncode - 128
        else:
            code = returncode
        limits = self.spec.limits
        if self._stopped:
            reason = "stopped by the host"
        elif oom_killed:
            reason = f"killed: memory limit {limits.memory_mb} MB"
        elif self._process_limit_hit:
            reason = f"killed: process limit {limits.pids}"
        elif killed_by == signal.SIGXFSZ:
            reason = "killed: output file size limit"
        elif killed_by is not None:
            reason = f"killed by signal {_signal_name(killed_by)}"
        else:
            reason = f"exited with status {code}"
        return ExitStatus(code, killed_by, reason)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _bot_processes(bwrap_pid: int) -> list[int]:
    """The sandbox's own processes: descendants of the outer bubblewrap below its init
    (bubblewrap's two processes are left to SIGKILL)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        parent = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found: list[int] = []
    level = children.get(bwrap_pid, [])
    depth = 1
    while level:
        if depth >= 2:
            found += level
        level = [child for pid in level for child in children.get(pid, [])]
        depth += 1
    return found
