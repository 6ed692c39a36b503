"""Bot hosts as deployed: ``pitch-arena bot-host`` processes on the test Redis, a real
referee, packages in a real artifact store, and every bot in a real sandbox.

Two hosts run for the whole module (with short leases and polls); each test submits its
own versions, so the tests share the processes without sharing bots."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pitch_sdk.packages.archive import pack
from pitch_sdk.proto.pitch.v1 import arena_pb2
from store.artifacts import FileArtifacts
from store.hosted import HostedVersions
from store.redis_store import Store
from tests.referee.harness import ADMIN
from tests.workers.celery_harness import ArenaThread, wait_until

PITCH_ARENA = Path(sys.executable).parent / "pitch-arena"
LEASE_S = 3.0
POLL_S = 0.5
HEURISTIC = "from pitch_sdk.bots.heuristic import HeuristicBot as Bot\n"
CRASHING = "import sys\nprint('the marker of a crashing bot', file=sys.stderr)\nsys.exit(3)\n"


@dataclass
class Host:
    """A ``pitch-arena bot-host`` process in its own process group, logging to a file."""

    host_id: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL, as a lost machine."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> int:
        """SIGTERM, as a service manager; the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()
            raise


@dataclass
class Arena:
    """The module's referee, store, artifact store and hosts."""

    referee: ArenaThread
    store: Store
    artifacts: FileArtifacts
    versions: HostedVersions
    hosts: dict[str, Host]
    env: dict[str, str]
    packages: Path

    def submit(self, source: str, version: str = "v1") -> str:
        """Register a bot and submit a package of ``source`` (a bot.py exporting ``Bot``) as
        its ``version``; the bot's id."""
        bot_id, _ = self.referee.register()
        folder = self.packages / bot_id
        folder.mkdir()
        (folder / "bot.py").write_text(source)
        (folder / "pitch-bot.json").write_text(json.dumps({"bot": "bot.py:Bot"}))
        data = pack(folder)
        sha256 = self.artifacts.put(data)
        self.versions.add(bot_id, version, sha256, json.dumps({"bot": "bot.py:Bot"}), "tester")
        return bot_id

    def start_host(self, host_id: str, tmp: Path) -> Host:
        log_path = tmp / f"{host_id}.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [str(PITCH_ARENA), "bot-host", "--slots", "4", "--capacity", "2"],
                env={**self.env, "PITCH_HOST_ID": host_id, "PITCH_HOST_DIR": str(tmp / host_id)},
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        host = self.hosts[host_id] = Host(host_id, process, log_path)
        return host

    def bot_info(self, bot_id: str) -> arena_pb2.BotInfo | None:
        async def bots() -> arena_pb2.ListBotsResponse:
            return await self.referee.arena.admin.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN)

        return next((bot for bot in self.referee.call(bots()).bots if bot.bot_id == bot_id), None)

    def connected(self, bot_id: str) -> bool:
        info = self.bot_info(bot_id)
        return info is not None and info.connected

    def status(self, bot_id: str, version: str = "v1") -> str:
        record = self.versions.get(bot_id, version)
        return "" if record is None else record.status

    def wait(self, condition: Callable[[], bool], timeout: float, what: str) -> None:
        wait_until(condition, timeout, f"{what}; hosts' logs:\n" +
                   "\n".join(f"--- {host.host_id}\n{host.log()[-3000:]}" for host in self.hosts.values()))


@pytest.fixture(scope="module")
def hosted(arena: ArenaThread, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    tmp = tmp_path_factory.mktemp("hosts")
    store = Store.from_url(redis_url, arena.prefix)
    env = {"PATH": os.environ["PATH"], "REDIS_URL": redis_url, "PITCH_STORE_PREFIX": arena.prefix,
           "PITCH_REFEREE": arena.arena.address, "PITCH_ARTIFACTS_DIR": str(tmp / "artifacts"),
           "PITCH_HOST_LEASE_S": str(LEASE_S), "PITCH_HOST_POLL_S": str(POLL_S), "PITCH_HOSTED_BACKOFF_S": "0.1",
           "PITCH_HOSTED_MAX_BACKOFF_S": "0.2", "PITCH_HOSTED_HELLO_S": "5", "PITCH_DATA_DIR": str(tmp / "data")}
    packages = tmp / "packages"
    packages.mkdir()
    world = Arena(arena, store, FileArtifacts(tmp / "artifacts"), HostedVersions(store), {}, env, packages)
    try:
        for host_id in ("host-a", "host-b"):
            world.start_host(host_id, tmp)
        yield world
    finally:
        for host in world.hosts.values():
            host.stop()


def test_a_submitted_version_plays_and_its_result_is_recorded_under_it(hosted: Arena) -> None:
    bot_id = hosted.submit(HEURISTIC, version="v1")
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the hosted bot to connect")
    assert hosted.status(bot_id) == "running"
    assert hosted.bot_info(bot_id).capacity == 2  # type: ignore[union-attr]
    others = [hosted.referee.connect("heuristic") for _ in range(2)]
    played: arena_pb2.RunMatchResponse = hosted.referee.call(hosted.referee.arena.run_match(
        "cutthroat", [bot_id, *others], seed=5, games=1), timeout=60)
    assert played.result.completed and not played.result.forfeited
    assert played.seat_bot_versions[0] == "v1"
    assert played.result.seats[0].decisions > 0 and played.result.seats[0].strikes == 0


def test_a_dead_hosts_versions_start_on_another_host_within_the_lease(hosted: Arena, tmp_path: Path) -> None:
    bot_id = hosted.submit(HEURISTIC)
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the hosted bot to connect")
    holder = hosted.versions.holder(bot_id, "v1")
    assert holder in hosted.hosts
    killed = time.monotonic()
    hosted.hosts[holder].kill()
    hosted.wait(lambda: hosted.versions.holder(bot_id, "v1") not in (None, holder) and hosted.connected(bot_id),
                LEASE_S + 15, "another host to take the version over")
    assert time.monotonic() - killed < LEASE_S + 10
    del hosted.hosts[holder]
    hosted.start_host(f"{holder}-again", tmp_path)  # two hosts again for the tests that follow


def test_a_crashing_bot_restarts_then_fails_with_its_stderr_kept(hosted: Arena) -> None:
    bot_id = hosted.submit(CRASHING)
    hosted.wait(lambda: hosted.status(bot_id) == "failing", 30, "the crashing bot to be marked failing")
    record = hosted.versions.get(bot_id, "v1")
    assert record is not None and record.restarts >= 4 and "exited with status 3" in record.detail
    assert b"the marker of a crashing bot" in hosted.versions.log(bot_id, "v1")
    time.sleep(POLL_S * 3)
    assert hosted.status(bot_id) == "failing"  # not restarted by any host


def test_a_stopped_version_stops_its_sandbox(hosted: Arena) -> None:
    bot_id = hosted.submit(HEURISTIC)
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the hosted bot to connect")
    hosted.versions.stop(bot_id, "v1")
    hosted.wait(lambda: not hosted.connected(bot_id), 10, "the stopped version's bot to disconnect")
    assert hosted.status(bot_id) == "stopped"
