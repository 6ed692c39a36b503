"""Building, running and stopping the referee's grpc.aio server."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import signal
import sys
import time

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2, relay_pb2
from referee.arena import Arena
from referee.config import RefereeConfig
from referee.fleet import FleetMember
from referee.relay import Relays
from referee.relay_host import RelayServicer, add_relay_service
from referee.service import ArenaServicer, BotServicer, add_arena_service, add_bot_service
from store.redis_store import Store

log = logging.getLogger("pitch.referee")
STOP_GRACE_S = 1.0
"""How long the calls still open after the drain (their last messages being written) may
take before the server cancels them."""
SHUTTING_DOWN = "the referee is shutting down; connect to another referee of the arena"
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
        self.server = grpc.aio.server(options=[
            ("grpc.keepalive_time_ms", 20_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
            ("grpc.keepalive_permit_without_calls", 1),
        ])
        add_bot_service(BotServicer(self.arena), self.server)
        add_arena_service(ArenaServicer(self.arena), self.server)
        self.relay_service = RelayServicer(self.arena)
        add_relay_service(self.relay_service, self.server)
        self.health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection((*SERVICE_NAMES, health.SERVICE_NAME, reflection.SERVICE_NAME),
                                            self.server)
        self.stopped = False
        self.port = self.server.add_insecure_port(config.address)
        if self.port == 0:
            raise OSError(f"cannot listen on {config.address}")
        self.fleet = self.arena.fleet = FleetMember(config, store, self.arena.registry,
                                                   lambda: len(self.arena.tasks), self.port)
        self.arena.relays = Relays(config.admin_token, self.fleet.directory)

    async def start(self) -> None:
        """Start serving and report SERVING on the health service."""
        await self.server.start()
        await self.fleet.start()
        for name in ("", *SERVICE_NAMES):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        log.info("referee listening on port %d", self.port)

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
        for name in ("", *SERVICE_NAMES):
            await self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.fleet.leave()
        await self.arena.shutdown(deadline, self.relay_service.relaying)
        if self.relay_service.relaying():
            log.warning("shutdown: ending %d relayed seat(s) of other referees' matches",
                        self.relay_service.relaying())
        self.relay_service.end_calls()
        await self.fleet.stop()
        if self.arena.relays is not None:
            await self.arena.relays.close()
        self.arena.registry.end_streams(grpc.StatusCode.UNAVAILABLE, SHUTTING_DOWN)
        await self.server.stop(grace=STOP_GRACE_S)
        log.info("referee stopped")


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
