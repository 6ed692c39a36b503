"""The workers' liveness check (``pitch-arena worker-alive``) against a real worker: it passes
while the worker consumes, fails once the consumer has stopped (its broker gone), and passes
again when the worker consumes again."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from competitions.config import WorkerConfig
from store.redis_server import RedisServer
from tests.workers.celery_harness import WorkerProcess, wait_until
from workers.alive import age

PITCH_ARENA = Path(sys.executable).parent / "pitch-arena"
MAX_AGE_S = 2.0


def alive(config: WorkerConfig) -> subprocess.CompletedProcess[str]:
    """Run the check as an orchestrator would, with the worker's environment."""
    return subprocess.run([str(PITCH_ARENA), "worker-alive", "--max-age", str(MAX_AGE_S)],
                          env={**os.environ, **config.to_env()}, capture_output=True, text=True, timeout=30)


def test_check_without_a_file_configured_says_so() -> None:
    result = subprocess.run([str(PITCH_ARENA), "worker-alive"], env={**os.environ, "PITCH_WORKER_ALIVE_FILE": ""},
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "PITCH_WORKER_ALIVE_FILE" in result.stderr


def test_age_of_a_missing_file_is_none(tmp_path: Path) -> None:
    assert age(tmp_path / "none") is None
    (tmp_path / "file").touch()
    assert 0 <= (age(tmp_path / "file") or 0) < 5


@pytest.mark.slow
def test_worker_is_alive_while_it_consumes_and_dead_when_its_consumer_stops(tmp_path: Path) -> None:
    with RedisServer() as server:
        config = WorkerConfig(redis_url=server.url, store_prefix=f"alive-{uuid.uuid4().hex[:8]}:",
                              alive_file=str(tmp_path / "worker.alive"), alive_interval_s=0.2)
        assert alive(config).returncode == 1  # no worker yet: no heartbeat
        worker = WorkerProcess(config, "alive", tmp_path, concurrency=1)
        try:
            wait_until(lambda: Path(config.alive_file).exists(), 30, "the worker's first heartbeat")
            checked = alive(config)
            assert checked.returncode == 0, checked.stderr

            server.halt()  # the broker is gone: the consumer stops and retries the connection
            wait_until(lambda: (age(Path(config.alive_file)) or 0) > MAX_AGE_S + 0.2, 30, "the heartbeat to go stale")
            checked = alive(config)
            assert checked.returncode == 1 and "not consuming" in checked.stderr, checked
            assert worker.process.poll() is None  # the process itself is still there

            server.resume()  # the worker reconnects and consumes again
            wait_until(lambda: (age(Path(config.alive_file)) or 99) < MAX_AGE_S / 2, 30, "a fresh heartbeat")
            checked = alive(config)
            assert checked.returncode == 0, checked.stderr
        finally:
            worker.stop()
        assert not Path(config.alive_file).exists()  # a worker that shut down is not alive
