"""Where an operator's arena keeps its state, with real processes: a referee without
``REDIS_URL`` keeps its bots across a restart (its embedded Redis lives in the data
directory), beat's schedule file goes to the data directory, and workers send task events
(what a monitor such as Flower needs)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import grpc
import pytest

from cli.local_arena import free_port
from competitions.config import WorkerConfig
from competitions.referee_client import RefereeClient
from tests.workers.celery_harness import WorkerProcess, wait_until

BIN = Path(sys.executable).parent
ADMIN = "state-admin"


def _start_referee(address: str, data: Path, log: Path) -> subprocess.Popen[bytes]:
    """``pitch-arena referee`` without REDIS_URL, its data in ``data``; ready to call."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    with log.open("ab") as out:
        process = subprocess.Popen([str(BIN / "pitch-arena"), "referee", "--address", address],
                                   env={**env, "PITCH_DATA_DIR": str(data), "PITCH_ADMIN_TOKEN": ADMIN},
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    with grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=30)
    return process


def _stop(process: subprocess.Popen[bytes]) -> int:
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        return process.wait()


@pytest.mark.slow
def test_a_referee_without_redis_url_keeps_its_bots_across_a_restart(tmp_path: Path) -> None:
    """Register a bot, restart the referee process: the bot is still registered and its
    token still connects (before, the private Redis died with the referee: 'token rejected')."""
    address, data, log = f"127.0.0.1:{free_port()}", tmp_path / "data", tmp_path / "referee.log"
    referee = _start_referee(address, data, log)
    try:
        registered = RefereeClient(address, ADMIN, 10).register(f"keeper-{uuid.uuid4().hex[:6]}", "tests", "")
    finally:
        assert _stop(referee) == 0, log.read_text()
    assert (data / "redis").is_dir() and any((data / "redis").iterdir()), "the data is in the data directory"
    referee = _start_referee(address, data, log)
    bot = None
    try:
        client = RefereeClient(address, ADMIN, 10)
        assert [b.name for b in client.bots() if b.bot_id == registered.bot_id]
        bot = subprocess.Popen([str(BIN / "pitch-bot"), "run", "random", "--referee", address],
                               env={**os.environ, "PITCH_BOT_TOKEN": registered.token},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_until(lambda: registered.bot_id in client.connected_bots() or bot.poll() is not None, 30,
                   "the bot to connect with its old token")
        assert bot.poll() is None, bot.stderr.read() if bot.stderr else ""
    finally:
        if bot is not None and bot.poll() is None:
            bot.send_signal(signal.SIGINT)
            bot.wait(timeout=20)
        _stop(referee)
    urls = re.findall(r"export REDIS_URL=(\S+)", log.read_text())
    assert len(urls) == 2, log.read_text()


def test_a_second_referee_on_the_same_data_directory_is_refused(tmp_path: Path) -> None:
    """Two embedded Redis servers on one append-only file would corrupt it: the second
    referee exits at once naming the directory and how to choose another."""
    address, data = f"127.0.0.1:{free_port()}", tmp_path / "data"
    first = _start_referee(address, data, tmp_path / "first.log")
    try:
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        second = subprocess.run([str(BIN / "pitch-arena"), "referee", "--address", f"127.0.0.1:{free_port()}",
                                 "--data-dir", str(data)], env={**env, "PITCH_ADMIN_TOKEN": ADMIN},
                                capture_output=True, text=True, timeout=60)
    finally:
        _stop(first)
    assert second.returncode == 1
    assert str(data) in second.stderr and "PITCH_DATA_DIR" in second.stderr


def test_beat_keeps_its_schedule_in_the_data_directory(redis_url: str, tmp_path: Path) -> None:
    """`pitch-arena beat` run from some working directory leaves nothing there: its
    schedule file is in PITCH_DATA_DIR."""
    work, data = tmp_path / "work", tmp_path / "data"
    work.mkdir()
    config = WorkerConfig(redis_url=redis_url, store_prefix=f"beat-{uuid.uuid4().hex[:6]}:")
    beat = subprocess.Popen([str(BIN / "pitch-arena"), "beat"], cwd=work,
                            env={**os.environ, **config.to_env(), "PITCH_DATA_DIR": str(data)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_until(lambda: (data.exists() and any(p.name.startswith("celerybeat-schedule") for p in data.iterdir()))
                   or beat.poll() is not None, 60, "beat's schedule file")
        assert beat.poll() is None, beat.stderr.read() if beat.stderr else ""
        time.sleep(0.5)  # a moment to write anything else it would
    finally:
        _stop(beat)
    assert list(work.iterdir()) == []


def test_workers_send_task_events_for_monitors(redis_url: str, tmp_path: Path) -> None:
    """The worker's banner says task events are on (a monitor such as Flower shows tasks)."""
    config = WorkerConfig(redis_url=redis_url, store_prefix=f"events-{uuid.uuid4().hex[:6]}:")
    worker = WorkerProcess(config, "events", tmp_path, concurrency=1)
    try:
        wait_until(lambda: "task events:" in worker.log() or worker.process.poll() is not None, 60,
                   "the worker's banner")
    finally:
        worker.stop()
    assert re.search(r"task events: ON\b", worker.log()), worker.log()
