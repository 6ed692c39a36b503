"""The supervisor with real sandboxes: a bot that crashes at once is restarted with a growing
backoff and marked failing after repeated crashes; crashes spread wider than the window are
forgiven; a stop ends the running sandbox and the restarts."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from hosting.sandbox import Limits, Sandbox, SandboxSpec
from hosting.supervisor import Policy, Supervisor


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("supervised")


class Recorder:
    """The statuses, their times, and the outputs a supervisor reports."""

    def __init__(self) -> None:
        self.statuses: list[tuple[str, str]] = []
        self.times: list[float] = []
        self.outputs: list[bytes] = []

    async def status(self, status: str, detail: str) -> None:
        self.statuses.append((status, detail))
        self.times.append(time.monotonic())

    async def output(self, tail: bytes) -> None:
        self.outputs.append(tail)


def starter(package: Path, name: str, program: str) -> tuple[Recorder, Callable[[], Awaitable[Sandbox]]]:
    async def start() -> Sandbox:
        return await Sandbox.start(SandboxSpec(f"test-{os.getpid()}-{name}", package, (sys.executable, "-c", program),
                                               package, {}, Limits(memory_mb=128)))
    return Recorder(), start


def test_a_bot_that_crashes_at_once_backs_off_then_is_failing(package: Path) -> None:
    recorder, start = starter(package, "crash", "import sys; print('bad bot'); sys.exit(3)")
    # healthy_run_s far above a crash's run: a slow start on a loaded machine still counts as a crash in a row
    policy = Policy(first_backoff_s=0.1, max_backoff_s=0.4, healthy_run_s=30, crashes=4, window_s=60)
    supervisor = Supervisor(start, recorder.status, recorder.output, policy)
    asyncio.run(asyncio.wait_for(supervisor.run(), 20))
    restarting = ("restarting", "exited with status 3")
    assert recorder.statuses == [("running", ""), restarting, ("running", ""), restarting, ("running", ""), restarting,
                                 ("running", ""), ("failing", "exited with status 3 (4 times in 60 s)")]
    assert supervisor.restarts == 3
    assert recorder.outputs and all(tail == b"bad bot\n" for tail in recorder.outputs)
    waits = [recorder.times[i + 1] - recorder.times[i] for i in (1, 3, 5)]  # restarting -> running
    for wait, backoff in zip(waits, (0.1, 0.2, 0.4), strict=True):
        assert wait >= backoff, waits


def test_crashes_spread_wider_than_the_window_are_forgiven_and_stop_ends_it(package: Path) -> None:
    recorder, start = starter(package, "slow-crash", "import time; time.sleep(0.25); raise SystemExit(1)")
    policy = Policy(first_backoff_s=0.05, max_backoff_s=0.1, crashes=2, window_s=0.15)
    supervisor = Supervisor(start, recorder.status, None, policy)

    async def scenario() -> None:
        running = asyncio.create_task(supervisor.run())
        while supervisor.restarts < 2:
            await asyncio.sleep(0.05)
        await supervisor.stop(grace_s=0.5)
        await asyncio.wait_for(running, 5)

    asyncio.run(asyncio.wait_for(scenario(), 20))
    assert all(status != "failing" for status, _ in recorder.statuses)
    assert recorder.statuses[-1] == ("stopped", "stopped by the host")
    assert ("restarting", "exited with status 1") in recorder.statuses


def test_stop_ends_a_running_bot(package: Path) -> None:
    recorder, start = starter(package, "sleeper", "import time; print('up', flush=True); time.sleep(60)")
    supervisor = Supervisor(start, recorder.status, recorder.output, Policy(output_interval_s=0.05))

    async def scenario() -> float:
        running = asyncio.create_task(supervisor.run())
        while b"up\n" not in recorder.outputs:
            await asyncio.sleep(0.02)
        started = time.monotonic()
        await supervisor.stop(grace_s=0.5)
        await running
        return time.monotonic() - started

    seconds = asyncio.run(asyncio.wait_for(scenario(), 20))
    assert recorder.statuses == [("running", ""), ("stopped", "stopped by the host")]
    assert supervisor.last_exit is not None and supervisor.last_exit.reason == "stopped by the host"
    assert seconds < 2
