"""``pitch-arena bot-host`` processes for tests: started on the test Redis beside the
module's referee (:class:`tests.workers.celery_harness.ArenaThread`), with packages put in a
real artifact store and submitted as hosted versions."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hosting.identity import DEFAULT_UID_BASE, SLOTS, UID_BASE_VARIABLE
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
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
_UID_BASES = itertools.count(DEFAULT_UID_BASE + SLOTS * (10 + 10 * _WORKER), SLOTS)
"""Each host's sandbox uids, apart from every other host's and from the test processes' own
(tests/hosting/conftest.py): a process rlimit counts every process of a uid, so a fork bomb
on one host would otherwise keep another's sandboxes from starting (EAGAIN)."""
ILLEGAL = '''
from pitch_sdk.bot import Bot as Base
from pitch_sdk.rules import PlayCard


class Bot(Base):
    """Plays a card it does not hold whenever it must play."""

    def act(self, observation, legal_actions):
        if isinstance(legal_actions[0], PlayCard):
            held = set(observation.hand)
            return next(PlayCard(c) for c in map(type(observation.hand[0]), range(52)) if c not in held)
        return legal_actions[0]
'''
"""A bot that answers illegal moves (the compliance check rejects it)."""
HELLO_S = 8
"""Long enough for a bot to start on a loaded machine (a bot killed before its hello is restarted)."""


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
    started: list[tuple[str, str]] = field(default_factory=list)
    """The versions the running test submitted (stopped after it, to keep the hosts' slots free)."""
    silent: str = ""
    crashing: str = ""
    """Bots that never say hello and crash at once, submitted as the hosts start (their
    deadline and backoffs pass while the other tests run)."""

    def submit(self, source: str, version: str = "v1", command: Callable[[str], list[str]] | None = None,
               bot_id: str | None = None) -> str:
        """Submit a package of ``source`` (a bot.py exporting ``Bot``) as ``version`` of a new
        bot (or of ``bot_id``), started as a Python bot or by ``command(bot id)``; the bot's id."""
        bot_id = bot_id or self.referee.register()[0]
        folder = self.packages / f"{bot_id}-{version}"
        folder.mkdir()
        (folder / "bot.py").write_text(source)
        manifest = json.dumps({"bot": "bot.py:Bot"} if command is None else {"command": command(bot_id)})
        (folder / "pitch-bot.json").write_text(manifest)
        sha256 = self.artifacts.put(pack(folder))
        self.versions.add(bot_id, version, sha256, manifest, "tester")
        self.started.append((bot_id, version))
        return bot_id

    def each_test(self) -> Iterator[None]:
        """Around one test (an autouse fixture's body): the versions it submitted are stopped
        after it, so the tests that follow find the hosts' slots free."""
        self.started.clear()
        yield
        for bot_id, version in self.started:
            self.versions.stop(bot_id, version)

    def start_host(self, host_id: str, tmp: Path) -> Host:
        log_path = tmp / f"{host_id}.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [str(PITCH_ARENA), "bot-host"],
                env={**self.env, "PITCH_HOST_ID": host_id, "PITCH_HOST_DIR": str(tmp / host_id),
                     UID_BASE_VARIABLE: str(next(_UID_BASES))},
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

    def playing(self, bot_id: str) -> str | None:
        """The version the bot's open stream said hello with, if it has one."""
        presence = self.referee.arena.server.arena.registry.get(bot_id)
        session = None if presence is None else presence.session
        return session.hello.bot_version if session is not None and session.open else None

    def status(self, bot_id: str, version: str = "v1") -> str:
        record = self.versions.get(bot_id, version)
        return "" if record is None else record.status

    def wait(self, condition: Callable[[], bool], timeout: float, what: str) -> None:
        """:func:`wait_until`, failing with the hosts' logs."""
        try:
            wait_until(condition, timeout, what)
        except AssertionError as timeout_error:
            logs = "\n".join(f"--- {host.host_id}\n{host.log()[-3000:]}" for host in self.hosts.values())
            raise AssertionError(f"{timeout_error}; the hosts' logs:\n{logs}") from None




def statuses_until(hosted: Arena, bot_id: str, final: str, timeout: float) -> tuple[list[str], bool]:
    """The statuses the version went through until ``final``, and whether its bot was ever
    connected under its own id on the way."""
    seen: list[str] = []
    connected = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = hosted.status(bot_id)
        if not seen or seen[-1] != status:
            seen.append(status)
        connected = connected or hosted.connected(bot_id)
        if status == final:
            return seen, connected
        time.sleep(0.05)
    logs = "\n".join(f"--- {host.host_id}\n{host.log()[-3000:]}" for host in hosted.hosts.values())
    raise AssertionError(f"the version was not {final} within {timeout} s (seen: {seen}); the hosts' logs:\n{logs}")


@contextlib.contextmanager
def hosts_beside(arena: ArenaThread, redis_url: str, tmp: Path, host_ids: tuple[str, ...],
                 **settings: str) -> Iterator[Arena]:
    """Bot hosts ``host_ids`` beside ``arena`` (short leases and polls; ``settings`` add or
    override their environment), stopped (SIGTERM) at the end."""
    store = Store.from_url(redis_url, arena.prefix)
    env = {"PATH": os.environ["PATH"], "REDIS_URL": redis_url, "PITCH_STORE_PREFIX": arena.prefix,
           "PITCH_REFEREE": arena.arena.address, "PITCH_ARTIFACTS_DIR": str(tmp / "artifacts"),
           "PITCH_HOST_LEASE_S": str(LEASE_S), "PITCH_HOST_POLL_S": str(POLL_S), "PITCH_HOSTED_BACKOFF_S": "0.1",
           "PITCH_HOSTED_MAX_BACKOFF_S": "0.2", "PITCH_HOSTED_HELLO_S": str(HELLO_S),
           "PITCH_DATA_DIR": str(tmp / "data"), "PITCH_HOST_SLOTS": "4", "PITCH_HOSTED_CAPACITY": "2", **settings}
    packages = tmp / "packages"
    packages.mkdir()
    world = Arena(arena, store, FileArtifacts(tmp / "artifacts"), HostedVersions(store), {}, env, packages)
    try:
        for host_id in host_ids:
            world.start_host(host_id, tmp)
        yield world
    finally:
        for host in world.hosts.values():
            host.stop()
