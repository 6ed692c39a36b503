"""The fleet the chaos benchmark runs, as real processes on loopback, and their restarts.

A private ``redis-server`` with append-only persistence (a Unix socket in the run's
directory, never the machine's Redis); ``--referees`` referee processes on it (one fleet:
one key prefix, each on its own port); ``--bots`` SDK bots (``pitch-bot run heuristic``,
fleet-aware: a stream to every referee); ``--single-stream-bots`` Node kit bots
(``kits/node/bot.js``: one stream, no ``fleet_updates`` in their hello), the k-th dialling
referee k, so their seats in matches placed on any other referee go through the relay;
``--workers`` Celery workers and one beat; with ``--practice-flood``, a bot of its own that
floods the first referee with practice requests (:mod:`chaos_parts.flood`).

Settings are the services' defaults (lease 15 s, sweep 10 s, visibility 2400 s, fleet TTL
10 s, shutdown and reconnect grace) unless ``fast`` asks for today's short ones (the short
test: recovery in seconds).  :class:`Lives` keeps when each incarnation of each process
started and ended: the checks read the logs of one incarnation against its life."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]

from cli.local_arena import LocalArena, Service, wait_for
from competitions.config import WorkerConfig
from competitions.referee_client import RefereeClient
from store.fleet import FleetDirectory
from store.redis_store import Store

ROOT = Path(__file__).resolve().parents[2]
NODE_KIT = ROOT / "kits" / "node"
FLOOD = Path(__file__).resolve().parent / "flood.py"
#: Short settings (``--fast-recovery``): recovery in seconds, for the short test.  The
#: visibility timeout still exceeds a match plus the longest retry delay (WorkerConfig checks).
FAST_WORKER: dict[str, Any] = {"lease_s": 3.0, "requeue_interval_s": 2.0, "match_timeout_s": 120.0,
                               "match_retries": 8, "retry_backoff_s": 1.0, "retry_backoff_max_s": 8.0,
                               "visibility_timeout_s": 300.0, "restore_interval_s": 5.0, "fleet_ttl_s": 3.0}
FAST_REFEREE = {"PITCH_SHUTDOWN_GRACE_S": "1", "PITCH_RECONNECT_GRACE_S": "10", "PITCH_FLEET_TTL_S": "3"}


@dataclass
class Lives:
    """Per service name, each incarnation's (start, end) in ``time.time()``; end ``None`` while it runs."""

    spans: dict[str, list[list[float | None]]] = field(default_factory=dict)

    def born(self, name: str) -> None:
        self.spans.setdefault(name, []).append([time.time(), None])

    def died(self, name: str, at: float | None = None) -> None:
        span = self.spans[name][-1]
        if span[1] is None:
            span[1] = at if at is not None else time.time()

    def ends(self) -> dict[str, list[float | None]]:
        return {name: [end for _, end in spans] for name, spans in self.spans.items()}


def node_kit_ready() -> list[str]:
    """The Node kit's command; ``npm ci`` from its lockfile first if its packages are missing."""
    if not (NODE_KIT / "node_modules" / "@grpc" / "grpc-js").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_KIT, check=True, capture_output=True)
    return ["node", str(NODE_KIT / "bot.js")]


