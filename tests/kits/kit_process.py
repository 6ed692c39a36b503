"""The starter kits (kits/) as tests use them: built once per change of their inputs (the
build is cached in the kit's own directory, under a file lock so parallel test workers
build it once), and their bot run as a real process against a test referee."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
from collections.abc import Iterable
from pathlib import Path

from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2
from tests.referee.harness import ADMIN, RawBot
from tests.workers.celery_harness import ArenaThread, wait_until

ROOT = Path(__file__).resolve().parents[2]
KITS = ROOT / "kits"


def _fingerprint(paths: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def built(kit: Path, inputs: Iterable[Path], stamp: Path, build: list[str]) -> None:
    """Run the ``build`` command in ``kit`` unless ``stamp`` records a build of exactly these
    ``inputs``; a failed build fails the test with its output."""
    fingerprint = _fingerprint(inputs)
    with (kit / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and stamp.read_text() == fingerprint:
            return
        done = subprocess.run(build, cwd=kit, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{' '.join(build)} failed in {kit}:\n{done.stdout}{done.stderr}"
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(fingerprint)


def tool(name: str) -> str:
    """The path of a tool the kits need; fails saying how to install it."""
    found = shutil.which(name)
    assert found, f"{name} is not installed: run `bash scripts/ensure-kits.sh` (the test command does)"
    return found


def node_kit() -> list[str]:
    """``npm ci`` in kits/node when its lockfile changed; the command that runs its bot."""
    kit = KITS / "node"
    built(kit, [kit / "package-lock.json"], kit / "node_modules" / ".pitch-kit-build",
          [tool("npm"), "ci", "--no-audit", "--no-fund"])
    return [tool("node"), str(kit / "bot.js")]


def go_kit() -> list[str]:
    """kits/go/build.sh (protoc, go build over Debian's Go libraries, then the kit's Go
    tests) when its sources or the protos changed; the command that runs its bot."""
    kit = KITS / "go"
    protos = (ROOT / "protos" / "pitch" / "v1").glob("*.proto")
    inputs = [kit / "build.sh", *kit.glob("*.go"), *kit.glob("*/*.go"), *protos]
    for name in ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc"):
        tool(name)
    built(kit, inputs, kit / ".gopath" / "build-stamp", ["bash", str(kit / "build.sh"), "test"])
    return [str(kit / "pitch-go-bot")]


#: Each kit's command, built when needed.
KIT_COMMANDS = {"node": node_kit, "go": go_kit}


class KitBot:
    """A kit's bot process, registered with the arena and connected to it."""

    def __init__(self, arena: ArenaThread, command: list[str], log_path: Path) -> None:
        self.arena = arena
        self.bot_id, self.token = arena.register()
        self.log_path = log_path
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(command, env={**os.environ, "PITCH_REFEREE": arena.arena.address,
                                                      "PITCH_BOT_TOKEN": self.token},
                                        stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_until(self.connected, 30, f"the kit bot to connect ({self.log()})")

    def connected(self) -> bool:
        """Whether the referee lists the bot as connected (and the process still runs)."""
        assert self.process.poll() is None, f"the kit bot exited: {self.log()}"

        async def listed() -> arena_pb2.ListBotsResponse:
            return await self.arena.arena.admin.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN)

        return any(bot.bot_id == self.bot_id and bot.connected for bot in self.arena.call(listed()).bots)

    def drop_stream(self) -> None:
        """Open a stream with the bot's token and version: the referee ends the bot's own
        (ABORTED, replaced), so the bot must reconnect, which in turn replaces this one."""
        presence = self.arena.arena.server.arena.registry.get(self.bot_id)
        version = presence.version if presence is not None else ""

        async def intrude() -> None:
            hello = bot_pb2.Hello(bot_name="intruder", bot_version=version, protocol_versions=["pitch.v1"])
            await RawBot(self.arena.arena, self.token, hello, lambda bot, message: None).started()

        connections = self.log().count("connected to")
        self.arena.call(intrude())
        wait_until(lambda: self.log().count("connected to") > connections and self.connected(), 30,
                   f"the kit bot to reconnect ({self.log()})")

    def stop(self) -> int:
        """SIGTERM, as a user's Ctrl-C or a service manager; the exit status."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
            raise
        finally:
            self._log.close()

    def log(self) -> str:
        """Everything the bot printed so far."""
        return self.log_path.read_text(errors="replace")


def play(arena: ArenaThread, preset: str, seats: list[str], options_json: str = "", seed: int = 1
         ) -> arena_pb2.RunMatchResponse:
    """A recorded match through ArenaService.RunMatch."""
    response: arena_pb2.RunMatchResponse = arena.call(arena.arena.run_match(
        preset, seats, options_json=options_json, seed=seed, games=1), timeout=120)
    return response


def moves(arena: ArenaThread, match_id: str) -> list[tuple[int, str]]:
    """Every decision of a recorded match's games, as (seat, action text), from GetMatchLog."""

    async def fetch() -> arena_pb2.GetMatchLogResponse:
        return await arena.arena.admin.GetMatchLog(arena_pb2.GetMatchLogRequest(match_id=match_id), metadata=ADMIN)

    return [(seat, text) for log in arena.call(fetch()).game_logs_json for seat, text in json.loads(log)["moves"]]
