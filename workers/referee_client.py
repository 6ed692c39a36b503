"""The workers' and the CLI's side of the referee's ArenaService: run a scheduled match,
register and list bots.

Synchronous gRPC (a Celery task runs one match at a time); the channel is opened on first
use, so a client built before the prefork pool forks is never shared across processes.
"""

from __future__ import annotations

from typing import Any

import grpc

from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc
from referee.match import result_to_dict
from workers.tournaments.schedule import Schedule, ScheduledMatch

#: Refusals that may clear up by themselves: a bot is offline (FAILED_PRECONDITION), the
#: referee is down or shutting down (UNAVAILABLE), a bot's seats are all busy
#: (RESOURCE_EXHAUSTED), the call outlived its deadline while the match runs on
#: (DEADLINE_EXCEEDED: a retry joins the running match).
TRANSIENT = frozenset({grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNAVAILABLE,
                       grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.DEADLINE_EXCEEDED,
                       grpc.StatusCode.CANCELLED, grpc.StatusCode.ABORTED})


class RefereeClient:
    """Admin calls to one referee."""

    def __init__(self, address: str, admin_token: str, match_timeout_s: float) -> None:
        self.address = address
        self.metadata = (("authorization", f"Bearer {admin_token}"),)
        self.match_timeout_s = match_timeout_s
        self._stub: arena_pb2_grpc.ArenaServiceStub | None = None

    @property
    def stub(self) -> arena_pb2_grpc.ArenaServiceStub:
        """The ArenaService stub, connected on first use."""
        if self._stub is None:
            self._stub = arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(self.address))
        return self._stub

    def run_match(self, schedule: Schedule, match: ScheduledMatch) -> dict[str, Any]:
        """Run (or join, or fetch the record of) a scheduled match; its result as stored.

        Raises :class:`grpc.RpcError` when the referee refuses or cannot be reached."""
        response = self.stub.RunMatch(arena_pb2.RunMatchRequest(
            preset=schedule.preset, options_json=schedule.options_json, seat_bot_ids=list(match.seats),
            seed=match.seed, games=schedule.games, match_id=match.match_id),
            metadata=self.metadata, timeout=self.match_timeout_s)
        return result_to_dict(response.result)

    def register(self, name: str, owner: str = "", description: str = "") -> arena_pb2.RegisterBotResponse:
        """Register a bot: its id and its token (which the referee never shows again)."""
        return self.stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name, owner=owner, description=description),
                                     metadata=self.metadata, timeout=30)

    def bots(self) -> list[arena_pb2.BotInfo]:
        """Every registered bot, by name, and whether it is connected now."""
        return list(self.stub.ListBots(arena_pb2.ListBotsRequest(), metadata=self.metadata, timeout=30).bots)

    def connected_bots(self) -> list[str]:
        """Ids of the bots connected now."""
        return [bot.bot_id for bot in self.bots() if bot.connected]
