"""Real parts for tournament tests: an in-process referee with SDK bots on a background event
loop, and Celery worker processes (``celery -A workers.app worker``) started with
subprocess so they can be killed like a lost machine."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest

from competitions.config import WorkerConfig
from pitch_sdk.bot import Bot
from pitch_sdk.bots.loader import load_bot
from pitch_sdk.remote.client import BotClient
from tests.referee.harness import Arena, running_arena

ROOT = Path(__file__).resolve().parents[2]
CELERY = Path(sys.executable).parent / "celery"


class StartCounter(logging.Handler):
    """Counts the referee's "match ... started" log lines per match id (a replayed match
    would be counted twice)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.starts: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("match %s started") and isinstance(record.args, tuple):
            self.starts[str(record.args[0])] += 1


class ArenaThread:
    """A referee (tests/referee/harness.py) running on its own event loop in a thread, so
    the test itself stays synchronous like the Celery code it drives."""

    def __init__(self, redis_url: str, **config: object) -> None:
        self.counter = StartCounter()
        self.logger = logging.getLogger("pitch.referee")
        self.level = self.logger.level
        self.logger.setLevel(logging.INFO)
        self.logger.addHandler(self.counter)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="arena", daemon=True)
        self.thread.start()
        self._context = running_arena(redis_url, **config)
        self.arena: Arena = self.call(self._context.__aenter__())

    def call(self, coroutine: Any, timeout: float = 30) -> Any:
        """Run a coroutine on the arena's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    @property
    def prefix(self) -> str:
        """The referee's store prefix (the workers use the same one, as in production)."""
        return self.arena.server.arena.store.prefix

    def register(self) -> tuple[str, str]:
        """Register a bot without connecting it; its id and token."""
        registered = self.call(self.arena.register())
        return registered.bot_id, registered.token

    def connect(self, spec: str) -> str:
        """Register and connect a built-in SDK bot (``random``, ``heuristic``); its id."""
        bot_id, _ = self.call(self.arena.connect(lambda: load_bot(spec)))
        return str(bot_id)

    def connect_registered(self, token: str, spec: str, version: str | None = None) -> None:
        """Connect an already registered bot (by its token) as a built-in SDK bot, saying
        ``version`` in its hello if given (another version of a connected bot plays beside it)."""

        def make() -> Bot:
            bot = load_bot(spec)
            if version is not None:
                bot.version = version  # type: ignore[attr-defined]  # the SDK's hello sends it
            return bot

        async def start() -> None:
            client = BotClient(make, self.arena.address, token)
            self.arena.tasks.append(asyncio.create_task(client.run(self.arena.stop)))
            await asyncio.wait_for(client.connected.wait(), timeout=10)

        self.call(start())

    def close(self) -> None:
        """Stop bots and referee, then the loop."""
        try:
            self.call(self._context.__aexit__(None, None, None))
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
            self.logger.removeHandler(self.counter)
            self.logger.setLevel(self.level)


@contextmanager
def referee_fleet(redis_url: str, **config: object) -> Iterator[tuple[ArenaThread, ArenaThread]]:
    """Two referees sharing one key prefix (one arena, two referee processes' worth), each
    with ``config``; stopped afterwards."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"
    first = ArenaThread(redis_url, prefix=prefix, **config)
    try:
        second = ArenaThread(redis_url, prefix=prefix, **config)
        try:
            yield first, second
        finally:
            second.close()
    finally:
        first.close()


class WorkerProcess:
    """``celery -A workers.app worker`` in its own process group, logging to a file;
    with ``beat``, the worker also runs beat (``-B``: automated round robins and ladders); ``include``
    names further modules the worker imports (``--include``: a test's own tasks or faults)."""

    def __init__(self, config: WorkerConfig, name: str, log_dir: Path, concurrency: int = 2,
                 beat: bool = False, include: Sequence[str] = ()) -> None:
        self.log_path = log_dir / f"{name}.log"
        self._log: IO[bytes] = self.log_path.open("wb")
        with_beat = ["-B", "--schedule", str(log_dir / f"{name}-beat-schedule")] if beat else []
        with_include = ["--include", ",".join(include)] if include else []
        self.process = subprocess.Popen(
            [str(CELERY), "-A", "workers.app", "worker", "--pool=prefork", f"--concurrency={concurrency}",
             "--loglevel=INFO", "-n", f"{name}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat",
             *with_beat, *with_include],
            env={**os.environ, **config.to_env()}, cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True)

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes at once, as a machine that dies."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self._log.close()

    def stop(self) -> None:
        """Warm shutdown (running tasks finish), or SIGKILL after 30 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self._log.close()

    def log(self) -> str:
        """Everything the worker logged so far."""
        return self.log_path.read_text(errors="replace")


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` every 50 ms; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.05)


@pytest.fixture(name="arena")
def arena_per_test(redis_url: str) -> Iterator[ArenaThread]:
    """A referee of the test's own, 2 s per decision and a 5 s bank (a module that imports
    this fixture gets it as ``arena`` instead of the shared module-wide one): for tests that
    kill workers, lose queues or play long runs, whose leftovers must not reach the next test."""
    thread = ArenaThread(redis_url, per_decision_ms=2000, bank_ms=5000)
    try:
        yield thread
    finally:
        thread.close()
