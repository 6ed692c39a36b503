"""Building, running and stopping the referee's grpc.aio server."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import signal
import sys
import time
import uuid

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2, relay_pb2
from referee.arena import Arena
from referee.config import RefereeConfig
from referee.fleet import FleetMember
from referee.relay import Relays
from referee.relay_host import RelayServicer, add_relay_service
from referee.relay_identity import NO_RELAY_TOKEN, RelayIdentity
from referee.service import ArenaServicer, BotServicer, add_arena_service, add_bot_service
from referee.version_check import VersionChecker
from store.redis_store import Store
from store.tls import Tls

log = logging.getLogger("pitch.referee")
STOP_GRACE_S = 1.0
"""How long the calls still open after the drain (their last messages being written) may
take before the server cancels them."""
SHUTTING_DOWN = "the referee is shutting down; connect to another referee of the arena"
SERVER_OPTIONS = [
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
]
SERVICE_NAMES = (
    bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name,
    arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name,
    relay_pb2.DESCRIPTOR.services_by_name["RelayService"].full_name,
)


class RefereeServer:
    """A started referee: its port, its arena, and a clean :meth:`stop`."""

    def __init__(self, config: RefereeConfig, store: Store) -> None:
        if not config.admin_token:
            raise ValueError("RefereeServer needs an admin token")
        self.config = config
        self.arena = Arena(config, store)
        self.server = grpc.aio.server(options=SERVER_OPTIONS)
        self.checker = VersionChecker(self.arena, holder=uuid.uuid4().hex[:12])
        add_bot_service(BotServicer(self.arena, self.checker), self.server)
        add_arena_service(ArenaServicer(self.arena), self.server)
        identity = RelayIdentity.of(config)
        self.relay_service = RelayServicer(self.arena, identity)
        self.relay_server: grpc.aio.Server | None = None
        """The relay listener (``relay_address``), serving RelayService alone."""
        if config.relay_address:
            self.relay_server = grpc.aio.server(options=SERVER_OPTIONS)
            add_relay_service(self.relay_service, self.relay_server)
        else:
            add_relay_service(self.relay_service, self.server)
        self.health = health.aio.HealthServicer()
        self.store_up = True
        """Whether the store answered the last heartbeat (the health service says so)."""
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection((*SERVICE_NAMES, health.SERVICE_NAME, reflection.SERVICE_NAME),
                                            self.server)
        self.stopped = False
        tls = Tls(config.tls_ca, config.tls_cert, config.tls_key)
        self.port = listen(self.server, config.address, tls.server_credentials() if tls.server else None)
        self.relay_port = 0
        if self.relay_server is not None:
            health_pb2_grpc.add_HealthServicer_to_server(self.health, self.relay_server)
            mutual = Tls(config.tls_ca, config.relay_cert, config.relay_key)
            self.relay_port = listen(self.relay_server, config.relay_address,
                                     mutual.server_credentials(require_client_certificate=True) if mutual.server
                                     else None)
        self.fleet = self.arena.fleet = FleetMember(config, store, self.arena.registry,
                                                   lambda: len(self.arena.tasks), self.port, self.relay_port,
                                                   self._store_reachable)
        self.arena.relays = Relays(identity, self.fleet.directory)

    async def start(self) -> None:
        """Start serving and report SERVING on the health service."""
        await self.server.start()
        if self.relay_server is not None:
            await self.relay_server.start()
        await self._set_health(health_pb2.HealthCheckResponse.SERVING)
        await self.fleet.start()
        log.info("referee listening on port %d%s", self.port,
                 f", relays on port {self.relay_port}" if self.relay_port else "")
        if not self.config.relay_token:
            log.warning("%s; a fleet's referees share one", NO_RELAY_TOKEN)

    async def _store_reachable(self, reachable: bool) -> None:
        """After each heartbeat: while the store is out of reach every call would answer
        UNAVAILABLE, so health says NOT_SERVING (an orchestrator stops routing here), and
        SERVING again once a heartbeat gets through."""
        if reachable == self.store_up or self.stopped:
            return
        self.store_up = reachable
        log.warning("the store %s: health is %s", "is back" if reachable else "is out of reach",
                    "SERVING" if reachable else "NOT_SERVING")
        await self._set_health(health_pb2.HealthCheckResponse.SERVING if reachable
                               else health_pb2.HealthCheckResponse.NOT_SERVING)

    async def _set_health(self, status: health_pb2.HealthCheckResponse.ServingStatus.ValueType) -> None:
        for name in ("", *SERVICE_NAMES):
            await self.health.set(name, status)

    async def stop(self) -> None:
        """Drain, then close: refuse new work and leave the fleet at once (the bots that can
        move are told to), let the matches in flight here and the seats relayed from here
        for other referees' matches end within the shutdown grace (then abort what is
        left), and only then end the bots' streams and the relay calls, whose last messages
        (a match's end) are written first."""
        if self.stopped:
            return
        self.stopped = True
        deadline = asyncio.get_running_loop().time() + self.config.shutdown_grace_s
        self.arena.accepting = False
        await self._set_health(health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.fleet.leave()
        await self.checker.stop()  # the checks in progress stay pending: they run again at the next hello
        await self.arena.shutdown(deadline, self.relay_service.relaying)
        if self.relay_service.relaying():
            log.warning("shutdown: ending %d relayed seat(s) of other referees' matches",
                        self.relay_service.relaying())
        self.relay_service.end_calls()
        await self.fleet.stop()
        if self.arena.relays is not None:
            await self.arena.relays.close()
        self.arena.registry.end_streams(grpc.StatusCode.UNAVAILABLE, SHUTTING_DOWN)
        await asyncio.gather(self.server.stop(grace=STOP_GRACE_S),
                             *([self.relay_server.stop(grace=STOP_GRACE_S)] if self.relay_server else []))
        log.info("referee stopped")


def listen(server: grpc.aio.Server, address: str, credentials: grpc.ServerCredentials | None) -> int:
    """Add a listener on ``address`` (TLS with ``credentials``); the port bound."""
    port = server.add_secure_port(address, credentials) if credentials else server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    return port


class JsonFormatter(logging.Formatter):
    """One JSON object per log line, for log collectors."""

    def format(self, record: logging.LogRecord) -> str:
        return json.dumps({"ts": round(time.time(), 3), "level": record.levelname, "logger": record.name,
                           "message": record.getMessage()})


def configure_logging(json_logs: bool, level: str = "INFO") -> None:
    """Structured (JSON) or human log lines on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if json_logs else
                         logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler], force=True)


async def serve(config: RefereeConfig, store: Store) -> None:
    """Run a referee until SIGINT/SIGTERM, then shut it down cleanly."""
    if not config.admin_token:
        token = secrets.token_hex(24)  # hex: never starts with "-", which a command line takes for an option
        log.warning("no admin token configured; generated one for this run: %s", token)
        config = RefereeConfig(**{**config.__dict__, "admin_token": token})
    server = RefereeServer(config, store)
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down")
    await server.stop()