class Fleet:
    """Every process of the run, how each is started again, and the store they share."""

    def __init__(self, arena: LocalArena, log_dir: Path, *, referees: int, bots: int, kit_bots: int, workers: int,
                 concurrency: int, fast: bool, seed: int, practice_flood: bool = False) -> None:
        self.arena, self.log_dir, self.lives = arena, log_dir, Lives()
        self.prefix, self.admin = "chaos:", os.urandom(12).hex()
        self.redis_url = arena.start_persistent_redis(log_dir / "redis-data")
        self.lives.born("redis")
        self.referee_env = {**(FAST_REFEREE if fast else {})}
        self.addresses: dict[str, str] = {}
        for number in range(referees):
            name = f"referee-{number + 1}"
            self.addresses[name] = arena.start_referee(self.redis_url, self.prefix, self.admin, self.referee_env,
                                                       name=name)
            self.lives.born(name)
        first = next(iter(self.addresses.values()))
        self.client = RefereeClient(first, self.admin, match_timeout_s=60)
        self.store = Store.from_url(self.redis_url, self.prefix)
        self.directory = FleetDirectory(self.store, float(self.referee_env.get("PITCH_FLEET_TTL_S", 10.0)))
        self.env: dict[str, dict[str, str]] = {}
        self.bot_ids: dict[str, str] = {}
        """Service name -> bot id."""
        for number in range(bots):
            name, token = self._register(f"heuristic-{number + 1}")
            arena.start_bot(name.removeprefix("bot-"), "heuristic", first, token, seed + number)
            self.lives.born(name)
        node = node_kit_ready() if kit_bots else []
        for number in range(kit_bots):
            name, token = self._register(f"node-{number + 1}")
            address = list(self.addresses.values())[number % referees]
            self.env[name] = {"PITCH_BOT_TOKEN": token}
            arena.services.append(Service(name, [*node, "--referee", address, "--quiet"], self.env[name], log_dir))
            self.lives.born(name)
        self.kit_bots = [f"bot-node-{n + 1}" for n in range(kit_bots)]
        self.homes = {f"node-{n + 1}": list(self.addresses)[n % referees] for n in range(kit_bots)}
        """Single-stream bot name -> the referee (service name) its one stream goes to."""
        self.wait_bots(60)
        self.flood = "practice-flood" if practice_flood else None
        """The service that floods the first referee with practice requests (``--practice-flood``)."""
        if self.flood is not None:  # a bot of its own: it plays in no tournament
            registered = self.client.register("practice-flood", owner="chaos")
            self.env[self.flood] = {"PITCH_BOT_TOKEN": registered.token, "PITCH_ADMIN_TOKEN": self.admin}
            arena.services.append(Service(self.flood, [sys.executable, str(FLOOD), first], self.env[self.flood],
                                          log_dir))
            self.lives.born(self.flood)
        settings = FAST_WORKER if fast else {}
        self.config = WorkerConfig(redis_url=self.redis_url, store_prefix=self.prefix, referee=first,
                                   admin_token=self.admin, **settings)
        self.workers = [f"worker-{n + 1}" for n in range(workers)]
        for name in self.workers:
            arena.start_worker(self.config, name, concurrency)
            self.lives.born(name)
            self.env[name] = self.config.to_env()
        arena.start_beat(self.config)
        self.lives.born("beat")
        self.env["beat"] = self.config.to_env()
        for name in self.addresses:
            self.env[name] = {"REDIS_URL": self.redis_url, "PITCH_STORE_PREFIX": self.prefix,
                              "PITCH_ADMIN_TOKEN": self.admin, "PITCH_RELAY_TOKEN": arena.relay_token,
                              **self.referee_env}

    def _register(self, bot: str) -> tuple[str, str]:
        registered = self.client.register(bot, owner="chaos")
        name = f"bot-{bot}"
        self.bot_ids[name] = registered.bot_id
        self.env[name] = {"PITCH_BOT_TOKEN": registered.token}
        return name, registered.token

    def settings(self) -> dict[str, Any]:
        """The settings the services run with (the JSON report's)."""
        return {"lease_s": self.config.lease_s, "requeue_interval_s": self.config.requeue_interval_s,
                "visibility_timeout_s": self.config.visibility_timeout_s, "fleet_ttl_s": self.config.fleet_ttl_s,
                "match_retries": self.config.match_retries, "retry_backoff_s": self.config.retry_backoff_s,
                "referee_env": self.referee_env}

    # ------------------------------------------------------------------ services
    def service(self, name: str) -> Service:
        return next(s for s in self.arena.services if s.name == name)

    @property
    def sdk_bots(self) -> list[str]:
        return [name for name in self.bot_ids if name not in self.kit_bots]

    @property
    def referees(self) -> list[str]:
        return list(self.addresses)

    def names(self) -> list[str]:
        return [s.name for s in self.arena.services]

    def pool_children(self, name: str) -> list[int]:
        """The pids of a worker's prefork pool processes (its main process's children)."""
        try:
            return [child.pid for child in psutil.Process(self.service(name).process.pid).children()]
        except psutil.NoSuchProcess:
            return []

    def wait_bots(self, timeout: float) -> None:
        """Until every SDK bot has a stream to every live referee and each kit bot to one."""
        def connected() -> bool:
            live = self.directory.live_ids()
            pipe = self.store.client.pipeline(transaction=False)
            for referee_id in live:
                pipe.smembers(self.directory.key("bots", referee_id))
            found = [set(map(str, members)) for members in pipe.execute()]
            return len(live) == len(self.addresses) and all(
                sum(self.bot_ids[name] in members for members in found) >= (1 if name in self.kit_bots else len(live))
                for name in self.bot_ids)
        wait_for(connected, timeout, "every bot's streams", self.arena.services)

    def restart(self, name: str) -> None:
        """Start service ``name`` again with its environment.  A process group still alive
        (a worker whose main process alone was killed leaves its pool processes behind) is
        killed first, as a supervisor restarting the service would."""
        service = self.service(name)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(service.process.pid, signal.SIGKILL)
        service.process.wait()
        self.lives.died(name)
        self.arena.restart(service, self.env[name])
        self.lives.born(name)

    def restart_redis(self) -> None:
        self.arena.restart_redis()
        self.lives.born("redis")
