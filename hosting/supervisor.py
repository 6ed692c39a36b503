"""Keeps one hosted bot version running: restarts its sandbox after a crash with exponential
backoff, and gives up ("failing") after repeated crashes, so that a broken submission costs
the host little and its owner sees why."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from hosting.sandbox import ExitStatus, Sandbox

StatusCallback = Callable[[str, str], Awaitable[None]]
"""``(status, detail)``: "running", "restarting", "failing" or "stopped", and the reason."""
OutputCallback = Callable[[bytes], Awaitable[None]]
"""The output's tail: while the sandbox runs (when it changed) and after each end."""


@dataclass(frozen=True)
class Policy:
    """When a crashed version is restarted, and when it is given up."""

    first_backoff_s: float = 1.0
    """The wait before the first restart: a bot that fails at once is not restarted in a tight loop."""
    max_backoff_s: float = 60.0
    """The longest wait: the backoff doubles up to it."""
    healthy_run_s: float = 60.0
    """A run at least this long counts as healthy and resets the backoff to ``first_backoff_s``."""
    crashes: int = 5
    window_s: float = 600.0
    """``crashes`` ends within ``window_s`` mark the version failing: it stops being restarted."""
    output_interval_s: float = 5.0
    """How often the output of a running sandbox is handed on."""

    def backoff(self, consecutive: int) -> float:
        """The wait after the ``consecutive``-th crash in a row (1, 2, ...)."""
        return min(self.max_backoff_s, self.first_backoff_s * 2.0 ** (consecutive - 1))


class Supervisor:
    """Runs the sandboxes ``start`` makes, one at a time, until :meth:`stop` or failing
    (:meth:`run`), reporting each change of status to ``on_status``."""

    def __init__(self, start: Callable[[], Awaitable[Sandbox]], on_status: StatusCallback,
                 on_output: OutputCallback | None = None, policy: Policy | None = None) -> None:
        self._start = start
        self._on_status = on_status
        self._on_output = on_output
        self.policy = policy or Policy()
        self.restarts = 0
        """Restarts after a crash so far."""
        self.last_exit: ExitStatus | None = None
        self._sandbox: Sandbox | None = None
        self._stopping = asyncio.Event()
        self._grace_s = 2.0
        self._done = asyncio.Event()

    async def run(self) -> None:
        """Start, watch and restart until stopped or failing."""
        crashes: collections.deque[float] = collections.deque()
        consecutive = 0
        try:
            while not self._stopping.is_set():
                started = time.monotonic()
                reason = await self._run_once()
                if self._stopping.is_set():
                    break
                now = time.monotonic()
                consecutive = 1 if now - started >= self.policy.healthy_run_s else consecutive + 1
                crashes.append(now)
                while crashes and now - crashes[0] > self.policy.window_s:
                    crashes.popleft()
                if len(crashes) >= self.policy.crashes:
                    await self._on_status("failing", f"{reason} ({len(crashes)} times in "
                                                     f"{self.policy.window_s:g} s)")
                    return
                await self._on_status("restarting", reason)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), self.policy.backoff(consecutive))
                if not self._stopping.is_set():
                    self.restarts += 1
            await self._on_status("stopped", "stopped by the host")
        finally:
            self._done.set()

    async def _run_once(self) -> str:
        """One sandbox from start to end: why it ended."""
        try:
            self._sandbox = await self._start()
        except Exception as error:  # a version that cannot start is a crash with a reason
            return f"cannot start: {str(error)[:200]}"
        sandbox = self._sandbox
        if self._stopping.is_set():  # stopped while it started
            await sandbox.stop(self._grace_s)
        else:
            await self._on_status("running", "")
        ended = asyncio.ensure_future(sandbox.wait())
        last = b""
        while not ended.done():
            await asyncio.wait([ended], timeout=self.policy.output_interval_s)
            last = await self._hand_on(sandbox, last)
        self._sandbox = None
        self.last_exit = ended.result()
        return self.last_exit.reason

    async def _hand_on(self, sandbox: Sandbox, last: bytes) -> bytes:
        tail = sandbox.output_tail()
        if self._on_output is not None and tail != last:
            await self._on_output(tail)
        return tail

    async def stop(self, grace_s: float = 2.0) -> None:
        """Stop the running sandbox (SIGTERM, SIGKILL after ``grace_s``) and restart no more;
        returns when :meth:`run` has (call it once :meth:`run` is under way)."""
        self._grace_s = grace_s
        self._stopping.set()
        if self._sandbox is not None:
            await self._sandbox.stop(grace_s)
        await self._done.wait()
